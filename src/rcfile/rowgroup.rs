//! One row group in memory: the parsed key section (row count, per-column sizes and cell
//! lengths) and the decompressed bytes of the projected columns, with cell access as
//! borrowed slices.

use super::lengths::decode_offsets;
use crate::compress::{check_plain_len, Algorithm, Codec};
use crate::cursor::Cursor;
use crate::{Error, Limits, Result};
use std::ops::Range;

/// Sizes of one column in a row group, from the key section.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnLayout {
    /// Bytes in the value section (compressed size when the file is compressed).
    pub on_disk_len: u64,
    /// Uncompressed size.
    pub plain_len: u64,
    /// Range of this column's run-length cell-lengths buffer within the key section.
    pub lengths: Range<usize>,
}

/// The decoded bytes and cell boundaries of one projected column.
#[derive(Debug, Default, Clone)]
pub struct ColumnData {
    pub(crate) data: Vec<u8>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) nulled: bool,
}

impl ColumnData {
    /// Number of cells.
    pub fn len(&self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    /// True when the column has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The bytes of cell `row`; `None` if the row is out of range or the whole column is
    /// "nulled" (an empty lengths buffer, which Hive reads as NULL for every row).
    #[inline]
    pub fn cell(&self, row: usize) -> Option<&[u8]> {
        self.all_cells().cell(row)
    }
    /// True when Hive would hand NULL for every row (nulled column).
    pub fn is_nulled(&self) -> bool {
        self.nulled
    }
    /// All cells in row order (nothing for a nulled column).
    pub fn cells(&self) -> impl ExactSizeIterator<Item = &[u8]> + '_ {
        self.all_cells().cells()
    }
    /// Every cell, or none for a nulled column.
    fn all_cells(&self) -> Cells<'_> {
        let n = if self.nulled { 0 } else { self.len() };
        self.rows(0..n).unwrap_or(Cells {
            bytes: &[],
            offsets: &[],
        })
    }
    /// The column's uncompressed bytes (all cells back to back).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }
    /// Cell end offsets (`len() + 1` entries, starting at 0).
    pub fn offsets(&self) -> &[u32] {
        &self.offsets
    }
    /// The cells of `rows` (a range within [`len`](Self::len)), for decoding part of a
    /// column; `None` past the end.
    pub(crate) fn rows(&self, rows: std::ops::Range<usize>) -> Option<Cells<'_>> {
        Some(Cells {
            bytes: &self.data,
            offsets: self.offsets.get(rows.start..rows.end.checked_add(1)?)?,
        })
    }
}

/// Consecutive cells of one column: the column's bytes and the boundaries of these cells
/// (one more offset than cells; offsets index the whole column's bytes).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Cells<'a> {
    bytes: &'a [u8],
    offsets: &'a [u32],
}

impl<'a> Cells<'a> {
    /// Number of cells.
    pub(crate) fn len(self) -> usize {
        self.offsets.len().saturating_sub(1)
    }
    /// The whole column's bytes (cells start at their offsets in it).
    pub(crate) fn bytes(self) -> &'a [u8] {
        self.bytes
    }
    /// The cells' boundaries: `len() + 1` offsets into [`bytes`](Self::bytes).
    pub(crate) fn offsets(self) -> &'a [u32] {
        self.offsets
    }
    /// Where the first cell starts and the last ends.
    pub(crate) fn span(self) -> std::ops::Range<usize> {
        let at = |o: Option<&u32>| o.map_or(0, |&o| o as usize);
        at(self.offsets.first())..at(self.offsets.last())
    }
    /// The bytes of cell `i` (counted from the first of these cells).
    pub(crate) fn cell(self, i: usize) -> Option<&'a [u8]> {
        let s = *self.offsets.get(i)? as usize;
        let e = *self.offsets.get(i + 1)? as usize;
        self.bytes.get(s..e)
    }
    /// Each cell's bytes, in order.
    pub(crate) fn cells(self) -> impl ExactSizeIterator<Item = &'a [u8]> {
        self.offsets.windows(2).map(move |w| match *w {
            [start, end] => self
                .bytes
                .get(start as usize..end as usize)
                .unwrap_or_default(),
            _ => &[],
        })
    }
}

/// A row group: the structure from its key section and the projected columns' cells.
#[derive(Debug, Default, Clone)]
pub struct RowGroup {
    pub(crate) index: u64,
    pub(crate) offset: u64,
    pub(crate) end: u64,
    pub(crate) sync_before: bool,
    pub(crate) rows: usize,
    pub(crate) record_length: u32,
    pub(crate) key_length: u32,
    pub(crate) compressed_key_length: u32,
    pub(crate) key: Vec<u8>,
    pub(crate) layout: Vec<ColumnLayout>,
    pub(crate) columns: Vec<Option<ColumnData>>,
    /// [`Limits::max_row_group_bytes`] of the reader, and what the group was charged for.
    pub(crate) max_bytes: u64,
    pub(crate) cost: u64,
}

