//! JSON-lines input for `write`: lines parsed into rows on worker threads while a writer
//! thread takes the rows in input order.

use crate::Failure;
use std::collections::BTreeMap;
use std::io::BufRead;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::sync_channel;
use std::sync::Mutex;

/// Lines handed to a parsing thread at a time.
const BATCH: usize = 512;

/// A numbered batch of parsed rows, each with its line number, or why a line did not parse.
type Rows<R> = (u64, Result<Vec<(usize, R)>, Failure>);

/// Reads the non-blank lines of `input` (on this thread), parses each with
/// `parse(line_number, line)` on `workers` threads, and gives every row to
/// `sink(line_number, row)` in input order on one more thread. Line numbers count from 1,
/// blank lines included. Returns the first failure in input order (a line that does not
/// parse, or a row `sink` refuses), or the input's own read error. Memory: a few batches of
/// lines and rows per worker.
pub fn parse_in_order<R: Send>(
    input: Box<dyn BufRead + '_>,
    workers: usize,
    parse: impl Fn(usize, &str) -> Result<R, Failure> + Sync,
    mut sink: impl FnMut(usize, R) -> Result<(), Failure> + Send,
) -> Result<(), Failure> {
    let workers = workers.max(1);
    let (line_tx, line_rx) = sync_channel::<(u64, Vec<(usize, String)>)>(2 * workers);
    let line_rx = Mutex::new(line_rx);
    let (row_tx, row_rx) = sync_channel::<Rows<R>>(2 * workers);
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
                let rows = lines
                    .iter()
                    .map(|(n, l)| parse(*n, l).map(|r| (*n, r)))
                    .collect();
                if row_tx.send((seq, rows)).is_err() {
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
            let (mut batch, mut seq) = (Vec::with_capacity(BATCH), 0u64);
            for (n, line) in input.lines().enumerate() {
                let line = line?;
                if line.trim().is_empty() {
                    continue;
                }
                batch.push((n + 1, line));
                if batch.len() == BATCH {
                    if stop.load(Ordering::Relaxed) {
                        return Ok(()); // the writer stopped: it says why
                    }
                    let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                    if line_tx.send((seq, full)).is_err() {
                        return Ok(()); // the writer stopped: it says why
                    }
                    seq += 1;
                }
            }
            if !batch.is_empty() {
                let _ = line_tx.send((seq, batch));
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

/// Takes numbered batches of rows from `rx` in any order and gives their rows to `sink` in
/// the batches' order; the first failure in that order stops it.
fn write_in_order<R>(
    rx: std::sync::mpsc::Receiver<Rows<R>>,
    sink: &mut impl FnMut(usize, R) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let mut early = BTreeMap::new();
    let mut next = 0u64;
    for (seq, rows) in rx {
        early.insert(seq, rows);
        while let Some(rows) = early.remove(&next) {
            next += 1;
            for (n, r) in rows? {
                sink(n, r)?;
            }
        }
    }
    if early.is_empty() {
        Ok(())
    } else {
        Err(Failure::input("a thread parsing the input stopped"))
    }
}
