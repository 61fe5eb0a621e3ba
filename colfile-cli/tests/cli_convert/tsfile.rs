//! TsFile fixtures through `convert`: to JSONL, CSV and TsFile as `cat` prints them, to an
//! RCFile and back, through CSV and JSONL and back, with `cat`'s input options.

use super::fixtures::*;
use serde_json::Value as Json;

#[test]
fn tsfile_to_jsonl_csv_and_tsfile_is_what_cat_prints() {
    let dir = tmp("ts_text");
    for f in ts_fixtures() {
        let jsonl = dir.join(format!("{}.jsonl", f.name));
        ok(convert(&f.path, &jsonl, &[]));
        assert_same_text(&read(&jsonl), &cat_text(&f.path, &[]), &f.name);
        let csv = dir.join(format!("{}.csv", f.name));
        ok(convert(&f.path, &csv, &[]));
        assert_same_text(
            &read(&csv),
            &cat_text(&f.path, &strs(&["--format", "csv"])),
            &f.name,
        );
        let ts = dir.join(format!("{}.tsfile", f.name));
        ok(convert(&f.path, &ts, &[]));
        assert_same_rows(&cat(&ts, &[]), &f.rows, &f.name);
        // The schema (types, categories, encodings, compressions) is the input's.
        assert_eq!(table_schema(&ts), table_schema(&f.path), "{}", f.name);
    }
}

#[test]
fn tsfile_to_rcfile_and_back() {
    let dir = tmp("ts_rc");
    for f in ts_fixtures() {
        for serde in ["text", "binary"] {
            let rc = dir.join(format!("{}_{serde}.rc", f.name));
            let out = convert(&f.path, &rc, &strs(&["--out-serde", serde]));
            if serde == "binary" && f.has_empty_blob {
                // Hive's binary serde cannot store an empty binary: a located data error.
                assert_eq!(out.status.code(), Some(1), "{}", f.name);
                let err = String::from_utf8_lossy(&out.stderr);
                assert!(
                    err.contains(": row ") && err.contains("zero length"),
                    "{err}"
                );
                continue;
            }
            ok(out);
            // Read back with the documented mapping: the rows minus "table".
            let hive = [
                "--schema".to_string(),
                f.hive_schema.clone(),
                "--serde".into(),
                serde.into(),
            ];
            let back = cat(&rc, &hive);
            assert_eq!(back.len(), f.rows.len(), "{}", f.name);
            for (b, r) in back.iter().zip(&f.rows) {
                let mut want = r.as_object().unwrap().clone();
                want.shift_remove("table");
                let got = b.as_object().unwrap();
                assert_eq!(got.len(), want.len(), "{}", f.name);
                for (k, w) in &want {
                    assert!(
                        same_value(&got[k], w, f.float_columns.contains(k)),
                        "{} {serde} {k}: {} vs {w}",
                        f.name,
                        got[k]
                    );
                }
            }
            // And back to a TsFile with the table's tags: the same rows.
            let ts = dir.join(format!("{}_{serde}.tsfile", f.name));
            let mut args = hive.to_vec();
            args.extend(strs(&["--table", &f.table, "--tags", &f.tags.join(",")]));
            ok(convert(&rc, &ts, &args));
            let again = cat(&ts, &[]);
            assert_eq!(again.len(), f.rows.len(), "{}", f.name);
            for (a, r) in again.iter().zip(&f.rows) {
                assert_rows_match(a, r, &f.float_columns, &f.name);
            }
        }
    }
}

#[test]
fn tsfile_through_csv_and_jsonl_comes_back() {
    let dir = tmp("ts_text_ts");
    for f in ts_fixtures() {
        for ext in ["csv", "jsonl"] {
            let text = dir.join(format!("{}.{ext}", f.name));
            ok(convert(&f.path, &text, &[]));
            let ts = dir.join(format!("{}_{ext}.tsfile", f.name));
            let out = convert(
                &text,
                &ts,
                &strs(&["--schema", &f.ts_schema, "--table", &f.table]),
            );
            if ext == "csv" && f.has_empty_tag {
                // An empty tag and a NULL tag are the same CSV cell: their devices merge,
                // and their times are out of order.
                assert_eq!(out.status.code(), Some(1), "{}", f.name);
                assert!(String::from_utf8_lossy(&out.stderr).contains("not after"));
                continue;
            }
            ok(out);
            let back = cat(&ts, &[]);
            let want: Vec<Json> = if ext == "csv" {
                f.rows.iter().map(empty_strings_as_null).collect()
            } else {
                f.rows.clone()
            };
            assert_eq!(back.len(), want.len(), "{} via {ext}", f.name);
            for (b, w) in back.iter().zip(&want) {
                assert_rows_match(b, w, &f.float_columns, &f.name);
            }
        }
    }
}

