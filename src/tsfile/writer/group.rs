//! One device's chunk group under construction: an aligned group (one time chunk and one
//! value chunk per column, pages sealed together, driven by the time column) or a
//! non-aligned group (one chunk per series, each with its own time stream). Pages are cut at
//! the point limit or the byte limit; the group turns into a chunk group when flushed.

use super::chunk::{ChunkBuilder, ColumnCodec, PageWork};
use crate::tsfile::format::batch::{count_set, Column};
use crate::tsfile::format::headers::ChunkKind;
use crate::tsfile::format::statistics::Statistics;
use crate::tsfile::format::value::ValueRef;
use crate::Result;

/// Page cutting limits.
#[derive(Copy, Clone, Debug)]
pub(crate) struct PageLimits {
    pub max_points: usize,
    pub max_bytes: usize,
}

/// A flushed chunk: which column (index into the group's columns; `None` = time column),
/// where its header starts, and its statistics.
#[derive(Debug)]
pub(crate) struct FlushedChunk {
    pub column: Option<usize>,
    pub offset: u64,
    pub statistics: Statistics,
}

/// The chunks of one device between two flushes.
#[derive(Debug)]
pub(crate) enum Group {
    /// A time chunk plus value chunks.
    Aligned {
        time: Box<ChunkBuilder>,
        values: Vec<ChunkBuilder>,
    },
    /// One chunk per series.
    NonAligned { series: Vec<ChunkBuilder> },
}

impl Group {
    /// An aligned group for `columns` (name, codec) with `time` as the time column's codec.
    pub fn aligned(time: ColumnCodec, columns: &[(String, ColumnCodec)]) -> Result<Group> {
        Ok(Group::Aligned {
            time: Box::new(ChunkBuilder::new("", ChunkKind::Time, time, None)?),
            values: columns
                .iter()
                .map(|(n, c)| ChunkBuilder::new(n, ChunkKind::Value, c.clone(), None))
                .collect::<Result<_>>()?,
        })
    }

    /// A non-aligned group; every series' time stream uses `time`.
    pub fn non_aligned(time: ColumnCodec, columns: &[(String, ColumnCodec)]) -> Result<Group> {
        Ok(Group::NonAligned {
            series: columns
                .iter()
                .map(|(n, c)| {
                    ChunkBuilder::new(n, ChunkKind::NonAligned, c.clone(), Some(time.clone()))
                })
                .collect::<Result<_>>()?,
        })
    }

    /// Adds a series to a non-aligned group (tree model: registered after data was written).
    pub fn add_series(&mut self, name: &str, time: ColumnCodec, codec: ColumnCodec) -> Result<()> {
        if let Group::NonAligned { series } = self {
            series.push(ChunkBuilder::new(
                name,
                ChunkKind::NonAligned,
                codec,
                Some(time),
            )?);
        }
        Ok(())
    }

