//! The RCFile writer: buffers rows column by column, cuts row groups by row count and by
//! plain bytes as Hive does, writes sync blocks by Hive's 2000-byte rule (never a trailing
//! one) and needs only [`std::io::Write`]. With the same rows, sync marker and no
//! compression its output is byte-identical to Hive's.
//!
//! # What survives a crash
//!
//! RCFile has no footer: the header followed by any number of complete row groups is a
//! valid file. The writer hands a row group (and the sync block before it) to the sink only
//! once it is complete, so:
//!
//! * the rows of the row group in progress exist only in memory until
//!   [`RcFileWriter::flush_row_group`], [`RcFileWriter::flush`] or [`RcFileWriter::finish`] writes them; a
//!   crash or a dropped writer loses them, and nothing else;
//! * dropping an unfinished writer writes nothing more and never panics (there is no `Drop`
//!   impl; a sink such as [`std::io::BufWriter`] may still flush what it holds when it is
//!   dropped, ignoring errors, as std does). The sink then holds the header and every row
//!   group written so far, and [`RcFileReader`](super::RcFileReader) reads exactly those rows back, with
//!   no error;
//! * a crash in the middle of a row group leaves it cut: the reader returns every earlier
//!   row group, then a [`Truncated`](crate::ErrorKind::Truncated) error for the cut one;
//! * `Ok` from `flush` or `finish` means the bytes reached the sink (for a file: the
//!   operating system), not the disk. With a sink that implements
//!   [`SyncWrite`] (a [`File`](std::fs::File), a `BufWriter` around
//!   one), [`RcFileWriter::flush_sync`] and [`RcFileWriter::finish_sync`] also fsync, after which the
//!   bytes survive a power loss;
//! * every error is returned by the call that met it, never swallowed. After an I/O, codec
//!   or validation error in a row group the writer refuses every further call, `finish`
//!   included (it cannot know how much of the group reached the sink), so no later call
//!   reports success for a file with a hole.
//!
//! ```
//! # fn main() -> colfile::Result<()> {
//! use colfile::rcfile::RcFileWriter;
//! let path = std::env::temp_dir().join(format!("colfile-rc-sync-{}.rc", std::process::id()));
//! let file = std::io::BufWriter::new(std::fs::File::create(&path)?);
//! let mut w = RcFileWriter::builder(file, 1).build()?;
//! w.write_row(&[b"durable".as_slice()])?;
//! let summary = w.finish_sync()?; // flushed and fsynced: survives a power loss
//! assert_eq!(std::fs::metadata(&path)?.len(), summary.bytes);
//! # std::fs::remove_file(&path)?;
//! # Ok(()) }
//! ```

use super::header::{Header, HeaderVersion, COLUMN_NUMBER_KEY};
use super::lengths::LengthsEncoder;
use super::rowgroup::{decode_column, parse_key, ColumnBytes, ColumnData};
use crate::compress::{Codec, HadoopCodec};
use crate::parallel::map_in_order;
use crate::rcfile::hadoop::{write_i32_be, write_vlong};
use crate::sink::SyncWrite;
use crate::{Error, Limits, Result};
use std::io::Write;

/// Hive's default row-group buffer: 4 MiB of plain cell bytes (`hive.io.rcfile.record.buffer.size`).
pub const DEFAULT_ROW_GROUP_BYTES: usize = 4 * 1024 * 1024;
/// Hive writes a sync block before a row group once this many bytes followed the last one.
pub const SYNC_INTERVAL: u64 = 2000;

/// What [`RcFileWriter::finish`] reports.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteSummary {
    /// Rows written.
    pub rows: u64,
    /// Row groups written.
    pub row_groups: u64,
    /// Sync blocks written between row groups.
    pub syncs: u64,
    /// Total bytes written, header included.
    pub bytes: u64,
}

