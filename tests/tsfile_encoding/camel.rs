//! CAMEL (`spec/tsfile.md` §7.10): streams worked out field by field for values from Java's
//! `CamelDecoderTest`, Java's lossy cases (NaN after the first value, decimals that do not
//! read back) decoded as Java decodes them and written exactly here, the C++-written
//! `enc_camel.tsfile` pages decoded and re-encoded byte for byte, property round trips and
//! corrupt streams.

use crate::helpers::{
    bits64, dec, dec_exact, decode_err, enc, f64s, fixture, fixture_rows, hex, page, round_trip,
    runs,
};
use colfile::tsfile::encoding::decode;
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use proptest::prelude::*;

const C: Encoding = Encoding::Camel;
const D: DataType = DataType::Double;

fn check(v: &[f64], stream: &str) {
    let vals = Values::Double(v.to_vec());
    assert_eq!(enc(C, D, &vals), hex(stream), "{v:?}");
    assert_eq!(bits64(&dec(C, D, &hex(stream))), bits64(&vals), "{v:?}");
}

fn doubles(v: &[f64]) -> Values {
    Values::Double(v.to_vec())
}

// ---------------------------------------------------------------------------------------
// Hand-worked streams: `VarInt total_bits` (zigzag LEB128), then the bits MSB first,
// zero-padded. Fields follow Java's `CamelEncoder`: first value raw; then sign, type
// (1 = decimal, 0 = XOR), and the path's fields. A bit varlong is the zigzag value in 7-bit
// groups, low group first, each followed by a continuation bit.

#[test]
fn java_simple_case_for_debug() {
    // testSimpleCaseForDebug {Double.MIN_VALUE, -7048.1184028651805}: 0000000000000001
    // raw; then sign 1 and, as 13 decimal places exceed 10 - 4 digits, type 0: bits
    // 0x40bb881e4fa671b4 ^ 1 has 1 leading and no trailing zeros: '11', 000001, 111110
    // (63 - 1), the 63 low bits. 64 + 2 + 14 + 63 = 143 bits (zigzag 286 = 9e 02).
    check(
        &[5e-324, -7048.1184028651805],
        "9e02 0000000000000001 b07e8177103c9f4ce36a",
    );
}

#[test]
fn java_repeated_values() {
    // testRepeatedValues 123.456789: raw 405edd3c07ee0b0b; then per repeat sign 0, type 1,
    // integer delta 0 (00000000), d - 1 = 5 (0101: 123.456789e6 is whole), fraction
    // f = 456789 ≥ 5^6 = 15625: '1' and the top 6 mantissa bits of
    // bits(1.456789) ^ bits(1.003664) = 0x0007400000000000 (011101), then m = f mod 15625
    // = 3664, zigzag 7328: 0100000 1, 0111001 0. 64 + 2 · 37 = 138 bits (94 02).
    check(
        &[123.456789; 3],
        "9402 405edd3c07ee0b0b 4016ea0b9200b7505c80",
    );
}

#[test]
fn java_monotonic_sequence() {
    // testMonotonicSequence 100.0 + i · 0.0001: 100.0001 needs d = 4 (0011, f = 1 < 625:
    // '0', m 1 = 0000010 0); 100 + 2e-4 is 100.00020000000001, whole only at d = 5 (0100,
    // f = 20 < 3125, m 20 = 0101000 0); 100.0003 again d = 4, f = 3. 64 + 3 · 23 = 133
    // bits (8a 02).
    let v: Vec<f64> = (0..4).map(|i| 100.0 + i as f64 * 0.0001).collect();
    check(&v, "8a02 4059000000000000 400c08802141003060");
}