impl RowGroup {
    /// Index of this row group in the file (counting from the reader's first row group).
    pub fn index(&self) -> u64 {
        self.index
    }
    /// Byte range in the file, including the sync block before it, if any.
    pub fn byte_range(&self) -> Range<u64> {
        self.offset..self.end
    }
    /// True when a sync block precedes the row group.
    pub fn sync_before(&self) -> bool {
        self.sync_before
    }
    /// Number of rows.
    pub fn num_rows(&self) -> usize {
        self.rows
    }
    /// The record length field: uncompressed key length + on-disk column bytes.
    pub fn record_length(&self) -> u32 {
        self.record_length
    }
    /// Uncompressed key section length.
    pub fn key_length(&self) -> u32 {
        self.key_length
    }
    /// On-disk key section length.
    pub fn compressed_key_length(&self) -> u32 {
        self.compressed_key_length
    }
    /// Per-column sizes for every column in the file.
    pub fn layout(&self) -> &[ColumnLayout] {
        &self.layout
    }
    /// The raw run-length cell-lengths buffer of column `col`.
    pub fn cell_lengths_buffer(&self, col: usize) -> Option<&[u8]> {
        self.layout
            .get(col)
            .and_then(|l| self.key.get(l.lengths.clone()))
    }
    /// Column `col`'s cells, or `None` if it is not projected or not in the file.
    pub fn column(&self, col: usize) -> Option<&ColumnData> {
        self.columns.get(col).and_then(|c| c.as_ref())
    }
    /// Number of columns in the file.
    pub fn num_columns(&self) -> usize {
        self.layout.len()
    }

    /// The cells to decode for column `col`, or `None` when every row reads as NULL: the
    /// file has no such column (schema evolution) or the column is "nulled". A file column
    /// that was not projected is an error.
    pub(crate) fn cells_to_decode(&self, col: usize) -> Result<Option<&ColumnData>> {
        if col >= self.num_columns() {
            // Not charged when the group was read: its NULLs must fit in what is left.
            let need = (self.rows as u64).saturating_mul(VALUE_BYTES);
            if self.cost.saturating_add(need) > self.max_bytes {
                return Err(Error::limit(
                    "row group decoded size",
                    self.cost.saturating_add(need),
                    self.max_bytes,
                )
                .in_column(col)
                .in_row_group(self.index)
                .at_offset(self.offset));
            }
            return Ok(None);
        }
        let data = self
            .column(col)
            .ok_or_else(|| Error::invalid(format!("column {col} was not projected")))?;
        Ok((!data.is_nulled()).then_some(data))
    }
}

/// What typed decoding holds per row of a column: one [`super::Value`], the largest
/// per-row structure the typed decoders build ([`super::ColumnBatch`] holds less).
pub(crate) const VALUE_BYTES: u64 = std::mem::size_of::<super::Value>() as u64;

/// What reading and decoding a row group costs, checked against
/// [`Limits::max_row_group_bytes`] before any column is read: the key section's `key_len`
/// bytes, and per projected column its plain bytes, 4-byte cell offsets and per-row values.
/// Each column's own plain length is checked first (as [`decode_column`] will), so that a
/// single oversized column is named as such. `algorithm` is the file's codec; `value_start`
/// the file offset of the first column, for locating errors.
pub(crate) fn check_group_cost(
    layout: &[ColumnLayout],
    wanted: &[bool],
    rows: usize,
    (key_len, value_start): (usize, u64),
    algorithm: Option<Algorithm>,
    limits: &Limits,
) -> Result<u64> {
    let offsets_and_values = (rows as u64 + 1).saturating_mul(4 + VALUE_BYTES);
    let mut cost = key_len as u64;
    let mut at = value_start;
    for (col, (l, &w)) in layout.iter().zip(wanted).enumerate() {
        let nulled = l.lengths.is_empty() && rows > 0;
        if w && !nulled {
            let on_disk = usize::try_from(l.on_disk_len).unwrap_or(usize::MAX);
            match algorithm {
                Some(a) => check_plain_len(a, on_disk, l.plain_len, limits).map(drop),
                None => limits.check_alloc("column size", l.plain_len).map(drop),
            }
            .map_err(|e| e.in_column(col).at_offset(at))?;
        }
        if w {
            let plain = if nulled { 0 } else { l.plain_len };
            cost = cost.saturating_add(offsets_and_values.saturating_add(plain));
        }
        at = at.saturating_add(l.on_disk_len);
    }
    let cap = limits.max_row_group_bytes as u64;
    if cost > cap {
        return Err(Error::limit("row group decoded size", cost, cap));
    }
    Ok(cost)
}

