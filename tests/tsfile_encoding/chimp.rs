//! CHIMP (`spec/tsfile.md` §7.7): hand-worked streams for values from Java's
//! `ChimpDecoderTest`, every case of the bit layout, sentinels as data, the C++-written
//! `enc_chimp.tsfile` pages decoded and re-encoded byte for byte, property round trips
//! for all six types, and corrupt streams.

use crate::helpers::{
    assert_page_rows_bits, bits, check, d1_rows, dec, dec_exact, decode_err, enc, f32s, f64s,
    fixture, has_nan, hex, int32s, int64s, ints_round_trip, java_hybrid_ints, page, round_trip,
    runs,
};
use colfile::tsfile::encoding::{decode, encode, EncodeOptions};
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use proptest::prelude::*;
use std::ops::{BitOr, Range, Shl};

const C: Encoding = Encoding::Chimp;

// ---------------------------------------------------------------------------------------
// Hand-worked streams. Field by field from the Java encoders: the sentinel (INT32
// 0x80000000, INT64 0x8000000000000000, FLOAT 0x7fc00000, DOUBLE 0x7ff8000000000000) is
// encoded as one more value, then padding to the byte (a whole `00` byte when aligned).

#[test]
fn java_single_values() {
    // testIntSingleValue, 777: first value raw; the sentinel's key (0) was never seen, so
    // it probes slot 0 (777: XOR 0x80000309, no trailing zeros) and falls back to the
    // previous value: leading zeros 0 (code 0), no stored count, so '11' + 000 + 32 bits.
    check(
        C,
        DataType::Int32,
        Values::Int32(vec![777]),
        &bits("00000000000000000000001100001001 11 000 10000000000000000000001100001001 000"),
    );
    // testFloatSingleValue, Float.MAX_VALUE 0x7f7fffff: XOR with the NaN sentinel is
    // 0x00bfffff, 8 leading zeros (code 1): '11' + 001 + the low 24 bits.
    check(
        C,
        DataType::Float,
        Values::Float(vec![f32::MAX]),
        &bits("01111111011111111111111111111111 11 001 101111111111111111111111 000"),
    );
    // testDoubleSingleValue, Double.MAX_VALUE 0x7fefffffffffffff: XOR 0x0017ffffffffffff,
    // 11 leading zeros rounded to 8 (code 1): '11' + 001 + the low 56 bits.
    check(
        C,
        DataType::Double,
        Values::Double(vec![f64::MAX]),
        &bits(
            "0111111111101111111111111111111111111111111111111111111111111111 11 001 \
             00010111111111111111111111111111111111111111111111111111 000",
        ),
    );
    // testLongSingleValue, Integer.MAX_VALUE + 10 = 0x80000009: XOR with the sentinel
    // 0x8000000080000009, leading zeros 0: '11' + 000 + 64 bits; 133 bits, 3 of padding.
    let v = i32::MAX as i64 + 10;
    let mut want = hex("0000000080000009");
    want.extend(bits(
        "11 000 1000000000000000000000000000000010000000000000000000000000001001 000",
    ));
    check(C, DataType::Int64, Values::Int64(vec![v]), &want);
}

#[test]
fn every_case_32() {
    // 5; 5: same key, XOR 0 → '00' + slot 0. 4101 = 5 + 4096: key 5 was last at
    // position 1, XOR 0x1000 has 12 > 11 trailing zeros → '01' + slot 1 + code 4 (19
    // leading zeros round to 18) + 2 meaningful bits + '01'. 4100: key 4 unseen, probes
    // slot 0 (XOR 0x1001) and falls back to the previous value: XOR 1, 24 leading zeros
    // (code 7), no stored count → '11' + 111 + 8 bits. 4103: XOR 3, same count → '10' +
    // 8 bits. Sentinel: XOR 0x80001007 → '11' + 000 + 32 bits; 118 bits, 2 of padding.
    check(
        C,
        DataType::Int32,
        Values::Int32(vec![5, 5, 4101, 4100, 4103]),
        &bits(
            "00000000000000000000000000000101 00 000000 01 000001 100 00010 01 \
             11 111 00000001 10 00000011 11 000 10000000000000000001000000000111 00",
        ),
    );
}

