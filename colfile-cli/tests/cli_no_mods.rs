//! The reading commands apply IoTDB deletions beside a TsFile (`FILE.mods`, `FILE.mods2`)
//! and `--no-mods` turns them off: cat, head, scan, count and convert on a copy of a shipped
//! fixture with a text `.mods`, each compared with the library's own reading
//! (`TsFileReader::open_path`) and with the file read without deletions.

#[path = "support/run.rs"]
mod run;

use colfile::tsfile::{Query, TsFileReader};
use run::{colfile, stdout, temp_dir};
use std::path::{Path, PathBuf};

/// `tree_basic.tsfile` copied with a `.mods`: `root.sg1.d1.s_i64` loses 1700000000100..200,
/// and every series of `root.x` loses time 1.
fn fixture(tag: &str) -> (PathBuf, PathBuf) {
    let dir = temp_dir(&format!("no-mods-{tag}"));
    let file = dir.join("tree.tsfile");
    let repo = colfile_testkit::repo_root();
    std::fs::copy(repo.join("fixtures/tsfile/tree_basic.tsfile"), &file).unwrap();
    std::fs::write(
        dir.join("tree.tsfile.mods"),
        format!(
            "DELETION,root.sg1.d1.s_i64,{max},1700000000100,1700000000200\nDELETION,root.x.*,{max},1,1\n",
            max = i64::MAX
        ),
    )
    .unwrap();
    (dir, file)
}

/// Rows the library returns: with deletions, or all stored points.
fn library_rows(file: &Path, mods: bool) -> usize {
    let r = TsFileReader::path_builder(file)
        .unwrap()
        .with_mods(mods)
        .build()
        .unwrap();
    r.query(&Query::all())
        .unwrap()
        .map(|b| b.unwrap().len())
        .sum()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn cat_head_count_and_scan_apply_deletions_unless_no_mods() {
    let (dir, file) = fixture("read");
    let (with, without) = (library_rows(&file, true), library_rows(&file, false));
    assert_eq!(
        without - with,
        1,
        "root.x at time 1 goes; d1's row keeps its other series"
    );
    let cat = stdout(&colfile(&["cat", s(&file)]));
    assert_eq!(cat.lines().count(), with);
    assert!(!cat.contains(r#""device":"root.x","time":1,"#), "{cat}");
    let d1: Vec<&str> = cat
        .lines()
        .filter(|l| l.contains("1700000000100"))
        .collect();
    assert!(d1.len() == 1 && d1[0].contains(r#""s_i64":null"#), "{d1:?}");
    let raw = stdout(&colfile(&["cat", s(&file), "--no-mods"]));
    assert_eq!(raw.lines().count(), without);
    assert!(raw.contains(r#""device":"root.x","time":1,"s":1}"#));
    assert_eq!(
        stdout(&colfile(&["count", s(&file)])).trim(),
        with.to_string()
    );
    let n = stdout(&colfile(&["count", s(&file), "--no-mods"]));
    assert_eq!(n.trim(), without.to_string());
    let head = stdout(&colfile(&["head", s(&file), "-n", "1"]));
    assert!(head.contains(r#""time":2"#), "{head}");
    let scan = stdout(&colfile(&["scan", s(&file), "--no-progress"]));
    assert!(scan.contains(&format!("\"rows\":{with},")), "{scan}");
    let scan = stdout(&colfile(&["scan", s(&file), "--no-mods"]));
    assert!(scan.contains(&format!("\"rows\":{without},")), "{scan}");
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn convert_writes_what_remains_after_deletions() {
    let (dir, file) = fixture("convert");
    let out = dir.join("out.tsfile");
    stdout(&colfile(&["convert", s(&file), s(&out)]));
    // The converted file has no .mods: its rows are the deletions' result.
    assert_eq!(library_rows(&out, true), library_rows(&file, true));
    let jsonl = dir.join("raw.jsonl");
    stdout(&colfile(&[
        "convert",
        s(&file),
        s(&jsonl),
        "--no-mods",
        "--no-progress",
    ]));
    let text = std::fs::read_to_string(&jsonl).unwrap();
    assert_eq!(text.lines().count(), library_rows(&file, false));
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_damaged_mods_file_fails_reading_with_its_name() {
    let (dir, file) = fixture("damaged");
    std::fs::write(
        dir.join("tree.tsfile.mods"),
        "DELETION,root.x.s,notanumber,1\nX\n",
    )
    .unwrap();
    let o = colfile(&["cat", s(&file)]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("tree.tsfile.mods"), "{err}");
    assert!(o.stdout.is_empty());
    stdout(&colfile(&["cat", s(&file), "--no-mods"]));
    std::fs::remove_dir_all(dir).unwrap();
}
