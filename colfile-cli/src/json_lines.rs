//! The input of `write`: JSON lines, or rows of named text cells (`convert`'s CSV records),
//! read in batches that worker threads parse while a writer thread takes the parsed batches
//! in input order.

use crate::Failure;
use colfile::json_scan::Scalar;
use colfile::tsfile::format::DataType;
use colfile::tsfile::ValueRef;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;

/// The rows `write` reads.
pub enum RowInput<'i> {
    /// JSON lines: these, else `--input`'s, else stdin's.
    Lines(Option<Box<dyn BufRead>>),
    /// Rows of named cells (`convert`'s CSV records), and how their cells read.
    Cells(Box<dyn CellReader>, &'i mut dyn CellRows),
}

/// `lines`, else the file `path`, else stdin, buffered.
pub fn open_lines(
    lines: Option<Box<dyn BufRead>>,
    path: Option<&std::path::Path>,
) -> Result<Box<dyn BufRead>, Failure> {
    Ok(match (lines, path) {
        (Some(i), _) => i,
        (None, Some(p)) => Box::new(std::io::BufReader::with_capacity(
            1 << 20,
            std::fs::File::open(p).map_err(|e| Failure::from(e).context(p))?,
        )),
        (None, None) => Box::new(std::io::BufReader::with_capacity(1 << 20, std::io::stdin())),
    })
}

/// Rows of named text cells for `write` (CSV records under their header), each read as the
/// JSON object of its cells would be.
pub trait CellRows {
    /// The next batch of rows; `None` at the end.
    fn next_batch(&mut self) -> Result<Option<Box<dyn CellBatch>>, Failure>;
    /// Input bytes read so far, when known (for progress).
    fn consumed(&self) -> Option<u64>;
}

/// How a row's cells read as the members of its JSON object.
pub trait CellReader: Send + Sync {
    /// Hands each of `cells` to `m` under its name, in order, as the JSON scalar it is in
    /// the row's object; `None` where one is not a plain scalar (or `m` says `None`).
    fn members<'s>(
        &'s self,
        cells: &[&'s str],
        m: &mut dyn FnMut(&'s str, Scalar<'s>) -> Option<()>,
    ) -> Option<()>;
    /// The row's JSON object, as text, into `line`.
    fn json_line(&self, cells: &[&str], line: &mut String);
    /// The names [`members`](Self::members) gives every row's cells under, in order.
    fn names(&self) -> &[String];
    /// The value that cell `i`'s scalar (as [`members`](Self::members) gives it) stands for
    /// in a TsFile column of `data_type`; `None` where it stands for none, or is not a plain
    /// scalar.
    fn ts_value<'s>(&self, i: usize, cell: &'s str, data_type: DataType) -> Option<ValueRef<'s>>;
}

/// What [`CellBatch::for_each_row`] gives each row to: its number and its cells.
pub type EachRow<'a> = dyn FnMut(usize, &[&str]) -> Result<(), Failure> + 'a;

/// Rows of text cells handed whole to a parsing thread, which reads their cells (a run of
/// CSV records).
pub trait CellBatch: Send {
    /// How many rows it holds.
    fn len(&self) -> usize;
    /// Gives each row to `each(row_number, cells)`, in order; the first failure (of reading
    /// a row, or of `each`) stops it.
    fn for_each_row(&self, each: &mut EachRow<'_>) -> Result<(), Failure>;
}

/// Most lines handed to a parsing thread at a time.
const BATCH: usize = 1024;
/// A batch is handed over once its text reaches this many bytes, whatever its lines.
const BATCH_BYTES: usize = 1 << 20;

/// Input lines handed to a parsing thread: their bytes one after another, each non-blank
/// line with its number (from 1, blank lines counted) and its place in the bytes. The
/// reading thread only cuts lines; the parsing thread checks that they are UTF-8.
#[derive(Default)]
pub struct LineBatch {
    bytes: Vec<u8>,
    spans: Vec<(usize, usize, usize)>,
}

impl LineBatch {
    /// Each line's number and text (without its line end), in input order; a failure naming
    /// the first line that is not UTF-8 (the whole batch is checked at once).
    pub fn lines(&self) -> Result<impl Iterator<Item = (usize, &str)>, Failure> {
        let text = std::str::from_utf8(&self.bytes).map_err(|e| {
            let at = e.valid_up_to();
            let i = self.spans.partition_point(|&(_, _, end)| end <= at);
            let (n, start) = self.spans.get(i).map_or((0, 0), |s| (s.0, s.1));
            let byte = at - start.min(at) + 1;
            Failure::input(format!(
                "input line {n}: not valid UTF-8 (byte {byte} of the line)"
            ))
        })?;
        Ok(self
            .spans
            .iter()
            .map(|&(n, start, end)| (n, text.get(start..end).unwrap_or_default())))
    }

