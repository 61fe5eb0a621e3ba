//! Tests of `colfile::compress`: round trips, Hadoop's exact layouts, what other writers emit,
//! hostile input (truncated, corrupt, decompression bombs) and the codec registry.
#![cfg(all(
    feature = "deflate",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd",
    feature = "bzip2",
    feature = "lzma2"
))]

use colfile::compress::{new_codec, Algorithm, Codec, Framing, HadoopCodec};
use colfile::{Error, ErrorKind};
use proptest::prelude::*;
use std::io::{Read, Write};
use std::time::{Duration, Instant};

mod bombs_and_registry;
mod hadoop_block;
mod hive_files;
mod lzo;
mod streams;

const SNAPPY_MAX: usize = 218_422;
const LZ4_MAX: usize = 261_100;

/// Every codec the RCFile writer can produce, plus the bare block codecs and xz (TsFile).
fn all_codecs() -> Vec<Box<dyn Codec>> {
    let mut codecs: Vec<Box<dyn Codec>> = HadoopCodec::ALL
        .iter()
        .map(|h| h.codec().expect("codec"))
        .collect();
    for algorithm in [Algorithm::Snappy, Algorithm::Lz4] {
        codecs.push(new_codec(algorithm, Framing::Raw, None).expect("raw codec"));
    }
    codecs.push(new_codec(Algorithm::Lzma2, Framing::Xz, None).expect("xz codec"));
    codecs
}

fn compress(codec: &mut dyn Codec, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    codec.compress(input, &mut out).expect("compress");
    out
}

fn decompress(codec: &mut dyn Codec, input: &[u8], expected: usize) -> Result<Vec<u8>, Error> {
    let mut out = Vec::new();
    codec.decompress(input, &mut out, expected)?;
    Ok(out)
}

fn be32(n: usize) -> [u8; 4] {
    u32::try_from(n).expect("fits").to_be_bytes()
}

/// Text-like bytes: words from a small vocabulary, so every codec finds matches.
fn text_like(len: usize, seed: u64) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "alpha",
        "beta",
        "gamma",
        "2024-01-01",
        "true",
        "false",
        "\\N",
        "12345",
        "hive",
        "rcfile",
        "column",
        "value",
    ];
    let mut state = seed | 1;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        out.extend_from_slice(WORDS[(state % 12) as usize].as_bytes());
        out.push(if state & 0x100 == 0 { b',' } else { b'\n' });
    }
    out.truncate(len);
    out
}

