//! [`TsFileReader`]: footer-first reading from any [`ByteSource`], and [`Query`] scans that
//! return rows device by device as [`DeviceBatch`]es (`spec/tsfile.md` §10, §12, §20).
//!
//! Aligned devices (every table-model device) pair the time column's chunk `i` with chunk
//! `i` of each value column and time page `k` with value page `k`; a value column without a
//! chunk there, a chunk without pages, or an empty page is null for those rows. Non-aligned
//! devices (tree model) merge their series by time, holding about one chunk per series.
//! Time-range queries skip devices, chunks and pages by their statistics.

use std::collections::VecDeque;

use super::batch::{Column, DeviceBatch};
use super::chunk_reader::{overlaps, RawChunk};
use super::column::Values;
use super::compression::PageCodecs;
use super::metadata::{DeviceIndex, FileMetadata};
use super::page;
use crate::format::tsfile::headers::ChunkKind;
use crate::format::tsfile::index::{ChunkMetadata, TimeseriesMetadata};
use crate::format::tsfile::statistics::Statistics;
use crate::format::tsfile::{ColumnCategory, DataType, DeviceId, Encoding, Physical};
use crate::source::ByteSource;
use crate::{Error, Limits, Result};

/// What to read: a table (or every table / tree device), some columns, a time range.
#[derive(Clone, Debug, Default)]
pub struct Query {
    table: Option<String>,
    columns: Option<Vec<String>>,
    start: Option<i64>,
    end: Option<i64>,
}

impl Query {
    /// Everything.
    pub fn all() -> Self {
        Query::default()
    }
    /// Only devices of `table` (matched without regard to letter case).
    pub fn table(mut self, table: &str) -> Self {
        self.table = Some(table.to_lowercase());
        self
    }
    /// Only these TAG/FIELD columns (tree model: measurements), in this order.
    pub fn columns<I: IntoIterator<Item = S>, S: Into<String>>(mut self, columns: I) -> Self {
        self.columns = Some(
            columns
                .into_iter()
                .map(|c| c.into().to_lowercase())
                .collect(),
        );
        self
    }
    /// Only rows with `start <= time <= end`.
    pub fn time_range(mut self, start: i64, end: i64) -> Self {
        self.start = Some(start);
        self.end = Some(end);
        self
    }
    fn range(&self) -> (i64, i64) {
        (self.start.unwrap_or(i64::MIN), self.end.unwrap_or(i64::MAX))
    }
}

/// Reads a TsFile from a byte-range source.
///
/// ```no_run
/// use colfile::source::FileSource;
/// use colfile::tsfile::{Query, TsFileReader};
/// let reader = TsFileReader::open(FileSource::open("weather.tsfile")?)?;
/// for batch in reader.query(&Query::all().table("weather"))? {
///     let batch = batch?;
///     println!("{} rows of {}", batch.len(), batch.device);
/// }
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct TsFileReader<S> {
    source: S,
    metadata: FileMetadata,
    limits: Limits,
}

impl<S: ByteSource> TsFileReader<S> {
    /// Opens `source` with default [`Limits`]: reads and checks the footer.
    pub fn open(source: S) -> Result<Self> {
        Self::open_with_limits(source, Limits::default())
    }

    /// Opens `source` with `limits` on every size and count read from it.
    pub fn open_with_limits(source: S, limits: Limits) -> Result<Self> {
        let metadata = FileMetadata::read(&source, &limits)?;
        Ok(TsFileReader {
            source,
            metadata,
            limits,
        })
    }

