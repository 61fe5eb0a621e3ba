//! Several files at once: `cat`, `head`, `scan` (and `count`, `verify`) take FILE and DIR
//! arguments. A directory stands for its data files (`.rc`, `.rcfile`, `.tsfile`), found
//! recursively in name order, skipping names that start with `.` or `_` (Hive's
//! `_SUCCESS`, `_temporary`, editors' dot files). `cat` and `head` print the files' rows one
//! after the other (one CSV header, `--limit`/`-n` over them all); `scan` prints a line per
//! file and a total.

use crate::args::ReadArgs;
use crate::progress::Progress;
use crate::read_cmds::{scan_file, ScanSummary};
use crate::Failure;
use std::path::{Path, PathBuf};

/// Whether `path` names a data file a directory contributes (by its extension).
fn is_data_file(path: &Path, extensions: &[&str]) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| extensions.contains(&e))
}

/// Whether a directory entry is hidden or Hive's bookkeeping (`.x`, `_SUCCESS`).
fn skipped(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') || n.starts_with('_'))
}

/// The data files under `dir`, recursively, in path order.
fn files_under(dir: &Path, extensions: &[&str], out: &mut Vec<PathBuf>) -> Result<(), Failure> {
    let located = |e: std::io::Error| Failure::from(e).context(dir);
    let mut entries = std::fs::read_dir(dir)
        .map_err(located)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(located)?;
    entries.sort();
    for p in entries.into_iter().filter(|p| !skipped(p)) {
        if p.is_dir() {
            files_under(&p, extensions, out)?;
        } else if is_data_file(&p, extensions) {
            out.push(p);
        }
    }
    Ok(())
}

/// The extensions of the files a directory stands for.
pub const DATA_FILES: &[&str] = &["rc", "rcfile", "tsfile"];

/// `paths` with each directory replaced by its data files (of `extensions`).
pub fn expand(paths: &[PathBuf], extensions: &[&str]) -> Result<Vec<PathBuf>, Failure> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files_under(p, extensions, &mut files)?;
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

/// Whether the arguments ask for the several-files form (more than one, or a directory).
pub fn is_many(paths: &[PathBuf]) -> bool {
    paths.len() > 1 || paths.iter().any(|p| p.is_dir())
}

/// `cat` (and `head`): every file's rows in turn, as one output.
pub fn cat(a: ReadArgs) -> Result<(), Failure> {
    if let Some(dir) = crate::dataset_cmd::merged_dir(&a.paths, a.no_merge) {
        return crate::dataset_cmd::cat(&a, dir);
    }
    if !is_many(&a.paths) {
        return crate::read_cmds::cat_file(&a).map(|_| ());
    }
    let mut printed = 0u64;
    for (i, f) in expand(&a.paths, DATA_FILES)?.into_iter().enumerate() {
        let left = a.limit.map(|l| l.saturating_sub(printed));
        if left == Some(0) && !(i == 0 && a.format == "csv") {
            break;
        }
        let one = ReadArgs {
            file: f,
            skip_csv_header: i > 0,
            limit: left,
            ..a.clone()
        };
        printed += crate::read_cmds::cat_file(&one)?;
    }
    Ok(())
}

/// `scan`: the summary of one file, or `PATH<TAB>summary` per file and `total<TAB>summary`.
pub fn scan(a: ReadArgs) -> Result<(), Failure> {
    let mut progress = Progress::new(a.progress, None).with_verb("scanned");
    let result = scan_all(&a, &mut progress);
    match &result {
        Ok(()) => progress.finish(),
        Err(_) => progress.abandon(),
    }
    result
}

fn scan_all(a: &ReadArgs, progress: &mut Progress) -> Result<(), Failure> {
    if let Some(dir) = crate::dataset_cmd::merged_dir(&a.paths, a.no_merge) {
        let s = crate::dataset_cmd::scan(a, dir, progress)?;
        return crate::out_line(s);
    }
    if !is_many(&a.paths) {
        progress.set_total(std::fs::metadata(&a.file).ok().map(|m| m.len()));
        let s = scan_file(a, progress)?;
        return crate::out_line(s);
    }
    let mut total = ScanSummary::default();
    let files = expand(&a.paths, DATA_FILES)?;
    for (i, f) in files.iter().enumerate() {
        progress.note(&format!(
            "scanning {} ({} of {})",
            f.display(),
            i + 1,
            files.len()
        ));
        let one = ReadArgs {
            file: f.clone(),
            ..a.clone()
        };
        let s = scan_file(&one, progress)?;
        total.rows += s.rows;
        total.values += s.values;
        total.bytes += s.bytes;
        total.seconds += s.seconds;
        crate::out_line(format_args!("{}\t{s}", f.display()))?;
    }
    crate::out_line(format_args!("total\t{total}"))
}
