//! CSV for `convert`: records in (RFC 4180: quoted fields may hold commas, quotes and line
//! breaks), and the cells `cat --format csv` writes out.

use super::text::TextInput;
use crate::Failure;
use serde_json::Value as Json;

pub struct CsvReader {
    text: TextInput,
    line: String,
    /// Lines read, and the line the current record starts on (1 = the header).
    lines: u64,
    record_line: u64,
}

impl CsvReader {
    pub fn new(text: TextInput) -> Self {
        CsvReader {
            text,
            line: String::new(),
            lines: 0,
            record_line: 0,
        }
    }

    pub fn consumed(&self) -> u64 {
        self.text.consumed
    }

    pub fn total(&self) -> Option<u64> {
        self.text.total
    }

    /// A bad-data failure located at the current record.
    pub fn error(&self, m: String) -> Failure {
        Failure::input(format!(
            "{}: line {}: {m}",
            self.text.name, self.record_line
        ))
    }

    /// Reads the next record's fields into `out`; false at the end. Blank lines are skipped.
    pub fn next_record(&mut self, out: &mut Vec<String>) -> Result<bool, Failure> {
        out.clear();
        loop {
            if !self.text.read_line(&mut self.line)? {
                return Ok(false);
            }
            self.lines += 1;
            if !self.line.is_empty() {
                break;
            }
        }
        self.record_line = self.lines;
        let mut field = String::new();
        let mut quoted = false;
        loop {
            let mut chars = self.line.chars().peekable();
            while let Some(c) = chars.next() {
                match (quoted, c) {
                    (true, '"') if chars.peek() == Some(&'"') => {
                        chars.next();
                        field.push('"');
                    }
                    (true, '"') => quoted = false,
                    (true, c) => field.push(c),
                    (false, '"') if field.is_empty() => quoted = true,
                    (false, ',') => out.push(std::mem::take(&mut field)),
                    (false, c) => field.push(c),
                }
            }
            if !quoted {
                break;
            }
            // A quoted field goes on over the line break.
            field.push('\n');
            if !self.text.read_line(&mut self.line)? {
                return Err(self.error("a quoted field is not closed".into()));
            }
            self.lines += 1;
        }
        out.push(field);
        Ok(true)
    }
}

/// Appends the CSV cell `cat --format csv` writes for the JSON value `j`: nothing for
/// null, a string's text, the JSON text of anything else.
pub fn push_cell(out: &mut String, j: Option<&Json>) {
    match j {
        None | Some(Json::Null) => {}
        Some(Json::String(s)) => crate::read_cmds::csv_field(out, s),
        Some(other) => crate::read_cmds::csv_field(out, &other.to_string()),
    }
}
