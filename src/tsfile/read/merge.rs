//! The non-aligned (tree-model) device scan: each series' chunks are read in time order and
//! merged into rows by time, holding about one chunk per series. Chunks and pages outside
//! the time range are skipped by their statistics.

use std::collections::VecDeque;

use super::chunk_reader::check_type;
use super::chunk_reader::overlaps;
use super::deletions::drop_points;
use super::explain::{Explain, Reason};
use super::metadata::FileParts;
use super::pages::PagedChunk;
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
use crate::tsfile::format::{Encoding, Statistics};
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
        let bound = series
            .iter()
            .filter_map(|s| s.chunks.front())
            .map(|(_, st)| st.as_ref().map_or(i64::MIN, |st| st.start_time))
            .min();
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
        // Load the chunk that starts first.
        let first_start = |s: &SeriesCursor| {
            let st = s.chunks.front().and_then(|(_, st)| st.as_ref());
            st.map_or(i64::MIN, |st| st.start_time)
        };
        let Some((j, s)) = series
            .iter_mut()
            .enumerate()
            .filter(|(_, s)| !s.chunks.is_empty())
            .min_by_key(|(_, s)| first_start(s))
        else {
            return Ok(None);
        };
        let Some((off, st)) = s.chunks.pop_front() else {
            continue;
        };
        s.times.drain(..s.pos.min(s.times.len()));
        s.origins.drain(..s.pos.min(s.origins.len()));
        drain_values(&mut s.values, s.pos);
        s.pos = 0;
        let covered = st
            .as_ref()
            .is_some_and(|st| start <= st.start_time && st.end_time <= end);
        let before = s.times.len();
        let deleted = field_deletions(plan, j).map(|d| d.for_chunk(off));
        let deleted = deleted.unwrap_or_default();
        read_chunk(r, (off, st.as_ref()), covered, (start, end), &deleted, s, codecs, ex)
            .map_err(|e| {
                // Name the series (device.measurement), not only the device.
                let name = plan.fields.get(j).map_or("", |f| f.0.as_str());
                e.in_chunk(off)
                    .in_series(|| format!("{}.{name}", plan.device))
            })?;
        ex.rows_decoded += (s.times.len() - before) as u64;
        s.origins.resize(s.times.len(), off);
        if before > 0 && s.times.get(before) <= s.times.get(before - 1) {
            merge_overlap(s, before)?;
        }
    }
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

/// Reads a non-aligned chunk, appending the points of its pages that may be in range and
/// that `deleted` does not hide.
#[allow(clippy::too_many_arguments)]
fn read_chunk<S: ByteSource>(
    r: &FileParts<'_, S>,
    (offset, stats): (u64, Option<&Statistics>),
    covered: bool,
    (start, end): (i64, i64),
    deleted: &TimeRanges,
    s: &mut SeriesCursor,
    codecs: &mut PageCodecs,
    ex: &mut Explain,
) -> Result<()> {
    let pc = PagedChunk::open(r.source, offset, r.limits, covered)?;
    let chunk = &pc.chunk;
    if chunk.header.marker.chunk_kind() != Some(ChunkKind::NonAligned) {
        return Err(Error::corrupt("tsfile", "expected a non-aligned chunk").at_offset(offset));
    }
    check_type(chunk, s.values.physical())?;
    let mut buf = Vec::new();
    let (dt, enc) = (chunk.header.data_type, chunk.header.encoding);
    let multi = pc.pages.len() > 1;
    let mut points = ChunkPoints::new(r.limits);
    for (k, p) in pc.pages.iter().enumerate() {
        if multi {
            ex.pages.consider();
            let st = p.header.statistics.as_ref();
            if st.is_some_and(|st| !overlaps(st, start, end)) {
                ex.pages.skip(Reason::Time);
                continue;
            }
            if st.is_some_and(|st| st.count > 0 && deleted.covers(st.start_time, st.end_time)) {
                ex.pages.skip(Reason::Deleted);
                continue;
            }
        }
        pc.decompress(r.source, p, codecs, r.limits, &mut buf)?;
        let before = s.times.len();
        let count = pc.page_stats(k, stats).map(|st| st.count);
        points
            .decode_page(count, |max| {
                let (times, values) = (&mut s.times, &mut s.values);
                page::decode_non_aligned(&buf, Encoding::Ts2Diff, dt, enc, max, times, values)
            })
            .map_err(|e| e.at_offset(p.offset).in_page(p.index))?;
        drop_points(&mut s.times, &mut s.values, before, deleted)?;
    }
    Ok(())
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
