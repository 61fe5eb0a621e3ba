//! Several files at once: `cat`, `head`, `scan`, `verify` and `count` take several FILE
//! arguments and directories (their `.rc`/`.rcfile`/`.tsfile` files, recursively, in name
//! order, skipping `.x` and `_SUCCESS`); `cat`/`head` concatenate rows, `scan`/`verify`
//! report per file and a total. Checked against the same commands on each file alone.

use colfile_testkit as common;
use std::path::{Path, PathBuf};
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .current_dir(common::repo_root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ok(args: &[&str]) -> String {
    let (code, out, err) = run(args);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

const TS: &str = "fixtures/tsfile/basic.tsfile";
const TREE: &str = "fixtures/tsfile/tree_basic.tsfile";
const PAGES: &str = "fixtures/tsfile/multi_page.tsfile";

/// A directory of fixture copies: `a.tsfile` (basic), `b.tsfile` (tree_basic) and
/// `sub/c.tsfile` (multi_page), with files a directory must skip beside them.
fn table_dir(name: &str) -> (PathBuf, Vec<&'static str>) {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_multi")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::create_dir_all(d.join("_temporary")).unwrap();
    let root = common::repo_root();
    for (from, to) in [
        (TS, "a.tsfile"),
        (TREE, "b.tsfile"),
        (PAGES, "sub/c.tsfile"),
        // Skipped: dot files, Hive's _ names, other extensions.
        (TS, ".a.tsfile"),
        (TS, "_temporary/x.tsfile"),
        (TS, "notes.txt"),
    ] {
        std::fs::copy(root.join(from), d.join(to)).unwrap();
    }
    std::fs::write(d.join("_SUCCESS"), "").unwrap();
    (d, vec![TS, TREE, PAGES])
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn cat_and_head_concatenate_rows_in_name_order() {
    let (dir, files) = table_dir("cat");
    let each: String = files.iter().map(|f| ok(&["cat", f])).collect();
    assert_eq!(ok(&["cat", s(&dir)]), each);
    assert_eq!(ok(&["cat", files[0], files[1], files[2]]), each);
    let first: String = each.lines().take(12).map(|l| format!("{l}\n")).collect();
    assert_eq!(ok(&["cat", s(&dir), "--limit", "12"]), first);
    assert_eq!(ok(&["head", s(&dir), "-n", "12"]), first);
    assert_eq!(ok(&["head", files[0], files[1], "--rows", "12"]), first);
    let ten: String = each.lines().take(10).map(|l| format!("{l}\n")).collect();
    assert_eq!(ok(&["head", s(&dir)]), ten);
}

#[test]
fn cat_csv_has_one_header() {
    let one = ok(&["cat", TS, "--format", "csv"]);
    let body = one.split_once('\n').unwrap().1;
    assert_eq!(
        ok(&["cat", TS, TS, "--format", "csv"]),
        format!("{one}{body}")
    );
    // The limit counts rows over all files: 13 = 10 of the first and 3 of the second.
    let head: String = body.lines().take(3).map(|l| format!("{l}\n")).collect();
    assert_eq!(
        ok(&["head", TS, TS, "-n", "13", "--format", "csv"]),
        format!("{one}{head}")
    );
}

#[test]
fn rcfile_directories_read_with_the_same_schema() {
    let f = common::fixtures()
        .into_iter()
        .find(|f| f.name == "all_types_text_none")
        .unwrap();
    let schema = common::schema_text(&f.dump);
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_multi")
        .join("rc");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(&f.rc, d.join("part-0.rc")).unwrap();
    std::fs::copy(&f.rc, d.join("part-1.rcfile")).unwrap();
    let args = [
        "--schema",
        schema.as_str(),
        "--serde",
        "text",
        "--columns",
        "i,s",
    ];
    let one = ok(&[&["cat", s(&f.rc)][..], &args].concat());
    assert!(one.lines().count() > 10);
    assert_eq!(
        ok(&[&["cat", s(&d)][..], &args].concat()),
        format!("{one}{one}")
    );
}

/// `scan`'s summary as (rows, values, bytes).
fn scanned(json: &str) -> (u64, u64, u64) {
    let j: serde_json::Value = serde_json::from_str(json).unwrap();
    let n = |k: &str| j[k].as_u64().unwrap();
    (n("rows"), n("values"), n("bytes"))
}

#[test]
fn scan_reports_each_file_and_a_total() {
    let (dir, files) = table_dir("scan");
    let out = ok(&["scan", s(&dir)]);
    let lines: Vec<(&str, &str)> = out.lines().map(|l| l.split_once('\t').unwrap()).collect();
    let names: Vec<String> = ["a.tsfile", "b.tsfile", "sub/c.tsfile"]
        .iter()
        .map(|n| dir.join(n).display().to_string())
        .chain(["total".to_string()])
        .collect();
    assert_eq!(lines.iter().map(|l| l.0).collect::<Vec<_>>(), names);
    let mut sum = (0, 0, 0);
    for (f, (_, json)) in files.iter().zip(&lines) {
        let alone = scanned(ok(&["scan", f]).trim());
        assert_eq!(scanned(json), alone, "{f}");
        sum = (sum.0 + alone.0, sum.1 + alone.1, sum.2 + alone.2);
    }
    assert_eq!(scanned(lines[3].1), sum);
}

#[test]
fn verify_reports_each_file_and_a_total() {
    let (dir, files) = table_dir("verify");
    let out = ok(&["verify", s(&dir)]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 4, "{out}");
    for (line, (f, name)) in
        lines
            .iter()
            .zip(files.iter().zip(["a.tsfile", "b.tsfile", "sub/c.tsfile"]))
    {
        let alone = ok(&["verify", f]);
        let summary = alone.trim().split_once(": ").unwrap().1;
        assert_eq!(*line, format!("{}: {summary}", dir.join(name).display()));
    }
    assert_eq!(lines[3], "total: 3 file(s), 3 sound, 0 with problems");
    // A bad file is reported and counted; the others are still verified; exit code 1.
    let bad = "fixtures/bad/tsfile/chunk_header_bad_marker.tsfile";
    let (code, out, err) = run(&["verify", bad, TS]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.lines().any(|l| l.starts_with(&format!("{bad}: "))),
        "{out}"
    );
    assert!(out.contains(&format!("{TS}: OK")), "{out}");
    assert!(
        out.ends_with("total: 2 file(s), 1 sound, 1 with problems\n"),
        "{out}"
    );
    assert!(err.contains(bad), "{err}");
}

#[test]
fn count_skips_hidden_and_underscore_names() {
    let (dir, files) = table_dir("count");
    let n: Vec<u64> = files
        .iter()
        .map(|f| ok(&["count", f]).trim().parse().unwrap())
        .collect();
    let want = format!(
        "{}\t{}\n{}\t{}\n{}\t{}\ntotal\t{}\n",
        dir.join("a.tsfile").display(),
        n[0],
        dir.join("b.tsfile").display(),
        n[1],
        dir.join("sub/c.tsfile").display(),
        n[2],
        n.iter().sum::<u64>()
    );
    assert_eq!(ok(&["count", s(&dir)]), want);
}
