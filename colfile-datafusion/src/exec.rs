//! [`ScanExec`]: the execution plan both tables share. A scan is a list of partitions, each
//! a list of [`ScanTask`]s (a byte range of an RCFile, a set of devices of a TsFile) run one
//! after another on a blocking thread; DataFusion runs the partitions in parallel.
//!
//! `EXPLAIN ANALYZE` shows what the scan did: each task reports [`TaskMetrics`] (devices,
//! chunks and pages read and pruned for TsFile, row groups for RCFile, bytes read, rows
//! decoded, time spent reading and decoding), added up by name over the tasks; files
//! scanned and pruned are counted when the scan is planned.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::metrics::{ExecutionPlanMetricsSet, MetricBuilder, MetricsSet};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};

/// One unit of a scan, run on a blocking thread.
pub trait ScanTask: fmt::Debug + Send + Sync {
    /// Reads this task's rows as batches of at most `batch_size` rows, handing each to
    /// `emit`; stops early when `emit` returns false (the query no longer wants rows).
    /// Records what it read in `metrics` (also when it fails).
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()>;

    /// A short description for `EXPLAIN` (file and range).
    fn describe(&self) -> String;

    /// The task as [`Any`](std::any::Any), for a codec that sends it to another process.
    fn as_any(&self) -> &dyn std::any::Any;
}

/// What one task read, for `EXPLAIN ANALYZE`: counts by name, and pruning figures (how
/// many units were read and how many were skipped without reading).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct TaskMetrics {
    /// Named counts (`bytes_read`, `rows_decoded`, …).
    pub counts: Vec<(&'static str, u64)>,
    /// Named pruning figures: (name, read, skipped), e.g. `("chunks", 3, 5)`.
    pub pruning: Vec<(&'static str, u64, u64)>,
    /// Time spent reading and decoding (not waiting for the consumer).
    pub decode_time: Duration,
}

impl TaskMetrics {
    /// Adds `n` to count `name`.
    pub fn count(&mut self, name: &'static str, n: u64) {
        match self.counts.iter_mut().find(|(k, _)| *k == name) {
            Some((_, v)) => *v += n,
            None => self.counts.push((name, n)),
        }
    }

    /// Adds `read` units read and `skipped` units skipped to pruning figure `name`.
    pub fn prune(&mut self, name: &'static str, read: u64, skipped: u64) {
        match self.pruning.iter_mut().find(|(k, _, _)| *k == name) {
            Some((_, r, s)) => {
                *r += read;
                *s += skipped;
            }
            None => self.pruning.push((name, read, skipped)),
        }
    }

    /// Puts these figures into `set` as partition `partition`'s.
    fn record(&self, set: &ExecutionPlanMetricsSet, partition: usize) {
        for &(name, n) in &self.counts {
            MetricBuilder::new(set)
                .counter(name, partition)
                .add(to_usize(n));
        }
        for &(name, read, skipped) in &self.pruning {
            let p = MetricBuilder::new(set).pruning_metrics(name, partition);
            p.add_matched(to_usize(read));
            p.add_pruned(to_usize(skipped));
        }
        MetricBuilder::new(set)
            .subset_time("decode_time", partition)
            .add_duration(self.decode_time);
    }
}

/// Pulls `batches` until they end or `each` returns `Ok(false)`, adding the time spent
/// pulling (reading and decoding, not what `each` does) to `metrics.decode_time`.
pub(crate) fn drain<I>(
    batches: &mut I,
    metrics: &mut TaskMetrics,
    mut each: impl FnMut(RecordBatch) -> colfile::Result<bool>,
) -> colfile::Result<()>
where
    I: Iterator<Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>>,
{
    loop {
        let started = std::time::Instant::now();
        let next = batches.next();
        metrics.decode_time += started.elapsed();
        match next {
            None => return Ok(()),
            Some(b) => {
                if !each(b.map_err(colfile::Error::from)?)? {
                    return Ok(());
                }
            }
        }
    }
}

fn to_usize(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// What a scan's plan left out before reading: files none of whose devices or byte ranges
/// can match, and (TsFile) devices whose tags or path the filters rule out.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct FileCounts {
    /// Files with at least one task.
    pub scanned: usize,
    /// Files left out by the plan.
    pub pruned: usize,
    /// Devices left out by the plan (by the index and Bloom filter, tags or device path).
    pub devices_pruned: usize,
}

/// A colfile error as a DataFusion error (kept whole, so its location survives).
pub fn df_err(e: colfile::Error) -> DataFusionError {
    DataFusionError::External(Box::new(e))
}

/// Scans a table's files, partition by partition.
#[derive(Debug)]
pub struct ScanExec {
    name: &'static str,
    schema: SchemaRef,
    partitions: Vec<Vec<Arc<dyn ScanTask>>>,
    statistics: Arc<Statistics>,
    limit: Option<usize>,
    properties: Arc<PlanProperties>,
    files: FileCounts,
    metrics: ExecutionPlanMetricsSet,
}

impl ScanExec {
    /// A scan producing `schema` from `partitions` (at least one, possibly empty), with
    /// `statistics` of the whole output, stopping each partition after `limit` rows;
    /// `files` says how many files it reads and how many the plan left out.
    pub fn new(
        name: &'static str,
        schema: SchemaRef,
        mut partitions: Vec<Vec<Arc<dyn ScanTask>>>,
        statistics: Statistics,
        limit: Option<usize>,
        files: FileCounts,
    ) -> Self {
        if partitions.is_empty() {
            partitions.push(Vec::new());
        }
        let properties = PlanProperties::new(
            EquivalenceProperties::new(schema.clone()),
            Partitioning::UnknownPartitioning(partitions.len()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        ScanExec {
            name,
            schema,
            partitions,
            statistics: Arc::new(statistics),
            limit,
            properties: Arc::new(properties),
            files,
            metrics: ExecutionPlanMetricsSet::new(),
        }
    }

    /// The tasks of each partition.
    pub fn partitions(&self) -> &[Vec<Arc<dyn ScanTask>>] {
        &self.partitions
    }

    /// The name `EXPLAIN` shows (`TsFileScan`, `RcFileScan`).
    pub fn scan_name(&self) -> &'static str {
        self.name
    }

    /// The rows each partition stops after.
    pub fn limit(&self) -> Option<usize> {
        self.limit
    }

    /// The files read and left out by the plan.
    pub fn files(&self) -> FileCounts {
        self.files
    }
}

impl DisplayAs for ScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let tasks: usize = self.partitions.iter().map(Vec::len).sum();
        match t {
            DisplayFormatType::Default | DisplayFormatType::TreeRender => write!(
                f,
                "{}: partitions={}, tasks={tasks}, files={}, files_pruned={}",
                self.name,
                self.partitions.len(),
                self.files.scanned,
                self.files.pruned
            )?,
            DisplayFormatType::Verbose => {
                write!(f, "{}: ", self.name)?;
                for (i, p) in self.partitions.iter().enumerate() {
                    let d: Vec<String> = p.iter().map(|t| t.describe()).collect();
                    write!(f, "[{i}: {}] ", d.join(", "))?;
                }
            }
        }
        if let Some(n) = self.limit {
            write!(f, ", limit={n}")?;
        }
        Ok(())
    }
}

