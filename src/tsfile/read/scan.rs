//! The aligned device scan for a [`Query`]: time chunk `i` paired with chunk `i` of each
//! value column, time page `k` with value page `k` (`spec/tsfile.md` §5, §8). A value column
//! without a chunk there, a chunk without pages, or an empty page is null for those rows.
//!
//! Chunks and pages are skipped by their time statistics and by the filter's verdict on
//! their value statistics; multi-page chunks that may lose pages have only their page
//! headers read, then the payloads of the pages kept. Rows are filtered after decoding.
//! A chunk's pages are decoded a few at a time ([`STREAM_ROWS`] rows a batch), so that a
//! huge chunk costs a batch of rows and one page per column, not the whole chunk.

use super::chunk_reader::{check_type, overlaps};
use super::deletions::null_deleted;
use super::explain::{Explain, Reason};
use super::filter::Tri;
use super::merge::{next_non_aligned, SeriesCursor};
use super::metadata::FileParts;
use super::pages::{PagedChunk, STREAM_ROWS};
use super::plan::{chunks_of, ChunkRef, DevicePlan};
use super::points::ChunkPoints;
use super::query::Query;
use super::rows::retain_rows;
use crate::source::ByteSource;
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::encoding::page;
use crate::tsfile::format::batch::{Column, DeviceBatch};
use crate::tsfile::format::headers::ChunkKind;
use crate::tsfile::format::{DataType, Statistics};
use crate::tsfile::mods::TimeRanges;
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
    /// Aligned: the chunk being read, when its pages are not all read yet.
    open: Option<OpenChunk>,
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
            open: None,
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
        loop {
            let open = match &mut self.open {
                Some(open) => open,
                None => match self.open_next_chunk(r, q, ex)? {
                    Some(open) => self.open.insert(open),
                    None => return Ok(None),
                },
            };
            let mut batch = open.next_pages(r, &self.plan, codecs, ex)?;
            if open.done() {
                self.open = None;
            }
            self.plan.finish_batch(&mut batch, q)?;
            if !batch.times.is_empty() {
                return Ok(Some(batch));
            }
        }
    }

    /// Opens the next aligned chunk that may hold rows for `q`: its pages located and those
    /// that may hold rows marked; `None` when the device has no more.
    fn open_next_chunk<S: ByteSource>(
        &mut self,
        r: &FileParts<'_, S>,
        q: &Query,
        ex: &mut Explain,
    ) -> Result<Option<OpenChunk>> {
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
            let all_deleted = |s: &Statistics| {
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
                let page_rows = |k: usize| time.page_stats(k, stats.as_ref()).map(|s| s.count);
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
            let all = keep.iter().all(|&k| k);
            let mut values = Vec::with_capacity(plan.fields.len());
            for (j, (field, slot)) in plan.fields.iter().zip(opened).enumerate() {
                let value = match value_ref(j) {
                    Some((_, Some(st))) if st.count == 0 => None,
                    None => None,
                    Some((off, _)) => {
                        let pc = match slot {
                            Some(pc) => pc,
                            None => PagedChunk::open(r.source, *off, r.limits, all)
                                .map_err(|e| e.in_chunk(*off))?,
                        };
                        check_value_chunk(&pc, field.1, n_pages).map_err(|e| e.in_chunk(*off))?;
                        let deleted = plan.deletions.as_ref().and_then(|d| d.fields.get(j));
                        let deleted = deleted.map(|d| d.for_chunk(*off)).unwrap_or_default();
                        Some((pc, deleted))
                    }
                };
                values.push(value);
            }
            return Ok(Some(OpenChunk {
                stats: stats.clone(),
                points: ChunkPoints::new(r.limits),
                time,
                keep,
                values,
                rows_deleted,
                next_page: 0,
                buf: Vec::new(),
            }));
        }
        Ok(None)
    }
}

/// The aligned chunk being read: its time chunk, each field's value chunk (with the
/// deletions that apply to it; `None` for a field null throughout the chunk), which pages
/// are kept and the next page to decode.
#[derive(Debug)]
struct OpenChunk {
    stats: Option<Statistics>,
    time: PagedChunk,
    keep: Vec<bool>,
    values: Vec<Option<(PagedChunk, TimeRanges)>>,
    rows_deleted: TimeRanges,
    next_page: usize,
    points: ChunkPoints,
    /// The decompressed page being decoded (reused).
    buf: Vec<u8>,
}

