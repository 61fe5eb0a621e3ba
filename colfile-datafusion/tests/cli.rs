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
    let usage = sql(&[]);
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

#[test]
fn tables_defined_in_the_sql_and_several_statements() {
    let q = "CREATE EXTERNAL TABLE w STORED AS TSFILE LOCATION 'fixtures/tsfile/basic.tsfile'; \
             CREATE EXTERNAL TABLE r (id INT, same VARCHAR, grp BIGINT, txt VARCHAR) STORED AS RCFILE \
             LOCATION 'fixtures/rcfile/multi_group_text.rc' OPTIONS ('serde' 'text'); \
             SELECT (SELECT count(*) FROM w) AS w, (SELECT count(*) FROM r WHERE id IS NOT NULL) AS r";
    let out = stdout(&sql(&[q, "--format", "csv"]));
    let dump: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/rcfile/multi_group_text.json"
        ))
        .unwrap(),
    )
    .unwrap();
    let rows = dump["rows"].as_array().unwrap();
    let ids = rows.iter().filter(|r| !r[0].is_null()).count();
    assert_eq!(out, format!("w,r\n10,{ids}\n"));
    // A statement that does not parse: one line, exit 1.
    let bad = sql(&["SELECT 1; SELEC 2"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.lines().count() == 1 && err.contains("SELEC"), "{err}");
}
