//! [`verify`]: a full consistency check of a TsFile (`colfile verify`). It decodes every
//! page and recomputes the statistics of every page, chunk and series from the values, then
//! checks them and the index against the data: the metadata index tree's key order, offsets
//! and first keys (the `tree` submodule), that every chunk is indexed exactly once under its own device, measurement and
//! type, and that the Bloom filter admits every series. Each problem found is a [`Problem`]
//! located by byte offset, device, measurement, chunk and page.
//!
//! Statistics are recomputed by [`recompute`](super::recompute), which
//! [`recover`](mod@super::recover) shares.

mod tree;

use std::collections::HashMap;
use std::fmt;

use super::layout::{index_layout, scan_data_with, IndexLayout};
use super::recompute::{is_lossy, statistics_agree, StatsDecoder};
use crate::source::ByteSource;
use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::{DataType, DeviceId, Statistics};
use crate::tsfile::read::metadata::FileMetadata;
use crate::{Error, ErrorKind, Limits, Result};

/// What a [`Problem`] is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Check {
    /// Head, footer, `L`, tail magic or `meta_offset`.
    Footer,
    /// The data section's records: markers, headers, sizes, the separator.
    Structure,
    /// A page that does not decompress or decode.
    PageData,
    /// A page header's statistics differ from the page's values.
    PageStatistics,
    /// A chunk's statistics in the index differ from its values.
    ChunkStatistics,
    /// A series' statistics in the index differ from its chunks' values.
    SeriesStatistics,
    /// Index keys (tables, devices, measurements) out of order.
    IndexOrder,
    /// An index offset or range that does not point where it should.
    IndexOffset,
    /// A chunk of the data section that no series of the index points to.
    Unindexed,
    /// A series the Bloom filter says is absent.
    BloomFilter,
}

/// One thing wrong with the file, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// What kind of check failed.
    pub check: Check,
    /// What is wrong.
    pub message: String,
    /// The most precise byte offset known.
    pub offset: Option<u64>,
    /// The device, in its display form.
    pub device: Option<String>,
    /// The measurement (`""` is the aligned time column).
    pub measurement: Option<String>,
    /// Offset of the chunk header involved.
    pub chunk: Option<u64>,
    /// Page index within that chunk.
    pub page: Option<u32>,
}

impl Problem {
    fn new(check: Check, message: impl Into<String>) -> Self {
        Problem {
            check,
            message: message.into(),
            offset: None,
            device: None,
            measurement: None,
            chunk: None,
            page: None,
        }
    }

    /// A problem from a parse or decode error, taking over the error's location.
    fn from_error(check: Check, e: &Error) -> Self {
        let l = e.location();
        let mut p = Problem::new(check, e.kind().to_string());
        p.offset = l.offset;
        p.chunk = l.chunk;
        p.page = l.page;
        p.device = l.series.clone();
        p
    }

    fn at(mut self, offset: u64) -> Self {
        self.offset.get_or_insert(offset);
        self
    }

    fn series(mut self, device: &DeviceId, measurement: &str) -> Self {
        self.device = Some(device.to_string());
        self.measurement = Some(measurement.to_owned());
        self
    }

    fn chunk(mut self, offset: u64, page: Option<u32>) -> Self {
        self.chunk.get_or_insert(offset);
        self.page = self.page.or(page);
        self
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut at = Vec::new();
        if let Some(o) = self.offset {
            at.push(format!("byte {o}"));
        }
        if let Some(d) = &self.device {
            at.push(format!("device {d}"));
        }
        if let Some(m) = &self.measurement {
            at.push(format!("measurement {m:?}"));
        }
        if let Some(c) = self.chunk {
            at.push(format!("chunk at byte {c}"));
        }
        if let Some(p) = self.page {
            at.push(format!("page {p}"));
        }
        write!(f, "{:?}: {}", self.check, self.message)?;
        if !at.is_empty() {
            write!(f, " ({})", at.join(", "))?;
        }
        Ok(())
    }
}

/// What [`verify`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VerifyReport {
    /// File length.
    pub file_len: u64,
    /// Chunk groups, chunks and pages of the data section.
    pub chunk_groups: u64,
    /// Chunks read.
    pub chunks: u64,
    /// Pages decoded.
    pub pages: u64,
    /// Devices and series in the index.
    pub devices: u64,
    /// Series (TimeseriesMetadata entries) in the index.
    pub series: u64,
    /// Every problem, up to [`VerifyOptions::max_problems`].
    pub problems: Vec<Problem>,
    /// Problems found beyond that limit.
    pub more_problems: u64,
}

impl VerifyReport {
    /// True when nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// One line: `OK: …counts…`, or the number of problems.
    pub fn summary(&self) -> String {
        let counts = format!(
            "{} bytes, {} chunk groups, {} chunks, {} pages, {} devices, {} series",
            self.file_len, self.chunk_groups, self.chunks, self.pages, self.devices, self.series
        );
        let n = self.problems.len() as u64 + self.more_problems;
        if n == 0 {
            format!("OK: {counts}; statistics, index and Bloom filter agree with the data")
        } else {
            format!("FAILED: {n} problem(s) in {counts}")
        }
    }

