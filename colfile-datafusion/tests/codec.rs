//! Plans that travel: every shape of colfile scan (TsFile table and tree models, Hive
//! partitions, device groups and time slices, pushed filters and limits, every file
//! pruned; RCFile splits and partitions) is written by the codecs, read back in a new
//! session that has no tables, and run there: the answers equal the original plan's. The
//! logical codec does the same for whole logical plans with colfile tables in them.

#[path = "support/archive.rs"]
mod archive;
#[path = "support/warehouse.rs"]
mod warehouse;

use std::sync::Arc;

use colfile_datafusion::codec::{ColfileLogicalCodec, ColfilePhysicalCodec, DistributeScans};
use colfile_datafusion::{register_rcfile, register_tsfile, RcFileOptions, TsFileOptions};
use datafusion::physical_optimizer::PhysicalOptimizerRule;
use datafusion::physical_plan::collect;
use datafusion::physical_plan::displayable;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::bytes::{
    logical_plan_from_bytes_with_extension_codec, logical_plan_to_bytes_with_extension_codec,
    physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
};

fn session(partitions: usize) -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions))
}

fn text(batches: &[arrow_array::RecordBatch]) -> String {
    datafusion::arrow::util::pretty::pretty_format_batches(batches)
        .unwrap()
        .to_string()
}

