//! CSV for `convert`: records in, through the `csv` crate with the `--delimiter`, `--quote`
//! and `--null` options (quoted fields may hold delimiters, quotes and line breaks), and the
//! cells `cat --format csv` writes for JSON values.

use super::csv_runs::{positioned, RawRecords, RecordRuns};
use super::text::TextInput;
use crate::csv_opts::CsvOptions;
use crate::json_lines::{recycle, CellBatch, EachRow};
use crate::Failure;
use serde_json::Value as Json;

/// Bytes of whole records read at a time (a run holds at least one record, however long).
const RUN_BYTES: usize = 512 << 10;

pub struct CsvReader {
    runs: RecordRuns,
    opts: CsvOptions,
    /// The records of the run being read (none before the first), where it starts and how
    /// many it holds.
    records: Option<csv::Reader<std::io::Cursor<Vec<u8>>>>,
    run_start: csv::Position,
    in_run: u64,
    /// The end of the last run [`next_run`](Self::next_run) handed out.
    handed: u64,
    record: csv::StringRecord,
    name: String,
    total: Option<u64>,
    /// The line the current record starts on (1 = the first line).
    record_line: u64,
}

impl CsvReader {
    pub fn new(text: TextInput, opts: &CsvOptions) -> Self {
        CsvReader {
            runs: RecordRuns::new(text.input, opts, RUN_BYTES),
            opts: opts.clone(),
            records: None,
            run_start: csv::Position::new(),
            in_run: 0,
            handed: 0,
            record: csv::StringRecord::new(),
            name: text.name,
            total: text.total,
            record_line: 0,
        }
    }

    pub fn consumed(&self) -> u64 {
        let read = self.records.as_ref().map_or(0, |r| r.position().byte());
        read.max(self.handed)
    }

    pub fn total(&self) -> Option<u64> {
        self.total
    }

    /// A bad-data failure located at the current record.
    pub fn error(&self, m: String) -> Failure {
        Failure::input(format!("{}: line {}: {m}", self.name, self.record_line))
    }

    /// Reads the next record's fields into `out`; false at the end. Blank lines are skipped.
    pub fn next_record(&mut self, out: &mut Vec<String>) -> Result<bool, Failure> {
        out.clear();
        let more = self.read()?;
        out.extend(self.fields().iter().map(str::to_string));
        Ok(more)
    }

    /// Reads the next record, whose fields [`fields`](Self::fields) then gives; false at
    /// the end. Blank lines are skipped.
    pub fn read(&mut self) -> Result<bool, Failure> {
        loop {
            if let Some(records) = &mut self.records {
                let more = records.read_record(&mut self.record);
                if more.map_err(|e| read_failure(&self.name, e, self.record_line + 1))? {
                    self.record_line = self.record.position().map_or(0, |p| p.line());
                    return Ok(true);
                }
            }
            match self.runs.next_run().map_err(|e| self.io_failure(e))? {
                Some(run) => {
                    (self.run_start, self.in_run) = (run.start.clone(), run.records);
                    self.records = Some(positioned(run.bytes, run.start, &self.opts));
                }
                None => {
                    self.record.clear();
                    return Ok(false);
                }
            }
        }
    }

    /// The fields of the record last read.
    pub fn fields(&self) -> &csv::StringRecord {
        &self.record
    }

    /// Whether a cell is null: its text is `--null`'s (empty by default).
    pub fn is_null(&self, cell: &str) -> bool {
        cell == self.opts.null
    }

    /// Reads the next record, which must have `width` fields; false at the end.
    pub fn read_row(&mut self, width: usize) -> Result<bool, Failure> {
        if !self.read()? {
            return Ok(false);
        }
        check_width(&self.name, self.record_line, self.record.len(), width)?;
        Ok(true)
    }

    /// The records not yet read, a run at a time, for threads to read as rows of `width`
    /// cells numbered from `first_row` (see [`CsvRun`]): first the rest of the run being
    /// read, then the runs after it. `None` at the end.
    pub fn next_run(&mut self, width: usize, first_row: usize) -> Result<Option<CsvRun>, Failure> {
        let current = self.records.take();
        let pos = current.as_ref().map(|r| r.position().clone());
        let read_in_run = pos
            .as_ref()
            .map_or(0, |p| p.record() - self.run_start.record());
        let left = self.in_run.saturating_sub(read_in_run);
        self.in_run = 0;
        let raw = if let (Some(current), Some(pos), true) = (current, pos, left > 0) {
            let mut bytes = current.into_inner().into_inner();
            let read = usize::try_from(pos.byte() - self.run_start.byte()).unwrap_or(usize::MAX);
            bytes.drain(..read.min(bytes.len()));
            Some(RawRecords {
                bytes,
                start: pos,
                records: left,
            })
        } else {
            self.runs.next_run().map_err(|e| self.io_failure(e))?
        };
        if let Some(r) = &raw {
            self.handed = r.start.byte() + r.bytes.len() as u64;
        }
        Ok(raw.map(|raw| CsvRun {
            raw,
            opts: self.opts.clone(),
            width,
            first_row,
            name: self.name.clone(),
        }))
    }

    fn io_failure(&self, e: std::io::Error) -> Failure {
        Failure::input(format!("{}: {e}", self.name))
    }
}
/// Whole CSV records read on a parsing thread as rows of a header's width.
pub struct CsvRun {
    raw: RawRecords,
    opts: CsvOptions,
    width: usize,
    first_row: usize,
    name: String,
}

impl CellBatch for CsvRun {
    fn len(&self) -> usize {
        usize::try_from(self.raw.records).unwrap_or(usize::MAX)
    }

    fn for_each_row(&self, each: &mut EachRow<'_>) -> Result<(), Failure> {
        let mut records = positioned(&self.raw.bytes[..], self.raw.start.clone(), &self.opts);
        let (mut record, mut spare) = (csv::StringRecord::new(), Vec::with_capacity(self.width));
        let mut line = self.raw.start.line();
        for row in self.first_row.. {
            let more = records.read_record(&mut record);
            if !more.map_err(|e| read_failure(&self.name, e, line))? {
                return Ok(());
            }
            line = record.position().map_or(line, |p| p.line());
            check_width(&self.name, line, record.len(), self.width)?;
            let mut cells = recycle(std::mem::take(&mut spare), || "");
            cells.extend(record.iter());
            each(row, &cells)?;
            spare = recycle(cells, || "");
        }
        Ok(())
    }
}

/// The failure of reading a record at about `line` (the error's own, where it has one).
fn read_failure(name: &str, e: csv::Error, line: u64) -> Failure {
    let line = e.position().map_or(line, |p| p.line());
    Failure::input(format!("{name}: line {line}: {e}"))
}

/// Refuses a record of `got` fields under a header of `width`.
fn check_width(name: &str, line: u64, got: usize, width: usize) -> Result<(), Failure> {
    if got == width {
        return Ok(());
    }
    Err(Failure::input(format!(
        "{name}: line {line}: {got} fields where the header has {width}"
    )))
}

/// The CSV cell `cat --format csv` writes for the JSON value `j`: null for null, a
/// string's text, the JSON text of anything else.
pub fn cell(j: Option<&Json>) -> Option<String> {
    match j {
        None | Some(Json::Null) => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(other) => Some(other.to_string()),
    }
}