#[test]
fn every_case_64() {
    // The same walk at 64 bits: 16389 = 5 + 2^14 shares key 5 (14 bits), XOR 0x4000 has
    // 14 > 13 trailing zeros → '01' + slot 1 (7 bits) + code 7 (49 leading zeros) + 26
    // meaningful bits (6-bit field) + 26 bits of 1. Then '11' 111 + 40 bits, '10' + 40
    // bits, and the sentinel '11' 000 + 64 bits; 273 bits, 7 of padding.
    let mut want = hex("0000000000000005");
    want.extend(bits(
        "00 0000000 \
         01 0000001 111 011010 00000000000000000000000001 \
         11 111 0000000000000000000000000000000000000001 \
         10 0000000000000000000000000000000000000011 \
         11 000 1000000000000000000000000000000000000000000000000100000000000111 \
         0000000",
    ));
    check(
        C,
        DataType::Timestamp,
        Values::Int64(vec![5, 5, 16389, 16388, 16391]),
        &want,
    );
}

#[test]
fn sentinels_are_data_and_the_final_byte_is_always_written() {
    // i32::MIN alone: the sentinel repeats slot 0 → '00' + 000000, 40 bits, so the
    // padding is a whole zero byte.
    check(
        C,
        DataType::Int32,
        Values::Int32(vec![i32::MIN]),
        &hex("80000000 00 00"),
    );
    // Twice: the second is data (16 bits follow it), then the sentinel repeats slot 1.
    check(
        C,
        DataType::Date,
        Values::Int32(vec![i32::MIN, i32::MIN]),
        &hex("80000000 00 01 00"),
    );
    // A sentinel followed by more than 8 bits is data, so `decode` reads these exactly.
    let v = Values::Int64(vec![7, i64::MIN, 7, i64::MIN, i64::MIN, 0]);
    assert_eq!(dec(C, DataType::Int64, &enc(C, DataType::Int64, &v)), v);
    // The canonical NaN is stored as the quiet NaN with payload 1, as GORILLA does.
    let b = enc(C, DataType::Float, &Values::Float(vec![f32::NAN, 1.5]));
    assert_eq!(&b[..4], hex("7fc00001"));
    let Values::Float(got) = dec(C, DataType::Float, &b) else {
        unreachable!()
    };
    assert!(got[0].is_nan() && got[1] == 1.5);
}

#[test]
fn java_hybrid_lists_round_trip() {
    // ChimpDecoderTest's lists: runs of repeats and steps of 3 from 2000.
    let i = java_hybrid_ints();
    let f = i.iter().map(|&x| x as f32 / 10_000.0).collect();
    let d = i.iter().map(|&x| x as f64 / 1e15).collect();
    let l = i.iter().map(|&x| x as i64).collect();
    for (t, v) in [
        (DataType::Float, Values::Float(f)),
        (DataType::Double, Values::Double(d)),
        (DataType::Int32, Values::Int32(i)),
        (DataType::Int64, Values::Int64(l)),
    ] {
        assert_eq!(round_trip(C, t, &v), v, "{t}");
    }
    // And 10 000 values (Java's largest iteration count), long past the ring's size.
    let v = Values::Int64(
        (0..10_000i64)
            .map(|k| k * k % 9973 * 16384 + k % 5)
            .collect(),
    );
    assert_eq!(round_trip(C, DataType::Int64, &v), v);
}

// ---------------------------------------------------------------------------------------
// The C++ fixture

/// (column, type, payload offset, payload length) of device d1's value pages in
/// `enc_chimp.tsfile` (value chunks UNCOMPRESSED; from `tsraw.py --json --pages`).
const PAGES: &[(&str, DataType, usize, usize)] = &[
    ("v_date", DataType::Date, 361, 575),
    ("v_date", DataType::Date, 982, 549),
    ("v_date", DataType::Date, 1577, 420),
    ("v_double", DataType::Double, 2074, 1170),
    ("v_double", DataType::Double, 3306, 1171),
    ("v_double", DataType::Double, 4539, 796),
    ("v_float", DataType::Float, 5395, 704),
    ("v_float", DataType::Float, 6145, 680),
    ("v_float", DataType::Float, 6871, 497),
    ("v_int32", DataType::Int32, 7428, 709),
    ("v_int32", DataType::Int32, 8183, 598),
    ("v_int32", DataType::Int32, 8827, 359),
    ("v_int64", DataType::Int64, 9262, 1485),
    ("v_int64", DataType::Int64, 10809, 1279),
    ("v_int64", DataType::Int64, 12150, 765),
    ("v_timestamp", DataType::Timestamp, 12995, 1321),
    ("v_timestamp", DataType::Timestamp, 14378, 1319),
    ("v_timestamp", DataType::Timestamp, 15759, 975),
];

