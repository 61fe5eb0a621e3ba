//! [`RcFileTable`]: the RCFiles of a directory or glob as one DataFusion table. RCFile keeps
//! no schema and no statistics, so the table is given its Hive schema and serde; scans read
//! only the projected columns and run in parallel over byte-range splits, which RCFile cuts
//! on its sync markers the way Hive and Trino do.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{RecordBatch, RecordBatchOptions};
use arrow_schema::{SchemaRef, TimeUnit};
use async_trait::async_trait;
use colfile::arrow::{BufferPool, RcFileArrowReader};
use colfile::rcfile::{Schema, Serde};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::stats::Precision;
use datafusion::common::{Result, ScalarValue, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::counted::{bytes_read, CountedSource};
use crate::exec::{drain, FileCounts, ScanExec, ScanTask, TaskMetrics};
use crate::listing::{list_files, partition_root, Origin, TableFile};
use crate::partition::Partitions;
use crate::remote::TableUrl;
use crate::split::assign;
use colfile::arrow::RcFileRecordBatchStreamBuilder;
use colfile::source::{Counted, ObjectSource};
use futures::StreamExt;
use object_store::ObjectStore;

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
    /// The Hive partition columns (`name=value/` directory levels), with their types, in
    /// directory order (`PARTITIONED BY`). Empty: found from the files' directories, as
    /// strings.
    pub partition_columns: Vec<arrow_schema::Field>,
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
            partition_columns: Vec::new(),
        }
    }
}

/// RCFiles as a table (see the [module docs](self)).
#[derive(Debug)]
pub struct RcFileTable {
    files: Vec<TableFile>,
    pub(crate) options: RcFileOptions,
    /// The files' columns, then the partition columns.
    schema: SchemaRef,
    partitions: Partitions,
    /// The store the files are in, when they are objects (their paths are URLs).
    store: Option<Arc<dyn ObjectStore>>,
    /// How the files were named.
    pub(crate) origin: Origin,
}

impl RcFileTable {
    /// The files at `location` (a file, a directory or a glob; see [`list_files`]); the
    /// `name=value/` directories below it are partition columns
    /// ([`crate::partition`]).
    pub fn try_new(location: &str, options: RcFileOptions) -> colfile::Result<Self> {
        let files = list_files(location, None)?;
        let root = partition_root(location);
        let partitions = Partitions::discover(&root, &files, &options.partition_columns)?;
        let mut t = Self::build(files, options, partitions)?;
        t.origin = Origin::Location(location.to_owned());
        Ok(t)
    }

    /// The objects at `location`, a URL (`s3://bucket/warehouse/t/`), in `store`; the
    /// `name=value/` levels below it are partition columns, as for local directories.
    pub async fn try_new_remote(
        location: &str,
        store: Arc<dyn ObjectStore>,
        options: RcFileOptions,
    ) -> colfile::Result<Self> {
        let url = TableUrl::parse(location)?;
        let files = url.list(store.as_ref(), None).await?;
        let root = std::path::PathBuf::from(location);
        let partitions = Partitions::discover(&root, &files, &options.partition_columns)?;
        let mut t = Self::build(files, options, partitions)?;
        t.store = Some(store);
        t.origin = Origin::Location(location.to_owned());
        Ok(t)
    }

    /// A table over exactly these files (no partition columns).
    pub fn with_files(files: Vec<TableFile>, options: RcFileOptions) -> colfile::Result<Self> {
        let partitions = Partitions {
            values: vec![Vec::new(); files.len()],
            ..Partitions::default()
        };
        let mut t = Self::build(files.clone(), options, partitions)?;
        t.origin = Origin::Files(files);
        Ok(t)
    }

    fn build(
        files: Vec<TableFile>,
        options: RcFileOptions,
        partitions: Partitions,
    ) -> colfile::Result<Self> {
        let file_schema = probe(&options).schema()?;
        let mut fields: Vec<arrow_schema::FieldRef> =
            file_schema.fields().iter().cloned().collect();
        for f in &partitions.fields {
            if file_schema.field_with_name(f.name()).is_ok() {
                return Err(colfile::Error::schema(format!(
                    "partition column {} is also a column of the files",
                    f.name()
                )));
            }
            fields.push(Arc::new(f.clone()));
        }
        let schema = Arc::new(arrow_schema::Schema::new_with_metadata(
            fields,
            file_schema.metadata().clone(),
        ));
        Ok(RcFileTable {
            files,
            options,
            schema,
            partitions,
            store: None,
            origin: Origin::Files(Vec::new()),
        })
    }

