//! Hive-partitioned TsFile tables: `site=…/day=…/` directories are columns after the files'
//! own (inferred as strings, or typed by `PARTITIONED BY` and the column list), every answer
//! matches what the library reads from each file (deletions applied), a filter on them
//! prunes whole files before any is scanned, and a partition named like a file column is
//! refused.

#[path = "support/archive.rs"]
mod archive;

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::Array;
use colfile::arrow::TsFileArrowReader;
use colfile::tsfile::TsFileReader;
use colfile_datafusion::{register_tsfile, with_table_factories, TsFileOptions};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;

/// `(site, day, rows, sum(l))`.
type Row = (Option<String>, String, i64, i64);

/// Which files a filter keeps.
type Keep = dyn Fn(&Row) -> bool;

/// Each file's [`Row`] as the library reads it.
fn library(dir: &std::path::Path) -> Vec<Row> {
    archive::FILES
        .iter()
        .map(|(rel, _, _)| {
            let reader = TsFileReader::open_path(dir.join(rel)).unwrap();
            let batches = TsFileArrowReader::builder(Arc::new(reader))
                .build()
                .unwrap();
            let (mut rows, mut sum) = (0i64, 0i64);
            for b in batches {
                let b = b.unwrap();
                rows += b.num_rows() as i64;
                let l = b.column_by_name("l").unwrap().as_primitive::<Int64Type>();
                sum += l.iter().flatten().sum::<i64>();
            }
            let mut levels = rel.split('/');
            let site = levels.next().unwrap().strip_prefix("site=").unwrap();
            let day = levels.next().unwrap().strip_prefix("day=").unwrap();
            let site = (site != "__HIVE_DEFAULT_PARTITION__").then(|| site.replace("%2F", "/"));
            (site, day.to_owned(), rows, sum)
        })
        .collect()
}

async fn rows(ctx: &SessionContext, sql: &str) -> Vec<Row> {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let mut out = Vec::new();
    for b in batches {
        let text = |i: usize| {
            let c = datafusion::arrow::compute::cast(b.column(i), &arrow_schema::DataType::Utf8);
            c.unwrap()
        };
        let (site, day) = (text(0), text(1));
        let (site, day) = (site.as_string::<i32>(), day.as_string::<i32>());
        let n = b.column(2).as_primitive::<Int64Type>();
        let s = b.column(3).as_primitive::<Int64Type>();
        for r in 0..b.num_rows() {
            let site = (!site.is_null(r)).then(|| site.value(r).to_owned());
            out.push((site, day.value(r).to_owned(), n.value(r), s.value(r)));
        }
    }
    out
}

/// The answer to `sql` as a printed table.
async fn printed(ctx: &SessionContext, sql: &str) -> String {
    let batches = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    datafusion::arrow::util::pretty::pretty_format_batches(&batches)
        .unwrap()
        .to_string()
}

const PER_FILE: &str = "SELECT site, day, count(*) AS n, sum(l) AS s FROM t %WHERE% \
                        GROUP BY site, day ORDER BY day, site NULLS FIRST";

fn sorted(mut v: Vec<Row>) -> Vec<Row> {
    v.sort_by(|a, b| (&a.1, &a.0).cmp(&(&b.1, &b.0)));
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn inferred_partitions_answer_as_the_files_read_one_by_one() {
    let dir = archive::archive("inferred");
    let want = library(&dir);
    // The deletions beside one file are applied.
    let deleted = want
        .iter()
        .find(|w| w.0.as_deref() == Some("a") && w.1 == "2024-01-02");
    assert_eq!(
        deleted.unwrap().2,
        3 * 70 - 3 * 21,
        "21 deleted times per device"
    );

    // Three tasks per file: files of fewer devices are cut by time as well.
    let config = datafusion::prelude::SessionConfig::new().with_target_partitions(12);
    let ctx = SessionContext::new_with_config(config);
    register_tsfile(&ctx, "t", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let schema = ctx.table("t").await.unwrap().schema().as_arrow().clone();
    let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
    assert_eq!(names.last_chunk::<2>(), Some(&["site", "day"]), "{names:?}");

    let all = rows(&ctx, &PER_FILE.replace("%WHERE%", "")).await;
    assert_eq!(sorted(all), sorted(want.clone()));
    let cases: [(&str, &Keep); 4] = [
        ("WHERE site = 'a'", &|w| w.0.as_deref() == Some("a")),
        ("WHERE site = 'b/c' OR day = '2024-01-03'", &|w| {
            w.0.as_deref() == Some("b/c") || w.1 == "2024-01-03"
        }),
        ("WHERE site IS NULL", &|w| w.0.is_none()),
        ("WHERE day >= '2024-01-02' AND site IS NOT NULL", &|w| {
            w.1.as_str() >= "2024-01-02" && w.0.is_some()
        }),
    ];
    for (filter, keep) in cases {
        let got = rows(&ctx, &PER_FILE.replace("%WHERE%", filter)).await;
        let expect: Vec<_> = want.iter().filter(|w| keep(w)).cloned().collect();
        assert_eq!(sorted(got), sorted(expect), "{filter}");
    }
    // A filter on partition columns alone keeps the other files out of the scan.
    let plan = printed(&ctx, "EXPLAIN SELECT count(*) FROM t WHERE site = 'a'").await;
    assert!(plan.contains("files=2, files_pruned=2"), "{plan}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn declared_partitions_are_typed_and_clashes_are_refused() {
    let dir = archive::archive("declared");
    let want = library(&dir);
    let state = with_table_factories(SessionStateBuilder::new().with_default_features()).build();
    let ctx = SessionContext::new_with_state(state);
    let loc = dir.to_str().unwrap();
    ctx.sql(&format!(
        "CREATE EXTERNAL TABLE t (day DATE) STORED AS TSFILE PARTITIONED BY (site, day) \
         LOCATION '{loc}'"
    ))
    .await
    .unwrap();
    let types = printed(
        &ctx,
        "SELECT arrow_typeof(day), arrow_typeof(site) FROM t LIMIT 1",
    )
    .await;
    assert!(
        types.contains("Date32") && types.contains("Utf8"),
        "{types}"
    );
    let got = rows(
        &ctx,
        &PER_FILE.replace("%WHERE%", "WHERE day > DATE '2024-01-01'"),
    )
    .await;
    let expect: Vec<_> = want
        .iter()
        .filter(|w| w.1.as_str() > "2024-01-01")
        .cloned()
        .collect();
    assert_eq!(sorted(got), sorted(expect));
    // A column list naming a file column is refused: the files give those.
    let e = ctx
        .sql(&format!(
            "CREATE EXTERNAL TABLE u (l BIGINT) STORED AS TSFILE LOCATION '{loc}'"
        ))
        .await
        .unwrap_err();
    assert!(e.to_string().contains("leave out the column list"), "{e}");
    // A partition level named like a file column.
    let clash = dir.join("clash");
    std::fs::create_dir_all(clash.join("region=x")).unwrap();
    std::fs::copy(
        dir.join(archive::FILES[0].0),
        clash.join("region=x/a.tsfile"),
    )
    .unwrap();
    let ctx = SessionContext::new();
    let e =
        register_tsfile(&ctx, "c", clash.to_str().unwrap(), TsFileOptions::default()).unwrap_err();
    assert!(e.to_string().contains("partition column region"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
