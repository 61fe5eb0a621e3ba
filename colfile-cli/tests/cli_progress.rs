//! `--progress` and `--no-progress` on the long commands (write, scan, verify, recover,
//! convert, sql): with `--progress` the progress lines and the summary go to stderr and
//! stdout is what it is without; without a flag (stderr is a pipe here, not a terminal)
//! and with `--no-progress`, stderr stays empty.

use std::path::{Path, PathBuf};
use std::process::Command;

#[path = "support/run.rs"]
mod run;

/// A fresh directory for one test's files.
fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_progress")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs colfile from the repository root with `input` on stdin: (exit code, stdout, stderr).
fn run(args: &[&str], input: &str, env: &[(&str, &Path)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_colfile"));
    cmd.args(args).current_dir(colfile_testkit::repo_root());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = run::with_stdin(&mut cmd, input).unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// `text` without the timings that change from run to run (`"seconds":S`).
fn untimed(text: &str) -> String {
    text.lines()
        .map(|l| match l.find("\"seconds\":") {
            Some(i) => format!("{}}}", &l[..i]),
            None => l.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Runs `args` three ways (no flag, `--no-progress`, `--progress`); checks stdout is the
/// same each time, stderr empty but with `--progress`, and returns that stderr.
fn check(args: &[&str], input: &str, env: &[(&str, &Path)], before_each: &dyn Fn()) -> String {
    before_each();
    let (code, plain, err) = run(args, input, env);
    assert_eq!(code, 0, "{args:?}: {err}");
    assert_eq!(err, "", "{args:?} without a flag, stderr not a terminal");
    before_each();
    let with = |flag: &'static str| [args, &[flag]].concat();
    let (code, quiet, err) = run(&with("--no-progress"), input, env);
    assert_eq!((code, err.as_str()), (0, ""), "{args:?} --no-progress");
    assert_eq!(untimed(&quiet), untimed(&plain));
    before_each();
    let (code, shown, err) = run(&with("--progress"), input, env);
    assert_eq!(code, 0, "{args:?} --progress: {err}");
    assert_eq!(untimed(&shown), untimed(&plain), "{args:?}: stdout changed");
    err
}

/// The last stderr line, which must read `WHAT in S s`.
fn summary<'a>(err: &'a str, what: &str) -> &'a str {
    let last = err.lines().last().unwrap_or("");
    let rest = last
        .strip_prefix(what)
        .and_then(|r| r.strip_prefix(" in "))
        .and_then(|r| r.strip_suffix(" s"))
        .unwrap_or_else(|| panic!("want {what:?} in S s, got {err:?}"));
    assert!(rest.parse::<f64>().is_ok(), "{last}");
    last
}

const TS: &str = "fixtures/tsfile/basic.tsfile";
const TREE: &str = "fixtures/tsfile/tree_basic.tsfile";

#[test]
fn scan_shows_rows_read() {
    let err = check(&["scan", TS], "", &[], &|| {});
    summary(&err, "scanned 10 rows");
    assert!(
        err.lines().count() >= 2,
        "a progress line before the summary: {err}"
    );
    let err = check(&["scan", TS, TREE], "", &[], &|| {});
    assert!(
        err.contains(&format!("scanning {TREE} (2 of 2)\n")),
        "{err}"
    );
    summary(&err, "scanned 302 rows");
}

#[test]
fn verify_shows_each_file() {
    let err = check(&["verify", TS, TREE], "", &[], &|| {});
    assert!(err.starts_with(&format!(
        "verifying {TS} (1 of 2)\nverifying {TREE} (2 of 2)\n"
    )));
    summary(&err, "verified 2 file(s)");
}

#[test]
fn write_counts_input_lines() {
    let dir = tmp("write");
    let out = dir.join("t.rc");
    let out_s = out.to_str().unwrap();
    let rows: String = (0..1000).map(|i| format!("{{\"a\":{i}}}\n")).collect();
    let rm = || {
        let _ = std::fs::remove_file(&out);
    };
    let err = check(&["write", out_s, "--schema", "a:int"], &rows, &[], &rm);
    summary(&err, "wrote 1000 rows");
    assert!(err.lines().next().unwrap().ends_with(" rows/s"), "{err}");
    // From --input, with the percent of the file read.
    let input = dir.join("in.jsonl");
    std::fs::write(&input, &rows).unwrap();
    let args = [
        "write",
        out_s,
        "--schema",
        "a:int",
        "--input",
        input.to_str().unwrap(),
    ];
    let err = check(&args, "", &[], &rm);
    assert!(err.lines().next().unwrap().contains("% "), "{err}");
    summary(&err, "wrote 1000 rows");
}

#[test]
fn recover_and_convert_show_their_work() {
    let dir = tmp("recover");
    let out = dir.join("r.tsfile");
    let out_s = out.to_str().unwrap();
    let bad = "fixtures/bad/tsfile/truncated_mid_chunk.tsfile";
    let err = check(&["recover", bad, out_s], "", &[], &|| {});
    assert!(err.starts_with(&format!("recovering {bad}\n")), "{err}");
    summary(&err, &format!("recovered {out_s}"));
    let csv = dir.join("b.csv");
    let err = check(&["convert", TS, csv.to_str().unwrap()], "", &[], &|| {});
    summary(&err, "converted 10 rows");
}

#[test]
fn sql_times_the_query() {
    let dir = tmp("sql");
    // A stand-in for colfile-sql that prints the arguments it gets.
    let fake = dir.join("fake-sql");
    std::fs::write(&fake, "#!/bin/sh\necho \"$@\"\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let env = [("COLFILE_SQL", fake.as_path())];
    let err = check(&["sql", "SELECT 1", TS], "", &env, &|| {});
    assert!(err.starts_with("running colfile-sql\n"), "{err}");
    summary(&err, "ran colfile-sql");
    // The flags are colfile's: colfile-sql never sees them.
    let (_, out, _) = run(&["sql", "SELECT 1", "--progress", TS], "", &env);
    assert_eq!(out, format!("SELECT 1 {TS}\n"));
}
