//! REGULAR (`spec/tsfile.md` §7.11): blocks worked out by hand for the values of Java's
//! `RegularDataEncoderIntegerTest` / `RegularDataEncoderLongTest`, a line-by-line model of
//! Java's block writer that the encoder must match on the sequences REGULAR is meant for,
//! Java's reader quirks, exact storage of other data, round trips and corrupt streams.

use crate::helpers::{dec, enc, hex, int32s, int64s, ints_round_trip, round_trip};
use colfile::tsfile::encoding::decode;
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use proptest::prelude::*;

const R: Encoding = Encoding::Regular;

fn check32(v: &[i32], stream: &str) {
    let vals = Values::Int32(v.to_vec());
    for t in [DataType::Int32, DataType::Date] {
        assert_eq!(enc(R, t, &vals), hex(stream), "{v:?}");
        assert_eq!(dec(R, t, &hex(stream)), vals);
    }
}

fn check64(v: &[i64], stream: &str) {
    let vals = Values::Int64(v.to_vec());
    for t in [DataType::Int64, DataType::Timestamp] {
        assert_eq!(enc(R, t, &vals), hex(stream), "{v:?}");
        assert_eq!(dec(R, t, &hex(stream)), vals);
    }
}

// ---------------------------------------------------------------------------------------
// Hand-worked blocks: u8 missing, [i32 bitmap length, BitSet bytes (bit k = bit k % 8 of
// byte k / 8)], i32 count, min_delta, first (big-endian).

#[test]
fn java_missing_points_data_size() {
    // testMissingPointsDataSize {1000, 1100, 1200, 1300, 1500, 2000}: deltas 100 (×3), 200,
    // 500, so points are missing; min delta 100, (2000 - 1000) / 100 + 1 = 11 positions;
    // present at 0, 1, 2, 3, 5 and 10: bytes 0b00101111, 0b00000100.
    check32(
        &[1000, 1100, 1200, 1300, 1500, 2000],
        "01 00000002 2f04 0000000b 00000064 000003e8",
    );
    check64(
        &[1000, 1100, 1200, 1300, 1500, 2000],
        "01 00000002 2f04 0000000b 0000000000000064 00000000000003e8",
    );
}

#[test]
fn java_without_missing_points() {
    // testRegularEncodingWithoutMissingPoint (0, 1, 2, …; 300 here): blocks of 128 with
    // delta 1, the last one 44 values.
    let v: Vec<i32> = (0..300).collect();
    check32(
        &v,
        "00 00000080 00000001 00000000 \
         00 00000080 00000001 00000080 \
         00 0000002c 00000001 00000100",
    );
}

#[test]
fn java_one_percent_missing_first_block() {
    // getMissingPointData(n, 80) drops every i % 80 == 0: the first 128 values are 1..=79,
    // 81..=129, so min delta 1, 129 positions (17 bytes), all set but position 79 (byte 9 =
    // 0x7f), position 128 alone in byte 16.
    let v: Vec<i64> = (1..=129).filter(|i| i % 80 != 0).collect();
    assert_eq!(v.len(), 128);
    check64(
        &v,
        "01 00000011 ffffffffffffffffff 7f ffffffffffff 01 00000081 \
         0000000000000001 0000000000000001",
    );
}

#[test]
fn single_and_two_value_blocks() {
    // One value: min delta stays Java's reset value, MAX_VALUE.
    check32(&[7], "00 00000001 7fffffff 00000007");
    check64(&[7], "00 00000001 7fffffffffffffff 0000000000000007");
    // Two values are always regular; deltas wrap.
    check32(&[5, -3], "00 00000002 fffffff8 00000005");
    check32(&[i32::MAX, i32::MIN], "00 00000002 00000001 7fffffff");
    assert!(enc(R, DataType::Int32, &Values::Int32(vec![])).is_empty());
}

#[test]
fn irregular_data_is_stored_exactly() {
    // {0, 3, 5, 6}: deltas 3, 2, 1 are multiples of 1, so one exact block as Java writes
    // it: 7 positions, present at 0, 3, 5, 6 (0b01101001).
    check32(&[0, 3, 5, 6], "01 00000001 69 00000007 00000001 00000000");
    // {0, 2, 5}: Java writes min delta 2, 5 / 2 + 1 = 3 positions, all set, which every
    // reader returns as {0, 2, 4}.
    let java = hex("01 00000001 07 00000003 00000002 00000000");
    assert_eq!(dec(R, DataType::Int32, &java), Values::Int32(vec![0, 2, 4]));
    // Here: the longest exact prefix {0, 2}, then {5}.
    check32(
        &[0, 2, 5],
        "00 00000002 00000002 00000000 00 00000001 7fffffff 00000005",
    );
}