#[test]
fn input_options_are_cats() {
    let f = ts_fixture("basic");
    let dir = tmp("ts_opts");
    let out = dir.join("b.jsonl");
    let args = strs(&[
        "--columns",
        "temp",
        "--start",
        "1700000001000",
        "--end",
        "1700000003000",
    ]);
    ok(convert(&f.path, &out, &args));
    assert_same_text(&read(&out), &cat_text(&f.path, &args), "basic");
    assert!(!read(&out).is_empty());
    let args = strs(&["--where", "temp > 25"]);
    ok(convert(&f.path, &out, &args));
    assert_same_text(&read(&out), &cat_text(&f.path, &args), "basic");
}

/// CSV into a TsFile reads the records' cells without their JSON text (on worker threads,
/// batch by batch): the file equals the one `write` makes from the same rows converted to
/// JSON lines first, for cells of every kind (quoted, with delimiters, quotes and line
/// breaks, null markers, `-0`, exponents, non-JSON text in a number column's neighbours,
/// hex, dates, a header in another order and case); a bad cell many batches in is named
/// by its row.
#[test]
fn csv_cells_write_the_file_their_json_lines_write() {
    for blob in [false, true] {
        csv_cells_write_what_json_lines_write(blob);
    }
}

/// One run of [`csv_cells_write_the_file_their_json_lines_write`], with or without a BLOB
/// column (whose hex makes every row go through its JSON text).
fn csv_cells_write_what_json_lines_write(blob: bool) {
    let dir = tmp(&format!("ts_csv_cells_{blob}"));
    let schema = if blob {
        "time:INT64:TIME,dev:STRING:TAG,v:DOUBLE:FIELD,n:INT32:FIELD,\
         s:TEXT:FIELD,b:BLOB:FIELD,d:DATE:FIELD,ok:BOOLEAN:FIELD"
    } else {
        "time:INT64:TIME,dev:STRING:TAG,v:DOUBLE:FIELD,n:INT32:FIELD,\
         s:TEXT:FIELD,d:DATE:FIELD,ok:BOOLEAN:FIELD"
    };
    let mut csv = String::from(if blob {
        "S,time,DEV,v,n,b,d,ok\n"
    } else {
        "S,time,DEV,v,n,d,ok\n"
    });
    // 40,000 rows (over 1.5 MiB) are read in several runs, each on its own thread.
    let mut starts = Vec::new();
    for t in 0..40_000 {
        starts.push(csv.len());
        let s = match t % 6 {
            0 => "plain".to_string(),
            1 => "\"with, comma\"".to_string(),
            2 => "\"quote \"\" and\nbreak\"".to_string(),
            3 => String::new(), // the null marker
            4 => "back\\slash é".to_string(),
            _ => format!("s{t}"),
        };
        // Row 3 of 6 is plain but for its null text cell; rows 4 and 5 are not.
        let v = ["1.5", "-0", "2e3", "-7.25E-2", "NaN", ""][t % 6];
        let n = ["7", "-12", "", "0", "2147483647", "-2147483648"][t % 6];
        let b = if blob {
            ["0aff,", ",", "00,"][t % 3]
        } else {
            ""
        };
        let d = ["2024-02-29", "", "1999-12-31"][t % 3];
        let ok = ["true", "false", ""][t % 3];
        let dev = ["a", "b", "c", "d"][t / 10_000];
        csv.push_str(&format!("{s},{t},{dev},{v},{n},{b}{d},{ok}\n"));
    }
    let rows = dir.join("rows.csv");
    std::fs::write(&rows, &csv).unwrap();
    let args = strs(&["--schema", schema, "--table", "t"]);
    let direct = dir.join("direct.tsfile");
    ok(convert(&rows, &direct, &args));
    let jsonl = dir.join("rows.jsonl");
    ok(convert(&rows, &jsonl, &strs(&["--schema", schema])));
    let via_json = dir.join("via_json.tsfile");
    // convert's table schema has no TIME column (the rows' time is the time).
    let fields = schema.strip_prefix("time:INT64:TIME,").unwrap();
    let out = colfile()
        .args([
            "write",
            path_str(&via_json),
            "--format",
            "tsfile",
            "--table",
            "t",
        ])
        .args(["--schema", fields, "--input", path_str(&jsonl)])
        .output()
        .unwrap();
    ok(out);
    let back = cat(&direct, &[]);
    assert_eq!(back.len(), 40_000);
    let (a, b) = (
        std::fs::read(&direct).unwrap(),
        std::fs::read(&via_json).unwrap(),
    );
    let first_difference = a.iter().zip(&b).position(|(x, y)| x != y);
    assert_eq!((a.len(), first_difference), (b.len(), None));
    // `007` is no JSON number: the row reads its text, which an INT32 column refuses.
    let bad = csv.replace("\nplain,1602,a,1.5,7,", "\nplain,1602,a,1.5,007,");
    assert_ne!(bad, csv);
    std::fs::write(&rows, bad).unwrap();
    let o = convert(&rows, &dir.join("bad.tsfile"), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("row 1603:"), "{err}");
    assert!(!dir.join("bad.tsfile").exists());
    // Rows far into the input, past the first runs, are named by their own line: a row
    // with a field too many, and one whose text is not UTF-8.
    let line_of = |row: usize| 1 + csv[..starts[row]].matches('\n').count();
    let row = 37_001; // case 5: no quoted line break in it
    let mut bad = csv.clone().into_bytes();
    bad.insert(starts[row], b',');
    std::fs::write(&rows, &bad).unwrap();
    let o = convert(&rows, &dir.join("bad.tsfile"), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let width = 7 + usize::from(blob);
    let want = format!(
        "line {}: {} fields where the header has {width}",
        line_of(row),
        width + 1
    );
    assert!(err.contains(&want), "{err}");
    let mut bad = csv.clone().into_bytes();
    bad[starts[row] + 1] = 0xff;
    std::fs::write(&rows, &bad).unwrap();
    let o = convert(&rows, &dir.join("bad.tsfile"), &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("line {}:", line_of(row))), "{err}");
    assert!(!dir.join("bad.tsfile").exists());
}

