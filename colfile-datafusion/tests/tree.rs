//! The tree model in SQL: `device`, `level0..`, `time` and one column per measurement, rows
//! as `colfile cat` prints them (a non-aligned device's series merged by time), aligned and
//! non-aligned devices in one table, path prefixes as tables, device and level filters
//! pushed down, and what `EXPLAIN ANALYZE` reports about it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::{Array, RecordBatch};
use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::{TsFileWriter, ValueRef, WriterOptions};
use colfile_datafusion::{register_tsfile, TsFileOptions, TsFileTable};
use datafusion::catalog::TableProvider;
use datafusion::physical_plan::{collect, ExecutionPlan};
use datafusion::prelude::{SessionConfig, SessionContext};

fn fixture(name: &str) -> String {
    format!("{}/../fixtures/tsfile/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn ctx() -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3))
}

async fn sql(ctx: &SessionContext, q: &str) -> Vec<RecordBatch> {
    ctx.sql(q).await.unwrap().collect().await.unwrap()
}

/// Column `c` of every row as text (NULL as `None`), through Arrow's own display.
fn texts(b: &[RecordBatch], c: usize) -> Vec<Option<String>> {
    use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
    let mut out = Vec::new();
    for batch in b {
        let a = batch.column(c);
        let f = ArrayFormatter::try_new(a.as_ref(), &FormatOptions::default()).unwrap();
        for i in 0..a.len() {
            out.push((!a.is_null(i)).then(|| f.value(i).to_string()));
        }
    }
    out
}

fn ints(b: &[RecordBatch], c: usize) -> Vec<i64> {
    b.iter()
        .flat_map(|b| b.column(c).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

/// The rows of an `.expected.jsonl` fixture dump: (device, time, fields).
fn expected(name: &str) -> Vec<(String, i64, serde_json::Map<String, serde_json::Value>)> {
    let text = std::fs::read_to_string(fixture(&format!("{name}.expected.jsonl"))).unwrap();
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "row")
        .map(|v| {
            (
                v["device"].as_str().unwrap().to_owned(),
                v["time"].as_i64().unwrap(),
                v["fields"].as_object().unwrap().clone(),
            )
        })
        .collect()
}

#[tokio::test]
async fn tree_fixture_rows_are_the_rows_cat_prints() {
    let ctx = ctx();
    register_tsfile(
        &ctx,
        "t",
        &fixture("tree_basic.tsfile"),
        TsFileOptions::default(),
    )
    .unwrap();
    let want = expected("tree_basic");
    let schema = ctx.table("t").await.unwrap().schema().as_arrow().clone();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    // root.sg2.a.b.c has five nodes: level0..level4.
    assert_eq!(
        &names[..7],
        ["device", "level0", "level1", "level2", "level3", "level4", "time"]
    );
    let mut measurements: Vec<&str> = names[7..].to_vec();
    measurements.sort_unstable();
    let mut from_dump: Vec<String> = want
        .iter()
        .flat_map(|(_, _, f)| f.keys().cloned())
        .collect();
    from_dump.sort_unstable();
    from_dump.dedup();
    assert_eq!(measurements, from_dump);

    let got = sql(&ctx, "SELECT count(*) FROM t").await;
    assert_eq!(ints(&got, 0), [want.len() as i64]);

    // Every row, every value: the table's rows are the dump's rows.
    let got = sql(
        &ctx,
        "SELECT arrow_cast(time, 'Int64') AS t_ms, * FROM t ORDER BY device, t_ms",
    )
    .await;
    let mut want_sorted = want.clone();
    want_sorted.sort_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    let times = ints(&got, 0);
    let devices = texts(&got, 1);
    assert_eq!(devices.len(), want_sorted.len());
    let out_names: Vec<String> = got[0]
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    let columns: Vec<Vec<Option<String>>> = (0..out_names.len()).map(|c| texts(&got, c)).collect();
    for (i, (device, time, fields)) in want_sorted.iter().enumerate() {
        assert_eq!(devices[i].as_deref(), Some(device.as_str()));
        assert_eq!(times[i], *time);
        for (c, name) in out_names.iter().enumerate() {
            let Some(v) = fields.get(name) else {
                if measurements.contains(&name.as_str()) {
                    assert_eq!(columns[c][i], None, "{device} has no {name}");
                }
                continue;
            };
            let want = match v {
                serde_json::Value::Null => None,
                serde_json::Value::String(s) => Some(s.clone()),
                other => Some(other.to_string()),
            };
            let got = columns[c][i].clone();
            let same = match (&want, &got) {
                (Some(w), Some(g)) => {
                    w == g
                        || w.parse::<f64>()
                            .ok()
                            .zip(g.parse::<f64>().ok())
                            .is_some_and(|(a, b)| a == b)
                }
                (None, None) => true,
                _ => false,
            };
            assert!(
                same,
                "{device} at {time}, {name}: dump {want:?}, SQL {got:?}"
            );
        }
    }

    // Counts per device and per level, against the dump.
    let mut per_device: BTreeMap<String, i64> = BTreeMap::new();
    for (d, _, _) in &want {
        *per_device.entry(d.clone()).or_default() += 1;
    }
    let got = sql(
        &ctx,
        "SELECT device, count(*) FROM t GROUP BY device ORDER BY device",
    )
    .await;
    let got: BTreeMap<String, i64> = texts(&got, 0)
        .into_iter()
        .map(Option::unwrap)
        .zip(ints(&got, 1))
        .collect();
    assert_eq!(got, per_device);
    let got = sql(
        &ctx,
        "SELECT level1, count(*) FROM t GROUP BY level1 ORDER BY level1",
    )
    .await;
    let mut per_level: BTreeMap<String, i64> = BTreeMap::new();
    for (d, n) in &per_device {
        *per_level
            .entry(d.split('.').nth(1).unwrap().to_owned())
            .or_default() += n;
    }
    let got: BTreeMap<String, i64> = texts(&got, 0)
        .into_iter()
        .map(Option::unwrap)
        .zip(ints(&got, 1))
        .collect();
    assert_eq!(got, per_level);
    // A projection of one sparse measurement keeps every row of the device.
    let got = sql(
        &ctx,
        "SELECT count(*), count(s_i32) FROM t WHERE device = 'root.sg1.d1'",
    )
    .await;
    let d1: Vec<_> = want.iter().filter(|r| r.0 == "root.sg1.d1").collect();
    let with_i32 = d1.iter().filter(|r| !r.2["s_i32"].is_null()).count();
    assert_eq!(ints(&got, 0), [d1.len() as i64]);
    assert_eq!(ints(&got, 1), [with_i32 as i64]);
}

/// Writes a tree file with an aligned and two non-aligned devices whose series have
/// different times; returns the expected rows (device, time, values by name).
type TreeRow = (String, i64, Vec<(&'static str, Option<i64>)>);

fn write_mixed(path: &Path) -> Vec<TreeRow> {
    let m = |n: &str| MeasurementSchema::new(n, DataType::Int64, Encoding::Plain, Compression::Lz4);
    let mut w = TsFileWriter::new(
        std::fs::File::create(path).unwrap(),
        WriterOptions::default().with_page_max_points(7),
    )
    .unwrap();
    w.register_device("root.f.aligned", true, vec![m("a"), m("b")])
        .unwrap();
    w.register_device("root.f.g.sparse", false, vec![m("a"), m("c")])
        .unwrap();
    w.register_device("root.h", false, vec![m("c")]).unwrap();
    let mut rows: Vec<TreeRow> = Vec::new();
    for t in 0..60i64 {
        // Aligned: every row, b null on every third.
        let b = (t % 3 != 0).then_some(t * 10);
        let mut vals = vec![("a", ValueRef::Int64(t))];
        if let Some(b) = b {
            vals.push(("b", ValueRef::Int64(b)));
        }
        w.write_record("root.f.aligned", t, &vals).unwrap();
        rows.push(("root.f.aligned".into(), t, vec![("a", Some(t)), ("b", b)]));
        // Non-aligned: a on even times, c on multiples of 3: rows where either is present.
        let a = (t % 2 == 0).then_some(-t);
        let c = (t % 3 == 0).then_some(t * t);
        let mut vals = Vec::new();
        if let Some(a) = a {
            vals.push(("a", ValueRef::Int64(a)));
        }
        if let Some(c) = c {
            vals.push(("c", ValueRef::Int64(c)));
        }
        if !vals.is_empty() {
            w.write_record("root.f.g.sparse", t, &vals).unwrap();
            rows.push(("root.f.g.sparse".into(), t, vec![("a", a), ("c", c)]));
        }
        if t % 5 == 0 {
            w.write_record("root.h", t, &[("c", ValueRef::Int64(t))])
                .unwrap();
            rows.push(("root.h".into(), t, vec![("c", Some(t))]));
        }
    }
    w.finish().unwrap();
    rows
}

fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-tree-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[tokio::test]
async fn aligned_and_non_aligned_devices_prefixes_and_device_filters() {
    let dir = temp_dir("mixed");
    let path = dir.join("mixed.tsfile");
    let rows = write_mixed(&path);
    let ctx = ctx();
    let location = path.to_str().unwrap();
    register_tsfile(&ctx, "t", location, TsFileOptions::default()).unwrap();
    let count = |f: &dyn Fn(&TreeRow) -> bool| rows.iter().filter(|r| f(r)).count() as i64;
    let got = sql(
        &ctx,
        "SELECT count(*), count(a), count(b), count(c), sum(a), sum(c) FROM t",
    )
    .await;
    let val = |r: &TreeRow, n: &str| r.2.iter().find(|(k, _)| *k == n).and_then(|(_, v)| *v);
    assert_eq!(ints(&got, 0), [rows.len() as i64]);
    assert_eq!(ints(&got, 1), [count(&|r| val(r, "a").is_some())]);
    assert_eq!(ints(&got, 2), [count(&|r| val(r, "b").is_some())]);
    assert_eq!(ints(&got, 3), [count(&|r| val(r, "c").is_some())]);
    let sum = |n: &str| rows.iter().filter_map(|r| val(r, n)).sum::<i64>();
    assert_eq!(ints(&got, 4), [sum("a")]);
    assert_eq!(ints(&got, 5), [sum("c")]);

    // Levels: root.f.g.sparse has four nodes; shorter devices have nulls past their end.
    let got = sql(
        &ctx,
        "SELECT device, level0, level1, level2, level3 FROM t GROUP BY ALL ORDER BY device",
    )
    .await;
    let line: Vec<String> = (0..got[0].num_rows())
        .map(|i| {
            (0..5)
                .map(|c| texts(&got, c)[i].clone().unwrap_or_else(|| "-".into()))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    assert_eq!(
        line,
        [
            "root.f.aligned root f aligned -",
            "root.f.g.sparse root f g sparse",
            "root.h root h - -",
        ]
    );

    // Device and level filters, with time ranges at page edges (pages of 7 points).
    for (filter, keep) in [
        ("device = 'root.h'", &(|r: &TreeRow| r.0 == "root.h") as &dyn Fn(&TreeRow) -> bool),
        ("level1 = 'f'", &|r: &TreeRow| r.0.starts_with("root.f.")),
        ("device LIKE 'root.f.%' AND level3 IS NULL", &|r: &TreeRow| r.0 == "root.f.aligned"),
        (
            "device IN ('root.h', 'root.f.g.sparse') AND time BETWEEN to_timestamp_millis(7) AND to_timestamp_millis(13)",
            &|r: &TreeRow| r.0 != "root.f.aligned" && (7..=13).contains(&r.1),
        ),
        ("time > to_timestamp_millis(13) OR device = 'root.h'", &|r: &TreeRow| r.1 > 13 || r.0 == "root.h"),
    ] {
        let got = sql(&ctx, &format!("SELECT count(*) FROM t WHERE {filter}")).await;
        assert_eq!(ints(&got, 0), [count(keep)], "{filter}");
    }

    // A path prefix as the table: only the devices at or below it; level count from them.
    let prefixed = TsFileOptions {
        table: Some("root.f".into()),
        ..TsFileOptions::default()
    };
    let table = TsFileTable::try_new(location, prefixed).unwrap();
    let names: Vec<String> = table
        .schema()
        .fields()
        .iter()
        .map(|f| f.name().clone())
        .collect();
    assert_eq!(
        names,
        ["device", "level0", "level1", "level2", "level3", "time", "a", "b", "c"]
    );
    let ctx2 = SessionContext::new();
    ctx2.register_table("f", Arc::new(table)).unwrap();
    let got = sql(&ctx2, "SELECT count(*) FROM f").await;
    assert_eq!(ints(&got, 0), [count(&|r| r.0.starts_with("root.f."))]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The scan's metrics after running `plan`, by name (pruning figures as "name.matched"
/// and "name.pruned").
async fn scan_metrics(ctx: &SessionContext, q: &str) -> BTreeMap<String, usize> {
    use datafusion::physical_plan::metrics::MetricValue;
    let df = ctx.sql(q).await.unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    collect(plan.clone(), ctx.task_ctx()).await.unwrap();
    let mut out = BTreeMap::new();
    let mut stack: Vec<Arc<dyn ExecutionPlan>> = vec![plan];
    while let Some(p) = stack.pop() {
        if p.name().ends_with("Scan") {
            for m in p.metrics().unwrap().aggregate_by_name().iter() {
                match m.value() {
                    MetricValue::PruningMetrics {
                        name,
                        pruning_metrics,
                    } => {
                        out.insert(format!("{name}.matched"), pruning_metrics.matched());
                        out.insert(format!("{name}.pruned"), pruning_metrics.pruned());
                    }
                    v => {
                        out.insert(v.name().to_owned(), v.as_usize());
                    }
                }
            }
        }
        stack.extend(p.children().into_iter().cloned());
    }
    out
}

#[tokio::test]
async fn explain_analyze_shows_what_the_scan_read_and_skipped() {
    let dir = temp_dir("metrics");
    let path = dir.join("mixed.tsfile");
    let rows = write_mixed(&path);
    let ctx = ctx();
    register_tsfile(&ctx, "t", path.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let all = scan_metrics(&ctx, "SELECT count(*) FROM t").await;
    assert_eq!(all["output_rows"], rows.len());
    assert_eq!(all["devices.matched"], 3);
    assert_eq!(all["devices_pruned_by_plan"], 0);
    assert_eq!(all["files_scanned"], 1);
    assert!(all["bytes_read"] > 0, "{all:?}");
    assert!(all["pages.matched"] > 0);

    // Device filter: two devices never reached a task.
    let one = scan_metrics(&ctx, "SELECT count(*) FROM t WHERE device = 'root.h'").await;
    assert_eq!(one["devices_pruned_by_plan"], 2);
    assert_eq!(one["devices.matched"], 1);
    assert!(one["bytes_read"] < all["bytes_read"]);

    // Time range at the start: later pages are skipped by their statistics.
    let early = scan_metrics(
        &ctx,
        "SELECT count(*) FROM t WHERE time < to_timestamp_millis(5)",
    )
    .await;
    assert!(
        early["pages.pruned"] + early["chunks.pruned"] > 0,
        "{early:?}"
    );
    assert!(early["rows_decoded"] < all["rows_decoded"]);

    // The plan text carries the same figures.
    let text = sql(
        &ctx,
        "EXPLAIN ANALYZE SELECT count(*) FROM t WHERE device = 'root.h'",
    )
    .await;
    let plan = texts(&text, 1)
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("\n");
    assert!(plan.contains("TsFileScan"), "{plan}");
    for key in [
        "bytes_read=",
        "devices_pruned_by_plan=2",
        "pages=",
        "decode_time=",
    ] {
        assert!(plan.contains(key), "{key} missing from {plan}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
