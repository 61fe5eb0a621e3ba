//! What the next devices of a query will read, as byte ranges: an async reader fetches them
//! before the (synchronous) scan of those devices runs, so that the scan never meets bytes
//! that are not there, and many small reads become a few large requests. A synchronous
//! [`PlannedQuery`] announces the same ranges to its source (a local file read through a
//! [`PlannedSource`](crate::source::PlannedSource)), for the same few large reads.
//!
//! Chunk metadata give where each chunk starts but not its length, so a window is planned
//! in two steps: [`next_window`] names each chunk's start with a first guess of its extent
//! (the first read a scan makes of it, `WHOLE_WINDOW` bytes), and once those bytes are in,
//! [`chunk_extents`] reads each chunk header for the exact extent. Chunks that lie side by
//! side (a device's chunk group, or all of a full scan) are fetched whole by the first step,
//! since their guesses touch.

use std::ops::{Deref, Range};

use super::chunk_reader::{overlaps, RawChunk, CHUNK_HEADER_WINDOW, WHOLE_WINDOW};
use super::pages::WHOLE_CHUNK_MAX;
use super::plan::{DevicePlan, Prepared};
use super::reader::QueryStream;
use super::TsFileReader;
use crate::source::ranges::RangeSet;
use crate::source::ByteSource;
use crate::Result;

/// The devices a window lets start and the chunks their scans may read.
#[derive(Debug, Default)]
pub(crate) struct FetchWindow {
    /// How many held-back devices the window covers (skipped ones included).
    pub devices: usize,
    /// Start offsets of the chunks the scans may read, sorted, without repeats.
    pub chunks: Vec<u64>,
    /// A first guess of the bytes: each chunk from its start.
    pub guess: Vec<Range<u64>>,
    /// The plans made of the devices that are read (not skipped whole), by measurement
    /// root, for the stream to use instead of planning them again.
    pub plans: Prepared,
}

/// Plans the devices after the stream's horizon, in order, until their chunks' guessed
/// bytes (each counted once) reach `budget` (at least one device). Reads only metadata; a device that
/// statistics skip whole, or a chunk outside the query's time range, adds no bytes.
pub(crate) fn next_window<S, R>(stream: &QueryStream<R>, budget: u64) -> Result<FetchWindow>
where
    S: ByteSource,
    R: Deref<Target = TsFileReader<S>>,
{
    let (parts, q) = stream.reader_and_query();
    let (start, end) = q.range();
    let data_end = parts.metadata.meta_offset();
    let mut w = FetchWindow::default();
    let mut bytes = RangeSet::default();
    for entry in stream.held_back() {
        if w.devices > 0 && bytes.covered() >= budget {
            break;
        }
        w.devices += 1;
        let plan = DevicePlan::new(&parts, entry, q)?;
        if plan.skip_reason(q).is_some() {
            continue;
        }
        let mut mine: Vec<u64> = Vec::new();
        for ts in plan.time.iter().chain(plan.field_series.iter().flatten()) {
            for (i, c) in ts.chunks.iter().enumerate() {
                let stats = ts.chunk_statistics(i);
                if stats.is_some_and(|s| !overlaps(s, start, end)) {
                    continue;
                }
                // A negative offset is the scan's to report.
                if let Ok(off) = u64::try_from(c.offset_of_chunk_header) {
                    mine.push(off);
                }
            }
        }
        mine.sort_unstable();
        mine.dedup();
        for &off in &mine {
            let guess = off..off.saturating_add(WHOLE_WINDOW).min(data_end.max(off + 1));
            bytes.insert(guess.clone());
            w.guess.push(guess);
        }
        w.chunks.extend(mine);
        w.plans.0.push((entry.measurement_root, plan));
    }
    w.chunks.sort_unstable();
    w.chunks.dedup();
    Ok(w)
}

/// The bytes of one chunk a scan may read, from its header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct ChunkExtent {
    /// Its header and data, and at least the first read a scan makes of a small chunk
    /// (`WHOLE_WINDOW` bytes, or to the end of the file).
    pub whole: Range<u64>,
    /// For a chunk the scan reads page by page (data over [`WHOLE_CHUNK_MAX`]): that first
    /// read alone, what a planned read fetches so as not to hold the chunk whole.
    pub paged: Option<Range<u64>>,
}

impl ChunkExtent {
    /// What a planned read fetches ahead of the scan: the first read of a chunk read page
    /// by page, else all of it.
    pub fn planned(&self) -> Range<u64> {
        self.paged.clone().unwrap_or_else(|| self.whole.clone())
    }
}

/// The exact bytes each chunk's scan may read ([`ChunkExtent`]). Reads the chunk headers
/// from the stream's source.
pub(crate) fn chunk_extents<S, R>(
    stream: &QueryStream<R>,
    chunks: &[u64],
) -> Result<Vec<ChunkExtent>>
where
    S: ByteSource,
    R: Deref<Target = TsFileReader<S>>,
{
    let (parts, _) = stream.reader_and_query();
    let len = parts.source.len();
    let mut out = Vec::with_capacity(chunks.len());
    for &off in chunks {
        if off >= len {
            continue;
        }
        let (chunk, _) = RawChunk::read_window(parts.source, off, parts.limits, CHUNK_HEADER_WINDOW)
            .map_err(|e| e.in_chunk(off))?;
        let data_end = chunk.body_offset + chunk.header.data_size as u64;
        let first_read = off.saturating_add(WHOLE_WINDOW).min(len);
        let paged = u64::from(chunk.header.data_size) > WHOLE_CHUNK_MAX;
        out.push(ChunkExtent {
            whole: off..data_end.max(first_read),
            paged: paged.then_some(off..first_read),
        });
    }
    Ok(out)
}

