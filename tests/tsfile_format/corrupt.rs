//! Corrupt inputs: every damaged footer or index is a specific error, never a panic.

use colfile::tsfile::format::{MetadataIndexNode, NodeEntries, NodeType};
use colfile::tsfile::FileMetadata;
use colfile::{ErrorKind, Limits};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/fixtures/tsfile/{name}.tsfile",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn open(b: &[u8]) -> colfile::Result<FileMetadata> {
    FileMetadata::read(b, &Limits::default())
}

/// Opens and walks everything; returns the first error.
fn walk_all(b: &[u8]) -> colfile::Result<()> {
    let m = open(b)?;
    for d in m.all_devices(b)? {
        for s in m.timeseries(b, &d)? {
            m.find_timeseries(b, &d, &s.measurement_id)?;
        }
    }
    Ok(())
}

fn is_corrupt(e: &colfile::Error) -> bool {
    matches!(e.kind(), ErrorKind::Corrupt { .. })
}

#[test]
fn bad_magic_version_and_truncation() {
    let good = fixture("basic");
    let mut b = good.clone();
    b[0] = b'X';
    assert!(is_corrupt(&open(&b).unwrap_err()));
    let mut b = good.clone();
    // Byte 3 is v3: a v4 footer read as v3 is corrupt; an unknown byte is unsupported.
    b[6] = 3;
    assert!(is_corrupt(&open(&b).unwrap_err()));
    b[6] = 5;
    let e = open(&b).unwrap_err();
    assert!(
        matches!(e.kind(), ErrorKind::Unsupported(m) if m.contains("version byte 5")),
        "{e}"
    );
    let n = good.len();
    let mut b = good.clone();
    b[n - 1] = b'x';
    let e = open(&b).unwrap_err();
    assert!(
        is_corrupt(&e) && e.location().offset == Some(n as u64 - 6),
        "{e}"
    );
    // Truncated anywhere: the tail magic is gone or the footer no longer fits.
    for cut in [0, 5, 7, 17, n / 2, n - 11, n - 1] {
        assert!(open(&good[..cut]).is_err(), "cut {cut}");
    }
}

#[test]
fn footer_length_pointing_outside() {
    let good = fixture("basic");
    let n = good.len();
    for l in [-1i32, i32::MAX, n as i32, n as i32 - 17, 0, 3] {
        let mut b = good.clone();
        b[n - 10..n - 6].copy_from_slice(&l.to_be_bytes());
        let e = open(&b).unwrap_err();
        assert!(e.location().offset.is_some(), "L={l}: {e}");
    }
}

#[test]
fn meta_offset_must_point_at_the_separator() {
    let good = fixture("basic");
    let m = open(&good).unwrap();
    let mut b = good.clone();
    b[m.meta_offset() as usize] = 0x01;
    let e = open(&b).unwrap_err();
    assert_eq!(e.location().offset, Some(m.meta_offset()), "{e}");
}

/// Rewrites the node at `at` (same length) with entry 0's offset replaced.
fn retarget(b: &mut [u8], m: &FileMetadata, at: u64, len: u64, device_level: bool, to: i64) {
    let mut node: MetadataIndexNode = m.read_node(&*b, (at, at + len), device_level).unwrap();
    match &mut node.entries {
        NodeEntries::Device(v) => v[0].offset = to,
        NodeEntries::Measurement(v) => v[0].offset = to,
    }
    let mut out = Vec::new();
    node.write_to(&mut out).unwrap();
    b[at as usize..at as usize + out.len()].copy_from_slice(&out);
}

#[test]
fn cyclic_and_out_of_range_index_offsets() {
    let good = fixture("deep_index");
    let m = open(&good).unwrap();
    let root = &m.footer().table_roots[0].1;
    assert_eq!(root.node_type, NodeType::InternalDevice);
    let (s, e) = root.child_range(0).unwrap();
    let (s, e) = (s as u64, e as u64);
    // A child pointing back at itself: bounded, an error.
    let mut b = good.clone();
    retarget(&mut b, &m, s, e - s, true, s as i64);
    let err = walk_all(&b).unwrap_err();
    assert!(is_corrupt(&err), "{err}");
    // Offsets outside the metadata region.
    for to in [
        0i64,
        -5,
        m.meta_offset() as i64,
        m.footer_start() as i64 + 100,
        i64::MAX,
    ] {
        let mut b = good.clone();
        retarget(&mut b, &m, s, e - s, true, to);
        let err = walk_all(&b).unwrap_err();
        assert!(err.location().offset.is_some(), "{to}: {err}");
    }
}

#[test]
fn huge_counts_are_limits_or_truncation() {
    // A footer that declares 2^31 tables.
    let mut b = b"TsFile\x04\x02".to_vec();
    let footer = [0xff, 0xff, 0xff, 0xff, 0x07];
    b.extend_from_slice(&footer);
    b.extend_from_slice(&(footer.len() as i32).to_be_bytes());
    b.extend_from_slice(b"TsFile");
    let e = open(&b).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::LimitExceeded { .. } | ErrorKind::Truncated { .. }
        ),
        "{e}"
    );
    let e = FileMetadata::read(&b[..], &Limits::unlimited()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Any byte of the metadata section changed: an error or a consistent answer, never a panic.
    #[test]
    fn damaged_metadata_never_panics(
        name in proptest::sample::select(&["basic", "deep_index", "multi_chunk", "tags_nulls", "tree_basic"][..]),
        pos in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<prop::sample::Index>(),
    ) {
        let good = fixture(name);
        let m = open(&good).unwrap();
        let start = m.meta_offset() as usize;
        let mut b = good.clone();
        let at = start + pos.index(b.len() - start);
        b[at] = byte;
        let _ = walk_all(&b);
        let keep = start + cut.index(b.len() - start);
        let _ = walk_all(&b[..keep]);
    }
}
