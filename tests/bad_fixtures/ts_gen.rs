//! The TsFile damages of `fixtures/bad/tsfile/`. Offsets come from parsing the source with
//! the library: the footer ([`FileMetadata`]), the data section ([`scan_data`]) and the index
//! tree ([`index_layout`]). The footer is the last structure before `L` and the tail magic,
//! so footer damages may change its length (`L` is rewritten); everything else keeps the
//! length of what it replaces, so no other offset moves.

use super::gen::{Case, Made};
use super::ts_data_gen as data;
use colfile::cursor::Cursor;
use colfile::tsfile::format::varint::{put_uvarint, put_var_bytes, put_varint, uvarint_len};
use colfile::tsfile::format::{
    MeasurementEntry, MetadataIndexNode, NodeEntries, NodeType, TsFileMetadata,
};
use colfile::tsfile::tools::layout::{index_layout, scan_data, ChunkLayout, IndexLayout};
use colfile::tsfile::FileMetadata;
use colfile::Limits;

/// Two devices, 8 series, default encodings with LZ4 (1169 bytes).
const BASIC: &str = "basic";

pub fn cases() -> Vec<Case> {
    let c = |file, source, make| Case { file, source, make };
    vec![
        c("bad_head_magic.tsfile", BASIC, bad_head_magic),
        c("wrong_version.tsfile", BASIC, wrong_version),
        c("bad_tail_magic.tsfile", BASIC, bad_tail_magic),
        c("truncated_mid_chunk.tsfile", BASIC, truncated_mid_chunk),
        c("metadata_size_huge.tsfile", BASIC, metadata_size_huge),
        c("footer_leftover_bytes.tsfile", BASIC, footer_leftover_bytes),
        c("table_count_huge.tsfile", BASIC, table_count_huge),
        c("string_length_huge.tsfile", BASIC, string_length_huge),
        c(
            "device_id_segment_count_huge.tsfile",
            BASIC,
            segment_count_huge,
        ),
        c("meta_offset_past_end.tsfile", BASIC, meta_offset_past_end),
        c(
            "meta_offset_not_separator.tsfile",
            BASIC,
            meta_offset_not_separator,
        ),
        c(
            "bloom_filter_size_huge.tsfile",
            BASIC,
            bloom_filter_size_huge,
        ),
        c(
            "bloom_filter_bit_count_small.tsfile",
            BASIC,
            bloom_bit_count_small,
        ),
        c(
            "index_node_type_invalid.tsfile",
            BASIC,
            index_node_type_invalid,
        ),
        c(
            "index_node_wrong_level.tsfile",
            BASIC,
            index_node_wrong_level,
        ),
        c(
            "index_offset_outside_region.tsfile",
            BASIC,
            index_offset_outside,
        ),
        c("index_cycle.tsfile", BASIC, index_cycle),
        c("index_too_deep.tsfile", BASIC, index_too_deep),
        c("statistics_truncated.tsfile", BASIC, statistics_truncated),
        c("chunk_offset_past_end.tsfile", BASIC, chunk_offset_past_end),
        c(
            "chunk_offset_not_a_chunk.tsfile",
            BASIC,
            chunk_offset_not_a_chunk,
        ),
        c(
            "chunk_header_bad_marker.tsfile",
            BASIC,
            data::chunk_header_bad_marker,
        ),
        c(
            "chunk_header_unknown_compression.tsfile",
            BASIC,
            data::unknown_compression,
        ),
        c(
            "chunk_data_size_past_end.tsfile",
            "multi_page",
            data::chunk_data_size_past_end,
        ),
        c(
            "page_uncompressed_size_bomb.tsfile",
            "comp_snappy",
            data::page_size_bomb,
        ),
        c("page_garbage_lz4.tsfile", "comp_lz4", data::page_garbage),
        c(
            "page_garbage_snappy.tsfile",
            "comp_snappy",
            data::page_garbage,
        ),
        c("page_garbage_gzip.tsfile", "comp_gzip", data::page_garbage),
        c("page_garbage_zstd.tsfile", "comp_zstd", data::page_garbage),
        c(
            "page_garbage_lzma2.tsfile",
            "comp_lzma2",
            data::page_garbage,
        ),
        c("page_garbage_lzo.tsfile", "comp_lzo", data::page_garbage),
        c(
            "ts2diff_width_too_large.tsfile",
            "comp_uncompressed",
            data::ts2diff_width,
        ),
        c(
            "ts2diff_pages_claim_huge_counts.tsfile",
            "comp_uncompressed",
            data::ts2diff_huge_counts,
        ),
        c(
            "gorilla_stream_truncated.tsfile",
            "enc_gorilla",
            data::gorilla_truncated,
        ),
        c(
            "dictionary_index_out_of_range.tsfile",
            "enc_dictionary",
            data::dictionary_index,
        ),
    ]
}

