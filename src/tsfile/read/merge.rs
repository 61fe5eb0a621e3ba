//! The non-aligned (tree-model) device scan: each series' chunks are read in time order and
//! merged into rows by time, holding about one chunk per series (a few pages of one, at most
//! [`STREAM_ROWS`] points, for a chunk too big to read whole). Chunks and pages outside the
//! time range are skipped by their statistics.

use std::collections::VecDeque;

use super::chunk_reader::check_type;
use super::chunk_reader::overlaps;
use super::deletions::drop_points;
use super::explain::{Explain, Reason};
use super::metadata::FileParts;
use super::pages::{PagedChunk, STREAM_ROWS};
use super::plan::DevicePlan;
use super::plan::{chunks_of, ChunkRef};
use super::points::ChunkPoints;
use super::query::Query;
use crate::source::ByteSource;
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::encoding::page;
use crate::tsfile::format::batch::DeviceBatch;
use crate::tsfile::format::headers::ChunkKind;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::{Encoding, Physical, Statistics};
use crate::tsfile::mods::{DeletedRanges, TimeRanges};
use crate::{Error, Result};

/// One series of a non-aligned device: its pending chunks and decoded points.
#[derive(Debug)]
pub(super) struct SeriesCursor {
    chunks: VecDeque<ChunkRef>,
    times: Vec<i64>,
    values: Values,
    pos: usize,
    /// The header offset of the chunk each buffered point came from.
    origins: Vec<u64>,
    /// The chunk being read, while it has pages left.
    open: Option<SeriesChunk>,
}

/// The next batch of a non-aligned device: its series' chunks merged by time, `series_state`
/// holding each series' cursor once the first call has made them.
pub(super) fn next_non_aligned<S: ByteSource>(
    series_state: &mut Option<Vec<SeriesCursor>>,
    plan: &DevicePlan,
    r: &FileParts<'_, S>,
    q: &Query,
    codecs: &mut PageCodecs,
    ex: &mut Explain,
) -> Result<Option<DeviceBatch>> {
    let (start, end) = q.range();
    if series_state.is_none() {
        let mut cursors = Vec::new();
        for (j, (s, (_, t))) in plan.field_series.iter().zip(&plan.fields).enumerate() {
            let mut chunks = VecDeque::new();
            let deleted = field_deletions(plan, j);
            for c in s.iter().flat_map(chunks_of) {
                ex.chunks.consider();
                if c.1.as_ref().is_some_and(|st| !overlaps(st, start, end)) {
                    ex.chunks.skip(Reason::Time);
                } else if c.1.as_ref().is_some_and(|st| {
                    st.count > 0 && deleted.is_some_and(|d| d.covers(c.0, st.start_time, st.end_time))
                }) {
                    ex.chunks.skip(Reason::Deleted);
                } else {
                    chunks.push_back(c);
                }
            }
            cursors.push(SeriesCursor {
                chunks,
                times: Vec::new(),
                values: Values::for_type(*t)?,
                pos: 0,
                origins: Vec::new(),
                open: None,
            });
        }
        *series_state = Some(cursors);
    }
    let mut batch = plan.empty_batch()?;
    let Some(series) = series_state.as_mut() else {
        return Ok(None);
    };
    loop {
        // Everything before `bound` is buffered: no unread chunk starts earlier.
        let bound = series.iter().filter_map(next_start).min();
        let has_buffered = series.iter().any(|s| s.pos < s.times.len());
        if bound.is_none() && !has_buffered {
            return Ok(None);
        }
        let emitted = merge_rows(series, bound, &mut batch)?;
        if emitted > 0 {
            plan.finish_batch(&mut batch, q)?;
            if !batch.times.is_empty() {
                return Ok(Some(batch));
            }
            batch = plan.empty_batch()?;
            continue;
        }
        // Load more of the series whose unread points start first.
        let Some((j, s)) = series
            .iter_mut()
            .enumerate()
            .filter_map(|(j, s)| next_start(s).map(|t| (t, j, s)))
            .min_by_key(|(t, _, _)| *t)
            .map(|(_, j, s)| (j, s))
        else {
            return Ok(None);
        };
        s.times.drain(..s.pos.min(s.times.len()));
        s.origins.drain(..s.pos.min(s.origins.len()));
        drain_values(&mut s.values, s.pos);
        s.pos = 0;
        let before = s.times.len();
        let name = || {
            // Name the series (device.measurement), not only the device.
            let field = plan.fields.get(j).map_or("", |f| f.0.as_str());
            format!("{}.{field}", plan.device)
        };
        let mut open = match s.open.take() {
            Some(open) => open,
            None => {
                let Some((off, st)) = s.chunks.pop_front() else {
                    continue;
                };
                let deleted = field_deletions(plan, j).map(|d| d.for_chunk(off));
                let physical = s.values.physical();
                SeriesChunk::open(r, off, st, (start, end), deleted.unwrap_or_default(), physical)
                    .map_err(|e| e.in_chunk(off).in_series(name))?
            }
        };
        let off = open.pc.chunk.offset;
        // A later chunk that starts before this one's next page overlaps it (an unsequence
        // file): this one is then read to its end, so that the next chunk can be opened.
        let next_chunk = s.chunks.front().map(|(_, st)| start_of(st.as_ref()));
        let overlapped = next_chunk.is_some_and(|t| open.next_start().is_some_and(|p| t < p));
        // The series share one batch's worth of buffered points.
        let share = (STREAM_ROWS / plan.fields.len().max(1)).max(1);
        let limit = if overlapped { usize::MAX } else { share };
        open.read_pages((start, end), limit, s, codecs, r, ex)
            .map_err(|e| e.in_chunk(off).in_series(name))?;
        if !open.done() {
            s.open = Some(open);
        }
        ex.rows_decoded += (s.times.len() - before) as u64;
        s.origins.resize(s.times.len(), off);
        if before > 0 && s.times.get(before) <= s.times.get(before - 1) {
            merge_overlap(s, before)?;
        }
    }
}

