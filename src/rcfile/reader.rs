//! The streaming RCFile reader: row groups one at a time from any [`ByteSource`], only the
//! projected columns read and decompressed, and byte-range splits assigned on sync markers
//! the way Hive and Trino assign them.

use super::header::Header;
use super::rowgroup::{
    check_group_cost, decode_column, parse_key, ColumnBytes, ColumnData, RowGroup,
};
use crate::compress::{check_plain_len, Codec};
use crate::source::ByteSource;
use crate::{Error, Limits, Result};
use std::ops::Range;

const SYNC_ESCAPE: i32 = -1;

/// Which of `cols` file columns to read: all when `projection` is `None`; indices past the
/// file's column count are ignored.
fn wanted_columns(cols: usize, projection: Option<&[usize]>) -> Vec<bool> {
    let mut wanted = vec![projection.is_none(); cols];
    for &i in projection.unwrap_or_default() {
        if let Some(w) = wanted.get_mut(i) {
            *w = true;
        }
    }
    wanted
}

/// The bytes a read of a file of `len` bytes starts with: the first `block` bytes (the
/// header, usually whole) and `tail` bytes from the split's start (the first row group's
/// lengths and key section, usually).
pub(crate) fn head_ranges(
    split: Option<&Range<u64>>,
    len: u64,
    block: u64,
    tail: u64,
) -> [Range<u64>; 2] {
    let head = split.map_or(0, |r| r.start.min(len));
    [0..block.min(len), head..head.saturating_add(tail).min(len)]
}

/// Configures and opens an [`RcFileReader`].
///
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::RcFileReader;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let mut reader = RcFileReader::builder(bytes.as_slice()).with_projection([0]).build()?;
/// assert_eq!(reader.header().column_count, 4);
/// let mut rows = 0;
/// while let Some(group) = reader.next_row_group()? {
///     let col = group.column(0).expect("projected");
///     rows += col.cells().count();
///     assert!(group.column(1).is_none()); // not projected: never read
/// }
/// assert_eq!(rows, 1000);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RcFileReaderBuilder<S> {
    source: S,
    projection: Option<Vec<usize>>,
    split: Option<Range<u64>>,
    limits: Limits,
}

impl<S: ByteSource> RcFileReaderBuilder<S> {
    /// Reads `source`: all columns, the whole file, default limits.
    pub fn new(source: S) -> Self {
        RcFileReaderBuilder {
            source,
            projection: None,
            split: None,
            limits: Limits::default(),
        }
    }
    /// Reads only these columns (file column indices); others are skipped without being
    /// read or decompressed. Indices past the file's column count are ignored.
    pub fn with_projection(mut self, columns: impl IntoIterator<Item = usize>) -> Self {
        self.projection = Some(columns.into_iter().collect());
        self
    }
    /// Reads only the row groups that belong to the byte range `[start, end)` under the rule
    /// Hive and Trino share: a split starting at 0 owns the row groups before the first sync
    /// block; any split owns the row groups after each sync block whose `FF FF FF FF` escape
    /// starts inside it. A set of splits that covers the file yields every row
    /// exactly once.
    pub fn with_split(mut self, range: Range<u64>) -> Self {
        self.split = Some(range);
        self
    }
    /// Caps on declared sizes.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// Reads the header and positions the reader at the split's first row group.
    pub fn build(self) -> Result<RcFileReader<S>> {
        // What the async reader fetches first (its default block and tail).
        let head = head_ranges(self.split.as_ref(), self.source.len(), 4 << 10, 64 << 10);
        self.source.will_need(&head);
        let header = Header::read(&self.source, &self.limits)?;
        let codec = match header.codec {
            Some(c) => Some(c.codec().map_err(|e| e.in_section("header"))?),
            None => None,
        };
        let len = self.source.len();
        let cols = header.column_count;
        let wanted = wanted_columns(cols, self.projection.as_deref());
        let (start, end) = match &self.split {
            None => (0, len),
            Some(r) => (r.start, r.end.min(len)),
        };
        let mut reader = RcFileReader {
            source: self.source,
            header,
            codec,
            limits: self.limits,
            wanted,
            pos: 0,
            end,
            len,
            next_index: 0,
            done: false,
            group: RowGroup::default(),
            scratch: Vec::new(),
            spare: Vec::new(),
        };
        if start == 0 {
            reader.pos = reader.header.length;
        } else {
            match reader.find_sync(start)? {
                Some(p) if p < end => reader.pos = p,
                _ => reader.done = true,
            }
        }
        Ok(reader)
    }
}

