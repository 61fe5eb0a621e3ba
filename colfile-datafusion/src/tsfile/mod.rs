//! [`TsFileTable`]: the TsFiles of a directory or glob as one DataFusion table, in either of
//! TsFile's models. Every file's footer is read when the table is made: its schema (the union
//! of the files' columns, by name), and statistics for the planner. A scan pushes the
//! projection, the time range and tag/field filters ([`crate::filter`]) into each file's
//! query, and runs in parallel over groups of devices.
//!
//! Files with table schemas (the table model) give the columns `time`, then the table's TAG
//! and FIELD columns. Files without (the tree model IoTDB writes by default) give `device`,
//! `level0` … `level{K-1}`, `time` and one column per measurement: see [`tree`]. Hive-style
//! `name=value/` directories below the location add partition columns after those
//! ([`crate::partition`]); a location may be an object store URL ([`remote`]).

use std::collections::HashMap;
use std::sync::Arc;

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
use datafusion::scalar::ScalarValue;
use object_store::ObjectStore;

use crate::counted::CountedSource;
use crate::exec::{df_err, FileCounts, ScanExec, ScanTask};
use crate::filter::Pushdown;
use crate::listing::{list_files, partition_root, Origin, TableFile};
use crate::partition::Partitions;
use crate::remote::TableUrl;
use crate::split::assign;
use stats::table_statistics;
use task::{conform, Devices, TsScan};
use tokio::runtime::Handle;
use tree::DeviceFilter;

pub mod dataset;
pub(crate) mod remote;
mod slices;
mod stats;
pub(crate) mod task;
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
    /// The Hive partition columns (`name=value/` directory levels), with their types, in
    /// directory order; empty: found from the directories, as strings.
    pub partition_columns: Vec<Field>,
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
            partition_columns: Vec::new(),
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
    /// The object opened when the table was made (its footer and index fetched), when the
    /// file is in an object store; `reader` then reads those fetched bytes.
    pub remote: Option<remote::Opened>,
    /// This file's partition values, by column name.
    pub values: Arc<[(String, ScalarValue)]>,
}

impl OpenFile {
    /// Whether the file is in the tree model (it has no table schemas).
    pub fn tree(&self) -> bool {
        self.reader.metadata().footer().schemas.is_empty()
    }
}

/// A file about to join a table: where it is, its opened reader, the object it is (when
/// remote), and its partition values.
type Candidate = (
    TableFile,
    Arc<TsFileReader<CountedSource>>,
    Option<remote::Opened>,
    Arc<[(String, ScalarValue)]>,
);

/// TsFiles as a table (see the [module docs](self)).
#[derive(Debug)]
pub struct TsFileTable {
    files: Vec<Arc<OpenFile>>,
    pub(crate) options: TsFileOptions,
    /// The files' columns, then the partition columns.
    schema: SchemaRef,
    /// The files' columns alone: what filters are pushed against.
    file_schema: SchemaRef,
    statistics: Statistics,
    model: Model,
    /// Set when the table is an IoTDB data directory read as one merged dataset.
    dataset: Option<Arc<Dataset>>,
    /// The partition columns and each of `files`' values.
    partitions: Partitions,
    /// How the files were named.
    pub(crate) origin: Origin,
}

impl TsFileTable {
    /// The `.tsfile` files at `location` (a file, a directory or a glob; see [`list_files`]);
    /// an IoTDB data directory is one merged dataset unless [`TsFileOptions::merge`] is off.
    /// The `name=value/` directories below it are partition columns ([`crate::partition`]).
    pub fn try_new(location: &str, options: TsFileOptions) -> colfile::Result<Self> {
        let path = std::path::Path::new(location);
        let origin = Origin::Location(location.to_owned());
        if options.merge && path.is_dir() && Dataset::is_iotdb_dir(path) {
            let mut t = dataset::table(path, options)?;
            t.origin = origin;
            return Ok(t);
        }
        let files = list_files(location, Some(".tsfile"))?;
        let parts = Partitions::discover(
            &partition_root(location),
            &files,
            &options.partition_columns,
        )?;
        let mut open = Vec::with_capacity(files.len());
        for (file, values) in files.into_iter().zip(named(&parts)) {
            open.push((Self::open_local(&file, &options)?, file, values));
        }
        let open = open.into_iter().map(|(r, f, v)| (f, r, None, v)).collect();
        let mut t = Self::build(open, options, parts.fields)?;
        t.origin = origin;
        Ok(t)
    }