#[test]
fn cpp_pages_decode_and_reencode_identically() {
    let file = fixture("enc_chimp");
    let rows = d1_rows("enc_chimp");
    let mut next_row = std::collections::HashMap::new();
    let mut same = 0;
    for &(column, t, off, len) in PAGES {
        let page = page(&file, off, len);
        let (stream, count) = (page.stream, page.count);
        let got = dec_exact(C, t, stream, count);
        // The sentinel test alone finds the end here too: no page is ambiguous.
        let mut up_to = Values::for_type(t).unwrap();
        decode(C, t, stream, count, &mut up_to).unwrap();
        assert_eq!(format!("{up_to:?}"), format!("{got:?}"), "{column} @{off}");
        let start = next_row.entry(column).or_insert(0usize);
        assert_page_rows_bits(&page, t, &got, &rows, *start, column);
        *start += page.positions;
        let mut again = Vec::new();
        encode(C, t, &got, &EncodeOptions::default(), &mut again).unwrap();
        // C++ stores the canonical NaN as is; we store another NaN (see the module doc).
        if !has_nan(&got) {
            assert!(
                again == stream,
                "{column} page @{off} re-encodes differently"
            );
            same += 1;
        }
    }
    assert!(same >= 14, "only {same} pages compared");
}

// ---------------------------------------------------------------------------------------
// Corrupt streams

#[test]
fn corrupt_streams_are_errors() {
    // '10' before any leading-zero count.
    let e = decode_err(
        C,
        DataType::Int32,
        &bits("00000000000000000000000000000101 10 000000"),
    );
    assert!(e.to_string().contains("'10'"), "{e}");
    // '01' with code 7 (24 leading zeros) and 20 meaningful bits: 44 > 32.
    let e = decode_err(
        C,
        DataType::Int32,
        &bits("00000000000000000000000000000101 01 000000 111 10100 00000000"),
    );
    assert!(e.to_string().contains("window"), "{e}");
    // No end: values run to the end of the bytes.
    let mut s = enc(C, DataType::Int32, &Values::Int32(vec![1, 2, 3]));
    s.pop();
    assert!(decode(C, DataType::Int32, &s, 1000, &mut Values::Int32(vec![])).is_err());
    // Fewer bits than the first value.
    assert!(decode(
        C,
        DataType::Int64,
        &[1, 2, 3],
        10,
        &mut Values::Int64(vec![])
    )
    .is_err());
}

// ---------------------------------------------------------------------------------------
// Property round trips

/// Values whose low bits repeat, so ring matches (case '01') are common: `hi << shift | lo`
/// for small `hi` and `lo`, any value and the extremes `min` and `max`.
fn keyed<T>(shift: u32, min: T, max: T) -> impl Strategy<Value = Vec<T>>
where
    T: Arbitrary + Clone + std::fmt::Debug + From<i8> + Shl<u32, Output = T> + BitOr<Output = T>,
    Range<T>: Strategy<Value = T>,
{
    let v = prop_oneof![
        (T::from(0)..T::from(8), T::from(0)..T::from(4)).prop_map(move |(hi, lo)| hi << shift | lo),
        any::<T>(),
        Just(min),
        Just(max),
    ];
    runs(v, 4, 200)
}

fn keyed32() -> impl Strategy<Value = Vec<i32>> {
    keyed(20, i32::MIN, i32::MAX)
}

fn keyed64() -> impl Strategy<Value = Vec<i64>> {
    keyed(40, i64::MIN, i64::MAX)
}

/// Raw bits, except the canonical NaN, which CHIMP stores as the NaN with payload 1.
fn stored_bits(v: &Values) -> Vec<u64> {
    match v {
        Values::Float(v) => v
            .iter()
            .map(|x| match x.to_bits() {
                0x7fc0_0000 => 0x7fc0_0001,
                b => b as u64,
            })
            .collect(),
        Values::Double(v) => v
            .iter()
            .map(|x| match x.to_bits() {
                0x7ff8_0000_0000_0000 => 0x7ff8_0000_0000_0001,
                b => b,
            })
            .collect(),
        _ => unreachable!(),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    #[test]
    fn integers_round_trip(a in int32s(), b in int64s(), c in keyed32(), d in keyed64()) {
        for (v32, v64) in [(a, b), (c, d)] {
            ints_round_trip(C, &v32, &v64, &[DataType::Int64, DataType::Timestamp])?;
        }
    }

    #[test]
    fn floats_round_trip(d in f64s(), f in f32s()) {
        let vd = Values::Double(d);
        prop_assert_eq!(stored_bits(&round_trip(C, DataType::Double, &vd)), stored_bits(&vd));
        let vf = Values::Float(f);
        prop_assert_eq!(stored_bits(&round_trip(C, DataType::Float, &vf)), stored_bits(&vf));
    }
}