/// Streams the row groups of an RCFile. Memory use is one row group's key section plus the
/// projected columns, whatever the file size; buffers are reused from one group to the next.
#[derive(Debug)]
pub struct RcFileReader<S> {
    source: S,
    header: Header,
    codec: Option<Box<dyn Codec>>,
    limits: Limits,
    wanted: Vec<bool>,
    pos: u64,
    end: u64,
    len: u64,
    next_index: u64,
    done: bool,
    group: RowGroup,
    scratch: Vec<u8>,
    spare: Vec<ColumnData>,
}

impl<S: ByteSource> RcFileReader<S> {
    /// A builder over `source`.
    pub fn builder(source: S) -> RcFileReaderBuilder<S> {
        RcFileReaderBuilder::new(source)
    }
    /// Opens `source` with default options.
    pub fn new(source: S) -> Result<Self> {
        RcFileReaderBuilder::new(source).build()
    }
    /// The file header.
    pub fn header(&self) -> &Header {
        &self.header
    }
    /// The caps this reader applies.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }
    /// Byte offset of the next thing to read.
    pub fn position(&self) -> u64 {
        self.pos
    }
    /// Reads only these columns from the next row group on (e.g. once the header has shown
    /// the column count); indices past the file's column count are ignored.
    pub fn set_projection(&mut self, columns: impl IntoIterator<Item = usize>) {
        let cols: Vec<usize> = columns.into_iter().collect();
        self.wanted = wanted_columns(self.header.column_count, Some(&cols));
    }
    /// True for file columns that are read.
    pub fn is_projected(&self, col: usize) -> bool {
        self.wanted.get(col).copied().unwrap_or(false)
    }
    /// The underlying source.
    pub fn source(&self) -> &S {
        &self.source
    }
    /// Gives the source back.
    pub fn into_source(self) -> S {
        self.source
    }

