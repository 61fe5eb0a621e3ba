//! [`TsFileTable`]: the TsFiles of a directory or glob as one DataFusion table, in either of
//! TsFile's models. Every file's footer is read when the table is made: its schema (the union
//! of the files' columns, by name), and statistics for the planner. A scan pushes the
//! projection, the time range and tag/field filters ([`crate::filter`]) into each file's
//! query, and runs in parallel over groups of devices.
//!
//! Files with table schemas (the table model) give the columns `time`, then the table's TAG
//! and FIELD columns. Files without (the tree model IoTDB writes by default) give `device`,
//! `level0` … `level{K-1}`, `time` and one column per measurement: see [`tree`].

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::{Field, Schema, SchemaRef, TimeUnit};
use async_trait::async_trait;
use colfile::arrow::TsFileArrowReader;
use colfile::tsfile::dataset::Dataset;
use colfile::tsfile::format::DeviceId;
use colfile::tsfile::{Query, TsFileReader};
use datafusion::catalog::{Session, TableProvider};
use datafusion::common::{Result, Statistics};
use datafusion::datasource::TableType;
use datafusion::logical_expr::{Expr, TableProviderFilterPushDown};
use datafusion::physical_plan::ExecutionPlan;

use crate::counted::{bytes_read, CountedSource};
use crate::exec::{df_err, drain, FileCounts, ScanExec, ScanTask, TaskMetrics};
use crate::filter::Pushdown;
use crate::listing::{list_files, TableFile};
use crate::split::assign;
use stats::table_statistics;
use tree::DeviceFilter;

pub mod dataset;
mod stats;
pub mod tree;

/// The name of the time column.
const TIME: &str = "time";

/// How to read a directory of TsFiles.
#[derive(Clone, Debug)]
pub struct TsFileOptions {
    /// Table model: the table to read (needed when a file holds several; `None` for the
    /// file's only table). Tree model (files without table schemas): a path prefix such as
    /// `root.sg1`, keeping only the devices at or below it (`None`: every device).
    pub table: Option<String>,
    /// How stored times are read (default milliseconds, IoTDB's default precision).
    pub time_unit: TimeUnit,
    /// Replace bytes that are not UTF-8 in TEXT/STRING values instead of failing.
    pub lossy_utf8: bool,
    /// Let the planner answer `count(*)`, `count(col)`, `min` and `max` from the row counts,
    /// null counts and extremes the files' indexes store, without reading data (`false`,
    /// the default: they only guide planning, and every answer comes from decoded rows).
    /// Only for files whose writer is trusted: a file whose statistics disagree with its
    /// values (the C++ writer's SPRINTZ INT64 extremes, for one) then gives answers that
    /// disagree with its rows.
    pub trust_statistics: bool,
    /// Apply IoTDB's deletions recorded beside each file (`FILE.mods`, `FILE.mods2`;
    /// default `true`): deleted points are not rows, and the statistics of a table with
    /// any deletion are never exact, since the files' statistics still count them.
    pub apply_mods: bool,
    /// Read a location laid out as an IoTDB data directory (holding `sequence/` or
    /// `unsequence/`, or a database, region or partition folder in one) as one dataset,
    /// merged as IoTDB merges its files (default `true`; see [`dataset`]). `false` reads
    /// its TsFiles as independent files.
    pub merge: bool,
}

impl Default for TsFileOptions {
    fn default() -> Self {
        TsFileOptions {
            table: None,
            time_unit: TimeUnit::Millisecond,
            lossy_utf8: false,
            trust_statistics: false,
            apply_mods: true,
            merge: true,
        }
    }
}

/// Which of TsFile's models the table's files are in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Model {
    /// Files with table schemas.
    Table,
    /// Files without: devices whose paths have at most `levels` nodes.
    Tree { levels: usize },
}

/// One opened file of the table.
#[derive(Debug)]
pub(crate) struct OpenFile {
    pub file: TableFile,
    pub reader: Arc<TsFileReader<CountedSource>>,
    /// This file's columns as its reader returns them (a subset of the table's).
    pub schema: SchemaRef,
    /// The devices of this file that the table holds (its table's, or the tree-model ones
    /// under the prefix), in index order: found once, when the table is made.
    pub devices: Vec<DeviceId>,
}

/// TsFiles as a table (see the [module docs](self)).
#[derive(Debug)]
pub struct TsFileTable {
    files: Vec<OpenFile>,
    options: TsFileOptions,
    schema: SchemaRef,
    statistics: Statistics,
    model: Model,
    /// Set when the table is an IoTDB data directory read as one merged dataset.
    dataset: Option<Arc<Dataset>>,
}

impl TsFileTable {
    /// The `.tsfile` files at `location` (a file, a directory or a glob; see [`list_files`]);
    /// an IoTDB data directory is one merged dataset unless [`TsFileOptions::merge`] is off.
    pub fn try_new(location: &str, options: TsFileOptions) -> colfile::Result<Self> {
        let path = std::path::Path::new(location);
        if options.merge && path.is_dir() && Dataset::is_iotdb_dir(path) {
            return dataset::table(path, options);
        }
        Self::with_files(list_files(location, Some(".tsfile"))?, options)
    }

