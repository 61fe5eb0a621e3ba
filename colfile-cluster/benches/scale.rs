//! How a Ballista cluster of colfile's binaries scales: one aggregate over a directory of
//! table-model TsFiles, timed on the local engine and on clusters of one and two executors
//! (all processes on this machine, 127.0.0.1), reported in rows per second and as ratios.
//! Every answer is checked against the local engine's before it is timed.
//!
//! ```text
//! cargo bench -p colfile-cluster --bench scale -- [FILES] [ROWS_PER_FILE] [RUNS]
//! ```
//!
//! Defaults: 8 files of 250,000 rows (100 devices each, `colfile_testkit::iot::iot_table`),
//! 5 timed runs after one warm-up; the best and the median run are printed. The bench
//! profile builds DataFusion and Ballista with thin LTO and one codegen unit, which takes
//! long on a small machine; `CARGO_PROFILE_BENCH_LTO=false
//! CARGO_PROFILE_BENCH_CODEGEN_UNITS=16` trades a little speed for a much shorter build.

#[path = "../tests/support/local_cluster.rs"]
mod local_cluster;

use std::path::Path;
use std::time::{Duration, Instant};

use colfile_datafusion::{register_tsfile, TsFileOptions};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::prelude::{SessionConfig, SessionContext};
use local_cluster::Cluster;

const QUERY: &str = "SELECT region, count(*) AS n, sum(l) AS sl, avg(d) AS ad, max(i) AS mi, \
                     min(f) AS mf, count(s) AS cs FROM t GROUP BY region ORDER BY region";
const DEVICES: usize = 100;

/// The answer as text (compared between engines) and how long the query took.
async fn run(ctx: &SessionContext) -> (String, Duration) {
    let start = Instant::now();
    let answer = async { ctx.sql(QUERY).await?.collect().await };
    let batches = answer.await.unwrap_or_else(|e| panic!("{QUERY}: {e}"));
    let took = start.elapsed();
    let text = pretty_format_batches(&batches).expect("format").to_string();
    (text, took)
}

/// Times `runs` runs after a warm-up whose answer must be `want`; prints a row and returns
/// the best time.
async fn measure(label: &str, ctx: &SessionContext, want: &str, rows: u64, runs: usize) -> f64 {
    let (first, _) = run(ctx).await;
    assert_eq!(
        first, want,
        "{label} answered differently from the local engine"
    );
    let mut times: Vec<f64> = Vec::with_capacity(runs);
    for _ in 0..runs {
        let (text, took) = run(ctx).await;
        assert_eq!(
            text, want,
            "{label} answered differently from the local engine"
        );
        times.push(took.as_secs_f64());
    }
    times.sort_by(f64::total_cmp);
    let best = times.first().copied().unwrap_or(f64::NAN);
    let median = times.get(times.len() / 2).copied().unwrap_or(f64::NAN);
    println!(
        "{label:<38} best {:>7.1} ms  median {:>7.1} ms  {:>6.2} M rows/s",
        best * 1e3,
        median * 1e3,
        rows as f64 / best / 1e6
    );
    best
}

fn write_dataset(dir: &Path, files: usize, rows_per_file: usize) {
    let per_device = rows_per_file.div_ceil(DEVICES);
    for k in 0..files {
        let bytes = colfile_testkit::iot::iot_table(DEVICES, per_device, 100_000);
        std::fs::write(dir.join(format!("part-{k:03}.tsfile")), bytes).expect("write");
    }
}

fn numbers() -> Vec<usize> {
    std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(|a| {
            a.replace('_', "")
                .parse()
                .expect("FILES ROWS_PER_FILE RUNS: numbers")
        })
        .collect()
}

fn runtime(threads: usize) -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()
        .expect("runtime")
}

fn main() {
    let n = numbers();
    let files = n.first().copied().unwrap_or(8);
    let rows_per_file = n.get(1).copied().unwrap_or(250_000);
    let runs = n.get(2).copied().unwrap_or(5).max(1);

    let dir = colfile_testkit::iotdb::temp("scale");
    write_dataset(&dir, files, rows_per_file);
    let location = dir
        .to_str()
        .expect("a UTF-8 temporary directory")
        .to_string();
    let bytes: u64 = std::fs::read_dir(&dir)
        .expect("dataset")
        .flatten()
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum();
    let rows = (files * DEVICES * rows_per_file.div_ceil(DEVICES)) as u64;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "{files} TsFiles, {rows} rows, {:.1} MB; {cores} cores; {runs} runs each\n{QUERY}\n",
        bytes as f64 / 1e6
    );

    // The clusters split the dataset into one scan partition per file.
    let config = || SessionConfig::new().with_target_partitions(files.max(2));
    let table = |ctx: &SessionContext| {
        register_tsfile(ctx, "t", &location, TsFileOptions::default()).expect("register");
    };

    // The local engine: one partition (one scan thread, one core) and one per file (scans
    // run on blocking threads, so both cores).
    let rt = runtime(2);
    let local = |partitions: usize| {
        let ctx = SessionContext::new_with_config(config().with_target_partitions(partitions));
        table(&ctx);
        ctx
    };
    let want = rt.block_on(run(&local(1))).0;
    let local1 = rt.block_on(measure("local, 1 partition", &local(1), &want, rows, runs));
    let label = format!("local, {} partitions", files.max(2));
    let local_n = rt.block_on(measure(&label, &local(files.max(2)), &want, rows, runs));
    drop(rt);

    // The client's runtime only waits on the scheduler; the executors do the work.
    let rt = runtime(1);
    let mut cluster_best = Vec::new();
    for (executors, slots) in [(1, 1), (2, 1), (1, 2)] {
        let cluster = Cluster::start("scale", executors, slots);
        let ctx = rt.block_on(cluster.session(config()));
        // The first executor to register answers the probe; give the others their heartbeat.
        std::thread::sleep(Duration::from_secs(3));
        table(&ctx);
        let label = format!("cluster, {executors} executor(s) x {slots} slot(s)");
        let best = rt.block_on(measure(&label, &ctx, &want, rows, runs));
        cluster_best.push((label, best));
        drop(cluster);
    }

    println!("\nspeed-up over the local engine with one partition:");
    println!("  {label}: {:.2}x", local1 / local_n);
    for (label, t) in &cluster_best {
        println!("  {label}: {:.2}x", local1 / t);
    }
    if let [(_, one), (_, two), ..] = cluster_best.as_slice() {
        println!("  2 executors / 1 executor: {:.2}x", one / two);
    }
    let _ = std::fs::remove_dir_all(&dir);
}
