//! The processes of a Ballista cluster that reads colfile's tables: `colfile-scheduler`
//! and `colfile-executor` are Ballista's scheduler and executor, with Ballista's own
//! command-line flags, whose plan codecs also know colfile's RCFile and TsFile tables and
//! scans ([`colfile_datafusion::cluster`]). Object stores come from the environment as in
//! Ballista's own binaries (`AWS_*` for `s3://`); local paths must be the same on every
//! machine (shared storage).
#![forbid(unsafe_code)]

use tracing_subscriber::EnvFilter;

/// Logs to standard output at `RUST_LOG`'s levels, else at `default`.
pub fn init_logging(default: &str) {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default));
    tracing_subscriber::fmt()
        .with_ansi(false)
        .with_env_filter(filter)
        .init();
}
