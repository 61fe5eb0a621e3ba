//! Reading one chunk from a byte-range source: its header, its pages, and each page's
//! payload decompressed to exactly the size its header declares (`spec/tsfile.md` §5.3–5.4).
//! Every size is checked against the file and the [`Limits`] before anything is allocated.

use crate::cursor::Cursor;
use crate::source::ByteSource;
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::format::headers::{ChunkHeader, PageHeader};
use crate::tsfile::format::statistics::Statistics;
use crate::tsfile::format::{Compression, Physical};
use crate::{Error, Limits, Result};

/// A chunk's header and its raw page bytes.
#[derive(Debug)]
pub struct RawChunk {
    /// The chunk header.
    pub header: ChunkHeader,
    /// Offset of the header's marker byte.
    pub offset: u64,
    /// Offset of the first page header.
    pub body_offset: u64,
    /// The `data_size` bytes of page headers and payloads.
    pub body: Vec<u8>,
}

/// One page of a chunk, its payload still compressed.
#[derive(Debug)]
pub struct RawPage<'a> {
    /// Page index within the chunk.
    pub index: u32,
    /// The page header (statistics only in multi-page chunks).
    pub header: PageHeader,
    /// The stored payload (`compressed_size` bytes; empty for an empty page).
    pub data: &'a [u8],
    /// Offset of the payload in the file.
    pub offset: u64,
}

impl RawChunk {
    /// Reads the chunk whose header starts at `offset`. A chunk that fits in the first
    /// `WHOLE_WINDOW` bytes (4 KiB) comes in one read, header and body together.
    pub fn read<S: ByteSource + ?Sized>(source: &S, offset: u64, limits: &Limits) -> Result<Self> {
        let (mut chunk, window) = Self::read_window(source, offset, limits, WHOLE_WINDOW)?;
        chunk.fill_body(&window, source, limits)?;
        Ok(chunk)
    }

    /// Loads the body from `window` (the bytes from the chunk's offset on, as
    /// [`read_window`](Self::read_window) returned them) when it holds all of it, else
    /// from `source`.
    pub(crate) fn fill_body<S: ByteSource + ?Sized>(
        &mut self,
        window: &[u8],
        source: &S,
        limits: &Limits,
    ) -> Result<()> {
        let start = (self.body_offset - self.offset) as usize;
        let size = self.header.data_size as usize;
        match window.get(start..).and_then(|rest| rest.get(..size)) {
            Some(body) => {
                limits
                    .check_alloc("chunk data", size as u64)
                    .map_err(|e| e.at_offset(self.body_offset))?;
                self.body = body.to_vec();
                Ok(())
            }
            None => self.load_body(source, limits),
        }
    }

    /// Reads the header of the chunk at `offset` and checks that its data fits in the
    /// file, leaving `body` empty: pages can then be read one at a time
    /// ([`super::pages::PagedChunk`]) or all at once ([`load_body`](Self::load_body)).
    pub fn read_head<S: ByteSource + ?Sized>(
        source: &S,
        offset: u64,
        limits: &Limits,
    ) -> Result<Self> {
        Self::read_window(source, offset, limits, CHUNK_HEADER_WINDOW).map(|(c, _)| c)
    }

    /// [`read_head`](Self::read_head) with a first read of up to `window` bytes, which it
    /// also returns.
    pub(crate) fn read_window<S: ByteSource + ?Sized>(
        source: &S,
        offset: u64,
        limits: &Limits,
        window: u64,
    ) -> Result<(Self, Vec<u8>)> {
        let (header, header_len, head) = read_header(source, offset, limits, window)?;
        let body_offset = offset + header_len;
        let size = header.data_size as u64;
        let avail = source.len().saturating_sub(body_offset);
        if size > avail {
            return Err(Error::truncated("chunk data", size, avail).at_offset(body_offset));
        }
        let chunk = RawChunk {
            header,
            offset,
            body_offset,
            body: Vec::new(),
        };
        Ok((chunk, head))
    }

    /// Reads the `data_size` bytes of pages after the header.
    pub fn load_body<S: ByteSource + ?Sized>(&mut self, source: &S, limits: &Limits) -> Result<()> {
        let n = limits
            .check_alloc("chunk data", self.header.data_size as u64)
            .map_err(|e| e.at_offset(self.body_offset))?;
        self.body = vec![0u8; n];
        source.read_exact_at(self.body_offset, &mut self.body)
    }

    /// Reads only the header of the chunk at `offset`.
    pub fn read_header<S: ByteSource + ?Sized>(
        source: &S,
        offset: u64,
        limits: &Limits,
    ) -> Result<ChunkHeader> {
        read_header(source, offset, limits, CHUNK_HEADER_WINDOW).map(|(h, _, _)| h)
    }
}

/// First read for a chunk header alone: marker, name length (≤ 5 bytes), a short name,
/// `data_size` (≤ 5) and 3 bytes.
pub(crate) const CHUNK_HEADER_WINDOW: u64 = 64;

