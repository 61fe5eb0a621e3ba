//! `colfile convert` as scripts use it: every pair among RCFile, TsFile, CSV and JSONL on
//! the shipped fixtures, each result read back with `colfile cat` and compared with the
//! source's `cat` rows after the documented type mapping; usage and data errors; the
//! progress line. Parquet round trips with the `parquet` feature (cli_convert/parquet.rs).

use colfile_testkit as common;
#[path = "cli_convert/fixtures.rs"]
mod fixtures;
#[cfg(feature = "parquet")]
#[path = "cli_convert/parquet.rs"]
mod parquet;
#[path = "support/run.rs"]
mod run;
#[path = "cli_convert/tsfile.rs"]
mod tsfile;

use fixtures::*;
use serde_json::Value as Json;

#[test]
fn rcfile_to_jsonl_and_csv_is_what_cat_prints() {
    let dir = tmp("rc_text");
    for f in rc_fixtures() {
        let jsonl = dir.join(format!("{}.jsonl", f.name));
        ok(convert(&f.path, &jsonl, &f.args));
        assert_same_text(&read(&jsonl), &cat_text(&f.path, &f.args), &f.name);
        let csv = dir.join(format!("{}.csv", f.name));
        ok(convert(&f.path, &csv, &f.args));
        let mut csv_args = f.args.clone();
        csv_args.extend(["--format".into(), "csv".into()]);
        assert_same_text(&read(&csv), &cat_text(&f.path, &csv_args), &f.name);
    }
}

#[test]
fn rcfile_to_rcfile_keeps_every_row() {
    let dir = tmp("rc_rc");
    for f in rc_fixtures() {
        let out = dir.join(format!("{}.rc", f.name));
        // A codec of its own: the rows are re-encoded, not copied.
        let mut args = f.args.clone();
        args.extend([
            "--codec".into(),
            "gzip".into(),
            "--row-group-rows".into(),
            "7".into(),
        ]);
        ok(convert(&f.path, &out, &args));
        assert_same_rows(&cat(&out, &f.args), &f.rows, &f.name);
    }
}

#[test]
fn rcfile_to_tsfile_maps_hive_types() {
    let dir = tmp("rc_ts");
    for f in rc_fixtures() {
        let out = dir.join(format!("{}.tsfile", f.name));
        ok(convert(&f.path, &out, &f.args));
        let back = cat(&out, &[]);
        assert_eq!(back.len(), f.rows.len(), "{}", f.name);
        for (i, (b, r)) in back.iter().zip(&f.rows).enumerate() {
            // No `time` column: the rows are timed by their ordinal.
            assert_eq!(b["time"], Json::from(i), "{} row {i}", f.name);
            assert_eq!(b["table"], Json::from(f.name.as_str()), "{}", f.name);
            for c in f.schema.columns() {
                let want = hive_to_tsfile_value(&c.ty, &r[&c.name]);
                let got = &b[&c.name];
                assert!(
                    same_value(got, &want, is_float(&c.ty)),
                    "{} row {i} column {}: {got} vs {want}",
                    f.name,
                    c.name
                );
            }
        }
    }
}

#[test]
fn rcfile_through_csv_and_jsonl_comes_back() {
    let dir = tmp("rc_text_rc");
    for f in rc_fixtures() {
        for ext in ["csv", "jsonl"] {
            // The text file as `cat` writes it, converted to an RCFile with the fixture's
            // schema and serde.
            let text = dir.join(format!("{}.{ext}", f.name));
            let mut cat_args = f.args.clone();
            cat_args.extend(["--format".into(), ext.into()]);
            std::fs::write(&text, cat_text(&f.path, &cat_args)).unwrap();
            let rc = dir.join(format!("{}_{ext}.rc", f.name));
            let mut args = f.args.clone();
            args.extend(["--sync".into(), SYNC.into()]);
            ok(convert(&text, &rc, &args));
            assert!(has_sync(&rc), "{}: --sync", f.name);
            let want: Vec<Json> = if ext == "csv" {
                f.rows.iter().map(empty_strings_as_null).collect()
            } else {
                f.rows.clone()
            };
            assert_same_rows(&cat(&rc, &f.args), &want, &format!("{} via {ext}", f.name));
        }
    }
}

