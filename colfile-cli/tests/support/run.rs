//! Running the `colfile` binary (or any program) from a test: its output, with `input` on
//! stdin, its stdout when it succeeds, and a fresh temporary folder.
#![allow(dead_code)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

/// Runs `colfile ARGS`.
pub fn colfile(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .output()
        .unwrap()
}

/// The stdout of a run that must have succeeded (else its stderr is the panic message).
pub fn stdout(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A temporary folder of this test process, named for `tag`.
pub fn temp_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cmd` with `input` on its stdin and its stdout and stderr captured; `Err` when the
/// program cannot be started.
pub fn with_stdin(cmd: &mut Command, input: &str) -> std::io::Result<Output> {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()?;
    child.stdin.take().unwrap().write_all(input.as_bytes())?;
    child.wait_with_output()
}
