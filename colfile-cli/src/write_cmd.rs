//! `write`: JSON lines in, an RCFile (or, through `tsfile_cmds`, a TsFile) out, written under
//! a temporary name and renamed at the end so a failed write leaves no half-written file.
//! With `--fsync` the file is fsynced before the rename and its directory after it, so the
//! complete file is on disk under its name when the command succeeds.

use crate::args::WriteArgs;
use crate::json_lines::RowInput;
use crate::progress::Progress;
use crate::read_cmds::serde_for;
use crate::Failure;
use colfile::compress::HadoopCodec;
use colfile::rcfile::{
    json, EncodedRows, HeaderVersion, RcFileWriter, RcFileWriterBuilder, Schema, Value,
};
use colfile::sink::SyncWrite;
use std::cell::RefCell;
use std::io::{BufRead, Write};
use std::rc::Rc;

/// `write`, with a progress display (lines read, and percent of an `--input` file) when
/// stderr is a terminal or `--progress` asks for it.
pub fn write(a: WriteArgs) -> Result<(), Failure> {
    let mut progress = Progress::new(a.progress, None).with_verb("wrote");
    let whole_file = a.ts.spec.is_some() || a.ts.from.is_some();
    if !progress.shown() || whole_file {
        progress.note(&format!("writing {}", a.out.display()));
        let out = a.out.clone();
        let result = write_from(a, RowInput::Lines(None));
        match &result {
            Ok(()) => progress.finish_with(&format!("wrote {}", out.display())),
            Err(_) => progress.abandon(),
        }
        return result;
    }
    let input: Box<dyn BufRead> = match &a.input {
        Some(p) => {
            let f = std::fs::File::open(p).map_err(|e| Failure::from(e).context(p))?;
            progress.set_total(f.metadata().ok().map(|m| m.len()));
            Box::new(std::io::BufReader::with_capacity(1 << 20, f))
        }
        None => Box::new(std::io::BufReader::with_capacity(1 << 20, std::io::stdin())),
    };
    let progress = Rc::new(RefCell::new(progress));
    let counted = Counted {
        inner: input,
        progress: Rc::clone(&progress),
        consumed: 0,
    };
    let result = write_from(a, RowInput::Lines(Some(Box::new(counted))));
    let mut p = progress.borrow_mut();
    match &result {
        Ok(()) => p.finish(),
        Err(_) => p.abandon(),
    }
    result
}

/// JSON lines on their way to the writer, each line counted on the progress display.
struct Counted {
    inner: Box<dyn BufRead>,
    progress: Rc<RefCell<Progress>>,
    consumed: u64,
}