    /// The partition columns and each file's values.
    pub fn partitions(&self) -> &Partitions {
        &self.partitions
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

    fn supports_filters_pushdown(
        &self,
        filters: &[&Expr],
    ) -> Result<Vec<TableProviderFilterPushDown>> {
        // A filter on partition columns only is decided per directory, exactly.
        Ok(filters
            .iter()
            .map(|f| match self.partitions.decides(f) {
                true => TableProviderFilterPushDown::Exact,
                false => TableProviderFilterPushDown::Unsupported,
            })
            .collect())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let n = self.options.schema.len();
        let projected: Vec<usize> = match projection {
            Some(p) => p.clone(),
            None => (0..self.schema.fields().len()).collect(),
        };
        let schema = Arc::new(self.schema.project(&projected)?);
        // The files' columns in the projection's order; partition columns are added to each
        // batch where the projection puts them.
        let columns: Vec<usize> = projected.iter().copied().filter(|&i| i < n).collect();
        let out: Arc<Vec<Option<usize>>> =
            Arc::new(projected.iter().map(|&i| i.checked_sub(n)).collect());
        let keep = self.partitions.keep(filters)?;
        // Objects are fetched by the async reader, driven from the scan's blocking threads.
        let remote = self
            .store
            .clone()
            .map(|s| (s, tokio::runtime::Handle::current()));
        let columns = Arc::new(columns);
        // The scan's readers hand their decode buffers on to each other (a new allocation
        // per file is what made many small files slow).
        let pool = BufferPool::new();
        let mut tasks: Vec<(u64, Arc<dyn ScanTask>)> = Vec::new();
        let mut pruned = 0;
        for (k, f) in self.files.iter().enumerate() {
            if !keep.get(k).copied().unwrap_or(true) {
                pruned += 1;
                continue;
            }
            let values = self.partitions.values.get(k).cloned().unwrap_or_default();
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
                    schema: schema.clone(),
                    out: out.clone(),
                    values: values.clone(),
                    remote: remote.clone(),
                };
                tasks.push((end - start, Arc::new(task)));
                if end >= f.len {
                    break;
                }
                start = end;
            }
        }
        let partitions = assign(tasks, state.config().target_partitions());
        let bytes: u64 = self
            .files
            .iter()
            .zip(&keep)
            .filter(|(_, k)| **k)
            .map(|(f, _)| f.len)
            .sum();
        let mut stats = Statistics::new_unknown(&schema);
        stats.total_byte_size = Precision::Inexact(usize::try_from(bytes).unwrap_or(usize::MAX));
        Ok(Arc::new(ScanExec::new(
            "RcFileScan",
            schema,
            partitions,
            stats,
            limit,
            FileCounts {
                scanned: self.files.len() - pruned,
                pruned,
                ..FileCounts::default()
            },
        )))
    }
}

/// One byte range of one file.
#[derive(Debug)]
pub(crate) struct Split {
    pub file: TableFile,
    pub range: std::ops::Range<u64>,
    pub columns: Arc<Vec<usize>>,
    pub options: RcFileOptions,
    /// Shared by the scan's splits.
    pub pool: BufferPool,
    /// The batches' schema (the projection's).
    pub schema: SchemaRef,
    /// Per output column: `None` for the next file column, `Some(j)` for partition column j.
    pub out: Arc<Vec<Option<usize>>>,
    /// This file's partition values.
    pub values: Vec<ScalarValue>,
    /// The store of an object, and the runtime its requests run on.
    pub remote: Option<(Arc<dyn ObjectStore>, tokio::runtime::Handle)>,
}

impl Split {
    /// [`ScanTask::run`] for an object: the async reader's batches, each awaited on the
    /// runtime from this blocking thread.
    fn run_remote(
        &self,
        store: &Arc<dyn ObjectStore>,
        handle: &tokio::runtime::Handle,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let o = &self.options;
        let started = Instant::now();
        let path = TableUrl::object_path(&self.file)?;
        let name = self.file.path.display().to_string();
        let object = ObjectSource::with_len(Arc::clone(store), path, self.file.len).with_name(name);
        let object = Arc::new(Counted::new(object));
        let builder = RcFileRecordBatchStreamBuilder::new(
            Arc::clone(&object),
            o.schema.clone(),
            o.serde.clone(),
        )
        .with_projection(self.columns.iter().copied())
        .with_split(self.range.clone())
        .with_batch_size(batch_size)
        .with_timestamp_unit(o.timestamp_unit)
        .with_lossy_utf8(o.lossy_utf8);
        let mut stream = handle.block_on(builder.build())?;
        metrics.decode_time += started.elapsed();
        let mut batches = std::iter::from_fn(|| handle.block_on(stream.next()));
        let mut rows = 0u64;
        let result = drain(&mut batches, metrics, |b| {
            rows += b.num_rows() as u64;
            Ok(emit(self.with_partitions(b)?))
        });
        metrics.count("rows_decoded", rows);
        metrics.count("bytes_read", object.bytes());
        metrics.count("requests", object.requests());
        result
    }

    /// `b` (the file columns) with the partition columns put in their places.
    fn with_partitions(&self, b: RecordBatch) -> colfile::Result<RecordBatch> {
        if self.values.is_empty() {
            return Ok(b);
        }
        let rows = b.num_rows();
        let mut file_cols = b.columns().iter();
        let mut arrays = Vec::with_capacity(self.out.len());
        for o in self.out.iter() {
            let a = match o {
                None => file_cols.next().cloned(),
                Some(j) => match self.values.get(*j) {
                    Some(v) => Some(
                        v.to_array_of_size(rows)
                            .map_err(|e| colfile::Error::invalid(e.to_string()))?,
                    ),
                    None => None,
                },
            };
            arrays.push(a.ok_or_else(|| colfile::Error::invalid("partition column missing"))?);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows));
        RecordBatch::try_new_with_options(self.schema.clone(), arrays, &options)
            .map_err(colfile::Error::from)
    }
}

impl ScanTask for Split {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let o = &self.options;
        if let Some((store, handle)) = &self.remote {
            return self.run_remote(store, handle, batch_size, emit, metrics);
        }
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
            Ok(emit(self.with_partitions(b)?))
        });
        metrics.count("rows_decoded", rows);
        metrics.count("row_groups_read", reader.reader().row_groups_read());
        metrics.count("bytes_read", bytes_read() - bytes);
        result
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
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
