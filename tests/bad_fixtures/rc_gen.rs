//! The RCFile damages of `fixtures/bad/rcfile/`. Each function takes the bytes of its source
//! fixture and returns them damaged, with the offset that the damage is about. Offsets come
//! from parsing the source (header, row groups, key sections) with the library.

use super::gen::{Case, Made};
use colfile::compress::Framing;
use colfile::rcfile::hadoop::{decode_vlong, vlong_size, write_text, write_vlong};
use colfile::rcfile::{ColumnLayout, Header, RcFileReader};
use colfile::Limits;

/// An uncompressed binary-serde file with one row group of 11 columns (812 bytes).
const SMALL: &str = "edge_values_binary";
/// Uncompressed, 3 row groups, a sync block before the second.
const GROUPS: &str = "all_types_binary_none";

pub fn cases() -> Vec<Case> {
    let c = |file, source, make| Case { file, source, make };
    vec![
        c("empty_file.rc", SMALL, empty_file),
        c("bad_magic.rc", SMALL, bad_magic),
        c("unknown_version.rc", SMALL, unknown_version),
        c("truncated_header.rc", SMALL, truncated_header),
        c(
            "seq6_wrong_key_class.rc",
            "seq_header_text",
            seq6_wrong_key_class,
        ),
        c(
            "seq6_block_compressed.rc",
            "seq_header_text",
            seq6_block_compressed,
        ),
        c(
            "unknown_codec_name.rc",
            "multi_group_binary_deflate",
            unknown_codec_name,
        ),
        c("metadata_count_negative.rc", SMALL, metadata_count_negative),
        c("metadata_count_huge.rc", SMALL, metadata_count_huge),
        c(
            "metadata_string_length_huge.rc",
            SMALL,
            metadata_string_length_huge,
        ),
        c(
            "column_count_not_a_number.rc",
            SMALL,
            column_count_not_a_number,
        ),
        c("column_count_mismatch.rc", SMALL, column_count_mismatch),
        c("sync_marker_damaged.rc", GROUPS, sync_marker_damaged),
        c("record_length_negative.rc", SMALL, record_length_negative),
        c(
            "key_length_exceeds_record.rc",
            SMALL,
            key_length_exceeds_record,
        ),
        c(
            "compressed_key_length_mismatch.rc",
            SMALL,
            compressed_key_length_mismatch,
        ),
        c(
            "truncated_mid_row_group.rc",
            GROUPS,
            truncated_mid_row_group,
        ),
        c("key_row_count_negative.rc", SMALL, key_row_count_negative),
        c("key_section_truncated.rc", SMALL, key_section_truncated),
        c(
            "column_length_past_record.rc",
            SMALL,
            column_length_past_record,
        ),
        c(
            "decompression_bomb_key_section.rc",
            "all_types_binary_snappy",
            bomb_key,
        ),
        c(
            "compressed_column_garbage_deflate.rc",
            "all_types_binary_deflate",
            garbage,
        ),
        c(
            "compressed_column_garbage_gzip.rc",
            "all_types_binary_gzip",
            garbage,
        ),
        c(
            "compressed_column_garbage_snappy.rc",
            "all_types_binary_snappy",
            garbage,
        ),
        c(
            "compressed_column_garbage_lz4.rc",
            "all_types_binary_lz4",
            garbage,
        ),
        c(
            "compressed_column_garbage_bzip2.rc",
            "all_types_binary_bzip2",
            garbage,
        ),
        c(
            "binary_serde_varint_overflow.rc",
            SMALL,
            binary_serde_varint_overflow,
        ),
        c(
            "nulled_columns_huge_row_count.rc",
            SMALL,
            nulled_columns_huge_row_count,
        ),
        c(
            "zstd_bombs_across_columns.rc",
            "all_types_binary_bzip2",
            zstd_bombs_across_columns,
        ),
    ]
}

fn header(b: &[u8]) -> Header {
    Header::parse(b, &Limits::default()).unwrap()
}

/// Offset of the metadata entry count: the header without its metadata is magic, flags,
/// codec name, the count and the sync marker.
fn metadata_count_at(h: &Header) -> usize {
    let mut bare = h.clone();
    bare.metadata.clear();
    bare.to_bytes().len() - 16 - 4
}

/// A row group as the reader found it.
struct Group {
    /// Offset of the record length (after the sync block, if any).
    record: usize,
    sync_before: bool,
    key_len: usize,
    ckey_len: usize,
    layout: Vec<ColumnLayout>,
    rows: usize,
    /// Cell end offsets of every column.
    offsets: Vec<Vec<u32>>,
}

