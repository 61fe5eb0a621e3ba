//! The `colfile` CLI on TsFile: cat (jsonl, csv, dump), scan, meta, schema, and write from
//! `--schema` + JSON lines, from an oracle spec and from another TsFile.

use colfile_testkit as common;

use common::tsdump::{compare_dumps, parse_lines, ts_fixtures_dir};
use serde_json::Value as Json;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn colfile(args: &[&str], stdin: Option<&str>) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_colfile"));
    c.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().expect("spawn colfile");
    if let Some(s) = stdin {
        child.stdin.take().unwrap().write_all(s.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = colfile(args, None);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

fn fixture(name: &str) -> String {
    ts_fixtures_dir()
        .join(format!("{name}.tsfile"))
        .display()
        .to_string()
}

#[test]
fn csv_has_one_header_even_without_rows_and_refuses_ragged_columns() {
    let f = fixture("basic");
    // No row in the time range: the header alone, tags then fields, --columns' order.
    let none = ok(&["cat", &f, "--format", "csv", "--start", "1", "--end", "2"]);
    assert_eq!(none, "table,time,city,station,temp,count,status\n");
    let some = ok(&[
        "cat",
        &f,
        "--format",
        "csv",
        "--start",
        "1",
        "--end",
        "2",
        "--columns",
        "temp,city",
    ]);
    let with_rows = ok(&[
        "cat",
        &f,
        "--format",
        "csv",
        "--columns",
        "temp,city",
        "--limit",
        "1",
    ]);
    assert_eq!(some, "table,time,city,temp\n");
    assert!(with_rows.starts_with(&some), "{with_rows}");
    // Tables (or tree devices) with other columns cannot share one CSV header.
    for name in ["multi_table", "tree_basic"] {
        let o = colfile(&["cat", &fixture(name), "--format", "csv"], None);
        assert_eq!(o.status.code(), Some(1), "{name}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("--format jsonl") && err.lines().count() == 1,
            "{err}"
        );
    }
    let one = ok(&[
        "cat",
        &fixture("multi_table"),
        "--format",
        "csv",
        "--table",
        "power",
    ]);
    assert!(one.starts_with("table,time,region,meter,"), "{one}");
}

#[test]
fn cat_prints_flat_rows_as_json_lines_and_csv() {
    let f = fixture("basic");
    let out = ok(&["cat", &f, "--limit", "1"]);
    assert_eq!(
        out,
        "{\"table\":\"weather\",\"time\":1700000000000,\"city\":\"beijing\",\"station\":\"d1\",\"temp\":20.5,\"count\":0,\"status\":\"ok\"}\n"
    );
    let csv = ok(&["cat", &f, "--format", "csv", "--limit", "2"]);
    assert_eq!(
        csv,
        "table,time,city,station,temp,count,status\nweather,1700000000000,beijing,d1,20.5,0,ok\nweather,1700000001000,beijing,d1,21.5,10,ok\n"
    );
    // Projection and a time range.
    let some = ok(&[
        "cat",
        &f,
        "--columns",
        "count,city",
        "--start",
        "1700000001000",
        "--end",
        "1700000001000",
    ]);
    let rows: Vec<Json> = parse_lines(&some);
    assert_eq!(rows.len(), 2, "{some}"); // one per device
    assert_eq!(rows[0]["count"], 10);
    assert!(rows[0].get("temp").is_none());
}

#[test]
fn cat_dump_equals_the_official_dump_and_scan_counts_every_value() {
    let f = fixture("types_all");
    let ours = ok(&["cat", &f, "--format", "dump"]);
    let expected =
        std::fs::read_to_string(ts_fixtures_dir().join("types_all.expected.jsonl")).unwrap();
    let problems = compare_dumps(&parse_lines(&expected), &parse_lines(&ours), false);
    assert!(problems.is_empty(), "{problems:?}");
    let scan: Json = serde_json::from_str(ok(&["scan", &f]).trim()).unwrap();
    assert_eq!(scan["rows"], 360);
    assert!(scan["values"].as_u64().unwrap() > 3000);
}

/// `scan --threads N` reads a local file's devices on N threads: the counts are those of
/// one thread, for the whole file and for a time range, whatever N.
#[test]
fn scan_on_several_threads_counts_what_one_thread_counts() {
    let mut checked = 0;
    for name in [
        "types_all",
        "many_devices",
        "multi_table",
        "tree_basic",
        "deep_index",
    ] {
        let path = ts_fixtures_dir().join(format!("{name}.tsfile"));
        if !path.exists() {
            continue;
        }
        let f = path.display().to_string();
        for range in [&[][..], &["--start", "0", "--end", "1700000000000"][..]] {
            let counts = |threads: &str| {
                let mut args = vec!["scan", f.as_str(), "--threads", threads];
                args.extend(range);
                let j: Json = serde_json::from_str(ok(&args).trim()).unwrap();
                (j["rows"].clone(), j["values"].clone())
            };
            let one = counts("1");
            assert!(one.0.as_u64().unwrap() > 0 || !range.is_empty(), "{name}");
            for n in ["2", "3", "16"] {
                assert_eq!(counts(n), one, "{name} on {n} threads");
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 10);
}

#[test]
fn meta_and_schema_describe_the_footer() {
    let f = fixture("many_devices");
    let meta: Json = serde_json::from_str(&ok(&["meta", &f])).unwrap();
    assert_eq!(meta["format"], "tsfile");
    assert_eq!(meta["devices"].as_array().unwrap().len(), 300);
    assert_eq!(meta["index_roots"][0]["type"], "INTERNAL_DEVICE");
    let s = &meta["devices"][0]["series"][1];
    assert!(s["statistics"]["count"].as_u64().is_some(), "{s}");
    let schema: Json = serde_json::from_str(&ok(&["schema", &f])).unwrap();
    assert!(schema["devices"][0]["series"][0]
        .get("statistics")
        .is_none());
    assert!(!schema["tables"].as_array().unwrap().is_empty());
}

#[test]
fn write_from_schema_and_json_lines_reads_back() {
    let dir = std::env::temp_dir().join(format!("colfile-tscli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.tsfile");
    let out_s = out.display().to_string();
    let rows = "[1, \"x\", 1.5, 7, \"2024-02-29\", \"00ff\"]\n{\"time\": 2, \"dev\": \"x\", \"v\": \"NaN\", \"n\": null}\n[3, null, -0.0, 9, null, \"\"]\n";
    let schema = "dev:STRING:TAG,v:DOUBLE:FIELD:GORILLA:ZSTD,n:INT64:FIELD:TS_2DIFF,d:DATE:FIELD,b:BLOB:FIELD:PLAIN:SNAPPY";
    let o = colfile(
        &[
            "write", &out_s, "--format", "tsfile", "--table", "T", "--schema", schema,
        ],
        Some(rows),
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: Json = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["rows"], 3);
    let back = ok(&["cat", &out_s]);
    assert_eq!(
        back,
        "{\"table\":\"t\",\"time\":3,\"dev\":null,\"v\":-0.0,\"n\":9,\"d\":null,\"b\":\"\"}\n\
         {\"table\":\"t\",\"time\":1,\"dev\":\"x\",\"v\":1.5,\"n\":7,\"d\":\"2024-02-29\",\"b\":\"00ff\"}\n\
         {\"table\":\"t\",\"time\":2,\"dev\":\"x\",\"v\":\"NaN\",\"n\":null,\"d\":null,\"b\":null}\n"
    );
    // A time out of order is refused with its input line, and no file is left behind.
    let bad = dir.join("bad.tsfile");
    let o = colfile(
        &[
            "write",
            &bad.display().to_string(),
            "--format",
            "tsfile",
            "--table",
            "t",
            "--schema",
            "v:INT32:FIELD",
        ],
        Some("[5, 1]\n[4, 2]\n"),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("input line 2"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!bad.exists());
    // A bad schema is a usage error.
    let o = colfile(
        &[
            "write",
            &bad.display().to_string(),
            "--format",
            "tsfile",
            "--table",
            "t",
            "--schema",
            "v:INT99:FIELD",
        ],
        Some(""),
    );
    assert_eq!(o.status.code(), Some(2));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `write --table` gathers a run of rows of one device into one batch: rows grouped by
/// device (runs longer than a batch) and the same rows with the devices interleaved (a batch
/// a row) read back the same, and a time out of order names its own input line whether it
/// is inside a run, at a run's start or at the end of the input.
#[test]
fn table_rows_written_in_device_runs_or_interleaved_read_back_the_same() {
    let dir = std::env::temp_dir().join(format!("colfile-tsruns-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let schema = "dev:STRING:TAG,v:INT64:FIELD,s:STRING:FIELD";
    let row = |dev: Option<&str>, t: i64| {
        let dev = dev.map_or("null".to_string(), |d| format!("\"{d}\""));
        let s = if t % 5 == 0 {
            "null".to_string()
        } else {
            format!("\"s{}\"", t % 7)
        };
        format!("[{t},{dev},{},{s}]\n", t * 3)
    };
    let devices = [Some("a"), Some("b"), None];
    let grouped: String = devices
        .iter()
        .flat_map(|d| (0..5_000).map(move |t| row(*d, t)))
        .collect();
    let interleaved: String = (0..5_000)
        .flat_map(|t| devices.iter().map(move |d| row(*d, t)))
        .collect();
    let write = |name: &str, input: &str| {
        let out = dir.join(name).display().to_string();
        let args = [
            "write", &out, "--format", "tsfile", "--table", "t", "--schema", schema,
        ];
        let o = colfile(&args, Some(input));
        (out, o)
    };
    let (g, o) = write("grouped.tsfile", &grouped);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (i, o) = write("interleaved.tsfile", &interleaved);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let back = ok(&["cat", &g]);
    assert_eq!(back.lines().count(), 15_000);
    assert_eq!(back, ok(&["cat", &i]));
    assert!(back.contains("{\"table\":\"t\",\"time\":4999,\"dev\":\"b\",\"v\":14997,\"s\":\"s1\"}"));
    // Out of order: inside a run longer than a batch, at the start of a device's second
    // run, and on the last line.
    let mut inside: Vec<String> = (0..6_000).map(|t| row(Some("a"), t)).collect();
    inside[5_000] = row(Some("a"), 4_999);
    let again = [
        row(Some("a"), 1),
        row(Some("a"), 2),
        row(Some("b"), 1),
        row(Some("a"), 2),
        row(Some("b"), 2),
    ];
    let last = [row(Some("a"), 1), row(Some("b"), 1), row(Some("a"), 0)];
    for (input, line) in [
        (inside.concat(), 5_001),
        (again.concat(), 4),
        (last.concat(), 3),
    ] {
        let (out, o) = write("bad.tsfile", &input);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains(&format!("input line {line}: ")),
            "{line}: {err}"
        );
        assert!(err.contains("is not after the last time written"), "{err}");
        assert!(!std::path::Path::new(&out).exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Lines are parsed in batches on several threads: rows spelled as arrays, as objects, with
/// escapes (read by serde_json), after blank and CRLF lines, over several batches, write the
/// same file as plain arrays, with and without a BLOB column (whose hex the borrowing reader
/// leaves to another); of two bad lines in different batches the first is named.
#[test]
fn json_lines_in_any_spelling_over_many_batches_write_the_same_file() {
    let dir = std::env::temp_dir().join(format!("colfile-tsspell-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for blob in [false, true] {
        let (schema, b, bk) = if blob {
            (
                "dev:STRING:TAG,v:DOUBLE:FIELD,s:STRING:FIELD,b:BLOB:FIELD",
                ",\"0a\"",
                ",\"b\":\"0a\"",
            )
        } else {
            ("dev:STRING:TAG,v:DOUBLE:FIELD,s:STRING:FIELD", "", "")
        };
        let d = |t: usize| t / 700;
        let plain = |t: usize| format!("[{t},\"d{}\",{t}.5,\"s{t}\"{b}]\n", d(t));
        let spelled = |t: usize| match t % 4 {
            0 => plain(t),
            1 => format!(
                "{{\"S\":\"s{t}\",\"time\":{t}{bk},\"dev\":\"d{}\",\"v\":{t}.5}}\r\n",
                d(t)
            ),
            2 => format!("\n[{t}, \"\\u0064{}\", {t}.5, \"s{t}\"{b}]\n", d(t)),
            _ => format!("[{t},\"d{}\",{t}.50,\"s{t}\"{b}]\n", d(t)),
        };
        let n = 5_000;
        let write = |name: &str, input: &str| {
            let out = dir.join(name).display().to_string();
            let args = [
                "write", &out, "--format", "tsfile", "--table", "t", "--schema", schema,
            ];
            (colfile(&args, Some(input)), out)
        };
        let (o, x) = write("plain.tsfile", &(0..n).map(plain).collect::<String>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let (o, y) = write("spelled.tsfile", &(0..n).map(spelled).collect::<String>());
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read(&x).unwrap(), std::fs::read(&y).unwrap());
        let back = ok(&["cat", &x]);
        assert_eq!(back.lines().count(), n);
        let last = format!(r#""time":4999,"dev":"d7","v":4999.5,"s":"s4999"{bk}}}"#);
        assert!(back.ends_with(&format!("{last}\n")), "{blob}: {last}");
        // Lines 2500 and 4000 (in other batches) are not rows: the first is named.
        let mut lines: Vec<String> = (0..n).map(plain).collect();
        lines[2_499] = "[1,\"d\",2.5,\"x\",\"zz\",7]\n".into();
        lines[3_999] = "{oops\n".into();
        let (o, out) = write("bad.tsfile", &lines.concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains("input line 2500: "), "{err}");
        assert!(!std::path::Path::new(&out).exists());
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn write_from_a_spec_and_from_another_file_gives_the_same_rows() {
    let dir = std::env::temp_dir().join(format!("colfile-tsspec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let spec = ts_fixtures_dir()
        .join("tags_nulls.spec.json")
        .display()
        .to_string();
    let a = dir.join("a.tsfile").display().to_string();
    let b = dir.join("b.tsfile").display().to_string();
    ok(&["write", &a, "--format", "tsfile", "--spec", &spec]);
    let line = ok(&[
        "write",
        &b,
        "--format",
        "tsfile",
        "--from",
        &a,
        "--profile",
        "java",
    ]);
    assert!(line.contains("write_seconds"), "{line}");
    let expected =
        std::fs::read_to_string(ts_fixtures_dir().join("tags_nulls.expected.jsonl")).unwrap();
    for f in [&a, &b] {
        let ours = ok(&["cat", f, "--format", "dump"]);
        let problems = compare_dumps(&parse_lines(&expected), &parse_lines(&ours), true);
        assert!(problems.is_empty(), "{f}: {problems:?}");
    }
    // Tree-model files (aligned and not) rewrite batch by batch too.
    for name in ["tree_basic", "tree_encodings"] {
        let out = dir.join(format!("{name}.tsfile")).display().to_string();
        ok(&[
            "write",
            &out,
            "--format",
            "tsfile",
            "--from",
            &fixture(name),
        ]);
        assert_eq!(ok(&["cat", &out]), ok(&["cat", &fixture(name)]), "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--max-chunk-points` (any size suffix) applies to `cat`, `verify` and `recover`.
#[test]
fn limit_flags_reach_cat_verify_and_recover() {
    let file = ts_fixtures_dir().join("default_multipage.tsfile");
    let file = file.to_str().unwrap();
    let ok = colfile(&["cat", file, "--max-chunk-points", "1M"], None);
    assert!(ok.status.success(), "{ok:?}");
    // Its chunks hold 12000 points, in pages of 10000 and 2000.
    let o = colfile(&["cat", file, "--max-chunk-points", "11K"], None);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("points in one chunk is 12000, above the limit of 11264"),
        "{err}"
    );
    let o = colfile(&["verify", file, "--max-chunk-points", "11K"], None);
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("points in one chunk is 12000"), "{out}");
    let dir = std::env::temp_dir().join(format!("colfile-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let rec = dir.join("out.tsfile");
    let o = colfile(
        &[
            "recover",
            file,
            rec.to_str().unwrap(),
            "--max-chunk-points",
            "11K",
        ],
        None,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(out.contains("recovered 0 chunk group(s)"), "{o:?}");
    assert!(out.contains("points in one chunk is 12000"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
