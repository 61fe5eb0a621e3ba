//! Real SQL over directories of files. The TsFiles are written here from generated rows, and
//! every answer is checked against the same aggregation computed in Rust from those rows
//! (no reader involved); the RCFile answers against Hive's dump of its fixture.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type};
use arrow_array::{Array, RecordBatch};
use colfile::rcfile::{RcFileWriter, RowWriter, Schema, Serde, Value as HiveValue};
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, DataType};
use colfile::tsfile::{TsFileWriter, Value, WriterOptions};
use colfile_datafusion::exec::ScanExec;
use colfile_datafusion::{
    register_rcfile, register_tsfile, RcFileOptions, RcFileTable, TsFileOptions, TsFileTable,
};
use datafusion::catalog::TableProvider;
use datafusion::common::stats::Precision;
use datafusion::prelude::{col, lit, SessionConfig, SessionContext};

/// One generated row of table `m`.
#[derive(Clone, Debug)]
struct Row {
    site: String,
    unit: Option<String>,
    time: i64,
    temp: Option<f64>,
    n: i64,
}

const SITES: [&str; 5] = ["alpha", "beta", "gamma", "delta", "eps"];

fn rows() -> Vec<Row> {
    let mut out = Vec::new();
    for d in 0..20usize {
        let site = SITES[d % 5].to_string();
        let unit = (d % 4 != 3).then(|| format!("u{}", d / 5));
        for k in 0..50i64 {
            let x = (d as i64 * 7919 + k * 104729) % 1000;
            out.push(Row {
                site: site.clone(),
                unit: unit.clone(),
                time: 1_000 + k * 10 + d as i64,
                temp: (x % 9 != 0).then_some(x as f64 / 8.0),
                n: x - 500,
            });
        }
    }
    out
}

fn schema() -> TableSchema {
    TableSchema::new(
        "m",
        vec![
            TableColumn::new("site", DataType::String, ColumnCategory::Tag),
            TableColumn::new("unit", DataType::String, ColumnCategory::Tag),
            TableColumn::new("temp", DataType::Double, ColumnCategory::Field),
            TableColumn::new("n", DataType::Int64, ColumnCategory::Field),
        ],
    )
}

/// Writes the rows into three files (devices spread over them) under a fresh directory.
fn tsfile_dir(tag: &str) -> (PathBuf, Vec<Row>) {
    let dir = std::env::temp_dir().join(format!("colfile-df-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("part=2")).unwrap();
    let rows = rows();
    let names = ["a.tsfile", "b.tsfile", "part=2/c.tsfile"];
    let mut writers: Vec<TsFileWriter<std::fs::File>> = names
        .iter()
        .map(|n| {
            let mut w = TsFileWriter::new(
                std::fs::File::create(dir.join(n)).unwrap(),
                WriterOptions::default().with_page_max_points(16),
            )
            .unwrap();
            w.register_table(schema()).unwrap();
            w
        })
        .collect();
    for r in &rows {
        // The device decides the file, so each device's times increase within one file.
        let file = (r.time % 1000 % 10) as usize % 3;
        let values = [
            Value::string(&r.site),
            r.unit.as_deref().map_or(Value::Null, Value::string),
            r.temp.map_or(Value::Null, Value::Double),
            Value::Int64(r.n),
        ];
        writers[file].write_row("m", r.time, &values).unwrap();
    }
    for w in writers {
        w.finish().unwrap();
    }
    std::fs::write(dir.join("_SUCCESS"), b"").unwrap();
    (dir, rows)
}

async fn sql(ctx: &SessionContext, q: &str) -> Vec<RecordBatch> {
    ctx.sql(q).await.unwrap().collect().await.unwrap()
}

fn strings(b: &[RecordBatch], c: usize) -> Vec<Option<String>> {
    b.iter()
        .flat_map(|b| {
            let a = b.column(c).as_string::<i32>();
            (0..a.len())
                .map(|i| a.is_valid(i).then(|| a.value(i).to_string()))
                .collect::<Vec<_>>()
        })
        .collect()
}

fn ints(b: &[RecordBatch], c: usize) -> Vec<i64> {
    b.iter()
        .flat_map(|b| b.column(c).as_primitive::<Int64Type>().values().to_vec())
        .collect()
}

fn ctx(partitions: usize) -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions))
}