/// First read when the whole chunk is wanted: small chunks (a few hundred points) then
/// take one read instead of two.
pub(crate) const WHOLE_WINDOW: u64 = 4096;

/// Reads and checks a chunk header with a first read of up to `window` (≥ 64) bytes;
/// returns it, its length in bytes and the bytes read from `offset` on.
fn read_header<S: ByteSource + ?Sized>(
    source: &S,
    offset: u64,
    limits: &Limits,
    window: u64,
) -> Result<(ChunkHeader, u64, Vec<u8>)> {
    let file_len = source.len();
    if offset >= file_len {
        return Err(
            Error::corrupt("tsfile", "chunk offset is past the end of the file").at_offset(offset),
        );
    }
    // A prefix big enough for short names, and more only when the name needs it.
    let avail = file_len - offset;
    let mut head = vec![0u8; avail.min(window.max(CHUNK_HEADER_WINDOW)) as usize];
    source.read_exact_at(offset, &mut head)?;
    let parse = |bytes: &[u8]| -> Result<(ChunkHeader, u64)> {
        let mut c = Cursor::new(bytes, offset);
        let h = ChunkHeader::read(&mut c, limits.max_string_len)?;
        Ok((h, c.position() as u64))
    };
    let (header, header_len) = match parse(&head) {
        Ok(h) => h,
        Err(e)
            if matches!(e.kind(), crate::ErrorKind::Truncated { .. })
                && avail > head.len() as u64 =>
        {
            let mut c = Cursor::new(&head, offset);
            c.read_u8()?;
            let name_len = c.read_varint()?.max(0) as u64;
            let need = (1 + 5 + name_len + 5 + 3).min(avail);
            if name_len > limits.max_string_len as u64 {
                return Err(Error::limit(
                    "measurement name",
                    name_len,
                    limits.max_string_len as u64,
                )
                .at_offset(offset));
            }
            head = vec![0u8; need as usize];
            source.read_exact_at(offset, &mut head)?;
            parse(&head)?
        }
        Err(e) => return Err(e),
    };
    if !header.marker.is_chunk() {
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "chunk metadata points at marker {:#04x}, not a chunk header",
                header.marker.code()
            ),
        )
        .at_offset(offset));
    }
    Ok((header, header_len, head))
}

impl RawChunk {
    /// Calls `f` for each page in order. `stat_type` is the statistics type of multi-page
    /// chunks (VECTOR for time chunks).
    pub fn for_each_page(&self, mut f: impl FnMut(RawPage<'_>) -> Result<()>) -> Result<()> {
        let stat_type = self.header.data_type;
        let multi = self.header.marker.is_multi_page();
        let mut c = Cursor::new(&self.body, self.body_offset);
        let mut index = 0u32;
        while !c.is_empty() {
            let header =
                PageHeader::read(&mut c, stat_type, multi).map_err(|e| e.in_page(index))?;
            let offset = c.offset();
            let data = if header.is_empty() {
                &[][..]
            } else {
                c.take("page data", header.compressed_size as usize)
                    .map_err(|e| e.in_page(index))?
            };
            f(RawPage {
                index,
                header,
                data,
                offset,
            })
            .map_err(|e| e.in_page(index))?;
            index += 1;
        }
        Ok(())
    }
}

impl RawPage<'_> {
    /// Decompresses the payload into `out` (cleared first), checking the declared size
    /// against `limits`.
    pub fn decompress(
        &self,
        chunk: &RawChunk,
        codecs: &mut PageCodecs,
        limits: &Limits,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let c = chunk.header.compression;
        decompress_payload(c, &self.header, self.data, self.offset, codecs, limits, out)
    }

    /// The page statistics, if the header carries them.
    pub fn statistics(&self) -> Option<&Statistics> {
        self.header.statistics.as_ref()
    }
}

/// Decompresses the payload `data` (stored at `offset`) of a page with `header` into `out`
/// (cleared first), checking the declared size against `limits`.
pub fn decompress_payload(
    compression: Compression,
    header: &PageHeader,
    data: &[u8],
    offset: u64,
    codecs: &mut PageCodecs,
    limits: &Limits,
    out: &mut Vec<u8>,
) -> Result<()> {
    out.clear();
    let n = limits
        .check_alloc("page", header.uncompressed_size as u64)
        .map_err(|e| e.at_offset(offset))?;
    codecs
        .decompress(compression, data, out, n)
        .map_err(|e| e.at_offset(offset))
}

/// Whether data summarised by `stats` may hold times in `start..=end` (empty statistics
/// say nothing, so they never exclude).
pub fn overlaps(stats: &Statistics, start: i64, end: i64) -> bool {
    stats.count == 0 || (stats.end_time >= start && stats.start_time <= end)
}

/// A chunk must hold the physical type its column is read as.
pub(super) fn check_type(chunk: &RawChunk, expected: Physical) -> Result<()> {
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
