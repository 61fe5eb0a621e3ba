//! A Hive-partitioned RCFile table in a real S3-compatible server (moto, started by the test):
//! `CREATE EXTERNAL TABLE ... LOCATION 's3://…'` over the registry's store, and `colfile-sql`
//! over an `s3://` URL with the store built from the `AWS_*` environment, answer exactly
//! what the same table answers from the local copy, pruned partitions are never fetched,
//! and a damaged object is an error naming its URL.

#[path = "support/s3.rs"]
mod s3;
#[path = "support/warehouse.rs"]
mod warehouse;

use colfile_datafusion::{register_rcfile, RcFileOptions};
use colfile_testkit::fault::{Fault, FaultPlan, FaultProxy};
use colfile_testkit::s3::MotoServer;
use datafusion::prelude::SessionContext;
use s3::{answer, colfile_sql, s3_session, upload};

const QUERIES: [&str; 4] = [
    "SELECT dt, region, count(*) AS n, sum(id) AS s FROM t WHERE dt >= '2024-01-01' GROUP BY dt, region ORDER BY dt, region NULLS FIRST",
    "SELECT id, v, region FROM t WHERE dt = '2024-01-02' AND id % 2 = 0 ORDER BY id",
    "SELECT count(*) FROM t WHERE region = 'eu' AND dt > '2023-12-31'",
    "SELECT max(id) FROM t WHERE dt IN ('2024-01-01', '2024-01-02') AND region IS NULL",
];

/// A session whose `s3://whouse` store reaches `endpoint`, with the partitioned table `t`
/// created over `s3://whouse/events/`.
async fn s3_context(endpoint: &str) -> SessionContext {
    let ctx = s3_session(endpoint, "whouse");
    ctx.sql(
        "CREATE EXTERNAL TABLE t (id INT, v STRING) STORED AS RCFILE PARTITIONED BY (dt, region) \
         LOCATION 's3://whouse/events/' OPTIONS ('serde' 'text')",
    )
    .await
    .unwrap();
    ctx
}

/// The warehouse on disk, uploaded under `s3://whouse/events/` of a new moto server, and
/// a session with the local copy as table `t`.
fn seeded(tag: &str) -> (std::path::PathBuf, MotoServer, SessionContext) {
    let dir = warehouse::warehouse(tag);
    let server = MotoServer::start();
    server.create_bucket("whouse");
    upload(&server, &dir, "whouse", "events");
    let local = SessionContext::new();
    let schema = "id:int,v:string".parse().unwrap();
    let options = RcFileOptions::new(schema, colfile::rcfile::Serde::text());
    register_rcfile(&local, "t", dir.to_str().unwrap(), options).unwrap();
    (dir, server, local)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_table_in_s3_answers_as_the_local_copy() {
    let (dir, server, local) = seeded("s3");

    let remote = s3_context(&server.endpoint()).await;
    for q in QUERIES {
        let want = answer(&local, q).await.unwrap();
        let got = answer(&remote, q).await.unwrap();
        assert_eq!(got, want, "{q}");
    }
    // Unpruned, the damaged object is read: the error names its URL.
    let e = answer(&remote, "SELECT count(*) FROM t").await.unwrap_err();
    assert!(
        e.contains("s3://whouse/events/dt=2023-12-31/region=eu/part-0.rc"),
        "{e}"
    );

    // colfile-sql over the URL, the store from the environment.
    let run = |loc: &str, q: &str, env: bool| {
        let table = format!("t={loc}");
        let args = [q, &table, "--schema", "id:int,v:string", "--serde", "text"];
        colfile_sql(&args, env.then_some(&server))
    };
    for q in QUERIES {
        let want = run(dir.to_str().unwrap(), q, false);
        assert_eq!(run("s3://whouse/events/", q, true), want, "{q}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_are_retried_or_fail_the_query_never_short_answers() {
    let (dir, server, local) = seeded("s3faults");
    let q = QUERIES[0];
    let want = answer(&local, q).await.unwrap();
    // Some GETs answered 503 or cut off mid-body: retried, the same answer.
    let plan = FaultPlan::nth_range_gets(vec![
        (1, Fault::Status(503)),
        (2, Fault::DropMidBody),
        (4, Fault::ShortBody),
    ]);
    let proxy = FaultProxy::start(&server.endpoint(), plan);
    let ctx = s3_context(&proxy.endpoint()).await;
    assert_eq!(answer(&ctx, q).await.unwrap(), want);
    assert_eq!(proxy.requests().faults, 3, "the faults happened");
    // Every GET fails: the query fails, naming an object, and returns no rows.
    let proxy = FaultProxy::start(
        &server.endpoint(),
        FaultPlan::every_range_get(Fault::Status(503)),
    );
    let ctx = s3_context(&proxy.endpoint()).await;
    let e = answer(&ctx, q).await.unwrap_err();
    assert!(e.contains("s3://whouse/events/dt=2024-01-0"), "{e}");
    // A body cut short with a consistent length: the reader's own check fails the query.
    let proxy = FaultProxy::start(
        &server.endpoint(),
        FaultPlan::every_range_get(Fault::Truncate),
    );
    let ctx = s3_context(&proxy.endpoint()).await;
    let e = answer(&ctx, q).await.unwrap_err();
    assert!(e.contains("the store returned"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