impl Group {
    fn key_start(&self) -> usize {
        self.record + 12
    }
    fn value_start(&self) -> usize {
        self.key_start() + self.ckey_len
    }
    /// File offset of column `col`'s bytes.
    fn column_start(&self, col: usize) -> usize {
        let before: u64 = self.layout[..col].iter().map(|l| l.on_disk_len).sum();
        self.value_start() + before as usize
    }
}

fn groups(b: &[u8]) -> Vec<Group> {
    let mut r = RcFileReader::new(b).unwrap();
    let mut out = Vec::new();
    while let Some(g) = r.next_row_group().unwrap() {
        let start = g.byte_range().start as usize;
        out.push(Group {
            record: start + if g.sync_before() { 20 } else { 0 },
            sync_before: g.sync_before(),
            key_len: g.key_length() as usize,
            ckey_len: g.compressed_key_length() as usize,
            layout: g.layout().to_vec(),
            rows: g.num_rows(),
            offsets: (0..g.num_columns())
                .map(|c| g.column(c).unwrap().offsets().to_vec())
                .collect(),
        });
    }
    out
}

fn put_i32(b: &mut [u8], at: usize, v: i32) {
    b[at..at + 4].copy_from_slice(&v.to_be_bytes());
}

fn splice(b: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
    [&b[..range.start], with, &b[range.end..]].concat()
}

/// The source cut to nothing.
fn empty_file(_: Vec<u8>) -> Made {
    Made::at(Vec::new(), 0)
}

/// `RCF` replaced by `XYZ`.
fn bad_magic(mut b: Vec<u8>) -> Made {
    b[..3].copy_from_slice(b"XYZ");
    Made::at(b, 0)
}

/// Version byte 2 (only 0 and 1 exist).
fn unknown_version(mut b: Vec<u8>) -> Made {
    b[3] = 2;
    Made::at(b, 3)
}

/// Cut 3 bytes into the metadata (inside the first key), before the sync marker. The mark is
/// the new end of the file.
fn truncated_header(b: Vec<u8>) -> Made {
    let h = header(&b);
    let cut = metadata_count_at(&h) + 4 + 3;
    Made::at(b[..cut].to_vec(), cut as u64)
}

/// A SEQ6 header whose key class is Hadoop's `Text`: a plain SequenceFile.
fn seq6_wrong_key_class(b: Vec<u8>) -> Made {
    assert_eq!(&b[..4], b"SEQ\x06");
    let (len, n) = decode_vlong(&b[4..]).unwrap();
    let mut key = Vec::new();
    write_text(&mut key, b"org.apache.hadoop.io.Text");
    Made::at(splice(&b, 4..4 + n + len as usize, &key), 4)
}

/// A SEQ6 header with SequenceFile block compression on.
fn seq6_block_compressed(mut b: Vec<u8>) -> Made {
    let mut at = 4;
    for _ in 0..2 {
        let (len, n) = decode_vlong(&b[at..]).unwrap();
        at += n + len as usize;
    }
    // Compression flag, then the block-compression flag.
    assert_eq!(b[at + 1], 0);
    b[at + 1] = 1;
    Made::at(b, at as u64 + 1)
}

/// The codec class renamed to one that does not exist.
fn unknown_codec_name(b: Vec<u8>) -> Made {
    let mut h = header(&b);
    assert!(h.codec.is_some());
    h.codec_class = Some("org.example.MagicCodec".into());
    let at = 4 + 1; // RCF1: magic and the compression flag
    Made::at(splice(&b, 0..header(&b).length as usize, &h.to_bytes()), at)
}

fn metadata_count_negative(mut b: Vec<u8>) -> Made {
    let at = metadata_count_at(&header(&b));
    put_i32(&mut b, at, -3);
    Made::at(b, at as u64)
}

fn metadata_count_huge(mut b: Vec<u8>) -> Made {
    let at = metadata_count_at(&header(&b));
    put_i32(&mut b, at, i32::MAX);
    Made::at(b, at as u64)
}

/// The first metadata key's length VInt replaced by `i32::MAX`.
fn metadata_string_length_huge(b: Vec<u8>) -> Made {
    let at = metadata_count_at(&header(&b)) + 4;
    let (_, n) = decode_vlong(&b[at..]).unwrap();
    let mut huge = Vec::new();
    write_vlong(&mut huge, i32::MAX as i64);
    Made::at(splice(&b, at..at + n, &huge), at as u64)
}

