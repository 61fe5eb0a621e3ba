//! [`TsFileTable`]: one table (or the tree-model devices) of the TsFiles in a directory or
//! glob, as one DataFusion table. Every file's footer is read when the table is made: its
//! schema (the union of the files' columns, by name), and statistics for the planner. A
//! scan pushes the projection, the time range and tag/field filters ([`crate::filter`]) into
//! each file's query, and runs in parallel over groups of devices.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_array::{new_null_array, ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::{Field, Schema, SchemaRef, TimeUnit};
use async_trait::async_trait;
use colfile::arrow::TsFileArrowReader;
use colfile::format::tsfile::DeviceId;
use colfile::source::FileSource;
use colfile::tsfile::{Query, TsFileReader};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::exec::{df_err, ScanExec, ScanTask};
use crate::filter::Pushdown;
use crate::listing::{list_files, TableFile};
use crate::split::assign;
use crate::tsfile_stats::table_statistics;

/// The name of the time column.
const TIME: &str = "time";

/// How to read a directory of TsFiles.
#[derive(Clone, Debug)]
pub struct TsFileOptions {
    /// The table to read (needed when a file holds several; `None` for the file's only
    /// table, or the tree-model devices of files without table schemas).
    pub table: Option<String>,
    /// How stored times are read (default milliseconds, IoTDB's default precision).
    pub time_unit: TimeUnit,
    /// Replace bytes that are not UTF-8 in TEXT/STRING values instead of failing.
    pub lossy_utf8: bool,
}

impl Default for TsFileOptions {
    fn default() -> Self {
        TsFileOptions {
            table: None,
            time_unit: TimeUnit::Millisecond,
            lossy_utf8: false,
        }
    }
}

/// One opened file of the table.
#[derive(Debug)]
pub(crate) struct OpenFile {
    pub file: TableFile,
    pub reader: Arc<TsFileReader<FileSource>>,
    /// This file's columns (a subset of the table's).
    pub schema: SchemaRef,
}

/// TsFiles as a table (see the [module docs](self)).
#[derive(Debug)]
pub struct TsFileTable {
    files: Vec<OpenFile>,
    options: TsFileOptions,
    schema: SchemaRef,
    statistics: Statistics,
}

impl TsFileTable {
    /// The `.tsfile` files at `location` (a file, a directory or a glob; see [`list_files`]).
    pub fn try_new(location: &str, options: TsFileOptions) -> colfile::Result<Self> {
        Self::with_files(list_files(location, Some(".tsfile"))?, options)
    }

    /// A table over exactly these files.
    ///
    /// Errors: a file that does not open, lacks the table, or has a column of the same name
    /// as another file's but another type.
    pub fn with_files(files: Vec<TableFile>, options: TsFileOptions) -> colfile::Result<Self> {
        let mut open = Vec::with_capacity(files.len());
        let mut fields: Vec<Field> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        for file in files {
            let reader = Arc::new(TsFileReader::open(FileSource::open(&file.path)?)?);
            let schema = TsFileArrowReader::builder(reader.clone())
                .with_query(base_query(&options))
                .with_time_unit(options.time_unit)
                .schema()
                .map_err(|e| e.with_file(&file))?;
            for f in schema.fields() {
                let key = f.name().to_lowercase();
                match by_name.get(&key).and_then(|&i| fields.get(i)) {
                    Some(have) if have.data_type() != f.data_type() => {
                        return Err(colfile::Error::schema(format!(
                            "column {} is {} in one file and {} in {}",
                            f.name(),
                            have.data_type(),
                            f.data_type(),
                            file.path.display()
                        )));
                    }
                    Some(_) => {}
                    None => {
                        by_name.insert(key, fields.len());
                        fields.push(f.as_ref().clone());
                    }
                }
            }
            open.push(OpenFile {
                file,
                reader,
                schema,
            });
        }
        let schema = Arc::new(Schema::new(fields));
        let statistics = table_statistics(&open, &schema, &base_query(&options))?;
        Ok(TsFileTable {
            files: open,
            options,
            schema,
            statistics,
        })
    }

    /// Row count, byte size and per-column statistics from the files' indexes.
    pub fn statistics(&self) -> &Statistics {
        &self.statistics
    }
}

/// Names the file a planning error is about.
trait WithFile {
    fn with_file(self, file: &TableFile) -> colfile::Error;
}

impl WithFile for colfile::Error {
    fn with_file(self, file: &TableFile) -> colfile::Error {
        colfile::Error::invalid(format!("{}: {self}", file.path.display()))
    }
}

fn base_query(o: &TsFileOptions) -> Query {
    match &o.table {
        Some(t) => Query::all().table(t),
        None => Query::all(),
    }
}

