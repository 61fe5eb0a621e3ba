//! IoTDB deletions in SQL: a table over TsFiles with `FILE.mods2` beside them answers as the
//! library's `TsFileReader::open_path` reads them, `count(*)` included even when the table
//! trusts statistics (stored statistics still count deleted points), and `apply_mods
//! 'false'` / `colfile-sql --no-mods` give every stored point back.

#[path = "support/sql_bin.rs"]
mod sql_bin;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use colfile::tsfile::{Query, TsFileReader};
use colfile_datafusion::{register_tsfile, TsFileOptions};
use datafusion::prelude::SessionContext;

/// A zigzag varint length and the bytes (IoTDB's `VarStr`).
fn var_str(out: &mut Vec<u8>, s: &str) {
    out.push((s.len() as u8) << 1);
    out.extend_from_slice(s.as_bytes());
}

/// `basic.tsfile` copied, with a binary `.mods2` holding two table deletions of table
/// `weather`: every row of station d2 in 1700000001000..=1700000002000 (a device predicate
/// on tag segment 2), and column `count` of every device at 1700000004000.
fn fixture(tag: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("colfile-df-mods-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("basic.tsfile");
    let src = format!(
        "{}/../fixtures/tsfile/basic.tsfile",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::copy(src, &file).unwrap();
    let mut m = Vec::new();
    // TABLE_DELETION, [start, end], table, SEGMENT_EXACT_MATCH("d2", segment 2), no columns.
    m.push(0u8);
    m.extend(1_700_000_001_000i64.to_be_bytes());
    m.extend(1_700_000_002_000i64.to_be_bytes());
    var_str(&mut m, "weather");
    m.push(2);
    var_str(&mut m, "d2");
    m.push(4); // zigzag 2
    m.push(0); // zigzag 0 columns: whole rows
               // TABLE_DELETION of column `count` at 1700000004000, every device (NOP).
    m.push(0u8);
    m.extend(1_700_000_004_000i64.to_be_bytes());
    m.extend(1_700_000_004_000i64.to_be_bytes());
    var_str(&mut m, "weather");
    m.push(0);
    m.push(2); // zigzag 1
    var_str(&mut m, "count");
    std::fs::write(dir.join("basic.tsfile.mods2"), m).unwrap();
    (dir, file)
}

/// (rows, non-null `count` values) the library reads, with or without the deletions.
fn library(file: &Path, mods: bool) -> (usize, usize) {
    let r = TsFileReader::path_builder(file)
        .unwrap()
        .with_mods(mods)
        .build()
        .unwrap();
    let mut rows = 0;
    let mut counts = 0;
    for b in r.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        rows += b.len();
        counts += b
            .columns
            .iter()
            .find(|c| c.name == "count")
            .unwrap()
            .value_count();
    }
    (rows, counts)
}

async fn one_i64(ctx: &SessionContext, q: &str) -> i64 {
    let b = ctx.sql(q).await.unwrap().collect().await.unwrap();
    b[0].column(0).as_primitive::<Int64Type>().value(0)
}

#[tokio::test]
async fn sql_answers_apply_deletions_even_with_trusted_statistics() {
    let (dir, file) = fixture("sql");
    let (rows, counts) = library(&file, true);
    assert_eq!(
        (rows, counts),
        (8, 6),
        "2 rows of d2 go; count loses 2 more values"
    );
    for trust in [false, true] {
        let ctx = SessionContext::new();
        let options = TsFileOptions {
            trust_statistics: trust,
            ..TsFileOptions::default()
        };
        register_tsfile(&ctx, "w", file.to_str().unwrap(), options).unwrap();
        let n = one_i64(&ctx, "SELECT count(*) FROM w").await;
        assert_eq!(n as usize, rows, "trust_statistics {trust}");
        let c = one_i64(&ctx, "SELECT count(\"count\") FROM w").await;
        assert_eq!(c as usize, counts, "trust_statistics {trust}");
        let q = "SELECT count(*) FROM w WHERE station = 'd2' \
                 AND time BETWEEN arrow_cast(1700000001000, 'Timestamp(Millisecond, Some(\"UTC\"))') \
                 AND arrow_cast(1700000002000, 'Timestamp(Millisecond, Some(\"UTC\"))')";
        assert_eq!(one_i64(&ctx, q).await, 0);
    }
    let ctx = SessionContext::new();
    let raw = TsFileOptions {
        apply_mods: false,
        trust_statistics: true,
        ..TsFileOptions::default()
    };
    register_tsfile(&ctx, "w", file.to_str().unwrap(), raw).unwrap();
    assert_eq!(
        one_i64(&ctx, "SELECT count(*) FROM w").await as usize,
        library(&file, false).0
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[tokio::test]
async fn create_external_table_takes_apply_mods() {
    let (dir, file) = fixture("ddl");
    let state = colfile_datafusion::with_table_factories(
        datafusion::execution::SessionStateBuilder::new().with_default_features(),
    )
    .build();
    let ctx = SessionContext::new_with_state(state);
    for (name, opt, want) in [
        ("a", "", library(&file, true).0),
        (
            "b",
            " OPTIONS ('apply_mods' 'false')",
            library(&file, false).0,
        ),
    ] {
        let ddl = format!(
            "CREATE EXTERNAL TABLE {name} STORED AS TSFILE LOCATION '{}'{opt}",
            file.display()
        );
        ctx.sql(&ddl).await.unwrap();
        let n = one_i64(&ctx, &format!("SELECT count(*) FROM {name}")).await;
        assert_eq!(n as usize, want, "{name}");
    }
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn colfile_sql_no_mods() {
    let (dir, file) = fixture("cli");
    let query = format!("w={}", file.display());
    let run = |extra: &[&str]| sql_bin::csv(&["SELECT count(*) AS n FROM w", &query], extra);
    assert_eq!(run(&[]), format!("n\n{}\n", library(&file, true).0));
    assert_eq!(
        run(&["--no-mods"]),
        format!("n\n{}\n", library(&file, false).0)
    );
    std::fs::remove_dir_all(dir).unwrap();
}