/// Rewrites the header with the column-count metadata value replaced.
fn with_column_number(b: &[u8], value: &str) -> Vec<u8> {
    let mut h = header(b);
    let v = h
        .metadata
        .iter_mut()
        .find(|(k, _)| k == colfile::rcfile::header::COLUMN_NUMBER_KEY)
        .unwrap();
    v.1 = value.into();
    splice(b, 0..h.length as usize, &h.to_bytes())
}

fn column_count_not_a_number(b: Vec<u8>) -> Made {
    let b = with_column_number(&b, "eleven");
    Made::at(b, 0)
}

/// The header declares one column more than the row groups hold.
fn column_count_mismatch(b: Vec<u8>) -> Made {
    let h = header(&b);
    let more = (h.column_count + 1).to_string();
    assert_eq!(more.len(), h.column_count.to_string().len());
    let g = &groups(&b)[0];
    // The key section ends where the extra column's lengths would start.
    let end = g.key_len as u64;
    Made::at(with_column_number(&b, &more), end)
}

/// A byte of the sync block before the second row group flipped.
fn sync_marker_damaged(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[1];
    assert!(g.sync_before);
    let sync = g.record - 16;
    b[sync + 5] ^= 0xff;
    Made::at(b, sync as u64)
}

/// Record length -7 (-1 would be the escape of a sync block).
fn record_length_negative(mut b: Vec<u8>) -> Made {
    let at = groups(&b)[0].record;
    put_i32(&mut b, at, -7);
    Made::at(b, at as u64)
}

fn key_length_exceeds_record(mut b: Vec<u8>) -> Made {
    let at = groups(&b)[0].record;
    let record = i32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    put_i32(&mut b, at + 4, record + 1);
    Made::at(b, at as u64)
}

/// An uncompressed file whose compressed key length differs from the key length.
fn compressed_key_length_mismatch(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    put_i32(&mut b, g.record + 8, g.ckey_len as i32 + 1);
    Made::at(b, g.record as u64)
}

/// Cut halfway through the last row group.
fn truncated_mid_row_group(b: Vec<u8>) -> Made {
    let gs = groups(&b);
    let last = gs.last().unwrap();
    let cut = last.record + (b.len() - last.record) / 2;
    Made::at(b[..cut].to_vec(), last.record as u64)
}

/// The key section's row count (its first VInt) made negative.
fn key_row_count_negative(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    let at = g.key_start();
    assert_eq!(vlong_size(g.rows as i64), 1);
    b[at] = (-5i8) as u8;
    // Offsets in the key section count from its first byte.
    Made::at(b, 0)
}

/// Key length one byte short (record length too, so the value section keeps its size): the
/// last column's cell lengths run past the key section.
fn key_section_truncated(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    let at = g.record;
    for (i, v) in [(0, -1), (4, -1), (8, -1)] {
        let old = i32::from_be_bytes(b[at + i..at + i + 4].try_into().unwrap());
        put_i32(&mut b, at + i, old + v);
    }
    // Where the last column's lengths start, counted in the key section.
    let mark = g.layout.last().unwrap().lengths.start as u64;
    Made::at(b, mark)
}

/// Column 0's on-disk and plain lengths both one more: the columns add up to more than the
/// record's value section.
fn column_length_past_record(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    let key = g.key_start();
    let mut at = key + vlong_size(g.rows as i64);
    for _ in 0..2 {
        let (v, n) = decode_vlong(&b[at..]).unwrap();
        let mut new = Vec::new();
        write_vlong(&mut new, v + 1);
        assert_eq!(new.len(), n);
        b[at..at + n].copy_from_slice(&new);
        at += n;
    }
    // The sum is a property of the whole key section: its first byte.
    Made::at(b, 0)
}

/// A compressed key section that declares 64 MiB of plain bytes (and a record length to
/// match): far more than its few hundred compressed bytes can give.
fn bomb_key(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    let at = g.record;
    let record = i32::from_be_bytes(b[at..at + 4].try_into().unwrap());
    let value_len = record - g.key_len as i32;
    let key_len = 64 << 20;
    put_i32(&mut b, at, key_len + value_len);
    put_i32(&mut b, at + 4, key_len);
    Made::at(b, g.key_start() as u64)
}

/// The first row group's last column overwritten with `0xff`: its whole stream, or for the
/// codecs in Hadoop block framing everything after the first block's two length fields (so
/// the codec itself, not the framing, meets the garbage).
fn garbage(mut b: Vec<u8>) -> Made {
    let codec = header(&b).codec.unwrap();
    let g = &groups(&b)[0];
    let col = g.layout.len() - 1;
    let start = g.column_start(col);
    let len = g.layout[col].on_disk_len as usize;
    let skip = if codec.framing() == Framing::HadoopBlock {
        8
    } else {
        0
    };
    b[start + skip..start + len].fill(0xff);
    Made::at(b, start as u64)
}