    /// The footer: tables, schemas, properties, and the index to devices and series.
    pub fn metadata(&self) -> &FileMetadata {
        &self.metadata
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The encoding and compression of a series, from its first chunk's header (the footer
    /// does not record them).
    pub fn series_codec(
        &self,
        series: &TimeseriesMetadata,
    ) -> Result<(Encoding, crate::format::tsfile::Compression)> {
        let first = series.chunks.first().ok_or_else(|| {
            Error::corrupt(
                "tsfile",
                format!("series {:?} has no chunk", series.measurement_id),
            )
        })?;
        let chunk = RawChunk::read_header(
            &self.source,
            first.offset_of_chunk_header as u64,
            &self.limits,
        )?;
        Ok((chunk.encoding, chunk.compression))
    }

    /// Devices in file order (tables by name, devices in id order) that `query` selects.
    pub fn devices(&self, query: &Query) -> Result<Vec<DeviceId>> {
        Ok(self
            .device_entries(query)?
            .into_iter()
            .map(|e| e.device)
            .collect())
    }

    /// [`devices`](Self::devices) with where each device's series index starts.
    fn device_entries(&self, query: &Query) -> Result<Vec<DeviceIndex>> {
        let mut out = Vec::new();
        for table in self.metadata.tables() {
            if query.table.as_deref().is_some_and(|t| t != table) {
                continue;
            }
            out.extend(self.metadata.device_entries(&self.source, table)?);
        }
        Ok(out)
    }

    /// Runs `query`: one or more batches per device, devices in index order.
    pub fn query(&self, query: &Query) -> Result<QueryIter<'_, S>> {
        if let Some(t) = &query.table {
            if !self.metadata.tables().any(|x| x == t) {
                return Err(Error::invalid(format!("no table {t} in this file")));
            }
        }
        Ok(QueryIter {
            reader: self,
            query: query.clone(),
            devices: self.device_entries(query)?.into(),
            current: None,
            codecs: PageCodecs::default(),
        })
    }

    /// The columns a device's batches carry for `query`: (name, type, category) in order.
    fn plan(&self, entry: &DeviceIndex, query: &Query) -> Result<DevicePlan> {
        let device = &entry.device;
        let series = self.metadata.timeseries_at(&self.source, entry)?;
        let schema = self.metadata.table_schema(device.table_name());
        let mut tags = Vec::new();
        let mut fields: Vec<(String, DataType)> = Vec::new();
        match schema {
            Some(schema) => {
                let mut tag_pos = 0usize;
                for c in &schema.columns {
                    match c.category {
                        ColumnCategory::Tag => {
                            tag_pos += 1;
                            tags.push((c.schema.name.clone(), tag_pos));
                        }
                        ColumnCategory::Field => {
                            fields.push((c.schema.name.clone(), c.schema.data_type))
                        }
                        _ => {}
                    }
                }
            }
            None => {
                for s in &series {
                    if !s.measurement_id.is_empty() && s.data_type != DataType::Vector {
                        fields.push((s.measurement_id.clone(), s.data_type));
                    }
                }
            }
        }
        if let Some(cols) = &query.columns {
            tags.retain(|(n, _)| cols.contains(n));
            fields.retain(|(n, _)| cols.contains(n));
            let order = |n: &String| cols.iter().position(|c| c == n);
            tags.sort_by_key(|(n, _)| order(n));
            fields.sort_by_key(|(n, _)| order(n));
        }
        let time = series
            .iter()
            .find(|s| s.measurement_id.is_empty() && s.data_type == DataType::Vector)
            .cloned();
        let field_series = fields
            .iter()
            .map(|(n, t)| {
                series
                    .iter()
                    .find(|s| &s.measurement_id == n && s.data_type != DataType::Vector)
                    .cloned()
                    .map(|s| (s, *t))
            })
            .collect();
        Ok(DevicePlan {
            device: device.clone(),
            tags: tags
                .into_iter()
                .map(|(n, i)| (n, device.segment(i).map(str::to_owned)))
                .collect(),
            fields,
            time,
            field_series,
        })
    }
}

/// What one device's scan reads.
#[derive(Debug)]
struct DevicePlan {
    device: DeviceId,
    tags: Vec<(String, Option<String>)>,
    fields: Vec<(String, DataType)>,
    /// The aligned time column, if the device is aligned.
    time: Option<TimeseriesMetadata>,
    /// Each field's series (`None`: not in this device), with the schema's type.
    field_series: Vec<Option<(TimeseriesMetadata, DataType)>>,
}

/// A chunk's header offset and its statistics, when known.
type ChunkRef = (u64, Option<Statistics>);