    /// A table over exactly these files.
    ///
    /// Errors: a file that does not open, lacks the table, or has a column of the same name
    /// as another file's but another type; table-model and tree-model files in one table; a
    /// tree-model measurement named like a path column (`device`, `levelN`).
    pub fn with_files(files: Vec<TableFile>, options: TsFileOptions) -> colfile::Result<Self> {
        let mut open = Vec::with_capacity(files.len());
        let mut fields: Vec<Field> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut tree_files = 0usize;
        let mut levels = 0usize;
        let prefix = options.table.as_deref().map(tree::prefix_nodes);
        for file in files {
            let reader = TsFileReader::builder(CountedSource::open(&file.path)?)
                .with_mods_of(&file.path)
                .with_mods(options.apply_mods)
                .build()
                .map_err(|e| e.with_file(&file))?;
            let reader = Arc::new(reader);
            let tree = reader.metadata().footer().schemas.is_empty();
            let (query, devices) = if tree {
                let devices: Vec<DeviceId> = reader
                    .devices(&Query::all())
                    .map_err(|e| e.with_file(&file))?
                    .into_iter()
                    .filter(|d| prefix.as_deref().is_none_or(|p| tree::under_prefix(d, p)))
                    .collect();
                if devices.is_empty() {
                    continue;
                }
                levels = devices
                    .iter()
                    .map(|d| d.path_nodes().len())
                    .fold(levels, usize::max);
                let query = devices
                    .iter()
                    .fold(Query::all(), |q, d| q.device(d.clone()));
                (query, devices)
            } else {
                let query = base_query(&options);
                let devices = reader.devices(&query).map_err(|e| e.with_file(&file))?;
                (query, devices)
            };
            let schema = TsFileArrowReader::builder(reader.clone())
                .with_query(query.clone())
                .with_time_unit(options.time_unit)
                .schema()
                .map_err(|e| e.with_file(&file))?;
            for f in schema.fields() {
                if tree && (f.name() == tree::DEVICE || f.name() == TIME) {
                    continue;
                }
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
            tree_files += usize::from(tree);
            open.push(OpenFile {
                file,
                reader,
                schema,
                devices,
            });
        }
        let model =
            match tree_files {
                0 if !open.is_empty() => Model::Table,
                n if n == open.len() || open.is_empty() => Model::Tree { levels },
                _ => return Err(colfile::Error::schema(
                    "the table mixes table-model files (with table schemas) and tree-model files",
                )),
            };
        if let Model::Tree { levels } = model {
            if let Some(f) = fields
                .iter()
                .find(|f| tree::is_path_column(f.name(), levels))
            {
                return Err(colfile::Error::schema(format!(
                    "measurement {} has the name of a column made from the device path",
                    f.name()
                )));
            }
            let time = colfile::arrow::tsfile_time_field(options.time_unit);
            let mut all = tree::path_fields(levels);
            all.push(time);
            all.append(&mut fields);
            fields = all;
        }
        let schema = Arc::new(Schema::new(fields));
        // Stored statistics count deleted points: never exact once anything is deleted.
        let deletions = open.iter().any(|f| !f.reader.modifications().is_empty());
        let statistics = table_statistics(&open, &schema, options.trust_statistics && !deletions)?;
        Ok(TsFileTable {
            files: open,
            options,
            schema,
            statistics,
            model,
            dataset: None,
        })
    }

    /// Row count, byte size and per-column statistics from the files' indexes (exact only
    /// with [`TsFileOptions::trust_statistics`]).
    pub fn statistics(&self) -> &Statistics {
        &self.statistics
    }

    /// Whether `filter` is one the scan uses: the time range, tag and field conditions
    /// (table model), or conditions on the device path (tree model).
    fn pushable(&self, filter: &Expr) -> bool {
        let unit = self.options.time_unit;
        let fields = self.fields_pushed();
        let plain = Pushdown::can_push(filter, &self.schema, TIME, unit, fields);
        match self.model {
            Model::Table => plain,
            Model::Tree { levels } => plain || DeviceFilter::applies(filter, levels),
        }
    }

    /// Whether FIELD conditions go to the reader, which skips chunks and pages by their
    /// value statistics: only when those are trusted, and never for the tree model, where a
    /// measurement condition would be asked of devices that lack the measurement.
    fn fields_pushed(&self) -> bool {
        self.options.trust_statistics && self.model == Model::Table
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
                if self.pushable(f) {
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
        let unit = self.options.time_unit;
        let push = Pushdown::from_filters(filters, &self.schema, TIME, unit, self.fields_pushed());
        let device_filter = match self.model {
            Model::Table => DeviceFilter::default(),
            Model::Tree { levels } => DeviceFilter::new(filters, levels),
        };
        // A limit is only safe to push when every filter went to the reader exactly: they
        // are inexact, so it stays with DataFusion.
        let reader_limit = filters.is_empty().then_some(limit).flatten();
        let parts = state.config().target_partitions().max(1);
        let mut tasks: Vec<(u64, Arc<dyn ScanTask>)> = Vec::new();
        let mut files = FileCounts::default();
        if let Some(ds) = &self.dataset {
            let range = (push.start, push.end);
            tasks = dataset::tasks(self, ds, state, &device_filter, &schema, range, parts)?;
        }
        for f in self.files.iter().filter(|_| self.dataset.is_none()) {
            let mut q = self.file_query(f, &schema, &push);
            if let Some(n) = reader_limit {
                q = q.limit(n as u64);
            }
            let devices = match self.model {
                // Tags pushed: the reader's index walk keeps the devices they allow.
                Model::Table if push.filter.is_some() => f.reader.devices(&q).map_err(df_err)?,
                Model::Table => f.devices.clone(),
                Model::Tree { levels } => device_filter.keep(state, f.devices.clone(), levels)?,
            };
            files.devices_pruned += f.devices.len().saturating_sub(devices.len());
            if devices.is_empty() {
                files.pruned += 1;
                continue;
            }
            files.scanned += 1;
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
                    model: self.model,
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
            files,
        )))
    }
}

