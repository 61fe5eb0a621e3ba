//! Damaged TsFile data sections: each specific damage gives a specific, located error, and
//! random damage anywhere in a file gives an error or wrong-but-bounded data, never a panic.

use colfile_testkit as common;

use colfile::tsfile::read::chunk_reader::RawChunk;
use colfile::tsfile::{Query, TsFileReader};
use colfile::{ErrorKind, Limits};
use common::tsdump::ts_fixtures_dir;
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(ts_fixtures_dir().join(format!("{name}.tsfile"))).unwrap()
}

/// Reads every batch; the first error, if any.
fn read_all(bytes: Vec<u8>, limits: Limits) -> colfile::Result<usize> {
    let r = TsFileReader::open_with_limits(bytes, limits)?;
    let mut rows = 0;
    for b in r.query(&Query::all())? {
        rows += b?.len();
    }
    Ok(rows)
}

/// Offset of the first chunk header after the first chunk group header (7 = after magic).
fn first_chunk(bytes: &[u8]) -> usize {
    let r = TsFileReader::open(bytes.to_vec()).unwrap();
    let dev = r.devices(&Query::all()).unwrap().remove(0);
    let ts = r.metadata().timeseries(r.source(), &dev).unwrap();
    ts[0].chunks[0].offset_of_chunk_header as usize
}

#[test]
fn a_chunk_offset_past_its_data_is_a_located_error() {
    // Grow the first chunk's data_size so that it runs into the next chunk.
    let mut b = fixture("comp_uncompressed");
    let at = first_chunk(&b);
    // marker, VarStr "" (1 byte: 00), then data_size UVarInt.
    assert_eq!(b[at + 1], 0x00, "time chunk has an empty name");
    b[at + 2] = 0x7f;
    let e = read_all(b, Limits::default()).unwrap_err();
    let loc = e.location();
    assert!(loc.chunk.is_some() && loc.series.is_some(), "{e}");
}

#[test]
fn a_wrong_marker_where_a_chunk_should_be_is_corrupt() {
    let mut b = fixture("basic");
    let at = first_chunk(&b);
    b[at] = 0x07;
    let e = read_all(b, Limits::default()).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }), "{e}");
    assert_eq!(e.location().offset, Some(at as u64), "{e}");
}

#[test]
fn a_page_larger_than_the_limit_is_refused_before_allocating() {
    let b = fixture("multi_page");
    let e = read_all(b.clone(), Limits::default().with_max_alloc_bytes(512)).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    // Whichever structure trips a cap first (metadata, index node, chunk, page headers,
    // page), the error says where it starts.
    for max in [16, 64, 256, 512, 1024, 4096, 16384] {
        if let Err(e) = read_all(b.clone(), Limits::default().with_max_alloc_bytes(max)) {
            assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
            assert!(e.location().offset.is_some(), "limit {max}: {e}");
        }
    }
}

#[test]
fn a_compressed_page_with_flipped_bytes_fails_in_its_codec_or_its_decoder() {
    let mut b = fixture("comp_gzip");
    let at = first_chunk(&b) as u64;
    let chunk = RawChunk::read(&b[..], at, &Limits::default()).unwrap();
    let mut payload = None;
    chunk
        .for_each_page(|p| {
            payload.get_or_insert((p.offset as usize, p.data.len()));
            Ok(())
        })
        .unwrap();
    let (start, len) = payload.unwrap();
    // The middle of the first (gzip) page payload.
    for x in &mut b[start + len / 2..start + len / 2 + 4] {
        *x ^= 0x5a;
    }
    let e = read_all(b, Limits::default()).unwrap_err();
    assert!(e.location().offset.is_some(), "{e}");
}

#[test]
fn truncating_the_file_anywhere_is_an_error() {
    let b = fixture("types_all");
    for cut in [7, 100, b.len() / 2, b.len() - 11, b.len() - 1] {
        assert!(
            read_all(b[..cut].to_vec(), Limits::default()).is_err(),
            "cut at {cut}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Any byte of the data section replaced: an error or some rows, never a panic, and no
    /// allocation beyond the limit.
    #[test]
    fn random_damage_never_panics(
        which in 0usize..6,
        pos in any::<prop::sample::Index>(),
        byte in any::<u8>(),
        count in 1usize..4,
    ) {
        let name = ["basic", "types_all", "nulls", "multi_page", "comp_lz4", "tree_basic"][which];
        let mut b = fixture(name);
        let r = TsFileReader::open(b.clone()).unwrap();
        let data_end = r.metadata().meta_offset() as usize;
        for k in 0..count {
            let i = 7 + (pos.index(data_end - 7) + k * 31) % (data_end - 7);
            b[i] = byte;
        }
        let _ = read_all(b, Limits::default().with_max_alloc_bytes(1 << 24));
    }
}