impl ExecutionPlan for ScanExec {
    fn name(&self) -> &str {
        self.name
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        Vec::new()
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.is_empty() {
            Ok(self)
        } else {
            Err(DataFusionError::Internal(format!(
                "{} has no children",
                self.name
            )))
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let tasks = self.partitions.get(partition).cloned().ok_or_else(|| {
            DataFusionError::Internal(format!(
                "{}: no partition {partition} of {}",
                self.name,
                self.partitions.len()
            ))
        })?;
        let batch_size = context.session_config().batch_size().max(1);
        let limit = self.limit;
        let set = self.metrics.clone();
        let output_rows = MetricBuilder::new(&set).output_rows(partition);
        if partition == 0 {
            MetricBuilder::new(&set)
                .global_counter("files_scanned")
                .add(self.files.scanned);
            MetricBuilder::new(&set)
                .global_counter("files_pruned")
                .add(self.files.pruned);
            MetricBuilder::new(&set)
                .global_counter("devices_pruned_by_plan")
                .add(self.files.devices_pruned);
        }
        let mut builder = RecordBatchReceiverStream::builder(self.schema.clone(), 2);
        let tx = builder.tx();
        builder.spawn_blocking(move || {
            let mut left = limit.unwrap_or(usize::MAX);
            for task in tasks {
                if left == 0 {
                    break;
                }
                let mut open = true;
                let what = task.describe();
                let mut m = TaskMetrics::default();
                let ran = task.run(
                    batch_size,
                    &mut |b: RecordBatch| {
                        let b = if b.num_rows() > left {
                            b.slice(0, left)
                        } else {
                            b
                        };
                        left -= b.num_rows();
                        output_rows.add(b.num_rows());
                        open = tx.blocking_send(Ok(b)).is_ok();
                        open && left > 0
                    },
                    &mut m,
                );
                m.record(&set, partition);
                ran.map_err(|e| df_err(e).context(what))?;
                if !open {
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
    }

    fn metrics(&self) -> Option<MetricsSet> {
        Some(self.metrics.clone_inner())
    }

    fn statistics_from_inputs(
        &self,
        _input_stats: &[Arc<Statistics>],
        args: &StatisticsArgs,
    ) -> Result<Arc<Statistics>> {
        match args.partition() {
            None => Ok(self.statistics.clone()),
            // Per-partition figures are not kept.
            Some(_) => Ok(Arc::new(Statistics::new_unknown(&self.schema))),
        }
    }
}