/// Configures an [`RcFileWriter`].
///
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::{RcFileWriter, RcFileReader};
/// let mut w = RcFileWriter::builder(Vec::new(), 2).with_sync([7; 16]).build()?;
/// w.write_row(&[b"1".as_slice(), b"a"])?;
/// w.write_row(&[b"22".as_slice(), b"bb"])?;
/// let (bytes, summary) = w.finish_into_inner()?;
/// assert_eq!((summary.rows, summary.row_groups), (2, 1));
/// let mut r = RcFileReader::new(bytes.as_slice())?;
/// let g = r.next_row_group()?.expect("one group");
/// assert_eq!(g.column(1).unwrap().cell(1), Some(&b"bb"[..]));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RcFileWriterBuilder<W> {
    sink: W,
    columns: usize,
    codec: Option<HadoopCodec>,
    level: Option<i32>,
    row_group_rows: usize,
    row_group_bytes: usize,
    metadata: Vec<(String, String)>,
    version: HeaderVersion,
    sync: Option<[u8; 16]>,
    validate: bool,
    threads: usize,
}

impl<W: Write> RcFileWriterBuilder<W> {
    /// A writer of `columns` columns into `sink`, with Hive's defaults: RCF1 header, no
    /// compression, 4 MiB row groups, a random sync marker.
    pub fn new(sink: W, columns: usize) -> Self {
        RcFileWriterBuilder {
            sink,
            columns,
            codec: None,
            level: None,
            row_group_rows: i32::MAX as usize,
            row_group_bytes: DEFAULT_ROW_GROUP_BYTES,
            metadata: Vec::new(),
            version: HeaderVersion::Rcf1,
            sync: None,
            validate: false,
            threads: 1,
        }
    }
    /// Compresses key sections and columns with `codec` (`None`: uncompressed).
    pub fn with_codec(mut self, codec: Option<HadoopCodec>) -> Self {
        self.codec = codec;
        self
    }
    /// Compression level for the codec (codec default if unset).
    pub fn with_level(mut self, level: Option<i32>) -> Self {
        self.level = level;
        self
    }
    /// Cuts a row group after this many rows (Hive's `hive.io.rcfile.record.interval`).
    pub fn with_row_group_rows(mut self, rows: usize) -> Self {
        self.row_group_rows = rows.max(1);
        self
    }
    /// Cuts a row group once buffered plain cell bytes exceed this (Hive's
    /// `hive.io.rcfile.record.buffer.size`, default 4 MiB).
    pub fn with_row_group_bytes(mut self, bytes: usize) -> Self {
        self.row_group_bytes = bytes;
        self
    }
    /// Adds a metadata entry (the column count entry is always written by the writer).
    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.push((key.into(), value.into()));
        self
    }
    /// Header layout: [`HeaderVersion::Rcf1`] (default) or the legacy [`HeaderVersion::Seq6`].
    pub fn with_version(mut self, version: HeaderVersion) -> Self {
        self.version = version;
        self
    }
    /// A fixed sync marker (for reproducible output); random by default.
    pub fn with_sync(mut self, sync: [u8; 16]) -> Self {
        self.sync = Some(sync);
        self
    }
    /// Re-reads every row group after encoding it and compares it with the rows given,
    /// failing the write on any difference.
    pub fn with_validation(mut self, on: bool) -> Self {
        self.validate = on;
        self
    }
    /// Compresses a row group's columns on up to `threads` threads (at least 1; the
    /// default, 1, starts no thread), each with a codec of its own, when there is a codec
    /// and the row group is large enough to pay for the threads. The bytes written do not
    /// depend on it.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }
    /// Writes the header and returns the writer.
    pub fn build(mut self) -> Result<RcFileWriter<W>> {
        if self.columns > i32::MAX as usize {
            return Err(Error::invalid("too many columns"));
        }
        let codec = match self.codec {
            Some(c) => Some(c.codec_with_level(self.level)?),
            None => None,
        };
        let mut spare_codecs = Vec::new();
        if let Some(c) = self.codec {
            for _ in 1..self.threads {
                spare_codecs.push(c.codec_with_level(self.level)?);
            }
        }
        // Hive keeps metadata in a TreeMap: sorted by key bytes, last value wins.
        let mut meta: std::collections::BTreeMap<Vec<u8>, String> =
            std::collections::BTreeMap::new();
        for (k, v) in self.metadata.drain(..) {
            meta.insert(k.into_bytes(), v);
        }
        meta.insert(
            COLUMN_NUMBER_KEY.as_bytes().to_vec(),
            self.columns.to_string(),
        );
        let metadata = meta
            .into_iter()
            .map(|(k, v)| (String::from_utf8_lossy(&k).into_owned(), v))
            .collect();
        let sync = match self.sync {
            Some(s) => s,
            None => random_sync(),
        };
        let mut header = Header {
            version: self.version,
            magic: match self.version {
                HeaderVersion::Rcf1 => *b"RCF\x01",
                HeaderVersion::Seq6 => *b"SEQ\x06",
            },
            codec: self.codec,
            codec_class: self.codec.map(|c| c.class_name().to_string()),
            metadata,
            column_count: self.columns,
            sync,
            length: 0,
        };
        let bytes = header.to_bytes();
        header.length = bytes.len() as u64;
        self.sink.write_all(&bytes)?;
        Ok(RcFileWriter {
            sink: Some(self.sink),
            header,
            codec,
            spare_codecs,
            columns: (0..self.columns).map(|_| ColumnBuffer::default()).collect(),
            rows: 0,
            plain_bytes: 0,
            row_group_rows: self.row_group_rows,
            row_group_bytes: self.row_group_bytes,
            max_column_bytes: MAX_COLUMN_BYTES,
            pos: bytes.len() as u64,
            last_sync: 0,
            summary: WriteSummary {
                bytes: bytes.len() as u64,
                ..Default::default()
            },
            validate: self.validate,
            out: Vec::new(),
            poisoned: false,
        })
    }
}