#[test]
fn java_reader_quirks() {
    // A missing-points block of two positions holds only `first` (Java's reader counts
    // `count - 2` more values).
    let s = hex("01 00000001 03 00000002 00000005 00000009");
    assert_eq!(dec(R, DataType::Int32, &s), Values::Int32(vec![9]));
    // Position 0's bit and bits past the last position are ignored; any byte but 1 means
    // "no points missing".
    let s = hex("01 00000002 fe ff 00000009 00000001 00000000");
    assert_eq!(dec(R, DataType::Int32, &s), Values::Int32((0..9).collect()));
    let s = hex("02 00000003 00000001 00000000");
    assert_eq!(dec(R, DataType::Int32, &s), Values::Int32(vec![0, 1, 2]));
}

#[test]
fn corrupt_blocks_are_errors() {
    let err = |s: &str| {
        let mut out = Values::Int32(vec![]);
        decode(R, DataType::Int32, &hex(s), 1000, &mut out).unwrap_err()
    };
    assert!(err("00 00000000 00000001 00000000")
        .to_string()
        .contains("0 values"));
    assert!(err("00 ffffffff 00000001 00000000")
        .to_string()
        .contains("-1 values"));
    assert!(err("01 ffffffff").to_string().contains("-1 bytes"));
    err("01 00000005 ff"); // bitmap shorter than declared
    assert!(err("01 00000001 ff 00000009 00000001 00000000")
        .to_string()
        .contains("last position 8"));
    assert!(err("01 00000001 ff 00000001 00000001 00000000")
        .to_string()
        .contains("1 positions"));
    err("00 00000003 00000001"); // header cut short
                                 // A count of 2^31 - 1 from 13 bytes is refused before anything is produced.
    let mut out = Values::Int64(vec![]);
    let s = hex("00 7fffffff 0000000000000001 0000000000000000");
    assert!(decode(R, DataType::Int64, &s, 10_000, &mut out).is_err());
    assert!(out.is_empty());
}

// ---------------------------------------------------------------------------------------
// Java's writer, line by line (`RegularDataEncoder.IntRegularEncoder`: blocks of 128,
// `checkMissingPoint`, `data2Diff`, `BitSet.toByteArray`), for the data it is exact on.

fn java_blocks(data: &[i64]) -> Vec<u8> {
    let mut out = Vec::new();
    for block in data.chunks(128) {
        let n = block.len();
        let (mut min, mut missing) = (i64::MAX, false);
        if n > 1 {
            min = block[1] - block[0];
            for i in 1..n {
                let d = block[i] - block[i - 1];
                missing |= d != min;
                min = min.min(d);
            }
        }
        let mut count = n;
        let mut bitmap = Vec::new();
        if missing {
            count = ((block[n - 1] - block[0]) / min + 1) as usize;
            let mut bits = vec![true; count];
            let mut offset = 0;
            for i in 1..n {
                let d = block[i] - block[i - 1];
                if d != min {
                    for _ in 0..(d / min - 1) {
                        bits[i + offset] = false;
                        offset += 1;
                    }
                }
            }
            bitmap = vec![0u8; count.div_ceil(8)];
            for (k, &b) in bits.iter().enumerate() {
                if b {
                    bitmap[k / 8] |= 1 << (k % 8);
                }
            }
        }
        out.push(missing as u8);
        if missing {
            out.extend((bitmap.len() as i32).to_be_bytes());
            out.extend(&bitmap);
        }
        out.extend((count as i32).to_be_bytes());
        out.extend(min.to_be_bytes());
        out.extend(block[0].to_be_bytes());
    }
    out
}

/// An arithmetic sequence with points dropped: what REGULAR is for (timestamps). Every
/// gap is followed by at least one regular step, so each 128-value block Java cuts is exact.
fn gappy() -> impl Strategy<Value = Vec<i64>> {
    (
        -1_000_000_000i64..1_000_000_000,
        1i64..5000,
        proptest::collection::vec((1i64..4, 2usize..40), 0..40),
    )
        .prop_map(|(start, step, runs)| {
            let mut v = vec![start];
            for (gap, len) in runs {
                for j in 0..len {
                    let last = *v.last().unwrap();
                    v.push(last + step * if j == 0 { gap } else { 1 });
                }
            }
            v
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn gappy_sequences_are_java_bytes(v in gappy()) {
        let vals = Values::Int64(v.clone());
        prop_assert_eq!(enc(R, DataType::Timestamp, &vals), java_blocks(&v));
        prop_assert_eq!(round_trip(R, DataType::Timestamp, &vals), vals);
        let v32: Vec<i32> = v.iter().map(|&x| (x / 8) as i32).collect();
        let vals = Values::Int32(v32.clone());
        prop_assert_eq!(round_trip(R, DataType::Int32, &vals), vals);
    }

    #[test]
    fn any_integers_round_trip(a in int32s(), b in int64s()) {
        ints_round_trip(R, &a, &b, &[DataType::Int64, DataType::Timestamp, DataType::Vector])?;
    }

    #[test]
    fn hostile_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..120)) {
        let mut out = Values::Int64(vec![]);
        let _ = decode(R, DataType::Int64, &bytes, 500, &mut out);
        prop_assert!(out.len() <= 500);
        let mut out = Values::Int32(vec![]);
        let _ = decode(R, DataType::Int32, &bytes, 500, &mut out);
        prop_assert!(out.len() <= 500);
    }
}
