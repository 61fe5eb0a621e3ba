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
    // The same schema as Hive DDL, inline and as a CREATE TABLE statement in a file.
    let ddl = std::env::temp_dir().join(format!("colfile-sql-ddl-{}.sql", std::process::id()));
    std::fs::write(
        &ddl,
        "CREATE EXTERNAL TABLE db.t (id INT COMMENT 'key', same STRING, grp BIGINT, txt STRING)\n\
         STORED AS RCFILE LOCATION '/warehouse/t'",
    )
    .unwrap();
    for schema in [
        "id int, same string, grp bigint, txt string".to_string(),
        format!("@{}", ddl.display()),
    ] {
        let args = [
            q, rc, "--schema", &schema, "--serde", "text", "--format", "csv",
        ];
        assert_eq!(stdout(&sql(&args)), "n,top\n1000,999\n", "{schema}");
    }
    std::fs::remove_file(&ddl).unwrap();
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

#[test]
fn every_fixture_prints_valid_json_and_csv() {
    // Times of i64::MIN and i64::MAX (extremes, time_plain, ...) print as expanded ISO
    // years, never as an error message inside the data.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/tsfile");
    let mut seen_expanded = false;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "tsfile") {
            continue;
        }
        let name = path.file_stem().unwrap().to_str().unwrap().to_owned();
        if name == "multi_table" {
            continue; // several tables: needs --table
        }
        let p = path.to_str().unwrap();
        let q = "SELECT * FROM t";
        let jsonl = stdout(&sql(&[q, &format!("t={p}"), "--format", "jsonl"]));
        for line in jsonl.lines() {
            let v: serde_json::Value = serde_json::from_str(line)
                .unwrap_or_else(|e| panic!("{name}: not JSON ({e}): {line}"));
            let text = v.to_string();
            assert!(!text.contains("Cast error"), "{name}: {line}");
            seen_expanded |= text.contains("-292275055-05-16T16:47:04.192Z");
        }
        let csv = stdout(&sql(&[q, &format!("t={p}"), "--format", "csv"]));
        let mut lines = csv.lines();
        let header = lines.next().unwrap_or_default().split(',').count();
        assert!(!csv.contains("Cast error"), "{name}: {csv}");
        // Unquoted cells: every line has the header's field count.
        if !csv.contains('"') {
            for l in lines {
                assert_eq!(l.split(',').count(), header, "{name}: {l}");
            }
        }
    }
    assert!(seen_expanded, "no fixture holds i64::MIN times any more");
}

#[test]
fn tree_counts_and_statistics_that_disagree_with_values() {
    let count = |args: &[&str]| stdout(&sql(args)).trim().to_owned();
    let tree = "t=fixtures/tsfile/tree_basic.tsfile";
    assert_eq!(
        count(&["SELECT count(*) AS n FROM t", tree, "--format", "csv"]),
        "n\n292"
    );
    let by_device = count(&[
        "SELECT device, count(*) AS n FROM t GROUP BY device ORDER BY device",
        tree,
        "--format",
        "csv",
    ]);
    assert_eq!(
        by_device,
        "device,n\nroot.sg1.d1,200\nroot.sg1.d2,50\nroot.sg2.a.b.c,40\nroot.x,2"
    );
    let prefix = count(&[
        "SELECT count(*) AS n FROM t",
        tree,
        "--table",
        "root.sg1",
        "--format",
        "csv",
    ]);
    assert_eq!(prefix, "n\n250");
    // enc_sprintz was written by the C++ library, whose INT64 statistics disagree with the
    // values: SQL answers from the values unless told to trust the statistics.
    let q = "SELECT max(v_int64) AS m FROM t";
    let f = "t=fixtures/tsfile/enc_sprintz.tsfile";
    let exact = count(&[q, f, "--format", "csv"]);
    let trusted = count(&[q, f, "--format", "csv", "--trust-statistics"]);
    assert_eq!(exact, "m\n12413505504133838");
    assert_ne!(exact, trusted);
}