    /// Adds one row: `values[i]` for column `i` (already type-checked by the caller).
    pub fn push_row(
        &mut self,
        time: i64,
        values: &[ValueRef<'_>],
        limits: PageLimits,
        work: &mut PageWork,
    ) -> Result<()> {
        match self {
            Group::Aligned {
                time: tc,
                values: vcs,
            } => {
                tc.times_mut().push(time);
                for (vc, v) in vcs.iter_mut().zip(values) {
                    let present = !matches!(v, ValueRef::Null);
                    if present {
                        vc.values_mut().push(*v)?;
                    }
                    vc.present_mut().push(present);
                }
                let full = tc.open_points() >= limits.max_points
                    || (tc.open_points() % 64 == 0
                        && tc.open_page_bytes()
                            + vcs.iter().map(ChunkBuilder::open_page_bytes).sum::<usize>()
                            >= limits.max_bytes);
                if full {
                    self.seal_pages(work)?;
                }
            }
            Group::NonAligned { series } => {
                for (s, v) in series.iter_mut().zip(values) {
                    if matches!(v, ValueRef::Null) {
                        continue;
                    }
                    s.times_mut().push(time);
                    s.values_mut().push(*v)?;
                    if s.open_points() >= limits.max_points
                        || (s.open_points() % 64 == 0 && s.open_page_bytes() >= limits.max_bytes)
                    {
                        s.seal_page(work, None)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Adds rows column by column: `times`, and for column `i` of the group `columns[i]`
    /// (`None`: null in every row), whose presence mask and packed values cover exactly
    /// these rows and whose type was checked by the caller.
    pub fn push_columns(
        &mut self,
        times: &[i64],
        columns: &[Option<&Column>],
        limits: PageLimits,
        work: &mut PageWork,
    ) -> Result<()> {
        let n = times.len();
        let present = |c: &Column, range: std::ops::Range<usize>| -> Vec<bool> {
            if c.present.is_empty() {
                vec![true; range.len()]
            } else {
                c.present
                    .get(range)
                    .map(<[bool]>::to_vec)
                    .unwrap_or_default()
            }
        };
        match self {
            Group::Aligned { time, values } => {
                let mut cursors = vec![0usize; values.len()];
                let mut start = 0;
                while start < n {
                    // Up to the page's point limit, and in steps of at most 1024 rows so
                    // that the byte limit is checked as often as for single rows.
                    let room = limits.max_points.saturating_sub(time.open_points()).max(1);
                    let k = room.min(1024).min(n - start);
                    let range = start..start + k;
                    // start + k <= n = times.len().
                    let chunk = times.get(range.clone()).unwrap_or_default();
                    time.times_mut().extend_from_slice(chunk);
                    for ((vc, col), cur) in values.iter_mut().zip(columns).zip(&mut cursors) {
                        match col {
                            Some(c) if c.present.is_empty() => {
                                vc.values_mut().extend_from(&c.values, *cur..*cur + k)?;
                                *cur += k;
                                vc.present_mut().extend(std::iter::repeat_n(true, k));
                            }
                            Some(c) => {
                                let p = c.present.get(range.clone()).unwrap_or_default();
                                let set = count_set(p);
                                vc.values_mut().extend_from(&c.values, *cur..*cur + set)?;
                                *cur += set;
                                vc.present_mut().extend_from_slice(p);
                            }
                            None => vc.present_mut().extend(std::iter::repeat_n(false, k)),
                        }
                    }
                    start += k;
                    let bytes = time.open_page_bytes()
                        + values
                            .iter()
                            .map(ChunkBuilder::open_page_bytes)
                            .sum::<usize>();
                    if time.open_points() >= limits.max_points || bytes >= limits.max_bytes {
                        seal_aligned(time, values, work)?;
                    }
                }
            }
            Group::NonAligned { series } => {
                for (s, col) in series.iter_mut().zip(columns) {
                    let Some(c) = col else { continue };
                    let p = present(c, 0..n);
                    let mut v = 0usize;
                    for (&t, &here) in times.iter().zip(&p) {
                        if !here {
                            continue;
                        }
                        s.times_mut().push(t);
                        s.values_mut().extend_from(&c.values, v..v + 1)?;
                        v += 1;
                        if s.open_points() >= limits.max_points
                            || (s.open_points() % 64 == 0
                                && s.open_page_bytes() >= limits.max_bytes)
                        {
                            s.seal_page(work, None)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// [`push_columns`](Self::push_columns) with owned columns. An aligned group whose open
    /// page is empty takes the buffers as its open page when the rows stay within the page
    /// limits (where `push_columns` would not cut a page before the last row either, so the
    /// pages come out the same); anything else is copied.
    pub fn push_columns_owned(
        &mut self,
        times: Vec<i64>,
        columns: Vec<Option<Column>>,
        limits: PageLimits,
        work: &mut PageWork,
    ) -> Result<()> {
        let n = times.len();
        if let Group::Aligned { time, values } = self {
            let bytes = n * 8
                + (columns.iter().flatten())
                    .map(|c| c.values.mem_size())
                    .sum::<usize>();
            let empty = time.open_points() == 0 && values.iter().all(|v| v.open_points() == 0);
            if empty && n <= limits.max_points && bytes < limits.max_bytes {
                *time.times_mut() = times;
                for (vc, col) in values.iter_mut().zip(columns) {
                    match col {
                        Some(c) => {
                            *vc.values_mut() = c.values;
                            *vc.present_mut() = if c.present.is_empty() {
                                vec![true; n]
                            } else {
                                c.present
                            };
                        }
                        None => vc.present_mut().extend(std::iter::repeat_n(false, n)),
                    }
                }
                if n >= limits.max_points {
                    seal_aligned(time, values, work)?;
                }
                return Ok(());
            }
        }
        let refs: Vec<Option<&Column>> = columns.iter().map(Option::as_ref).collect();
        self.push_columns(&times, &refs, limits, work)
    }

    /// Seals every open page (aligned: all columns together).
    pub fn seal_pages(&mut self, work: &mut PageWork) -> Result<()> {
        match self {
            Group::Aligned { time, values } => seal_aligned(time, values, work),
            Group::NonAligned { series } => {
                for s in series {
                    s.seal_page(work, None)?;
                }
                Ok(())
            }
        }
    }

    /// Bytes buffered.
    pub fn mem_size(&self) -> usize {
        match self {
            Group::Aligned { time, values } => {
                time.mem_size() + values.iter().map(ChunkBuilder::mem_size).sum::<usize>()
            }
            Group::NonAligned { series } => series.iter().map(ChunkBuilder::mem_size).sum(),
        }
    }

    /// Bytes of the sealed pages of every chunk.
    pub fn sealed_bytes(&self) -> usize {
        match self {
            Group::Aligned { time, values } => {
                time.sealed_bytes() + values.iter().map(ChunkBuilder::sealed_bytes).sum::<usize>()
            }
            Group::NonAligned { series } => series.iter().map(ChunkBuilder::sealed_bytes).sum(),
        }
    }

    /// True when the group holds no point.
    pub fn is_empty(&self) -> bool {
        match self {
            Group::Aligned { time, .. } => time.is_empty() && time.open_points() == 0,
            Group::NonAligned { series } => {
                series.iter().all(|s| s.is_empty() && s.open_points() == 0)
            }
        }
    }

    /// Seals open pages and appends every chunk to `out` (whose first byte is at file offset
    /// `base`). Aligned groups write the time chunk, then a value chunk for every column —
    /// all-null ones included, so chunk lists pair up by index across groups. Non-aligned
    /// groups skip series without points in this group.
    pub fn flush(
        &mut self,
        work: &mut PageWork,
        out: &mut Vec<u8>,
        base: u64,
    ) -> Result<Vec<FlushedChunk>> {
        self.seal_pages(work)?;
        let mut flushed = Vec::new();
        let mut emit = |c: &mut ChunkBuilder, column, out: &mut Vec<u8>| -> Result<()> {
            let offset = base + out.len() as u64;
            let statistics = c.write_chunk(out)?;
            flushed.push(FlushedChunk {
                column,
                offset,
                statistics,
            });
            Ok(())
        };
        match self {
            Group::Aligned { time, values } => {
                if time.is_empty() {
                    return Ok(Vec::new());
                }
                emit(time, None, out)?;
                for (i, v) in values.iter_mut().enumerate() {
                    emit(v, Some(i), out)?;
                }
            }
            Group::NonAligned { series } => {
                for (i, s) in series.iter_mut().enumerate() {
                    if !s.is_empty() {
                        emit(s, Some(i), out)?;
                    }
                }
            }
        }
        Ok(flushed)
    }
}

/// Seals the open page of an aligned group: each value page with the time page's
/// timestamps, then the time page.
fn seal_aligned(
    time: &mut ChunkBuilder,
    values: &mut [ChunkBuilder],
    work: &mut PageWork,
) -> Result<()> {
    let times = std::mem::take(time.times_mut());
    for v in values.iter_mut() {
        v.seal_page(work, Some(&times))?;
    }
    *time.times_mut() = times;
    time.seal_page(work, None)
}
