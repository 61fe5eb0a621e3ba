//! CSV for `convert`: records in, through the `csv` crate with the `--delimiter`, `--quote`
//! and `--null` options (quoted fields may hold delimiters, quotes and line breaks), and the
//! cells `cat --format csv` writes for JSON values.

use super::text::TextInput;
use crate::csv_opts::CsvOptions;
use crate::Failure;
use serde_json::Value as Json;
use std::io::BufRead;

pub struct CsvReader {
    records: csv::Reader<Box<dyn BufRead>>,
    record: csv::StringRecord,
    name: String,
    total: Option<u64>,
    /// The line the current record starts on (1 = the first line).
    record_line: u64,
    null: String,
}

impl CsvReader {
    pub fn new(text: TextInput, opts: &CsvOptions) -> Self {
        CsvReader {
            records: opts.reader(text.input),
            record: csv::StringRecord::new(),
            name: text.name,
            total: text.total,
            record_line: 0,
            null: opts.null.clone(),
        }
    }

    pub fn consumed(&self) -> u64 {
        self.records.position().byte()
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
        let more = self.records.read_record(&mut self.record).map_err(|e| {
            let line = e.position().map_or(self.record_line + 1, |p| p.line());
            Failure::input(format!("{}: line {line}: {e}", self.name))
        })?;
        if !more {
            self.record.clear();
            return Ok(false);
        }
        self.record_line = self.record.position().map_or(0, |p| p.line());
        Ok(true)
    }

    /// The fields of the record last read.
    pub fn fields(&self) -> &csv::StringRecord {
        &self.record
    }

    /// Whether a cell is null: its text is `--null`'s (empty by default).
    pub fn is_null(&self, cell: &str) -> bool {
        cell == self.null
    }
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