#[test]
fn csv_and_jsonl_into_each_other_and_into_tsfile() {
    let dir = tmp("text_text");
    for f in rc_fixtures() {
        let schema = ["--schema".to_string(), f.schema_text.clone()];
        let mut csv_args = f.args.clone();
        csv_args.extend(["--format".into(), "csv".into()]);
        let csv = dir.join(format!("{}.csv", f.name));
        std::fs::write(&csv, cat_text(&f.path, &csv_args)).unwrap();
        let jsonl = dir.join(format!("{}.jsonl", f.name));
        std::fs::write(&jsonl, cat_text(&f.path, &f.args)).unwrap();
        // CSV -> JSONL: cat's rows, with empty strings read back as NULL.
        let out = dir.join(format!("{}_from_csv.jsonl", f.name));
        ok(convert(&csv, &out, &schema));
        let want: Vec<Json> = f.rows.iter().map(empty_strings_as_null).collect();
        assert_same_rows(
            &parse_lines(&read(&out)),
            &want,
            &format!("{} csv -> jsonl", f.name),
        );
        // JSONL -> CSV: cat's CSV exactly.
        let out = dir.join(format!("{}_from_jsonl.csv", f.name));
        ok(convert(&jsonl, &out, &schema));
        assert_same_text(
            &read(&out),
            &read(&csv),
            &format!("{} jsonl -> csv", f.name),
        );
        // CSV -> CSV and JSONL -> JSONL.
        let out = dir.join(format!("{}_same.csv", f.name));
        ok(convert(&csv, &out, &[]));
        assert_same_text(&read(&out), &read(&csv), &format!("{} csv -> csv", f.name));
        let out = dir.join(format!("{}_same.jsonl", f.name));
        ok(convert(&jsonl, &out, &schema));
        assert_same_rows(
            &parse_lines(&read(&out)),
            &f.rows,
            &format!("{} jsonl -> jsonl", f.name),
        );
        // JSONL and CSV -> TsFile with the Hive schema: the RCFile -> TsFile mapping.
        for (src, rows) in [(&jsonl, f.rows.clone()), (&csv, want.clone())] {
            let ts = dir.join(format!("{}_text.tsfile", f.name));
            ok(convert(src, &ts, &schema));
            let back = cat(&ts, &[]);
            assert_eq!(back.len(), rows.len(), "{}", f.name);
            for (b, r) in back.iter().zip(&rows) {
                for c in f.schema.columns() {
                    let want = hive_to_tsfile_value(&c.ty, &r[&c.name]);
                    assert!(
                        same_value(&b[&c.name], &want, is_float(&c.ty)),
                        "{} {} column {}: {} vs {want}",
                        f.name,
                        src.display(),
                        c.name,
                        b[&c.name]
                    );
                }
            }
        }
    }
}

#[test]
fn stdin_and_stdout() {
    let f = ts_fixture("basic");
    let text = cat_text(&f.path, &[]);
    let out = run_with_stdin(
        &strs(&["convert", "-", "-", "--from", "jsonl", "--to", "csv"]),
        &text,
    );
    ok_ref(&out);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        cat_text(&f.path, &strs(&["--format", "csv"]))
    );
}

