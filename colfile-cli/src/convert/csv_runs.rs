//! CSV input cut into runs of whole records, so that each run can be parsed on its own
//! thread: a cut is made only where the `csv` crate ends a record (a quote opens a quoted
//! field only at a field's start, `""` inside one is a quote, and a line break inside one
//! is text), and each run knows the position, line and record number it starts at.

use crate::csv_opts::CsvOptions;
use std::io::BufRead;

/// A run of whole CSV records cut from the input.
pub(super) struct RawRecords {
    /// The records' bytes, terminators included.
    pub(super) bytes: Vec<u8>,
    /// Where the run starts in the input (byte, line from 1, records before it).
    pub(super) start: csv::Position,
    /// How many records it holds (blank lines are not records).
    pub(super) records: u64,
}

/// A reader of the records in `bytes`, which start at `start` in the input: the positions
/// it reports (and names in its errors) are the input's.
pub(super) fn positioned<B: AsRef<[u8]>>(
    bytes: B,
    start: csv::Position,
    opts: &CsvOptions,
) -> csv::Reader<std::io::Cursor<B>> {
    let mut r = opts.reader(std::io::Cursor::new(bytes));
    // The reader is at the bytes' start already: this only sets the positions. (seek_raw
    // first reads one record as a header, which a reader of bytes cannot fail to.)
    let _ = r.seek_raw(std::io::SeekFrom::Start(0), start);
    r
}

/// The records of an input, cut into runs of about `target` bytes (a run holds at least one
/// record, however long).
pub(super) struct RecordRuns {
    input: Box<dyn BufRead>,
    quote: u8,
    delimiter: u8,
    target: usize,
    /// Bytes read but not yet handed out; they start at a record's start.
    carry: Vec<u8>,
    start: csv::Position,
    eof: bool,
}

impl RecordRuns {
    pub(super) fn new(input: Box<dyn BufRead>, opts: &CsvOptions, target: usize) -> Self {
        let mut start = csv::Position::new();
        start.set_line(1);
        RecordRuns {
            input,
            quote: opts.quote,
            delimiter: opts.delimiter,
            target: target.max(1),
            carry: Vec::new(),
            start,
            eof: false,
        }
    }

    /// The next run; `None` at the end of the input.
    pub(super) fn next_run(&mut self) -> std::io::Result<Option<RawRecords>> {
        let mut want = self.target;
        loop {
            while !self.eof && self.carry.len() < want {
                let buf = self.input.fill_buf()?;
                if buf.is_empty() {
                    self.eof = true;
                    break;
                }
                let n = buf.len().min(want - self.carry.len());
                self.carry
                    .extend_from_slice(buf.get(..n).unwrap_or_default());
                self.input.consume(n);
            }
            let cut = last_cut(&self.carry, self.quote, self.delimiter);
            let (end, records) = if self.eof {
                let tail = self.carry.get(cut.end..).unwrap_or_default();
                let open = tail.iter().any(|b| !matches!(b, b'\r' | b'\n'));
                (self.carry.len(), cut.records + u64::from(open))
            } else if cut.end == 0 {
                // No record ends in what was read: read more.
                want = self.carry.len() + self.target;
                continue;
            } else {
                (cut.end, cut.records)
            };
            if end == 0 {
                return Ok(None);
            }
            // The next run's buffer is made at its full size once, not grown by doubling.
            let mut rest = Vec::with_capacity(self.target.max(self.carry.len() - end));
            rest.extend_from_slice(self.carry.get(end..).unwrap_or_default());
            self.carry.truncate(end);
            let bytes = std::mem::replace(&mut self.carry, rest);
            let start = self.start.clone();
            let lines = memchr::memchr_iter(b'\n', &bytes).count() as u64;
            self.start.set_byte(start.byte() + bytes.len() as u64);
            self.start.set_line(start.line() + lines);
            self.start.set_record(start.record() + records);
            if records > 0 {
                return Ok(Some(RawRecords {
                    bytes,
                    start,
                    records,
                }));
            }
            // Only blank lines: nothing to hand out.
            want = self.target;
        }
    }
}

/// Where the last record ending in `bytes` (which start at a record's start) ends, just
/// past its terminator, and how many records end before that.
#[derive(Debug, PartialEq, Eq)]
struct Cut {
    end: usize,
    records: u64,
}

