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
                    let bytes = records.get_ref().get_ref();
                    let (record, start) = (&self.record, &self.run_start);
                    self.record_line = record.position().map_or(0, |p| line_of(bytes, start, p));
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
        match self.plain_text() {
            Some(text) => self.plain_rows(text, each),
            None => self.csv_rows(each),
        }
    }
}

impl CsvRun {
    /// The run's text where its records are plain lines: UTF-8 with no quote character and
    /// no carriage return, so that every line break ends a record (blank lines end none)
    /// and every delimiter ends a field, as the `csv` crate reads them.
    fn plain_text(&self) -> Option<&str> {
        let bytes = &self.raw.bytes[..];
        if memchr::memchr2(self.opts.quote, b'\r', bytes).is_some() {
            return None;
        }
        std::str::from_utf8(bytes).ok()
    }

    /// [`csv_rows`](Self::csv_rows) of a run of plain lines, cut at line breaks and
    /// delimiters in one pass.
    fn plain_rows(&self, text: &str, each: &mut EachRow<'_>) -> Result<(), Failure> {
        let (bytes, delimiter) = (text.as_bytes(), self.opts.delimiter);
        let mut cells = Vec::with_capacity(self.width);
        let (mut row, mut line, mut start) = (self.first_row, self.raw.start.line(), 0);
        let ends = memchr::memchr2_iter(delimiter, b'\n', bytes);
        for end in ends.chain(std::iter::once(bytes.len())) {
            let cell = text.get(start..end).unwrap_or_default();
            start = end + 1;
            if bytes.get(end) == Some(&delimiter) {
                cells.push(cell);
                continue;
            }
            // A line ends (or the text): a record, unless the line is blank.
            if !(cells.is_empty() && cell.is_empty()) {
                cells.push(cell);
                check_width(&self.name, line, cells.len(), self.width)?;
                each(row, &cells)?;
                cells.clear();
                row += 1;
            }
            line += 1;
        }
        Ok(())
    }

    /// Reads the run's records with the `csv` crate.
    fn csv_rows(&self, each: &mut EachRow<'_>) -> Result<(), Failure> {
        let mut records = positioned(&self.raw.bytes[..], self.raw.start.clone(), &self.opts);
        let (mut record, mut spare) = (csv::StringRecord::new(), Vec::with_capacity(self.width));
        let mut line = self.raw.start.line();
        for row in self.first_row.. {
            let more = records.read_record(&mut record);
            if !more.map_err(|e| read_failure(&self.name, e, line))? {
                return Ok(());
            }
            line = record
                .position()
                .map_or(line, |p| line_of(&self.raw.bytes, &self.raw.start, p));
            check_width(&self.name, line, record.len(), self.width)?;
            let mut cells = recycle(std::mem::take(&mut spare), || "");
            cells.extend(record.iter());
            each(row, &cells)?;
            spare = recycle(cells, || "");
        }
        Ok(())
    }
}