fn random_sync() -> [u8; 16] {
    let mut s = [0u8; 16];
    if getrandom::fill(&mut s).is_err() {
        // No OS randomness: fall back to hashing the time with std's randomly keyed hasher.
        use std::hash::{BuildHasher, Hasher};
        let t = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        for half in s.chunks_mut(8) {
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u128(t.as_nanos());
            h.write_u32(std::process::id());
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
    }
    s
}

#[derive(Debug, Default)]
struct ColumnBuffer {
    data: Vec<u8>,
    lengths: LengthsEncoder,
    count: usize,
}

/// Writes an RCFile to any [`Write`] sink. Rows are buffered until a row group is full;
/// a row has reached the sink once [`RcFileWriter::flush`] or [`RcFileWriter::finish`] returned `Ok`
/// (the disk: [`RcFileWriter::flush_sync`], [`RcFileWriter::finish_sync`]). Dropping the writer without
/// `finish` discards the buffered rows; the sink holds a file readable up to the last row
/// group written (see the [module docs](self#what-survives-a-crash)).
#[derive(Debug)]
pub struct RcFileWriter<W: Write> {
    sink: Option<W>,
    header: Header,
    codec: Option<Box<dyn Codec>>,
    /// One more codec for each extra thread compressing columns.
    spare_codecs: Vec<Box<dyn Codec>>,
    columns: Vec<ColumnBuffer>,
    rows: usize,
    plain_bytes: usize,
    row_group_rows: usize,
    row_group_bytes: usize,
    /// Most plain bytes a column of a row group holds (RCFile's 2 GiB).
    max_column_bytes: usize,
    pos: u64,
    last_sync: u64,
    summary: WriteSummary,
    validate: bool,
    out: Vec<u8>,
    poisoned: bool,
}

/// Bytes in a row group below which its columns are compressed on the calling thread only.
const PARALLEL_COMPRESS_BYTES: usize = 256 << 10;

/// The first of `range` for which `pred` (false, then true from some point on) holds; the
/// range's end if none.
fn first_true(range: std::ops::Range<usize>, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (range.start, range.end);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

/// The failure of a cell that no row group can hold.
fn cell_too_large() -> Error {
    Error::invalid("a cell is larger than 2 GiB, which RCFile cannot hold")
}

/// Largest plain size of one column in a row group (Hive reads it as an int).
const MAX_COLUMN_BYTES: usize = i32::MAX as usize;

impl<W: Write> RcFileWriter<W> {
    /// A builder.
    pub fn builder(sink: W, columns: usize) -> RcFileWriterBuilder<W> {
        RcFileWriterBuilder::new(sink, columns)
    }
    /// The header that was written.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// Bytes written to the sink so far.
    pub fn bytes_written(&self) -> u64 {
        self.summary.bytes
    }
    /// Plain bytes buffered for the row group in progress.
    pub fn in_progress_size(&self) -> usize {
        self.plain_bytes
    }
    /// Rows buffered for the row group in progress.
    pub fn in_progress_rows(&self) -> usize {
        self.rows
    }

    fn check(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::invalid(
                "an earlier write failed; the writer cannot continue",
            ));
        }
        Ok(())
    }

    /// [`check`](Self::check), and that a row of `cells` cells fits the columns.
    fn check_row(&self, cells: usize) -> Result<()> {
        self.check()?;
        if cells > self.columns.len() {
            return Err(Error::invalid(format!(
                "row has {cells} cells but the file has {} columns",
                self.columns.len()
            )));
        }
        Ok(())
    }

    /// Appends one row of raw cells (one per column; missing trailing cells are written
    /// empty, as Hive pads short rows).
    pub fn write_row<C: AsRef<[u8]>>(&mut self, cells: &[C]) -> Result<()> {
        self.check_row(cells.len())?;
        let row_bytes: usize = cells.iter().map(|c| c.as_ref().len()).sum();
        let overflows = cells
            .iter()
            .zip(&self.columns)
            .any(|(c, b)| b.data.len() + c.as_ref().len() > self.max_column_bytes);
        if overflows {
            if cells
                .iter()
                .any(|c| c.as_ref().len() > self.max_column_bytes)
            {
                return Err(cell_too_large());
            }
            self.flush_row_group()?;
        }
        for (i, b) in self.columns.iter_mut().enumerate() {
            let cell = cells.get(i).map(|c| c.as_ref()).unwrap_or_default();
            b.data.extend_from_slice(cell);
            b.lengths.push(cell.len());
            b.count += 1;
        }
        if self.count_rows(1, row_bytes) {
            self.flush_row_group()?;
        }
        Ok(())
    }

    /// The same writer with columns of at most `n` plain bytes a row group (tests of where
    /// groups end when a column is full, without 2 GiB of cells).
    #[cfg(test)]
    pub(crate) fn with_max_column_bytes(mut self, n: usize) -> Self {
        self.max_column_bytes = n;
        self
    }

    /// Counts `rows` rows of `bytes` plain bytes into the row group; whether the group is
    /// then full (to be written before the next row).
    fn count_rows(&mut self, rows: usize, bytes: usize) -> bool {
        self.rows += rows;
        self.plain_bytes += bytes;
        self.full_with(0, 0)
    }

    /// Whether the row group would be full with `rows` more rows of `bytes` more plain bytes.
    fn full_with(&self, rows: usize, bytes: usize) -> bool {
        self.plain_bytes + bytes > self.row_group_bytes || self.rows + rows >= self.row_group_rows
    }

    /// Appends `rows` rows given column by column, as [`write_row`](Self::write_row) would
    /// for each row in turn (same row groups, same bytes): column `c`'s cells lie back to back
    /// in `columns[c].0`, cell `r` ending at `columns[c].1[r]`; columns past the slice's end
    /// are empty. Each column's bytes go into the row group in one copy a run of rows, not
    /// one a cell. (What [`write_encoded`](Self::write_encoded) does.)
    pub(crate) fn write_columns(
        &mut self,
        columns: &[(&[u8], &[usize])],
        rows: usize,
    ) -> Result<()> {
        self.check_row(columns.len())?;
        // Plain bytes of rows 0..=r: of one column (its ends are running totals), of all.
        let end = |c: &(&[u8], &[usize]), r: usize| c.1.get(r).copied().unwrap_or(0);
        let upto = |c: &(&[u8], &[usize]), r: usize| r.checked_sub(1).map_or(0, |p| end(c, p));
        let through = |r: usize| -> usize { columns.iter().map(|c| end(c, r)).sum() };
        let max = self.max_column_bytes;
        let mut first = 0;
        // Each pass takes the rows up to the end of a row group, found by bisection (bytes
        // and rows only grow from row to row), not row by row.
        while first < rows {
            let before = first.checked_sub(1).map_or(0, through);
            let bytes_to = |r: usize| through(r).saturating_sub(before);
            // The first row some column cannot take, and the row that fills the group.
            let over = first_true(first..rows, |r| {
                (columns.iter().zip(&self.columns))
                    .any(|(c, b)| b.data.len() + end(c, r).saturating_sub(upto(c, first)) > max)
            });
            let full = first_true(first..rows, |r| self.full_with(r + 1 - first, bytes_to(r)));
            // Rows first..last go in, and the group is written once full. Where a column
            // cannot take row `over`, that row starts the next group.
            let split = over <= full && over < rows;
            let last = if split { over } else { full.min(rows - 1) + 1 };
            let mut flush = split;
            if last > first {
                flush |= self.count_rows(last - first, bytes_to(last - 1));
                self.append_columns(columns, first..last);
            }
            if split
                && columns
                    .iter()
                    .any(|c| end(c, over).saturating_sub(upto(c, over)) > max)
            {
                return Err(cell_too_large()); // a row no group can hold
            }
            if flush {
                self.flush_row_group()?;
            }
            first = last;
        }
        Ok(())
    }

    /// Copies rows `run` of `columns` (see [`write_columns`](Self::write_columns)) into the
    /// row group's buffers; the row counts were already taken.
    fn append_columns(&mut self, columns: &[(&[u8], &[usize])], run: std::ops::Range<usize>) {
        if run.is_empty() {
            return;
        }
        for (i, b) in self.columns.iter_mut().enumerate() {
            let (bytes, ends) = columns.get(i).copied().unwrap_or_default();
            let first = run.start.checked_sub(1).and_then(|p| ends.get(p)).copied();
            let mut prev = first.unwrap_or(0);
            let to = run.end.checked_sub(1).and_then(|l| ends.get(l)).copied();
            b.data
                .extend_from_slice(bytes.get(prev..to.unwrap_or(prev)).unwrap_or_default());
            for r in run.clone() {
                let e = ends.get(r).copied().unwrap_or(prev);
                b.lengths.push(e.saturating_sub(prev));
                prev = e;
            }
            b.count += run.len();
        }
    }

    /// Writes the buffered rows as a row group now (nothing if none are buffered).
    pub fn flush_row_group(&mut self) -> Result<()> {
        self.check()?;
        if self.rows == 0 {
            return Ok(());
        }
        let r = self.encode_and_write();
        if r.is_err() {
            self.poisoned = true;
        }
        r
    }

    fn encode_and_write(&mut self) -> Result<()> {
        let rows = self.rows;
        // Column bytes (compressed if needed) and the key section.
        let mut key = Vec::with_capacity(16 + self.columns.len() * 8);
        write_vlong(&mut key, rows as i64);
        let plain_lens: Vec<usize> = self.columns.iter().map(|b| b.data.len()).collect();
        let values = self.column_bytes()?;
        for ((b, on_disk), plain_len) in self.columns.iter_mut().zip(&values).zip(plain_lens) {
            let lens = b.lengths.finish();
            write_vlong(&mut key, on_disk.len() as i64);
            write_vlong(&mut key, plain_len as i64);
            write_vlong(&mut key, lens.len() as i64);
            key.extend_from_slice(&lens);
        }
        let key_len = key.len();
        let key_on_disk = match self.codec.as_mut() {
            Some(c) => {
                let mut z = Vec::with_capacity(key_len / 2 + 64);
                c.compress(&key, &mut z)?;
                z
            }
            None => key.clone(),
        };
        let value_len: usize = values.iter().map(Vec::len).sum();
        let record_len = key_len + value_len;
        if record_len > i32::MAX as usize || key_on_disk.len() > i32::MAX as usize {
            return Err(Error::invalid(
                "row group larger than 2 GiB; lower the row group size",
            ));
        }
        if self.validate {
            self.validate_group(&key, &key_on_disk, &values, value_len)?;
        }
        // Assemble: optional sync, three ints, key, columns.
        let out = &mut self.out;
        out.clear();
        let mut synced = false;
        if self.pos >= self.last_sync + SYNC_INTERVAL && self.pos != self.last_sync {
            write_i32_be(out, -1);
            out.extend_from_slice(&self.header.sync);
            synced = true;
        }
        write_i32_be(out, record_len as i32);
        write_i32_be(out, key_len as i32);
        write_i32_be(out, key_on_disk.len() as i32);
        out.extend_from_slice(&key_on_disk);
        let sink = self
            .sink
            .as_mut()
            .ok_or_else(|| Error::invalid("writer already finished"))?;
        sink.write_all(out)?;
        for v in &values {
            sink.write_all(v)?;
        }
        let written = (out.len() + value_len) as u64;
        if synced {
            self.last_sync = self.pos + 20;
            self.summary.syncs += 1;
        }
        self.pos += written;
        self.summary.bytes += written;
        self.summary.rows += rows as u64;
        self.summary.row_groups += 1;
        // Reset buffers, keeping their capacity where we still own it.
        for (b, v) in self.columns.iter_mut().zip(values) {
            b.count = 0;
            if self.codec.is_none() {
                b.data = v;
            }
            b.data.clear();
        }
        self.rows = 0;
        self.plain_bytes = 0;
        Ok(())
    }

    /// Each column's bytes as they go on disk: compressed, on the spare codecs' threads too
    /// when there are any and the row group is large enough (columns taken one at a time
    /// from a shared counter), or the buffers themselves without a codec.
    fn column_bytes(&mut self) -> Result<Vec<Vec<u8>>> {
        let RcFileWriter {
            codec,
            spare_codecs,
            columns,
            ..
        } = self;
        let Some(first) = codec.as_mut() else {
            return Ok(columns
                .iter_mut()
                .map(|b| std::mem::take(&mut b.data))
                .collect());
        };
        // The spare codecs' threads only for a row group large enough to pay for them.
        let total: usize = columns.iter().map(|b| b.data.len()).sum();
        let mut coders = vec![first];
        if total >= PARALLEL_COMPRESS_BYTES {
            coders.extend(spare_codecs.iter_mut());
        }
        let items: Vec<&ColumnBuffer> = columns.iter().collect();
        let compressed = map_in_order(items, &mut coders, "column-compressing", |c, b| {
            let mut z = Vec::with_capacity(b.data.len() / 2 + 64);
            c.compress(&b.data, &mut z)?;
            Ok(z)
        })?;
        // The first failing column's error.
        compressed.into_iter().collect()
    }

    /// Decodes the encoded row group again and compares every column with what was given.
    fn validate_group(
        &mut self,
        key: &[u8],
        key_on_disk: &[u8],
        values: &[Vec<u8>],
        value_len: usize,
    ) -> Result<()> {
        let limits = Limits::unlimited();
        let fail = |what: String| Error::invalid(format!("write validation failed: {what}"));
        let mut plain_key = Vec::new();
        match self.codec.as_mut() {
            Some(c) => c.decompress(key_on_disk, &mut plain_key, key.len())?,
            None => plain_key.extend_from_slice(key_on_disk),
        }
        if plain_key != key {
            return Err(fail("key section does not round-trip".into()));
        }
        let mut layout = Vec::new();
        let rows = parse_key(
            &plain_key,
            self.columns.len(),
            self.codec.is_some(),
            value_len as u64,
            &limits,
            &mut layout,
        )?;
        if rows != self.rows {
            return Err(fail(format!("row count {rows} != {}", self.rows)));
        }
        let mut data = ColumnData::default();
        for (i, (l, v)) in layout.iter().zip(values).enumerate() {
            let lens = plain_key.get(l.lengths.clone()).unwrap_or_default();
            let bytes = match self.codec.as_mut() {
                Some(c) => ColumnBytes::Compressed(v, c),
                None => ColumnBytes::Plain(v),
            };
            decode_column(bytes, l, lens, rows, &limits, &mut data)?;
            let original: &[u8] = if self.codec.is_some() {
                match self.columns.get(i) {
                    Some(c) => &c.data,
                    None => return Err(fail(format!("column {i} is missing"))),
                }
            } else {
                v
            };
            if data.bytes() != original {
                return Err(fail(format!("column {i} does not round-trip")));
            }
        }
        Ok(())
    }

    /// Writes buffered rows as a row group and flushes the sink. A failed flush makes the
    /// writer refuse further calls, as a failed write does.
    pub fn flush(&mut self) -> Result<()> {
        self.flush_row_group()?;
        self.on_sink(|s| s.flush())
    }

    /// Runs `op` on the sink (if not yet finished); its error makes the writer refuse
    /// further calls.
    fn on_sink(&mut self, op: impl FnOnce(&mut W) -> std::io::Result<()>) -> Result<()> {
        match self.sink.as_mut().map(op) {
            Some(Err(e)) => {
                self.poisoned = true;
                Err(e.into())
            }
            _ => Ok(()),
        }
    }

    /// Writes the last row group, flushes, and reports what was written.
    pub fn finish(self) -> Result<WriteSummary> {
        self.finish_into_inner().map(|(_, s)| s)
    }

    /// Like [`RcFileWriter::finish`], also returning the sink.
    pub fn finish_into_inner(mut self) -> Result<(W, WriteSummary)> {
        self.flush()?;
        let sink = self
            .sink
            .take()
            .ok_or_else(|| Error::invalid("writer already finished"))?;
        Ok((sink, self.summary.clone()))
    }
}