fn is_term(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// Scans `bytes` as the `csv` crate reads them (quoting on, `""` a quote, no escape or
/// comment character, `\r`, `\n` or `\r\n` ending a record, blank lines skipped) for the
/// last record end. Between quotes it jumps to the next quote; elsewhere to the next quote
/// or line break, so it runs at memchr's speed.
fn last_cut(bytes: &[u8], quote: u8, delimiter: u8) -> Cut {
    let mut cut = Cut { end: 0, records: 0 };
    // Where the current record starts.
    let mut record = 0usize;
    let mut i = 0usize;
    loop {
        // Not in a quoted field.
        let Some(off) = memchr::memchr3(quote, b'\r', b'\n', bytes.get(i..).unwrap_or_default())
        else {
            return cut;
        };
        let j = i + off;
        if j == record && is_term(bytes.get(j).copied().unwrap_or(0)) {
            // A line break with no record before it: skipped (with the next record, as the
            // csv crate reads it).
            record = j + 1;
            i = j + 1;
            continue;
        }
        if bytes.get(j) != Some(&quote) {
            cut.records += 1;
            record = j + 1;
            cut.end = j + 1;
            i = j + 1;
            continue;
        }
        let field_start =
            j == record || j.checked_sub(1).and_then(|p| bytes.get(p)) == Some(&delimiter);
        i = j + 1;
        if !field_start {
            continue; // a quote inside an unquoted field is text
        }
        // In a quoted field: it ends at a quote not followed by another.
        loop {
            let Some(off) = memchr::memchr(quote, bytes.get(i..).unwrap_or_default()) else {
                return cut;
            };
            let q = i + off;
            match bytes.get(q + 1) {
                None => return cut, // `"` or `""`: not known until more is read
                Some(&b) if b == quote => i = q + 2,
                Some(_) => {
                    i = q + 1;
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A xorshift generator of test inputs, from `seed`.
    pub(in crate::convert) fn xorshift(mut seed: u64) -> impl FnMut() -> u64 {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        }
    }

    /// Options other than the defaults: `;` between fields, `'` quoting.
    pub(in crate::convert) fn semicolons() -> CsvOptions {
        CsvOptions {
            delimiter: b';',
            quote: b'\'',
            ..CsvOptions::default()
        }
    }

    type Read = Vec<(Vec<Vec<u8>>, u64, u64, u64)>;

    /// Appends every record `r` reads to `out`, with its start byte, line and record number.
    fn read_all<R: std::io::Read>(r: &mut csv::Reader<R>, out: &mut Read) {
        let mut rec = csv::ByteRecord::new();
        while r.read_byte_record(&mut rec).unwrap() {
            let p = rec.position().unwrap();
            let fields = rec.iter().map(<[u8]>::to_vec).collect();
            out.push((fields, p.byte(), p.line(), p.record()));
        }
    }

    /// Every record of `text` with its position, as the csv crate reads the whole text.
    fn whole(text: &[u8], opts: &CsvOptions) -> Read {
        let mut out = Vec::new();
        read_all(&mut opts.reader(text), &mut out);
        out
    }

    /// The same, read run by run.
    fn by_runs(text: &[u8], opts: &CsvOptions, target: usize) -> Read {
        let mut runs = RecordRuns::new(Box::new(std::io::Cursor::new(text.to_vec())), opts, target);
        let mut out = Vec::new();
        while let Some(run) = runs.next_run().unwrap() {
            let (n, before) = (run.records, out.len());
            read_all(&mut positioned(run.bytes, run.start, opts), &mut out);
            assert_eq!(out.len() - before, n as usize, "records counted in a run");
            assert!(n > 0);
        }
        out
    }

    fn check(text: &[u8], opts: &CsvOptions) {
        let expect = whole(text, opts);
        for target in [1, 2, 3, 5, 8, 64] {
            assert_eq!(
                by_runs(text, opts, target),
                expect,
                "{:?} by {target}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn runs_read_as_the_whole_input_reads_for_every_short_input() {
        let opts = CsvOptions::default();
        let alphabet = b"a,\"\r\n";
        // Every input of up to 6 bytes over the characters that matter.
        for len in 0..=5u32 {
            for mut k in 0..alphabet.len().pow(len) {
                let mut text = Vec::new();
                for _ in 0..len {
                    text.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                check(&text, &opts);
            }
        }
    }

    #[test]
    fn runs_read_as_the_whole_input_reads_for_long_random_inputs_and_other_options() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let semi = semicolons();
        for (opts, alphabet) in [
            (CsvOptions::default(), &b"ab,,\"\"\r\n\n;'"[..]),
            (semi, &b"ab;;''\r\n\n,\""[..]),
        ] {
            for _ in 0..400 {
                let len = (next() % 200) as usize;
                let text: Vec<u8> = (0..len)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                check(&text, &opts);
            }
        }
    }

    #[test]
    fn a_record_longer_than_the_target_is_one_run() {
        let opts = CsvOptions::default();
        let text = b"\"a long\nquoted\r\nfield\",x\nb,y\n";
        let mut runs = RecordRuns::new(Box::new(&text[..]), &opts, 4);
        let first = runs.next_run().unwrap().unwrap();
        assert_eq!(first.bytes, b"\"a long\nquoted\r\nfield\",x\n");
        assert_eq!((first.records, first.start.line()), (1, 1));
        let second = runs.next_run().unwrap().unwrap();
        assert_eq!(
            (
                second.start.byte(),
                second.start.line(),
                second.start.record()
            ),
            (25, 4, 1)
        );
        assert!(runs.next_run().unwrap().is_none());
    }
}