#[tokio::test]
async fn group_by_with_time_and_tag_filters_over_a_directory() {
    let (dir, rows) = tsfile_dir("group");
    let ctx = ctx(2);
    register_tsfile(&ctx, "m", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let got = sql(
        &ctx,
        "SELECT site, count(*) AS c, sum(n) AS s, count(temp) AS t, max(temp) AS hi \
         FROM m WHERE time >= to_timestamp_millis(1100) AND time < to_timestamp_millis(1400) \
         AND unit = 'u1' AND n > -300 \
         GROUP BY site ORDER BY site",
    )
    .await;
    let mut want: BTreeMap<String, (i64, i64, i64, f64)> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| (1100..1400).contains(&r.time) && r.unit.as_deref() == Some("u1") && r.n > -300)
    {
        let e = want.entry(r.site.clone()).or_insert((0, 0, 0, f64::MIN));
        e.0 += 1;
        e.1 += r.n;
        if let Some(t) = r.temp {
            e.2 += 1;
            e.3 = e.3.max(t);
        }
    }
    assert!(!want.is_empty());
    let sites: Vec<String> = strings(&got, 0).into_iter().map(Option::unwrap).collect();
    assert_eq!(sites, want.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        ints(&got, 1),
        want.values().map(|v| v.0).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&got, 2),
        want.values().map(|v| v.1).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&got, 3),
        want.values().map(|v| v.2).collect::<Vec<_>>()
    );
    let hi: Vec<f64> = got
        .iter()
        .flat_map(|b| b.column(4).as_primitive::<Float64Type>().values().to_vec())
        .collect();
    assert_eq!(hi, want.values().map(|v| v.3).collect::<Vec<_>>());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn counts_nulls_and_statistics_agree_with_the_rows() {
    let (dir, rows) = tsfile_dir("stats");
    // By default the files' statistics guide the planner but answer nothing: all inexact.
    let table = TsFileTable::try_new(dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    assert_eq!(table.statistics().num_rows, Precision::Inexact(rows.len()));
    assert!(table.statistics().column_statistics.iter().all(|c| !c
        .null_count
        .is_exact()
        .unwrap_or(false)
        && !c.min_value.is_exact().unwrap_or(false)
        && !c.max_value.is_exact().unwrap_or(false)));
    // Trusted, the exact ones are exact.
    let trusted = TsFileOptions {
        trust_statistics: true,
        ..TsFileOptions::default()
    };
    let table = TsFileTable::try_new(dir.to_str().unwrap(), trusted).unwrap();
    let stats = table.statistics();
    assert_eq!(stats.num_rows, Precision::Exact(rows.len()));
    let schema = table.schema();
    let unit = schema.index_of("unit").unwrap();
    let nulls = rows.iter().filter(|r| r.unit.is_none()).count();
    assert_eq!(
        stats.column_statistics[unit].null_count,
        Precision::Exact(nulls)
    );
    let n = schema.index_of("n").unwrap();
    let (lo, hi) = (
        rows.iter().map(|r| r.n).min().unwrap(),
        rows.iter().map(|r| r.n).max().unwrap(),
    );
    assert_eq!(
        stats.column_statistics[n].min_value,
        Precision::Exact(lo.into())
    );
    assert_eq!(
        stats.column_statistics[n].max_value,
        Precision::Exact(hi.into())
    );

    let ctx = ctx(2);
    ctx.register_table("m", Arc::new(table)).unwrap();
    let got = sql(
        &ctx,
        "SELECT count(*), count(temp), count(unit), min(n) FROM m",
    )
    .await;
    assert_eq!(ints(&got, 0), [rows.len() as i64]);
    assert_eq!(
        ints(&got, 1),
        [rows.iter().filter(|r| r.temp.is_some()).count() as i64]
    );
    assert_eq!(ints(&got, 2), [(rows.len() - nulls) as i64]);
    assert_eq!(ints(&got, 3), [lo]);
    let got = sql(
        &ctx,
        "SELECT count(*) FROM m WHERE temp < 20.5 OR temp IS NULL",
    )
    .await;
    let want = rows
        .iter()
        .filter(|r| r.temp.is_none_or(|t| t < 20.5))
        .count();
    assert_eq!(ints(&got, 0), [want as i64]);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn scans_split_devices_over_partitions_and_prune_by_tags() {
    let (dir, rows) = tsfile_dir("plan");
    let table = TsFileTable::try_new(dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let ctx = ctx(4);
    let state = ctx.state();
    let all = table.scan(&state, None, &[], None).await.unwrap();
    let scan = (all.as_ref() as &dyn std::any::Any)
        .downcast_ref::<ScanExec>()
        .unwrap();
    assert_eq!(scan.partitions().len(), 4, "both cores (and more) get work");
    let devices = |s: &ScanExec| -> usize {
        s.partitions()
            .iter()
            .flatten()
            .map(|t| {
                let d = t.describe();
                let n = d.rsplit('(').next().unwrap().split(' ').next().unwrap();
                n.parse::<usize>().unwrap()
            })
            .sum()
    };
    assert_eq!(devices(scan), 20);
    let one = table
        .scan(
            &state,
            None,
            &[col("site").eq(lit("beta")).and(col("unit").eq(lit("u1")))],
            None,
        )
        .await
        .unwrap();
    let want = rows
        .iter()
        .filter(|r| r.site == "beta" && r.unit.as_deref() == Some("u1"))
        .map(|r| r.time % 1000 % 10)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    assert_eq!(
        devices(
            (one.as_ref() as &dyn std::any::Any)
                .downcast_ref::<ScanExec>()
                .unwrap()
        ),
        want
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The RCFile fixture with 1000 rows in 8 row groups, and its dump rows.
fn rc_fixture() -> (PathBuf, Vec<serde_json::Value>) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/rcfile");
    let dump: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("multi_group_text.json")).unwrap())
            .unwrap();
    (
        dir.join("multi_group_text.rc"),
        dump["rows"].as_array().unwrap().clone(),
    )
}

#[tokio::test]
async fn rcfile_splits_answer_like_the_whole_file() {
    let (rc, want_rows) = rc_fixture();
    let schema: Schema = "id:int,same:string,grp:bigint,txt:string".parse().unwrap();
    for split in [1u64 << 30, 3000, 700] {
        let mut o = RcFileOptions::new(schema.clone(), Serde::text());
        o.split_size = split;
        let ctx = ctx(3);
        ctx.register_table(
            "t",
            Arc::new(RcFileTable::try_new(rc.to_str().unwrap(), o).unwrap()),
        )
        .unwrap();
        let got = sql(
            &ctx,
            "SELECT grp, count(*) AS c, CAST(min(id) AS BIGINT), CAST(max(id) AS BIGINT) \
             FROM t GROUP BY grp ORDER BY grp",
        )
        .await;
        let mut want: BTreeMap<i64, (i64, i64, i64)> = BTreeMap::new();
        for r in &want_rows {
            let (id, g) = (r[0].as_i64().unwrap(), r[2].as_i64().unwrap());
            let e = want.entry(g).or_insert((0, i64::MAX, i64::MIN));
            e.0 += 1;
            e.1 = e.1.min(id);
            e.2 = e.2.max(id);
        }
        assert_eq!(
            ints(&got, 0),
            want.keys().copied().collect::<Vec<_>>(),
            "split {split}"
        );
        assert_eq!(
            ints(&got, 1),
            want.values().map(|v| v.0).collect::<Vec<_>>()
        );
        assert_eq!(
            ints(&got, 2),
            want.values().map(|v| v.1).collect::<Vec<_>>()
        );
        assert_eq!(
            ints(&got, 3),
            want.values().map(|v| v.2).collect::<Vec<_>>()
        );
    }
}

#[tokio::test]
async fn joins_a_tsfile_table_with_an_rcfile_dimension() {
    let (dir, rows) = tsfile_dir("join");
    let rc = dir.join("sites.rc");
    let schema: Schema = "site:string,region:string".parse().unwrap();
    let mut w = RowWriter::new(
        RcFileWriter::builder(std::fs::File::create(&rc).unwrap(), 2)
            .build()
            .unwrap(),
        schema.clone(),
        Serde::binary(),
    );
    let region = |s: &str| if s < "c" { "west" } else { "east" };
    for s in SITES.iter().take(4) {
        w.write(&[HiveValue::string(*s), HiveValue::string(region(s))])
            .unwrap();
    }
    w.finish().unwrap();
    let ctx = ctx(2);
    register_tsfile(
        &ctx,
        "m",
        dir.join("*.tsfile").to_str().unwrap(),
        TsFileOptions::default(),
    )
    .unwrap();
    register_tsfile(
        &ctx,
        "m2",
        dir.join("part=2").to_str().unwrap(),
        TsFileOptions::default(),
    )
    .unwrap();
    register_rcfile(
        &ctx,
        "sites",
        rc.to_str().unwrap(),
        RcFileOptions::new(schema, Serde::binary()),
    )
    .unwrap();
    let got = sql(
        &ctx,
        "SELECT s.region, count(*) AS c, sum(x.n) AS total FROM \
         (SELECT site, n FROM m UNION ALL SELECT site, n FROM m2) x \
         JOIN sites s ON x.site = s.site GROUP BY s.region ORDER BY s.region",
    )
    .await;
    let mut want: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.site != "eps") {
        let e = want.entry(region(&r.site)).or_insert((0, 0));
        e.0 += 1;
        e.1 += r.n;
    }
    let regions: Vec<String> = strings(&got, 0).into_iter().map(Option::unwrap).collect();
    assert_eq!(
        regions,
        want.keys().map(|s| s.to_string()).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&got, 1),
        want.values().map(|v| v.0).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&got, 2),
        want.values().map(|v| v.1).collect::<Vec<_>>()
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn limits_and_projections_of_nothing() {
    let (dir, rows) = tsfile_dir("limit");
    let ctx = ctx(2);
    register_tsfile(&ctx, "m", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let got = sql(&ctx, "SELECT time, n FROM m LIMIT 7").await;
    assert_eq!(got.iter().map(|b| b.num_rows()).sum::<usize>(), 7);
    let got = sql(&ctx, "SELECT count(*) FROM m WHERE n >= 0").await;
    assert_eq!(
        ints(&got, 0),
        [rows.iter().filter(|r| r.n >= 0).count() as i64]
    );
    let got = sql(
        &ctx,
        "SELECT count(*) FROM (SELECT 1 FROM m WHERE unit IS NULL)",
    )
    .await;
    assert_eq!(
        ints(&got, 0),
        [rows.iter().filter(|r| r.unit.is_none()).count() as i64]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The rows the official library was asked to write into a TsFile fixture (its spec).
fn spec_rows(name: &str) -> Vec<serde_json::Value> {
    let p =
        Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("../fixtures/tsfile/{name}.spec.json"));
    let spec: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
    spec["tables"][0]["rows"].as_array().unwrap().clone()
}

#[tokio::test]
async fn sql_over_a_fixture_written_by_the_official_library() {
    let rows = spec_rows("basic");
    let ctx = ctx(2);
    let f = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/tsfile/basic.tsfile");
    register_tsfile(
        &ctx,
        "weather",
        f.to_str().unwrap(),
        TsFileOptions::default(),
    )
    .unwrap();
    let got = sql(
        &ctx,
        "SELECT city, count(*) AS c, sum(count) AS s, min(station) AS st FROM weather \
         WHERE time > to_timestamp_millis(1700000000000) AND status = 'ok' GROUP BY city ORDER BY city",
    )
    .await;
    // [time, city, station, temp, count, status]
    let mut want: BTreeMap<String, (i64, i64, String)> = BTreeMap::new();
    for r in rows
        .iter()
        .filter(|r| r[0].as_i64().unwrap() > 1_700_000_000_000 && r[5] == "ok")
    {
        let e = want.entry(r[1].as_str().unwrap().to_string()).or_insert((
            0,
            0,
            r[2].as_str().unwrap().to_string(),
        ));
        e.0 += 1;
        e.1 += r[4].as_i64().unwrap();
    }
    assert!(!want.is_empty());
    let cities: Vec<String> = strings(&got, 0).into_iter().map(Option::unwrap).collect();
    assert_eq!(cities, want.keys().cloned().collect::<Vec<_>>());
    assert_eq!(
        ints(&got, 1),
        want.values().map(|v| v.0).collect::<Vec<_>>()
    );
    assert_eq!(
        ints(&got, 2),
        want.values().map(|v| v.1).collect::<Vec<_>>()
    );
    let st: Vec<String> = strings(&got, 3).into_iter().map(Option::unwrap).collect();
    assert_eq!(st, want.values().map(|v| v.2.clone()).collect::<Vec<_>>());
}

fn ddl_ctx() -> SessionContext {
    let builder = datafusion::execution::SessionStateBuilder::new().with_default_features();
    SessionContext::new_with_state(colfile_datafusion::with_table_factories(builder).build())
}

#[tokio::test]
async fn create_external_table_stored_as_tsfile_and_rcfile() {
    let ctx = ddl_ctx();
    // TsFile: columns from the files; answers as the registered table gives them.
    let (dir, rows) = tsfile_dir("ddl");
    let q = format!(
        "CREATE EXTERNAL TABLE m STORED AS TSFILE LOCATION '{}' OPTIONS ('format.time_unit' 'ms')",
        dir.display()
    );
    sql(&ctx, &q).await;
    let got = sql(&ctx, "SELECT count(*) FROM m").await;
    assert_eq!(ints(&got, 0), vec![rows.len() as i64]);
    // RCFile: Hive types from the column list (SQL types through Arrow), text serde.
    let (rc, want_rows) = rc_fixture();
    let q = format!(
        "CREATE EXTERNAL TABLE r (id INT, same VARCHAR, grp BIGINT, txt VARCHAR) \
         STORED AS RCFILE LOCATION '{}' OPTIONS ('serde' 'text', 'split_size' '700')",
        rc.display()
    );
    sql(&ctx, &q).await;
    let got = sql(&ctx, "SELECT CAST(sum(id) AS BIGINT), count(*) FROM r").await;
    let sum: i64 = want_rows.iter().map(|r| r[0].as_i64().unwrap()).sum();
    assert_eq!(ints(&got, 0), vec![sum]);
    assert_eq!(ints(&got, 1), vec![want_rows.len() as i64]);
    // Or the Hive schema as an option.
    let q = format!(
        "CREATE EXTERNAL TABLE r2 STORED AS RCFILE LOCATION '{}' \
         OPTIONS ('schema' 'id:int,same:string,grp:bigint,txt:string', 'serde' 'text')",
        rc.display()
    );
    sql(&ctx, &q).await;
    let got = sql(&ctx, "SELECT count(DISTINCT grp) FROM r2").await;
    let groups: std::collections::BTreeSet<i64> =
        want_rows.iter().map(|r| r[2].as_i64().unwrap()).collect();
    assert_eq!(ints(&got, 0), vec![groups.len() as i64]);

    // What the statement gets wrong is a planning error that says so.
    let rc = rc.display();
    for (q, says) in [
        (
            format!("CREATE EXTERNAL TABLE e1 STORED AS RCFILE LOCATION '{rc}'"),
            "needs its columns",
        ),
        (
            format!("CREATE EXTERNAL TABLE e2 (id INT) STORED AS RCFILE LOCATION '{rc}' OPTIONS ('serde' 'json')"),
            "serde 'json'",
        ),
        (
            format!("CREATE EXTERNAL TABLE e3 (id INT) STORED AS RCFILE LOCATION '{rc}' OPTIONS ('sedre' 'text')"),
            "unknown options: sedre",
        ),
        (
            format!("CREATE EXTERNAL TABLE e4 (x INT) STORED AS TSFILE LOCATION '{}'", dir.display()),
            "leave out the column list",
        ),
    ] {
        let e = match ctx.sql(&q).await {
            Ok(df) => df.collect().await.unwrap_err(),
            Err(e) => e,
        };
        assert!(e.to_string().contains(says), "{q}: {e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
