//! RLBE (`spec/tsfile.md` §7.9): streams worked out by hand (values from Java's
//! `RLBEDecoderTest` where they are simple enough), the sign bit Java leaves clear, FLOAT
//! deltas taken on bit patterns as C++ 2.5 does (and what that makes of a Java stream),
//! the C++-written `enc_rlbe.tsfile` pages decoded and re-encoded byte for byte, block
//! boundaries, bit-exact property round trips for all six types, and corrupt streams.

use crate::helpers::{
    assert_page_rows_bits, bits64, check, d1_rows, dec, dec_exact, enc, f32s, f64s, fixture, hex,
    int32s, int64s, ints_round_trip, java_hybrid_ints, page, round_trip,
};
use colfile::tsfile::encoding::{decode, encode, EncodeOptions};
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use colfile::ErrorKind;
use proptest::prelude::*;

const R: Encoding = Encoding::Rlbe;

#[test]
fn hand_worked_streams() {
    // [7, 9, 11]: count 3; deltas 7 (3 bits), 2, 2 (2 bits). Segment L=3: 000011, run 1 =
    // F1 → '1' + '1', value 111. Segment L=2: 000010, run 2 = F2 → '01' + '1', values 10 10.
    // 00001111 11100001 00111010.
    check(
        R,
        DataType::Int32,
        Values::Int32(vec![7, 9, 11]),
        &hex("00000003 0f e1 3a"),
    );
    // [0, -1]: 0 is L=1 (000001 11 0); -1 is L=32 (100000 11) written with its sign bit
    // clear, as Java's `(v & 1 << 31) > 0` does: 0 then 31 ones; 7 bits of padding.
    check(
        R,
        DataType::Int32,
        Values::Int32(vec![0, -1]),
        &hex("00000002 07 41 bf ff ff ff 80"),
    );
    // testZeroNumber (DOUBLE): three 0.0s are one segment: L=1 in 7 bits (0000001), run 3
    // = F3 → '001' + '1', values 0 0 0, 2 bits of padding: 00000010 01100000.
    check(
        R,
        DataType::Double,
        Values::Double(vec![0.0; 3]),
        &hex("00000003 02 60"),
    );
    // The same for INT64 and TIMESTAMP (same 7-bit length codes).
    check(
        R,
        DataType::Timestamp,
        Values::Int64(vec![0; 3]),
        &hex("00000003 02 60"),
    );
}

#[test]
fn float_deltas_are_bit_pattern_deltas_as_in_cpp() {
    // [1.0, 2.0] as C++ writes it: 0x3f800000 (L=30: 011110 11, then 1111111 and 23
    // zeros), then the integer delta 0x40000000 - 0x3f800000 = 0x00800000 (L=24: 011000
    // 11, then 1 and 23 zeros), 2 bits of padding.
    check(
        R,
        DataType::Float,
        Values::Float(vec![1.0, 2.0]),
        &hex("00000002 7b fe 00 00 01 8e 00 00 00"),
    );
    // Java's FloatRLBE would store the float difference 1.0 (0x3f800000, also L=30): one
    // segment of run 2 (011110 011) and the pattern twice. Read as C++ reads it, the second
    // value is 0x3f800000 + 0x3f800000 = 0x7f000000: Java's FLOAT/DOUBLE RLBE streams do
    // not mean the same to C++ (or to us).
    let java = hex("00000002 79 ff 00 00 01 fc 00 00 00");
    assert_eq!(
        dec(R, DataType::Float, &java),
        Values::Float(vec![1.0, f32::from_bits(0x7f00_0000)])
    );
    // NaN payloads, -0.0 and infinities come back bit for bit.
    let odd = [
        f32::from_bits(0x7fc0_1234),
        -0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::MIN_POSITIVE,
    ];
    let Values::Float(got) = round_trip(R, DataType::Float, &Values::Float(odd.to_vec())) else {
        unreachable!()
    };
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    assert_eq!(bits(&got), bits(&odd));
}

#[test]
fn blocks_hold_ten_thousand_values() {
    // RLBEDecoderTest.testFloat: 10 000 values 7.101 + 2i are exactly one block; one more
    // starts a second block whose first value is raw again.
    for n in [9_999usize, 10_000, 10_001, 25_000] {
        let v: Vec<f32> = (0..n).map(|i| 7.101f32 + 2.0 * i as f32).collect();
        let b = enc(R, DataType::Float, &Values::Float(v.clone()));
        assert_eq!(
            u32::from_be_bytes(b[..4].try_into().unwrap()) as usize,
            n.min(10_000)
        );
        assert_eq!(
            round_trip(R, DataType::Float, &Values::Float(v.clone())),
            Values::Float(v)
        );
    }
    // A second block starts on a byte boundary with its own count.
    let v: Vec<i32> = vec![5; 10_001];
    let b = enc(R, DataType::Int32, &Values::Int32(v));
    // 10 000 values: L=3 for 5 (run 1), then L=1 for 9 999 zero deltas.
    assert_eq!(&b[b.len() - 6..b.len() - 2], &[0, 0, 0, 1]);
}