/// Incompressible bytes.
fn random_bytes(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

fn is_truncated(e: &Error) -> bool {
    matches!(e.kind(), ErrorKind::Truncated { .. })
}

// ------------------------------------------------------------------------------------------
// Round trips

fn check_round_trip(codec: &mut dyn Codec, data: &[u8]) {
    // Both directions append and keep what the buffers already hold.
    let mut packed = b"prefix".to_vec();
    codec.compress(data, &mut packed).expect("compress");
    assert_eq!(&packed[..6], b"prefix");
    for mut plain in output_buffers(data.len()) {
        plain.extend_from_slice(b"old");
        codec
            .decompress(&packed[6..], &mut plain, data.len())
            .unwrap_or_else(|e| panic!("{codec:?} on {} bytes: {e}", data.len()));
        assert_eq!(&plain[..3], b"old");
        assert!(
            plain[3..] == *data,
            "{codec:?}: round trip of {} bytes differs",
            data.len()
        );
    }
    // Replacing what a reused buffer holds, longer or shorter than the data.
    for fill in [data.len() + 100, data.len() / 2] {
        let mut plain = vec![0xa5; fill];
        codec
            .decompress_replace(&packed[6..], &mut plain, data.len())
            .unwrap_or_else(|e| panic!("{codec:?} replacing {fill} bytes: {e}"));
        assert!(plain == *data, "{codec:?}: replace of {fill} bytes differs");
    }
}

/// Output buffers of both kinds: one without spare room (decoders write into its spare
/// capacity) and one with more capacity than needed (decoders get a zeroed window).
fn output_buffers(expected: usize) -> [Vec<u8>; 2] {
    [Vec::new(), Vec::with_capacity(expected + 4096)]
}

fn data_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..2048),
        (0usize..8192, any::<u64>()).prop_map(|(len, seed)| text_like(len, seed)),
        (proptest::collection::vec(any::<u8>(), 1..8), 0usize..3000)
            .prop_map(|(unit, n)| unit.repeat(n)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_codec_round_trips(data in data_strategy()) {
        for mut codec in all_codecs() {
            check_round_trip(codec.as_mut(), &data);
        }
    }

    #[test]
    fn one_codec_value_is_reusable(pieces in proptest::collection::vec(data_strategy(), 1..5)) {
        for mut codec in all_codecs() {
            for piece in &pieces {
                check_round_trip(codec.as_mut(), piece);
            }
        }
    }

    /// Garbage never panics, and `out` either stays as it was or grows by exactly the expected
    /// length.
    #[test]
    fn garbage_never_panics(input in proptest::collection::vec(any::<u8>(), 0..512),
                            expected in 0usize..4096) {
        for mut codec in all_codecs() {
            for mut out in output_buffers(expected) {
                out.extend_from_slice(&[7, 7, 7]);
                match codec.decompress(&input, &mut out, expected) {
                    Ok(()) => prop_assert_eq!(out.len(), 3 + expected),
                    Err(_) => prop_assert_eq!(&out, &vec![7u8; 3]),
                }
                let mut stale = vec![7u8; 100];
                match codec.decompress_replace(&input, &mut stale, expected) {
                    Ok(()) => prop_assert_eq!(stale.len(), expected),
                    Err(_) => prop_assert!(stale.is_empty()),
                }
            }
        }
    }

    /// Any prefix of a valid stream shorter than the whole fails, without panicking.
    #[test]
    fn every_cut_is_an_error(seed in any::<u64>(), cut_fraction in 0.0f64..1.0) {
        let data = text_like(3000, seed);
        for mut codec in all_codecs() {
            let packed = compress(codec.as_mut(), &data);
            let cut = (packed.len() as f64 * cut_fraction) as usize;
            let result = decompress(codec.as_mut(), &packed[..cut], data.len());
            prop_assert!(result.is_err(), "{:?} accepted {} of {} bytes", codec, cut, packed.len());
        }
    }

    /// Flipping one byte never panics; with a checksum (zlib, gzip, bzip2) it is caught.
    #[test]
    fn corrupt_bytes_never_panic(seed in any::<u64>(), at in any::<prop::sample::Index>(),
                                 xor in 1u8..=255) {
        let data = text_like(2000, seed);
        for mut codec in all_codecs() {
            let mut packed = compress(codec.as_mut(), &data);
            let i = at.index(packed.len());
            packed[i] ^= xor;
            let result = decompress(codec.as_mut(), &packed, data.len());
            if let Ok(plain) = &result {
                prop_assert_eq!(plain.len(), data.len());
                let checksummed = matches!(codec.framing(),
                    Framing::Zlib | Framing::Gzip | Framing::Bzip2Stream | Framing::Xz);
                if checksummed {
                    prop_assert!(plain == &data, "{:?}: corruption at {} went unnoticed", codec, i);
                }
            }
        }
    }
}

#[test]
fn large_inputs_round_trip() {
    let sizes = [
        SNAPPY_MAX - 1,
        SNAPPY_MAX,
        SNAPPY_MAX + 1,
        LZ4_MAX,
        LZ4_MAX + 1,
        2 * LZ4_MAX + 17,
    ];
    for mut codec in all_codecs() {
        // Every size around the chunk limits for the block codecs; one big size for the
        // others (slow without optimisation).
        let sizes: &[usize] = match codec.framing() {
            Framing::HadoopBlock | Framing::Raw => &sizes,
            _ => &sizes[4..5],
        };
        for &size in sizes {
            check_round_trip(codec.as_mut(), &text_like(size, size as u64));
            if codec.algorithm() != Algorithm::Bzip2 {
                check_round_trip(codec.as_mut(), &random_bytes(size, size as u64));
            }
        }
    }
}

#[test]
fn empty_input_with_zero_expected_is_fine() {
    for mut codec in all_codecs() {
        assert_eq!(decompress(codec.as_mut(), &[], 0).expect("empty"), b"");
        let packed = compress(codec.as_mut(), b"");
        assert_eq!(decompress(codec.as_mut(), &packed, 0).expect("empty"), b"");
        let err = decompress(codec.as_mut(), &[], 1).unwrap_err();
        assert!(is_truncated(&err), "{codec:?}: {err}");
    }
}

/// Bytes from hex text (test data written as hex).
fn hex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex"))
        .collect()
}