/// Bytes of chunks read ahead at a time by a [`PlannedQuery`]: the first window, and the
/// most (the async reader's default window). Each window is twice the last, so that a
/// query that stops early (a limit, `head`) reads little more than it returns.
const FIRST_WINDOW: u64 = 256 << 10;
pub(crate) const WINDOW: u64 = 16 << 20;
/// The largest index read whole by a query that names no device (planned or async).
pub(crate) const MAX_INDEX_PREFETCH: u64 = 64 << 20;

/// A query read a window of devices at a time, planned like the async readers' requests:
/// before the devices of a window start, the bytes their scans read (256 KiB of chunks,
/// then twice as much each time up to 16 MiB; first the index of a query that names no
/// device) are announced to the
/// source ([`ByteSource::will_need`]), which a
/// [`PlannedSource`](crate::source::PlannedSource) reads in a few large reads instead of
/// one read per structure. The items are those of the query read directly; a window that
/// cannot be planned (a damaged index or chunk header) is read as before, so that its scan
/// reports the damage where it lies. Made by [`QueryStream::planned`] and
/// [`TsFileArrowReader::planned`](crate::arrow::TsFileArrowReader::planned).
///
/// ```
/// use colfile::source::{FileSource, PlannedSource};
/// use colfile::tsfile::{Query, TsFileReader};
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
/// let reader = TsFileReader::open(PlannedSource::new(FileSource::open(path)?))?;
/// let mut rows = 0;
/// for batch in reader.query(&Query::all())?.planned() {
///     rows += batch?.len();
/// }
/// assert!(rows > 0);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct PlannedQuery<I> {
    inner: I,
    /// Bytes of chunks the next window reads ahead.
    window: u64,
}

impl<I> PlannedQuery<I> {
    /// Holds `inner`'s query before its first device and reads the index ahead.
    pub(crate) fn start<S, R>(mut inner: I, stream: impl FnOnce(&mut I) -> &mut QueryStream<R>) -> Self
    where
        S: ByteSource,
        R: Deref<Target = TsFileReader<S>>,
    {
        let stream = stream(&mut inner);
        let (parts, q) = stream.reader_and_query();
        let meta = parts.metadata;
        let index = meta.meta_offset()..meta.file_len();
        if q.devices.is_none() && index.end - index.start <= MAX_INDEX_PREFETCH {
            parts.source.will_need(std::slice::from_ref(&index));
        }
        stream.hold(0);
        PlannedQuery {
            inner,
            window: FIRST_WINDOW,
        }
    }

    /// The next item of `inner`, planning the next window whenever its devices are all read.
    pub(crate) fn next_planned<S, R>(
        &mut self,
        stream: impl Fn(&mut I) -> &mut QueryStream<R>,
    ) -> Option<I::Item>
    where
        I: Iterator,
        S: ByteSource,
        R: Deref<Target = TsFileReader<S>>,
    {
        loop {
            if let Some(item) = self.inner.next() {
                return Some(item);
            }
            let s = stream(&mut self.inner);
            if !s.blocked() {
                return None;
            }
            match announce_window(s, self.window) {
                Ok(w) => s.allow(w.devices, w.plans),
                Err(_) => s.allow(usize::MAX, Prepared::default()),
            }
            self.window = self.window.saturating_mul(2).min(WINDOW);
        }
    }

    /// What is read.
    pub fn get_ref(&self) -> &I {
        &self.inner
    }
}

/// Announces to the source what the next window of devices reads; the window.
fn announce_window<S, R>(stream: &QueryStream<R>, budget: u64) -> Result<FetchWindow>
where
    S: ByteSource,
    R: Deref<Target = TsFileReader<S>>,
{
    let w = next_window(stream, budget)?;
    let source = stream.reader_and_query().0.source;
    source.will_need(&w.guess);
    let extents = chunk_extents(stream, &w.chunks)?;
    source.will_need(&extents.iter().map(ChunkExtent::planned).collect::<Vec<_>>());
    Ok(w)
}

impl<S: ByteSource, R: Deref<Target = TsFileReader<S>>> QueryStream<R> {
    /// This query read a window of devices at a time ([`PlannedQuery`]): the same batches,
    /// in few large reads when the reader's source is a
    /// [`PlannedSource`](crate::source::PlannedSource).
    pub fn planned(self) -> PlannedQuery<Self> {
        PlannedQuery::start(self, |s| s)
    }
}

impl<S: ByteSource, R: Deref<Target = TsFileReader<S>>> Iterator for PlannedQuery<QueryStream<R>> {
    type Item = Result<crate::tsfile::DeviceBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_planned(|s| s)
    }
}
