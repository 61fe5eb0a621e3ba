//! The TsFile v3 damages of `fixtures/bad/tsfile/v3_*`: each source is a v4 tree fixture
//! turned into v3 first ([`to_v3`]: v3 chunk-group headers, then `recover` writes the v3
//! index and footer), then damaged once. Offsets come from parsing the v3 file with the
//! library. The v3 footer is the device-level root node, `meta_offset` and the Bloom filter;
//! footer damages may change its length (`L` is rewritten).

use super::gen::{Case, Made};
use super::ts_gen::with_footer;
use super::v3_writer::to_v3;
use colfile::tsfile::format::v3;
use colfile::tsfile::format::varint::{put_varint, uvarint_len};
use colfile::tsfile::FileMetadata;
use colfile::Limits;

/// A tree-model file of two devices (3177 bytes as v4).
const TREE: &str = "tree_basic";

pub fn cases() -> Vec<Case> {
    let c = |file, make| Case {
        file,
        source: TREE,
        make,
    };
    vec![
        c("v3_head_v0.8.0.tsfile", head_v0_8_0),
        c("v3_head_000002.tsfile", head_000002),
        c("v3_index_device_null.tsfile", index_device_null),
        c(
            "v3_index_device_length_huge.tsfile",
            index_device_length_huge,
        ),
        c("v3_root_measurement_type.tsfile", root_measurement_type),
        c(
            "v3_root_empty_not_device_level.tsfile",
            root_empty_measurement,
        ),
        c("v3_footer_leftover_bytes.tsfile", footer_leftover_bytes),
    ]
}

/// The v3 file, checked to read as v3, with its footer: start, bytes, and the length of the
/// root node (the footer's first structure).
fn v3_footer(v4: &[u8]) -> (Vec<u8>, usize, Vec<u8>, usize) {
    let b = to_v3(v4);
    let m = FileMetadata::read(&b[..], &Limits::default()).unwrap();
    assert_eq!(m.version(), v3::VERSION_V3);
    let start = m.footer_start() as usize;
    let footer = b[start..b.len() - 10].to_vec();
    let mut again = Vec::new();
    v3::write_footer(m.footer(), &mut again).unwrap();
    assert_eq!(again, footer, "v3 footer does not round-trip");
    let mut root = Vec::new();
    v3::write_node(&m.footer().table_roots[0].1, &mut root).unwrap();
    assert_eq!(root[..], footer[..root.len()]);
    (b, start, footer, root.len())
}

/// The ASCII version of a pre-v3 head over the version byte and the 5 bytes after it.
fn old_head(v4: &[u8], version: &[u8; 6]) -> Made {
    let mut b = to_v3(v4);
    b[6..12].copy_from_slice(version);
    Made::at(b, 6)
}

/// `TsFilev0.8.0`: the head of IoTDB 0.8.
fn head_v0_8_0(v4: Vec<u8>) -> Made {
    old_head(&v4, b"v0.8.0")
}

/// `TsFile000002`: the head of TsFile v2 (IoTDB 0.10–0.11).
fn head_000002(v4: Vec<u8>) -> Made {
    old_head(&v4, b"000002")
}

/// Offset (in the footer) of the first device entry's `VarStr` length.
fn first_device_at(footer: &[u8]) -> usize {
    let n = colfile::cursor::Cursor::new(footer, 0)
        .read_uvarint()
        .unwrap();
    uvarint_len(n)
}

/// The root's first device string with length -1 (null), same size.
fn index_device_null(v4: Vec<u8>) -> Made {
    let (mut b, start, footer, _) = v3_footer(&v4);
    let at = start + first_device_at(&footer);
    assert!(b[at] < 0x80, "one-byte length");
    b[at] = 0x01; // zigzag -1
    Made::at(b, at as u64)
}

/// The root's first device string with length `i32::MAX` (the footer grows by 4 bytes);
/// the mark is where its bytes would start.
fn index_device_length_huge(v4: Vec<u8>) -> Made {
    let (b, start, footer, _) = v3_footer(&v4);
    let at = first_device_at(&footer);
    assert!(footer[at] < 0x80, "one-byte length");
    let mut f = footer[..at].to_vec();
    put_varint(&mut f, i32::MAX);
    let bytes_at = start + f.len();
    f.extend_from_slice(&footer[at + 1..]);
    Made::at(with_footer(&b, start, &f), bytes_at as u64)
}

/// The root node's type byte set to LEAF_MEASUREMENT (3).
fn root_measurement_type(v4: Vec<u8>) -> Made {
    let (mut b, start, _, root_len) = v3_footer(&v4);
    let at = start + root_len - 1;
    assert!(b[at] <= 1, "a device-level type");
    b[at] = 3;
    Made::at(b, start as u64)
}

/// The root replaced by an empty node (entry count 0) of type LEAF_MEASUREMENT; the end
/// offset, `meta_offset` and Bloom filter are kept.
fn root_empty_measurement(v4: Vec<u8>) -> Made {
    let (b, start, footer, root_len) = v3_footer(&v4);
    let mut f = vec![0u8];
    f.extend_from_slice(&footer[root_len - 9..root_len - 1]);
    f.push(3);
    f.extend_from_slice(&footer[root_len..]);
    Made::at(with_footer(&b, start, &f), start as u64)
}

/// Three zero bytes after the Bloom filter, counted in `L`.
fn footer_leftover_bytes(v4: Vec<u8>) -> Made {
    let (b, start, mut f, _) = v3_footer(&v4);
    let end = start + f.len();
    f.extend_from_slice(&[0; 3]);
    Made::at(with_footer(&b, start, &f), end as u64)
}
