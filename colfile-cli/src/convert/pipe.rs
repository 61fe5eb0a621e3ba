//! Moving the rows: to `write`'s RCFile and TsFile code as the JSON lines it reads, or out
//! as JSONL or CSV.

use super::mapping::{self, Fix};
use super::sources::Source;
use super::{ConvertArgs, Fmt};
use crate::args::{TsWriteArgs, WriteArgs};
use crate::json_lines::{CellBatch, CellRows, RowInput};
use crate::progress::Progress;
use crate::Failure;
use serde_json::Value as Json;
use std::cell::RefCell;
use std::io::{BufRead, Read, Write};
use std::rc::Rc;

pub type SharedProgress = Rc<RefCell<Progress>>;

pub fn run(
    a: &ConvertArgs,
    source: Box<dyn Source>,
    to: Fmt,
    progress: SharedProgress,
) -> Result<(), Failure> {
    progress.borrow_mut().set_total(source.total());
    match to {
        Fmt::Csv | Fmt::Jsonl => text_out(a, source, to == Fmt::Csv, &progress),
        Fmt::RcFile | Fmt::TsFile => {
            let plan = if to == Fmt::RcFile {
                mapping::to_rcfile(a, source.model())?
            } else {
                mapping::to_tsfile(a, source.model())?
            };
            let fixes = needed(&*source, plan.fixes);
            let wa = write_args(a, to, plan.schema, plan.table);
            // `write` numbers its input lines, which are the rows: name the input and the row.
            let rows_named = |mut e: Failure| {
                if let Some(rest) = e.message.strip_prefix("input line ") {
                    e.message = format!("{}: row {rest}", a.input.display());
                }
                e
            };
            let mut source = source;
            if fixes.is_empty() {
                if let Some((reader, cells)) = source.as_cells() {
                    let mut cells = Counted { cells, progress };
                    let input = RowInput::Cells(reader, &mut cells);
                    return crate::write_cmd::write_from(wa, input).map_err(rows_named);
                }
            }
            let failure = Rc::new(RefCell::new(None));
            let lines = Lines::new(source, fixes, progress, Rc::clone(&failure));
            // A failure of the input comes back from `write` as an I/O error: report the
            // input's own message instead.
            crate::write_cmd::write_from(wa, RowInput::Lines(Some(Box::new(lines)))).map_err(|e| {
                match failure.borrow_mut().take() {
                    Some(f) => f,
                    None => rows_named(e),
                }
            })
        }
        Fmt::Parquet | Fmt::Arrow | Fmt::ArrowStream => Err(Failure::usage(
            "Parquet and Arrow output need the parquet feature",
        )),
    }
}

/// The source's rows as Hive rows of the schema the RCFile output would get (`--out-schema`,
/// or the input's types), for outputs that take rows rather than JSON lines (Parquet).
#[cfg(feature = "parquet")]
pub fn hive_rows(
    a: &ConvertArgs,
    source: Box<dyn Source>,
    progress: SharedProgress,
) -> Result<HiveRows, Failure> {
    progress.borrow_mut().set_total(source.total());
    if a.out_schema.is_none() && matches!(source.model(), super::sources::Model::Untyped) {
        return Err(Failure::usage(
            "Parquet output needs the input's types: give --schema (Hive types)",
        ));
    }
    let plan = mapping::to_rcfile(a, source.model())?;
    let schema: colfile::rcfile::Schema = plan.schema.parse()?;
    let lines = Lines::new(source, plan.fixes, progress, Rc::new(RefCell::new(None)));
    Ok(HiveRows {
        lines,
        schema,
        input: a.input.clone(),
        row: 0,
    })
}

/// See [`hive_rows`].
#[cfg(feature = "parquet")]
pub struct HiveRows {
    lines: Lines,
    /// The rows' schema.
    pub schema: colfile::rcfile::Schema,
    input: std::path::PathBuf,
    row: u64,
}