#[async_trait]
impl TableProvider for TsFileTable {
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
        Ok(filters
            .iter()
            .map(|f| {
                if Pushdown::can_push(f, &self.schema, TIME, self.options.time_unit) {
                    TableProviderFilterPushDown::Inexact
                } else {
                    TableProviderFilterPushDown::Unsupported
                }
            })
            .collect())
    }

    fn statistics(&self) -> Option<Statistics> {
        Some(self.statistics.clone())
    }

    async fn scan(
        &self,
        state: &dyn Session,
        projection: Option<&Vec<usize>>,
        filters: &[Expr],
        limit: Option<usize>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let schema = match projection {
            Some(p) => Arc::new(self.schema.project(p)?),
            None => self.schema.clone(),
        };
        let push = Pushdown::from_filters(filters, &self.schema, TIME, self.options.time_unit);
        // A limit is only safe to push when every filter went to the reader exactly: they
        // are inexact, so it stays with DataFusion.
        let reader_limit = filters.is_empty().then_some(limit).flatten();
        let parts = state.config().target_partitions().max(1);
        let mut tasks: Vec<(u64, Arc<dyn ScanTask>)> = Vec::new();
        for f in &self.files {
            let mut q = file_query(&self.options, f, &schema, &push);
            if let Some(n) = reader_limit {
                q = q.limit(n as u64);
            }
            let devices = f.reader.devices(&q).map_err(df_err)?;
            if devices.is_empty() {
                continue;
            }
            // Enough groups for every partition to have work, even with one file.
            let groups = parts.div_ceil(self.files.len()).clamp(1, devices.len());
            let per = devices.len().div_ceil(groups);
            let weight = f.file.len / groups as u64;
            for chunk in devices.chunks(per.max(1)) {
                let task = Devices {
                    file: f.file.clone(),
                    reader: f.reader.clone(),
                    query: q.clone(),
                    devices: chunk.to_vec(),
                    out: schema.clone(),
                    options: self.options.clone(),
                };
                tasks.push((weight, Arc::new(task)));
            }
        }
        let stats = match projection {
            Some(p) => self.statistics.clone().project(Some(p)),
            None => self.statistics.clone(),
        };
        let stats = if filters.is_empty() {
            stats
        } else {
            stats.to_inexact()
        };
        Ok(Arc::new(ScanExec::new(
            "TsFileScan",
            schema,
            assign(tasks, parts),
            stats,
            limit,
        )))
    }
}

/// The query one file answers: the base table, the projected columns this file has, and
/// the pushed filter when this file has every column it names.
fn file_query(o: &TsFileOptions, f: &OpenFile, out: &Schema, push: &Pushdown) -> Query {
    let has = |name: &str| {
        f.schema
            .fields()
            .iter()
            .any(|c| c.name().eq_ignore_ascii_case(name))
    };
    let columns: Vec<String> = out
        .fields()
        .iter()
        .map(|c| c.name().clone())
        .filter(|n| !n.eq_ignore_ascii_case(TIME) && n != "device" && has(n))
        .collect();
    let mut q = base_query(o).columns(columns);
    if push.start.is_some() || push.end.is_some() {
        q = q.time_range(push.start.unwrap_or(i64::MIN), push.end.unwrap_or(i64::MAX));
    }
    if let Some(filter) = &push.filter {
        if filter.columns().iter().all(|c| has(c)) {
            q = q.filter(filter.clone());
        }
    }
    q
}

/// Some devices of one file.
#[derive(Debug)]
struct Devices {
    file: TableFile,
    reader: Arc<TsFileReader<FileSource>>,
    query: Query,
    devices: Vec<DeviceId>,
    out: SchemaRef,
    options: TsFileOptions,
}

impl ScanTask for Devices {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> colfile::Result<()> {
        let mut q = self.query.clone();
        for d in &self.devices {
            q = q.device(d.clone());
        }
        let reader = TsFileArrowReader::builder(self.reader.clone())
            .with_query(q)
            .with_batch_size(batch_size)
            .with_time_unit(self.options.time_unit)
            .with_lossy_utf8(self.options.lossy_utf8)
            .build()?;
        for b in reader {
            let b = b.map_err(colfile::Error::from)?;
            if !emit(conform(&b, &self.out)?) {
                break;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "{} ({} devices)",
            self.file.path.display(),
            self.devices.len()
        )
    }
}

/// A file's batch in the table's column order, with NULL columns for what the file lacks.
fn conform(b: &RecordBatch, out: &SchemaRef) -> colfile::Result<RecordBatch> {
    let src = b.schema();
    let columns: Vec<ArrayRef> = out
        .fields()
        .iter()
        .map(|f| match src.index_of(f.name()) {
            Ok(i) => b.column(i).clone(),
            Err(_) => new_null_array(f.data_type(), b.num_rows()),
        })
        .collect();
    let options = RecordBatchOptions::new().with_row_count(Some(b.num_rows()));
    RecordBatch::try_new_with_options(out.clone(), columns, &options).map_err(colfile::Error::from)
}
