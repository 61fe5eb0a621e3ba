//! TsFile value encodings (`spec/tsfile.md` §7): the spec's byte examples, Java's RLE
//! state machine, property round trips for every encoding × type, corrupt and truncated
//! streams, and pages of the C++-written `fixtures/tsfile/enc_*.tsfile` files decoded and
//! compared with their `.expected.jsonl` values.

use colfile::tsfile::encoding::{decode, decode_exact, encode, supports, EncodeOptions};
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::{BinaryValues, Values};
use colfile::ErrorKind;
use proptest::prelude::*;

mod camel;
mod chimp;
mod corrupt_and_props;
mod cpp_pages;
mod gorilla_v1;
mod helpers;
mod regular;
mod rlbe;
mod sprintz;

use helpers::{
    bits64, canonical, d1_rows, dec, dec_exact, enc, enc_mpn, f32s, f64s, fixture, has_nan, hex,
    int32s, int64s, ints_round_trip, json_f64, page, round_trip, runs,
};

fn bin(items: &[&[u8]]) -> Values {
    Values::Binary(items.iter().copied().collect::<BinaryValues>())
}

// ---------------------------------------------------------------------------------------
// Spec byte examples

#[test]
fn spec_14_time_block() {
    let times: Vec<i64> = (0..10).map(|i| 1000 + 10 * i).collect();
    let bytes = enc(
        Encoding::Ts2Diff,
        DataType::Vector,
        &Values::Int64(times.clone()),
    );
    assert_eq!(
        bytes,
        hex("00000009 00000000 000000000000000a 00000000000003e8")
    );
    assert_eq!(
        dec(Encoding::Ts2Diff, DataType::Vector, &bytes),
        Values::Int64(times)
    );
}

#[test]
fn spec_14_int64_values() {
    let v = Values::Int64(vec![1, 3, 5, 7, 9]);
    let bytes = enc(Encoding::Ts2Diff, DataType::Int64, &v);
    assert_eq!(
        bytes,
        hex("00000004 00000000 0000000000000002 0000000000000001")
    );
    assert_eq!(dec(Encoding::Ts2Diff, DataType::Int64, &bytes), v);
}

#[test]
fn spec_14_boolean_rle() {
    let v = Values::Boolean((0..10).map(|i| i % 2 == 1).collect());
    let bytes = enc(Encoding::Rle, DataType::Boolean, &v);
    assert_eq!(bytes, hex("05 01 05 02 55 40"));
    assert_eq!(dec(Encoding::Rle, DataType::Boolean, &bytes), v);
}

#[test]
fn ts2diff_single_value_blocks_java_max_and_cpp_zero() {
    let b64 = enc(Encoding::Ts2Diff, DataType::Int64, &Values::Int64(vec![42]));
    assert_eq!(
        b64,
        hex("00000000 00000000 7fffffffffffffff 000000000000002a")
    );
    let b32 = enc(Encoding::Ts2Diff, DataType::Int32, &Values::Int32(vec![42]));
    assert_eq!(b32, hex("00000000 00000000 7fffffff 0000002a"));
    // C++ writes min_delta 0 there; both decode the same.
    let cpp = hex("00000000 00000000 0000000000000000 000000000000002a");
    assert_eq!(
        dec(Encoding::Ts2Diff, DataType::Int64, &cpp),
        Values::Int64(vec![42])
    );
    assert_eq!(
        dec(Encoding::Ts2Diff, DataType::Int64, &b64),
        Values::Int64(vec![42])
    );
}

#[test]
fn ts2diff_blocks_of_129() {
    for n in [128usize, 129, 130, 258, 259, 300] {
        let v: Vec<i64> = (0..n as i64).map(|i| i * i * 7 - 3 * i).collect();
        let bytes = enc(
            Encoding::Ts2Diff,
            DataType::Int64,
            &Values::Int64(v.clone()),
        );
        // Block headers: the first block holds min(n, 129) values.
        let first_n = i32::from_be_bytes(bytes[0..4].try_into().unwrap());
        assert_eq!(first_n as usize, n.min(129) - 1);
        assert_eq!(
            dec(Encoding::Ts2Diff, DataType::Int64, &bytes),
            Values::Int64(v)
        );
    }
    // 130 values: the second block is a single value with min_delta = MAX.
    let v: Vec<i32> = (0..130).collect();
    let bytes = enc(Encoding::Ts2Diff, DataType::Int32, &Values::Int32(v));
    let tail = &bytes[bytes.len() - 16..];
    assert_eq!(tail, &hex("00000000 00000000 7fffffff 00000081")[..]);
}

