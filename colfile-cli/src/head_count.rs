//! `head` (the first rows, as `cat --limit N` prints them) and `count` (the number of rows).

use crate::args::{set_limit, ReadArgs, LIMIT_FLAGS};
use crate::input::Input;
use crate::read_cmds::{open, Format};
use crate::Failure;
use colfile::Limits;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// `head`'s row count when neither `-n` nor `--rows` is given.
const HEAD_DEFAULT_ROWS: u64 = 10;

/// `head FILE [-n N | --rows N] [cat's read options]`: takes `-n`/`--rows` out of the
/// arguments, parses the rest as `cat`'s and runs `cat` with that limit.
pub fn head(args: Vec<OsString>) -> Result<(), Failure> {
    let mut rows = None;
    let mut rest = Vec::with_capacity(args.len());
    let mut it = args.into_iter();
    while let Some(arg) = it.next() {
        let s = arg.to_string_lossy();
        let value =
            if s == "-n" || s == "--rows" {
                let flag = s.into_owned();
                Some(it.next().ok_or_else(|| {
                    Failure::usage(format!("missing argument for option '{flag}'"))
                })?)
            } else if let Some(v) = s.strip_prefix("--rows=") {
                Some(OsString::from(v))
            } else if let Some(v) = s.strip_prefix("-n").filter(|v| !v.is_empty()) {
                Some(OsString::from(v.strip_prefix('=').unwrap_or(v)))
            } else if s == "--limit" || s.starts_with("--limit=") {
                return Err(Failure::usage("head takes -n N or --rows N, not --limit"));
            } else {
                None
            };
        match value {
            Some(v) => {
                let v = v.to_string_lossy();
                rows = Some(v.parse::<u64>().map_err(|_| {
                    Failure::usage(format!("-n/--rows wants a number of rows, got {v:?}"))
                })?);
            }
            None => rest.push(arg),
        }
    }
    let mut a = ReadArgs::parse(rest, true)?;
    a.limit = Some(rows.unwrap_or(HEAD_DEFAULT_ROWS));
    crate::multi::cat(a)
}

/// Options of `count`.
struct CountArgs {
    paths: Vec<PathBuf>,
    table: Option<String>,
    limits: Limits,
    no_mods: bool,
    no_merge: bool,
}

impl CountArgs {
    fn parse(args: Vec<OsString>) -> Result<Self, Failure> {
        let mut p = lexopt::Parser::from_args(args);
        let mut a = CountArgs {
            paths: Vec::new(),
            table: None,
            limits: Limits::default(),
            no_mods: false,
            no_merge: false,
        };
        while let Some(arg) = p.next()? {
            match arg {
                Long(f) if LIMIT_FLAGS.contains(&f) => {
                    let f = f.to_string();
                    set_limit(&mut a.limits, &f, p.value()?)?
                }
                Long("table") => {
                    a.table = Some(p.value()?.into_string().map_err(|v| {
                        Failure::usage(format!("argument {v:?} is not valid UTF-8"))
                    })?)
                }
                Long("no-mods") => a.no_mods = true,
                Long("no-merge") => a.no_merge = true,
                Value(v) => a.paths.push(PathBuf::from(v)),
                _ => return Err(arg.unexpected().into()),
            }
        }
        if a.paths.is_empty() {
            return Err(Failure::usage("missing FILE"));
        }
        Ok(a)
    }
}

/// The rows of one file: RCFile from the row groups' key sections (no column is read),
/// TsFile the rows the reader returns (every table or device, or `--table`'s).
fn rows_of(path: &Path, a: &CountArgs) -> Result<u64, Failure> {
    let located = |e: colfile::Error| Failure::from(e).context(path);
    match open(path)? {
        (src, Format::RcFile) => {
            let mut r = colfile::rcfile::RcFileReader::builder(src)
                .with_projection([])
                .with_limits(a.limits.clone())
                .build()
                .map_err(located)?;
            let mut n = 0u64;
            while let Some(g) = r.next_row_group().map_err(located)? {
                n += g.num_rows() as u64;
            }
            Ok(n)
        }
        (src, Format::TsFile) => ts_rows(src, path, a).map_err(located),
    }
}

fn ts_rows(src: Input, path: &Path, a: &CountArgs) -> colfile::Result<u64> {
    use colfile::tsfile::Query;
    let r = crate::ts_open::reader(src, path, &a.limits, a.no_mods)?;
    let mut q = Query::all();
    if let Some(t) = &a.table {
        q = q.table(t);
    }
    let mut n = 0u64;
    for b in r.query(&q)?.planned() {
        n += b?.len() as u64;
    }
    Ok(n)
}

/// `count FILE...`: `N` for one file, else `PATH<TAB>N` per file and `total<TAB>N`.
pub fn count(args: Vec<OsString>) -> Result<(), Failure> {
    let a = CountArgs::parse(args)?;
    if let Some(dir) = crate::dataset_cmd::merged_dir(&a.paths, a.no_merge) {
        let n = crate::dataset_cmd::count(dir, a.table.as_deref(), &a.limits, a.no_mods)?;
        return crate::out_line(n);
    }
    let single = !crate::multi::is_many(&a.paths);
    let files = crate::multi::expand(&a.paths, crate::multi::DATA_FILES)?;
    if single {
        return crate::out_line(rows_of(&files[0], &a)?);
    }
    let mut total = 0u64;
    for f in &files {
        let n = rows_of(f, &a)?;
        total += n;
        crate::out_line(format_args!("{}\t{n}", f.display()))?;
    }
    crate::out_line(format_args!("total\t{total}"))
}