    /// How many lines it holds.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// Reads line `n` of `input` onto the batch; false at the end of the input. A line's
    /// end (`\n`, then one `\r` before it) is not kept; a blank line is read but not kept.
    fn read_line(&mut self, input: &mut dyn BufRead, n: usize) -> std::io::Result<bool> {
        let start = self.bytes.len();
        if input.read_until(b'\n', &mut self.bytes)? == 0 {
            return Ok(false);
        }
        let line = self.bytes.get(start..).unwrap_or_default();
        let line = line.strip_suffix(b"\n").unwrap_or(line);
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if is_blank(line) {
            self.bytes.truncate(start);
        } else {
            let end = start + line.len();
            self.bytes.truncate(end);
            self.spans.push((n, start, end));
        }
        Ok(true)
    }

    fn full(&self) -> bool {
        self.spans.len() >= BATCH || self.bytes.len() >= BATCH_BYTES
    }
}

/// Whether a line is empty or all white space, as `str::trim` sees it (a line that is not
/// UTF-8 is not blank: its parsing thread reports it).
fn is_blank(line: &[u8]) -> bool {
    // char::is_whitespace's ASCII members; most lines stop at their first byte.
    let ascii_space = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r');
    if line.iter().any(|b| b.is_ascii() && !ascii_space(b)) {
        return false;
    }
    line.iter().all(ascii_space) || std::str::from_utf8(line).is_ok_and(|s| s.trim().is_empty())
}

/// A numbered batch of parsed lines, or why one of them did not parse.
type Parsed<B> = (u64, Result<B, Failure>);

/// The batches of lines of `input`, read on the calling thread, for [`parse_in_order`].
pub fn line_batches<'i>(
    mut input: Box<dyn BufRead + 'i>,
) -> impl FnMut() -> Result<Option<LineBatch>, Failure> + 'i {
    let (mut n, mut room) = (0usize, 0usize);
    move || {
        // Room for about as much text as the last batch held (at most twice a full batch's),
        // so that the buffer is not grown by doubling.
        let mut batch = LineBatch {
            bytes: Vec::with_capacity(room),
            spans: Vec::with_capacity(if room > 0 { BATCH } else { 0 }),
        };
        while !batch.full() && batch.read_line(&mut input, n + 1)? {
            n += 1;
        }
        room = (batch.bytes.len() + batch.bytes.len() / 8).min(2 * BATCH_BYTES);
        Ok((batch.len() > 0).then_some(batch))
    }
}

/// The batches of rows of `rows`, read on the calling thread, for [`parse_in_order`].
pub fn cell_batches<'c>(
    rows: &'c mut dyn CellRows,
) -> impl FnMut() -> Result<Option<Box<dyn CellBatch>>, Failure> + 'c {
    move || rows.next_batch()
}

/// How many threads parse: one per core.
pub fn workers() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Takes batches from `next` (on this thread) until it gives `None`, parses each with
/// `parse(batch)` on `workers` threads, and gives the results to `sink` in input order on
/// one more thread. Returns the first failure in input order (a batch that does not parse,
/// or one `sink` refuses), or `next`'s own failure. Memory: a few batches of input and of
/// parsed rows per worker.
pub fn parse_in_order<L: Send, B: Send>(
    mut next: impl FnMut() -> Result<Option<L>, Failure>,
    workers: usize,
    parse: impl Fn(L) -> Result<B, Failure> + Sync,
    mut sink: impl FnMut(B) -> Result<(), Failure> + Send,
) -> Result<(), Failure> {
    let workers = workers.max(1);
    let (line_tx, line_rx) = sync_channel::<(u64, L)>(2 * workers);
    let line_rx = Mutex::new(line_rx);
    let (row_tx, row_rx) = sync_channel::<Parsed<B>>(2 * workers);
    // Set once the writer has stopped: parsers then only drain what the reader sends, so
    // that a reader waiting to send is let go, and the reader sends no more.
    let stop = AtomicBool::new(false);
    let stop = &stop;
    std::thread::scope(|s| {
        for _ in 0..workers {
            let (row_tx, line_rx, parse) = (row_tx.clone(), &line_rx, &parse);
            s.spawn(move || loop {
                // The lock is held only while waiting for the next batch.
                let next = match line_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((seq, lines)) = next else {
                    return; // the input is done, or reading it failed
                };
                if stop.load(Ordering::Relaxed) {
                    continue;
                }
                if row_tx.send((seq, parse(lines))).is_err() {
                    stop.store(true, Ordering::Relaxed); // the writer stopped: it says why
                }
            });
        }
        drop(row_tx);
        let writer = s.spawn(move || {
            let r = write_in_order(row_rx, &mut sink);
            if r.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            r
        });
        let read = (|| {
            let mut seq = 0u64;
            while let Some(batch) = next()? {
                if stop.load(Ordering::Relaxed) || line_tx.send((seq, batch)).is_err() {
                    return Ok(()); // the writer stopped: it says why
                }
                seq += 1;
            }
            Ok::<_, Failure>(())
        })();
        drop(line_tx);
        let written = writer
            .join()
            .unwrap_or_else(|_| Err(Failure::input("the writing thread panicked")));
        // The writer's failure first: it is why reading stopped, if it stopped early.
        written.and(read)
    })
}