#[cfg(feature = "parquet")]
impl Iterator for HiveRows {
    type Item = Result<Vec<colfile::rcfile::Value>, Failure>;

    fn next(&mut self) -> Option<Self::Item> {
        self.lines.buf.clear();
        match self.lines.next() {
            Ok(false) => return None,
            Err(f) => return Some(Err(f)),
            Ok(true) => {}
        }
        self.row += 1;
        let at =
            |m: String| Failure::input(format!("{}: row {}: {m}", self.input.display(), self.row));
        let row = serde_json::from_str(&self.lines.buf)
            .map_err(|e| at(format!("not JSON: {e}")))
            .and_then(|j| {
                colfile::rcfile::json::row_from_json(&self.schema, &j)
                    .map_err(|e| at(e.to_string()))
            });
        Some(row)
    }
}

/// `write`'s options for the output.
fn write_args(a: &ConvertArgs, to: Fmt, schema: String, table: Option<String>) -> WriteArgs {
    WriteArgs {
        out: a.output.clone(),
        format: if to == Fmt::TsFile {
            "tsfile"
        } else {
            "rcfile"
        }
        .into(),
        schema,
        serde: a
            .out_serde
            .clone()
            .or_else(|| a.read.serde.clone())
            .unwrap_or_else(|| "binary".into()),
        serde_props: a.read.serde_props.clone(),
        codec: a.codec.clone().unwrap_or_else(|| "none".into()),
        row_group_rows: a.row_group_rows,
        row_group_bytes: a.row_group_bytes,
        seq_header: false,
        sync: a.sync,
        meta: Vec::new(),
        input: None,
        validate: false,
        fsync: a.fsync,
        // convert draws its own progress.
        progress: Some(false),
        time_zone: a.read.time_zone.clone(),
        calendar: a.read.calendar.clone(),
        ts: TsWriteArgs {
            table,
            memory_threshold: a.memory_threshold,
            ..TsWriteArgs::default()
        },
    }
}

/// The `fixes` rows of `source` need: dropping a key no row has changes nothing, so such
/// rows need not be parsed again.
fn needed(source: &dyn Source, mut fixes: Vec<Fix>) -> Vec<Fix> {
    if source.fixed_keys() {
        let has = |k: &str| source.columns().iter().any(|c| c == k);
        fixes.retain(|f| !matches!(f, Fix::Drop(k) if !has(k)));
    }
    fixes
}

/// Rows of cells counted on the progress display as they are read.
struct Counted<'c> {
    cells: &'c mut dyn CellRows,
    progress: SharedProgress,
}

impl CellRows for Counted<'_> {
    fn next_batch(&mut self) -> Result<Option<Box<dyn CellBatch>>, Failure> {
        let batch = self.cells.next_batch()?;
        if let Some(b) = &batch {
            let consumed = self.cells.consumed();
            self.progress
                .borrow_mut()
                .rows_done(b.len() as u64, consumed);
        }
        Ok(batch)
    }

    fn consumed(&self) -> Option<u64> {
        self.cells.consumed()
    }
}

/// The source's rows as the JSON lines `write` reads, fixed on the way.
struct Lines {
    source: Box<dyn Source>,
    fixes: Vec<Fix>,
    buf: String,
    scratch: String,
    pos: usize,
    done: bool,
    progress: SharedProgress,
    failure: Rc<RefCell<Option<Failure>>>,
}

impl Lines {
    fn new(
        source: Box<dyn Source>,
        fixes: Vec<Fix>,
        progress: SharedProgress,
        failure: Rc<RefCell<Option<Failure>>>,
    ) -> Self {
        Lines {
            source,
            fixes,
            buf: String::new(),
            scratch: String::new(),
            pos: 0,
            done: false,
            progress,
            failure,
        }
    }

