//! The aligned device scan for a [`Query`]: time chunk `i` paired with chunk `i` of each
//! value column, time page `k` with value page `k` (`spec/tsfile.md` §5, §8). A value column
//! without a chunk there, a chunk without pages, or an empty page is null for those rows.
//!
//! Chunks and pages are skipped by their time statistics and by the filter's verdict on
//! their value statistics; multi-page chunks that may lose pages have only their page
//! headers read, then the payloads of the pages kept. Rows are filtered after decoding.

use super::chunk_reader::{check_type, overlaps};
use super::deletions::null_deleted;
use super::explain::{Explain, Reason};
use super::filter::Tri;
use super::merge::{next_non_aligned, SeriesCursor};
use super::metadata::FileParts;
use super::pages::PagedChunk;
use super::plan::{chunks_of, ChunkRef, DevicePlan};
use super::points::ChunkPoints;
use super::query::Query;
use super::rows::retain_rows;
use crate::source::ByteSource;
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::encoding::page;
use crate::tsfile::format::batch::{Column, DeviceBatch};
use crate::tsfile::format::headers::ChunkKind;
use crate::{Error, Result};

/// A device being scanned.
#[derive(Debug)]
pub(super) struct DeviceScan {
    pub plan: DevicePlan,
    /// Aligned: the time column's chunks, and each field's.
    time_chunks: Vec<ChunkRef>,
    field_chunks: Vec<Option<Vec<ChunkRef>>>,
    /// Aligned: the next time-chunk index.
    next_chunk: usize,
    /// Non-aligned: per field, its pending chunks and decoded buffer.
    pub series: Option<Vec<SeriesCursor>>,
}

