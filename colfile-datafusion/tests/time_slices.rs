//! One large TsFile with fewer devices than the scan has partitions is cut into slices of
//! its devices' time, between chunk groups: every core gets work, and every answer (rows
//! in order, aggregates, time filters) is what one partition reading the whole file gives.
//! Both models: a table-model device, and a tree-model non-aligned device whose series have
//! different chunk spans.

use std::sync::Arc;

use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::ValueRef;
use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::{TsFileWriter, WriterOptions};
use colfile_datafusion::exec::ScanExec;
use colfile_datafusion::{TsFileOptions, TsFileTable};
use datafusion::catalog::TableProvider;
use datafusion::prelude::{SessionConfig, SessionContext};

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-slices-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A tree-model file: non-aligned `root.sg.d1` with `s1` at every time and `s2` at every
/// third, flushed every 700 records, times 0, 5, 10, …
fn tree_file(path: &std::path::Path, records: i64) {
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    let m = |n: &str| MeasurementSchema::new(n, DataType::Int64, Encoding::Plain, Compression::Lz4);
    w.register_device("root.sg.d1", false, vec![m("s1"), m("s2")])
        .unwrap();
    for k in 0..records {
        let mut vals = vec![("s1", ValueRef::Int64(k))];
        if k % 3 == 0 {
            vals.push(("s2", ValueRef::Int64(-k)));
        }
        w.write_record("root.sg.d1", k * 5, &vals).unwrap();
        if k % 700 == 699 {
            w.flush().unwrap();
        }
    }
    std::fs::write(path, w.finish_into_inner().unwrap().0).unwrap();
}

async fn answer(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

/// The scan's tasks for `table` with `parts` partitions: how many, and how many are slices.
async fn tasks(table: &TsFileTable, parts: usize) -> (usize, usize) {
    let ctx = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(parts));
    let plan = table.scan(&ctx.state(), None, &[], None).await.unwrap();
    let scan = (plan.as_ref() as &dyn std::any::Any)
        .downcast_ref::<ScanExec>()
        .unwrap();
    let all: Vec<String> = scan
        .partitions()
        .iter()
        .flatten()
        .map(|t| t.describe())
        .collect();
    let sliced = all.iter().filter(|d| d.contains(", time ")).count();
    (all.len(), sliced)
}

async fn same_with_one_and_many(location: &str, queries: &[&str]) {
    let table = |parts: usize| {
        let ctx =
            SessionContext::new_with_config(SessionConfig::new().with_target_partitions(parts));
        let t = TsFileTable::try_new(location, TsFileOptions::default()).unwrap();
        ctx.register_table("t", Arc::new(t)).unwrap();
        ctx
    };
    let (one, many) = (table(1), table(4));
    for q in queries {
        let want = answer(&one, q).await;
        assert!(want.lines().count() > 4, "{q}: {want}");
        assert_eq!(answer(&many, q).await, want, "{q}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_device_table_file_is_cut_by_time() {
    let dir = temp("table");
    let path = dir.join("one.tsfile");
    // One device, 30,000 rows in 10 chunk groups.
    std::fs::write(&path, colfile_testkit::iot::iot_table(1, 30_000, 3_000)).unwrap();
    let loc = path.to_str().unwrap();
    let table = TsFileTable::try_new(loc, TsFileOptions::default()).unwrap();
    assert_eq!(tasks(&table, 4).await, (4, 4), "four slices of one device");
    assert_eq!(tasks(&table, 1).await, (1, 0), "one partition: no cut");
    let t = "arrow_cast(%, 'Timestamp(Millisecond, Some(\"UTC\"))')";
    let at = |ms: i64| t.replace('%', &ms.to_string());
    let queries = [
        "SELECT time, l, d, s FROM t ORDER BY time".to_owned(),
        "SELECT count(*), count(l), sum(l), min(time), max(time), count(DISTINCT time) FROM t, \
         (SELECT 1 AS x, 2 AS y) GROUP BY x, y"
            .to_owned(),
        format!(
            "SELECT s, count(*), sum(i) FROM t WHERE time >= {} AND time < {} GROUP BY s ORDER BY s",
            at(29_990),
            at(240_005)
        ),
        format!("SELECT time, i FROM t WHERE time > {} ORDER BY time LIMIT 40", at(89_000)),
    ];
    let queries: Vec<&str> = queries.iter().map(String::as_str).collect();
    same_with_one_and_many(loc, &queries).await;
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_one_device_tree_file_is_cut_by_time() {
    let dir = temp("tree");
    let path = dir.join("d1.tsfile");
    tree_file(&path, 7_000);
    let loc = path.to_str().unwrap();
    let table = TsFileTable::try_new(loc, TsFileOptions::default()).unwrap();
    let (n, sliced) = tasks(&table, 4).await;
    assert!(n == 4 && sliced == 4, "{n} tasks, {sliced} sliced");
    same_with_one_and_many(
        loc,
        &[
            "SELECT time, s1, s2 FROM t ORDER BY time",
            "SELECT count(*), count(s2), sum(s1), min(time), max(time), count(DISTINCT time), \
             device FROM t GROUP BY device",
        ],
    )
    .await;
    std::fs::remove_dir_all(&dir).unwrap();
}