    fn read_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.source.read_exact_at(offset, buf)
    }

    fn read_i32(&self, offset: u64, what: &'static str) -> Result<i32> {
        if self.len.saturating_sub(offset) < 4 {
            return Err(
                Error::truncated(what, 4, self.len.saturating_sub(offset)).at_offset(offset)
            );
        }
        let mut b = [0u8; 4];
        self.read_at(offset, &mut b)?;
        Ok(i32::from_be_bytes(b))
    }

    /// Offset of the first sync block (its `FF FF FF FF` escape) at or after `from`.
    fn find_sync(&self, from: u64) -> Result<Option<u64>> {
        let mut pattern = [0xffu8; 20];
        pattern[4..].copy_from_slice(&self.header.sync);
        const CHUNK: u64 = 1 << 20;
        let mut at = from;
        let mut buf = Vec::new();
        while at + 20 <= self.len {
            let n = (self.len - at).min(CHUNK + 19);
            buf.resize(n as usize, 0);
            self.read_at(at, &mut buf)?;
            if let Some(i) = buf.windows(20).position(|w| w == pattern) {
                return Ok(Some(at + i as u64));
            }
            if at + n >= self.len {
                break;
            }
            at += n - 19;
        }
        Ok(None)
    }

    /// How many row groups [`next_row_group`](Self::next_row_group) has returned.
    pub fn row_groups_read(&self) -> u64 {
        self.next_index
    }

    /// Reads the next row group; `Ok(None)` at the end of the file or split. The returned
    /// group borrows the reader's buffers until the next call.
    pub fn next_row_group(&mut self) -> Result<Option<&RowGroup>> {
        if self.done {
            return Ok(None);
        }
        let index = self.next_index;
        match self.read_group(index) {
            Ok(true) => {
                self.next_index += 1;
                Ok(Some(&self.group))
            }
            Ok(false) => {
                self.done = true;
                Ok(None)
            }
            // Bytes an async reader has yet to fetch: the group is read again once they are
            // in (reading it only fills the group's buffers and moves on at its end).
            Err(e) if matches!(e.kind(), crate::ErrorKind::Unfetched { .. }) => Err(e),
            Err(e) => {
                self.done = true;
                Err(e.in_row_group(index))
            }
        }
    }

    /// The row group the last successful [`next_row_group`](Self::next_row_group)
    /// returned (an empty one before the first).
    #[cfg(feature = "arrow")]
    pub(crate) fn last_row_group(&self) -> &RowGroup {
        &self.group
    }

    /// Once the next row group's key section is read (and while its read waits for bytes,
    /// an [`Unfetched`](crate::ErrorKind::Unfetched) error, in an async reader): the byte
    /// ranges of its projected columns, and of the start of the group after it (a sync
    /// block, the lengths and a key section a quarter longer than this group's).
    pub(crate) fn pending_ranges(&self) -> Option<Vec<Range<u64>>> {
        let g = &self.group;
        if self.done || g.offset != self.pos || g.end <= self.pos {
            return None;
        }
        let value_len = u64::from(g.record_length.saturating_sub(g.key_length));
        let mut col_start = g.end.checked_sub(value_len)?;
        let mut out = Vec::new();
        for (col, l) in g.layout.iter().enumerate() {
            let end = col_start.saturating_add(l.on_disk_len);
            if self.is_projected(col) {
                out.push(col_start..end);
            }
            col_start = end;
        }
        let ckey = u64::from(g.compressed_key_length);
        let next_head = 20 + 12 + ckey + ckey / 4 + 64;
        out.push(g.end..g.end.saturating_add(next_head).min(self.len));
        Some(out)
    }

    fn read_group(&mut self, index: u64) -> Result<bool> {
        /// Columns at least this long are not announced to a source that reads ahead.
        const DIRECT_READ: u64 = 256 << 10;
        let start = self.pos;
        if start >= self.len {
            return Ok(false);
        }
        let mut pos = start;
        let mut n = self.read_i32(pos, "record length")?;
        let mut sync_before = false;
        if n == SYNC_ESCAPE {
            if pos >= self.end {
                return Ok(false); // the next split owns what follows this sync
            }
            let mut s = [0u8; 16];
            if self.len - pos < 20 {
                return Err(
                    Error::truncated("sync marker", 16, self.len - pos - 4).at_offset(pos + 4)
                );
            }
            self.read_at(pos + 4, &mut s)?;
            if s != self.header.sync {
                return Err(
                    Error::corrupt("rcfile", "sync marker does not match the header's")
                        .at_offset(pos + 4),
                );
            }
            pos += 20;
            sync_before = true;
            if pos == self.len {
                return Ok(false); // a trailing sync: tolerated, as Hive does
            }
            n = self.read_i32(pos, "record length")?;
        }
        let at = pos;
        let key_len = self.read_i32(pos + 4, "key length")?;
        let ckey_len = self.read_i32(pos + 8, "compressed key length")?;
        if n < 0 || key_len < 0 || ckey_len < 0 {
            return Err(Error::corrupt("rcfile", format!("negative row group lengths (record {n}, key {key_len}, compressed key {ckey_len})")).at_offset(at));
        }
        if key_len > n {
            return Err(Error::corrupt(
                "rcfile",
                format!("key length {key_len} exceeds record length {n}"),
            )
            .at_offset(at));
        }
        let compressed = self.codec.is_some();
        if !compressed && ckey_len != key_len {
            return Err(Error::corrupt("rcfile", format!("uncompressed file with key length {key_len} but compressed key length {ckey_len}")).at_offset(at));
        }
        let value_len = (n - key_len) as u64;
        let key_start = pos + 12;
        let value_start = key_start + ckey_len as u64;
        let group_end = value_start + value_len;
        if group_end > self.len {
            return Err(
                Error::truncated("row group", group_end - pos, self.len - pos).at_offset(at),
            );
        }
        // Key section.
        let in_key = |e: Error| e.in_section("key section").at_offset(key_start);
        let ckey = self
            .limits
            .check_alloc("key section", ckey_len as u64)
            .map_err(in_key)?;
        let key_plain = match &self.codec {
            Some(codec) => check_plain_len(codec.algorithm(), ckey, key_len as u64, &self.limits)
                .map_err(in_key)?,
            None => self
                .limits
                .check_alloc("key section", key_len as u64)
                .map_err(in_key)?,
        };
        let g = &mut self.group;
        g.key.clear();
        if let Some(codec) = self.codec.as_mut() {
            self.scratch.resize(ckey, 0);
            self.source.read_exact_at(key_start, &mut self.scratch)?;
            codec
                .decompress(&self.scratch, &mut g.key, key_plain)
                .map_err(in_key)?;
            if g.key.len() != key_plain {
                return Err(Error::corrupt(
                    "rcfile",
                    format!(
                        "key section decompressed to {} bytes, header says {key_plain}",
                        g.key.len()
                    ),
                )
                .at_offset(key_start));
            }
        } else {
            g.key.resize(key_plain, 0);
            self.source.read_exact_at(key_start, &mut g.key)?;
        }
        let cols = self.header.column_count;
        g.rows = parse_key(
            &g.key,
            cols,
            compressed,
            value_len,
            &self.limits,
            &mut g.layout,
        )
        .map_err(|e| e.at_offset(key_start))?;
        // Everything the group will hold, summed before any column is read or allocated.
        let algorithm = self.codec.as_ref().map(|c| c.algorithm());
        g.cost = check_group_cost(
            &g.layout,
            &self.wanted,
            g.rows,
            (key_plain, value_start),
            algorithm,
            &self.limits,
        )
        .map_err(|e| e.at_offset(at))?;
        g.max_bytes = self.limits.max_row_group_bytes as u64;
        g.index = index;
        g.offset = start;
        g.end = group_end;
        g.sync_before = sync_before;
        g.record_length = n as u32;
        g.key_length = key_len as u32;
        g.compressed_key_length = ckey_len as u32;
        // The columns about to be read, and the next group's head: one planned read for a
        // source that plans (a local file), nothing for others.
        if let Some(mut next) = self.pending_ranges() {
            // A long column is left to its own read, straight into its reused buffer:
            // reading it ahead costs a fresh buffer and a second copy (it doubled the time
            // of an uncompressed scan of 4 MiB row groups).
            next.retain(|r| r.end - r.start < DIRECT_READ);
            self.source.will_need(&next);
        }
        let g = &mut self.group;
        // Columns: keep ColumnData allocations for reuse, pushed in reverse so that the pops
        // below hand each column the buffer it had last time (sizes then line up, and
        // nothing is grown and zeroed again).
        for c in g.columns.drain(..).rev().flatten() {
            self.spare.push(c);
        }
        let mut col_start = value_start;
        for col in 0..cols {
            // `parse_key` describes exactly `cols` columns.
            let Some(l) = g.layout.get(col).cloned() else {
                let msg = format!("key section describes {} of {cols} columns", g.layout.len());
                return Err(Error::corrupt("rcfile", msg).at_offset(key_start));
            };
            if !self.wanted.get(col).copied().unwrap_or(false) {
                g.columns.push(None);
                col_start += l.on_disk_len;
                continue;
            }
            let on_disk = self
                .limits
                .check_alloc("column size", l.on_disk_len)
                .map_err(|e| e.in_column(col).at_offset(col_start))?;
            let mut data = self.spare.pop().unwrap_or_default();
            let lengths = g.key.get(l.lengths.clone()).unwrap_or_default();
            let result = if let Some(codec) = self.codec.as_mut() {
                self.scratch.resize(on_disk, 0);
                self.source
                    .read_exact_at(col_start, &mut self.scratch)
                    .and_then(|_| {
                        let bytes = ColumnBytes::Compressed(&self.scratch, codec);
                        decode_column(bytes, &l, lengths, g.rows, &self.limits, &mut data)
                    })
            } else if let Some(all) = self.source.as_slice() {
                let s = col_start as usize;
                match all.get(s..s + on_disk) {
                    Some(src) => decode_column(
                        ColumnBytes::Plain(src),
                        &l,
                        lengths,
                        g.rows,
                        &self.limits,
                        &mut data,
                    ),
                    None => Err(Error::truncated("column", on_disk as u64, 0)),
                }
            } else {
                data.data.resize(on_disk, 0);
                self.source
                    .read_exact_at(col_start, &mut data.data)
                    .and_then(|_| {
                        decode_column(
                            ColumnBytes::InPlace,
                            &l,
                            lengths,
                            g.rows,
                            &self.limits,
                            &mut data,
                        )
                    })
            };
            result.map_err(|e| e.in_column(col).at_offset(col_start))?;
            g.columns.push(Some(data));
            col_start += l.on_disk_len;
        }
        self.pos = group_end;
        Ok(true)
    }
}
