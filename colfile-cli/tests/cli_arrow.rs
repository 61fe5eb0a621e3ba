//! Arrow IPC in and out of `colfile convert` (feature `parquet`): the file format (`.arrow`,
//! `.feather`) and the stream format (`.arrows`), round trips that must give back every
//! row, detection by magic bytes, and IPC to the text formats.
#![cfg(feature = "parquet")]

use colfile_testkit as common;
#[path = "cli_convert/fixtures.rs"]
mod fixtures;
#[path = "support/run.rs"]
mod run;

use colfile::rcfile::HiveType;
use fixtures::*;

fn has_union(t: &HiveType) -> bool {
    match t {
        HiveType::Union(_) => true,
        HiveType::Array(t) => has_union(t),
        HiveType::Map(k, v) => has_union(k) || has_union(v),
        HiveType::Struct(fs) => fs.iter().any(|f| has_union(&f.ty)),
        _ => false,
    }
}

fn hive_timestamp(t: &HiveType) -> bool {
    match t {
        HiveType::Timestamp => true,
        HiveType::Array(t) => hive_timestamp(t),
        HiveType::Map(k, v) => hive_timestamp(k) || hive_timestamp(v),
        HiveType::Struct(fs) => fs.iter().any(|f| hive_timestamp(&f.ty)),
        HiveType::Union(ms) => ms.iter().any(hive_timestamp),
        _ => false,
    }
}

#[test]
fn rcfile_to_arrow_and_back_keeps_every_row() {
    let dir = tmp("arrow_rc");
    let mut round_trips = 0;
    for f in rc_fixtures() {
        let arrow = dir.join(format!("{}.arrow", f.name));
        let out = convert(&f.path, &arrow, &f.args);
        if !out.status.success() {
            // Hive timestamps beyond Arrow's nanosecond range (years 1677-2262).
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{}: {err}", f.name);
            assert!(f.schema.columns().iter().any(|c| hive_timestamp(&c.ty)));
            assert!(err.contains("timestamp"), "{err}");
            continue;
        }
        assert_eq!(
            &std::fs::read(&arrow).unwrap()[..6],
            b"ARROW1",
            "{}",
            f.name
        );
        let rc = dir.join(format!("{}.rc", f.name));
        ok(convert(&arrow, &rc, &f.args));
        let back = cat(&rc, &f.args);
        if f.schema.columns().iter().any(|c| has_union(&c.ty)) {
            // Arrow's dense unions have no null slots: a NULL union comes back as its
            // first member's null ({"tag":0,"value":null}); the row count still holds.
            assert_eq!(back.len(), f.rows.len(), "{}", f.name);
            continue;
        }
        assert_same_rows(&back, &f.rows, &f.name);
        round_trips += 1;
    }
    assert!(
        round_trips >= 15,
        "only {round_trips} fixtures went through Arrow IPC"
    );
}

#[test]
fn tsfile_to_arrow_stream_and_back_keeps_every_row() {
    let dir = tmp("arrows_ts");
    let fixtures = ts_fixtures();
    assert!(fixtures.len() >= 3);
    for f in fixtures {
        let arrows = dir.join(format!("{}.arrows", f.name));
        ok(convert(&f.path, &arrows, &[]));
        assert_eq!(
            &std::fs::read(&arrows).unwrap()[..4],
            &[0xff; 4],
            "{}",
            f.name
        );
        let ts = dir.join(format!("{}.tsfile", f.name));
        ok(convert(&arrows, &ts, &strs(&["--table", &f.table])));
        assert_same_rows(&cat(&ts, &[]), &f.rows, &f.name);
        // The table's columns (names, types, categories) come back from the field
        // metadata; encodings and compressions are the writer's defaults, and ATTRIBUTE
        // columns (not row values) are not read into batches.
        let columns = |p: &std::path::Path| -> Vec<(String, String, String)> {
            table_schema(p)[0]["columns"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|c| c["category"] != "ATTRIBUTE")
                .map(|c| {
                    let s = |k: &str| c[k].as_str().unwrap().to_string();
                    (s("name"), s("type"), s("category"))
                })
                .collect()
        };
        assert_eq!(columns(&ts), columns(&f.path), "{}", f.name);
    }
}

#[test]
fn ipc_is_told_by_magic_bytes_and_prints_as_cat() {
    let f = ts_fixture("basic");
    let dir = tmp("arrow_magic");
    for (ext, magic_len) in [("feather", 6), ("arrows", 4)] {
        let ipc = dir.join(format!("b.{ext}"));
        ok(convert(&f.path, &ipc, &[]));
        // No telling extension: the magic bytes say what it is.
        let bin = dir.join(format!("b_{ext}.bin"));
        std::fs::copy(&ipc, &bin).unwrap();
        assert!(std::fs::read(&bin).unwrap().len() > magic_len);
        let jsonl = dir.join(format!("b_{ext}.jsonl"));
        ok(convert(&bin, &jsonl, &[]));
        let via_arrow = parse_lines(&read(&jsonl));
        assert_eq!(via_arrow.len(), f.rows.len());
        // Rows as the Hive types of the Arrow schema print them: same columns, same count.
        let keys = |j: &serde_json::Value| {
            j.as_object()
                .unwrap()
                .keys()
                .cloned()
                .collect::<Vec<String>>()
        };
        assert!(
            keys(&via_arrow[0]).contains(&"temp".to_string()),
            "{:?}",
            via_arrow[0]
        );
    }
    // --to names the format when the extension does not.
    let out = dir.join("b.data");
    ok(convert(&f.path, &out, &strs(&["--to", "arrows"])));
    assert_eq!(&std::fs::read(&out).unwrap()[..4], &[0xff; 4]);
}

#[test]
fn csv_to_arrow_and_back_to_jsonl() {
    let dir = tmp("arrow_csv");
    let csv = dir.join("in.csv");
    std::fs::write(&csv, "a,b\n1,x\n2,\n3,z\n").unwrap();
    let arrow = dir.join("t.arrow");
    ok(convert(
        &csv,
        &arrow,
        &strs(&["--schema", "a:int,b:string"]),
    ));
    let jsonl = dir.join("t.jsonl");
    ok(convert(&arrow, &jsonl, &[]));
    assert_eq!(
        read(&jsonl),
        "{\"a\":1,\"b\":\"x\"}\n{\"a\":2,\"b\":null}\n{\"a\":3,\"b\":\"z\"}\n"
    );
}