#[test]
fn memory_threshold_bounds_what_a_tsfile_output_buffers() {
    // 20,000 CSV rows into a TsFile: by default one chunk group; with a 16 KiB threshold the
    // writer flushes many, and the rows are the same.
    use colfile::tsfile::tools::layout::scan_data;
    let dir = tmp("ts_threshold");
    let csv = dir.join("rows.csv");
    let mut text = String::from("time,dev,v\n");
    for i in 0..20_000 {
        text.push_str(&format!("{i},d{},{}\n", i % 3, i * 7 % 1000));
    }
    std::fs::write(&csv, text).unwrap();
    let schema = "time:INT64:TIME,dev:STRING:TAG,v:INT64:FIELD";
    let groups = |extra: &[&str]| {
        let out = dir.join(format!("t{}.tsfile", extra.len()));
        let mut args = strs(&["--schema", schema, "--table", "t"]);
        args.extend(strs(extra));
        ok(convert(&csv, &out, &args));
        let bytes = std::fs::read(&out).unwrap();
        let layout = scan_data(&bytes, &colfile::Limits::default()).unwrap();
        (layout.groups.len(), cat(&out, &[]))
    };
    let (few, rows) = groups(&[]);
    let (many, small_rows) = groups(&["--memory-threshold", "16384"]);
    assert_eq!(rows.len(), 20_000);
    assert_eq!(small_rows, rows);
    assert!(few <= 3, "{few} chunk groups by default");
    assert!(
        many >= 10 * few,
        "{many} chunk groups with a 16 KiB threshold"
    );
}
