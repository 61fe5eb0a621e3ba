//! Running the `colfile-sql` binary from a test.

/// The CSV that `colfile-sql ARGS... --format csv EXTRA...` prints; panics with its stderr
/// when it fails.
pub fn csv(args: &[&str], extra: &[&str]) -> String {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_colfile-sql"))
        .args(args)
        .args(["--format", "csv"])
        .args(extra)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}
