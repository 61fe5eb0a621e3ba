//! [`ScanExec`]: the execution plan both tables share. A scan is a list of partitions, each
//! a list of [`ScanTask`]s (a byte range of an RCFile, a set of devices of a TsFile) run one
//! after another on a blocking thread; DataFusion runs the partitions in parallel.

use std::fmt;
use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{DataFusionError, Result, Statistics};
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::statistics::StatisticsArgs;
use datafusion::physical_plan::stream::RecordBatchReceiverStream;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};

/// One unit of a scan, run on a blocking thread.
pub trait ScanTask: fmt::Debug + Send + Sync {
    /// Reads this task's rows as batches of at most `batch_size` rows, handing each to
    /// `emit`; stops early when `emit` returns false (the query no longer wants rows).
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
    ) -> colfile::Result<()>;

    /// A short description for `EXPLAIN` (file and range).
    fn describe(&self) -> String;
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
}

impl ScanExec {
    /// A scan producing `schema` from `partitions` (at least one, possibly empty), with
    /// `statistics` of the whole output, stopping each partition after `limit` rows.
    pub fn new(
        name: &'static str,
        schema: SchemaRef,
        mut partitions: Vec<Vec<Arc<dyn ScanTask>>>,
        statistics: Statistics,
        limit: Option<usize>,
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
        }
    }

    /// The tasks of each partition.
    pub fn partitions(&self) -> &[Vec<Arc<dyn ScanTask>>] {
        &self.partitions
    }
}

impl DisplayAs for ScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut fmt::Formatter) -> fmt::Result {
        let tasks: usize = self.partitions.iter().map(Vec::len).sum();
        match t {
            DisplayFormatType::Default | DisplayFormatType::TreeRender => write!(
                f,
                "{}: partitions={}, tasks={tasks}",
                self.name,
                self.partitions.len()
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
                task.run(batch_size, &mut |b: RecordBatch| {
                    let b = if b.num_rows() > left {
                        b.slice(0, left)
                    } else {
                        b
                    };
                    left -= b.num_rows();
                    open = tx.blocking_send(Ok(b)).is_ok();
                    open && left > 0
                })
                .map_err(|e| df_err(e).context(what))?;
                if !open {
                    break;
                }
            }
            Ok(())
        });
        Ok(builder.build())
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