/// Where the series' unread points start, as far as statistics tell (`i64::MIN` when they
/// do not): the earlier of its open chunk's next page and its next chunk; `None` when it
/// has neither.
fn next_start(s: &SeriesCursor) -> Option<i64> {
    let page = s.open.as_ref().and_then(SeriesChunk::next_start);
    let chunk = s.chunks.front().map(|(_, st)| start_of(st.as_ref()));
    page.into_iter().chain(chunk).min()
}

/// The start time `st` gives, `i64::MIN` without statistics.
fn start_of(st: Option<&Statistics>) -> i64 {
    st.map_or(i64::MIN, |st| st.start_time)
}

/// Merges the chunk just appended at `at` into the buffered points before it, both runs in
/// time order: at an equal time the point of the later chunk (larger header offset) stays,
/// as IoTDB keeps the later flush of a file (an unsequence file's chunks may overlap).
fn merge_overlap(s: &mut SeriesCursor, at: usize) -> Result<()> {
    let n = s.times.len();
    let mut times = Vec::with_capacity(n);
    let mut origins = Vec::with_capacity(n);
    let mut values = Values::new(s.values.physical());
    let (mut i, mut j) = (0, at);
    while i < at || j < n {
        let (a, b) = (s.times.get(i).filter(|_| i < at), s.times.get(j));
        let take = match (a, b) {
            (Some(ta), Some(tb)) if ta == tb => {
                // One time, two chunks: keep the later chunk's point.
                let later = if s.origins.get(i) > s.origins.get(j) { i } else { j };
                i += 1;
                j += 1;
                later
            }
            (Some(ta), Some(tb)) if ta < tb => {
                i += 1;
                i - 1
            }
            (Some(_), None) => {
                i += 1;
                i - 1
            }
            _ => {
                j += 1;
                j - 1
            }
        };
        times.extend(s.times.get(take).copied());
        origins.extend(s.origins.get(take).copied());
        values.extend_from(&s.values, take..take + 1)?;
    }
    s.times = times;
    s.origins = origins;
    s.values = values;
    Ok(())
}

/// The deletions of field `j` of the plan, if any.
fn field_deletions(plan: &DevicePlan, j: usize) -> Option<&DeletedRanges> {
    let d = plan.deletions.as_ref()?.fields.get(j)?;
    (!d.is_empty()).then_some(d)
}

/// A non-aligned chunk being read page by page.
#[derive(Debug)]
struct SeriesChunk {
    pc: PagedChunk,
    stats: Option<Statistics>,
    /// The next page to read.
    next_page: usize,
    points: ChunkPoints,
    /// The chunk's deleted times.
    deleted: TimeRanges,
    /// The decompressed page being decoded (reused).
    buf: Vec<u8>,
}

impl SeriesChunk {
    /// Opens the chunk at `offset` (read whole when the query covers its time range) and
    /// checks that it is a non-aligned chunk of `physical` values.
    fn open<S: ByteSource>(
        r: &FileParts<'_, S>,
        offset: u64,
        stats: Option<Statistics>,
        (start, end): (i64, i64),
        deleted: TimeRanges,
        physical: Physical,
    ) -> Result<Self> {
        let covered = stats
            .as_ref()
            .is_some_and(|st| start <= st.start_time && st.end_time <= end);
        let pc = PagedChunk::open(r.source, offset, r.limits, covered)?;
        if pc.chunk.header.marker.chunk_kind() != Some(ChunkKind::NonAligned) {
            return Err(Error::corrupt("tsfile", "expected a non-aligned chunk").at_offset(offset));
        }
        check_type(&pc.chunk, physical)?;
        Ok(SeriesChunk {
            pc,
            stats,
            next_page: 0,
            points: ChunkPoints::new(r.limits),
            deleted,
            buf: Vec::new(),
        })
    }