    /// The `.tsfile` objects at `location`, a URL (`s3://bucket/archive/`), in `store`,
    /// with the deletions of the `.mods`/`.mods2` objects beside them; the `name=value/`
    /// levels below it are partition columns, as for local directories. Each object's
    /// footer and index are fetched now; a scan fetches only the chunks it reads.
    pub async fn try_new_remote(
        location: &str,
        store: Arc<dyn ObjectStore>,
        options: TsFileOptions,
    ) -> colfile::Result<Self> {
        let url = TableUrl::parse(location)?;
        let listed = url.list(store.as_ref(), None).await?;
        let opened = remote::open_all(&store, listed, &options).await?;
        let files: Vec<TableFile> = opened.iter().map(|(f, _, _)| f.clone()).collect();
        if files.is_empty() {
            return Err(colfile::Error::invalid(format!(
                "no .tsfile objects at {location:?}"
            )));
        }
        let root = std::path::PathBuf::from(location);
        let parts = Partitions::discover(&root, &files, &options.partition_columns)?;
        let open = opened
            .into_iter()
            .zip(named(&parts))
            .map(|((f, r, o), v)| (f, r, Some(o), v))
            .collect();
        let mut t = Self::build(open, options, parts.fields)?;
        t.origin = Origin::Location(location.to_owned());
        Ok(t)
    }

    /// A table over exactly these files (no partition columns).
    ///
    /// Errors: a file that does not open, lacks the table, or has a column of the same name
    /// as another file's but another type; table-model and tree-model files in one table; a
    /// tree-model measurement named like a path column (`device`, `levelN`).
    pub fn with_files(files: Vec<TableFile>, options: TsFileOptions) -> colfile::Result<Self> {
        let mut open = Vec::with_capacity(files.len());
        for file in &files {
            let reader = Self::open_local(file, &options)?;
            open.push((file.clone(), reader, None, Arc::from(Vec::new())));
        }
        let mut t = Self::build(open, options, Vec::new())?;
        t.origin = Origin::Files(files);
        Ok(t)
    }

    /// Opens a local file with its deletions.
    pub(crate) fn open_local(
        file: &TableFile,
        options: &TsFileOptions,
    ) -> colfile::Result<Arc<TsFileReader<CountedSource>>> {
        let reader = TsFileReader::builder(CountedSource::open(&file.path)?)
            .with_mods_of(&file.path)
            .with_mods(options.apply_mods)
            .build()
            .map_err(|e| e.with_file(file))?;
        Ok(Arc::new(reader))
    }

