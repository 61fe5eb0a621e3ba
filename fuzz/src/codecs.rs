//! Every codec and framing (the Hadoop ones, TsFile's raw Snappy, LZ4 and LZO blocks and the
//! .xz container). Input: `u16 LE` declared size / 4, codec index, flags, then bytes.
//!
//! * flags bit 0 clear: the bytes are decompressed to the declared size. Never a panic, never
//!   more output than declared, and on error `out` is as the contract says (unchanged for
//!   `decompress`, empty for `decompress_replace`, chosen by flags bit 1).
//! * flags bit 0 set: the bytes are compressed (at a level from flags bits 4–7) and must
//!   decompress to themselves; one byte more than that is an error.
use colfile::compress::{new_codec, Algorithm, Framing};

const PAIRS: [(Algorithm, Framing); 10] = [
    (Algorithm::Deflate, Framing::Zlib),
    (Algorithm::Deflate, Framing::Gzip),
    (Algorithm::Snappy, Framing::HadoopBlock),
    (Algorithm::Lz4, Framing::HadoopBlock),
    (Algorithm::Zstd, Framing::ZstdFrame),
    (Algorithm::Bzip2, Framing::Bzip2Stream),
    (Algorithm::Snappy, Framing::Raw),
    (Algorithm::Lz4, Framing::Raw),
    (Algorithm::Lzo, Framing::Raw),
    (Algorithm::Lzma2, Framing::Xz),
];

/// A cheap level for the round trip (slow presets would make each run take seconds).
fn level(algorithm: Algorithm, l: u8) -> Option<i32> {
    let l = i32::from(l);
    match algorithm {
        Algorithm::Deflate => Some(l % 10),
        Algorithm::Zstd => Some(l % 6 - 1),
        Algorithm::Bzip2 => Some(1 + l % 9),
        Algorithm::Lzma2 => Some(l % 2),
        _ => None,
    }
}

/// The target body.
pub fn run(data: &[u8]) {
    let [lo, hi, pick, flags, input @ ..] = data else {
        return;
    };
    let (algorithm, framing) = PAIRS[*pick as usize % PAIRS.len()];
    if flags & 1 == 1 {
        let Ok(mut codec) = new_codec(algorithm, framing, level(algorithm, flags >> 4)) else {
            return;
        };
        let mut packed = Vec::new();
        codec
            .compress(input, &mut packed)
            .unwrap_or_else(|e| panic!("{algorithm:?}/{framing:?} compress: {e}"));
        let mut plain = Vec::new();
        codec
            .decompress(&packed, &mut plain, input.len())
            .unwrap_or_else(|e| panic!("{algorithm:?}/{framing:?} decompress: {e}"));
        assert!(
            plain == input,
            "{algorithm:?}/{framing:?}: round trip differs"
        );
        let mut more = Vec::new();
        assert!(
            codec
                .decompress(&packed, &mut more, input.len() + 1)
                .is_err(),
            "{algorithm:?}/{framing:?}: one byte more than the stream holds"
        );
        return;
    }
    let Ok(mut codec) = new_codec(algorithm, framing, None) else {
        return;
    };
    let expected = u16::from_le_bytes([*lo, *hi]) as usize * 4;
    let prefix = vec![0xa5; usize::from(flags >> 2)];
    let mut out = prefix.clone();
    if flags & 2 == 0 {
        match codec.decompress(input, &mut out, expected) {
            Ok(()) => assert_eq!(out.len(), prefix.len() + expected),
            Err(_) => assert!(out == prefix, "decompress changed out on error"),
        }
    } else {
        match codec.decompress_replace(input, &mut out, expected) {
            Ok(()) => assert_eq!(out.len(), expected),
            Err(_) => assert!(out.is_empty(), "decompress_replace left bytes on error"),
        }
    }
}