    /// Whether every page has been read.
    fn done(&self) -> bool {
        self.next_page >= self.pc.pages.len()
    }

    /// Where the next page starts (`i64::MIN` without statistics); `None` after the last.
    fn next_start(&self) -> Option<i64> {
        let page = self.pc.pages.get(self.next_page)?;
        Some(start_of(page.header.statistics.as_ref()))
    }

    /// Appends to `s` the points of the next pages that may be in range and that the
    /// deletions do not hide, until `limit` points are added or the chunk ends.
    fn read_pages<S: ByteSource>(
        &mut self,
        (start, end): (i64, i64),
        limit: usize,
        s: &mut SeriesCursor,
        codecs: &mut PageCodecs,
        r: &FileParts<'_, S>,
        ex: &mut Explain,
    ) -> Result<()> {
        let (dt, enc) = (self.pc.chunk.header.data_type, self.pc.chunk.header.encoding);
        let multi = self.pc.pages.len() > 1;
        let first = s.times.len();
        while s.times.len() - first < limit {
            let k = self.next_page;
            let Some(p) = self.pc.pages.get(k) else {
                break;
            };
            self.next_page += 1;
            if multi {
                ex.pages.consider();
                let st = p.header.statistics.as_ref();
                if st.is_some_and(|st| !overlaps(st, start, end)) {
                    ex.pages.skip(Reason::Time);
                    continue;
                }
                let deleted = &self.deleted;
                if st.is_some_and(|st| st.count > 0 && deleted.covers(st.start_time, st.end_time)) {
                    ex.pages.skip(Reason::Deleted);
                    continue;
                }
            }
            let buf = &mut self.buf;
            self.pc.decompress(r.source, p, codecs, r.limits, buf)?;
            let before = s.times.len();
            let count = self.pc.page_stats(k, self.stats.as_ref()).map(|st| st.count);
            let (times, values) = (&mut s.times, &mut s.values);
            self.points
                .decode_page(count, |max| {
                    page::decode_non_aligned(buf, Encoding::Ts2Diff, dt, enc, max, times, values)
                })
                .map_err(|e| e.at_offset(p.offset).in_page(p.index))?;
            drop_points(&mut s.times, &mut s.values, before, &self.deleted)?;
        }
        Ok(())
    }
}

/// Drops the first `n` values of a run.
fn drain_values(v: &mut Values, n: usize) {
    if n == 0 {
        return;
    }
    match v {
        Values::Boolean(x) => drop(x.drain(..n.min(x.len()))),
        Values::Int32(x) => drop(x.drain(..n.min(x.len()))),
        Values::Int64(x) => drop(x.drain(..n.min(x.len()))),
        Values::Float(x) => drop(x.drain(..n.min(x.len()))),
        Values::Double(x) => drop(x.drain(..n.min(x.len()))),
        Values::Binary(x) => {
            let kept: crate::tsfile::format::values::BinaryValues = x.iter().skip(n).collect();
            *x = kept;
        }
    }
}

/// Moves every buffered point with time below `bound` (all of them for `None`) into
/// `batch`, merged by time. Returns the number of rows added.
fn merge_rows(
    series: &mut [SeriesCursor],
    bound: Option<i64>,
    batch: &mut DeviceBatch,
) -> Result<usize> {
    let limit = |s: &SeriesCursor| -> usize {
        let rest = s.times.get(s.pos..).unwrap_or_default();
        match bound {
            None => s.times.len(),
            Some(b) => s.pos + rest.partition_point(|&t| t < b),
        }
    };
    let ends: Vec<usize> = series.iter().map(limit).collect();
    let mut times: Vec<i64> = series
        .iter()
        .zip(&ends)
        .flat_map(|(s, &e)| s.times.get(s.pos..e).unwrap_or_default().iter().copied())
        .collect();
    times.sort_unstable();
    times.dedup();
    if times.is_empty() {
        return Ok(0);
    }
    for ((s, &e), col) in series.iter_mut().zip(&ends).zip(batch.columns.iter_mut()) {
        let mut j = s.pos;
        col.present.reserve(times.len());
        for &t in &times {
            let hit = j < e && s.times.get(j) == Some(&t);
            if hit {
                if let Some(v) = s.values.get(j) {
                    col.values.push(v)?;
                }
                j += 1;
            }
            col.present.push(hit);
        }
        s.pos = e;
    }
    let n = times.len();
    batch.times.extend(times);
    Ok(n)
}
