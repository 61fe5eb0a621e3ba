//! [`TaskListScanExec`]: a scan whose partitions a distributed engine can hand out to its
//! tasks. A cluster scheduler such as Ballista's gives each task a copy of the stage's plan
//! cut down to the task's partitions, but it only knows how to cut the plan nodes it knows
//! (DataFusion's file and memory sources); a [`ScanExec`] it does not know would keep
//! every partition, and every task would read the whole table. So the scan is put over a
//! memory source holding, in partition `i`, the number `i`: the scheduler cuts that source,
//! and each task runs the scan's partitions whose numbers it finds there.
//!
//! [`DistributeScans`] is the physical optimizer rule that does this to every colfile scan
//! of a plan (a cluster's scheduler runs it; see `colfile_datafusion::cluster`).

use std::sync::Arc;

use arrow_array::{Array, RecordBatch, UInt64Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use datafusion::common::config::ConfigOptions;
use datafusion::common::tree_node::{Transformed, TransformedResult, TreeNode, TreeNodeRecursion};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::memory::MemorySourceConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::{EquivalenceProperties, PhysicalExpr};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::execution_plan::{Boundedness, EmissionType};
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, Partitioning, PlanProperties,
};
use futures::{StreamExt, TryStreamExt};

use crate::exec::ScanExec;

/// A [`ScanExec`] run partition by partition as its child, a list of partition numbers,
/// says (see the [module docs](self)).
#[derive(Debug)]
pub struct TaskListScanExec {
    /// The [`ScanExec`].
    scan: Arc<dyn ExecutionPlan>,
    tasks: Arc<dyn ExecutionPlan>,
    properties: Arc<PlanProperties>,
}

/// The schema of the partition-number lists.
fn numbers_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![Field::new(
        "partition",
        DataType::UInt64,
        false,
    )]))
}

impl TaskListScanExec {
    /// `scan` (a [`ScanExec`]) over a memory source whose partition `i` holds `i`, one per
    /// scan partition.
    pub fn new(scan: Arc<dyn ExecutionPlan>) -> Result<Self> {
        let schema = numbers_schema();
        let count = scan.properties().partitioning.partition_count();
        let partitions = (0..count as u64)
            .map(|i| {
                let column = Arc::new(UInt64Array::from(vec![i]));
                RecordBatch::try_new(schema.clone(), vec![column]).map(|b| vec![b])
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let source = MemorySourceConfig::try_new(&partitions, schema, None)?;
        Self::with_tasks(scan, DataSourceExec::from_data_source(source))
    }

    /// `scan` run for the partition numbers that `tasks` gives.
    pub(crate) fn with_tasks(
        scan: Arc<dyn ExecutionPlan>,
        tasks: Arc<dyn ExecutionPlan>,
    ) -> Result<Self> {
        let properties = PlanProperties::new(
            EquivalenceProperties::new(scan.schema()),
            Partitioning::UnknownPartitioning(tasks.properties().partitioning.partition_count()),
            EmissionType::Incremental,
            Boundedness::Bounded,
        );
        Ok(TaskListScanExec {
            scan,
            tasks,
            properties: Arc::new(properties),
        })
    }

    /// The scan, with all its partitions.
    pub fn scan(&self) -> Option<&ScanExec> {
        (self.scan.as_ref() as &dyn std::any::Any).downcast_ref::<ScanExec>()
    }
}

impl DisplayAs for TaskListScanExec {
    fn fmt_as(&self, t: DisplayFormatType, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(f, "TaskList")?;
        match self.scan() {
            Some(s) => s.fmt_as(t, f),
            None => write!(f, "Scan"),
        }
    }
}

impl ExecutionPlan for TaskListScanExec {
    fn name(&self) -> &str {
        "TaskListScanExec"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        &self.properties
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.tasks]
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
        match <[_; 1]>::try_from(children) {
            Ok([tasks]) => Ok(Arc::new(Self::with_tasks(self.scan.clone(), tasks)?)),
            Err(_) => Err(DataFusionError::Internal(
                "TaskListScanExec has one child".into(),
            )),
        }
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let numbers = self.tasks.execute(partition, context.clone())?;
        let scan = self.scan.clone();
        let batches = numbers
            .map_ok(|b| {
                let ids = b
                    .column(0)
                    .as_any()
                    .downcast_ref::<UInt64Array>()
                    .map(|a| a.iter().flatten().collect::<Vec<_>>())
                    .unwrap_or_default();
                futures::stream::iter(ids.into_iter().map(Ok::<u64, DataFusionError>))
            })
            .try_flatten()
            .map_ok(move |id| match scan.execute(id as usize, context.clone()) {
                Ok(s) => s.boxed(),
                Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
            })
            .try_flatten();
        Ok(Box::pin(RecordBatchStreamAdapter::new(
            self.scan.schema(),
            batches,
        )))
    }
}

/// Puts every [`ScanExec`] of a plan over its partition numbers ([`TaskListScanExec`]),
/// so that a cluster scheduler can give each task its own partitions of it.
#[derive(Debug, Default)]
pub struct DistributeScans;

impl PhysicalOptimizerRule for DistributeScans {
    fn optimize(
        &self,
        plan: Arc<dyn ExecutionPlan>,
        _config: &ConfigOptions,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        // Top-down, so that a scan already under a task list is left alone.
        plan.transform_down(|node| {
            let any = node.as_ref() as &dyn std::any::Any;
            if any.is::<TaskListScanExec>() {
                return Ok(Transformed::new(node, false, TreeNodeRecursion::Jump));
            }
            if any.is::<ScanExec>() {
                let wrapped: Arc<dyn ExecutionPlan> = Arc::new(TaskListScanExec::new(node)?);
                return Ok(Transformed::new(wrapped, true, TreeNodeRecursion::Jump));
            }
            Ok(Transformed::no(node))
        })
        .data()
    }

    fn name(&self) -> &str {
        "colfile_distribute_scans"
    }

    fn schema_check(&self) -> bool {
        true
    }
}