#[test]
fn java_mixed_signs() {
    // testGorillaMixedSigns' first values through the whole encoder: -1.1 raw (its
    // truncated integer part -1 seeds the integer deltas); 2.2: sign 0, type 1, delta 3
    // (zigzag 6: 0000110 0), d = 1 (0000), f = 2 < 5 ('0'), m 2 (0000100 0); -3.3: sign 1,
    // type 1, delta 1 (0000010 0), d = 1, f = 3 < 5, m 3. 64 + 2 · 23 = 110 bits (dc 01).
    check(&[-1.1, 2.2, -3.3], "dc01 bff199999999999a 430011820030");
}

#[test]
fn threshold_branch() {
    // -2.5: f = 5 ≥ 5^1: '1', the top mantissa bit of bits(1.5) ^ bits(1.0) (1), m = 0;
    // integer delta 2 - 0 (0.5 truncates to 0). 0.1: delta -2 (zigzag 3), f = 1 < 5.
    // 64 + 24 + 23 = 111 bits (de 01).
    check(&[0.5, -2.5, 0.1], "de01 3fe0000000000000 c20300418008");
}

#[test]
fn java_special_floating_values() {
    // testSpecialFloatingValues: NaN first (raw), then all XOR path: +inf vs the canonical
    // NaN differs in one bit (lz 12, 1 bit); -inf: sign 1 and the same magnitude ('0');
    // ±0.0 (a 12-bit window), ±MIN_VALUE (64-bit window), ±MIN_NORMAL and ±MAX inside it
    // ('10' + 64 bits). 340 bits (a8 05).
    let v = [
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        0.0,
        -0.0,
        5e-324,
        -5e-324,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        f64::MAX,
        f64::MIN,
    ];
    check(
        &v,
        "a805 7ff8000000000000 3300c300bfff8607f00000000000000030a004000000000000617fffffffffffffffc0",
    );
}

// ---------------------------------------------------------------------------------------
// Where Java's (and the C++ 2.5 writer's, which was checked to match it) bytes lose data.

#[test]
fn nan_after_the_first_value() {
    // Java's stream for {1.5, NaN, inf}: NaN goes down the decimal path as integer delta
    // -1 (0000001 0), d = 1, '0', m 0; inf then XORs against NaN's bits (one bit, lz 12).
    // Readers rebuild 0.0 and then 0.0 ^ 0x0008000000000000 = MIN_NORMAL / 2 for inf.
    let java = hex("d001 3ff8000000000000 4080006601");
    assert_eq!(
        bits64(&dec(C, D, &java)),
        [1.5f64.to_bits(), 0, 0x0008_0000_0000_0000]
    );
    // Written here: NaN takes the XOR path (bits 0x7ff8… ^ 0x3ff8… = 0x4000…: '11' 000001
    // 000000 '1'), inf XORs against the canonical NaN (new window: '11' 001100 000000 '1').
    // 98 bits (c4 01); every reader returns {1.5, NaN, inf}.
    let v = [1.5, f64::NAN, f64::INFINITY];
    let ours = enc(C, D, &doubles(&v));
    assert_eq!(ours, hex("c401 3ff8000000000000 3040998040"));
    let Values::Double(back) = dec(C, D, &ours) else {
        unreachable!()
    };
    assert!(back[0] == 1.5 && back[1].is_nan() && back[2] == f64::INFINITY);
}

#[test]
fn decimals_that_java_does_not_read_back() {
    // 228.79999999999998 · 10 rounds to 2288, so Java writes d = 1, f = 8 (≥ 5: '1' + 1
    // bit, m 3) and every reader returns 228.8. Integer delta 228 - 1 = 227.
    let java = hex("c001 3ff8000000000000 6341830c");
    let Values::Double(back) = dec(C, D, &java) else {
        unreachable!()
    };
    assert_eq!(back, [1.5, 228.8]);
    // Written here on the XOR path: bits 0x406c999999999999 ^ 0x3ff8… = 0x7f94999999999999
    // (lz 1, tz 0): '11' 000001 111110 and 63 bits.
    let v = doubles(&[1.5, 228.79999999999998]);
    let ours = enc(C, D, &v);
    assert_eq!(ours, hex("9e02 3ff8000000000000 307eff29333333333332"));
    assert_eq!(bits64(&round_trip(C, D, &v)), bits64(&v));
}

