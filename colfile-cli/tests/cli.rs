//! The `colfile` binary as scripts use it: `cat` of every Hive fixture prints the dump's rows,
//! `write` of the dump's rows reproduces Hive's bytes, `meta` matches the dump's structure,
//! and bad input is one line on stderr with a non-zero exit.

use colfile_testkit as common;

use colfile::rcfile::{json, Schema};
use common::*;
use serde_json::Value as Json;
use std::io::Write;
use std::process::{Command, Stdio};

fn colfile() -> Command {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
}

/// Runs `cmd` with `input` on its standard input (fed from another thread, so that a
/// command that stops reading early cannot block it), capturing its output.
fn run_with_stdin(cmd: &mut Command, input: String) -> std::process::Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let feed = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    feed.join().unwrap();
    out
}

fn schema_of(dump: &Json) -> String {
    schema_text(dump)
}

fn serde_args(dump: &Json) -> Vec<String> {
    let serde = dump["serde"].as_str().unwrap().to_string();
    let mut a = vec!["--serde".to_string(), serde.clone()];
    for (k, v) in serde_props(dump) {
        a.push("--serde-prop".into());
        a.push(format!("{k}={v}"));
    }
    if serde == "binary" {
        // Hive 2.3 (the oracle) counts days in the hybrid Julian/Gregorian calendar.
        a.extend(["--calendar".into(), "hybrid".into()]);
    }
    a
}

fn typed_fixtures() -> Vec<Fixture> {
    fixtures()
        .into_iter()
        .filter(|f| f.dump["serde"].is_string() && f.dump["serde"] != "raw")
        .collect()
}

#[test]
fn cat_prints_every_fixture_as_hive_reads_it() {
    for f in typed_fixtures() {
        let schema_text = schema_of(&f.dump);
        let schema: Schema = schema_text.parse().unwrap();
        let out = colfile()
            .arg("cat")
            .arg(&f.rc)
            .args(["--schema", &schema_text])
            .args(serde_args(&f.dump))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.name,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let want = f.dump["rows"].as_array().unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), want.len(), "{}: row count", f.name);
        for (i, (line, w)) in lines.iter().zip(want).enumerate() {
            let got: Json = serde_json::from_str(line).unwrap();
            let obj = got.as_object().unwrap();
            let names: Vec<&String> = obj.keys().collect();
            let schema_names: Vec<&String> = schema.columns().iter().map(|c| &c.name).collect();
            assert_eq!(names, schema_names, "{}: keys in schema order", f.name);
            for (c, col) in schema.columns().iter().enumerate() {
                let a = json::from_json(&col.ty, &obj[&col.name]).unwrap();
                let b = json::from_json(&col.ty, &w[c]).unwrap();
                assert!(
                    a.same_as(&b),
                    "{} row {i} col {}: got {} want {}",
                    f.name,
                    col.name,
                    obj[&col.name],
                    w[c]
                );
            }
        }
    }
}

