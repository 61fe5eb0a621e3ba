//! LZO1X raw blocks (TsFile compression LZO): hand-assembled blocks for every instruction,
//! the C++ writer's (`lzokay`) pages from `fixtures/tsfile/comp_lzo.tsfile`, round trips,
//! the 255:1 bound the C++ reader needs, and hostile blocks.

use super::{check_round_trip, data_strategy, random_bytes, text_like};
use colfile::compress::{new_codec, Algorithm, Codec, Framing};
use colfile::ErrorKind;
use proptest::prelude::*;

fn lzo() -> Box<dyn Codec> {
    new_codec(Algorithm::Lzo, Framing::Raw, None).expect("lzo codec")
}

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

fn unlzo(block: &[u8], expected: usize) -> colfile::Result<Vec<u8>> {
    let mut out = Vec::new();
    lzo().decompress(block, &mut out, expected)?;
    Ok(out)
}

// ------------------------------------------------------------------------------------------
// Hand-assembled blocks. `11 00 00` ends every block (M4 with distance 16384 + 0).

#[test]
fn every_instruction_decodes() {
    // First byte 17 + 4: four literals, state 4.
    assert_eq!(unlzo(&hex("15 61626364 110000"), 4).unwrap(), b"abcd");
    // 17 + 3 literals, then M2 `010 010 00` (length 3, distance (0 << 3) + 2 + 1 = 3).
    assert_eq!(unlzo(&hex("14 616263 4800 110000"), 6).unwrap(), b"abcabc");
    // M3 `001 00111` (length 7 + 2), LE16 (2 << 2) = distance 3: an overlapping copy.
    assert_eq!(
        unlzo(&hex("14 616263 270800 110000"), 12).unwrap(),
        b"abcabcabcabc"
    );
    // M2 `011 010 01` (length 4, distance 3, then 1 literal 'x'); then, with 1–3 literals
    // announced, `0000 01 00` + 00 copies 2 bytes from distance 1 + 1 = 2.
    assert_eq!(
        unlzo(&hex("14 616263 6900 78 0400 110000"), 10).unwrap(),
        b"abcabcaxax"
    );
    // State 0 at the start: `0000 0000`, a zero byte (255) and 1: 3 + 15 + 255 + 1 = 274
    // literals.
    let mut block = hex("00 00 01");
    block.extend(std::iter::repeat_n(b'z', 274));
    block.extend(hex("110000"));
    assert_eq!(unlzo(&block, 274).unwrap(), vec![b'z'; 274]);
    // After a long literal run (state 4), `0000 DDSS` + H copies 3 bytes from 2049 + … .
    let lits = random_bytes(2154, 7);
    let mut block = vec![0]; // 3 + 15 + 8 · 255 + 96 = 2154 literals
    block.extend([0; 8]);
    block.push(96);
    block.extend(&lits);
    block.extend(hex("0400")); // distance (0 << 2) + 1 + 2049 = 2050, length 3
    block.extend(hex("110000"));
    let mut want = lits.clone();
    let at = want.len() - 2050;
    want.extend_from_within(at..at + 3);
    assert_eq!(unlzo(&block, want.len()).unwrap(), want);
    // M4: `0001 0 001` (length 3), LE16 (1 << 2): distance 16384 + 1.
    let lits = random_bytes(16385, 9);
    let mut block = vec![0]; // 18 + 64 · 255 + 47 = 16385 literals
    block.extend([0; 64]);
    block.push(47);
    block.extend(&lits);
    block.extend(hex("110400 110000"));
    let mut want = lits.clone();
    want.extend_from_within(0..3);
    assert_eq!(unlzo(&block, want.len()).unwrap(), want);
}

#[test]
fn empty_block_is_the_end_marker() {
    let mut codec = lzo();
    let mut packed = Vec::new();
    codec.compress(b"", &mut packed).unwrap();
    assert_eq!(packed, hex("110000"));
    let mut out = Vec::new();
    codec.decompress(&packed, &mut out, 0).unwrap();
    assert!(out.is_empty());
}

// ------------------------------------------------------------------------------------------
// What the C++ writer (lzokay) wrote