impl<W: SyncWrite> RcFileWriter<W> {
    /// [`RcFileWriter::flush`], then fsyncs the sink ([`SyncWrite::sync_all`]): every row written
    /// so far survives a power loss once this returns `Ok`. A failed fsync makes the writer
    /// refuse further calls (the kernel may have dropped the unsynced pages).
    pub fn flush_sync(&mut self) -> Result<()> {
        self.flush()?;
        self.on_sink(|s| s.sync_all())
    }

    /// [`RcFileWriter::finish`], then fsyncs the sink: the file survives a power loss once this
    /// returns `Ok`. Write, flush and fsync errors are all returned.
    pub fn finish_sync(self) -> Result<WriteSummary> {
        let (mut sink, summary) = self.finish_into_inner()?;
        sink.sync_all()?;
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The file of `rows` (cells per column) written row by row, or column by column in
    /// batches of `batch` rows, under the given row-group limits.
    fn written(
        rows: &[Vec<Vec<u8>>],
        width: usize,
        by_columns: Option<usize>,
        limits: (usize, usize),
    ) -> Vec<u8> {
        let mut w = RcFileWriter::builder(Vec::new(), width)
            .with_sync([3; 16])
            .with_row_group_rows(limits.0)
            .with_row_group_bytes(limits.1)
            .build()
            .unwrap();
        match by_columns {
            None => rows.iter().for_each(|r| w.write_row(r).unwrap()),
            Some(batch) => {
                for chunk in rows.chunks(batch) {
                    let given = chunk.first().map_or(0, Vec::len);
                    let cols: Vec<(Vec<u8>, Vec<usize>)> = (0..given)
                        .map(|c| {
                            let (mut bytes, mut ends) = (Vec::new(), Vec::new());
                            for r in chunk {
                                bytes.extend_from_slice(&r[c]);
                                ends.push(bytes.len());
                            }
                            (bytes, ends)
                        })
                        .collect();
                    let refs: Vec<(&[u8], &[usize])> =
                        cols.iter().map(|(b, e)| (&b[..], &e[..])).collect();
                    w.write_columns(&refs, chunk.len()).unwrap();
                }
            }
        }
        w.finish_into_inner().unwrap().0
    }

    proptest! {
        /// Column runs make the row groups and bytes that row after row makes, whatever the
        /// batch size, row-group limits, cell lengths and missing trailing columns.
        #[test]
        fn columns_write_what_rows_write(
            width in 1usize..5,
            given in 0usize..5,
            lens in proptest::collection::vec(0usize..40, 0..300),
            batch in 1usize..70,
            group_rows in 1usize..50,
            group_bytes in 1usize..600,
        ) {
            let given = given.min(width);
            let rows: Vec<Vec<Vec<u8>>> = lens
                .chunks(4)
                .enumerate()
                .map(|(i, l)| (0..given).map(|c| vec![(i + c) as u8; l[c % l.len()]]).collect())
                .collect();
            let limits = (group_rows, group_bytes);
            let want = written(&rows, width, None, limits);
            prop_assert_eq!(written(&rows, width, Some(batch), limits), want);
        }
    }
}