impl std::io::Read for Counted {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let b = self.fill_buf()?;
            let n = b.len().min(out.len());
            out[..n].copy_from_slice(&b[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Counted {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, n: usize) {
        let lines = self
            .inner
            .fill_buf()
            .map(|b| b[..n.min(b.len())].iter().filter(|&&c| c == b'\n').count())
            .unwrap_or(0);
        self.inner.consume(n);
        self.consumed += n as u64;
        self.progress
            .borrow_mut()
            .rows_done(lines as u64, Some(self.consumed));
    }
}

/// `write` with its JSON lines from `input` instead of `--input` or stdin (`convert`).
pub(crate) fn write_from(a: WriteArgs, input: RowInput<'_>) -> Result<(), Failure> {
    if a.format == "tsfile" {
        return write_tsfile(&a, input);
    }
    let schema: Schema = a.schema.parse()?;
    let serde = serde_for(
        Some(&a.serde),
        &a.serde_props,
        a.time_zone.as_deref(),
        a.calendar.as_deref(),
    )?;
    let codec = match a.codec.as_str() {
        "none" => None,
        other => Some(HadoopCodec::from_short_name(other)?),
    };
    atomically(&a.out, a.fsync, |file| {
        let mut b = RcFileWriter::builder(
            std::io::BufWriter::with_capacity(1 << 20, file),
            schema.len(),
        )
        .with_codec(codec)
        .with_validation(a.validate)
        .with_version(if a.seq_header {
            HeaderVersion::Seq6
        } else {
            HeaderVersion::Rcf1
        });
        b = row_groups(b, a.row_group_rows, a.row_group_bytes, a.sync);
        for (k, v) in &a.meta {
            b = b.with_metadata(k.clone(), v.clone());
        }
        let mut w = b.build()?;
        // Rows parsed and encoded into cells, column by column, on worker threads; the
        // cells gathered into row groups, compressed and written on another.
        let encode = |out: &mut LineRows, n: usize, row: &[Value]| {
            out.rows
                .push_row(&serde, &schema, row)
                .map_err(|e| Failure::input(format!("input line {n}: {e}")))?;
            out.lines.push(n);
            Ok::<_, Failure>(())
        };
        let sink = |rows: LineRows| {
            w.write_encoded(&rows.rows).map_err(|e| {
                let (first, last) = (rows.lines.first(), rows.lines.last());
                let (first, last) = (first.unwrap_or(&0), last.unwrap_or(&0));
                Failure::input(format!("input lines {first}-{last}: {e}"))
            })
        };
        let workers = crate::json_lines::workers();
        match input {
            RowInput::Lines(input) => crate::json_lines::parse_in_order(
                crate::json_lines::line_batches(crate::json_lines::open_lines(
                    input,
                    a.input.as_deref(),
                )?),
                workers,
                |lines| {
                    let (mut out, mut row) = (LineRows::new(schema.len()), Vec::new());
                    for (n, line) in lines.lines()? {
                        read_row(&schema, n, line, &mut row)?;
                        encode(&mut out, n, &row)?;
                    }
                    Ok(out)
                },
                sink,
            )?,
            // Rows of plain cells read without their JSON text; others through it.
            RowInput::Cells(reader, rows) => crate::json_lines::parse_in_order(
                crate::json_lines::cell_batches(rows),
                workers,
                |batch| {
                    let mut out = LineRows::new(schema.len());
                    let (mut row, mut text) = (Vec::new(), String::new());
                    batch.for_each_row(&mut |n, cells| {
                        if json::row_from_members_into(
                            &schema,
                            |m| reader.members(cells, m),
                            &mut row,
                        ) {
                            return encode(&mut out, n, &row);
                        }
                        reader.json_line(cells, &mut text);
                        read_row(&schema, n, &text, &mut row)?;
                        encode(&mut out, n, &row)
                    })?;
                    Ok(out)
                },
                sink,
            )?,
        }
        let s = if a.fsync {
            w.finish_sync()?
        } else {
            w.finish()?
        };
        Ok(crate::write_cmd::rc_summary(&s))
    })
}

/// `write --format tsfile` of `input` (and `a`'s options).
fn write_tsfile(a: &WriteArgs, input: RowInput<'_>) -> Result<(), Failure> {
    atomically(&a.out, a.fsync, |file| {
        let mut sink = std::io::BufWriter::with_capacity(1 << 20, file);
        let line = crate::tsfile_cmds::write(a, &mut sink, input)?;
        sink.flush()?;
        if a.fsync {
            sink.sync_all()?;
        }
        Ok(line)
    })
}

/// Rows of a batch of input lines encoded into cells, and each row's line number.
struct LineRows {
    rows: EncodedRows,
    lines: Vec<usize>,
}

impl LineRows {
    fn new(columns: usize) -> Self {
        LineRows {
            rows: EncodedRows::new(columns),
            lines: Vec::new(),
        }
    }
}

/// Input line `n` as a row of `schema`, into `row` (whose strings' room is reused): flat
/// rows of scalars without serde_json's tree, anything else through it.
fn read_row(schema: &Schema, n: usize, line: &str, row: &mut Vec<Value>) -> Result<(), Failure> {
    if json::row_from_json_line_into(schema, line, row) {
        return Ok(());
    }
    let j: serde_json::Value = serde_json::from_str(line)
        .map_err(|e| Failure::input(format!("input line {n}: invalid JSON: {e}")))?;
    *row = json::row_from_json(schema, &j)
        .map_err(|e| Failure::input(format!("input line {n}: {e}")))?;
    Ok(())
}

/// The `--row-group-rows`, `--row-group-bytes` and `--sync` given (for `write` and
/// `convert`) applied to an RCFile writer's builder, which compresses on every core.
pub(crate) fn row_groups<W: Write>(
    mut b: RcFileWriterBuilder<W>,
    rows: Option<usize>,
    bytes: Option<usize>,
    sync: Option<[u8; 16]>,
) -> RcFileWriterBuilder<W> {
    if let Some(n) = rows {
        b = b.with_row_group_rows(n);
    }
    if let Some(n) = bytes {
        b = b.with_row_group_bytes(n);
    }
    if let Some(s) = sync {
        b = b.with_sync(s);
    }
    // Row groups' columns compressed on one thread per core (no thread without a codec).
    b.with_threads(crate::json_lines::workers())
}

/// Runs `body` on a temporary file next to `out` and renames it to `out` when `body`
/// succeeds (then prints its summary line); removes it otherwise. With `fsync`, the
/// directory is fsynced after the rename (`body` fsyncs the file).
pub(crate) fn atomically(
    out: &std::path::Path,
    fsync: bool,
    body: impl FnOnce(std::fs::File) -> Result<String, Failure>,
) -> Result<(), Failure> {
    let tmp = out.with_extension(format!(
        "{}.colfile-tmp",
        out.extension().and_then(|e| e.to_str()).unwrap_or("")
    ));
    let file = std::fs::File::create(&tmp).map_err(|e| Failure::from(e).context(&tmp))?;
    match body(file) {
        Ok(line) => {
            std::fs::rename(&tmp, out).map_err(|e| Failure::from(e).context(out))?;
            if fsync {
                sync_dir(out)?;
            }
            crate::out_line(format_args!("{line}"))?;
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&tmp);
            Err(e)
        }
    }
}

/// fsyncs the directory holding `path`, so a rename into it survives a power loss (on
/// Unix; elsewhere directories cannot be opened for that and the rename is left to the OS).
fn sync_dir(path: &std::path::Path) -> Result<(), Failure> {
    if cfg!(unix) {
        let dir = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        std::fs::File::open(dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| Failure::from(e).context(dir))?;
    }
    Ok(())
}

/// The JSON line `write` (and `convert`) print for a finished RCFile.
pub(crate) fn rc_summary(s: &colfile::rcfile::WriteSummary) -> String {
    format!(
        "{{\"rows\":{},\"row_groups\":{},\"bytes\":{}}}",
        s.rows, s.row_groups, s.bytes
    )
}

/// The JSON line `write` (and `convert`) print for a finished TsFile.
pub(crate) fn ts_summary(s: &colfile::tsfile::WriteSummary) -> String {
    format!(
        "{{\"rows\":{},\"devices\":{},\"series\":{},\"chunks\":{},\"bytes\":{}}}",
        s.rows, s.devices, s.series, s.chunks, s.bytes
    )
}