#[test]
fn gorilla_one_value_page() {
    let bytes = enc(Encoding::Gorilla, DataType::Int32, &Values::Int32(vec![7]));
    assert_eq!(bytes, hex("00000007 c1 f8 00 00 00 70"));
    assert_eq!(
        dec(Encoding::Gorilla, DataType::Int32, &bytes),
        Values::Int32(vec![7])
    );
}

#[test]
fn gorilla_writes_the_final_byte_even_when_aligned() {
    // For every page length, the stream ends with the sentinel then 1..=8 padding bits.
    for n in 1..40usize {
        let v: Vec<i64> = (0..n as i64).map(|i| i * 3 + (i & 1) * 1000).collect();
        let bytes = enc(
            Encoding::Gorilla,
            DataType::Int64,
            &Values::Int64(v.clone()),
        );
        assert_eq!(
            dec(Encoding::Gorilla, DataType::Int64, &bytes),
            Values::Int64(v.clone())
        );
        let mut out = Values::for_type(DataType::Int64).unwrap();
        decode_exact(Encoding::Gorilla, DataType::Int64, &bytes, n, &mut out).unwrap();
        assert_eq!(out, Values::Int64(v));
        // Dropping the final byte must not be accepted silently as the same page.
        let mut out = Values::for_type(DataType::Int64).unwrap();
        let short = decode(
            Encoding::Gorilla,
            DataType::Int64,
            &bytes[..bytes.len() - 1],
            1000,
            &mut out,
        );
        assert!(short.is_err() || out.len() != n || bytes.last() == Some(&0));
    }
}

