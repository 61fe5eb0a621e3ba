//! Hive-partitioned RCFile tables: `dt=…/region=…/` directories are columns (inferred as
//! strings, or typed by `PARTITIONED BY` and the column list), answers match rows computed
//! from what was written, and a filter on them skips whole directories: a damaged file in a
//! pruned directory is never opened.

#[path = "support/warehouse.rs"]
mod warehouse;

use arrow_array::RecordBatch;
use colfile_datafusion::{register_rcfile, with_table_factories, RcFileOptions};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;
use warehouse::{warehouse, PARTS};

async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<String>, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches: Vec<RecordBatch> = df.collect().await.map_err(|e| e.to_string())?;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .map_err(|e| e.to_string())?
        .to_string();
    Ok(text.lines().map(str::to_owned).collect())
}

/// Expected `(dt, region, count, sum(id))` for the partitions kept by `keep`.
fn expected(keep: impl Fn(&str, Option<&str>) -> bool) -> Vec<(String, Option<String>, i64, i64)> {
    let mut out = Vec::new();
    for (dt, region, base) in PARTS {
        let region = match region {
            "__HIVE_DEFAULT_PARTITION__" => None,
            r => Some(r.replace("%2F", "/")),
        };
        if keep(dt, region.as_deref()) {
            let n = (base / 10 + 2) as i64;
            let sum: i64 = (0..n).map(|i| base as i64 + i).sum();
            out.push((dt.to_owned(), region, n, sum));
        }
    }
    out
}

async fn groups(
    ctx: &SessionContext,
    table: &str,
    filter: &str,
) -> Vec<(String, Option<String>, i64, i64)> {
    let sql = format!(
        "SELECT CAST(dt AS VARCHAR), region, count(*), sum(id) FROM {table} WHERE {filter} GROUP BY dt, region"
    );
    let df = ctx.sql(&sql).await.unwrap();
    let batches = df.collect().await.unwrap();
    let mut out = Vec::new();
    for b in batches {
        use arrow_array::cast::AsArray;
        use arrow_array::types::Int64Type;
        use arrow_array::Array;
        let utf8 = |i: usize| {
            let t = arrow_schema::DataType::Utf8;
            datafusion::arrow::compute::cast(b.column(i), &t).unwrap()
        };
        let (dt, region) = (utf8(0), utf8(1));
        let (dt, region) = (dt.as_string::<i32>(), region.as_string::<i32>());
        let n = b.column(2).as_primitive::<Int64Type>();
        let s = b.column(3).as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            let r = (!region.is_null(i)).then(|| region.value(i).to_owned());
            out.push((dt.value(i).to_owned(), r, n.value(i), s.value(i)));
        }
    }
    out.sort();
    out
}

fn sorted(
    mut v: Vec<(String, Option<String>, i64, i64)>,
) -> Vec<(String, Option<String>, i64, i64)> {
    v.sort();
    v
}

#[tokio::test]
async fn inferred_partitions_are_string_columns_that_prune_directories() {
    let dir = warehouse("inferred");
    let ctx = SessionContext::new();
    let schema = "id:int,v:string".parse().unwrap();
    let options = RcFileOptions::new(schema, colfile::rcfile::Serde::text());
    register_rcfile(&ctx, "t", dir.to_str().unwrap(), options).unwrap();
    let got = groups(&ctx, "t", "dt >= '2024-01-01'").await;
    assert_eq!(got, sorted(expected(|_, _| true)));
    let got = groups(&ctx, "t", "dt = '2024-01-01' AND region = 'us/west'").await;
    assert_eq!(
        got,
        sorted(expected(|d, r| d == "2024-01-01" && r == Some("us/west")))
    );
    let got = groups(
        &ctx,
        "t",
        "region IS NULL OR dt < '2024-01-02' AND dt > '2023-12-31'",
    )
    .await;
    assert_eq!(
        got,
        sorted(expected(|d, r| r.is_none() || d == "2024-01-01"))
    );
    // Only partition columns: no file column is decoded, rows still count.
    let r = rows(
        &ctx,
        "SELECT count(*) AS n FROM t WHERE dt = '2024-01-02' AND region = 'eu'",
    )
    .await;
    assert!(
        r.unwrap().iter().any(|l| l.contains("| 5 ")),
        "count of dt=2024-01-02/region=eu"
    );
    // Without the filter the damaged file is read: the error names it.
    let e = rows(&ctx, "SELECT count(*) FROM t").await.unwrap_err();
    assert!(e.contains("dt=2023-12-31"), "{e}");
    // A filter that mixes a partition and a file column still prunes, and is applied.
    let r = rows(
        &ctx,
        "SELECT id FROM t WHERE dt = '2024-01-02' AND region = 'eu' AND id > 33",
    )
    .await;
    let r = r.unwrap().join("\n");
    assert!(r.contains("| 34 |") && !r.contains("| 33 |"), "{r}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test]
async fn declared_partitions_take_their_types() {
    let dir = warehouse("declared");
    let state = with_table_factories(SessionStateBuilder::new().with_default_features()).build();
    let ctx = SessionContext::new_with_state(state);
    let loc = dir.to_str().unwrap();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE p (id INT, v STRING, dt DATE) STORED AS RCFILE \
         PARTITIONED BY (dt, region) LOCATION '{loc}' OPTIONS ('serde' 'text')"
    ))
    .await
    .unwrap();
    let got = groups(&ctx, "p", "dt = DATE '2024-01-02'").await;
    assert_eq!(got, sorted(expected(|d, _| d == "2024-01-02")));
    let r = rows(
        &ctx,
        "SELECT arrow_typeof(dt) AS t FROM p WHERE dt > DATE '2024-01-01' LIMIT 1",
    )
    .await;
    assert!(r.unwrap().join("\n").contains("Date32"));
    // A value that is not of the declared type is an error naming the directory.
    let e = ctx
        .sql(&format!(
            "CREATE EXTERNAL TABLE q (id INT, v STRING, dt INT) STORED AS RCFILE \
             PARTITIONED BY (dt, region) LOCATION '{loc}' OPTIONS ('serde' 'text')"
        ))
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("dt=") && e.contains("not a Int32"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
