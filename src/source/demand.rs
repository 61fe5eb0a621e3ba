//! A synchronous scan run on a thread of its own under an async reader ([`ScanThread`]):
//! what it reads and is not fetched, it asks the async side for ([`Demand`]) and waits,
//! and what it yields comes back one item at a time. For the reads an async reader cannot
//! plan ahead without holding too much, such as the pages of a chunk larger than its
//! window; [`DemandFetch`] fetches those asks with read-ahead and drops the oldest, so
//! that what is held stays within a budget.

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::mpsc::{self, Receiver, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::task::Poll;
use std::thread::JoinHandle;

use futures_util::task::AtomicWaker;

use super::fetched::Demand;
use super::remote::{fetch_into, AsyncByteSource, FetchOptions};
use super::ByteSource;
use super::FetchedSource;
use crate::{Error, ErrorKind, Result};

/// What the scan thread sends.
pub(crate) enum Event<T, S> {
    /// The scan's next item.
    Item(T),
    /// The scan reads this range, which is not held: fetch it, then
    /// [`answer`](ScanThread::answer).
    Need(Range<u64>),
    /// The scan has no more items; its state, for the caller to go on with.
    Done(S),
}

/// The sending half, shared by the scan loop and the cache's asker.
struct Link<T, S> {
    events: SyncSender<Event<T, S>>,
    waker: Arc<AtomicWaker>,
}

impl<T, S> Link<T, S> {
    /// Sends `e` (waiting while the last is not taken) and wakes the async side; false once
    /// that side is gone.
    fn send(&self, e: Event<T, S>) -> bool {
        let sent = self.events.send(e).is_ok();
        self.waker.wake();
        sent
    }
}

/// A scan running on its own thread: its state `S` goes to the thread, each item `T` of
/// `step` comes back through [`next`](Self::next), and `S` comes back when `step` has no
/// more. Meanwhile reads of `cache` on that thread ask for what is missing (as
/// [`Event::Need`]) instead of failing. Dropping it lets the thread end at its next send.
pub(crate) struct ScanThread<T, S> {
    events: Receiver<Event<T, S>>,
    waker: Arc<AtomicWaker>,
    answers: Sender<Result<()>>,
    handle: Option<JoinHandle<()>>,
}

impl<T: Send + 'static, S: Send + 'static> ScanThread<T, S> {
    /// Starts the thread: it calls `step` on `state` until it returns `None`.
    pub fn spawn(
        cache: Arc<FetchedSource>,
        state: S,
        step: impl FnMut(&mut S) -> Option<T> + Send + 'static,
    ) -> Self {
        // One event in flight: the scan runs at most an item ahead of its reader.
        let (events, rx) = mpsc::sync_channel(1);
        let (answers, answer_rx) = mpsc::channel::<Result<()>>();
        let waker = Arc::new(AtomicWaker::new());
        let link = Arc::new(Link {
            events,
            waker: Arc::clone(&waker),
        });
        let exit = Arc::clone(&waker);
        let handle = std::thread::spawn(move || {
            // Dropped last, once every sender is gone (when the scan ends, even by a
            // panic): wakes the async side to find the channel closed.
            let _exit = WakeOnExit(exit);
            run(cache, state, step, link, answer_rx);
        });
        ScanThread {
            events: rx,
            waker,
            answers,
            handle: Some(handle),
        }
    }

    /// The thread's next event. A thread that panicked passes its panic on here.
    pub async fn next(&mut self) -> Event<T, S> {
        // `&mut`: the receiver is not `Sync`, and the future must be `Send`.
        let (events, waker) = (&mut self.events, &self.waker);
        let got = futures_util::future::poll_fn(move |cx| {
            waker.register(cx.waker());
            match events.try_recv() {
                Ok(e) => Poll::Ready(Some(e)),
                Err(TryRecvError::Empty) => Poll::Pending,
                Err(TryRecvError::Disconnected) => Poll::Ready(None),
            }
        })
        .await;
        match got {
            Some(e) => e,
            None => {
                // The thread ended without `Done`: only a panic does that.
                if let Some(Err(panic)) = self.handle.take().map(JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                unreachable!("the scan thread ended without its state")
            }
        }
    }

    /// Answers the last [`Event::Need`]: the thread reads again, or fails with `result`'s
    /// error.
    pub fn answer(&self, result: Result<()>) {
        // A thread that is gone needs no answer.
        let _ = self.answers.send(result);
    }
}

/// The scan thread's work: `step` until it has no more, the cache's reads asking `link`.
fn run<T, S>(
    cache: Arc<FetchedSource>,
    mut state: S,
    mut step: impl FnMut(&mut S) -> Option<T>,
    link: Arc<Link<T, S>>,
    answers: Receiver<Result<()>>,
) where
    T: Send + 'static,
    S: Send + 'static,
{
    let answers = Mutex::new(answers);
    let asker = Arc::clone(&link);
    let ask = move |range: Range<u64>| -> Result<()> {
        if !asker.send(Event::Need(range.clone())) {
            return Err(gone(range));
        }
        let answers = answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.recv().unwrap_or_else(|_| Err(gone(range)))
    };
    cache.set_demand(Some(Demand {
        thread: std::thread::current().id(),
        ask: Arc::new(ask),
    }));
    // The asker holds a sender: it goes when the scan ends, even by a panic.
    let asking = Asking(cache);
    while let Some(item) = step(&mut state) {
        if !link.send(Event::Item(item)) {
            return;
        }
    }
    drop(asking);
    link.send(Event::Done(state));
}

/// Wakes a waker when dropped.
struct WakeOnExit(Arc<AtomicWaker>);

impl Drop for WakeOnExit {
    fn drop(&mut self) {
        self.0.wake();
    }
}

/// Stops a cache's reads asking when dropped.
struct Asking(Arc<FetchedSource>);

impl Drop for Asking {
    fn drop(&mut self) {
        self.0.set_demand(None);
    }
}

/// The error of a scan whose async side is gone (no one sees it: the reader was dropped).
fn gone(range: Range<u64>) -> Error {
    Error::new(ErrorKind::Unfetched {
        start: range.start,
        end: range.end,
    })
}

/// Serves a scan's asks ([`Event::Need`]): fetches each with read-ahead, and drops the
/// oldest bytes it fetched once they pass a budget (never those of the read that asks).
#[derive(Debug)]
pub(crate) struct DemandFetch {
    /// The ranges fetched for asks, oldest first.
    pieces: VecDeque<Range<u64>>,
    held: u64,
    budget: u64,
    read_ahead: u64,
    /// Where read-ahead stops: the ranges the scan reads (a window's chunks), sorted.
    extents: Vec<Range<u64>>,
}

impl DemandFetch {
    /// Holds at most `budget` bytes fetched on demand (besides the read that asks), each
    /// ask fetching `read_ahead` bytes from its start, but not past the end of the one of
    /// `extents` it lies in (the bytes after a chunk are another chunk's, read later).
    pub fn new(budget: u64, read_ahead: u64, mut extents: Vec<Range<u64>>) -> Self {
        extents.sort_by_key(|r| r.start);
        DemandFetch {
            pieces: VecDeque::new(),
            held: 0,
            budget,
            read_ahead: read_ahead.max(1),
            extents,
        }
    }

    /// Where read-ahead from `pos` stops: the end of the extent holding it, if any.
    fn stop(&self, pos: u64) -> u64 {
        let k = self.extents.partition_point(|r| r.start <= pos);
        match k.checked_sub(1).and_then(|k| self.extents.get(k)) {
            Some(r) if pos < r.end => r.end,
            _ => u64::MAX,
        }
    }

    /// Fetches `read` (and the bytes after it, up to the read-ahead) into `cache`, first
    /// dropping the oldest fetched bytes that would pass the budget.
    pub async fn serve<A: AsyncByteSource + ?Sized>(
        &mut self,
        src: &A,
        cache: &FetchedSource,
        opts: &FetchOptions,
        read: Range<u64>,
    ) -> Result<()> {
        let end = read
            .start
            .saturating_add(self.read_ahead)
            .min(self.stop(read.start))
            .min(cache.len())
            .max(read.end);
        let want = read.start..end;
        let room = self.budget.saturating_sub(want.end - want.start);
        let held = &mut self.held;
        self.pieces.retain(|p| {
            let overlaps_read = p.start < read.end && read.start < p.end;
            if *held > room && !overlaps_read {
                *held -= p.end - p.start;
                cache.remove(p.clone());
                return false;
            }
            true
        });
        let gaps = cache.missing(want);
        fetch_into(src, cache, gaps.iter().cloned(), opts).await?;
        for g in gaps {
            self.held += g.end - g.start;
            self.pieces.push_back(g);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::ByteSource;
    use bytes::Bytes;

    fn file() -> Bytes {
        Bytes::from(
            (0..50_000u32)
                .map(|i| (i * 31 + 7) as u8)
                .collect::<Vec<u8>>(),
        )
    }

    /// A thread reading a file it has not fetched, in pieces, gets the file's bytes; the
    /// async side fetches with read-ahead and never holds more than the budget and a read.
    #[tokio::test]
    async fn a_scan_thread_reads_what_it_asks_for_within_the_budget() {
        let file = file();
        let cache = Arc::new(FetchedSource::new(file.len() as u64));
        let reads: Vec<(u64, usize)> = (0..200u64).map(|i| (i * 247 % 49_000, 300)).collect();
        let state = (Arc::clone(&cache), reads.into_iter());
        let mut scan = ScanThread::spawn(Arc::clone(&cache), state, |(c, reads)| {
            let (off, n) = reads.next()?;
            let mut buf = vec![0u8; n];
            Some(c.read_exact_at(off, &mut buf).map(|()| (off, buf)))
        });
        let opts = FetchOptions::default();
        let mut demand = DemandFetch::new(5_000, 2_000, vec![]);
        let (mut items, mut most) = (0, 0);
        let mut asks = 0;
        loop {
            match scan.next().await {
                Event::Item(r) => {
                    let (off, buf) = r.unwrap();
                    assert_eq!(&buf[..], &file[off as usize..off as usize + buf.len()]);
                    items += 1;
                }
                Event::Need(r) => {
                    asks += 1;
                    let res = demand.serve(&file, &cache, &opts, r).await;
                    most = most.max(cache.held());
                    scan.answer(res);
                }
                Event::Done(_) => break,
            }
        }
        assert_eq!(items, 200);
        // Read-ahead: fewer asks than reads, though the reads jump about.
        assert!(asks > 0 && asks <= 40, "{asks} asks");
        assert!(most <= 5_000 + 300, "held {most}");
    }

    /// A failed fetch reaches the scan as its read's error, and the scan goes on.
    #[tokio::test]
    async fn a_failed_fetch_is_the_reads_error() {
        let cache = Arc::new(FetchedSource::new(100));
        let mut scan = ScanThread::spawn(Arc::clone(&cache), (), move |_| {
            let mut buf = [0u8; 4];
            Some(cache.read_exact_at(10, &mut buf))
        });
        let Event::Need(r) = scan.next().await else {
            panic!("expected an ask")
        };
        assert_eq!(r, 10..14);
        scan.answer(Err(Error::new(ErrorKind::Fetch {
            object: "x".into(),
            start: 10,
            end: 14,
            message: "refused".into(),
        })));
        let Event::Item(Err(e)) = scan.next().await else {
            panic!("expected the read's error")
        };
        assert!(e.to_string().contains("refused"), "{e}");
    }

    /// A panic on the scan thread is passed on to whoever awaits its events.
    #[tokio::test]
    #[should_panic(expected = "scan blew up")]
    async fn a_panic_on_the_thread_reaches_the_reader() {
        let cache = Arc::new(FetchedSource::new(1));
        let mut scan: ScanThread<(), ()> = ScanThread::spawn(cache, (), |_| panic!("scan blew up"));
        let _ = scan.next().await;
    }
}