fn meta(b: &[u8]) -> FileMetadata {
    FileMetadata::read(b, &Limits::default()).unwrap()
}

/// The footer's bytes, checked to be what the library writes for the parsed footer (so
/// offsets found by serializing parts of it are right).
fn footer(b: &[u8]) -> (usize, Vec<u8>, TsFileMetadata) {
    let m = meta(b);
    let start = m.footer_start() as usize;
    let bytes = b[start..b.len() - 10].to_vec();
    let mut again = Vec::new();
    m.footer().write_to(&mut again).unwrap();
    assert_eq!(again, bytes, "footer does not round-trip");
    (start, bytes, m.footer().clone())
}

/// The file with its footer replaced (and `L` to match).
pub fn with_footer(b: &[u8], start: usize, footer: &[u8]) -> Vec<u8> {
    let mut out = b[..start].to_vec();
    out.extend_from_slice(footer);
    out.extend_from_slice(&(footer.len() as i32).to_be_bytes());
    out.extend_from_slice(b"TsFile");
    out
}

/// Bytes of the footer up to (not including) `meta_offset`.
fn before_meta_offset(f: &TsFileMetadata) -> usize {
    let mut bare = f.clone();
    bare.bloom = None;
    bare.properties.clear();
    let mut out = Vec::new();
    bare.write_to(&mut out).unwrap();
    out.len() - 8 - 1 - 1 // meta_offset, absent Bloom filter, property count 0
}

/// Bytes of the footer before the first table's root node: the table count and its name.
fn before_first_root(f: &TsFileMetadata) -> usize {
    let mut out = Vec::new();
    put_uvarint(&mut out, f.table_roots.len() as u32);
    put_var_bytes(&mut out, Some(f.table_roots[0].0.as_bytes())).unwrap();
    out.len()
}

pub fn chunks(b: &[u8]) -> Vec<ChunkLayout> {
    let d = scan_data(b, &Limits::default()).unwrap();
    assert!(d.stop.is_none());
    d.groups.into_iter().flat_map(|g| g.chunks).collect()
}

fn index(b: &[u8]) -> IndexLayout {
    index_layout(b, &meta(b)).unwrap()
}

/// Replaces the UVarInt at `at` by the largest value of the same length.
pub fn max_uvarint_in_place(b: &mut [u8], at: usize) -> u32 {
    let v = Cursor::new(&b[at..], 0).read_uvarint().unwrap();
    let n = uvarint_len(v);
    let max = ((1u64 << (7 * n)) - 1).min(u32::MAX as u64) as u32;
    let mut new = Vec::new();
    put_uvarint(&mut new, max);
    b[at..at + n].copy_from_slice(&new);
    max
}

/// Replaces the UVarInt at `at` by `v`, which must have the same length.
pub fn set_uvarint(b: &mut [u8], at: usize, v: u32) {
    let old = Cursor::new(&b[at..], 0).read_uvarint().unwrap();
    assert_eq!(
        uvarint_len(old),
        uvarint_len(v),
        "UVarInt at {at}: {old} -> {v}"
    );
    let mut new = Vec::new();
    put_uvarint(&mut new, v);
    b[at..at + new.len()].copy_from_slice(&new);
}

