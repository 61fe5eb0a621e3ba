//! CSV options (`--delimiter`, `--quote`, `--no-header`, `--null`) of `cat`, `head` and
//! `convert`, and the `csv` crate's reader and writer set up with them. Every CSV the
//! command reads or writes goes through here.

use crate::Failure;
use std::cell::RefCell;
use std::io::{Read, Write};
use std::rc::Rc;

/// How CSV is read and written.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// The field separator (`,` unless `--delimiter`).
    pub delimiter: u8,
    /// The quote character (`"` unless `--quote`).
    pub quote: u8,
    /// Whether the first record is the column names (not with `--no-header`).
    pub header: bool,
    /// The text of a null cell (empty unless `--null`); reading, a cell with exactly this
    /// text is null.
    pub null: String,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            delimiter: b',',
            quote: b'"',
            header: true,
            null: String::new(),
        }
    }
}

/// The long flags [`CsvOptions::set`] takes; all but `no-header` take a value.
pub const CSV_FLAGS: [&str; 4] = ["delimiter", "quote", "no-header", "null"];

/// One ASCII character for `--delimiter`/`--quote`: itself, or `tab`/`\t`, `comma`,
/// `semicolon`, `pipe`, `space`.
fn one_byte(flag: &str, v: &str) -> Result<u8, Failure> {
    let b = match v {
        "tab" | "\\t" | "\t" => b'\t',
        "comma" => b',',
        "semicolon" => b';',
        "pipe" => b'|',
        "space" => b' ',
        _ if v.len() == 1 && v.is_ascii() => v.as_bytes()[0],
        _ => {
            return Err(Failure::usage(format!(
                "--{flag} wants one ASCII character (or tab, comma, semicolon, pipe, space), \
                 got {v:?}"
            )))
        }
    };
    if matches!(b, b'\n' | b'\r') {
        return Err(Failure::usage(format!("--{flag} cannot be a line break")));
    }
    Ok(b)
}

impl CsvOptions {
    /// Applies `--flag [value]` (one of [`CSV_FLAGS`]); `value` is asked for only by the
    /// flags that take one.
    pub fn set(
        &mut self,
        flag: &str,
        value: impl FnOnce() -> Result<String, Failure>,
    ) -> Result<(), Failure> {
        match flag {
            "delimiter" => self.delimiter = one_byte(flag, &value()?)?,
            "quote" => self.quote = one_byte(flag, &value()?)?,
            "no-header" => self.header = false,
            "null" => self.null = value()?,
            _ => return Err(Failure::usage(format!("unknown CSV option --{flag}"))),
        }
        Ok(())
    }

    /// Checks the options together, once all are set.
    pub fn check(&self) -> Result<(), Failure> {
        if self.delimiter == self.quote {
            return Err(Failure::usage(
                "--delimiter and --quote must be different characters",
            ));
        }
        Ok(())
    }

    /// A reader of records from `input` (no header handling: the caller takes the first
    /// record as the header when [`header`](Self::header) says so).
    pub fn reader<R: Read>(&self, input: R) -> csv::Reader<R> {
        csv::ReaderBuilder::new()
            .delimiter(self.delimiter)
            .quote(self.quote)
            .has_headers(false)
            .flexible(true)
            .from_reader(input)
    }

    /// An encoder of records as lines.
    pub fn line_writer(&self) -> CsvLine {
        let buf = SharedBuf::default();
        CsvLine {
            writer: csv::WriterBuilder::new()
                .delimiter(self.delimiter)
                .quote(self.quote)
                .terminator(csv::Terminator::Any(b'\n'))
                .from_writer(buf.clone()),
            buf,
            null: self.null.clone(),
        }
    }
}

/// The bytes a [`CsvLine`]'s writer wrote, shared with the [`CsvLine`] that takes them.
#[derive(Clone, Default)]
struct SharedBuf(Rc<RefCell<Vec<u8>>>);

impl Write for SharedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Encodes records one at a time as text lines (quoting as the options say), so the
/// commands can write each where they write lines.
pub struct CsvLine {
    writer: csv::Writer<SharedBuf>,
    buf: SharedBuf,
    null: String,
}

impl CsvLine {
    /// Appends `fields` as one record (no line break) to `out`; `None` is a null cell.
    pub fn record<I, S>(&mut self, fields: I, out: &mut String) -> Result<(), Failure>
    where
        I: IntoIterator<Item = Option<S>>,
        S: AsRef<str>,
    {
        let mut any = false;
        for f in fields {
            any = true;
            let r = match &f {
                Some(s) => self.writer.write_field(s.as_ref()),
                None => self.writer.write_field(&self.null),
            };
            r.map_err(csv_failure)?;
        }
        if !any {
            // No columns: an empty line (the writer would write `""`).
            return Ok(());
        }
        self.writer
            .write_record(std::iter::empty::<&[u8]>())
            .map_err(csv_failure)?;
        self.writer.flush()?;
        let mut bytes = self.buf.0.borrow_mut();
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        out.push_str(&String::from_utf8_lossy(&bytes));
        bytes.clear();
        Ok(())
    }

    /// `record` of cells that are all present (a header).
    pub fn names<S: AsRef<str>>(&mut self, names: &[S], out: &mut String) -> Result<(), Failure> {
        self.record(names.iter().map(Some), out)
    }
}

/// A `csv` crate error as a failure (bad data, exit 1).
pub fn csv_failure(e: csv::Error) -> Failure {
    Failure::input(format!("CSV: {e}"))
}