#[test]
fn cat_projects_columns_limits_and_writes_csv() {
    let f = fixtures()
        .into_iter()
        .find(|f| f.name == "multi_group_text")
        .unwrap();
    let out = colfile()
        .arg("cat")
        .arg(&f.rc)
        .args([
            "--schema",
            &schema_of(&f.dump),
            "--serde",
            "text",
            "--columns",
            "txt,id",
            "--limit",
            "3",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().count(), 3);
    let first: Json = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let keys: Vec<&String> = first.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["id", "txt"], "schema order, not --columns order");
    assert_eq!(first["id"], f.dump["rows"][0][0]);
    let out = colfile()
        .arg("cat")
        .arg(&f.rc)
        .args([
            "--schema",
            &schema_of(&f.dump),
            "--serde",
            "text",
            "--format",
            "csv",
            "--limit",
            "2",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.lines().next().unwrap(), "id,same,grp,txt");
    assert_eq!(text.lines().count(), 3);
}

#[test]
fn write_reproduces_hive_files_byte_for_byte() {
    let dir = std::env::temp_dir().join(format!("colfile-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut identical = 0;
    for f in typed_fixtures() {
        if f.name.starts_with("spark_") || !f.dump["header"]["codec"].is_null() {
            continue;
        }
        let spec = f.spec.as_ref().unwrap();
        let h = &f.dump["header"];
        let out = dir.join(format!("{}.rc", f.name));
        let mut cmd = colfile();
        cmd.arg("write").arg(&out).args([
            "--format",
            "rcfile",
            "--schema",
            &schema_of(&f.dump),
            "--codec",
            "none",
        ]);
        cmd.args(serde_args(&f.dump));
        cmd.args(["--sync", h["sync"].as_str().unwrap()]);
        if let Some(n) = spec["row_group_rows"].as_u64() {
            cmd.args(["--row-group-rows", &n.to_string()]);
        }
        if let Some(n) = spec["row_group_bytes"].as_u64() {
            cmd.args(["--row-group-bytes", &n.to_string()]);
        }
        if h["magic"] == "SEQ" {
            cmd.arg("--seq-header");
        }
        for (k, v) in h["metadata"].as_object().unwrap() {
            if k != "hive.io.rcfile.column.number" {
                cmd.args(["--meta", &format!("{k}={}", v.as_str().unwrap())]);
            }
        }
        // Hive's canonical rows (its own read-back) usually rewrite to the same bytes; where
        // Hive's writer normalizes its input (decimals that overflow, text dates in the 1582
        // gap) only the spec's original input rows do. One of the two must reproduce the file.
        let theirs = std::fs::read(&f.rc).unwrap();
        let dump_rows = f.dump["rows"].as_array().unwrap().clone();
        let spec_rows = spec["rows"]
            .as_array()
            .cloned()
            .filter(|r| r.len() == dump_rows.len() && spec.get("generate").is_none());
        let mut tried = Vec::new();
        for rows in std::iter::once(dump_rows).chain(spec_rows) {
            let mut child = Command::new(env!("CARGO_BIN_EXE_colfile"));
            child.args(cmd.get_args()).arg("--validate");
            let input: String = rows.iter().map(|r| format!("{r}\n")).collect();
            let res = run_with_stdin(&mut child, input);
            assert!(
                res.status.success(),
                "{}: {}",
                f.name,
                String::from_utf8_lossy(&res.stderr)
            );
            let ours = std::fs::read(&out).unwrap();
            tried.push(ours.len());
            if ours == theirs {
                break;
            }
        }
        let ours = std::fs::read(&out).unwrap();
        assert!(
            ours == theirs,
            "{}: colfile write differs from Hive's file ({tried:?} vs {} bytes)",
            f.name,
            theirs.len()
        );
        identical += 1;
    }
    std::fs::remove_dir_all(&dir).ok();
    assert!(identical >= 8, "only {identical} fixtures compared");
}

#[test]
fn meta_matches_the_dump_structure() {
    for f in fixtures() {
        let out = colfile().arg("meta").arg(&f.rc).output().unwrap();
        assert!(out.status.success(), "{}", f.name);
        let m: Json = serde_json::from_slice(&out.stdout).unwrap();
        for key in [
            "magic",
            "version",
            "compressed",
            "codec",
            "metadata",
            "column_count",
            "header_length",
            "sync",
            "file_length",
            "row_group_count",
            "row_count",
            "rows_per_group",
        ] {
            assert_eq!(
                m["header"][key], f.dump["header"][key],
                "{}: header.{key}",
                f.name
            );
        }
        let mut want = f.dump["row_groups"].clone();
        for g in want.as_array_mut().unwrap() {
            for c in g["columns"].as_array_mut().unwrap() {
                c.as_object_mut().unwrap().remove("cells"); // raw dumps list cells too
            }
        }
        assert_eq!(m["row_groups"], want, "{}: row groups", f.name);
    }
}

#[test]
fn scan_prints_a_summary_line() {
    let f = fixtures()
        .into_iter()
        .find(|f| f.name == "all_types_binary_snappy")
        .unwrap();
    for extra in [&[][..], &["--raw"][..]] {
        let out = colfile()
            .arg("scan")
            .arg(&f.rc)
            .args(["--schema", &schema_of(&f.dump)])
            .args(serde_args(&f.dump))
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        let s: Json = serde_json::from_str(text.lines().last().unwrap()).unwrap();
        assert_eq!(s["rows"], 65);
        assert_eq!(s["values"], 65 * 20);
        assert_eq!(s["bytes"], f.dump["header"]["file_length"]);
        assert!(s["seconds"].as_f64().unwrap() >= 0.0);
    }
}

#[test]
fn bad_input_is_one_line_and_nonzero() {
    let dir = std::env::temp_dir().join(format!("colfile-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let junk = dir.join("junk.rc");
    std::fs::write(&junk, b"PAR1 not an rcfile").unwrap();
    let f = fixtures()
        .into_iter()
        .find(|f| f.name == "multi_group_text")
        .unwrap();
    let bytes = std::fs::read(&f.rc).unwrap();
    let cut = dir.join("cut.rc");
    std::fs::write(&cut, &bytes[..bytes.len() - 100]).unwrap();
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["cat".into(), junk.display().to_string()],
            "unknown file format: magic bytes 0x50415231206e (\"PAR1 n\"), expected \"RCF\", \"SEQ\" or \"TsFile\"",
        ),
        (
            vec!["meta".into(), cut.display().to_string()],
            "truncated row group",
        ),
        (
            vec![
                "cat".into(),
                cut.display().to_string(),
                "--serde".into(),
                "text".into(),
            ],
            "truncated row group",
        ),
        (
            vec!["cat".into(), dir.join("missing.rc").display().to_string()],
            "No such file",
        ),
        (
            vec![
                "cat".into(),
                f.rc.display().to_string(),
                "--schema".into(),
                "a:notatype".into(),
            ],
            "unknown type",
        ),
        (
            vec![
                "cat".into(),
                f.rc.display().to_string(),
                "--columns".into(),
                "nope".into(),
                "--schema".into(),
                "a:int".into(),
            ],
            "no column named",
        ),
    ];
    for (args, needle) in cases {
        let out = colfile().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        // One error line (after the no --schema warning, for cat without --schema).
        let errors = err
            .lines()
            .filter(|l| !l.starts_with("colfile: warning: no --schema"));
        assert_eq!(errors.count(), 1, "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
    }
    let out = colfile().args(["cat"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = colfile().args(["frobnicate"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    // write: a bad input line names the line and leaves no output file behind.
    let target = dir.join("out.rc");
    let mut child = colfile()
        .arg("write")
        .arg(&target)
        .args([
            "--format", "rcfile", "--schema", "a:int", "--serde", "binary", "--codec", "none",
        ])
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"[1]\n[\"x\"]\n")
        .unwrap();
    let res = child.wait_with_output().unwrap();
    assert_eq!(res.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&res.stderr).contains("input line 2"));
    assert!(!target.exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// `colfile sql` runs `colfile-sql` (here a stand-in script named by `COLFILE_SQL`) with the
/// same arguments and passes its exit code on; without it, one line says how to build it.
#[test]
fn sql_runs_colfile_sql_with_the_same_arguments() {
    let dir = std::env::temp_dir().join(format!("colfile-sql-stub-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let stub = dir.join("colfile-sql");
    std::fs::write(&stub, "#!/bin/sh\nprintf '%s|' \"$@\"\nexit 3\n").unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let out = colfile()
        .args(["sql", "SELECT 1", "t=data/", "--format", "csv"])
        .env("COLFILE_SQL", &stub)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "SELECT 1|t=data/|--format|csv|"
    );
    assert_eq!(out.status.code(), Some(3));
    let missing = colfile()
        .args(["sql", "SELECT 1", "x"])
        .env("COLFILE_SQL", dir.join("absent"))
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(
        err.contains("cargo build --release -p colfile-datafusion"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--max-alloc` and friends tighten the reader's limits: a normal file fails with a
/// LimitExceeded message and the data-error exit code; a bad value is a usage error; the
/// help lists them.
#[test]
fn limit_flags_tighten_the_readers_limits() {
    let file = common::fixtures_dir().join("multi_group_text.rc");
    let run = |args: &[&str]| colfile().args(args).arg(&file).output().unwrap();
    for cmd in ["cat", "scan"] {
        let ok = run(&[cmd, "--max-row-group-bytes", "1G", "--max-alloc", "64M"]);
        assert!(ok.status.success(), "{cmd}: {ok:?}");
        let out = run(&[cmd, "--max-row-group-bytes", "1K"]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{cmd}: {err}");
        assert!(
            err.contains("row group decoded size is") && err.contains("above the limit of 1024"),
            "{cmd}: {err}"
        );
        assert!(err.contains("row group 0"), "{cmd}: {err}");
    }
    let out = run(&["cat", "--max-alloc", "16"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("above the limit of 16"), "{err}");
    let out = run(&["cat", "--max-alloc", "lots"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--max-alloc wants a number"));
    let help = colfile().arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    for flag in [
        "--max-alloc",
        "--max-decompressed",
        "--max-row-group-bytes",
        "--max-chunk-points",
    ] {
        assert!(help.contains(flag), "{flag} not in the help");
    }
}

/// Runs `colfile args...` and returns (exit code, stdout, stderr).
fn run_colfile(args: &[&str]) -> (i32, String, String) {
    let out = colfile()
        .args(args)
        .env("COLFILE_SQL", "/nonexistent/colfile-sql")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Every command, its usage line and a few of its flags that its help must explain.
const HELP_CASES: &[(&str, &str, &[&str])] = &[
    (
        "cat",
        "colfile cat FILE",
        &[
            "--schema",
            "--schema @FILE",
            "CREATE TABLE",
            "--delimiter",
            "--quote",
            "--no-header",
            "--null",
            "--serde",
            "--columns",
            "--format",
            "--limit",
            "--offset",
            "--table",
            "--where",
            "--tag",
            "--explain",
            "--max-alloc",
            "--max-decompressed",
            "--max-row-group-bytes",
            "--max-chunk-points",
        ],
    ),
    (
        "scan",
        "colfile scan FILE",
        &[
            "--schema",
            "--raw",
            "--threads",
            "--where",
            "--max-alloc",
            "--max-chunk-points",
            "--progress",
            "--no-progress",
        ],
    ),
    ("meta", "colfile meta FILE", &["--help"]),
    (
        "schema",
        "colfile schema FILE",
        &["--help", "--format json|ddl"],
    ),
    (
        "write",
        "colfile write OUT",
        &[
            "--format",
            "--schema",
            "--serde",
            "--codec",
            "--input",
            "--fsync",
            "--table",
            "--device",
            "--spec",
            "--from",
            "--profile",
            "--sync",
            "--row-group-rows",
            "--progress",
            "--no-progress",
        ],
    ),
    (
        "recover",
        "colfile recover IN OUT",
        &[
            "--schema-from",
            "--max-alloc",
            "--max-decompressed",
            "--max-chunk-points",
            "--progress",
            "--no-progress",
        ],
    ),
    (
        "head",
        "colfile head FILE",
        &[
            "-n N",
            "--rows",
            "--delimiter",
            "--no-header",
            "--null",
            "--schema",
            "--serde",
            "--format",
            "--table",
            "--max-alloc",
        ],
    ),
    (
        "count",
        "colfile count FILE",
        &["--table", "--max-alloc", "--max-row-group-bytes", "total"],
    ),
    ("sketch", "colfile sketch FILE", &["--format"]),
    (
        "mods",
        "colfile mods FILE.tsfile",
        &["file_offset", ".mods2"],
    ),
    (
        "verify",
        "colfile verify FILE",
        &[
            "--max-problems",
            "--max-alloc",
            "--max-row-group-bytes",
            "--max-chunk-points",
            "--progress",
            "--no-progress",
        ],
    ),
    (
        "convert",
        "colfile convert IN OUT",
        &[
            "--from",
            "--to",
            "--delimiter",
            "--quote",
            "--no-header",
            "--null",
            "--schema",
            "--out-schema",
            "--codec",
            "--tags",
            "--time-as",
            "--progress",
            "--no-progress",
            "--fsync",
        ],
    ),
    (
        "completions",
        "colfile completions bash|zsh|fish",
        &["bash", "zsh", "fish"],
    ),
    ("man", "colfile man", &["roff"]),
    (
        "sql",
        "colfile sql 'SELECT ...'",
        &[
            "--trust-statistics",
            "--explain",
            "--format",
            "--table",
            "path prefix",
            "--progress",
            "--no-progress",
        ],
    ),
];

#[test]
fn every_command_explains_itself_with_help() {
    for (cmd, usage, flags) in HELP_CASES {
        let (code, help, err) = run_colfile(&[cmd, "--help"]);
        assert_eq!(code, 0, "{cmd} --help: {err}");
        assert!(err.is_empty(), "{cmd} --help wrote to stderr: {err}");
        assert!(
            help.starts_with(&format!("colfile {cmd}: ")),
            "{cmd}: {help}"
        );
        assert!(
            help.contains("usage:") && help.contains(usage),
            "{cmd}: {help}"
        );
        let examples = help.split("\nexamples:\n").nth(1).unwrap_or("");
        assert!(
            examples.contains(&format!("colfile {cmd} ")),
            "{cmd}: {help}"
        );
        for flag in *flags {
            assert!(
                help.contains(flag),
                "{cmd} --help does not mention {flag}:\n{help}"
            );
        }
        // -h, anywhere among the arguments, and `help CMD` print the same text.
        for args in [
            vec![*cmd, "-h"],
            vec![*cmd, "fixtures/tsfile/basic.tsfile", "--bogus", "-h"],
            vec!["help", *cmd],
        ] {
            let (code, out, err) = run_colfile(&args);
            assert_eq!((code, out.as_str()), (0, help.as_str()), "{args:?}: {err}");
        }
    }
}

#[test]
fn overall_help_lists_every_command_and_unknown_ones_fail() {
    let (code, usage, _) = run_colfile(&["--help"]);
    assert_eq!(code, 0);
    assert!(usage.starts_with("usage: colfile <command> [options]"));
    for (cmd, _, _) in HELP_CASES {
        assert!(
            usage.contains(&format!("\n  {cmd} ")),
            "{cmd} missing:\n{usage}"
        );
    }
    assert_eq!(run_colfile(&["-h"]), (0, usage.clone(), String::new()));
    assert_eq!(run_colfile(&["help"]), (0, usage, String::new()));
    for args in [
        &["frobnicate"][..],
        &["frobnicate", "--help"],
        &["help", "frobnicate"],
    ] {
        let (code, out, err) = run_colfile(args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            out.is_empty() && err.contains("unknown command"),
            "{args:?}: {err}"
        );
    }
}

/// The examples in every help (but `sql`'s, which need colfile-sql) run as shown, from the
/// repository root, with `/tmp/` standing for a scratch directory.
#[test]
fn help_examples_run() {
    let dir = std::env::temp_dir().join(format!("colfile-help-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bin_dir = std::path::Path::new(env!("CARGO_BIN_EXE_colfile"))
        .parent()
        .unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_path_buf()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    for (cmd, _, _) in HELP_CASES.iter().filter(|c| c.0 != "sql") {
        let (_, help, _) = run_colfile(&[cmd, "--help"]);
        let examples = help.split("\nexamples:\n").nth(1).unwrap();
        assert!(examples.lines().count() >= 2, "{cmd}: {examples}");
        for line in examples.lines() {
            let line = line.trim().replace("/tmp/", &format!("{}/", dir.display()));
            let out = Command::new("sh")
                .args(["-c", &line])
                .current_dir(colfile_testkit::repo_root())
                .env("PATH", &path)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{line}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// JSON lines are parsed on several threads: a bad line deep in the input is still the one
/// reported (by its number), the rows before it decide nothing, and no file is left behind;
/// good input of many batches comes out in input order.
#[test]
fn write_reports_the_first_bad_line_of_a_long_input() {
    let dir = std::env::temp_dir().join(format!("colfile-long-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("t.rc");
    let rows = |n: usize| {
        (0..n)
            .map(|i| format!("{{\"id\": {i}, \"name\": \"n{i}\"}}\n"))
            .collect::<String>()
    };
    let run = |input: String| {
        let mut c = colfile();
        c.args(["write", out.to_str().unwrap(), "--format", "rcfile"])
            .args(["--schema", "id:bigint,name:string", "--serde", "binary"]);
        run_with_stdin(&mut c, input)
    };
    let mut input = rows(20_000);
    input.push_str("\n{\"id\": \"x\"}\n");
    input.push_str(&rows(50_000));
    let o = run(input);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("input line 20002:"), "{err}");
    assert!(!out.exists());
    let o = run(rows(30_000));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let cat = colfile()
        .args([
            "cat",
            out.to_str().unwrap(),
            "--schema",
            "id:bigint,name:string",
        ])
        .args(["--serde", "binary"])
        .output()
        .unwrap();
    let text = String::from_utf8(cat.stdout).unwrap();
    assert_eq!(text, rows(30_000).replace(": ", ":").replace(", ", ","));
    std::fs::remove_dir_all(&dir).ok();
}
