//! `convert IN OUT`: RCFile, TsFile, CSV and JSONL into one another (and Parquet and Arrow
//! IPC with the `parquet` feature). Rows go through the JSON row model `cat` prints and `write` reads:
//! the input is read by `cat`'s code (sources.rs), a few per-column fixes map one format's
//! types onto the other's (mapping.rs), and `write`'s code writes an RCFile or TsFile, or the
//! lines go out as JSONL or CSV (`cat --format csv`'s cell text).

mod args;
#[cfg(feature = "parquet")]
mod arrow_ipc;
mod csv;
mod csv_cells;
mod csv_runs;
mod mapping;
#[cfg(feature = "parquet")]
mod parquet;
#[cfg(feature = "parquet")]
mod parquet_rows;
mod pipe;
mod sources;
mod text;
#[cfg(feature = "parquet")]
mod time_unit;

use crate::Failure;
pub use args::ConvertArgs;
pub use mapping::tsfile_ddl;
pub use sources::HiveLines;
use std::path::Path;

/// The formats `convert` reads and writes.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Fmt {
    RcFile,
    TsFile,
    Csv,
    Jsonl,
    Parquet,
    /// Arrow IPC, file format (`.arrow`, `.feather`).
    Arrow,
    /// Arrow IPC, stream format (`.arrows`).
    ArrowStream,
}

impl Fmt {
    fn from_name(s: &str) -> Result<Fmt, Failure> {
        Ok(match s.to_ascii_lowercase().as_str() {
            "rcfile" | "rc" => Fmt::RcFile,
            "tsfile" => Fmt::TsFile,
            "csv" => Fmt::Csv,
            "jsonl" | "ndjson" => Fmt::Jsonl,
            "parquet" => Fmt::Parquet,
            "arrow" | "feather" | "ipc" => Fmt::Arrow,
            "arrows" | "arrow-stream" => Fmt::ArrowStream,
            other => {
                return Err(Failure::usage(format!(
                    "unknown format {other:?}: rcfile, tsfile, csv, jsonl, parquet, arrow or arrows"
                )))
            }
        })
    }

    fn from_extension(p: &Path) -> Option<Fmt> {
        let ext = p.extension()?.to_str()?.to_ascii_lowercase();
        Some(match ext.as_str() {
            "rc" | "rcfile" => Fmt::RcFile,
            "tsfile" => Fmt::TsFile,
            "csv" => Fmt::Csv,
            "jsonl" | "ndjson" => Fmt::Jsonl,
            "parquet" => Fmt::Parquet,
            "arrow" | "feather" => Fmt::Arrow,
            "arrows" => Fmt::ArrowStream,
            _ => return None,
        })
    }

    fn is_text(self) -> bool {
        matches!(self, Fmt::Csv | Fmt::Jsonl)
    }

    /// Formats read and written as Arrow record batches (the `parquet` feature).
    fn is_batches(self) -> bool {
        matches!(self, Fmt::Parquet | Fmt::Arrow | Fmt::ArrowStream)
    }
}

/// A file's format from its first bytes (RCFile, TsFile, Parquet, Arrow IPC), if they say.
fn sniff(p: &Path) -> Option<Fmt> {
    use std::io::Read;
    let mut magic = [0u8; 6];
    let mut f = std::fs::File::open(p).ok()?;
    let n = f.read(&mut magic).ok()?;
    let m = magic.get(..n)?;
    if m.starts_with(b"RCF") || m.starts_with(b"SEQ") {
        Some(Fmt::RcFile)
    } else if m == b"TsFile" {
        Some(Fmt::TsFile)
    } else if m.starts_with(b"PAR1") {
        Some(Fmt::Parquet)
    } else if m == b"ARROW1" {
        Some(Fmt::Arrow)
    } else if m.starts_with(&[0xff; 4]) {
        // An IPC stream opens with a continuation marker and its schema message.
        Some(Fmt::ArrowStream)
    } else {
        None
    }
}

fn is_dash(p: &Path) -> bool {
    p.as_os_str() == "-"
}

/// The input format: `--from`, else the magic bytes, else the extension.
fn input_format(a: &ConvertArgs) -> Result<Fmt, Failure> {
    let f = match &a.from {
        Some(f) => Fmt::from_name(f)?,
        None if is_dash(&a.input) => {
            return Err(Failure::usage("reading stdin (-) needs --from csv|jsonl"))
        }
        None => match sniff(&a.input).or_else(|| Fmt::from_extension(&a.input)) {
            Some(f) => f,
            None if !a.input.exists() => {
                return Err(Failure::input(format!(
                    "{}: no such file",
                    a.input.display()
                )))
            }
            None => {
                return Err(Failure::usage(format!(
                    "{}: cannot tell its format (extension .rc, .tsfile, .csv, .jsonl, .parquet, .arrow, .arrows or --from FMT)",
                    a.input.display()
                )))
            }
        },
    };
    if is_dash(&a.input) && !f.is_text() {
        return Err(Failure::usage("stdin (-) can only be csv or jsonl"));
    }
    Ok(f)
}