#[test]
fn usage_errors_exit_2() {
    let f = ts_fixture("basic");
    let dir = tmp("usage");
    let cases: Vec<Vec<String>> = vec![
        strs(&[
            "convert",
            path_str(&f.path),
            &format!("{}/x.xml", dir.display()),
        ]),
        strs(&[
            "convert",
            path_str(&f.path),
            &format!("{}/x.out", dir.display()),
            "--to",
            "xml",
        ]),
        strs(&["convert", path_str(&f.path)]),
        strs(&["convert", path_str(&f.path), "-"]),
        strs(&["convert", path_str(&f.path), "-", "--to", "rcfile"]),
        strs(&[
            "convert",
            path_str(&f.path),
            &format!("{}/x.rc", dir.display()),
            "--time-as",
            "x",
        ]),
    ];
    for args in cases {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    // CSV or JSONL into a typed format needs --schema.
    let jsonl = dir.join("rows.jsonl");
    std::fs::write(&jsonl, cat_text(&f.path, &[])).unwrap();
    for out_name in ["x.rc", "x.tsfile"] {
        let out = convert(&jsonl, &dir.join(out_name), &[]);
        assert_eq!(out.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&out.stderr).contains("--schema"));
        assert!(!dir.join(out_name).exists());
    }
    // A time column that does not exist.
    let rc = rc_fixture("all_types_binary_none");
    let mut args = rc.args.clone();
    args.extend(strs(&["--time-column", "nope"]));
    let out = convert(&rc.path, &dir.join("t.tsfile"), &args);
    assert_eq!(out.status.code(), Some(2));
    // Several tables: pick one.
    let m = common::tsdump::ts_fixtures_dir().join("multi_table.tsfile");
    let out = convert(&m, &dir.join("m.rc"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--table"));
}

#[test]
fn bad_data_exits_1_with_one_located_line() {
    let dir = tmp("bad");
    // A damaged RCFile (its first row group cut short) and a TsFile cut in half.
    let rc = rc_fixture("all_types_binary_none");
    let bytes = std::fs::read(&rc.path).unwrap();
    let cut = dir.join("cut.rc");
    std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
    let ts = ts_fixture("basic");
    let tbytes = std::fs::read(&ts.path).unwrap();
    let tcut = dir.join("cut.tsfile");
    std::fs::write(&tcut, &tbytes[..tbytes.len() / 2]).unwrap();
    let garbage = dir.join("garbage.rc");
    std::fs::write(&garbage, b"not an rcfile at all").unwrap();
    // Into an RCFile, batches are encoded on worker threads: the reader's failure still ends
    // the run with its own message.
    for output in ["out.jsonl", "out.rc"] {
        for (input, args) in [(&cut, rc.args.clone()), (&tcut, vec![]), (&garbage, vec![])] {
            let out_path = dir.join(output);
            let out = convert(input, &out_path, &args);
            assert_eq!(out.status.code(), Some(1), "{} {output}", input.display());
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(path_str(input)), "{err}");
            assert!(!out_path.exists(), "no partial output");
        }
    }
    // A CSV cell that is not a number of its column: the record is named (by its row: the
    // writer reads it, as into a TsFile).
    let csv = dir.join("bad.csv");
    std::fs::write(&csv, "a,b\n1,x\n2,y\nthree,z\n").unwrap();
    let out = convert(
        &csv,
        &dir.join("bad.rc"),
        &strs(&["--schema", "a:int,b:string"]),
    );
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv: row 3: ") && err.contains("three"),
        "{err}"
    );
    assert!(!dir.join("bad.rc").exists());
}

#[test]
fn progress_goes_to_stderr_only() {
    let f = rc_fixture("multi_group_binary_deflate");
    let dir = tmp("progress");
    for to in ["a.jsonl", "a.tsfile"] {
        let quiet = convert(
            &f.path,
            &dir.join(to),
            &[f.args.clone(), strs(&["--no-progress"])].concat(),
        );
        ok_ref(&quiet);
        assert!(quiet.stderr.is_empty());
        let shown = convert(
            &f.path,
            &dir.join(to),
            &[f.args.clone(), strs(&["--progress"])].concat(),
        );
        ok_ref(&shown);
        let err = String::from_utf8_lossy(&shown.stderr);
        let last = err.lines().last().unwrap_or_default();
        assert!(
            last.starts_with(&format!("converted {} rows in ", f.rows.len())),
            "{err:?}"
        );
        assert_eq!(
            shown.stdout, quiet.stdout,
            "stdout is the same with --progress"
        );
    }
    // To stdout: the data only.
    let out = run(&[
        strs(&[
            "convert",
            path_str(&f.path),
            "-",
            "--to",
            "jsonl",
            "--progress",
        ]),
        f.args.clone(),
    ]
    .concat());
    ok_ref(&out);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        cat_text(&f.path, &f.args)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("converted 1000 rows in "));
}

