//! Statistics recomputed from a chunk's decoded values ([`StatsDecoder`]) and the rule by
//! which stored statistics must agree with them ([`statistics_agree`]). Used by
//! [`verify`](super::verify), which checks every page, chunk and series against its data,
//! and by [`recover`](mod@super::recover), whose single-page chunks carry no page statistics.

use std::collections::HashSet;

use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::encoding::page;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::{ChunkKind, DataType, Encoding, StatValues, Statistics};
use crate::tsfile::read::chunk_reader::RawChunk;
use crate::tsfile::read::points::ChunkPoints;
use crate::{Error, Limits, Result};

/// Statistics recomputed from one chunk's decoded values.
#[derive(Clone, Debug, PartialEq)]
pub struct ChunkStats {
    /// Each page's statistics (empty statistics for an empty value page).
    pub pages: Vec<Statistics>,
    /// Each page header's own statistics (only multi-page chunks have them).
    pub stored: Vec<Option<Statistics>>,
    /// The merge of the pages' statistics, as the writers build chunk statistics.
    pub chunk: Statistics,
}

/// Decodes chunks and computes their statistics. Aligned value chunks are paired with the
/// time chunk read last in the same chunk group, so chunks must be given in file order.
#[derive(Debug)]
pub struct StatsDecoder {
    codecs: PageCodecs,
    limits: Limits,
    buf: Vec<u8>,
    /// The current chunk group: its index, measurements so far, whether it is aligned,
    /// and the timestamps of its time chunk page by page.
    group: Option<usize>,
    names: HashSet<String>,
    aligned: Option<bool>,
    time_pages: Vec<Vec<i64>>,
}

impl StatsDecoder {
    /// A decoder bounded by `limits`.
    pub fn new(limits: &Limits) -> Self {
        StatsDecoder {
            codecs: PageCodecs::with_limits(limits),
            limits: limits.clone(),
            buf: Vec::new(),
            group: None,
            names: HashSet::new(),
            aligned: None,
            time_pages: Vec::new(),
        }
    }

    /// Checks that `chunk` may be the next chunk of chunk group `group` (chunks in file
    /// order): an aligned group starts with its time chunk (type VECTOR) and holds only
    /// value chunks after it, a non-aligned group only non-aligned chunks; no measurement
    /// appears twice in a group; no value chunk is of type VECTOR or UNKNOWN.
    pub fn admit(&mut self, group: usize, chunk: &RawChunk) -> Result<()> {
        let h = &chunk.header;
        let kind = h.marker.chunk_kind();
        let bad = |m: String| Err(Error::corrupt("tsfile", m).at_offset(chunk.offset));
        if self.group != Some(group) {
            self.group = Some(group);
            self.names.clear();
            self.time_pages.clear();
            self.aligned = None;
        }
        let time = kind == Some(ChunkKind::Time);
        if time != (h.data_type == DataType::Vector) || h.data_type == DataType::Unknown {
            let what = if time { "time chunk" } else { "chunk" };
            return bad(format!("{what} of data type {}", h.data_type));
        }
        let aligned = kind != Some(ChunkKind::NonAligned);
        match self.aligned {
            // A value chunk without pages needs no time chunk: a v3 Java writer leaves one
            // for an aligned device whose values were all null.
            None if kind == Some(ChunkKind::Value) && h.data_size == 0 => {
                return self.admit_name(chunk);
            }
            None if kind == Some(ChunkKind::Value) => {
                return bad(
                    "aligned value chunk without a time chunk before it in its chunk group".into(),
                )
            }
            Some(_) if time => return bad("a second time chunk in one chunk group".into()),
            Some(a) if a != aligned => {
                return bad("aligned and non-aligned chunks in one chunk group".into())
            }
            _ => {}
        }
        self.aligned = Some(aligned);
        self.admit_name(chunk)
    }