#[test]
fn cpp_pages_decode() {
    let file = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/tsfile/comp_lzo.tsfile"
    ))
    .unwrap();
    // (payload offset, compressed, uncompressed) of device a's pages, from `tsraw.py --pages`.
    let pages = [
        (43, 23, 24),
        (232, 62, 141),
        (566, 1007, 999),
        (3949, 668, 1041),
        (5485, 173, 1012),
        (6774, 315, 2875),
        (7344, 384, 2609),
    ];
    let mut codec = lzo();
    for (at, len, plain) in pages {
        let block = &file[at..at + len];
        let mut out = Vec::new();
        codec.decompress(block, &mut out, plain).unwrap();
        assert_eq!(out.len(), plain);
        // Ours reads back the same, and too long or too short an expectation is an error.
        check_round_trip(codec.as_mut(), &out);
        assert!(codec.decompress(block, &mut Vec::new(), plain + 1).is_err());
        assert!(codec.decompress(block, &mut Vec::new(), plain - 1).is_err());
    }
}

// ------------------------------------------------------------------------------------------
// Round trips and the ratio bound

#[test]
fn large_and_repetitive_inputs_round_trip() {
    let mut codec = lzo();
    for data in [
        vec![0u8; 1 << 20],
        random_bytes(300_000, 3),
        text_like(500_000, 4),
        {
            // Repeats 20 000 bytes apart: M4 distances.
            let a = random_bytes(20_000, 5);
            [&a[..], &a[..], &a[..100]].concat()
        },
    ] {
        check_round_trip(codec.as_mut(), &data);
        let mut packed = Vec::new();
        codec.compress(&data, &mut packed).unwrap();
        // The C++ reader decodes into at most 255 × the compressed size.
        assert!(
            packed.len() * 255 >= data.len(),
            "{} -> {}",
            data.len(),
            packed.len()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn round_trips(data in data_strategy()) {
        check_round_trip(lzo().as_mut(), &data);
    }

    #[test]
    fn hostile_blocks_never_panic_nor_overrun(block in proptest::collection::vec(any::<u8>(), 0..300), expected in 0usize..5000) {
        let mut out = Vec::new();
        if lzo().decompress(&block, &mut out, expected).is_ok() {
            prop_assert_eq!(out.len(), expected);
        } else {
            prop_assert!(out.is_empty());
        }
    }

    #[test]
    fn cut_and_flipped_blocks_are_errors_or_exact(data in data_strategy(), cut in any::<usize>(), flip in any::<(usize, u8)>()) {
        let mut codec = lzo();
        let mut packed = Vec::new();
        codec.compress(&data, &mut packed).unwrap();
        let n = cut % packed.len();
        prop_assert!(codec.decompress(&packed[..n], &mut Vec::new(), data.len()).is_err() || data.is_empty());
        let mut m = packed.clone();
        m[flip.0 % packed.len()] ^= flip.1;
        let mut out = Vec::new();
        if codec.decompress(&m, &mut out, data.len()).is_ok() {
            prop_assert_eq!(out.len(), data.len());
        }
    }
}

// ------------------------------------------------------------------------------------------
// Hostile blocks

#[test]
fn corrupt_blocks_are_errors() {
    let corrupt = |block: &str, expected: usize| {
        let e = unlzo(&hex(block), expected).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Corrupt { .. } | ErrorKind::Truncated { .. }
            ),
            "{block}: {e}"
        );
        e.to_string()
    };
    // No end marker; cut inside an instruction; bytes after the end marker.
    corrupt("15 61626364", 4);
    corrupt("15 61626364 1100", 4);
    assert!(corrupt("15 61626364 110000 00", 4).contains("end marker"));
    // An end marker with a length other than 3.
    assert!(corrupt("15 61626364 120000", 4).contains("end marker"));
    // A match reaching before the start of the output.
    assert!(corrupt("14 616263 4804 110000", 6).contains("back"));
    // State 4 then `0000DDSS`: 3 bytes from 2049 back, with 4 bytes of output.
    assert!(corrupt("15 61626364 0000 110000", 7).contains("back"));
    // More output than expected, by literals and by a match.
    assert!(corrupt("15 61626364 110000", 3).contains("more than"));
    assert!(corrupt("14 616263 270800 110000", 11).contains("more than"));
    // Less output than expected.
    corrupt("15 61626364 110000", 5);
    // A length of a million zero bytes (255 each) claiming 255 MB: refused after reading
    // them, with only `expected` bytes of room.
    let mut bomb = vec![0x20];
    bomb.extend(std::iter::repeat_n(0u8, 1_000_000));
    bomb.extend(hex("01 0400 110000"));
    let mut block = hex("14 616263");
    block.extend(bomb);
    let e = unlzo(&block, 100_000).unwrap_err();
    assert!(e.to_string().contains("more than"), "{e}");
}