/// Chunk metadata of a series with statistics filled in (single-chunk series carry theirs
/// in the series statistics).
fn chunks_of(s: &TimeseriesMetadata) -> Vec<ChunkRef> {
    let single = s.chunks.len() == 1;
    s.chunks
        .iter()
        .map(|c: &ChunkMetadata| {
            let st = match (&c.statistics, single) {
                (Some(st), _) => Some(st.clone()),
                (None, true) => Some(s.statistics.clone()),
                (None, false) => None,
            };
            (c.offset_of_chunk_header as u64, st)
        })
        .collect()
}

/// Iterator over a query's batches.
#[derive(Debug)]
pub struct QueryIter<'r, S> {
    reader: &'r TsFileReader<S>,
    query: Query,
    devices: VecDeque<DeviceIndex>,
    current: Option<DeviceScan>,
    codecs: PageCodecs,
}

impl<S: ByteSource> Iterator for QueryIter<'_, S> {
    type Item = Result<DeviceBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(scan) = &mut self.current {
                match scan.next_batch(self.reader, &self.query, &mut self.codecs) {
                    Ok(Some(b)) => return Some(Ok(b)),
                    Ok(None) => self.current = None,
                    Err(e) => {
                        self.current = None;
                        self.devices.clear();
                        return Some(Err(e));
                    }
                }
            }
            let device = self.devices.pop_front()?;
            match self.reader.plan(&device, &self.query) {
                Ok(plan) => self.current = Some(DeviceScan::new(plan)),
                Err(e) => {
                    self.devices.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}

/// A device being scanned.
#[derive(Debug)]
struct DeviceScan {
    plan: DevicePlan,
    /// Aligned: the time column's chunks, and each field's (worked out once per device).
    time_chunks: Vec<ChunkRef>,
    field_chunks: Vec<Option<Vec<ChunkRef>>>,
    /// Aligned: the next time-chunk index.
    next_chunk: usize,
    /// Non-aligned: per field, its pending chunks and decoded buffer.
    series: Option<Vec<SeriesCursor>>,
}

#[derive(Debug)]
struct SeriesCursor {
    chunks: VecDeque<ChunkRef>,
    times: Vec<i64>,
    values: Values,
    pos: usize,
}

impl DeviceScan {
    fn new(plan: DevicePlan) -> Self {
        let (time_chunks, field_chunks) = match &plan.time {
            Some(time) => (
                chunks_of(time),
                plan.field_series
                    .iter()
                    .map(|s| s.as_ref().map(|(s, _)| chunks_of(s)))
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

    fn next_batch<S: ByteSource>(
        &mut self,
        r: &TsFileReader<S>,
        q: &Query,
        codecs: &mut PageCodecs,
    ) -> Result<Option<DeviceBatch>> {
        let device = self.plan.device.to_string();
        let result = if self.plan.time.is_some() {
            self.next_aligned(r, q, codecs)
        } else {
            self.next_non_aligned(r, q, codecs)
        };
        result.map_err(|e| e.in_series(|| device))
    }

    fn empty_batch(&self) -> Result<DeviceBatch> {
        Ok(DeviceBatch {
            table: self.plan.device.table_name().to_owned(),
            device: self.plan.device.clone(),
            tags: self.plan.tags.clone(),
            times: Vec::new(),
            columns: self
                .plan
                .fields
                .iter()
                .map(|(n, t)| Column::new(n, *t))
                .collect::<Result<_>>()?,
        })
    }

    fn next_aligned<S: ByteSource>(
        &mut self,
        r: &TsFileReader<S>,
        q: &Query,
        codecs: &mut PageCodecs,
    ) -> Result<Option<DeviceBatch>> {
        let (start, end) = q.range();
        while let Some((offset, stats)) = self.time_chunks.get(self.next_chunk) {
            let i = self.next_chunk;
            self.next_chunk += 1;
            if stats.as_ref().is_some_and(|s| !overlaps(s, start, end)) {
                continue;
            }
            let mut batch = self.empty_batch()?;
            // Time pages: decode all, remembering each page's row count; skip none so that
            // value pages stay paired (pruned pages are dropped after decoding values).
            let chunk = RawChunk::read(&r.source, *offset, &r.limits)?;
            let mut page_rows = Vec::new();
            let mut buf = Vec::new();
            let enc = chunk.header.encoding;
            chunk
                .for_each_page(|p| {
                    p.decompress(&chunk, codecs, &r.limits, &mut buf)?;
                    let before = batch.times.len();
                    page::decode_times(&buf, enc, max_points(&r.limits), &mut batch.times)?;
                    page_rows.push(batch.times.len() - before);
                    Ok(())
                })
                .map_err(|e| e.in_chunk(*offset))?;
            let rows = batch.times.len();
            for (col, chunks) in batch.columns.iter_mut().zip(&self.field_chunks) {
                let Some((off, st)) = chunks.as_ref().and_then(|c| c.get(i)) else {
                    col.present = vec![false; rows];
                    continue;
                };
                if st.as_ref().is_some_and(|s| s.count == 0) {
                    col.present = vec![false; rows];
                    continue;
                }
                read_value_chunk(r, *off, col, &page_rows, codecs).map_err(|e| e.in_chunk(*off))?;
            }
            if start > i64::MIN || end < i64::MAX {
                filter_rows(&mut batch, start, end)?;
            }
            if batch.times.is_empty() {
                continue;
            }
            return Ok(Some(batch));
        }
        Ok(None)
    }

    fn next_non_aligned<S: ByteSource>(
        &mut self,
        r: &TsFileReader<S>,
        q: &Query,
        codecs: &mut PageCodecs,
    ) -> Result<Option<DeviceBatch>> {
        let (start, end) = q.range();
        if self.series.is_none() {
            let mut cursors = Vec::new();
            for (s, (_, t)) in self.plan.field_series.iter().zip(&self.plan.fields) {
                let chunks: VecDeque<_> = match s {
                    Some((s, _)) => chunks_of(s)
                        .into_iter()
                        .filter(|(_, st)| st.as_ref().is_none_or(|st| overlaps(st, start, end)))
                        .collect(),
                    None => VecDeque::new(),
                };
                cursors.push(SeriesCursor {
                    chunks,
                    times: Vec::new(),
                    values: Values::for_type(*t)?,
                    pos: 0,
                });
            }
            self.series = Some(cursors);
        }
        let mut batch = self.empty_batch()?;
        let Some(series) = self.series.as_mut() else {
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
            let emit_below = match bound {
                None if !has_buffered => return Ok(None),
                None => None,
                Some(b) => Some(b),
            };
            let emitted = merge_rows(series, emit_below, &mut batch)?;
            if emitted > 0 {
                if start > i64::MIN || end < i64::MAX {
                    filter_rows(&mut batch, start, end)?;
                }
                if !batch.times.is_empty() {
                    return Ok(Some(batch));
                }
                continue;
            }
            // Load the chunk that starts first.
            let Some(idx) = series
                .iter()
                .enumerate()
                .filter_map(|(i, s)| s.chunks.front().map(|(_, st)| (i, st)))
                .min_by_key(|(_, st)| st.as_ref().map_or(i64::MIN, |st| st.start_time))
                .map(|(i, _)| i)
            else {
                return Ok(None);
            };
            let s = &mut series[idx];
            let Some((off, _)) = s.chunks.pop_front() else {
                continue;
            };
            s.times.drain(..s.pos.min(s.times.len()));
            drain_values(&mut s.values, s.pos);
            s.pos = 0;
            read_non_aligned_chunk(r, off, &mut s.times, &mut s.values, codecs)
                .map_err(|e| e.in_chunk(off))?;
        }
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
            let kept: super::column::BinaryValues = x.iter().skip(n).collect();
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

/// Keeps the rows of `batch` with `start <= time <= end`.
fn filter_rows(batch: &mut DeviceBatch, start: i64, end: i64) -> Result<()> {
    let keep: Vec<bool> = batch
        .times
        .iter()
        .map(|t| (start..=end).contains(t))
        .collect();
    if keep.iter().all(|&k| k) {
        return Ok(());
    }
    batch.times.retain(|t| (start..=end).contains(t));
    for col in &mut batch.columns {
        let mut values = Values::for_type(col.data_type)?;
        let mut present = Vec::with_capacity(batch.times.len());
        let mut cur = col.cursor();
        for &k in &keep {
            let v = cur.next_value();
            if k {
                present.push(!matches!(v, super::ValueRef::Null));
                if !matches!(v, super::ValueRef::Null) {
                    values.push(v)?;
                }
            }
        }
        col.values = values;
        col.present = present;
    }
    Ok(())
}

/// Reads aligned value chunk at `offset` into `col`, page `k` paired with `page_rows[k]`.
fn read_value_chunk<S: ByteSource>(
    r: &TsFileReader<S>,
    offset: u64,
    col: &mut Column,
    page_rows: &[usize],
    codecs: &mut PageCodecs,
) -> Result<()> {
    let chunk = RawChunk::read(&r.source, offset, &r.limits)?;
    if chunk.header.marker.chunk_kind() != Some(ChunkKind::Value) {
        return Err(Error::corrupt("tsfile", "expected an aligned value chunk").at_offset(offset));
    }
    check_type(&chunk, col.data_type.physical()?)?;
    let mut buf = Vec::new();
    let mut k = 0usize;
    let (dt, enc) = (chunk.header.data_type, chunk.header.encoding);
    chunk.for_each_page(|p| {
        let rows = *page_rows.get(k).ok_or_else(|| {
            Error::corrupt("tsfile", "value chunk has more pages than its time chunk")
        })?;
        k += 1;
        if p.header.is_empty() {
            col.present.resize(col.present.len() + rows, false);
            return Ok(());
        }
        p.decompress(&chunk, codecs, &r.limits, &mut buf)?;
        page::decode_value_page(&buf, dt, enc, rows, &mut col.present, &mut col.values)
            .map_err(|e| e.at_offset(p.offset))
    })?;
    // Missing trailing pages (C++ writes one empty page for an all-null column) are null.
    let total: usize = page_rows.iter().sum();
    if col.present.len() < total {
        col.present.resize(total, false);
    }
    Ok(())
}

/// Reads a non-aligned chunk, appending its points.
fn read_non_aligned_chunk<S: ByteSource>(
    r: &TsFileReader<S>,
    offset: u64,
    times: &mut Vec<i64>,
    values: &mut Values,
    codecs: &mut PageCodecs,
) -> Result<()> {
    let chunk = RawChunk::read(&r.source, offset, &r.limits)?;
    if chunk.header.marker.chunk_kind() != Some(ChunkKind::NonAligned) {
        return Err(Error::corrupt("tsfile", "expected a non-aligned chunk").at_offset(offset));
    }
    check_type(&chunk, values.physical())?;
    let mut buf = Vec::new();
    let (dt, enc) = (chunk.header.data_type, chunk.header.encoding);
    chunk.for_each_page(|p| {
        p.decompress(&chunk, codecs, &r.limits, &mut buf)?;
        page::decode_non_aligned(
            &buf,
            Encoding::Ts2Diff,
            dt,
            enc,
            max_points(&r.limits),
            times,
            values,
        )
        .map(|_| ())
        .map_err(|e| e.at_offset(p.offset))
    })
}

/// A chunk must hold the physical type its column is read as.
fn check_type(chunk: &RawChunk, expected: Physical) -> Result<()> {
    if chunk.header.data_type.physical()? != expected {
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "chunk {:?} holds {} but the column is read as {expected:?} values",
                chunk.header.measurement_id, chunk.header.data_type
            ),
        )
        .at_offset(chunk.offset));
    }
    Ok(())
}

/// The most points one page may decode to: a run-length stream can claim billions from a
/// few bytes, so the count is bounded by the allocation limit (8 bytes a point).
fn max_points(limits: &Limits) -> usize {
    (limits.max_alloc_bytes / 8).max(1)
}