/// Integer sentinels are stored as data, as the C++ writer stores them: a count-driven read
/// (`decode_exact`, the C++ reader's way) gives them back, while a sentinel-driven read
/// (Java's way) ends the page there.
#[test]
fn gorilla_stores_integer_sentinels_as_data_and_remaps_canonical_nan() {
    let cases = [
        (DataType::Int32, Values::Int32(vec![1, i32::MIN, 3])),
        (DataType::Date, Values::Int32(vec![i32::MIN])),
        (DataType::Int64, Values::Int64(vec![i64::MIN, 2])),
        (DataType::Timestamp, Values::Int64(vec![5, i64::MIN, 7])),
    ];
    for (t, v) in cases {
        let bytes = enc(Encoding::Gorilla, t, &v);
        let mut exact = Values::for_type(t).unwrap();
        decode_exact(Encoding::Gorilla, t, &bytes, v.len(), &mut exact).unwrap();
        assert_eq!(exact, v, "{t}");
    }
    // The canonical NaN is stored as NaN with payload 1 and reads back as a NaN.
    let v = Values::Float(vec![1.0, f32::from_bits(0x7fc0_0000), 2.0]);
    let Values::Float(got) = dec(
        Encoding::Gorilla,
        DataType::Float,
        &enc(Encoding::Gorilla, DataType::Float, &v),
    ) else {
        panic!()
    };
    assert_eq!(
        got.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        [1f32.to_bits(), 0x7fc0_0001, 2f32.to_bits()]
    );
    let v = Values::Double(vec![f64::NAN]);
    let Values::Double(got) = dec(
        Encoding::Gorilla,
        DataType::Double,
        &enc(Encoding::Gorilla, DataType::Double, &v),
    ) else {
        panic!()
    };
    assert_eq!(got[0].to_bits(), 0x7ff8_0000_0000_0001);
    // Other NaNs keep their bits (GORILLA stores raw bits).
    let odd = f64::from_bits(0x7ff8_0000_0000_0002);
    let bytes = enc(
        Encoding::Gorilla,
        DataType::Double,
        &Values::Double(vec![odd, -0.0]),
    );
    match dec(Encoding::Gorilla, DataType::Double, &bytes) {
        Values::Double(v) => assert_eq!(
            v.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
            [odd.to_bits(), (-0.0f64).to_bits()]
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn plain_examples() {
    let b = enc(
        Encoding::Plain,
        DataType::Int32,
        &Values::Int32(vec![0, -1, 1, i32::MIN]),
    );
    assert_eq!(b, hex("00 01 02 ff ff ff ff 0f"));
    let b = enc(
        Encoding::Plain,
        DataType::Date,
        &Values::Int32(vec![20240229]),
    );
    assert_eq!(
        dec(Encoding::Plain, DataType::Date, &b),
        Values::Int32(vec![20240229])
    );
    let b = enc(
        Encoding::Plain,
        DataType::Timestamp,
        &Values::Int64(vec![-2]),
    );
    assert_eq!(b, hex("fffffffffffffffe"));
    let b = enc(
        Encoding::Plain,
        DataType::Float,
        &Values::Float(vec![1.0, f32::from_bits(0xffc0_0001)]),
    );
    assert_eq!(
        b,
        hex("3f800000 7fc00000"),
        "NaN written as Java's canonical NaN"
    );
    let b = enc(
        Encoding::Plain,
        DataType::Double,
        &Values::Double(vec![-0.0]),
    );
    assert_eq!(b, hex("8000000000000000"));
    let b = enc(
        Encoding::Plain,
        DataType::Boolean,
        &Values::Boolean(vec![true, false]),
    );
    assert_eq!(b, [1, 0]);
    let b = enc(Encoding::Plain, DataType::Text, &bin(&[b"", b"hi"]));
    assert_eq!(b, hex("00 04 68 69"));
    assert_eq!(
        dec(Encoding::Plain, DataType::Object, &b),
        bin(&[b"", b"hi"])
    );
}

#[test]
fn dictionary_example() {
    let v = bin(&[b"b", b"a", b"b", b"b"]);
    let bytes = enc(Encoding::Dictionary, DataType::String, &v);
    // 2 entries "b", "a"; RLE of 0,1,0,0 at width 1: one group 0100 0000, 4 valid.
    assert_eq!(bytes, hex("04 02 62 02 61  04 01 03 04 40"));
    assert_eq!(dec(Encoding::Dictionary, DataType::String, &bytes), v);
    assert_eq!(dec(Encoding::Dictionary, DataType::Blob, &bytes), v);
}

// ---------------------------------------------------------------------------------------
// Java's RLE state machine

fn rle32(v: &[i32]) -> Vec<u8> {
    enc(Encoding::Rle, DataType::Int32, &Values::Int32(v.to_vec()))
}

#[test]
fn rle_runs_of_eight_or_more() {
    assert_eq!(
        rle32(&[0; 8]),
        hex("03 01 10 00"),
        "leading zeros repeat the initial 0"
    );
    assert_eq!(rle32(&[1; 8]), hex("03 01 10 01"));
    // Seven repeats stay bit-packed.
    assert_eq!(rle32(&[1; 7]), hex("04 01 03 07 fe"));
    // A run of 10 fives, then one 7 in a bit-packed group (width 3).
    let mut v = vec![5; 10];
    v.push(7);
    assert_eq!(rle32(&v), hex("08 03 14 05 03 01 e0 00 00"));
}

#[test]
fn rle_run_capped_at_0x7fff() {
    let v = vec![3; 0x8000 + 5];
    assert_eq!(rle32(&v), hex("09 02 fe ff 03 03 03 06 ff f0"));
    assert_eq!(
        dec(Encoding::Rle, DataType::Int32, &rle32(&v)),
        Values::Int32(v)
    );
}

#[test]
fn rle_bit_packed_run_capped_at_63_groups() {
    let v: Vec<i32> = (0..515).map(|i| i % 2).collect();
    let mut want = hex("46 01 7f 08");
    want.extend([0x55; 63]);
    want.extend(hex("05 03 55 40"));
    assert_eq!(rle32(&v), want);
    assert_eq!(dec(Encoding::Rle, DataType::Int32, &want), Values::Int32(v));
}

#[test]
fn rle_value_byte_order() {
    // INT32 run values are little-endian, INT64 big-endian (spec §7.3).
    let v32 = vec![0x0102; 8];
    assert_eq!(rle32(&v32), hex("04 09 10 02 01"));
    let v64 = Values::Int64(vec![0x0102; 8]);
    let b = enc(Encoding::Rle, DataType::Int64, &v64);
    assert_eq!(b, hex("04 09 10 01 02"));
    assert_eq!(dec(Encoding::Rle, DataType::Int64, &b), v64);
    // Negative values force the full width.
    let b = rle32(&[-1; 8]);
    assert_eq!(b, hex("06 20 10 ff ff ff ff"));
    assert_eq!(
        dec(Encoding::Rle, DataType::Int32, &b),
        Values::Int32(vec![-1; 8])
    );
}

#[test]
fn rle_decoder_reads_concatenated_streams() {
    let mut b = rle32(&[1, 2, 3]);
    b.extend(rle32(&[9; 20]));
    let mut want = vec![1, 2, 3];
    want.extend([9; 20]);
    assert_eq!(dec(Encoding::Rle, DataType::Int32, &b), Values::Int32(want));
}

// ---------------------------------------------------------------------------------------
// FLOAT/DOUBLE wrapper

#[test]
fn float_wrapper_forms() {
    // Form 1: all scaled by 10^2.
    let v = Values::Double(vec![1.5, 2.25]);
    let b = enc(Encoding::Ts2Diff, DataType::Double, &v);
    assert_eq!(
        b,
        hex("02 00000001 00000000 000000000000004b 0000000000000096")
    );
    assert_eq!(dec(Encoding::Ts2Diff, DataType::Double, &b), v);
    // Form 2: 1e8 * 100 overflows INT32 but 1e8 fits, so it is stored rounded.
    let v = Values::Float(vec![1e8, 1.0]);
    let b = enc(Encoding::Ts2Diff, DataType::Float, &v);
    assert_eq!(&b[..8], &hex("ff ff ff ff 07 02 02 02")[..]);
    assert_eq!(dec(Encoding::Ts2Diff, DataType::Float, &b), v);
    // Form 3: NaN and infinities keep their bits.
    let v = Values::Double(vec![f64::NAN, 1.0, f64::INFINITY, f64::NEG_INFINITY, 1e300]);
    let b = enc(Encoding::Rle, DataType::Double, &v);
    assert_eq!(&b[..9], &hex("fe ff ff ff 07 05 02 1d 02")[..]);
    let Values::Double(got) = dec(Encoding::Rle, DataType::Double, &b) else {
        panic!()
    };
    assert!(got[0].is_nan());
    assert_eq!(&got[1..], &[1.0, f64::INFINITY, f64::NEG_INFINITY, 1e300]);
    // mpn <= 0: scale 1, a leading 00.
    let b = enc_mpn(
        Encoding::Ts2Diff,
        DataType::Double,
        &Values::Double(vec![2.6, -2.5]),
        -3,
    );
    assert_eq!(b[0], 0);
    assert_eq!(
        dec(Encoding::Ts2Diff, DataType::Double, &b),
        Values::Double(vec![3.0, -2.0])
    );
}

#[test]
fn float_wrapper_java_rounding() {
    // Math.round: ties toward +inf, and 0.49999999999999994 rounds to 0.
    let v = Values::Double(vec![0.49999999999999994, -0.5, 0.5, -1.5]);
    let b = enc_mpn(Encoding::Ts2Diff, DataType::Double, &v, 0);
    assert_eq!(
        dec(Encoding::Ts2Diff, DataType::Double, &b),
        Values::Double(vec![0.0, 0.0, 1.0, -1.0])
    );
}

// ---------------------------------------------------------------------------------------
// Dispatch

#[test]
fn supports_matrix_and_mismatches() {
    assert!(supports(Encoding::Plain, DataType::Object));
    assert!(!supports(Encoding::Plain, DataType::Unknown));
    assert!(supports(Encoding::Ts2Diff, DataType::Vector));
    assert!(!supports(Encoding::Ts2Diff, DataType::Boolean));
    assert!(supports(Encoding::Rle, DataType::Boolean));
    assert!(supports(Encoding::Gorilla, DataType::Date));
    assert!(!supports(Encoding::Dictionary, DataType::Int32));
    assert!(!supports(Encoding::Chimp, DataType::Boolean));
    assert!(!supports(Encoding::GorillaV1, DataType::Int32));
    let mut out = Vec::new();
    let e = encode(
        Encoding::Chimp,
        DataType::Boolean,
        &Values::Boolean(vec![]),
        &EncodeOptions::default(),
        &mut out,
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Unsupported(_)));
    let e = encode(
        Encoding::Plain,
        DataType::Int64,
        &Values::Int32(vec![1]),
        &EncodeOptions::default(),
        &mut out,
    )
    .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)));
    let mut v = Values::Int32(vec![]);
    assert!(decode(Encoding::Plain, DataType::Int64, &[0; 8], 10, &mut v).is_err());
}
