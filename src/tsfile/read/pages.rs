//! [`PagedChunk`]: a chunk's page headers, read either from the whole chunk body or one
//! header at a time (so that a query can fetch only the payloads of the pages it needs).
//! Each page is checked to lie inside the chunk's data before anything is read or kept.

use std::borrow::Cow;

use super::chunk_reader::{decompress_payload, RawChunk, CHUNK_HEADER_WINDOW, WHOLE_WINDOW};
use crate::cursor::Cursor;
use crate::source::ByteSource;
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::format::headers::PageHeader;
use crate::tsfile::format::statistics::Statistics;
use crate::{Error, ErrorKind, Limits, Result};

/// Where one page is, and its header.
#[derive(Clone, Debug)]
pub struct PageRef {
    /// Page index within the chunk.
    pub index: u32,
    /// The header (statistics only in multi-page chunks).
    pub header: PageHeader,
    /// Offset of the payload in the file.
    pub offset: u64,
}

/// A chunk with its pages located; the body is in memory only when read whole.
#[derive(Debug)]
pub struct PagedChunk {
    /// The chunk (its `body` is empty when the pages were located lazily).
    pub chunk: RawChunk,
    /// The pages in order.
    pub pages: Vec<PageRef>,
}

/// First read for a page header: enough for sizes and numeric statistics.
const HEADER_WINDOW: u64 = 64;

/// The largest multi-page chunk read whole when all of it is wanted. A bigger one has its
/// page headers located one by one and each payload read when its page is decoded, so that
/// reading it holds a page at a time, not the chunk.
pub(crate) const WHOLE_CHUNK_MAX: u64 = 4 << 20;

/// Rows a scan decodes before it hands them on: a batch of an aligned chunk ends at the
/// first page boundary past this many rows, and the series of a non-aligned device share
/// this many buffered points. A chunk of many pages is so decoded a few pages at a time,
/// never whole.
pub(crate) const STREAM_ROWS: usize = 1 << 16;

impl PagedChunk {
    /// Opens the chunk at `offset`. `whole`: read the body at once (if it is at most
    /// 4 MiB); otherwise a multi-page chunk's headers are read one at a
    /// time and payloads only on demand.
    pub fn open<S: ByteSource + ?Sized>(
        source: &S,
        offset: u64,
        limits: &Limits,
        whole: bool,
    ) -> Result<Self> {
        // The whole chunk is wanted: one read for a small one. Otherwise only the header,
        // so that pages skipped by their statistics are never read.
        let window = if whole {
            WHOLE_WINDOW
        } else {
            CHUNK_HEADER_WINDOW
        };
        let (mut chunk, window) = RawChunk::read_window(source, offset, limits, window)?;
        let mut pages = Vec::new();
        let whole = whole && u64::from(chunk.header.data_size) <= WHOLE_CHUNK_MAX;
        if whole || !chunk.header.marker.is_multi_page() {
            chunk.fill_body(&window, source, limits)?;
            chunk.for_each_page(|p| push_page(&mut pages, limits, p.index, p.header, p.offset))?;
        } else {
            locate_pages(source, &chunk, limits, &mut pages)?;
        }
        Ok(PagedChunk { chunk, pages })
    }

    /// Statistics of page `k`: its header's, or the chunk's `stats` for a one-page chunk.
    pub fn page_stats<'a>(
        &'a self,
        k: usize,
        stats: Option<&'a Statistics>,
    ) -> Option<&'a Statistics> {
        let p = self.pages.get(k)?;
        if p.header.is_empty() {
            return None;
        }
        match (&p.header.statistics, self.pages.len()) {
            (Some(s), _) => Some(s),
            (None, 1) => stats,
            (None, _) => None,
        }
    }

    /// Decompresses page `page` into `out`, reading its payload if the body is not loaded.
    pub fn decompress<S: ByteSource + ?Sized>(
        &self,
        source: &S,
        page: &PageRef,
        codecs: &mut PageCodecs,
        limits: &Limits,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let n = page.header.compressed_size as u64;
        let data: Cow<'_, [u8]> = if page.header.is_empty() {
            Cow::Borrowed(&[])
        } else if self.chunk.body.is_empty() {
            let mut v = vec![0u8; limits.check_alloc("page data", n)?];
            source.read_exact_at(page.offset, &mut v)?;
            Cow::Owned(v)
        } else {
            let start = (page.offset - self.chunk.body_offset) as usize;
            let slice = self.chunk.body.get(start..start + n as usize);
            Cow::Borrowed(slice.ok_or_else(|| {
                Error::corrupt("tsfile", "page outside its chunk").at_offset(page.offset)
            })?)
        };
        let c = self.chunk.header.compression;
        decompress_payload(c, &page.header, &data, page.offset, codecs, limits, out)
            .map_err(|e| e.in_page(page.index))
    }
}

/// Keeps one more page, within the allocation limit.
fn push_page(
    pages: &mut Vec<PageRef>,
    limits: &Limits,
    index: u32,
    header: PageHeader,
    offset: u64,
) -> Result<()> {
    let bytes = (pages.len() as u64 + 1) * std::mem::size_of::<PageRef>() as u64;
    limits
        .check_alloc("page headers", bytes)
        .map_err(|e| e.at_offset(offset))?;
    pages.push(PageRef {
        index,
        header,
        offset,
    });
    Ok(())
}

/// Reads a multi-page chunk's page headers one by one, skipping over each payload.
fn locate_pages<S: ByteSource + ?Sized>(
    source: &S,
    chunk: &RawChunk,
    limits: &Limits,
    pages: &mut Vec<PageRef>,
) -> Result<()> {
    let end = chunk.body_offset + chunk.header.data_size as u64;
    let mut pos = chunk.body_offset;
    let mut index = 0u32;
    let mut buf = Vec::new();
    while pos < end {
        let mut want = HEADER_WINDOW;
        let (header, payload) = loop {
            let n = want.min(end - pos);
            let size = limits
                .check_alloc("page header", n)
                .map_err(|e| e.at_offset(pos))?;
            buf.resize(size, 0);
            source.read_exact_at(pos, &mut buf)?;
            let mut c = Cursor::new(&buf, pos);
            match PageHeader::read(&mut c, chunk.header.data_type, true) {
                Ok(h) => break (h, pos + c.position() as u64),
                Err(e) if matches!(e.kind(), ErrorKind::Truncated { .. }) && n < end - pos => {
                    want = want.saturating_mul(4);
                }
                Err(e) => return Err(e.in_page(index)),
            }
        };
        let size = if header.is_empty() {
            0
        } else {
            header.compressed_size as u64
        };
        if size > end - payload {
            return Err(Error::truncated("page data", size, end - payload)
                .at_offset(payload)
                .in_page(index));
        }
        push_page(pages, limits, index, header, payload)?;
        pos = payload + size;
        index = index.checked_add(1).ok_or_else(|| {
            Error::corrupt("tsfile", "too many pages in one chunk").at_offset(pos)
        })?;
    }
    Ok(())
}