impl DeviceScan {
    pub fn new(plan: DevicePlan) -> Self {
        let (time_chunks, field_chunks) = match &plan.time {
            Some(time) => (
                chunks_of(time),
                plan.field_series
                    .iter()
                    .map(|s| s.as_ref().map(chunks_of))
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        DeviceScan {
            plan,
            time_chunks,
            field_chunks,
            next_chunk: 0,
            series: None,
        }
    }

    /// The next batch of the device, `None` when it has no more.
    pub fn next_batch<S: ByteSource>(
        &mut self,
        r: &FileParts<'_, S>,
        q: &Query,
        codecs: &mut PageCodecs,
        ex: &mut Explain,
    ) -> Result<Option<DeviceBatch>> {
        let result = if self.plan.time.is_some() {
            self.next_aligned(r, q, codecs, ex)
        } else {
            next_non_aligned(&mut self.series, &self.plan, r, q, codecs, ex)
        };
        // The device name is only spelled out for an error, not for every batch.
        result.map_err(|e| e.in_series(|| self.plan.device.to_string()))
    }

    fn next_aligned<S: ByteSource>(
        &mut self,
        r: &FileParts<'_, S>,
        q: &Query,
        codecs: &mut PageCodecs,
        ex: &mut Explain,
    ) -> Result<Option<DeviceBatch>> {
        let (start, end) = q.range();
        let plan = &self.plan;
        while let Some((offset, stats)) = self.time_chunks.get(self.next_chunk) {
            let i = self.next_chunk;
            self.next_chunk += 1;
            let value_ref = |j: usize| {
                let chunks = self.field_chunks.get(j).and_then(Option::as_ref);
                chunks.and_then(|c| c.get(i))
            };
            ex.chunks.consider();
            if stats.as_ref().is_some_and(|s| !overlaps(s, start, end)) {
                ex.chunks.skip(Reason::Time);
                continue;
            }
            let rows_deleted = plan.deletions.as_ref().map(|d| d.rows_in_chunk(i, *offset));
            let rows_deleted = rows_deleted.unwrap_or_default();
            let all_deleted = |s: &crate::tsfile::format::Statistics| {
                s.count > 0 && rows_deleted.covers(s.start_time, s.end_time)
            };
            if stats.as_ref().is_some_and(all_deleted) {
                ex.chunks.skip(Reason::Deleted);
                continue;
            }
            let rows = stats.as_ref().map(|s| u64::from(s.count));
            if let Some(f) = &q.filter {
                let v = plan.verdict(f, rows, |j| value_ref(j).and_then(|(_, s)| s.as_ref()));
                if v == Tri::No {
                    ex.chunks.skip(Reason::Values);
                    continue;
                }
            }
            let covered = stats
                .as_ref()
                .is_some_and(|s| s.count > 0 && start <= s.start_time && s.end_time <= end);
            let by_values = plan.filters_fields(q);
            let time = PagedChunk::open(r.source, *offset, r.limits, covered && !by_values)
                .map_err(|e| e.in_chunk(*offset))?;
            let n_pages = time.pages.len();
            let multi = n_pages > 1;
            let page_rows = |k: usize| time.page_stats(k, stats.as_ref()).map(|s| s.count);
            let mut keep = vec![true; n_pages];
            for (k, kept) in keep.iter_mut().enumerate() {
                if !multi {
                    break;
                }
                ex.pages.consider();
                let st = time.page_stats(k, stats.as_ref());
                if st.is_some_and(|s| !overlaps(s, start, end)) {
                    *kept = false;
                    ex.pages.skip(Reason::Time);
                } else if st.is_some_and(all_deleted) {
                    *kept = false;
                    ex.pages.skip(Reason::Deleted);
                }
            }
            let mut opened: Vec<Option<PagedChunk>> =
                (0..plan.fields.len()).map(|_| None).collect();
            if let (true, true, Some(f)) = (multi, by_values, &q.filter) {
                for c in f.columns() {
                    let Some(j) = plan.fields.iter().position(|(n, _)| n == c) else {
                        continue;
                    };
                    if let Some((off, _)) = value_ref(j) {
                        let pc = PagedChunk::open(r.source, *off, r.limits, false)
                            .map_err(|e| e.in_chunk(*off))?;
                        if let Some(slot) = opened.get_mut(j) {
                            *slot = Some(pc);
                        }
                    }
                }
                for (k, kept) in keep.iter_mut().enumerate().filter(|(_, k)| **k) {
                    let rows = page_rows(k).map(u64::from);
                    let v = plan.verdict(f, rows, |j| {
                        let chunk_stats = value_ref(j).and_then(|(_, s)| s.as_ref());
                        opened
                            .get(j)
                            .and_then(Option::as_ref)
                            .and_then(|pc| pc.page_stats(k, chunk_stats))
                    });
                    if v == Tri::No {
                        *kept = false;
                        ex.pages.skip(Reason::Values);
                    }
                }
            }
            if !keep.contains(&true) {
                continue;
            }
            let mut batch = plan.empty_batch()?;
            let mut rows_of = Vec::new();
            let mut buf = Vec::new();
            let enc = time.chunk.header.encoding;
            let mut points = ChunkPoints::new(r.limits);
            let kept = time
                .pages
                .iter()
                .enumerate()
                .zip(&keep)
                .filter(|(_, k)| **k);
            for ((k, p), _) in kept {
                time.decompress(r.source, p, codecs, r.limits, &mut buf)
                    .map_err(|e| e.in_chunk(*offset))?;
                let times = &mut batch.times;
                let n = points
                    .decode_page(page_rows(k), |max| {
                        let before = times.len();
                        page::decode_times(&buf, enc, max, times)?;
                        Ok(times.len() - before)
                    })
                    .map_err(|e| e.at_offset(p.offset).in_page(p.index).in_chunk(*offset))?;
                rows_of.push(n);
            }
            ex.rows_decoded += batch.times.len() as u64;
            let all = keep.iter().all(|&k| k);
            for (j, col) in batch.columns.iter_mut().enumerate() {
                let rows = batch.times.len();
                let Some((off, st)) = value_ref(j) else {
                    col.present = vec![false; rows];
                    continue;
                };
                if st.as_ref().is_some_and(|s| s.count == 0) {
                    col.present = vec![false; rows];
                    continue;
                }
                let pc = match opened.get_mut(j).and_then(Option::take) {
                    Some(pc) => pc,
                    None => PagedChunk::open(r.source, *off, r.limits, all)
                        .map_err(|e| e.in_chunk(*off))?,
                };
                read_value_pages(r, &pc, n_pages, &keep, &rows_of, col, codecs)
                    .map_err(|e| e.in_chunk(*off))?;
                if let Some(d) = plan.deletions.as_ref().and_then(|d| d.fields.get(j)) {
                    null_deleted(col, &batch.times, &d.for_chunk(*off))?;
                }
            }
            if !rows_deleted.is_empty() {
                let keep: Vec<bool> = batch.times.iter().map(|&t| !rows_deleted.contains(t)).collect();
                retain_rows(&mut batch, &keep)?;
            }
            plan.finish_batch(&mut batch, q)?;
            if batch.times.is_empty() {
                continue;
            }
            return Ok(Some(batch));
        }
        Ok(None)
    }
}

/// Reads the kept pages of an aligned value chunk into `col`, kept page `k` paired with
/// `rows_of[k]` rows; pages past the chunk's last are null.
fn read_value_pages<S: ByteSource>(
    r: &FileParts<'_, S>,
    pc: &PagedChunk,
    time_pages: usize,
    keep: &[bool],
    rows_of: &[usize],
    col: &mut Column,
    codecs: &mut PageCodecs,
) -> Result<()> {
    let chunk = &pc.chunk;
    if chunk.header.marker.chunk_kind() != Some(ChunkKind::Value) {
        return Err(
            Error::corrupt("tsfile", "expected an aligned value chunk").at_offset(chunk.offset)
        );
    }
    check_type(chunk, col.data_type.physical()?)?;
    if pc.pages.len() > time_pages {
        return Err(
            Error::corrupt("tsfile", "value chunk has more pages than its time chunk")
                .at_offset(chunk.offset),
        );
    }
    let mut buf = Vec::new();
    let (dt, enc) = (chunk.header.data_type, chunk.header.encoding);
    let kept = keep.iter().enumerate().filter(|(_, k)| **k).map(|(k, _)| k);
    for (k, &rows) in kept.zip(rows_of) {
        let Some(p) = pc.pages.get(k).filter(|p| !p.header.is_empty()) else {
            col.present.resize(col.present.len() + rows, false);
            continue;
        };
        pc.decompress(r.source, p, codecs, r.limits, &mut buf)?;
        page::decode_value_page(&buf, dt, enc, rows, &mut col.present, &mut col.values)
            .map_err(|e| e.at_offset(p.offset).in_page(p.index))?;
    }
    Ok(())
}