fn bad_head_magic(mut b: Vec<u8>) -> Made {
    b[0] = b'X';
    Made::at(b, 0)
}

/// Version byte 3 on a v4 file: read as v3, its v4 footer is corrupt.
fn wrong_version(mut b: Vec<u8>) -> Made {
    b[6] = 3;
    Made::at(b, 6)
}

fn bad_tail_magic(mut b: Vec<u8>) -> Made {
    let n = b.len();
    b[n - 1] = b'x';
    Made::at(b, n as u64 - 6)
}

/// Cut halfway through the body of the second chunk (a write that did not finish).
fn truncated_mid_chunk(b: Vec<u8>) -> Made {
    let c = &chunks(&b)[1];
    let cut = (c.body_offset + c.header.data_size as u64 / 2) as usize;
    Made::at(b[..cut].to_vec(), cut as u64 - 6).in_chunk(c.offset)
}

/// `L` = `i32::MAX`.
fn metadata_size_huge(mut b: Vec<u8>) -> Made {
    let at = b.len() - 10;
    b[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    Made::at(b, at as u64)
}

/// Three zero bytes after the properties, counted in `L`.
fn footer_leftover_bytes(b: Vec<u8>) -> Made {
    let (start, mut f, _) = footer(&b);
    let end = start + f.len();
    f.extend_from_slice(&[0; 3]);
    Made::at(with_footer(&b, start, &f), end as u64)
}

/// A table count of a million (above `Limits::max_metadata_entries`).
fn table_count_huge(b: Vec<u8>) -> Made {
    let (start, f, parsed) = footer(&b);
    let n = uvarint_len(parsed.table_roots.len() as u32);
    let mut new = Vec::new();
    put_uvarint(&mut new, 1_000_000);
    new.extend_from_slice(&f[n..]);
    Made::at(with_footer(&b, start, &new), start as u64)
}

/// The first table name's length set to `i32::MAX`; the mark is where its bytes would start.
fn string_length_huge(b: Vec<u8>) -> Made {
    let (start, f, parsed) = footer(&b);
    let at = uvarint_len(parsed.table_roots.len() as u32);
    let mut c = Cursor::new(&f[at..], 0);
    c.read_varint().unwrap();
    let mut new = f[..at].to_vec();
    put_varint(&mut new, i32::MAX);
    let name_at = start + new.len();
    new.extend_from_slice(&f[at + c.position()..]);
    Made::at(with_footer(&b, start, &new), name_at as u64)
}

/// The first device of the first table root with a million segments.
fn segment_count_huge(b: Vec<u8>) -> Made {
    let (start, f, parsed) = footer(&b);
    let root = &parsed.table_roots[0].1;
    let at = before_first_root(&parsed) + uvarint_len(root.entries.len() as u32);
    let old = Cursor::new(&f[at..], 0).read_uvarint().unwrap();
    let mut new = f[..at].to_vec();
    put_uvarint(&mut new, 1_000_000);
    new.extend_from_slice(&f[at + uvarint_len(old)..]);
    Made::at(with_footer(&b, start, &new), (start + at) as u64)
}

fn set_meta_offset(b: Vec<u8>, to: i64) -> Made {
    let (start, mut f, parsed) = footer(&b);
    let at = before_meta_offset(&parsed);
    assert_eq!(f[at..at + 8], parsed.meta_offset.to_be_bytes());
    f[at..at + 8].copy_from_slice(&to.to_be_bytes());
    Made::at(with_footer(&b, start, &f), start as u64)
}

fn meta_offset_past_end(b: Vec<u8>) -> Made {
    let to = b.len() as i64 + 1000;
    set_meta_offset(b, to)
}

/// `meta_offset` at the first chunk group header (just after the head magic).
fn meta_offset_not_separator(b: Vec<u8>) -> Made {
    let mut m = set_meta_offset(b, 7);
    m.mark = 7;
    m
}

/// Offset of the Bloom filter in the footer bytes.
fn bloom_at(parsed: &TsFileMetadata) -> usize {
    assert!(parsed.bloom.is_some());
    before_meta_offset(parsed) + 8
}

/// The Bloom filter's byte count set to a million.
fn bloom_filter_size_huge(b: Vec<u8>) -> Made {
    let (start, f, parsed) = footer(&b);
    let at = bloom_at(&parsed);
    let old = Cursor::new(&f[at..], 0).read_uvarint().unwrap();
    let mut new = f[..at].to_vec();
    put_uvarint(&mut new, 1_000_000);
    new.extend_from_slice(&f[at + uvarint_len(old)..]);
    // The bits would start after the new count.
    Made::at(with_footer(&b, start, &new), (start + at + 3) as u64)
}

/// The Bloom filter's bit count set to 8, fewer than its bytes hold.
fn bloom_bit_count_small(b: Vec<u8>) -> Made {
    let (start, f, parsed) = footer(&b);
    let at = bloom_at(&parsed);
    let mut c = Cursor::new(&f[at..], 0);
    let n = c.read_uvarint().unwrap() as usize;
    assert!(n > 1);
    c.take("bits", n).unwrap();
    let count_at = at + c.position();
    let old = c.read_uvarint().unwrap();
    let mut new = f[..count_at].to_vec();
    put_uvarint(&mut new, 8);
    new.extend_from_slice(&f[count_at + uvarint_len(old)..]);
    Made::at(with_footer(&b, start, &new), (start + at) as u64)
}

/// The first table root's node type byte (its last byte) set to 9.
fn index_node_type_invalid(b: Vec<u8>) -> Made {
    let (start, mut f, parsed) = footer(&b);
    let mut root = Vec::new();
    parsed.table_roots[0].1.write_to(&mut root).unwrap();
    let at = before_first_root(&parsed) + root.len() - 1;
    assert_eq!(f[at], parsed.table_roots[0].1.node_type.code());
    f[at] = 9;
    Made::at(with_footer(&b, start, &f), (start + at) as u64)
}

/// Where the first device's measurement root lies, and the node.
fn first_measurement_root(b: &[u8]) -> ((u64, u64), MetadataIndexNode) {
    let ix = index(b);
    let n = ix
        .nodes
        .iter()
        .find(|n| n.node.node_type == NodeType::LeafMeasurement && n.range.is_some())
        .unwrap();
    (n.range.unwrap(), n.node.clone())
}

fn rewrite_node(b: &mut [u8], at: u64, node: &MetadataIndexNode) {
    let mut out = Vec::new();
    node.write_to(&mut out).unwrap();
    b[at as usize..at as usize + out.len()].copy_from_slice(&out);
}

/// The first device's LEAF_MEASUREMENT root typed LEAF_DEVICE.
fn index_node_wrong_level(mut b: Vec<u8>) -> Made {
    let ((s, _), mut node) = first_measurement_root(&b);
    node.node_type = NodeType::LeafDevice;
    rewrite_node(&mut b, s, &node);
    Made::at(b, s)
}

/// The first table root's first entry pointing into the head magic.
fn index_offset_outside(b: Vec<u8>) -> Made {
    let (start, _, mut parsed) = footer(&b);
    let NodeEntries::Device(v) = &mut parsed.table_roots[0].1.entries else {
        panic!("device-level root")
    };
    v[0].offset = 3;
    let mut f = Vec::new();
    parsed.write_to(&mut f).unwrap();
    Made::at(with_footer(&b, start, &f), 3)
}

/// The first device's measurement root, a one-entry LEAF_MEASUREMENT node, turned into an
/// INTERNAL_MEASUREMENT node whose only child is itself.
fn index_cycle(mut b: Vec<u8>) -> Made {
    let ((s, e), mut node) = first_measurement_root(&b);
    let NodeEntries::Measurement(v) = &mut node.entries else {
        panic!("measurement-level node")
    };
    assert_eq!(v.len(), 1);
    v[0].offset = s as i64;
    node.end_offset = e as i64;
    node.node_type = NodeType::InternalMeasurement;
    rewrite_node(&mut b, s, &node);
    Made::at(b, s)
}

/// A chain of 45 one-entry INTERNAL_MEASUREMENT nodes, inserted between the index and the
/// footer (nothing points into the footer, so no offset moves), hung below the first
/// device's measurement root: deeper than `Limits::max_index_depth` (40). The last node
/// points at the device's real series. The mark is where the first node too deep starts.
fn index_too_deep(b: Vec<u8>) -> Made {
    const CHAIN: usize = 45;
    let ((s, _), root) = first_measurement_root(&b);
    let (start, f, _) = footer(&b);
    let NodeEntries::Measurement(v) = &root.entries else {
        panic!("measurement-level node")
    };
    assert_eq!(v.len(), 1);
    let node = |offset: u64, end: u64, node_type| MetadataIndexNode {
        entries: NodeEntries::Measurement(vec![MeasurementEntry {
            measurement: v[0].measurement.clone(),
            offset: offset as i64,
        }]),
        end_offset: end as i64,
        node_type,
    };
    let mut one = Vec::new();
    node(0, 0, NodeType::InternalMeasurement)
        .write_to(&mut one)
        .unwrap();
    let len = one.len() as u64;
    let at = |i: usize| start as u64 + i as u64 * len;
    let mut chain = Vec::new();
    for i in 0..CHAIN {
        let n = if i + 1 < CHAIN {
            node(at(i + 1), at(i + 2), NodeType::InternalMeasurement)
        } else {
            root.clone()
        };
        n.write_to(&mut chain).unwrap();
    }
    assert_eq!(chain.len() as u64, CHAIN as u64 * len);
    let mut out = b[..start].to_vec();
    out.extend_from_slice(&chain);
    let new_start = out.len();
    let top = node(at(0), at(1), NodeType::InternalMeasurement);
    rewrite_node(&mut out, s, &top);
    let out = with_footer(&out, new_start, &f);
    // Chain node k is k + 1 levels below the root: node 40 is the first past the limit.
    let limit = Limits::default().max_index_depth;
    Made::at(out, at(limit))
}

/// The first device's measurement root ends 10 bytes early: its last TimeseriesMetadata
/// (statistics, then an 8-byte chunk offset) loses the last 2 bytes of its statistics. The
/// mark is the new end of the run.
fn statistics_truncated(mut b: Vec<u8>) -> Made {
    let ((s, _), mut node) = first_measurement_root(&b);
    assert!(node.entries.len() == 1);
    let last = index(&b)
        .series
        .into_iter()
        .rfind(|t| t.range.1 == node.end_offset as u64)
        .unwrap();
    assert_eq!(last.metadata.chunks.len(), 1);
    node.end_offset -= 10;
    rewrite_node(&mut b, s, &node);
    Made::at(b, node.end_offset as u64)
}

/// Offset of the chunk offset of the first series (a single-chunk series, so its chunk
/// list is that one int64, the entry's last 8 bytes).
fn first_chunk_offset_field(b: &[u8]) -> usize {
    let t = &index(b).series[0];
    assert_eq!(t.metadata.chunks.len(), 1);
    assert!(!t.metadata.is_multi_chunk());
    let mut out = Vec::new();
    t.metadata.write_to(&mut out).unwrap();
    assert_eq!(out.len() as u64, t.range.1 - t.range.0);
    t.range.1 as usize - 8
}

fn chunk_offset_past_end(mut b: Vec<u8>) -> Made {
    let at = first_chunk_offset_field(&b);
    let to = b.len() as i64 + 100;
    b[at..at + 8].copy_from_slice(&to.to_be_bytes());
    Made::at(b, to as u64)
}

/// The first series' chunk offset pointing at the chunk group header before its chunk.
fn chunk_offset_not_a_chunk(mut b: Vec<u8>) -> Made {
    let at = first_chunk_offset_field(&b);
    let group = scan_data(&b, &Limits::default()).unwrap().groups[0].offset;
    b[at..at + 8].copy_from_slice(&(group as i64).to_be_bytes());
    Made::at(b, group)
}
