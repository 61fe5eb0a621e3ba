//! The TsFile damages of `fixtures/bad/tsfile/` in the data section: chunk headers, page
//! headers and page payloads (the footer and index damages are in [`super::ts_gen`]). Each
//! keeps the length of what it replaces, so no offset moves.

use super::gen::Made;
use super::ts_gen::{chunks, max_uvarint_in_place, set_uvarint};
use colfile::cursor::Cursor;
use colfile::tsfile::format::varint::uvarint_len;
use colfile::tsfile::format::{Compression, Encoding};

/// The first chunk's marker byte set to 0x07, which is no marker.
pub fn chunk_header_bad_marker(mut b: Vec<u8>) -> Made {
    let c = chunks(&b)[0].offset;
    b[c as usize] = 0x07;
    Made::at(b, c).in_chunk(c)
}

/// The first chunk's compression byte (the header's second-to-last) set to 0x7f.
pub fn unknown_compression(mut b: Vec<u8>) -> Made {
    let c = &chunks(&b)[0];
    let at = c.body_offset as usize - 2;
    assert_eq!(b[at], c.header.compression.code());
    b[at] = 0x7f;
    // The three type bytes are located together.
    Made::at(b, at as u64 - 1).in_chunk(c.offset)
}

/// The last chunk's data size (a UVarInt in its header) set to the largest value of the
/// same length, which runs past the end of the file.
pub fn chunk_data_size_past_end(mut b: Vec<u8>) -> Made {
    let c = chunks(&b).pop().unwrap();
    let at = c.body_offset as usize - 3 - uvarint_len(c.header.data_size);
    let size = max_uvarint_in_place(&mut b, at);
    assert!(c.body_offset + size as u64 > b.len() as u64);
    Made::at(b, c.body_offset).in_chunk(c.offset)
}

/// The uncompressed size of the first page that declares at least 128 bytes set to the
/// largest value of the same UVarInt length: more than its Snappy payload can give.
pub fn page_size_bomb(mut b: Vec<u8>) -> Made {
    let (c, p) = chunks(&b)
        .into_iter()
        .find_map(|c| {
            let p = c
                .pages
                .iter()
                .find(|p| p.header.uncompressed_size >= 128)
                .cloned();
            p.map(|p| (c, p))
        })
        .unwrap();
    assert_eq!(c.header.compression, Compression::Snappy);
    max_uvarint_in_place(&mut b, p.offset as usize);
    Made::at(b, p.data_offset)
        .in_chunk(c.offset)
        .in_page(p.index)
}

/// The first page's compressed payload overwritten with `0xff`.
pub fn page_garbage(mut b: Vec<u8>) -> Made {
    let c = &chunks(&b)[0];
    assert_ne!(c.header.compression, Compression::Uncompressed);
    let p = &c.pages[0];
    b[p.data_offset as usize..p.end() as usize].fill(0xff);
    Made::at(b, p.data_offset)
        .in_chunk(c.offset)
        .in_page(p.index)
}

/// The first TS_2DIFF block of the first (uncompressed, aligned) time page with a delta
/// width of 65 bits. The page payload is the time stream; a block is `int32 n, int32 w, …`.
pub fn ts2diff_width(mut b: Vec<u8>) -> Made {
    let c = &chunks(&b)[0];
    assert_eq!(c.header.encoding, Encoding::Ts2Diff);
    assert_eq!(c.header.compression, Compression::Uncompressed);
    let at = c.pages[0].data_offset as usize;
    b[at + 4..at + 8].copy_from_slice(&65i32.to_be_bytes());
    Made::at(b, at as u64).in_chunk(c.offset).in_page(0)
}

/// The last page of the first uncompressed GORILLA value chunk cut in half: the page sizes
/// and the chunk's data size shrink by the same amount (same UVarInt lengths), so the
/// stream ends before the page's values do. The bytes cut off stay in the file, unread.
pub fn gorilla_truncated(mut b: Vec<u8>) -> Made {
    let c = chunks(&b)
        .into_iter()
        .find(|c| {
            c.header.encoding == Encoding::Gorilla
                && c.header.compression == Compression::Uncompressed
        })
        .unwrap();
    let p = c.pages.last().unwrap();
    let cut = p.header.compressed_size / 2;
    let at = p.offset as usize;
    set_uvarint(&mut b, at, p.header.uncompressed_size - cut);
    let n = uvarint_len(p.header.uncompressed_size);
    set_uvarint(&mut b, at + n, p.header.compressed_size - cut);
    let size_at = c.body_offset as usize - 3 - uvarint_len(c.header.data_size);
    set_uvarint(&mut b, size_at, c.header.data_size - cut);
    Made::at(b, p.data_offset)
        .in_chunk(c.offset)
        .in_page(p.index)
}

/// The first DICTIONARY value page with an index past its dictionary: the first run of the
/// index stream is made to hold all-ones values.
pub fn dictionary_index(mut b: Vec<u8>) -> Made {
    let c = chunks(&b)
        .into_iter()
        .find(|c| {
            c.header.encoding == Encoding::Dictionary
                && c.header.compression == Compression::Uncompressed
        })
        .unwrap();
    let p = &c.pages[0];
    let payload = p.data_offset as usize;
    let mut cur = Cursor::new(&b[payload..p.end() as usize], 0);
    // Aligned value page: int32 position count, the presence bitmap, the value stream.
    let positions = cur.read_i32_be().unwrap() as usize;
    cur.take("bitmap", positions.div_ceil(8)).unwrap();
    let entries = cur.read_varint().unwrap() as u64;
    for _ in 0..entries {
        cur.read_var_bytes("entry").unwrap();
    }
    // RLE stream: UVarInt body length, bit width, then runs.
    cur.read_uvarint().unwrap();
    let width = cur.read_u8().unwrap() as u32;
    let run_at = cur.position();
    let head = cur.read_uvarint().unwrap();
    let at = payload + cur.position();
    if head & 1 == 0 {
        // Run-length run: the value in ceil(width/8) bytes.
        let n = width.div_ceil(8) as usize;
        assert!(entries < (1u64 << (8 * n)) - 1);
        b[at..at + n].fill(0xff);
    } else {
        // Bit-packed run: a last-valid byte, then 8 values in `width` bytes per group.
        assert!(
            entries < (1u64 << width) - 1,
            "{entries} entries, width {width}"
        );
        b[at + 1..at + 1 + width as usize].fill(0xff);
    }
    Made::at(b, (payload + run_at) as u64)
        .in_chunk(c.offset)
        .in_page(p.index)
}

/// Every page of the first (uncompressed, aligned) time chunk, each one TS_2DIFF block of
/// width 0, made to claim 134,217,000 timestamps (just under the per-page cap of 1 GiB of
/// them) where its statistics count 128 or fewer: gigabytes from a few dozen bytes.
pub fn ts2diff_huge_counts(mut b: Vec<u8>) -> Made {
    let c = &chunks(&b)[0];
    assert_eq!(c.header.encoding, Encoding::Ts2Diff);
    assert_eq!(c.header.compression, Compression::Uncompressed);
    assert!(c.pages.len() > 1);
    for p in &c.pages {
        let at = p.data_offset as usize;
        assert_eq!(p.header.compressed_size, 24, "one block of width 0");
        assert_eq!(&b[at + 4..at + 8], &0i32.to_be_bytes());
        b[at..at + 4].copy_from_slice(&134_217_000i32.to_be_bytes());
    }
    Made::at(b, c.pages[0].data_offset)
        .in_chunk(c.offset)
        .in_page(0)
}
