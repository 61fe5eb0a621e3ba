//! Corrupt and hostile RCFiles: each damage gives a specific error (kind, and where it
//! happened), never a panic and never an allocation the file merely asks for.

use colfile_testkit as common;

use colfile::compress::HadoopCodec;
use colfile::rcfile::{RcFileReader, RcFileWriter};
use colfile::{Error, ErrorKind, Limits};
use proptest::prelude::*;

fn read_all(bytes: &[u8]) -> Result<u64, Error> {
    read_all_with(bytes, Limits::default())
}

fn read_all_with(bytes: &[u8], limits: Limits) -> Result<u64, Error> {
    let mut r = RcFileReader::builder(bytes).with_limits(limits).build()?;
    let mut rows = 0;
    while let Some(g) = r.next_row_group()? {
        rows += g.num_rows() as u64;
    }
    Ok(rows)
}

fn sample(codec: Option<HadoopCodec>) -> Vec<u8> {
    let mut w = RcFileWriter::builder(Vec::new(), 2)
        .with_codec(codec)
        .with_sync([0xab; 16])
        .with_row_group_rows(50)
        .build()
        .unwrap();
    for i in 0..200u32 {
        w.write_row(&[i.to_string().into_bytes(), vec![b'x'; (i % 40) as usize]])
            .unwrap();
    }
    w.finish_into_inner().unwrap().0
}

fn corrupt_msg(e: &Error) -> String {
    match e.kind() {
        ErrorKind::Corrupt { message, .. } => message.clone(),
        other => panic!("expected Corrupt, got {other:?} ({e})"),
    }
}

/// The header of `sample(None)`: RCF1, uncompressed, one metadata entry, sync.
const HEADER_LEN: usize = 4 + 1 + 4 + 1 + 28 + 1 + 1 + 16;

#[test]
fn empty_and_tiny_files() {
    let e = read_all(b"").unwrap_err();
    assert!(corrupt_msg(&e).contains("empty"), "{e}");
    let e = read_all(b"RC").unwrap_err();
    assert!(corrupt_msg(&e).contains("too short"), "{e}");
}

#[test]
fn bad_magic_and_versions() {
    let mut b = sample(None);
    b[0] = b'X';
    assert!(corrupt_msg(&read_all(&b).unwrap_err()).contains("not an RCFile"));
    let mut b = sample(None);
    b[3] = 2;
    assert!(matches!(
        read_all(&b).unwrap_err().kind(),
        ErrorKind::Unsupported(_)
    ));
    let mut b = sample(None);
    b[..4].copy_from_slice(b"SEQ\x05");
    assert!(corrupt_msg(&read_all(&b).unwrap_err()).contains("SequenceFile version 5"));
}

#[test]
fn seq_header_with_other_classes_is_a_sequence_file() {
    let mut b = b"SEQ\x06".to_vec();
    colfile::rcfile::hadoop::write_text(&mut b, b"org.apache.hadoop.io.Text");
    colfile::rcfile::hadoop::write_text(&mut b, b"org.apache.hadoop.io.Text");
    b.extend_from_slice(&[0, 0, 0, 0, 0, 0]);
    b.extend_from_slice(&[0; 16]);
    let e = read_all(&b).unwrap_err();
    assert!(
        corrupt_msg(&e).contains("SequenceFile, not an RCFile"),
        "{e}"
    );
    assert_eq!(e.location().offset, Some(4));
}

#[test]
fn unknown_codec_is_named() {
    let mut b = b"RCF\x01\x01".to_vec();
    colfile::rcfile::hadoop::write_text(&mut b, b"com.example.MagicCodec");
    b.extend_from_slice(&[0, 0, 0, 0]);
    b.extend_from_slice(&[0; 16]);
    let e = read_all(&b).unwrap_err();
    match e.kind() {
        ErrorKind::UnknownCodec(name) => assert_eq!(name, "com.example.MagicCodec"),
        other => panic!("{other:?}"),
    }
    assert!(e.to_string().contains("com.example.MagicCodec"));
}

#[test]
fn metadata_counts_and_column_number() {
    // Negative metadata count.
    let mut b = b"RCF\x01\x00".to_vec();
    b.extend_from_slice(&(-5i32).to_be_bytes());
    assert!(corrupt_msg(&read_all(&b).unwrap_err()).contains("negative metadata"));
    // A count that would allocate a lot: bounded by the limit, then by what remains.
    let mut b = b"RCF\x01\x00".to_vec();
    b.extend_from_slice(&i32::MAX.to_be_bytes());
    assert!(matches!(
        read_all(&b).unwrap_err().kind(),
        ErrorKind::LimitExceeded { .. }
    ));
    let mut b = b"RCF\x01\x00".to_vec();
    b.extend_from_slice(&1000i32.to_be_bytes());
    assert!(matches!(
        read_all(&b).unwrap_err().kind(),
        ErrorKind::Truncated { .. }
    ));
    // Missing column count.
    let mut b = b"RCF\x01\x00\x00\x00\x00\x00".to_vec();
    b.extend_from_slice(&[0; 16]);
    let e = read_all(&b).unwrap_err();
    assert!(corrupt_msg(&e).contains("hive.io.rcfile.column.number"));
    // At the metadata entry count (after magic, version and the compression flag).
    assert_eq!(e.location().offset, Some(5), "{e}");
    // Column count above the limit.
    let w = RcFileWriter::builder(Vec::new(), 5000).build().unwrap();
    let b = w.finish_into_inner().unwrap().0;
    let limits = Limits::default().with_max_columns(100);
    let e = read_all_with(&b, limits).unwrap_err();
    assert!(matches!(
        e.kind(),
        ErrorKind::LimitExceeded {
            what: "column count",
            ..
        }
    ));
    // At the value: a Text of length 4, "5000".
    let at = e.location().offset.expect("an offset") as usize;
    assert_eq!(b.get(at..at + 5), Some(&b"\x045000"[..]), "{e}");
}