#[test]
fn java_hybrid_lists_round_trip() {
    // RLBEDecoderTest.setUp's float list (constant runs and +3 ramps, / 10000), repeated
    // pages as in testFloatRepeat, and the integer list behind it.
    let ints = java_hybrid_ints();
    let v = Values::Float(ints.iter().map(|&x| x as f32 / 10000.0).collect());
    assert_eq!(round_trip(R, DataType::Float, &v), v);
    let v = Values::Double(ints.iter().map(|&x| x as f64 / 1e15).collect());
    assert_eq!(round_trip(R, DataType::Double, &v), v);
    let v = Values::Int32(ints.iter().map(|&x| -x).collect());
    assert_eq!(round_trip(R, DataType::Int32, &v), v);
    let v = Values::Int64(ints.iter().map(|&x| x as i64 * 1_000_000_007).collect());
    assert_eq!(round_trip(R, DataType::Int64, &v), v);
}

// ---------------------------------------------------------------------------------------
// The C++ fixture

/// (column, type, payload offset, payload length) of device d1's value pages in
/// `enc_rlbe.tsfile` (value chunks UNCOMPRESSED; from `tsraw.py --json --pages`).
const PAGES: &[(&str, DataType, usize, usize)] = &[
    ("v_date", DataType::Date, 360, 461),
    ("v_date", DataType::Date, 867, 446),
    ("v_date", DataType::Date, 1359, 328),
    ("v_double", DataType::Double, 1764, 1449),
    ("v_double", DataType::Double, 3275, 1401),
    ("v_double", DataType::Double, 4738, 950),
    ("v_float", DataType::Float, 5748, 725),
    ("v_float", DataType::Float, 6519, 698),
    ("v_float", DataType::Float, 7263, 481),
    ("v_int32", DataType::Int32, 7804, 670),
    ("v_int32", DataType::Int32, 8520, 603),
    ("v_int32", DataType::Int32, 9169, 294),
    ("v_int64", DataType::Int64, 9539, 1111),
    ("v_int64", DataType::Int64, 10712, 1009),
    ("v_int64", DataType::Int64, 11783, 478),
    ("v_timestamp", DataType::Timestamp, 12341, 423),
    ("v_timestamp", DataType::Timestamp, 12826, 396),
    ("v_timestamp", DataType::Timestamp, 13284, 288),
];

#[test]
fn cpp_pages_decode_and_reencode_identically() {
    let file = fixture("enc_rlbe");
    let rows = d1_rows("enc_rlbe");
    let mut next_row = std::collections::HashMap::new();
    for &(column, t, off, len) in PAGES {
        let page = page(&file, off, len);
        let stream = page.stream;
        let got = dec_exact(R, t, stream, page.count);
        let start = next_row.entry(column).or_insert(0usize);
        assert_page_rows_bits(&page, t, &got, &rows, *start, column);
        *start += page.positions;
        let mut again = Vec::new();
        encode(R, t, &got, &EncodeOptions::default(), &mut again).unwrap();
        assert!(
            again == stream,
            "{column} page @{off} re-encodes differently"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Corrupt streams

#[test]
fn corrupt_streams_are_errors() {
    for (t, s) in [
        (DataType::Int32, "00000000"),          // a block of 0 values
        (DataType::Int32, "00000001 00"),       // length code 0
        (DataType::Int32, "00000001 84"),       // length code 33
        (DataType::Int64, "00000001 82"),       // length code 65
        (DataType::Int32, "00000001 0d f0"),    // run 2 (F2) in a block of 1
        (DataType::Int32, "00000003 0f e1"),    // cut in the second segment
        (DataType::Int32, "00000002 04 00 00"), // run code never ends
        (DataType::Int32, "000f4240 04 c0"),    // 10^6 values in 2 bytes
        (DataType::Float, "000000"),            // cut in the count
    ] {
        let mut out = Values::for_type(t).unwrap();
        let e = decode(R, t, &hex(s), 1 << 20, &mut out).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Corrupt { .. } | ErrorKind::Truncated { .. }
            ),
            "{s}: {e}"
        );
    }
    // More values than the caller allows is refused before reading them.
    let mut out = Values::for_type(DataType::Int32).unwrap();
    assert!(decode(R, DataType::Int32, &hex("00000003 0f e1 3a"), 2, &mut out).is_err());
    assert!(out.is_empty());
}

// ---------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn integers_round_trip(v32 in int32s(), v64 in int64s()) {
        ints_round_trip(R, &v32, &v64, &[DataType::Int64, DataType::Timestamp])?;
    }

    /// FLOAT/DOUBLE are exact, NaN payloads included: the deltas are taken on bit patterns.
    #[test]
    fn floats_round_trip_bit_exactly(d in f64s(), f in f32s()) {
        let v = Values::Double(d);
        prop_assert_eq!(bits64(&round_trip(R, DataType::Double, &v)), bits64(&v));
        let v = Values::Float(f);
        prop_assert_eq!(bits64(&round_trip(R, DataType::Float, &v)), bits64(&v));
    }
}
