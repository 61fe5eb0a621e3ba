//! Running the `colfile` binary from a test: its output, its stdout when it succeeds, and a
//! fresh temporary folder.

use std::path::PathBuf;
use std::process::{Command, Output};

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