/// The output format: `--to`, else the extension.
fn output_format(a: &ConvertArgs) -> Result<Fmt, Failure> {
    let f = match &a.to {
        Some(f) => Fmt::from_name(f)?,
        None if is_dash(&a.output) => {
            return Err(Failure::usage("writing stdout (-) needs --to csv|jsonl"))
        }
        None => Fmt::from_extension(&a.output).ok_or_else(|| {
            Failure::usage(format!(
                "{}: cannot tell the output format (extension .rc, .tsfile, .csv, .jsonl, .parquet, .arrow, .arrows or --to FMT)",
                a.output.display()
            ))
        })?,
    };
    if is_dash(&a.output) && !f.is_text() {
        return Err(Failure::usage("stdout (-) can only be csv or jsonl"));
    }
    Ok(f)
}

pub fn convert(a: ConvertArgs) -> Result<(), Failure> {
    let from = input_format(&a)?;
    let to = output_format(&a)?;
    if a.timestamp_unit.is_some() && !matches!(to, Fmt::Parquet | Fmt::Arrow | Fmt::ArrowStream) {
        return Err(Failure::usage(
            "--timestamp-unit is for Parquet and Arrow output",
        ));
    }
    let progress = std::rc::Rc::new(std::cell::RefCell::new(crate::progress::Progress::new(
        a.progress, None,
    )));
    let result = run(&a, from, to, std::rc::Rc::clone(&progress));
    let mut p = progress.borrow_mut();
    match &result {
        Ok(()) => p.finish(),
        Err(_) => p.abandon(),
    }
    result
}

fn run(a: &ConvertArgs, from: Fmt, to: Fmt, progress: pipe::SharedProgress) -> Result<(), Failure> {
    if from.is_batches() || to.is_batches() {
        #[cfg(feature = "parquet")]
        return parquet::convert(a, from, to, progress);
        #[cfg(not(feature = "parquet"))]
        return Err(Failure::usage(
            "Parquet and Arrow IPC need colfile built with the `parquet` feature (cargo build --features parquet)",
        ));
    }
    if from == Fmt::TsFile && to == Fmt::TsFile && tree_copy(a)? {
        return Ok(());
    }
    let source = sources::open(a, from, to)?;
    pipe::run(a, source, to, progress)
}

/// The writer options of a TsFile output written directly (not through `write`'s
/// arguments): the command line's threads (every TsFile output uses them; the bytes do not
/// depend on them) and `--memory-threshold`.
fn ts_options(a: &ConvertArgs) -> colfile::tsfile::WriterOptions {
    let options = crate::tsfile_cmds::base_options();
    match a.memory_threshold {
        Some(n) => options.with_memory_threshold(n),
        None => options,
    }
}

/// TsFile to TsFile for a tree-model input (v3 or v4): every device copied with its
/// alignment and codecs into a v4 file. `false` (nothing written) for a table-model input,
/// which the row pipe converts.
fn tree_copy(a: &ConvertArgs) -> Result<bool, Failure> {
    use crate::input::Input;
    use colfile::tsfile::{copy_tree_with, TreeCopyOptions, TsFileWriter};
    let ctx = |e: colfile::Error| Failure::from(e).context(&a.input);
    let src = Input::open(&a.input).map_err(ctx)?;
    let reader = crate::ts_open::reader(src, &a.input, &a.read.limits, a.read.no_mods);
    let reader = reader.map_err(ctx)?;
    if !reader.metadata().footer().schemas.is_empty() || is_dash(&a.output) {
        return Ok(false);
    }
    let out_ctx = |e: colfile::Error| Failure::from(e).context(&a.output);
    let file = std::fs::File::create(&a.output).map_err(|e| out_ctx(colfile::Error::from(e)))?;
    let mut w = TsFileWriter::new(std::io::BufWriter::new(file), ts_options(a)).map_err(out_ctx)?;
    let options = TreeCopyOptions::default().with_keep_encodings(a.keep_encodings);
    let sum = copy_tree_with(&reader, &mut w, options).map_err(ctx)?;
    for (series, from, to) in &sum.reencoded {
        eprintln!(
            "colfile: note: {series}: {from} is not read by the official C++ reader; written as {to} (--keep-encodings keeps it)"
        );
    }
    w.finish().map_err(out_ctx)?;
    Ok(true)
}