#[test]
fn allocation_limit_errors_say_where() {
    for codec in [None, Some(HadoopCodec::Gzip)] {
        let b = sample(codec);
        let mut tripped = 0;
        for max in [8, 32, 64, 128, 256, 1024, 4096] {
            if let Err(e) = read_all_with(&b, Limits::default().with_max_alloc_bytes(max)) {
                assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
                assert!(e.location().offset.is_some(), "{codec:?} limit {max}: {e}");
                tripped += 1;
            }
        }
        assert!(tripped > 0, "{codec:?}: no cap tripped");
    }
}

#[test]
fn damaged_sync_marker() {
    let b = sample(None);
    let mut r = RcFileReader::new(b.as_slice()).unwrap();
    let mut at = None;
    while let Some(g) = r.next_row_group().unwrap() {
        if g.sync_before() {
            at = Some((g.byte_range().start as usize, g.index()));
            break;
        }
    }
    let (at, group) = at.expect("a sync block");
    let mut b2 = b.clone();
    b2[at + 10] ^= 0xff;
    let e = read_all(&b2).unwrap_err();
    assert!(corrupt_msg(&e).contains("sync marker"), "{e}");
    assert_eq!(e.location().offset, Some(at as u64 + 4));
    assert_eq!(e.location().row_group, Some(group));
}

#[test]
fn damaged_row_group_header() {
    let b = sample(None);
    let first = HEADER_LEN;
    // Negative record length.
    let mut x = b.clone();
    x[first..first + 4].copy_from_slice(&(-7i32).to_be_bytes());
    assert!(corrupt_msg(&read_all(&x).unwrap_err()).contains("negative row group lengths"));
    // Key length larger than the record.
    let mut x = b.clone();
    x[first + 4..first + 8].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(corrupt_msg(&read_all(&x).unwrap_err()).contains("exceeds record length"));
    // Record length past the end of the file.
    let mut x = b.clone();
    x[first..first + 4].copy_from_slice(&(i32::MAX - 1).to_be_bytes());
    let e = read_all(&x).unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Truncated {
                what: "row group",
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.location().offset, Some(first as u64));
    // Compressed key length differs in an uncompressed file.
    let mut x = b.clone();
    x[first + 8..first + 12].copy_from_slice(&1i32.to_be_bytes());
    assert!(corrupt_msg(&read_all(&x).unwrap_err()).contains("compressed key length"));
}

#[test]
fn damaged_key_section() {
    let b = sample(None);
    let key = HEADER_LEN + 12;
    // Row count changed: lengths no longer add up.
    let mut x = b.clone();
    x[key] = 49;
    let e = read_all(&x).unwrap_err();
    assert_eq!(e.location().row_group, Some(0));
    assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }), "{e}");
    // A column's plain length changed: the on-disk sum no longer matches the record.
    let mut x = b.clone();
    x[key + 1] = x[key + 1].wrapping_add(1);
    let e = read_all(&x).unwrap_err();
    assert!(
        corrupt_msg(&e).contains("add up") || corrupt_msg(&e).contains("plain length"),
        "{e}"
    );
}

#[test]
fn damaged_compressed_column() {
    for codec in HadoopCodec::ALL {
        let b = sample(Some(codec));
        // Overwrite the first row group's last column (its compressed stream) with 0xff.
        let mut r = RcFileReader::new(b.as_slice()).unwrap();
        let g = r.next_row_group().unwrap().unwrap();
        let end = g.byte_range().end as usize;
        let len = g.layout()[1].on_disk_len as usize;
        let mut x = b.clone();
        x[end - len..end].fill(0xff);
        let e = read_all(&x).unwrap_err();
        assert_eq!(e.location().row_group, Some(0), "{codec:?}: {e}");
        assert_eq!(e.location().column, Some(1), "{codec:?}: {e}");
    }
}

#[test]
fn every_truncation_errors_or_stops_at_a_boundary() {
    for codec in [None, Some(HadoopCodec::Snappy)] {
        let b = sample(codec);
        let mut r = RcFileReader::new(b.as_slice()).unwrap();
        let mut ends = vec![r.header().length];
        while let Some(g) = r.next_row_group().unwrap() {
            ends.push(g.byte_range().end);
            if g.sync_before() {
                // A file cut right after a sync block ends there (Hive tolerates it).
                ends.push(g.byte_range().start + 20);
            }
        }
        for n in 0..b.len() {
            match read_all(&b[..n]) {
                Ok(_) => assert!(
                    ends.contains(&(n as u64)),
                    "truncated at {n} read without error"
                ),
                Err(e) => assert!(
                    matches!(
                        e.kind(),
                        ErrorKind::Truncated { .. } | ErrorKind::Corrupt { .. }
                    ),
                    "truncated at {n}: {e}"
                ),
            }
        }
    }
}

#[test]
fn fixtures_truncated_never_panic() {
    for f in common::fixtures() {
        let b = std::fs::read(&f.rc).unwrap();
        for n in (0..b.len()).step_by(b.len() / 64 + 1) {
            let _ = read_all(&b[..n]);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn random_damage_never_panics(flips in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..8), codec in 0usize..3) {
        let codec = [None, Some(HadoopCodec::Default), Some(HadoopCodec::Lz4)][codec];
        let mut b = sample(codec);
        for (i, x) in flips {
            let n = b.len();
            b[i % n] ^= x | 1;
        }
        let limits = Limits::default().with_max_alloc_bytes(1 << 24);
        let _ = read_all_with(&b, limits);
    }
}
