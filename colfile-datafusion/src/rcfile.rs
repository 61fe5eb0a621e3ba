//! [`RcFileTable`]: the RCFiles of a directory or glob as one DataFusion table. RCFile keeps
//! no schema and no statistics, so the table is given its Hive schema and serde; scans read
//! only the projected columns and run in parallel over byte-range splits, which RCFile cuts
//! on its sync markers the way Hive and Trino do.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::RecordBatch;
use arrow_schema::{SchemaRef, TimeUnit};
use async_trait::async_trait;
use colfile::arrow::{BufferPool, RcFileArrowReader};
use colfile::rcfile::{Schema, Serde};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::{Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use crate::counted::{bytes_read, CountedSource};
use crate::exec::{df_err, drain, FileCounts, ScanExec, ScanTask, TaskMetrics};
use crate::listing::{list_files, TableFile};
use crate::split::assign;

/// How to read a table's RCFiles.
#[derive(Clone, Debug)]
pub struct RcFileOptions {
    /// The table's Hive schema (columns match the files by position).
    pub schema: Schema,
    /// The cell encoding.
    pub serde: Serde,
    /// Bytes per split (default 64 MiB): files larger than this are read by several tasks.
    pub split_size: u64,
    /// The unit of `timestamp` columns (default microseconds, which holds every Hive date).
    pub timestamp_unit: TimeUnit,
    /// Replace bytes that are not UTF-8 in strings instead of failing.
    pub lossy_utf8: bool,
}

impl RcFileOptions {
    /// Options for files of `schema` encoded with `serde`.
    pub fn new(schema: Schema, serde: Serde) -> Self {
        RcFileOptions {
            schema,
            serde,
            split_size: 64 << 20,
            timestamp_unit: TimeUnit::Microsecond,
            lossy_utf8: false,
        }
    }
}

/// RCFiles as a table (see the [module docs](self)).
#[derive(Debug)]
pub struct RcFileTable {
    files: Vec<TableFile>,
    options: RcFileOptions,
    schema: SchemaRef,
}

impl RcFileTable {
    /// The files at `location` (a file, a directory or a glob; see [`list_files`]).
    pub fn try_new(location: &str, options: RcFileOptions) -> colfile::Result<Self> {
        Self::with_files(list_files(location, None)?, options)
    }

    /// A table over exactly these files.
    pub fn with_files(files: Vec<TableFile>, options: RcFileOptions) -> colfile::Result<Self> {
        let schema = probe(&options).schema()?;
        Ok(RcFileTable {
            files,
            options,
            schema,
        })
    }

    /// The table's files.
    pub fn files(&self) -> &[TableFile] {
        &self.files
    }
}

/// A reader builder over nothing, for the schema alone.
fn probe(o: &RcFileOptions) -> colfile::arrow::RcFileArrowReaderBuilder<&'static [u8]> {
    RcFileArrowReader::builder(&[][..], o.schema.clone(), o.serde.clone())
        .with_timestamp_unit(o.timestamp_unit)
}

#[async_trait]
impl TableProvider for RcFileTable {
    fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    fn table_type(&self) -> TableType {
        TableType::Base
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        _filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let columns: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.options.schema.len()).collect(),
        };
        let schema = probe(&self.options)
            .with_projection(columns.clone())
            .schema()
            .map_err(df_err)?;
        let columns = Arc::new(columns);
        // The scan's readers hand their decode buffers on to each other (a new allocation
        // per file is what made many small files slow).
        let pool = BufferPool::new();
        let mut tasks: Vec<(u64, Arc<dyn ScanTask>)> = Vec::new();
        for f in &self.files {
            let step = self.options.split_size.max(1);
            let mut start = 0u64;
            loop {
                let end = start.saturating_add(step).min(f.len);
                let task = Split {
                    file: f.clone(),
                    range: start..end,
                    columns: columns.clone(),
                    options: self.options.clone(),
                    pool: pool.clone(),
                };
                tasks.push((end - start, Arc::new(task)));
                if end >= f.len {
                    break;
                }
                start = end;
            }
        }
        let partitions = assign(tasks, state.config().target_partitions());
        let bytes: u64 = self.files.iter().map(|f| f.len).sum();
        let mut stats = Statistics::new_unknown(&schema);
        stats.total_byte_size = Precision::Inexact(usize::try_from(bytes).unwrap_or(usize::MAX));
        Ok(Arc::new(ScanExec::new(
            "RcFileScan",
            schema,
            partitions,
            stats,
            limit,
            FileCounts {
                scanned: self.files.len(),
                ..FileCounts::default()
            },
        )))
    }
}

/// One byte range of one file.
#[derive(Debug)]
struct Split {
    file: TableFile,
    range: std::ops::Range<u64>,
    columns: Arc<Vec<usize>>,
    options: RcFileOptions,
    /// Shared by the scan's splits.
    pool: BufferPool,
}

impl ScanTask for Split {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let o = &self.options;
        let bytes = bytes_read();
        let started = Instant::now();
        let source = CountedSource::open(&self.file.path)?;
        let mut reader = RcFileArrowReader::builder(source, o.schema.clone(), o.serde.clone())
            .with_projection(self.columns.iter().copied())
            .with_split(self.range.clone())
            .with_batch_size(batch_size)
            .with_timestamp_unit(o.timestamp_unit)
            .with_lossy_utf8(o.lossy_utf8)
            .with_buffer_pool(self.pool.clone())
            .build()?;
        metrics.decode_time += started.elapsed();
        let mut rows = 0u64;
        let result = drain(&mut reader, metrics, |b| {
            rows += b.num_rows() as u64;
            Ok(emit(b))
        });
        metrics.count("rows_decoded", rows);
        metrics.count("row_groups_read", reader.reader().row_groups_read());
        metrics.count("bytes_read", bytes_read() - bytes);
        result
    }

    fn describe(&self) -> String {
        format!(
            "{}:{}..{}",
            self.file.path.display(),
            self.range.start,
            self.range.end
        )
    }
}
