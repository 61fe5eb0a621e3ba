//! The read commands on a TsFile v3 file (apache/tsfile's `v3TsFile`, read from the shared
//! fixtures): `cat`, `scan`, `meta`, `schema`, `sketch` and `verify` work as on v4, `meta`
//! says version 3, `recover` rebuilds a cut v3 file as v3, and a pre-v3 file is refused
//! naming its version.

#[path = "support/run.rs"]
mod support;

use serde_json::Value as Json;
use support::{colfile, stdout, temp_dir};

/// The path of a shared real file, or `None` when the shared folder is absent.
fn real(name: &str) -> Option<String> {
    let p = colfile_testkit::external_dir()?.join("real").join(name);
    p.is_file().then(|| p.to_string_lossy().into_owned())
}

#[test]
fn read_commands_on_the_java_v3_file() {
    let Some(f) = real("tsfile_java_v3TsFile.tsfile") else {
        return;
    };
    let out = stdout(&colfile(&["cat", &f]));
    let rows: Vec<Json> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        rows,
        [serde_json::json!({"device": "d1", "time": 10000, "s1": 5.0, "s2": 5})]
    );

    let scan: Json = serde_json::from_str(stdout(&colfile(&["scan", &f])).trim()).unwrap();
    assert_eq!(
        (scan["rows"].as_u64(), scan["values"].as_u64()),
        (Some(1), Some(2))
    );

    let meta: Json = serde_json::from_str(stdout(&colfile(&["meta", &f])).trim()).unwrap();
    assert_eq!(meta["version"], 3);
    assert_eq!(meta["model"], "tree");
    let devices: Vec<&str> = meta["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["device"].as_str().unwrap())
        .collect();
    assert_eq!(devices, ["d1", "d2"]);
    assert_eq!(meta["devices"][0]["series"][0]["statistics"]["sum"], 5.0);

    let schema: Json = serde_json::from_str(stdout(&colfile(&["schema", &f])).trim()).unwrap();
    assert_eq!(schema["devices"][1]["series"][0]["type"], "TEXT");

    let sketch = stdout(&colfile(&["sketch", &f]));
    assert!(sketch.contains("[version number] 3"), "{sketch}");
    assert!(
        sketch.contains("[Chunk Group Header] marker 0, deviceID d1"),
        "{sketch}"
    );
    assert!(
        sketch.contains("[root]: LEAF_DEVICE, 2 entries"),
        "{sketch}"
    );

    let verify = stdout(&colfile(&["verify", &f]));
    assert!(
        verify.contains(": OK: 378 bytes, 2 chunk groups, 3 chunks"),
        "{verify}"
    );
}

#[test]
fn pre_v3_files_are_refused_naming_their_version() {
    let Some(f) = real("old_iotdb_v0.7.0_writeTestOutputData.ksn.tsfile") else {
        return;
    };
    let o = colfile(&["cat", &f]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("TsFile v0.7.0 (IoTDB 0.x, before v3) is not supported"),
        "{err}"
    );
}

#[test]
fn recover_rebuilds_a_cut_v3_file() {
    let Some(f) = real("tsfile_cpp_smoke_test.write_record.dat.tsfile") else {
        return;
    };
    let dir = temp_dir("v3-recover");
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let bytes = std::fs::read(&f).unwrap();
    // Everything before the separator at 988: the data section without its metadata.
    std::fs::write(p("cut.tsfile"), &bytes[..988]).unwrap();
    stdout(&colfile(&["recover", &p("cut.tsfile"), &p("fixed.tsfile")]));
    let meta: Json =
        serde_json::from_str(stdout(&colfile(&["meta", &p("fixed.tsfile")])).trim()).unwrap();
    assert_eq!(meta["version"], 3);
    assert_eq!(
        stdout(&colfile(&["cat", &p("fixed.tsfile")])),
        stdout(&colfile(&["cat", &f]))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_writes_a_v4_file_with_the_same_rows() {
    let Some(f) = real("tsfile_cpp_smoke_test.write_record.dat.tsfile") else {
        return;
    };
    let dir = temp_dir("v3-convert");
    let out = dir.join("v4.tsfile").to_string_lossy().into_owned();
    stdout(&colfile(&["convert", &f, &out]));
    let meta: Json = serde_json::from_str(stdout(&colfile(&["meta", &out])).trim()).unwrap();
    assert_eq!(meta["version"], 4);
    assert_eq!(meta["devices"][0]["series"][2]["encoding"], "PLAIN");
    assert_eq!(
        stdout(&colfile(&["cat", &out])),
        stdout(&colfile(&["cat", &f]))
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn convert_re_encodes_what_the_official_reader_cannot_read_unless_kept() {
    let Some(f) = real("tsfile_java_v3TsFile.tsfile") else {
        return;
    };
    let dir = temp_dir("v3-convert-keep");
    let encoding_of_s1 = |path: &str| -> Json {
        let meta: Json = serde_json::from_str(stdout(&colfile(&["meta", path])).trim()).unwrap();
        let series = meta["devices"][0]["series"].as_array().unwrap().clone();
        let s1 = series
            .into_iter()
            .find(|s| s["measurement"] == "s1" || s["name"] == "s1");
        s1.unwrap()["encoding"].clone()
    };
    let out = dir.join("portable.tsfile").to_string_lossy().into_owned();
    let o = colfile(&["convert", &f, &out]);
    let note = String::from_utf8_lossy(&o.stderr).into_owned();
    stdout(&o);
    assert!(
        note.contains("d1.s1: RLE is not read by the official C++ reader; written as GORILLA"),
        "{note}"
    );
    assert_eq!(encoding_of_s1(&out), "GORILLA");
    let kept = dir.join("kept.tsfile").to_string_lossy().into_owned();
    let o = colfile(&["convert", &f, &kept, "--keep-encodings"]);
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(encoding_of_s1(&kept), "RLE");
    for p in [&out, &kept] {
        assert_eq!(
            stdout(&colfile(&["cat", p])),
            stdout(&colfile(&["cat", &f]))
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