    fn push(&mut self, max: usize, p: Problem) {
        if self.problems.len() < max {
            self.problems.push(p);
        } else {
            self.more_problems += 1;
        }
    }
}

/// Options of [`verify`].
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Bounds on every size read from the file.
    pub limits: Limits,
    /// Problems kept in the report (later ones are only counted).
    pub max_problems: usize,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            limits: Limits::default(),
            max_problems: 100,
        }
    }
}

/// A scanned chunk: whose it is and what its values say.
struct Found {
    device: DeviceId,
    measurement: String,
    data_type: DataType,
    lossy: bool,
    stats: Option<Statistics>,
    refs: u32,
}

/// Checks everything about `src` (see the module docs).
///
/// ```
/// use colfile::tsfile::{verify, VerifyOptions};
/// let bytes = std::fs::read("fixtures/tsfile/basic.tsfile")?;
/// let report = verify(&bytes, &VerifyOptions::default())?;
/// assert!(report.is_ok(), "{:?}", report.problems);
/// assert!(report.summary().starts_with("OK: 1169 bytes, 2 chunk groups, 8 chunks"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Errors: only I/O errors; everything wrong with the file is a [`Problem`].
pub fn verify<S: ByteSource + ?Sized>(src: &S, opts: &VerifyOptions) -> Result<VerifyReport> {
    let max = opts.max_problems;
    let limits = &opts.limits;
    let mut r = VerifyReport {
        file_len: src.len(),
        ..VerifyReport::default()
    };
    let meta = match FileMetadata::read(src, limits) {
        Ok(m) => Some(m),
        Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
        Err(e) => {
            r.push(max, Problem::from_error(Check::Footer, &e));
            None
        }
    };
    let mut dec = StatsDecoder::new(limits);
    let mut found: HashMap<u64, Found> = HashMap::new();
    let mut problems = Vec::new();
    let scanned = scan_data_with(src, limits, |g, device, chunk| {
        let h = &chunk.header;
        let lossy = is_lossy(h.data_type, h.encoding);
        let admitted = dec.admit(g, chunk).map_err(|e| {
            let p = Problem::from_error(Check::Structure, &e);
            problems.push(
                p.series(device, &h.measurement_id)
                    .chunk(chunk.offset, None),
            );
        });
        let stats = match admitted.ok().map(|()| dec.decode(chunk)) {
            None => None,
            Some(Ok(st)) => {
                for (p, (computed, stored)) in st.pages.iter().zip(&st.stored).enumerate() {
                    if let Some(stored) = stored {
                        if !statistics_agree(stored, computed, lossy) {
                            problems.push(
                                mismatch(Check::PageStatistics, "page", stored, computed)
                                    .series(device, &h.measurement_id)
                                    .chunk(chunk.offset, Some(p as u32)),
                            );
                        }
                    }
                }
                Some(st.chunk)
            }
            Some(Err(e)) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
            Some(Err(e)) => {
                problems.push(
                    Problem::from_error(Check::PageData, &e)
                        .series(device, &h.measurement_id)
                        .chunk(chunk.offset, None),
                );
                None
            }
        };
        found.insert(
            chunk.offset,
            Found {
                device: device.clone(),
                measurement: h.measurement_id.clone(),
                data_type: h.data_type,
                lossy,
                stats,
                refs: 0,
            },
        );
        Ok(())
    });
    let data = match scanned {
        Ok(d) => d,
        Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
        Err(e) => {
            r.push(max, Problem::from_error(Check::Structure, &e));
            return Ok(r);
        }
    };
    problems.into_iter().for_each(|p| r.push(max, p));
    r.chunk_groups = data.groups.len() as u64;
    r.chunks = data.groups.iter().map(|g| g.chunks.len() as u64).sum();
    r.pages = (data.groups.iter())
        .flat_map(|g| &g.chunks)
        .map(|c| c.pages.len() as u64)
        .sum();
    if let Some(stop) = &data.stop {
        let mut p = Problem::from_error(Check::Structure, &stop.error);
        p.message = format!("data section ends before the separator: {}", p.message);
        r.push(max, p.at(stop.offset));
    }
    let Some(meta) = meta else { return Ok(r) };
    if let Some(sep) = data.separator.filter(|&s| s != meta.meta_offset()) {
        let msg = format!(
            "the separator is at byte {sep} but the footer's meta_offset is {}",
            meta.meta_offset()
        );
        r.push(
            max,
            Problem::new(Check::IndexOffset, msg).at(meta.footer_start()),
        );
    }
    match index_layout(src, &meta) {
        Ok(index) => check_index(&meta, &index, &mut found, &mut r, max),
        Err(e) if matches!(e.kind(), ErrorKind::Io(_)) => return Err(e),
        Err(e) => {
            // The tree cannot be walked past this entry, so which chunks it indexes is
            // unknown: listing every chunk as unindexed would bury the one real problem.
            r.push(max, Problem::from_error(Check::IndexOffset, &e));
            return Ok(r);
        }
    }
    let mut unindexed: Vec<(&u64, &Found)> = found.iter().filter(|(_, f)| f.refs == 0).collect();
    unindexed.sort_by_key(|(o, _)| **o);
    for (&off, f) in unindexed {
        let p = Problem::new(
            Check::Unindexed,
            "no series of the index points to this chunk",
        );
        r.push(
            max,
            p.at(off).series(&f.device, &f.measurement).chunk(off, None),
        );
    }
    Ok(r)
}

