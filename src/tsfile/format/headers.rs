//! The data section's record markers ([`Marker`]), [`ChunkHeader`] and [`PageHeader`]
//! (`spec/tsfile.md` §5.1, §5.3, §5.4).

use super::statistics::Statistics;
use super::types::{Compression, DataType, Encoding};
use super::varint::{put_uvarint, put_var_bytes};
use crate::cursor::Cursor;
use crate::{Error, Result};

/// Bit 7 of a chunk marker: an aligned time chunk (`TIME_COLUMN_MASK`).
pub const TIME_COLUMN_MASK: u8 = 0x80;
/// Bit 6 of a chunk marker: an aligned value chunk (`VALUE_COLUMN_MASK`).
pub const VALUE_COLUMN_MASK: u8 = 0x40;

/// A top-level record marker of the data section.
///
/// ```
/// use colfile::tsfile::format::{ChunkKind, Marker};
/// let m = Marker::from_code(0x45)?;
/// assert_eq!(m, Marker::chunk(ChunkKind::Value, false));
/// assert!(m.is_chunk() && !m.is_multi_page());
/// assert_eq!(m.chunk_kind(), Some(ChunkKind::Value));
/// assert!(Marker::from_code(0x07).is_err());
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Marker {
    /// `0x00`: a chunk group header (a `DeviceID` follows).
    ChunkGroupHeader,
    /// `0x01`: non-aligned chunk with two or more pages.
    ChunkHeader,
    /// `0x02`: end of the data section.
    Separator,
    /// `0x03`: the deprecated version record (a format error in v4).
    Version,
    /// `0x04`: operation index range (two `int64`s follow).
    OperationIndexRange,
    /// `0x05`: non-aligned chunk with at most one page.
    OnlyOnePageChunkHeader,
    /// `0x41`: aligned value chunk, two or more pages.
    ValueChunkHeader,
    /// `0x45`: aligned value chunk, at most one page.
    OnlyOnePageValueChunkHeader,
    /// `0x81`: aligned time chunk, two or more pages.
    TimeChunkHeader,
    /// `0x85`: aligned time chunk, at most one page.
    OnlyOnePageTimeChunkHeader,
}

/// The role of a chunk, from its marker's high bits.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ChunkKind {
    /// A non-aligned series (time and values in each page).
    NonAligned,
    /// The time column of an aligned device.
    Time,
    /// A value column of an aligned device.
    Value,
}

impl Marker {
    /// Every marker, in code order.
    pub const ALL: &'static [Marker] = &[
        Marker::ChunkGroupHeader,
        Marker::ChunkHeader,
        Marker::Separator,
        Marker::Version,
        Marker::OperationIndexRange,
        Marker::OnlyOnePageChunkHeader,
        Marker::ValueChunkHeader,
        Marker::OnlyOnePageValueChunkHeader,
        Marker::TimeChunkHeader,
        Marker::OnlyOnePageTimeChunkHeader,
    ];

    /// The marker byte.
    pub fn code(self) -> u8 {
        match self {
            Marker::ChunkGroupHeader => 0x00,
            Marker::ChunkHeader => 0x01,
            Marker::Separator => 0x02,
            Marker::Version => 0x03,
            Marker::OperationIndexRange => 0x04,
            Marker::OnlyOnePageChunkHeader => 0x05,
            Marker::ValueChunkHeader => 0x41,
            Marker::OnlyOnePageValueChunkHeader => 0x45,
            Marker::TimeChunkHeader => 0x81,
            Marker::OnlyOnePageTimeChunkHeader => 0x85,
        }
    }

    /// The marker for a byte; any other byte is a `Corrupt` error.
    pub fn from_code(code: u8) -> Result<Marker> {
        Marker::ALL
            .iter()
            .copied()
            .find(|m| m.code() == code)
            .ok_or_else(|| Error::corrupt("tsfile", format!("unknown marker 0x{code:02x}")))
    }

    /// The chunk marker Java computes at flush: `(one page ? 0x05 : 0x01) | mask`.
    pub fn chunk(kind: ChunkKind, multi_page: bool) -> Marker {
        match (kind, multi_page) {
            (ChunkKind::NonAligned, true) => Marker::ChunkHeader,
            (ChunkKind::NonAligned, false) => Marker::OnlyOnePageChunkHeader,
            (ChunkKind::Time, true) => Marker::TimeChunkHeader,
            (ChunkKind::Time, false) => Marker::OnlyOnePageTimeChunkHeader,
            (ChunkKind::Value, true) => Marker::ValueChunkHeader,
            (ChunkKind::Value, false) => Marker::OnlyOnePageValueChunkHeader,
        }
    }

    /// True for the six chunk-header markers.
    pub fn is_chunk(self) -> bool {
        self.chunk_kind().is_some()
    }

    /// True for chunk markers whose pages carry statistics (`(m & 0x3F) == 0x01`).
    pub fn is_multi_page(self) -> bool {
        self.is_chunk() && self.code() & 0x3f == 0x01
    }

    /// The chunk's role, or `None` for the non-chunk markers.
    pub fn chunk_kind(self) -> Option<ChunkKind> {
        match self {
            Marker::ChunkHeader | Marker::OnlyOnePageChunkHeader => Some(ChunkKind::NonAligned),
            Marker::TimeChunkHeader | Marker::OnlyOnePageTimeChunkHeader => Some(ChunkKind::Time),
            Marker::ValueChunkHeader | Marker::OnlyOnePageValueChunkHeader => {
                Some(ChunkKind::Value)
            }
            _ => None,
        }
    }
}

