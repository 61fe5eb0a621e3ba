//! `colfile head` (the first rows, exactly as `cat --limit N` prints them) and `colfile count`
//! (the rows `cat` prints, one file or several with a total).

use colfile_testkit as common;

use common::{fixtures, schema_text, serde_props};
use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .current_dir(colfile_testkit::repo_root())
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `cat`'s output (which must succeed).
fn cat(args: &[&str]) -> String {
    let mut a = vec!["cat"];
    a.extend_from_slice(args);
    let (code, out, err) = run(&a);
    assert_eq!(code, 0, "{a:?}: {err}");
    out
}

const TS_FIXTURES: &[&str] = &[
    "fixtures/tsfile/basic.tsfile",
    "fixtures/tsfile/tree_basic.tsfile",
    "fixtures/tsfile/multi_page.tsfile",
    "fixtures/tsfile/types_all.tsfile",
];

/// The `--schema`/`--serde` arguments `cat` needs for a typed RCFile fixture.
fn rc_typed_args(name: &str) -> (String, Vec<String>) {
    let f = fixtures().into_iter().find(|f| f.name == name).unwrap();
    let mut a = vec![
        "--schema".to_string(),
        schema_text(&f.dump),
        "--serde".into(),
        f.dump["serde"].as_str().unwrap().to_string(),
    ];
    for (k, v) in serde_props(&f.dump) {
        a.extend(["--serde-prop".to_string(), format!("{k}={v}")]);
    }
    (f.rc.display().to_string(), a)
}

#[test]
fn head_prints_what_cat_limit_prints() {
    for file in TS_FIXTURES {
        // Default 10.
        let (code, out, err) = run(&["head", file]);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(out, cat(&[file, "--limit", "10"]), "{file}");
        for (flag, n) in [("-n", "3"), ("--rows", "25"), ("-n", "0")] {
            let (code, out, err) = run(&["head", file, flag, n]);
            assert_eq!(code, 0, "{file} {flag} {n}: {err}");
            assert_eq!(out, cat(&[file, "--limit", n]), "{file}");
        }
    }
    // Cat's TsFile read options pass through.
    let f = "fixtures/tsfile/basic.tsfile";
    let (_, out, _) = run(&["head", f, "--tag", "city=beijing", "-n", "2"]);
    assert_eq!(out, cat(&[f, "--tag", "city=beijing", "--limit", "2"]));
    let (_, out, _) = run(&["head", f, "--format", "csv", "--rows=4", "--offset", "1"]);
    let expected = cat(&[f, "--format", "csv", "--limit", "4", "--offset", "1"]);
    assert_eq!((out.lines().count(), out), (5, expected));
    // An RCFile with --schema/--serde, default and -n.
    for name in ["multi_group_text", "all_types_binary_gzip"] {
        let (file, typed) = rc_typed_args(name);
        let typed: Vec<&str> = typed.iter().map(String::as_str).collect();
        let mut head = vec!["head", &file];
        head.extend(&typed);
        let mut cat_args = vec![file.as_str()];
        cat_args.extend(&typed);
        let (code, out, err) = run(&head);
        assert_eq!(code, 0, "{name}: {err}");
        let mut limited = cat_args.clone();
        limited.extend(["--limit", "10"]);
        let expected = cat(&limited);
        assert_eq!(out, expected, "{name}");
        assert!(expected.lines().count() <= 10 && !expected.is_empty());
        head.extend(["--rows", "4"]);
        limited.truncate(cat_args.len());
        limited.extend(["--limit", "4"]);
        assert_eq!(run(&head).1, cat(&limited), "{name}");
    }
}

#[test]
fn head_rejects_limit_and_bad_counts() {
    let f = "fixtures/tsfile/basic.tsfile";
    for args in [
        &["head", f, "--limit", "3"][..],
        &["head", f, "-n", "x"],
        &["head", f, "-n"],
        &["head"],
    ] {
        let (code, out, err) = run(args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty() && err.starts_with("colfile: "), "{args:?}");
    }
}

#[test]
fn count_is_the_number_of_rows_cat_prints() {
    let (_, out, err) = run(&["count", "fixtures/tsfile/tree_basic.tsfile"]);
    assert_eq!(out, "292\n", "{err}");
    for file in TS_FIXTURES {
        let (code, out, err) = run(&["count", file]);
        assert_eq!(code, 0, "{file}: {err}");
        assert_eq!(out, format!("{}\n", cat(&[file]).lines().count()), "{file}");
    }
    // --table: the rows cat prints for that table.
    let f = "fixtures/tsfile/basic.tsfile";
    let (_, out, _) = run(&["count", f, "--table", "weather", "--max-alloc", "64M"]);
    let rows = cat(&[f, "--table", "weather"]).lines().count();
    assert_eq!(out, format!("{rows}\n"));
    for f in fixtures()
        .iter()
        .filter(|f| ["multi_group_text", "seq_header_text", "raw_cells"].contains(&f.name.as_str()))
    {
        let file = f.rc.display().to_string();
        let (code, out, err) = run(&["count", &file]);
        assert_eq!(code, 0, "{file}: {err}");
        let expected = f.dump["header"]["row_count"].as_u64().unwrap();
        assert_eq!(out, format!("{expected}\n"), "{file}");
        assert_eq!(cat(&[&file]).lines().count() as u64, expected, "{file}");
    }
}

#[test]
fn count_of_several_files_prints_each_and_a_total() {
    let files = [
        "fixtures/tsfile/basic.tsfile",
        "fixtures/tsfile/tree_basic.tsfile",
        "fixtures/rcfile/multi_group_text.rc",
    ];
    let (code, out, err) = run(&["count", files[0], files[1], files[2]]);
    assert_eq!(code, 0, "{err}");
    let counts: Vec<usize> = files.iter().map(|f| cat(&[f]).lines().count()).collect();
    let mut expected: String = files
        .iter()
        .zip(&counts)
        .map(|(f, n)| format!("{f}\t{n}\n"))
        .collect();
    expected.push_str(&format!("total\t{}\n", counts.iter().sum::<usize>()));
    assert_eq!(out, expected);
    // A directory: every .tsfile under it, in path order, then the total.
    let (code, out, err) = run(&["count", "fixtures/tsfile"]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines.len() > 3, "{out}");
    assert!(
        lines.contains(&"fixtures/tsfile/tree_basic.tsfile\t292"),
        "{out}"
    );
    let sum: u64 = lines[..lines.len() - 1]
        .iter()
        .map(|l| l.rsplit('\t').next().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(lines.last().unwrap(), &format!("total\t{sum}"));
}

#[test]
fn count_of_a_corrupt_file_fails_with_a_located_error() {
    for (bad, what) in [
        (
            "fixtures/bad/rcfile/truncated_mid_row_group.rc",
            "row group 2",
        ),
        (
            "fixtures/bad/tsfile/chunk_header_bad_marker.tsfile",
            "at byte 28",
        ),
    ] {
        for args in [
            vec!["count", bad],
            vec!["count", "fixtures/tsfile/basic.tsfile", bad],
        ] {
            let (code, _, err) = run(&args);
            assert_eq!(code, 1, "{args:?}");
            assert!(
                err.starts_with(&format!("colfile: error: {bad}: ")) && err.contains(what),
                "{args:?}: {err}"
            );
            assert_eq!(err.lines().count(), 1, "{err}");
        }
    }
    let (code, _, err) = run(&["count"]);
    assert_eq!((code, err.contains("missing FILE")), (2, true), "{err}");
}
