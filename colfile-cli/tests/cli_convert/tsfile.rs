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
