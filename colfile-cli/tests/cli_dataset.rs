//! `cat`, `head`, `scan` and `count` on an IoTDB data directory: one merged dataset, the same
//! rows as the library's `Dataset::query`, deletions applied unless `--no-mods`, and the old
//! file-by-file reading with `--no-merge`.

#[path = "support/run.rs"]
mod run;

use colfile::tsfile::dataset::{Dataset, ReadOptions};
use colfile::tsfile::{Query, ValueRef};
use colfile_testkit::iotdb::{put, rows, temp, SEQ, UNSEQ};
use run::{colfile, stdout};
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// Two sequence files and an unsequence file overriding t=2 of the first; a `.mods`
/// deleting s1 at t=11; a sequence file without `.resource`.
fn data_dir(tag: &str) -> PathBuf {
    let dir = temp(&format!("cli-{tag}"));
    let d = "root.sg.d1";
    put(
        &dir,
        &format!("{SEQ}/1-1-0-0.tsfile"),
        &rows(d, &[(1, Some(1), Some(100)), (2, Some(2), Some(200))]),
        Some(1),
    );
    let second = put(
        &dir,
        &format!("{SEQ}/2-2-0-0.tsfile"),
        &rows(d, &[(10, Some(10), None), (11, Some(11), None)]),
        Some(3),
    );
    put(
        &dir,
        &format!("{UNSEQ}/3-3-0-0.tsfile"),
        &rows(d, &[(2, Some(-2), None)]),
        Some(1),
    );
    put(
        &dir,
        &format!("{SEQ}/4-4-0-0.tsfile"),
        &rows("root.sg.a1", &[(5, None, Some(5))]),
        None,
    );
    std::fs::write(
        format!("{}.mods", second.display()),
        format!("DELETION,root.sg.d1.s1,{},11,11\n", i64::MAX),
    )
    .unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// (device, time, s1, s2) of the library's merged reading.
fn library(dir: &Path, mods: bool) -> Vec<(String, i64, Option<i64>, Option<i64>)> {
    let ds = Dataset::open(dir).unwrap();
    let mut out = Vec::new();
    for b in ds
        .query_with(&Query::all(), ReadOptions::default().with_mods(mods))
        .unwrap()
    {
        let b = b.unwrap();
        let mut cols: Vec<_> = ["s1", "s2"]
            .iter()
            .map(|n| b.columns.iter().find(|c| c.name == *n).map(|c| c.cursor()))
            .collect();
        for &t in &b.times {
            let v: Vec<Option<i64>> = cols
                .iter_mut()
                .map(|c| match c.as_mut().map(|c| c.next_value()) {
                    Some(ValueRef::Int64(x)) => Some(x),
                    _ => None,
                })
                .collect();
            out.push((b.device.to_string(), t, v[0], v[1]));
        }
    }
    out
}

fn parse(text: &str) -> Vec<(String, i64, Option<i64>, Option<i64>)> {
    text.lines()
        .map(|l| {
            let j: Json = serde_json::from_str(l).unwrap();
            (
                j["device"].as_str().unwrap().to_string(),
                j["time"].as_i64().unwrap(),
                j.get("s1").and_then(Json::as_i64),
                j.get("s2").and_then(Json::as_i64),
            )
        })
        .collect()
}

#[test]
fn cat_count_and_scan_read_the_directory_as_one_dataset() {
    let dir = data_dir("read");
    let want = library(&dir, true);
    let d1 = |t, a, b| ("root.sg.d1".to_string(), t, a, b);
    assert_eq!(
        want,
        [
            ("root.sg.a1".to_string(), 5, None, Some(5)),
            d1(1, Some(1), Some(100)),
            d1(2, Some(-2), Some(200)),
            d1(10, Some(10), None)
        ]
    );
    let o = colfile(&["cat", s(&dir)]);
    assert_eq!(parse(&stdout(&o)), want);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("4-4-0-0.tsfile: no .resource"), "{err}");
    assert_eq!(
        stdout(&colfile(&["count", s(&dir)])).trim(),
        want.len().to_string()
    );
    let raw = library(&dir, false);
    assert_eq!(raw.len(), want.len() + 1, "t=11 comes back");
    assert_eq!(
        parse(&stdout(&colfile(&["cat", s(&dir), "--no-mods"]))),
        raw
    );
    assert_eq!(
        stdout(&colfile(&["count", s(&dir), "--no-mods"])).trim(),
        raw.len().to_string()
    );
    let scan = stdout(&colfile(&["scan", s(&dir), "--no-progress"]));
    assert!(
        scan.starts_with(&format!("{{\"rows\":{},", want.len())),
        "{scan}"
    );
    let head = stdout(&colfile(&["head", s(&dir), "-n", "2"]));
    assert_eq!(parse(&head), want[..2]);
    // A partition folder is that partition, both spaces.
    let part = dir.join(SEQ);
    assert_eq!(parse(&stdout(&colfile(&["cat", s(&part)]))), want);
    // --no-merge: each file on its own, t=2 twice.
    let files = stdout(&colfile(&["cat", s(&dir), "--no-merge"]));
    assert_eq!(
        files.lines().filter(|l| l.contains("\"time\":2,")).count(),
        2
    );
    assert_eq!(
        stdout(&colfile(&["count", s(&dir), "--no-merge"]))
            .lines()
            .last()
            .unwrap(),
        "total\t5",
        "2 + 1 (t=11 deleted by its .mods) + 1 + 1"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn csv_over_a_dataset_takes_its_columns_from_columns() {
    let dir = data_dir("csv");
    let o = colfile(&["cat", s(&dir), "--format", "csv"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(o.stdout.is_empty());
    let csv = stdout(&colfile(&[
        "cat",
        s(&dir),
        "--format",
        "csv",
        "--columns",
        "s2,s1",
        "--start",
        "2",
        "--end",
        "5",
    ]));
    assert_eq!(
        csv,
        "device,time,s2,s1\nroot.sg.a1,5,5,\nroot.sg.d1,2,200,-2\n"
    );
    std::fs::remove_dir_all(dir).unwrap();
}