    /// Records `chunk`'s measurement in the group; a second chunk of it is corrupt.
    fn admit_name(&mut self, chunk: &RawChunk) -> Result<()> {
        let h = &chunk.header;
        if !self.names.insert(h.measurement_id.clone()) {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "measurement {:?} appears twice in one chunk group",
                    h.measurement_id
                ),
            )
            .at_offset(chunk.offset));
        }
        Ok(())
    }

    /// [`admit`](Self::admit)s `chunk`, the next chunk of chunk group `group`, then
    /// [`decode`](Self::decode)s it.
    pub fn chunk(&mut self, group: usize, chunk: &RawChunk) -> Result<ChunkStats> {
        self.admit(group, chunk)?;
        self.decode(chunk)
    }

    /// Decodes every page of `chunk`, an admitted chunk (value chunks are paired with the
    /// time chunk of their group page by page).
    ///
    /// Errors: a page that does not decompress or decode (located by page index and
    /// offset), a value chunk with more pages than its time chunk, a codec this build lacks.
    pub fn decode(&mut self, chunk: &RawChunk) -> Result<ChunkStats> {
        let (dt, enc) = (chunk.header.data_type, chunk.header.encoding);
        let kind = chunk.header.marker.chunk_kind();
        // Pages at most as long as their statistics say, the chunk within its limit.
        let mut points = ChunkPoints::new(&self.limits);
        if kind == Some(ChunkKind::Time) {
            self.time_pages.clear();
        }
        let stat_type = dt;
        let (mut pages, mut stored) = (Vec::new(), Vec::new());
        let (codecs, buf, limits) = (&mut self.codecs, &mut self.buf, &self.limits);
        let time_pages = &mut self.time_pages;
        chunk.for_each_page(|p| {
            let mut st = Statistics::new(stat_type);
            let count = p.header.statistics.as_ref().map(|s| s.count);
            match kind {
                Some(ChunkKind::Time) => {
                    p.decompress(chunk, codecs, limits, buf)?;
                    let mut times = Vec::new();
                    points
                        .decode_page(count, |max| {
                            page::decode_times(buf, enc, max, &mut times).map(|_| times.len())
                        })
                        .map_err(|e| e.at_offset(p.offset))?;
                    st.update_times(&times);
                    time_pages.push(times);
                }
                Some(ChunkKind::Value) => {
                    let times = time_pages.get(p.index as usize).ok_or_else(|| {
                        Error::corrupt("tsfile", "value chunk has more pages than its time chunk")
                            .at_offset(p.offset)
                    })?;
                    if !p.header.is_empty() {
                        p.decompress(chunk, codecs, limits, buf)?;
                        let (mut present, mut values) = (Vec::new(), Values::for_type(dt)?);
                        page::decode_value_page(
                            buf,
                            dt,
                            enc,
                            times.len(),
                            &mut present,
                            &mut values,
                        )
                        .map_err(|e| e.at_offset(p.offset))?;
                        let kept: Vec<i64> = times
                            .iter()
                            .zip(&present)
                            .filter(|(_, &p)| p)
                            .map(|(&t, _)| t)
                            .collect();
                        st.update_values(&kept, &values)?;
                    }
                }
                _ => {
                    p.decompress(chunk, codecs, limits, buf)?;
                    let (mut times, mut values) = (Vec::new(), Values::for_type(dt)?);
                    points
                        .decode_page(count, |max| {
                            let (t, v) = (&mut times, &mut values);
                            page::decode_non_aligned(buf, Encoding::Ts2Diff, dt, enc, max, t, v)
                        })
                        .map_err(|e| e.at_offset(p.offset))?;
                    st.update_values(&times, &values)?;
                }
            }
            pages.push(st);
            stored.push(p.header.statistics.clone());
            Ok(())
        })?;
        let mut merged = Statistics::new(stat_type);
        for st in &pages {
            merged.merge(st)?;
        }
        Ok(ChunkStats {
            pages,
            stored,
            chunk: merged,
        })
    }
}

/// Whether `stored` statistics describe the `computed` ones (from decoded values) as well
/// as writers can be expected to: counts and (for non-empty statistics) time ranges must be
/// equal, and values bit-equal (NaN equals NaN), except that
/// * empty statistics agree whatever their other fields (Java writes the time range of
///   nothing as `MAX..MIN`, C++ as `0..0`);
/// * floating-point sums may differ by rounding (writers add in different orders and
///   precisions): by at most `1e-12 · count · max(|min|, |max|, |sum|)`;
/// * with `lossy` (FLOAT/DOUBLE stored with TS_2DIFF or RLE, which round to
///   `max_point_number` digits) only count and time range are compared, because writers
///   summarise the values before rounding.
pub fn statistics_agree(stored: &Statistics, computed: &Statistics, lossy: bool) -> bool {
    let (a, b) = (stored, computed);
    if a.count != b.count {
        return false;
    }
    if a.count == 0 {
        return true;
    }
    if (a.start_time, a.end_time) != (b.start_time, b.end_time) {
        return false;
    }
    let n = a.count as f64;
    let sum_ok = |x: f64, y: f64, scale: f64| {
        x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12 * n * scale.max(1.0)
    };
    let float_eq = |x: f64, y: f64| x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan());
    match (&a.values, &b.values) {
        (StatValues::Int64(x), StatValues::Int64(y)) => {
            let scale = (x.min as f64)
                .abs()
                .max((x.max as f64).abs())
                .max(x.sum.abs());
            (x.min, x.max, x.first, x.last) == (y.min, y.max, y.first, y.last)
                && sum_ok(x.sum, y.sum, scale)
        }
        (StatValues::Float(_) | StatValues::Double(_), _) if lossy => true,
        (StatValues::Float(x), StatValues::Float(y)) => {
            let f = |v: f32| f64::from(v);
            let scale = f(x.min).abs().max(f(x.max).abs()).max(x.sum.abs());
            [
                (x.min, y.min),
                (x.max, y.max),
                (x.first, y.first),
                (x.last, y.last),
            ]
            .iter()
            .all(|&(p, q)| float_eq(f(p), f(q)))
                && sum_ok(x.sum, y.sum, scale)
        }
        (StatValues::Double(x), StatValues::Double(y)) => {
            let scale = x.min.abs().max(x.max.abs()).max(x.sum.abs());
            [
                (x.min, y.min),
                (x.max, y.max),
                (x.first, y.first),
                (x.last, y.last),
            ]
            .iter()
            .all(|&(p, q)| float_eq(p, q))
                && sum_ok(x.sum, y.sum, scale)
        }
        _ => {
            let (mut x, mut y) = (Vec::new(), Vec::new());
            a.write_to(&mut x).is_ok() && b.write_to(&mut y).is_ok() && x == y
        }
    }
}

/// True for the encodings that store FLOAT/DOUBLE values rounded (`max_point_number`).
pub fn is_lossy(data_type: DataType, encoding: Encoding) -> bool {
    matches!(data_type, DataType::Float | DataType::Double)
        && matches!(encoding, Encoding::Ts2Diff | Encoding::Rle)
}