fn mismatch(check: Check, what: &str, stored: &Statistics, computed: &Statistics) -> Problem {
    Problem::new(
        check,
        format!("{what} statistics differ from the data: stored {stored}, computed {computed}"),
    )
}

/// The tree's nodes ([`tree`]), then key order, chunk offsets, statistics and Bloom
/// membership of every indexed series.
fn check_index(
    meta: &FileMetadata,
    index: &IndexLayout,
    found: &mut HashMap<u64, Found>,
    r: &mut VerifyReport,
    max: usize,
) {
    tree::check_tree(meta, index, r, max);
    let bloom = meta.footer().bloom.as_ref();
    // v3 files index every device under one root named "".
    let v3 = meta.version() == crate::tsfile::format::v3::VERSION_V3;
    let mut prev: Option<(&str, &DeviceId, &str)> = None;
    let mut devices = 0u64;
    for s in &index.series {
        let (dev, tsm) = (&s.device, &s.metadata);
        let name = tsm.measurement_id.as_str();
        let problem = |c, m: String| Problem::new(c, m).at(s.range.0).series(dev, name);
        match prev {
            Some((t, d, m)) if t == s.table && d == dev => {
                if java_str_cmp(m, name).is_ge() {
                    r.push(
                        max,
                        problem(
                            Check::IndexOrder,
                            format!("series {name:?} comes after {m:?} in the index"),
                        ),
                    );
                }
            }
            Some((t, d, _)) if t == s.table && d >= dev => {
                r.push(
                    max,
                    problem(
                        Check::IndexOrder,
                        format!("device {dev} comes after {d} in the index"),
                    ),
                );
                devices += 1;
            }
            _ => devices += 1,
        }
        prev = Some((&s.table, dev, name));
        if !v3 && dev.table_name() != s.table {
            r.push(
                max,
                problem(
                    Check::IndexOffset,
                    format!(
                        "device of table {} indexed under table {}",
                        dev.table_name(),
                        s.table
                    ),
                ),
            );
        }
        if bloom.is_some_and(|b| !b.may_contain(&format!("{dev}.{name}"))) {
            r.push(
                max,
                problem(
                    Check::BloomFilter,
                    "the Bloom filter does not admit this series".into(),
                ),
            );
        }
        if tsm.is_multi_chunk() != (tsm.chunks.len() > 1) {
            let msg = format!(
                "type byte 0x{:02x} does not fit {} chunk(s)",
                tsm.timeseries_type,
                tsm.chunks.len()
            );
            r.push(max, problem(Check::IndexOffset, msg));
        }
        let mut merged = Some(Statistics::new(tsm.data_type));
        let mut lossy = false;
        for (i, cm) in tsm.chunks.iter().enumerate() {
            let off = cm.offset_of_chunk_header as u64;
            let Some(f) = found
                .get_mut(&off)
                .filter(|_| cm.offset_of_chunk_header >= 0)
            else {
                let msg = format!(
                    "chunk metadata offset {} is not the start of a chunk",
                    cm.offset_of_chunk_header
                );
                r.push(max, problem(Check::IndexOffset, msg).chunk(off, None));
                merged = None;
                continue;
            };
            f.refs += 1;
            if f.device != *dev
                || f.measurement != name
                || f.data_type != tsm.data_type
                || f.refs > 1
            {
                let msg = format!(
                    "chunk metadata points at a chunk of {}.{} ({}){}",
                    f.device,
                    f.measurement,
                    f.data_type,
                    if f.refs > 1 {
                        " that another series also points at"
                    } else {
                        ""
                    }
                );
                r.push(max, problem(Check::IndexOffset, msg).chunk(off, None));
                merged = None;
                continue;
            }
            lossy |= f.lossy;
            let Some(computed) = &f.stats else {
                merged = None;
                continue;
            };
            if let Some(m) = merged.as_mut() {
                if m.merge(computed).is_err() {
                    merged = None;
                }
            }
            match &cm.statistics {
                Some(stored)
                    if tsm.chunks.len() > 1 && !statistics_agree(stored, computed, f.lossy) =>
                {
                    let p = mismatch(
                        Check::ChunkStatistics,
                        &format!("chunk {i}"),
                        stored,
                        computed,
                    );
                    r.push(max, p.at(s.range.0).series(dev, name).chunk(off, None));
                }
                _ => {}
            }
        }
        if let Some(m) = merged.filter(|m| !statistics_agree(&tsm.statistics, m, lossy)) {
            r.push(
                max,
                mismatch(Check::SeriesStatistics, "series", &tsm.statistics, &m)
                    .at(s.range.0)
                    .series(dev, name),
            );
        }
    }
    r.devices = devices;
    r.series = index.series.len() as u64;
}