    /// The table over opened files, with `partitions` as its last columns.
    fn build(
        candidates: Vec<Candidate>,
        options: TsFileOptions,
        partitions: Vec<Field>,
    ) -> colfile::Result<Self> {
        let mut open = Vec::with_capacity(candidates.len());
        let mut fields: Vec<Field> = Vec::new();
        let mut by_name: HashMap<String, usize> = HashMap::new();
        let mut tree_files = 0usize;
        let mut levels = 0usize;
        for (file, reader, remote, values) in candidates {
            let Some(f) = inspect((file, reader, remote, values), &options)? else {
                continue;
            };
            let tree = f.tree();
            if tree {
                levels = f
                    .devices
                    .iter()
                    .map(|d| d.path_nodes().len())
                    .fold(levels, usize::max);
            }
            let (file, schema) = (&f.file, f.schema.clone());
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
            open.push(Arc::new(f));
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
        let file_schema = Arc::new(Schema::new(fields.clone()));
        // Stored statistics count deleted points: never exact once anything is deleted.
        let deletions = open.iter().any(|f| !f.reader.modifications().is_empty());
        let trust = options.trust_statistics && !deletions;
        let mut statistics = table_statistics(&open, &file_schema, trust)?;
        for p in partitions {
            if fields
                .iter()
                .any(|f| f.name().eq_ignore_ascii_case(p.name()))
            {
                return Err(colfile::Error::schema(format!(
                    "partition column {} is also a column of the files",
                    p.name()
                )));
            }
            fields.push(p);
            let unknown = datafusion::common::ColumnStatistics::new_unknown();
            statistics.column_statistics.push(unknown);
        }
        let schema = Arc::new(Schema::new(fields));
        let partitions = Partitions {
            fields: schema.fields()[file_schema.fields().len()..]
                .iter()
                .map(|f| f.as_ref().clone())
                .collect(),
            values: open
                .iter()
                .map(|f| f.values.iter().map(|(_, v)| v.clone()).collect())
                .collect(),
        };
        Ok(TsFileTable {
            files: open,
            options,
            schema,
            file_schema,
            statistics,
            model,
            dataset: None,
            partitions,
            origin: Origin::Files(Vec::new()),
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
        let plain = Pushdown::can_push(filter, &self.file_schema, TIME, unit, fields);
        match self.model {
            Model::Table => plain,
            Model::Tree { levels } => plain || DeviceFilter::applies(filter, levels),
        }
    }

    /// Whether FIELD conditions go to the reader, which skips chunks and pages by their
    /// value statistics: only when those are trusted, and never for the tree model, where a
    /// measurement condition would be asked of devices that lack the measurement.
    fn fields_pushed(&self) -> bool {
        fields_pushed(&self.options, self.model)
    }
}

/// What `candidate` holds for a table read with `options`: its devices (its table's, or
/// the tree-model ones under the prefix) and columns; `None` when it has none of them.
pub(crate) fn inspect(
    candidate: Candidate,
    options: &TsFileOptions,
) -> colfile::Result<Option<OpenFile>> {
    let (file, reader, remote, values) = candidate;
    let tree = reader.metadata().footer().schemas.is_empty();
    let (query, devices) = if tree {
        let prefix = options.table.as_deref().map(tree::prefix_nodes);
        let devices: Vec<DeviceId> = reader
            .devices(&Query::all())
            .map_err(|e| e.with_file(&file))?
            .into_iter()
            .filter(|d| prefix.as_deref().is_none_or(|p| tree::under_prefix(d, p)))
            .collect();
        if devices.is_empty() {
            return Ok(None);
        }
        let query = devices
            .iter()
            .fold(Query::all(), |q, d| q.device(d.clone()));
        (query, devices)
    } else {
        let query = base_query(options);
        let devices = reader.devices(&query).map_err(|e| e.with_file(&file))?;
        (query, devices)
    };
    let schema = TsFileArrowReader::builder(reader.clone())
        .with_query(query)
        .with_time_unit(options.time_unit)
        .schema()
        .map_err(|e| e.with_file(&file))?;
    Ok(Some(OpenFile {
        file,
        reader,
        schema,
        devices,
        remote,
        values,
    }))
}

/// Each file's partition values with their column names.
fn named(parts: &Partitions) -> Vec<Arc<[(String, ScalarValue)]>> {
    let names: Vec<String> = parts.fields.iter().map(|f| f.name().clone()).collect();
    parts
        .values
        .iter()
        .map(|v| names.iter().cloned().zip(v.iter().cloned()).collect())
        .collect()
}

/// Whether a table's FIELD conditions go to the reader (see `TsFileTable::fields_pushed`).
pub(crate) fn fields_pushed(options: &TsFileOptions, model: Model) -> bool {
    options.trust_statistics && model == Model::Table
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
                if self.partitions.decides(f) {
                    // Decided per directory, exactly, before any file is opened.
                    TableProviderFilterPushDown::Exact
                } else if self.pushable(f) {
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
        // A limit is only safe to push when every filter went to the reader exactly: they
        // are inexact, so it stays with DataFusion.
        let scan = Arc::new(TsScan {
            options: self.options.clone(),
            model: self.model,
            file_schema: self.file_schema.clone(),
            out: schema.clone(),
            filters: filters.to_vec(),
            reader_limit: filters.is_empty().then_some(limit).flatten(),
            handle: self
                .files
                .iter()
                .any(|f| f.remote.is_some())
                .then(Handle::current),
        });
        let push = scan.push();
        let device_filter = match self.model {
            Model::Table => DeviceFilter::default(),
            Model::Tree { levels } => DeviceFilter::new(filters, levels),
        };
        let parts = state.config().target_partitions().max(1);
        let mut tasks: Vec<(u64, Arc<dyn ScanTask>)> = Vec::new();
        let mut files = FileCounts::default();
        if let Some(ds) = &self.dataset {
            let range = (push.start, push.end);
            tasks = dataset::tasks(self, ds, state, &device_filter, &schema, range, parts)?;
        }
        let keep = self.partitions.keep(filters)?;
        for (k, f) in self.files.iter().enumerate() {
            if self.dataset.is_some() {
                break;
            }
            if !keep.get(k).copied().unwrap_or(true) {
                files.pruned += 1;
                continue;
            }
            let devices = match self.model {
                // Tags pushed: the reader's index walk keeps the devices they allow.
                Model::Table if push.filter.is_some() => {
                    f.reader.devices(&scan.file_query(f)).map_err(df_err)?
                }
                Model::Table => f.devices.clone(),
                Model::Tree { levels } => device_filter.keep(state, f.devices.clone(), levels)?,
            };
            files.devices_pruned += f.devices.len().saturating_sub(devices.len());
            if devices.is_empty() {
                files.pruned += 1;
                continue;
            }
            files.scanned += 1;
            // Enough tasks for every partition to have work, even with one file: groups of
            // devices, or when there are fewer devices than that, slices of their time.
            let wanted = parts.div_ceil(self.files.len()).max(1);
            let groups = wanted.min(devices.len());
            let per = devices.len().div_ceil(groups);
            let slices = wanted.div_ceil(devices.len());
            let range = (push.start.unwrap_or(i64::MIN), push.end.unwrap_or(i64::MAX));
            let mut file_tasks = Vec::new();
            for chunk in devices.chunks(per.max(1)) {
                let cuts = match chunk {
                    [one] if slices > 1 => {
                        slices::time_slices(&f.reader, one, slices, range).map_err(df_err)?
                    }
                    _ => vec![range],
                };
                for slice in &cuts {
                    file_tasks.push(Devices {
                        scan: scan.clone(),
                        file: f.clone(),
                        devices: chunk.to_vec(),
                        slice: (cuts.len() > 1).then_some(*slice),
                    });
                }
            }
            let weight = f.file.len / file_tasks.len().max(1) as u64;
            for t in file_tasks {
                tasks.push((weight, Arc::new(t) as Arc<dyn ScanTask>));
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
