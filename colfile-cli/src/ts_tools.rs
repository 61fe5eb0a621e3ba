//! The TsFile tools: `recover IN OUT`, `sketch FILE [--format text|json]` and
//! `verify FILE|DIR... [--max-problems N]` (library code in `colfile::tsfile::{recover, sketch,
//! verify}`). Each parses its own arguments.

use crate::args::{set_limit, LIMIT_FLAGS};
use crate::progress::Progress;
use crate::Failure;
use colfile::source::FileSource;
use colfile::tsfile::tools::sketch::sketch;
use colfile::tsfile::FileMetadata;
use colfile::tsfile::{recover_with, RecoverOptions};
use colfile::tsfile::{verify as verify_file, VerifyOptions};
use colfile::Limits;
use lexopt::prelude::*;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

fn open(path: &Path) -> Result<FileSource, Failure> {
    FileSource::open(path).map_err(|e| Failure::from(e).context(path))
}

/// `colfile recover IN OUT [--schema-from FILE]`: rebuilds a cut-off file; prints one line.
pub fn recover(args: Vec<OsString>) -> Result<(), Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let (mut files, mut schema_from) = (Vec::new(), None);
    let mut limits = Limits::default();
    let mut forced = None;
    while let Some(arg) = p.next()? {
        match arg {
            Long("schema-from") => schema_from = Some(PathBuf::from(p.value()?)),
            Long("progress") => forced = Some(true),
            Long("no-progress") => forced = Some(false),
            Long(f) if LIMIT_FLAGS.contains(&f) => {
                let f = f.to_string();
                set_limit(&mut limits, &f, p.value()?)?
            }
            Value(v) if files.len() < 2 => files.push(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let [input, output] = <[PathBuf; 2]>::try_from(files)
        .map_err(|_| Failure::usage("usage: colfile recover IN OUT [--schema-from FILE]"))?;
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(Failure::usage("recover: OUT must not be IN"));
    }
    let mut opts = RecoverOptions {
        limits,
        ..RecoverOptions::default()
    };
    if let Some(path) = &schema_from {
        let src = open(path)?;
        let meta =
            FileMetadata::read(&src, &opts.limits).map_err(|e| Failure::from(e).context(path))?;
        opts.schemas = meta.footer().schemas.clone();
    }
    let mut progress = Progress::new(forced, None);
    progress.note(&format!("recovering {}", input.display()));
    let src = open(&input)?;
    let file = std::fs::File::create(&output).map_err(|e| Failure::from(e).context(&output))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, file);
    let result = recover_with(&src, &mut out, &opts).and_then(|s| {
        out.flush()?;
        Ok(s)
    });
    let s = match result {
        Ok(s) => s,
        Err(e) => {
            drop(out);
            progress.abandon();
            let _ = std::fs::remove_file(&output);
            return Err(Failure::from(e).context(&input));
        }
    };
    let mut line = format!(
        "recovered {} chunk group(s), {} chunk(s), {} device(s), {} series: kept {} of {} bytes, wrote {} bytes",
        s.chunk_groups, s.chunks, s.devices, s.series, s.data_end, s.input_len, s.output_len
    );
    if s.dropped_chunk_groups > 0 {
        line.push_str(&format!(
            "; dropped {} incomplete chunk group(s)",
            s.dropped_chunk_groups
        ));
    }
    if s.footer_kept {
        line.push_str("; schemas and properties from the input's footer");
    }
    if !s.inferred_tables.is_empty() {
        line.push_str(&format!(
            "; inferred schema (generated tag names, no ATTRIBUTE columns) for: {}",
            s.inferred_tables.join(", ")
        ));
    }
    if let Some(stop) = &s.stop {
        line.push_str(&format!("; scan stopped: {stop}"));
    }
    progress.finish_with(&format!("recovered {}", output.display()));
    crate::out_line(line)
}

