//! What the next devices of a query will read, as byte ranges: an async reader fetches them
//! before the (synchronous) scan of those devices runs, so that the scan never meets bytes
//! that are not there, and many small reads become a few large requests.
//!
//! Chunk metadata give where each chunk starts but not its length, so a window is planned
//! in two steps: [`next_window`] names each chunk's start with a first guess of its extent
//! (the first read a scan makes of it, `WHOLE_WINDOW` bytes), and once those bytes are in,
//! [`chunk_extents`] reads each chunk header for the exact extent. Chunks that lie side by
//! side (a device's chunk group, or all of a full scan) are fetched whole by the first step,
//! since their guesses touch.

use std::ops::{Deref, Range};

use super::chunk_reader::{overlaps, RawChunk, CHUNK_HEADER_WINDOW, WHOLE_WINDOW};
use super::plan::DevicePlan;
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
    }
    w.chunks.sort_unstable();
    w.chunks.dedup();
    Ok(w)
}

/// The exact bytes each chunk's scan may read: its header and data, and at least the first
/// read a scan makes of a small chunk (`WHOLE_WINDOW` bytes, or to the end of the file).
/// Reads the chunk headers from the stream's source.
pub(crate) fn chunk_extents<S, R>(stream: &QueryStream<R>, chunks: &[u64]) -> Result<Vec<Range<u64>>>
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
        out.push(off..data_end.max(first_read));
    }
    Ok(out)
}