    /// The next row into `buf`; false at the end.
    fn next(&mut self) -> Result<bool, Failure> {
        let row = self.progress.borrow().rows();
        if self.fixes.is_empty() {
            if !self.source.next_line(&mut self.buf)? {
                return Ok(false);
            }
        } else {
            if !self.source.next_line(&mut self.scratch)? {
                return Ok(false);
            }
            let at = |m: String| Failure::input(format!("input row {}: {m}", row + 1));
            let mut j: serde_json::Map<String, Json> = serde_json::from_str(&self.scratch)
                .map_err(|e| at(format!("not a JSON object: {e}")))?;
            mapping::apply(&self.fixes, row, &mut j).map_err(at)?;
            self.buf = Json::Object(j).to_string();
        }
        self.progress.borrow_mut().row(self.source.consumed());
        Ok(true)
    }
}

impl Read for Lines {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let b = self.fill_buf()?;
            let n = b.len().min(out.len());
            if let (Some(dst), Some(src)) = (out.get_mut(..n), b.get(..n)) {
                dst.copy_from_slice(src);
            }
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Lines {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.pos >= self.buf.len() && !self.done {
            self.buf.clear();
            self.pos = 0;
            match self.next() {
                Ok(true) => self.buf.push('\n'),
                Ok(false) => {
                    self.buf.clear();
                    self.done = true;
                }
                Err(f) => {
                    let m = f.message.clone();
                    *self.failure.borrow_mut() = Some(f);
                    return Err(std::io::Error::other(m));
                }
            }
        }
        Ok(self.buf.as_bytes().get(self.pos..).unwrap_or_default())
    }

    fn consume(&mut self, n: usize) {
        self.pos += n;
    }
}

/// JSONL or CSV out, to OUT (written under a temporary name and renamed, as `write` does)
/// or stdout (`-`).
fn text_out(
    a: &ConvertArgs,
    mut source: Box<dyn Source>,
    csv: bool,
    progress: &SharedProgress,
) -> Result<(), Failure> {
    let mut body = |out: &mut dyn Write| -> Result<u64, Failure> {
        let columns = source.columns().to_vec();
        let ready = source.csv();
        let mut text = String::new();
        let mut writer = csv.then(|| a.read.csv.line_writer());
        if let Some(w) = writer.as_mut().filter(|_| a.read.csv.header) {
            w.names(&columns, &mut text)?;
            text.push('\n');
            out.write_all(text.as_bytes())?;
        }
        let mut line = String::new();
        let mut rows = 0u64;
        while source.next_line(&mut line)? {
            rows += 1;
            match writer.as_mut().filter(|_| !ready) {
                Some(w) => {
                    let j: serde_json::Map<String, Json> =
                        serde_json::from_str(&line).map_err(|e| {
                            Failure::input(format!("input row {rows}: not a JSON object: {e}"))
                        })?;
                    text.clear();
                    w.record(
                        columns.iter().map(|c| super::csv::cell(j.get(c))),
                        &mut text,
                    )?;
                    text.push('\n');
                    out.write_all(text.as_bytes())?;
                }
                None => {
                    out.write_all(line.as_bytes())?;
                    out.write_all(b"\n")?;
                }
            }
            progress.borrow_mut().row(source.consumed());
        }
        Ok(rows)
    };
    if a.output.as_os_str() == "-" {
        let stdout = std::io::stdout();
        let mut out = std::io::BufWriter::with_capacity(1 << 16, stdout.lock());
        body(&mut out)?;
        out.flush()?;
        return Ok(());
    }
    crate::write_cmd::atomically(&a.output, a.fsync, |file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        let rows = body(&mut out)?;
        out.flush()?;
        let bytes = out.get_ref().metadata().map(|m| m.len()).unwrap_or(0);
        if a.fsync {
            out.get_ref().sync_all()?;
        }
        Ok(format!("{{\"rows\":{rows},\"bytes\":{bytes}}}"))
    })
}