/// Takes numbered parsed batches from `rx` in any order and gives them to `sink` in their
/// order; the first failure in that order stops it.
fn write_in_order<B>(
    rx: std::sync::mpsc::Receiver<Parsed<B>>,
    sink: &mut impl FnMut(B) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut early = BTreeMap::new();
    let mut next = 0u64;
    for (seq, parsed) in rx {
        early.insert(seq, parsed);
        while let Some(parsed) = early.remove(&next) {
            next += 1;
            sink(parsed?)?;
        }
    }
    if early.is_empty() {
        Ok(())
    } else {
        Err(Failure::input("a thread parsing the input stopped"))
    }
}

/// `row` emptied, its room kept for items that borrow other text (made by `empty` where
/// needed): a row of items borrowed from each input line or record, without an allocation
/// for each. (The standard library collects a `Vec`'s own iterator into the same allocation
/// when the items have the same size.)
pub(crate) fn recycle<T, U>(mut row: Vec<T>, empty: impl Fn() -> U) -> Vec<U> {
    row.clear();
    row.into_iter().map(|_| empty()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_recycled_row_keeps_its_room() {
        let text = String::from("abc");
        let mut row = Vec::with_capacity(9);
        row.push(ValueRef::Binary(text.as_bytes()));
        let (ptr, cap) = (row.as_ptr() as usize, row.capacity());
        let again: Vec<ValueRef<'static>> = recycle(row, || ValueRef::Null);
        drop(text);
        assert!(again.is_empty());
        assert_eq!((again.as_ptr() as usize, again.capacity()), (ptr, cap));
        let record = String::from("a,b");
        let cells: Vec<&str> = record.split(',').collect();
        let (ptr, cap) = (cells.as_ptr() as usize, cells.capacity());
        let again: Vec<&'static str> = recycle(cells, || "");
        drop(record);
        assert_eq!((again.as_ptr() as usize, again.capacity()), (ptr, cap));
    }

    #[test]
    fn blank_is_what_trim_empties() {
        let lines: [&[u8]; 14] = [
            b"",
            b" ",
            b"\t \r",
            b"\x0b",
            b"\x0c ",
            b"{}",
            b" 1",
            "\u{a0}".as_bytes(),
            "\u{3000} \u{85}".as_bytes(),
            "\u{a0}x".as_bytes(),
            "\u{e9}".as_bytes(),
            b"\xff",
            b" \xa0",
            b"\x00",
        ];
        for l in lines {
            let trimmed = std::str::from_utf8(l).is_ok_and(|s| s.trim().is_empty());
            assert_eq!(is_blank(l), trimmed, "{l:?}");
        }
    }

    #[test]
    fn lines_are_cut_on_one_thread_and_checked_on_another() {
        let input = b"{\"a\":1}\r\n\n  \n\"\xc3\xa9\"\n[\xff]\n[2]";
        let mut next = line_batches(Box::new(&input[..]));
        let batch = next().ok().flatten().expect("a batch");
        assert_eq!(batch.len(), 4, "the blank lines 2 and 3 are not kept");
        let e = batch.lines().err().expect("line 5 is not UTF-8");
        assert!(
            e.message.contains("input line 5: not valid UTF-8 (byte 2 "),
            "{}",
            e.message
        );
        let good = &input[..18];
        let batch = line_batches(Box::new(good))()
            .ok()
            .flatten()
            .expect("a batch");
        let lines: Vec<(usize, &str)> = batch.lines().ok().expect("UTF-8").collect();
        assert_eq!(lines, [(1, "{\"a\":1}"), (4, "\"\u{e9}\"")]);
        assert!(next().ok().expect("no failure").is_none());
    }
}