/// The header in front of a chunk's pages.
///
/// ```
/// use colfile::tsfile::format::{ChunkHeader, Compression, DataType, Encoding, Marker};
/// use colfile::cursor::Cursor;
/// let h = ChunkHeader {
///     marker: Marker::OnlyOnePageTimeChunkHeader,
///     measurement_id: String::new(),
///     data_size: 21,
///     data_type: DataType::Vector,
///     compression: Compression::Lz4,
///     encoding: Encoding::Ts2Diff,
/// };
/// let mut b = Vec::new();
/// h.write_to(&mut b)?;
/// assert_eq!(b, [0x85, 0x00, 21, 6, 7, 4]); // type, compression, encoding
/// assert_eq!(ChunkHeader::read(&mut Cursor::new(&b, 0), usize::MAX)?, h);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkHeader {
    /// One of the six chunk markers.
    pub marker: Marker,
    /// Measurement name (`""` for an aligned time chunk).
    pub measurement_id: String,
    /// Bytes of all page headers and payloads that follow the header.
    pub data_size: u32,
    /// Data type (`VECTOR` for a time chunk).
    pub data_type: DataType,
    /// Page compression.
    pub compression: Compression,
    /// Value encoding (time encoding for a time chunk).
    pub encoding: Encoding,
}

impl ChunkHeader {
    /// Reads a chunk header starting at its marker byte; names longer than
    /// `max_name_len` are a `LimitExceeded` error.
    pub fn read(c: &mut Cursor<'_>, max_name_len: usize) -> Result<ChunkHeader> {
        let at = c.offset();
        let marker = Marker::from_code(c.read_u8()?).map_err(|e| e.at_offset(at))?;
        Self::read_after_marker(c, marker, max_name_len)
    }

    /// Reads the rest of a chunk header whose marker byte was already consumed.
    pub fn read_after_marker(
        c: &mut Cursor<'_>,
        marker: Marker,
        max_name_len: usize,
    ) -> Result<ChunkHeader> {
        let at = c.offset().saturating_sub(1);
        if !marker.is_chunk() {
            return Err(Error::corrupt(
                "tsfile",
                format!("marker 0x{:02x} is not a chunk header", marker.code()),
            )
            .at_offset(at));
        }
        let name_at = c.offset();
        let name = c.read_var_str("measurement id")?;
        if name.len() > max_name_len {
            return Err(
                Error::limit("measurement id", name.len() as u64, max_name_len as u64)
                    .at_offset(name_at),
            );
        }
        let data_size = c.read_uvarint()?;
        let fields_at = c.offset();
        let [t, comp, enc] = c.array::<3>("chunk header")?;
        let bad = |e: Error| e.at_offset(fields_at).in_chunk(at);
        Ok(ChunkHeader {
            marker,
            measurement_id: name.to_owned(),
            data_size,
            data_type: DataType::from_code(t).map_err(bad)?,
            compression: Compression::from_code(comp).map_err(bad)?,
            encoding: Encoding::from_code(enc).map_err(bad)?,
        })
    }

    /// Appends the wire form (marker included).
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        out.push(self.marker.code());
        put_var_bytes(out, Some(self.measurement_id.as_bytes()))?;
        put_uvarint(out, self.data_size);
        out.extend_from_slice(&[
            self.data_type.code(),
            self.compression.code(),
            self.encoding.code(),
        ]);
        Ok(())
    }
}

/// The header in front of one page's payload.
///
/// ```
/// use colfile::tsfile::format::{DataType, PageHeader};
/// use colfile::cursor::Cursor;
/// let mut b = Vec::new();
/// PageHeader::empty().write_to(&mut b)?;
/// assert_eq!(b, [0x00]); // an empty value page is one byte
/// let h = PageHeader::read(&mut Cursor::new(&b, 0), DataType::Int32, true)?;
/// assert!(h.is_empty());
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PageHeader {
    /// Payload bytes after decompression (0 = an empty value page; nothing else follows).
    pub uncompressed_size: u32,
    /// Payload bytes as stored.
    pub compressed_size: u32,
    /// Page statistics, present in multi-page chunks for non-empty pages.
    pub statistics: Option<Statistics>,
}

impl PageHeader {
    /// The empty value page: all positions of the matching time page are null.
    pub fn empty() -> PageHeader {
        PageHeader {
            uncompressed_size: 0,
            compressed_size: 0,
            statistics: None,
        }
    }

    /// True for the empty value page (`uncompressed_size == 0`).
    pub fn is_empty(&self) -> bool {
        self.uncompressed_size == 0
    }

    /// Reads a page header of a chunk of `data_type`; `with_statistics` is the chunk marker's
    /// [`Marker::is_multi_page`].
    pub fn read(
        c: &mut Cursor<'_>,
        data_type: DataType,
        with_statistics: bool,
    ) -> Result<PageHeader> {
        let uncompressed_size = c.read_uvarint()?;
        if uncompressed_size == 0 {
            return Ok(PageHeader::empty());
        }
        let compressed_size = c.read_uvarint()?;
        let statistics = if with_statistics {
            Some(Statistics::read(c, data_type)?)
        } else {
            None
        };
        Ok(PageHeader {
            uncompressed_size,
            compressed_size,
            statistics,
        })
    }

    /// Appends the wire form (only `00` for the empty page).
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_uvarint(out, self.uncompressed_size);
        if self.is_empty() {
            return Ok(());
        }
        put_uvarint(out, self.compressed_size);
        if let Some(s) = &self.statistics {
            s.write_to(out)?;
        }
        Ok(())
    }
}