impl TsFileTable {
    /// The query one file answers (its devices are added per task). Table model: the
    /// table, the projected columns this file has, the time range, and the pushed filter
    /// when this file has every column it names. Tree model: the time range, and every
    /// measurement, since a non-aligned device's rows are the times of all its series.
    fn file_query(&self, f: &OpenFile, out: &Schema, push: &Pushdown) -> Query {
        let mut q = match self.model {
            Model::Tree { .. } => Query::all(),
            Model::Table => {
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
                    .filter(|n| !n.eq_ignore_ascii_case(TIME) && has(n))
                    .collect();
                let mut q = base_query(&self.options).columns(columns);
                if let Some(filter) = &push.filter {
                    if filter.columns().iter().all(|c| has(c)) {
                        q = q.filter(filter.clone());
                    }
                }
                q
            }
        };
        if push.start.is_some() || push.end.is_some() {
            q = q.time_range(push.start.unwrap_or(i64::MIN), push.end.unwrap_or(i64::MAX));
        }
        q
    }
}

/// Some devices of one file.
#[derive(Debug)]
struct Devices {
    file: TableFile,
    reader: Arc<TsFileReader<CountedSource>>,
    query: Query,
    devices: Vec<DeviceId>,
    out: SchemaRef,
    options: TsFileOptions,
    model: Model,
}

impl ScanTask for Devices {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let mut q = self.query.clone();
        for d in &self.devices {
            q = q.device(d.clone());
        }
        let bytes = bytes_read();
        let started = Instant::now();
        let mut reader = TsFileArrowReader::builder(self.reader.clone())
            .with_query(q)
            .with_batch_size(batch_size)
            .with_time_unit(self.options.time_unit)
            .with_lossy_utf8(self.options.lossy_utf8)
            .build()?;
        metrics.decode_time += started.elapsed();
        let result = drain(&mut reader, metrics, |b| {
            Ok(emit(conform(&b, &self.out, self.model)?))
        });
        let ex = reader.explain();
        for (name, level) in [
            ("devices", &ex.devices),
            ("chunks", &ex.chunks),
            ("pages", &ex.pages),
        ] {
            let skipped = level.skipped_total();
            metrics.prune(name, level.considered.saturating_sub(skipped), skipped);
        }
        metrics.count("rows_decoded", ex.rows_decoded);
        metrics.count("bytes_read", bytes_read() - bytes);
        result
    }

    fn describe(&self) -> String {
        format!(
            "{} ({} devices)",
            self.file.path.display(),
            self.devices.len()
        )
    }
}

/// A file's batch in the table's column order: NULL columns for what the file lacks, and
/// (tree model) the path columns of the batch's one device.
fn conform(b: &RecordBatch, out: &SchemaRef, model: Model) -> colfile::Result<RecordBatch> {
    let src = b.schema();
    let rows = b.num_rows();
    let device = match model {
        Model::Tree { .. } if rows > 0 => src
            .index_of(tree::DEVICE)
            .ok()
            .and_then(|i| b.column(i).as_any().downcast_ref::<StringArray>())
            .map(|a| a.value(0).to_owned()),
        _ => None,
    };
    let nodes = device
        .as_deref()
        .and_then(|d| DeviceId::from_tree_path(d).ok())
        .map(|d| d.path_nodes())
        .unwrap_or_default();
    let columns: Vec<ArrayRef> = out
        .fields()
        .iter()
        .map(|f| {
            if let (Model::Tree { levels }, Some(d)) = (model, &device) {
                if tree::is_path_column(f.name(), levels) {
                    return tree::repeated(tree::path_value(f.name(), d, &nodes).as_deref(), rows);
                }
            }
            let at = src.index_of(f.name()).ok().or_else(|| {
                src.fields()
                    .iter()
                    .position(|s| s.name().eq_ignore_ascii_case(f.name()))
            });
            match at {
                Some(i) => b.column(i).clone(),
                None => new_null_array(f.data_type(), rows),
            }
        })
        .collect();
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(out.clone(), columns, &options).map_err(colfile::Error::from)
}
