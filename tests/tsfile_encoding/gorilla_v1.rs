//! GORILLA_V1 (Java only): streams worked out by hand for the values of Java's
//! `GorillaDecoderV1Test`, the page end (no extra byte when aligned), NaN handling,
//! property round trips for FLOAT and DOUBLE, and corrupt streams. There is no C++ codec,
//! so these byte vectors are the interop check.

use crate::helpers::{
    bits, canonical, dec, dec_exact, enc, f32s, f64s, hex, java_hybrid_ints, round_trip,
};
use colfile::tsfile::encoding::decode;
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use proptest::prelude::*;

const G: Encoding = Encoding::GorillaV1;

/// Hex bytes followed by a string of `0`/`1` fields (spaces ignored), packed MSB first;
/// the bits must make whole bytes, so every test spells out its padding.
fn stream(bytes: &str, fields: &str) -> Vec<u8> {
    let mut out = hex(bytes);
    out.extend(bits(fields));
    out
}

fn exact(t: DataType, s: &[u8], n: usize) -> Values {
    dec_exact(G, t, s, n)
}

#[test]
fn java_negative_numbers() {
    // testNegativeNumber: -7.101f, -9.101f, -11.101f (bits c0e33b64, c1119db2, c1319db2).
    // First value little-endian. Next XOR 01f2a6d6 (7 leading, 1 trailing zero) does not
    // fit the previous value's window (0 leading, 2 trailing) → '11' + 7 (5 bits) + length
    // 24 (6 bits) + 24 bits. XOR 00200000 fits c1119db2's window (0, 1) → '10' + its 31
    // bits. The NaN end marker 7fc00000: XOR bef19db2 fits (0, 1) → '10' + 31 bits.
    // 103 bits, 1 of padding.
    let x = -7.101f32;
    let v = Values::Float(vec![x, x - 2.0, x - 4.0]);
    let want = stream(
        "643be3c0",
        "11 00111 011000 111110010101001101101011 \
         10 0000000000100000000000000000000 \
         10 1011111011110001100111011011001 0",
    );
    assert_eq!(enc(G, DataType::Float, &v), want);
    assert_eq!(dec(G, DataType::Float, &want), v);
}

#[test]
fn java_zero_numbers_and_the_aligned_end() {
    // testZeroNumber: 0.0 three times. Two '0's, then the end marker 7ff8000000000000:
    // the previous value 0 has no window → '11' + 1 (6 bits) + length 12 (7 bits) + 12
    // bits; 29 bits, 3 of padding.
    let v = Values::Double(vec![0.0; 3]);
    let want = stream("0000000000000000", "0 0 11 000001 0001100 111111111111 000");
    assert_eq!(want, hex("0000000000000000 30467ff8"));
    assert_eq!(enc(G, DataType::Double, &v), want);
    assert_eq!(dec(G, DataType::Double, &want), v);
    // The same for FLOAT ends exactly on a byte: unlike GORILLA, no extra byte follows
    // (Java's `clearBuffer` writes only a partial byte; its reader fetches lazily).
    let v = Values::Float(vec![0.0; 3]);
    let want = stream("00000000", "0 0 11 00001 001001 111111111");
    assert_eq!(want, hex("00000000 3093ff"));
    assert_eq!(enc(G, DataType::Float, &v), want);
    assert_eq!(dec(G, DataType::Float, &want), v);
}

#[test]
fn nan_is_stored_canonically_and_read_as_data() {
    // 1.0f then NaN: XOR 40400000 (1 leading, 22 trailing) against 3f800000's window
    // (2, 23) → '11' + 1 + length 9 + 9 bits; the end marker repeats it → '0'; 1 of padding.
    let want = stream("0000803f", "11 00001 001001 100000001 0 0");
    for nan in [f32::NAN, -f32::NAN, f32::from_bits(0x7f80_0001)] {
        assert_eq!(
            enc(G, DataType::Float, &Values::Float(vec![1.0, nan])),
            want
        );
    }
    let Values::Float(got) = exact(DataType::Float, &want, 2) else {
        unreachable!()
    };
    assert!(got[0] == 1.0 && got[1].to_bits() == 0x7fc0_0000);
    // Without the count, a NaN with fewer than 8 bits after it is the end marker: these
    // bytes are also the stream of [1.0, NaN-marker], so `decode` gives one value.
    assert_eq!(dec(G, DataType::Float, &want), Values::Float(vec![1.0]));
    // A NaN with 8 or more bits after it is data either way (Java's reader would read
    // the 2.0 as another NaN: it stops fetching bytes after a NaN).
    let v = Values::Double(vec![1.0, f64::NAN, 2.0, 2.0]);
    let b = enc(G, DataType::Double, &v);
    for got in [dec(G, DataType::Double, &b), exact(DataType::Double, &b, 4)] {
        assert_eq!(canonical(&got), canonical(&v));
    }
}

#[test]
fn java_float_and_double_sequences_round_trip() {
    // testFloat / testDouble: 7.101f + 2i; and the hybrid list of repeats and steps.
    let f = Values::Float((0..10_000).map(|i| 7.101f32 + 2.0 * i as f32).collect());
    assert_eq!(round_trip(G, DataType::Float, &f), f);
    let d = Values::Double(
        (0..1000)
            .map(|i| 7.101f32 as f64 + 2.0 * i as f64)
            .collect(),
    );
    assert_eq!(round_trip(G, DataType::Double, &d), d);
    let h = Values::Float(
        java_hybrid_ints()
            .iter()
            .map(|&x| x as f32 / 10_000.0)
            .collect(),
    );
    assert_eq!(round_trip(G, DataType::Float, &h), h);
}

#[test]
fn corrupt_streams_are_errors() {
    let err = |t: DataType, s: &[u8]| {
        let mut out = Values::for_type(t).unwrap();
        decode(G, t, s, 100, &mut out).unwrap_err().to_string()
    };
    // '10' after 0.0, whose window is empty.
    assert!(err(DataType::Float, &stream("00000000", "10 000000")).contains("'10'"));
    // '11' with 31 leading zeros and 2 bits: 33 > 32.
    let e = err(
        DataType::Float,
        &stream("0000803f", "11 11111 000010 00000000000"),
    );
    assert!(e.contains("window"), "{e}");
    // Truncated first value; stream that never reaches a NaN.
    assert!(decode(
        G,
        DataType::Double,
        &[0; 7],
        10,
        &mut Values::Double(vec![])
    )
    .is_err());
    let mut s = enc(G, DataType::Float, &Values::Float(vec![1.0, 2.0, 3.0]));
    s.pop();
    assert!(decode(G, DataType::Float, &s, 100, &mut Values::Float(vec![])).is_err());
}

/// NaN-free values, which both decoding modes read back exactly.
fn finite(v: Values) -> Values {
    match v {
        Values::Float(v) => Values::Float(v.into_iter().filter(|x| !x.is_nan()).collect()),
        Values::Double(v) => Values::Double(v.into_iter().filter(|x| !x.is_nan()).collect()),
        v => v,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn floats_round_trip(d in f64s(), f in f32s()) {
        for (t, v) in [(DataType::Double, Values::Double(d)), (DataType::Float, Values::Float(f))] {
            // By count every value comes back, NaNs as the canonical NaN.
            let b = enc(G, t, &v);
            prop_assert_eq!(canonical(&exact(t, &b, v.len())), canonical(&v));
            let clean = finite(v);
            prop_assert_eq!(canonical(&round_trip(G, t, &clean)), canonical(&clean));
        }
    }
}