#[test]
fn blocks_concatenate() {
    // Java's testBatchFlushForVariousBlockSizes: one block per flush, each from fresh state.
    let a = doubles(&[1.25, -3.5, f64::INFINITY]);
    let b = doubles(&[7.0, 7.0, 1e-300]);
    let mut s = enc(C, D, &a);
    s.extend(enc(C, D, &b));
    let Values::Double(back) = dec(C, D, &s) else {
        unreachable!()
    };
    assert_eq!(back, [1.25, -3.5, f64::INFINITY, 7.0, 7.0, 1e-300]);
    assert!(enc(C, D, &doubles(&[])).is_empty());
    assert_eq!(dec(C, D, &[]), doubles(&[]));
}

// ---------------------------------------------------------------------------------------
// The C++ fixture

/// (device, payload offset, payload length) of `enc_camel.tsfile`'s value pages (value
/// chunks UNCOMPRESSED; from `tsraw.py --json --pages`).
const PAGES: &[(&str, usize, usize)] = &[
    ("d1", 379, 1400),
    ("d1", 1841, 1417),
    ("d1", 3320, 977),
    ("d2", 4669, 1372),
    ("d2", 6103, 1384),
    ("d2", 7549, 998),
];

#[test]
fn cpp_pages_decode_and_reencode_identically() {
    let file = fixture("enc_camel");
    let rows = fixture_rows("enc_camel");
    let mut next = std::collections::HashMap::new();
    for &(dev, off, len) in PAGES {
        let page = page(&file, off, len);
        let stream = page.stream;
        let got = dec_exact(C, D, stream, page.count);
        let Values::Double(got_v) = &got else {
            unreachable!()
        };
        let dev_rows: Vec<&serde_json::Value> =
            rows.iter().filter(|r| r["tags"]["dev"] == dev).collect();
        let start = next.entry(dev).or_insert(0usize);
        let mut k = 0;
        for (p, &is) in page.present.iter().enumerate() {
            let want = &dev_rows[*start + p]["fields"]["v_double"];
            if is {
                assert_eq!(
                    want.as_f64().unwrap().to_bits(),
                    got_v[k].to_bits(),
                    "{dev} @{off}"
                );
                k += 1;
            } else {
                assert!(want.is_null());
            }
        }
        *start += page.positions;
        // The C++ writer's bytes exactly.
        assert!(
            enc(C, D, &got) == stream,
            "{dev} page @{off} re-encodes differently"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Corrupt streams

#[test]
fn corrupt_streams_are_errors() {
    let good = enc(C, D, &doubles(&[1.5, 2.25, 1e300, 1e300, -7.0]));
    // A block of 0 or a negative number of bits.
    assert!(decode_err(C, D, &hex("00")).to_string().contains("0 bits"));
    assert!(decode_err(C, D, &hex("01 00"))
        .to_string()
        .contains("-1 bits"));
    // Fewer bytes than the declared bits.
    let mut s = good.clone();
    s.pop();
    assert!(decode(C, D, &s, 1000, &mut Values::Double(vec![])).is_err());
    // Declared bits that end inside a value (the bytes are all there).
    // (`good` has a two-byte header: 64 < bits < 8192.)
    let declared = ((good[0] & 0x7f) as i32 | (good[1] as i32) << 7) >> 1;
    let mut s = Vec::new();
    colfile::tsfile::format::varint::put_varint(&mut s, declared - 1);
    s.extend(&good[2..]);
    assert!(decode_err(C, D, &s).to_string().contains("past its block"));
    // Fewer bits than the first value.
    assert!(decode_err(C, D, &hex("20 ffffffff"))
        .to_string()
        .contains("past its block"));
    // XOR path '10' before any window: 64 bits, then sign 0, type 0, '1', '0'.
    let e = decode_err(C, D, &hex("88 01 3ff8000000000000 20"));
    assert!(e.to_string().contains("'10'"), "{e}");
    // A window of 63 leading zeros and 64 bits.
    let e = decode_err(C, D, &hex("a0 02 3ff8000000000000 3fff ffffffffffffffff"));
    assert!(e.to_string().contains("window"), "{e}");
    // 16 decimal digits (d - 1 = 15): 64 bits, 01, varlong 0, 1111.
    let e = decode_err(C, D, &hex("9c 01 3ff8000000000000 403c"));
    assert!(e.to_string().contains("16 decimal digits"), "{e}");
    // A varlong of eleven groups, all continued.
    let mut s = hex("3ff8000000000000 7f");
    s.extend([0xff; 11]);
    let bits = (s.len() as i32 - 1) * 8 + 6;
    let mut v = Vec::new();
    colfile::tsfile::format::varint::put_varint(&mut v, bits);
    v.extend(s);
    assert!(decode_err(C, D, &v).to_string().contains("too long"));
    // max_values.
    let mut out = Values::Double(vec![]);
    assert!(decode(C, D, &good, 4, &mut out).is_err());
    assert!(out.len() <= 4);
    // A stream that is not whole blocks.
    let mut s = good.clone();
    s.push(0x80);
    assert!(decode(C, D, &s, 1000, &mut Values::Double(vec![])).is_err());
}

// ---------------------------------------------------------------------------------------
// Property round trips

/// Doubles with few decimal places (the decimal path), their neighbours one ulp away
/// (Java's lossy cases) and everything the generic strategy has.
fn camel_f64s() -> impl Strategy<Value = Vec<f64>> {
    let value = prop_oneof![
        f64s().prop_map(|v| v.first().copied().unwrap_or(0.0)),
        (-1e6f64..1e6, 0i32..7).prop_map(|(x, d)| {
            let p = 10f64.powi(d);
            (x * p).round() / p
        }),
        ((-1e4f64..1e4, 0i32..7), -3i64..=3).prop_map(|((x, d), k)| {
            let p = 10f64.powi(d);
            f64::from_bits(((x * p).round() / p).to_bits().wrapping_add(k as u64))
        }),
        Just(f64::NAN),
        Just(f64::from_bits(0xfff8_0000_0000_0005)),
        Just(0.0),
        Just(-0.0),
        Just(f64::MIN_POSITIVE),
        Just(f64::MIN),
        Just(i64::MAX as f64),
    ];
    prop_oneof![
        runs(value.clone(), 5, 60),
        proptest::collection::vec(value, 0..600),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn doubles_round_trip_exactly(v in camel_f64s()) {
        let vals = doubles(&v);
        let Values::Double(back) = round_trip(C, D, &vals) else { unreachable!() };
        prop_assert_eq!(back.len(), v.len());
        for (i, (x, y)) in v.iter().zip(&back).enumerate() {
            if x.is_nan() {
                prop_assert!(y.is_nan(), "{}: {} -> {}", i, x, y);
                // The first value keeps its bits; later NaNs keep their payload.
                if i == 0 {
                    prop_assert_eq!(x.to_bits(), y.to_bits());
                }
            } else {
                prop_assert_eq!(x.to_bits(), y.to_bits(), "{}: {} -> {}", i, x, y);
            }
        }
    }

    #[test]
    fn truncated_and_mutated_streams_never_panic(v in camel_f64s(), cut in any::<usize>(), flip in any::<(usize, u8)>()) {
        let s = enc(C, D, &doubles(&v));
        let mut out = Values::Double(vec![]);
        let _ = decode(C, D, &s[..cut % (s.len() + 1)], 700, &mut out);
        prop_assert!(out.len() <= 700);
        let mut m = s.clone();
        if !m.is_empty() {
            let n = m.len();
            m[flip.0 % n] ^= flip.1;
        }
        let mut out = Values::Double(vec![]);
        let _ = decode(C, D, &m, 700, &mut out);
        prop_assert!(out.len() <= 700);
    }
}