/// The line the record at `p` starts on, in `bytes` (which start at `start`): the csv crate
/// places a record where the blank lines before it start, and those are counted past.
fn line_of(bytes: &[u8], start: &csv::Position, p: &csv::Position) -> u64 {
    let at = usize::try_from(p.byte().saturating_sub(start.byte())).unwrap_or(usize::MAX);
    let blank = bytes.get(at..).unwrap_or_default();
    let blank = blank.iter().take_while(|b| matches!(b, b'\r' | b'\n'));
    p.line() + blank.filter(|&&b| b == b'\n').count() as u64
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

#[cfg(test)]
mod tests {
    use super::super::csv_runs::tests::{semicolons, xorshift};
    use super::super::csv_runs::RecordRuns;
    use super::*;

    /// Every row (number and cells) the runs of `text` give through `read`, and the first
    /// failure's message.
    fn rows_of(
        text: &[u8],
        opts: &CsvOptions,
        width: usize,
        read: impl Fn(&CsvRun, &mut EachRow<'_>) -> Result<(), Failure>,
    ) -> (Vec<(usize, Vec<String>)>, Option<String>) {
        let mut runs = RecordRuns::new(Box::new(std::io::Cursor::new(text.to_vec())), opts, 7);
        let (mut rows, mut first_row) = (Vec::new(), 1);
        while let Some(raw) = runs.next_run().expect("bytes read") {
            let run = CsvRun {
                raw,
                opts: opts.clone(),
                width,
                first_row,
                name: "in.csv".into(),
            };
            first_row += run.len();
            let r = read(&run, &mut |n, cells| {
                rows.push((n, cells.iter().map(|c| c.to_string()).collect()));
                Ok(())
            });
            if let Err(e) = r {
                return (rows, Some(e.message));
            }
        }
        (rows, None)
    }

    #[test]
    fn plain_lines_are_cut_as_the_csv_crate_reads_them() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let semi = semicolons();
        let mut plain = 0;
        for (opts, alphabet) in [
            (
                CsvOptions::default(),
                ["a", "b", ",", ",", "\n", "\n", ";", " ", "é", "\"", "\r"],
            ),
            (
                semi,
                ["a", "b", ";", ";", "\n", "\n", ",", " ", "é", "'", "\r"],
            ),
        ] {
            for i in 0..1500 {
                // Most inputs without a quote or a carriage return, some with.
                let letters = if i % 4 == 0 { 11 } else { 9 };
                let len = (next() % 60) as usize;
                let text: String = (0..len)
                    .map(|_| alphabet[(next() % letters) as usize])
                    .collect();
                for width in [1, 2, 3] {
                    let slow = rows_of(text.as_bytes(), &opts, width, CsvRun::csv_rows);
                    let fast = rows_of(text.as_bytes(), &opts, width, |run, each| {
                        run.for_each_row(each)
                    });
                    assert_eq!(fast, slow, "{text:?}, width {width}");
                    plain += usize::from(letters == 9);
                }
            }
        }
        assert!(plain > 5_000);
    }

    #[test]
    fn a_record_after_blank_lines_is_placed_on_its_own_line() {
        let text = b"a,b\n\n\r\n\nc,\"d\"\n\ne,f\n";
        let input = super::super::text::TextInput {
            input: Box::new(&text[..]),
            consumed: 0,
            total: None,
            name: "in.csv".into(),
        };
        let mut r = CsvReader::new(input, &CsvOptions::default());
        let mut lines = Vec::new();
        while r.read().ok().expect("records") {
            lines.push(r.record_line);
        }
        assert_eq!(lines, [1, 5, 7]);
        let (rows, e) = rows_of(text, &CsvOptions::default(), 3, CsvRun::csv_rows);
        assert_eq!(
            (rows.len(), e.as_deref()),
            (0, Some("in.csv: line 1: 2 fields where the header has 3"))
        );
        let (_, e) = rows_of(&text[4..], &CsvOptions::default(), 3, CsvRun::csv_rows);
        assert_eq!(
            e.as_deref(),
            Some("in.csv: line 4: 2 fields where the header has 3")
        );
    }

    #[test]
    fn a_run_with_quotes_or_returns_or_bad_utf8_is_not_plain() {
        let run = |bytes: &[u8]| CsvRun {
            raw: super::super::csv_runs::RawRecords {
                bytes: bytes.to_vec(),
                start: csv::Position::new(),
                records: 1,
            },
            opts: CsvOptions::default(),
            width: 2,
            first_row: 1,
            name: "in.csv".into(),
        };
        assert_eq!(run(b"a,b\n").plain_text(), Some("a,b\n"));
        for bytes in [&b"\"a\",b\n"[..], b"a,b\r\n", b"a,\xff\n"] {
            assert_eq!(run(bytes).plain_text(), None, "{bytes:?}");
        }
        // A bad byte is reported where the csv crate reports it.
        let e = run(b"a,\xff\n")
            .for_each_row(&mut |_, _| Ok(()))
            .unwrap_err();
        assert!(e.message.contains("line 1"), "{}", e.message);
    }
}