/// Parses a decompressed key section: row count, then per column on-disk length, plain
/// length and cell-lengths buffer. `value_len` is the value section size from the record
/// header, which the on-disk lengths must add up to.
pub(crate) fn parse_key(
    key: &[u8],
    columns: usize,
    compressed: bool,
    value_len: u64,
    limits: &Limits,
    layout: &mut Vec<ColumnLayout>,
) -> Result<usize> {
    let mut c = Cursor::new(key, 0);
    let ctx = |e: Error| e.in_section("key section");
    let rows = c.read_vint().map_err(ctx)?;
    if rows < 0 {
        return Err(ctx(Error::corrupt(
            "rcfile",
            format!("negative row count {rows}"),
        )
        .at_offset(0)));
    }
    if rows as u64 > limits.max_rows_per_group {
        return Err(ctx(Error::limit(
            "rows in a row group",
            rows as u64,
            limits.max_rows_per_group,
        )));
    }
    layout.clear();
    let mut total: u64 = 0;
    for col in 0..columns {
        let cctx = |e: Error| e.in_section("key section").in_column(col);
        let at = c.offset();
        let on_disk = c.read_vint().map_err(cctx)?;
        let plain = c.read_vint().map_err(cctx)?;
        if on_disk < 0 || plain < 0 {
            return Err(cctx(
                Error::corrupt(
                    "rcfile",
                    format!("negative column length ({on_disk}, {plain})"),
                )
                .at_offset(at),
            ));
        }
        if !compressed && on_disk != plain {
            return Err(cctx(
                Error::corrupt(
                    "rcfile",
                    format!(
                        "uncompressed column has on-disk length {on_disk} but plain length {plain}"
                    ),
                )
                .at_offset(at),
            ));
        }
        let n = c.read_len("cell lengths", usize::MAX).map_err(cctx)?;
        let start = c.position();
        c.take("cell lengths", n).map_err(cctx)?;
        total += on_disk as u64;
        layout.push(ColumnLayout {
            on_disk_len: on_disk as u64,
            plain_len: plain as u64,
            lengths: start..start + n,
        });
    }
    if total != value_len {
        return Err(Error::corrupt(
            "rcfile",
            format!("column lengths add up to {total} bytes but the record holds {value_len} value bytes"),
        )
        .at_offset(0)
        .in_section("key section"));
    }
    Ok(rows as usize)
}

/// How a column's bytes reach [`ColumnData`].
pub(crate) enum ColumnBytes<'a> {
    /// Compressed bytes to decompress into exactly the plain length.
    Compressed(&'a [u8], &'a mut Box<dyn Codec>),
    /// Uncompressed bytes to copy.
    Plain(&'a [u8]),
    /// Already in `ColumnData::data`.
    InPlace,
}

/// Fills `out` with one column of a row group: its plain bytes and its cell boundaries
/// (decoded from the run-length `lengths` buffer and checked against the plain length).
pub(crate) fn decode_column(
    bytes: ColumnBytes<'_>,
    layout: &ColumnLayout,
    lengths: &[u8],
    rows: usize,
    limits: &Limits,
    out: &mut ColumnData,
) -> Result<()> {
    out.nulled = false;
    limits.check_alloc("cell offsets", (rows as u64 + 1) * 4)?;
    if lengths.is_empty() && rows > 0 {
        // Hive's "nulled" column: every row NULL.
        out.nulled = true;
        out.data.clear();
        out.offsets.clear();
        out.offsets.resize(rows + 1, 0);
        return Ok(());
    }
    let plain = match &bytes {
        ColumnBytes::Compressed(src, codec) => {
            check_plain_len(codec.algorithm(), src.len(), layout.plain_len, limits)?
        }
        _ => limits.check_alloc("column size", layout.plain_len)?,
    };
    match bytes {
        // Over the reused buffer: Snappy and LZ4 then skip re-zeroing what it already holds.
        ColumnBytes::Compressed(src, codec) => {
            codec.decompress_replace(src, &mut out.data, plain)?
        }
        ColumnBytes::Plain(src) => {
            out.data.clear();
            out.data.extend_from_slice(src)
        }
        ColumnBytes::InPlace => {}
    }
    if out.data.len() != plain {
        return Err(Error::corrupt(
            "rcfile",
            format!(
                "column holds {} bytes, key section says {plain}",
                out.data.len()
            ),
        ));
    }
    decode_offsets(lengths, rows, plain, &mut out.offsets)
}