/// An `int` cell holding a 5-byte VLong (as `i32::MAX` does) changed to 2^32 - 1, which
/// does not fit in an int.
fn binary_serde_varint_overflow(mut b: Vec<u8>) -> Made {
    let g = &groups(&b)[0];
    let col = 2; // `int` in edge_values
    let start = g.column_start(col);
    let offs = &g.offsets[col];
    let row = (0..g.rows)
        .find(|&r| {
            let (s, e) = (offs[r] as usize, offs[r + 1] as usize);
            e - s == 5 && b[start + s] == (-116i8) as u8
        })
        .expect("a 5-byte positive int cell");
    let at = start + offs[row] as usize;
    b[at + 1..at + 5].fill(0xff);
    Made::at(b, row as u64)
}

/// A key section: the row count, then per column its on-disk length, plain length and
/// cell-lengths buffer.
fn key_section(rows: i64, columns: &[(u64, u64, Vec<u8>)]) -> Vec<u8> {
    let mut key = Vec::new();
    write_vlong(&mut key, rows);
    for (on_disk, plain, lengths) in columns {
        write_vlong(&mut key, *on_disk as i64);
        write_vlong(&mut key, *plain as i64);
        write_vlong(&mut key, lengths.len() as i64);
        key.extend_from_slice(lengths);
    }
    key
}

/// A row group record: record length, key length, compressed key length, key, values.
fn record(key_len: usize, key: &[u8], values: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&((key_len + values.len()) as i32).to_be_bytes());
    out.extend_from_slice(&(key_len as i32).to_be_bytes());
    out.extend_from_slice(&(key.len() as i32).to_be_bytes());
    out.extend_from_slice(key);
    out.extend_from_slice(values);
    out
}

/// The header alone, then one row group of 200 million rows whose every column is
/// "nulled" (no cell lengths, no bytes): a few dozen bytes that decode to 200 million NULLs
/// a column. The mark is the record.
fn nulled_columns_huge_row_count(b: Vec<u8>) -> Made {
    let h = header(&b);
    let at = h.length as usize;
    let cols = vec![(0, 0, Vec::new()); h.column_count];
    let key = key_section(200_000_000, &cols);
    let mut out = b[..at].to_vec();
    out.extend_from_slice(&record(key.len(), &key, &[]));
    Made::at(out, at as u64)
}

/// A zstd frame (single segment, content size given) of `len` zero bytes in RLE blocks of
/// 128 KiB: 4 bytes a block.
fn zstd_zeros(len: usize) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend_from_slice(&(len as u64).to_le_bytes());
    let block = 128 << 10;
    let n = len.div_ceil(block);
    for i in 0..n {
        let size = block.min(len - i * block) as u32;
        let last = (i + 1 == n) as u32;
        let h = (size << 3) | (1 << 1) | last; // an RLE block
        f.extend_from_slice(&h.to_le_bytes()[..3]);
        f.push(0);
    }
    f
}

/// A zstd frame holding `data` in one raw block.
fn zstd_raw(data: &[u8]) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend_from_slice(&(data.len() as u64).to_le_bytes());
    let h = ((data.len() as u32) << 3) | 1; // a raw block, the last
    f.extend_from_slice(&h.to_le_bytes()[..3]);
    f.extend_from_slice(data);
    f
}

/// The header made zstd, then one row group of one row whose first 5 columns each hold a
/// 240 MiB cell of zeros (each under the per-buffer cap of 256 MiB, together 1.2 GiB) in
/// 8 KB of zstd; the other columns are nulled. The mark is the record.
fn zstd_bombs_across_columns(b: Vec<u8>) -> Made {
    let mut h = header(&b);
    h.codec = Some(colfile::compress::HadoopCodec::ZStandard);
    h.codec_class = Some("org.apache.hadoop.io.compress.ZStandardCodec".into());
    let mut out = h.to_bytes();
    let at = out.len();
    let plain = 240usize << 20;
    let bomb = zstd_zeros(plain);
    let mut lengths = Vec::new();
    write_vlong(&mut lengths, plain as i64);
    let cols: Vec<_> = (0..h.column_count)
        .map(|i| match i < 5 {
            true => (bomb.len() as u64, plain as u64, lengths.clone()),
            false => (0, 0, Vec::new()),
        })
        .collect();
    let key = key_section(1, &cols);
    let values = bomb.repeat(5);
    out.extend_from_slice(&record(key.len(), &zstd_raw(&key), &values));
    Made::at(out, at as u64)
}