/// `colfile sketch FILE [--format text|json]`.
pub fn sketch_cmd(args: Vec<OsString>) -> Result<(), Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let (mut file, mut format) = (None, "text".to_string());
    while let Some(arg) = p.next()? {
        match arg {
            Long("format") => {
                format = p
                    .value()?
                    .into_string()
                    .map_err(|_| Failure::usage("bad --format"))?
            }
            Value(v) if file.is_none() => file = Some(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    let file =
        file.ok_or_else(|| Failure::usage("usage: colfile sketch FILE [--format text|json]"))?;
    if !matches!(format.as_str(), "text" | "json") {
        return Err(Failure::usage(format!(
            "--format must be text or json, not {format:?}"
        )));
    }
    let src = open(&file)?;
    let s = sketch(&src, &Limits::default()).map_err(|e| Failure::from(e).context(&file))?;
    let text = if format == "json" {
        let mut t = serde_json::to_string_pretty(&s.to_json()).unwrap_or_default();
        t.push('\n');
        t
    } else {
        s.to_text()
    };
    std::io::stdout().lock().write_all(text.as_bytes())?;
    Ok(())
}

/// `colfile verify FILE|DIR... [--max-problems N]`: for one file, one summary line when it
/// is sound, otherwise one line per problem and exit code 1. Several files (or a directory:
/// its `.tsfile` files) are each verified and reported the same way, then `total: ...`;
/// exit code 1 if any has a problem or cannot be read.
pub fn verify(args: Vec<OsString>) -> Result<(), Failure> {
    let mut p = lexopt::Parser::from_args(args);
    let mut paths = Vec::new();
    let mut opts = VerifyOptions::default();
    let mut forced = None;
    while let Some(arg) = p.next()? {
        match arg {
            Long("max-problems") => opts.max_problems = p.value()?.parse()?,
            Long(f) if LIMIT_FLAGS.contains(&f) => {
                let f = f.to_string();
                set_limit(&mut opts.limits, &f, p.value()?)?
            }
            Long("progress") => forced = Some(true),
            Long("no-progress") => forced = Some(false),
            Value(v) => paths.push(PathBuf::from(v)),
            _ => return Err(arg.unexpected().into()),
        }
    }
    if paths.is_empty() {
        return Err(Failure::usage(
            "usage: colfile verify FILE|DIR... [--max-problems N]",
        ));
    }
    let many = crate::multi::is_many(&paths);
    let files = crate::multi::expand(&paths, &["tsfile"])?;
    let mut progress = Progress::new(forced, None);
    let mut out = std::io::stdout().lock();
    let (mut sound, mut first_bad) = (0usize, None);
    for (i, file) in files.iter().enumerate() {
        progress.note(&format!(
            "verifying {} ({} of {})",
            file.display(),
            i + 1,
            files.len()
        ));
        match verify_one(file, &opts, &mut out) {
            Ok(None) => sound += 1,
            Ok(Some(problem)) => {
                first_bad.get_or_insert(problem);
            }
            Err(e) if many => {
                writeln!(out, "{}", e.message)?;
                first_bad.get_or_insert(e.message);
            }
            Err(e) => {
                progress.abandon();
                return Err(e);
            }
        }
    }
    progress.finish_with(&format!("verified {} file(s)", files.len()));
    if many {
        writeln!(
            out,
            "total: {} file(s), {sound} sound, {} with problems",
            files.len(),
            files.len() - sound
        )?;
    }
    match first_bad {
        None => Ok(()),
        Some(message) => Err(Failure { code: 1, message }),
    }
}

/// Verifies one file, printing its problem lines and summary; returns its first problem
/// (located by the file's name), or `None` when it is sound.
fn verify_one(
    file: &Path,
    opts: &VerifyOptions,
    out: &mut impl Write,
) -> Result<Option<String>, Failure> {
    let src = open(file)?;
    let report = verify_file(&src, opts).map_err(|e| Failure::from(e).context(file))?;
    for p in &report.problems {
        writeln!(out, "{}: {p}", file.display())?;
    }
    writeln!(out, "{}: {}", file.display(), report.summary())?;
    Ok(report
        .problems
        .first()
        .map(|p| format!("{}: {p}", file.display())))
}
