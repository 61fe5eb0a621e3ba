//! The `colfile-sql` binary as scripts use it: tables named after files or `NAME=`, the
//! output formats, RCFile tables with their schema, and errors as one line with exit 1
//! (bad input) or 2 (usage).

use std::process::Command;

fn sql(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_colfile-sql"))
        .args(args)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .unwrap()
}

fn stdout(o: &std::process::Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

#[test]
fn formats_and_table_names() {
    let q = "SELECT city, count(*) AS n FROM basic GROUP BY city ORDER BY city";
    let csv = stdout(&sql(&[
        q,
        "fixtures/tsfile/basic.tsfile",
        "--format",
        "csv",
    ]));
    assert_eq!(csv, "city,n\nbeijing,5\nshanghai,5\n");
    let q = "SELECT city, count(*) AS n FROM w WHERE city = 'shanghai' GROUP BY city";
    let jsonl = stdout(&sql(&[
        q,
        "w=fixtures/tsfile/basic.tsfile",
        "--format",
        "jsonl",
    ]));
    assert_eq!(jsonl, "{\"city\":\"shanghai\",\"n\":5}\n");
    let table = stdout(&sql(&[q, "w=fixtures/tsfile/basic.tsfile"]));
    assert!(table.contains("| shanghai | 5 |"), "{table}");
    let explain = stdout(&sql(&[q, "w=fixtures/tsfile/basic.tsfile", "--explain"]));
    assert!(explain.contains("TsFileScan"), "{explain}");
}

#[test]
fn rcfile_tables_need_their_schema() {
    let q = "SELECT count(*) AS n, CAST(max(id) AS BIGINT) AS top FROM t";
    let rc = "t=fixtures/rcfile/multi_group_text.rc";
    let out = stdout(&sql(&[
        q,
        rc,
        "--schema",
        "id:int,same:string,grp:bigint,txt:string",
        "--serde",
        "text",
        "--format",
        "csv",
    ]));
    assert_eq!(out, "n,top\n1000,999\n");
    let missing = sql(&[q, rc]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--schema and --serde"));
}

#[test]
fn errors_are_one_line() {
    let usage = sql(&["SELECT 1"]);
    assert_eq!(usage.status.code(), Some(2));
    let bad = sql(&["SELECT nope FROM basic", "fixtures/tsfile/basic.tsfile"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("nope") && err.contains("basic.temp"), "{err}");
    // DataFusion's context chain ("failed", "caused by", the reason) stays on one line, the
    // reason included.
    let q = "SELECT count(*) FROM basic WHERE time > 'not a time'";
    let chained = sql(&[q, "fixtures/tsfile/basic.tsfile"]);
    assert_eq!(chained.status.code(), Some(1));
    let err = String::from_utf8_lossy(&chained.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains("'not a time'"), "{err}");
    let absent = sql(&["SELECT 1", "fixtures/none/*.tsfile"]);
    assert_eq!(absent.status.code(), Some(1));
}