#[test]
fn time_column_tags_and_timestamps() {
    let dir = tmp("time_column");
    let rows = dir.join("rows.jsonl");
    let times = [
        "1969-12-31 23:59:59.5",
        "2024-01-02 03:04:05.678",
        "2024-01-02 03:04:06",
    ];
    let text: String = times
        .iter()
        .enumerate()
        .map(|(i, t)| format!("{{\"ts\":\"{t}\",\"city\":\"oslo\",\"v\":{i}}}\n"))
        .collect();
    std::fs::write(&rows, text).unwrap();
    let schema = "ts:timestamp,city:string,v:int";
    let ts = dir.join("w.tsfile");
    let args = strs(&["--schema", schema, "--time-column", "ts", "--tags", "city"]);
    ok(convert(&rows, &ts, &args));
    let cols = &table_schema(&ts)[0]["columns"];
    assert_eq!(cols[0]["name"], "city");
    assert_eq!(cols[0]["category"], "TAG");
    assert_eq!(cols[1]["name"], "v");
    // The table is named after the output file; the times are milliseconds since the epoch.
    let back = cat(&ts, &[]);
    assert_eq!(back.len(), 3);
    let mut by_time: Vec<(i64, i64)> = back
        .iter()
        .map(|r| {
            assert_eq!(r["table"], "w");
            (r["time"].as_i64().unwrap(), r["v"].as_i64().unwrap())
        })
        .collect();
    by_time.sort_unstable();
    let mut want: Vec<(i64, i64)> = times
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let t: colfile::rcfile::Timestamp = t.parse().unwrap();
            (t.seconds * 1000 + i64::from(t.nanos / 1_000_000), i as i64)
        })
        .collect();
    want.sort_unstable();
    assert_eq!(by_time, want);
    // Back to an RCFile with the time as a Hive timestamp: the original text.
    let rc = dir.join("w.rc");
    ok(convert(&ts, &rc, &strs(&["--time-as", "timestamp"])));
    let back = cat(
        &rc,
        &strs(&["--schema", "time:timestamp,city:string,v:int"]),
    );
    let mut got: Vec<String> = back
        .iter()
        .map(|r| r["time"].as_str().unwrap().to_string())
        .collect();
    got.sort();
    let mut sorted: Vec<String> = times.iter().map(|t| t.to_string()).collect();
    sorted.sort();
    assert_eq!(got, sorted);
    // A `time` column beside another time column, and --tags on a TsFile input: usage errors.
    let clash = convert(
        &rows,
        &dir.join("c.tsfile"),
        &strs(&[
            "--schema",
            "time:bigint,ts:timestamp,v:int",
            "--time-column",
            "ts",
        ]),
    );
    assert_eq!(clash.status.code(), Some(2));
    let tags = convert(&ts, &dir.join("t.tsfile"), &strs(&["--tags", "v"]));
    assert_eq!(tags.status.code(), Some(2));
    // A device's rows out of time order: bad data, located at the row.
    let unsorted = dir.join("unsorted.jsonl");
    std::fs::write(
        &unsorted,
        "{\"ts\":\"2024-01-02 00:00:00\",\"city\":\"oslo\",\"v\":0}\n{\"ts\":\"2024-01-01 00:00:00\",\"city\":\"oslo\",\"v\":1}\n",
    )
    .unwrap();
    let out = convert(&unsorted, &dir.join("u.tsfile"), &args);
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unsorted.jsonl: row 2:"), "{err}");
    assert!(!dir.join("u.tsfile").exists());
}

/// CSV into an RCFile of the input's own Hive types skips retyping each record: the worker
/// threads read its cells with that schema (without their JSON text where each is plain).
/// The rows equal those written when `--out-schema` (the same types) makes the records be
/// retyped and written as JSON lines first (mutation-checked: a null marker read as text).
#[test]
fn csv_to_rcfile_reads_the_same_with_or_without_retyping() {
    let dir = tmp("csv_rc_retype");
    let schema = "id:bigint,price:decimal(10,2),at:timestamp,day:date,code:char(4),\
                  name:varchar(8),ok:boolean,x:double,raw:binary,note:string";
    let mut csv = String::from("id,price,at,day,code,name,ok,x,raw,note\n");
    for i in 0..2_500 {
        let note = ["plain", "\"a, \"\"q\"\"\nb\"", "", "é\\"][i % 4];
        let price = ["1.5", "-0", "12345678.999", ""][i % 4];
        let at = ["2024-02-29 12:00:00.123456789", "", "1970-01-01 00:00:00"][i % 3];
        let x = ["2e3", "NaN", "-0.0", ""][i % 4];
        csv.push_str(&format!(
            "{i},{price},{at},2024-01-0{},ab,{},{},{x},{},{note}\n",
            1 + i % 9,
            "long name here".get(..i % 14).unwrap(),
            ["true", "false", ""][i % 3],
            ["00ff", "", "0a07"][i % 3],
        ));
    }
    let rows = dir.join("rows.csv");
    std::fs::write(&rows, &csv).unwrap();
    let direct = dir.join("direct.rc");
    ok(convert(&rows, &direct, &strs(&["--schema", schema])));
    let retyped = dir.join("retyped.rc");
    ok(convert(
        &rows,
        &retyped,
        &strs(&["--schema", schema, "--out-schema", schema]),
    ));
    let args = strs(&["--schema", schema]);
    let (a, b) = (cat_text(&direct, &args), cat_text(&retyped, &args));
    assert_eq!(a.lines().count(), 2_500);
    assert!(a == b, "the rows differ");
}
