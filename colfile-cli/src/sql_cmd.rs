//! `colfile sql 'SELECT ...' FILES...`: runs `colfile-sql`, the DataFusion build of the CLI
//! (workspace crate `colfile-datafusion`), with the same arguments. Keeping DataFusion in
//! its own binary keeps it out of the core crate's build; `colfile sql` runs the program
//! named by `COLFILE_SQL` if set, else finds it next to this executable, then on `PATH`.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::Command;

use crate::Failure;

const NAME: &str = "colfile-sql";

/// Runs `colfile-sql` with `args` and exits with its exit code. `--progress` and
/// `--no-progress` (before a `--`) are this command's own: they say whether to show the
/// query's elapsed time on stderr (default: when stderr is a terminal).
pub fn sql(args: Vec<OsString>) -> Result<(), Failure> {
    let mut forced = None;
    let mut rest = Vec::with_capacity(args.len());
    let mut options = true;
    for a in args {
        match a.to_str() {
            Some("--") => {
                options = false;
                rest.push(a);
            }
            Some("--progress") if options => forced = Some(true),
            Some("--no-progress") if options => forced = Some(false),
            _ => rest.push(a),
        }
    }
    let mut progress = crate::progress::Progress::new(forced, None);
    let exe = locate().ok_or_else(|| Failure {
        code: 1,
        message: format!(
            "`colfile sql` needs {NAME}, the DataFusion build: \
             cargo build --release -p colfile-datafusion (it lands next to colfile)"
        ),
    })?;
    progress.note(&format!("running {NAME}"));
    let status = Command::new(&exe)
        .args(rest)
        .status()
        .map_err(|e| Failure {
            code: 1,
            message: format!("{}: {e}", exe.display()),
        })?;
    match status.code() {
        Some(0) => {
            progress.finish_with(&format!("ran {NAME}"));
            Ok(())
        }
        // colfile-sql has printed its own message; pass its exit code on.
        code => {
            progress.abandon();
            std::process::exit(code.unwrap_or(1))
        }
    }
}

/// `$COLFILE_SQL`, `colfile-sql` beside this executable, or the first one on `PATH`.
fn locate() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("COLFILE_SQL") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    let file = format!("{NAME}{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|p| p.parent().map(|d| d.join(&file)));
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .map(|d| d.join(&file));
    beside.into_iter().chain(on_path).find(|p| p.is_file())
}
