//! A real Ballista cluster on 127.0.0.1: one `colfile-scheduler` and two `colfile-executor`
//! processes on free ports, started and stopped by the test. Queries over a partitioned
//! directory of TsFiles, a partitioned RCFile table and a join of the two return exactly
//! what the local engine returns, through the client session and through `colfile-sql
//! --remote`; an executor killed mid-query gives the whole answer (tasks re-run) or an
//! error, never a short answer.

#[path = "../../colfile-datafusion/tests/support/archive.rs"]
mod archive;
#[path = "../../colfile-datafusion/tests/support/warehouse.rs"]
mod warehouse;

#[path = "support/local_cluster.rs"]
mod local_cluster;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use colfile_datafusion::{register_rcfile, register_tsfile, RcFileOptions, TsFileOptions};
use datafusion::prelude::{SessionConfig, SessionContext};
use local_cluster::Cluster;

/// The tables of the test in `ctx`: `t` (TsFiles, partitioned) and `w` (RCFiles).
fn register(ctx: &SessionContext, archive: &Path, warehouse: &Path) {
    register_tsfile(
        ctx,
        "t",
        archive.to_str().unwrap(),
        TsFileOptions::default(),
    )
    .unwrap();
    let schema = "id:int,v:string".parse().unwrap();
    let mut o = RcFileOptions::new(schema, colfile::rcfile::Serde::text());
    o.split_size = 40;
    register_rcfile(ctx, "w", warehouse.to_str().unwrap(), o).unwrap();
}

async fn answer(ctx: &SessionContext, sql: &str) -> Result<String, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches);
    Ok(text.map_err(|e| e.to_string())?.to_string())
}

const QUERIES: [&str; 4] = [
    "SELECT site, day, count(*) AS n, sum(l) AS s, min(time), max(s) FROM t \
     GROUP BY site, day ORDER BY day, site NULLS FIRST",
    "SELECT id, count(*), avg(d) FROM t WHERE region = 'r1' AND site = 'a' GROUP BY id ORDER BY id",
    "SELECT dt, region, count(*), sum(id) FROM w WHERE dt >= '2024-01-01' \
     GROUP BY dt, region ORDER BY dt, region NULLS FIRST",
    "SELECT w.dt, t.site, count(*) AS pairs, sum(t.l + w.id) AS s FROM t JOIN w ON t.day = w.dt \
     WHERE w.dt >= '2024-01-01' GROUP BY w.dt, t.site ORDER BY w.dt, t.site NULLS FIRST",
];

/// `colfile-sql`, built beside this test's binary with the `ballista` feature (CI runs this
/// crate's tests in the same `cargo test` as colfile-datafusion's, which builds it).
fn colfile_sql() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(Path::parent)
        .unwrap()
        .join("colfile-sql");
    assert!(
        bin.exists(),
        "{} is missing: run `cargo test -p colfile-datafusion -p colfile-cluster \
         --features colfile-datafusion/ballista`",
        bin.display()
    );
    bin
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cluster_answers_as_the_local_engine() {
    let archive = archive::archive("cluster");
    let warehouse = warehouse::warehouse("cluster");
    let local = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(4));
    register(&local, &archive, &warehouse);
    let cluster = Cluster::start("answers", 2, 2);
    let remote = cluster
        .session(SessionConfig::new().with_target_partitions(4))
        .await;
    register(&remote, &archive, &warehouse);
    for q in QUERIES {
        let want = answer(&local, q).await.unwrap();
        assert!(want.lines().count() > 4, "{q}: {want}");
        let got = answer(&remote, q).await;
        assert_eq!(got.as_ref(), Ok(&want), "{q}\n{}", cluster.logs());
    }
    // The damaged file of the warehouse, unpruned, fails the query and names the file.
    let e = answer(&remote, "SELECT count(*) FROM w").await.unwrap_err();
    assert!(e.contains("dt=2023-12-31"), "{e}");

    // colfile-sql --remote runs the same statements on the cluster.
    let bin = colfile_sql();
    for q in [QUERIES[0], QUERIES[3]] {
        let run = |remote: Option<&str>| {
            let mut cmd = Command::new(&bin);
            cmd.args([q, &format!("t={}", archive.display())]);
            cmd.args([&format!("w={}", warehouse.display())]);
            cmd.args([
                "--schema",
                "id:int,v:string",
                "--serde",
                "text",
                "--format",
                "csv",
            ]);
            if let Some(url) = remote {
                cmd.args(["--remote", url]);
            }
            let o = cmd.output().unwrap();
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            String::from_utf8(o.stdout).unwrap()
        };
        let url = cluster.url();
        assert_eq!(run(Some(&url)), run(None), "{q}");
    }
    drop(cluster);
    std::fs::remove_dir_all(&archive).unwrap();
    std::fs::remove_dir_all(&warehouse).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_executor_never_gives_a_short_answer() {
    // More rows, so that the query is still running when an executor dies.
    let dir = colfile_testkit::iotdb::temp("cluster-kill");
    for k in 0..6 {
        let bytes = colfile_testkit::iot::iot_table(40, 2_000, 20_000);
        std::fs::write(dir.join(format!("part{k}.tsfile")), bytes).unwrap();
    }
    let q = "SELECT id, count(*), sum(l), max(s) FROM t GROUP BY id ORDER BY id";
    let local = SessionContext::new();
    register_tsfile(&local, "t", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let want = answer(&local, q).await.unwrap();
    let mut cluster = Cluster::start("kill", 2, 2);
    let remote = cluster
        .session(SessionConfig::new().with_target_partitions(4))
        .await;
    register_tsfile(
        &remote,
        "t",
        dir.to_str().unwrap(),
        TsFileOptions::default(),
    )
    .unwrap();
    let (got, ()) = tokio::join!(
        tokio::time::timeout(Duration::from_secs(120), answer(&remote, q)),
        async {
            tokio::time::sleep(Duration::from_millis(150)).await;
            let _ = cluster.executors[0].kill();
        }
    );
    match got {
        Ok(Ok(text)) => assert_eq!(text, want, "a complete answer or none"),
        Ok(Err(e)) => assert!(!e.is_empty()),
        Err(_) => panic!("the query neither finished nor failed\n{}", cluster.logs()),
    }
    // The surviving executor still answers in full.
    let again = answer(&remote, q).await;
    assert_eq!(again.as_ref(), Ok(&want), "{}", cluster.logs());
    drop(cluster);
    std::fs::remove_dir_all(&dir).unwrap();
}