/// `sql` in `ctx`, then its physical plan sent through the codec and run in a new session,
/// then its logical plan likewise: all three answers must be equal (and not empty).
async fn same_everywhere(ctx: &SessionContext, sql: &str) {
    let df = ctx.sql(sql).await.unwrap();
    let want = text(&df.clone().collect().await.unwrap());
    assert!(want.lines().count() > 3, "{sql}: {want}");
    let plan = df.clone().create_physical_plan().await.unwrap();
    let physical = ColfilePhysicalCodec::default();
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
    let other = session(3);
    let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &physical)
        .unwrap();
    let got = text(&collect(plan, other.task_ctx()).await.unwrap());
    assert_eq!(got, want, "physical plan of {sql}");

    // As a cluster's scheduler sends it: each scan over its list of partition numbers.
    let plan = df.clone().create_physical_plan().await.unwrap();
    let plan = DistributeScans.optimize(plan, &Default::default()).unwrap();
    assert!(
        format!("{}", displayable(plan.as_ref()).indent(false)).contains("TaskList"),
        "{sql}"
    );
    let bytes = physical_plan_to_bytes_with_extension_codec(plan, &physical).unwrap();
    let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &physical)
        .unwrap();
    let got = text(&collect(plan, other.task_ctx()).await.unwrap());
    assert_eq!(got, want, "task-list plan of {sql}");

    let logical = ColfileLogicalCodec::default();
    let plan = df.logical_plan().clone();
    let bytes = logical_plan_to_bytes_with_extension_codec(&plan, &logical).unwrap();
    let other = session(5);
    let plan =
        logical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &logical).unwrap();
    let got = other.execute_logical_plan(plan).await.unwrap();
    assert_eq!(
        text(&got.collect().await.unwrap()),
        want,
        "logical plan of {sql}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tsfile_scans_travel() {
    let dir = archive::archive("codec");
    let ctx = session(12);
    let loc = dir.to_str().unwrap();
    register_tsfile(&ctx, "t", loc, TsFileOptions::default()).unwrap();
    for sql in [
        "SELECT site, day, count(*), sum(l), min(time), max(s) FROM t GROUP BY site, day \
         ORDER BY day, site NULLS FIRST",
        "SELECT time, id, l, d FROM t WHERE region = 'r1' AND site = 'a' ORDER BY day, id, time",
        "SELECT id, count(*) FROM t WHERE time >= arrow_cast(200, 'Timestamp(Millisecond, \
         Some(\"UTC\"))') AND l > 20000 GROUP BY id ORDER BY id",
        "SELECT count(*) FROM (SELECT time FROM t LIMIT 7)",
        "SELECT count(*) AS n, count(site) AS m FROM t WHERE site = 'nowhere' \
         UNION ALL SELECT 1, 2 UNION ALL SELECT 3, 4 ORDER BY n",
    ] {
        same_everywhere(&ctx, sql).await;
    }
    // Trusted statistics push field conditions to the readers.
    let trusted = session(4);
    let options = TsFileOptions {
        trust_statistics: true,
        ..TsFileOptions::default()
    };
    register_tsfile(&trusted, "t", loc, options).unwrap();
    same_everywhere(
        &trusted,
        "SELECT id, max(i), count(*) FROM t WHERE i > 500 GROUP BY id ORDER BY id",
    )
    .await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_model_scans_travel() {
    let dir = colfile_testkit::iotdb::temp("codec-tree");
    let mut rows = colfile_testkit::iotdb::Rows::new();
    rows.insert(
        "root.sg.d1",
        (0..400)
            .map(|t| (t * 10, Some(t), (t % 3 == 0).then_some(-t)))
            .collect(),
    );
    rows.insert(
        "root.sg.a2",
        (0..300)
            .map(|t| (t * 7, (t % 5 != 0).then_some(t * 2), Some(t)))
            .collect(),
    );
    rows.insert(
        "root.other.d3",
        (0..50).map(|t| (t, Some(t), None)).collect(),
    );
    colfile_testkit::iotdb::write_tsfile(&dir.join("tree.tsfile"), &rows);
    let ctx = session(6);
    register_tsfile(&ctx, "t", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    for sql in [
        "SELECT device, count(*), sum(s1), count(s2) FROM t GROUP BY device ORDER BY device",
        "SELECT time, s1, s2 FROM t WHERE device = 'root.sg.a2' AND time < \
         arrow_cast(500, 'Timestamp(Millisecond, Some(\"UTC\"))') ORDER BY time",
        "SELECT level1, count(*) FROM t WHERE level1 = 'sg' GROUP BY level1",
    ] {
        same_everywhere(&ctx, sql).await;
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rcfile_scans_travel() {
    let dir = warehouse::warehouse("codec");
    let ctx = session(4);
    let schema = "id:int,v:string".parse().unwrap();
    let mut options = RcFileOptions::new(schema, colfile::rcfile::Serde::text());
    options.split_size = 40;
    register_rcfile(&ctx, "t", dir.to_str().unwrap(), options).unwrap();
    for sql in [
        "SELECT dt, region, count(*), sum(id) FROM t WHERE dt >= '2024-01-01' \
         GROUP BY dt, region ORDER BY dt, region NULLS FIRST",
        "SELECT id, v, region FROM t WHERE dt = '2024-01-02' AND id % 2 = 0 ORDER BY id",
        "SELECT region, id FROM t WHERE region IS NULL OR region = 'us/west' ORDER BY id",
    ] {
        same_everywhere(&ctx, sql).await;
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_list_runs_only_the_partitions_it_is_given() {
    // What a cluster scheduler does to give one task two of a scan's partitions: the
    // numbers below the scan are cut to those two, and only their rows come back.
    let dir = archive::archive("codec-tasks");
    let ctx = session(4);
    register_tsfile(&ctx, "t", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let df = ctx.sql("SELECT time, id FROM t").await.unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    let full: usize = collect(Arc::clone(&plan), ctx.task_ctx())
        .await
        .unwrap()
        .iter()
        .map(|b| b.num_rows())
        .sum();
    let list = DistributeScans.optimize(plan, &Default::default()).unwrap();
    let count = |parts: Vec<usize>| {
        let list = Arc::clone(&list);
        let ctx = ctx.task_ctx();
        async move {
            let mut n = 0;
            for p in parts {
                for b in collect_partition(Arc::clone(&list), p, Arc::clone(&ctx)).await {
                    n += b.num_rows();
                }
            }
            n
        }
    };
    let (a, b) = (count(vec![0, 2]).await, count(vec![1, 3]).await);
    assert!(a > 0 && b > 0);
    assert_eq!(a + b, full, "each partition read once");
    std::fs::remove_dir_all(&dir).unwrap();
}

async fn collect_partition(
    plan: Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    partition: usize,
    ctx: Arc<datafusion::execution::TaskContext>,
) -> Vec<arrow_array::RecordBatch> {
    use futures::TryStreamExt;
    plan.execute(partition, ctx)
        .unwrap()
        .try_collect()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn other_nodes_go_to_the_inner_codec() {
    // A plan without colfile nodes is written exactly as the inner codec writes it.
    let ctx = session(2);
    let plan = ctx
        .sql("SELECT 1 AS x UNION ALL SELECT 2")
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    let ours = ColfilePhysicalCodec::default();
    let theirs = datafusion_proto::physical_plan::DefaultPhysicalExtensionCodec {};
    let a = physical_plan_to_bytes_with_extension_codec(Arc::clone(&plan), &ours).unwrap();
    let b = physical_plan_to_bytes_with_extension_codec(plan, &theirs).unwrap();
    assert_eq!(a, b);
}
