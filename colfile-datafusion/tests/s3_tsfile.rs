//! A Hive-partitioned TsFile archive in a real S3-compatible server (moto, started by the
//! test): `CREATE EXTERNAL TABLE … STORED AS TSFILE PARTITIONED BY … LOCATION 's3://…'` over
//! the registry's store, and `colfile-sql` over the `s3://` URL with the store from the
//! `AWS_*` environment, answer exactly what the local copy answers, the `.mods2` objects
//! beside the files included; faults on some requests are retried to the same answer.

#[path = "support/archive.rs"]
mod archive;
#[path = "support/s3.rs"]
mod s3;

use colfile_datafusion::with_table_factories;
use colfile_testkit::fault::{Fault, FaultPlan, FaultProxy};
use colfile_testkit::s3::MotoServer;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use s3::{answer, colfile_sql, s3_session, upload};

const QUERIES: [&str; 5] = [
    "SELECT site, day, count(*) AS n, sum(l) AS s, min(time), max(s) FROM t \
     GROUP BY site, day ORDER BY day, site NULLS FIRST",
    "SELECT time, region, id, l, d, s, site, day FROM t WHERE site = 'a' AND id = 'dev00001' \
     ORDER BY day, time LIMIT 60",
    "SELECT count(*) FROM t WHERE site IS NULL OR region = 'r1'",
    "SELECT region, avg(d), count(b), min(i), max(f) FROM t WHERE day = '2024-01-01' \
     GROUP BY region ORDER BY region",
    "SELECT count(*), sum(l) FROM t WHERE time >= arrow_cast(150, 'Timestamp(Millisecond, Some(\"UTC\"))') AND site <> 'b/c'",
];

/// Partitions per scan: three tasks per file, so the two-device file is cut by time.
const PARTITIONS: usize = 12;

const DDL: &str = "CREATE EXTERNAL TABLE t STORED AS TSFILE PARTITIONED BY (site, day) LOCATION";

/// The archive on disk, uploaded under `s3://arch/iot/` of a new moto server, and a session
/// with the local copy as table `t` (four partitions per scan).
async fn seeded(tag: &str) -> (std::path::PathBuf, MotoServer, SessionContext) {
    let dir = archive::archive(tag);
    let server = MotoServer::start();
    server.create_bucket("arch");
    upload(&server, &dir, "arch", "iot");
    let config = SessionConfig::new().with_target_partitions(PARTITIONS);
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features();
    let local = SessionContext::new_with_state(with_table_factories(state).build());
    let loc = dir.to_str().unwrap();
    local.sql(&format!("{DDL} '{loc}'")).await.unwrap();
    (dir, server, local)
}

/// A session over `endpoint` with table `t` on `s3://arch/iot/` (`options`: an OPTIONS
/// clause or nothing).
async fn remote(endpoint: &str, options: &str) -> SessionContext {
    let ctx = s3_session(endpoint, "arch");
    ctx.state_ref()
        .write()
        .config_mut()
        .options_mut()
        .execution
        .target_partitions = PARTITIONS;
    let ddl = format!("{DDL} 's3://arch/iot/' {options}");
    ctx.sql(&ddl).await.unwrap();
    ctx
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_partitioned_tsfile_archive_in_s3_answers_as_the_local_copy() {
    let (dir, server, local) = seeded("s3").await;
    let ctx = remote(&server.endpoint(), "").await;
    for q in QUERIES {
        let want = answer(&local, q).await.unwrap();
        assert_eq!(answer(&ctx, q).await.unwrap(), want, "{q}");
    }
    // The deletions beside the objects were applied: without them there are more rows.
    let count = "SELECT count(*) FROM t";
    let raw = remote(&server.endpoint(), "OPTIONS ('apply_mods' 'false')").await;
    let (with, without) = (answer(&ctx, count).await, answer(&raw, count).await);
    assert_ne!(with.unwrap(), without.unwrap());

    // colfile-sql over the URL, the store from the environment.
    let run = |loc: &str, q: &str, env: bool| {
        colfile_sql(&[q, &format!("t={loc}")], env.then_some(&server))
    };
    for q in QUERIES {
        let want = run(dir.to_str().unwrap(), q, false);
        assert!(want.lines().count() > 1, "{q}: {want}");
        assert_eq!(run("s3://arch/iot/", q, true), want, "{q}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn faults_on_tsfile_objects_are_retried_to_the_same_answer() {
    let (dir, server, local) = seeded("s3faults").await;
    let q = QUERIES[0];
    let want = answer(&local, q).await.unwrap();
    let plan = FaultPlan::nth_range_gets(vec![
        (2, Fault::Status(503)),
        (5, Fault::DropMidBody),
        (9, Fault::ShortBody),
    ]);
    let proxy = FaultProxy::start(&server.endpoint(), plan);
    let ctx = remote(&proxy.endpoint(), "").await;
    assert_eq!(answer(&ctx, q).await.unwrap(), want);
    assert_eq!(proxy.requests().faults, 3, "the faults happened");
    // Every GET answered 503 once the table is made: the query fails naming an object.
    let proxy = FaultProxy::start(&server.endpoint(), FaultPlan::pass());
    let ctx = remote(&proxy.endpoint(), "").await;
    proxy.set_plan(FaultPlan::every_range_get(Fault::Status(503)));
    let e = answer(&ctx, q).await.unwrap_err();
    assert!(e.contains("s3://arch/iot/site="), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