impl OpenChunk {
    /// Whether every page has been read.
    fn done(&self) -> bool {
        self.next_page >= self.time.pages.len()
    }

    /// Decodes the next kept pages, time page `k` with value page `k` of each field, until
    /// the batch holds [`STREAM_ROWS`] rows or the chunk ends.
    fn next_pages<S: ByteSource>(
        &mut self,
        r: &FileParts<'_, S>,
        plan: &DevicePlan,
        codecs: &mut PageCodecs,
        ex: &mut Explain,
    ) -> Result<DeviceBatch> {
        let offset = self.time.chunk.offset;
        let mut batch = plan.empty_batch()?;
        let mut rows_of = Vec::new();
        let enc = self.time.chunk.header.encoding;
        while batch.times.len() < STREAM_ROWS {
            let k = self.next_page;
            let Some(p) = self.time.pages.get(k) else {
                break;
            };
            self.next_page += 1;
            if !self.keep.get(k).copied().unwrap_or(false) {
                continue;
            }
            let buf = &mut self.buf;
            self.time
                .decompress(r.source, p, codecs, r.limits, buf)
                .map_err(|e| e.in_chunk(offset))?;
            let count = self.time.page_stats(k, self.stats.as_ref()).map(|s| s.count);
            let times = &mut batch.times;
            let n = self
                .points
                .decode_page(count, |max| {
                    let before = times.len();
                    page::decode_times(buf, enc, max, times)?;
                    Ok(times.len() - before)
                })
                .map_err(|e| e.at_offset(p.offset).in_page(p.index).in_chunk(offset))?;
            rows_of.push((k, n));
        }
        ex.rows_decoded += batch.times.len() as u64;
        for (col, value) in batch.columns.iter_mut().zip(&self.values) {
            let Some((pc, deleted)) = value else {
                col.present = vec![false; batch.times.len()];
                continue;
            };
            let off = pc.chunk.offset;
            read_value_pages(r, pc, &rows_of, col, codecs, &mut self.buf)
                .map_err(|e| e.in_chunk(off))?;
            null_deleted(col, &batch.times, deleted)?;
        }
        if !self.rows_deleted.is_empty() {
            let deleted = &self.rows_deleted;
            let keep: Vec<bool> = batch.times.iter().map(|&t| !deleted.contains(t)).collect();
            retain_rows(&mut batch, &keep)?;
        }
        Ok(batch)
    }
}

/// Checks that `pc` is an aligned value chunk of `data_type` with no more pages than its
/// time chunk's `time_pages`.
fn check_value_chunk(pc: &PagedChunk, data_type: DataType, time_pages: usize) -> Result<()> {
    let chunk = &pc.chunk;
    if chunk.header.marker.chunk_kind() != Some(ChunkKind::Value) {
        return Err(
            Error::corrupt("tsfile", "expected an aligned value chunk").at_offset(chunk.offset)
        );
    }
    check_type(chunk, data_type.physical()?)?;
    if pc.pages.len() > time_pages {
        return Err(
            Error::corrupt("tsfile", "value chunk has more pages than its time chunk")
                .at_offset(chunk.offset),
        );
    }
    Ok(())
}

/// Reads value pages of an aligned value chunk into `col`: page `k` of each `(k, rows)` in
/// `rows_of`, which holds `rows` rows; a page past the chunk's last, or empty, is null.
fn read_value_pages<S: ByteSource>(
    r: &FileParts<'_, S>,
    pc: &PagedChunk,
    rows_of: &[(usize, usize)],
    col: &mut Column,
    codecs: &mut PageCodecs,
    buf: &mut Vec<u8>,
) -> Result<()> {
    let (dt, enc) = (pc.chunk.header.data_type, pc.chunk.header.encoding);
    for &(k, rows) in rows_of {
        let Some(p) = pc.pages.get(k).filter(|p| !p.header.is_empty()) else {
            col.present.resize(col.present.len() + rows, false);
            continue;
        };
        pc.decompress(r.source, p, codecs, r.limits, buf)?;
        page::decode_value_page(buf, dt, enc, rows, &mut col.present, &mut col.values)
            .map_err(|e| e.at_offset(p.offset).in_page(p.index))?;
    }
    Ok(())
}
