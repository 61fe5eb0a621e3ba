//! What the encoding tests share: byte and bit-string literals, encode/decode wrappers,
//! the C++ fixture pages (positions, bitmap, stream) and their expected rows, proptest
//! strategies and round trips.

use colfile::tsfile::encoding::{decode, decode_exact, encode, EncodeOptions};
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::Values;
use proptest::prelude::*;
use std::ops::Range;

// ---------------------------------------------------------------------------------------
// Literals

/// Bytes from hex digits (whitespace ignored).
pub(crate) fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Packs a string of `0`/`1` (spaces ignored) MSB first; its length must be whole bytes,
/// so every test spells out its padding.
pub(crate) fn bits(s: &str) -> Vec<u8> {
    let b: Vec<u8> = s.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    assert_eq!(b.len() % 8, 0, "{} bits", b.len());
    b.chunks(8)
        .map(|c| c.iter().fold(0u8, |acc, &d| acc << 1 | (d - b'0')))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Encode and decode

pub(crate) fn enc(e: Encoding, t: DataType, v: &Values) -> Vec<u8> {
    enc_mpn(e, t, v, 2)
}

pub(crate) fn enc_mpn(e: Encoding, t: DataType, v: &Values, mpn: i32) -> Vec<u8> {
    let mut o = EncodeOptions::default();
    o.max_point_number = mpn;
    let mut out = Vec::new();
    encode(e, t, v, &o, &mut out).unwrap_or_else(|err| panic!("{e} {t}: {err}"));
    out
}

pub(crate) fn dec(e: Encoding, t: DataType, bytes: &[u8]) -> Values {
    let mut out = Values::for_type(t).unwrap();
    decode(e, t, bytes, 1 << 20, &mut out).unwrap_or_else(|err| panic!("{e} {t}: {err}"));
    out
}

/// Exactly `n` values of `bytes` (`decode_exact`).
pub(crate) fn dec_exact(e: Encoding, t: DataType, bytes: &[u8], n: usize) -> Values {
    let mut out = Values::for_type(t).unwrap();
    decode_exact(e, t, bytes, n, &mut out).unwrap_or_else(|err| panic!("{e} {t}: {err}"));
    out
}

/// The error of decoding the corrupt `stream` (up to 1000 values).
pub(crate) fn decode_err(e: Encoding, t: DataType, stream: &[u8]) -> colfile::Error {
    let mut out = Values::for_type(t).unwrap();
    decode(e, t, stream, 1000, &mut out).unwrap_err()
}

/// `v` encodes to exactly `stream`, which both decoding modes read back as `v`.
pub(crate) fn check(e: Encoding, t: DataType, v: Values, stream: &[u8]) {
    assert_eq!(enc(e, t, &v), stream, "{t} {v:?}");
    assert_eq!(dec(e, t, stream), v, "{t}");
    assert_eq!(dec_exact(e, t, stream, v.len()), v);
}

/// `v` encoded and decoded both ways (which must agree); the `decode_exact` result.
pub(crate) fn round_trip(e: Encoding, t: DataType, v: &Values) -> Values {
    let b = enc(e, t, v);
    let out = dec_exact(e, t, &b, v.len());
    let mut again = Values::for_type(t).unwrap();
    decode(e, t, &b, v.len(), &mut again).unwrap_or_else(|err| panic!("{e} {t}: {err}"));
    assert_eq!(format!("{out:?}"), format!("{again:?}"));
    out
}

/// `v32` as INT32 and DATE and `v64` as each of `types64` round-trip under `e`.
pub(crate) fn ints_round_trip(
    e: Encoding,
    v32: &[i32],
    v64: &[i64],
    types64: &[DataType],
) -> Result<(), TestCaseError> {
    for t in [DataType::Int32, DataType::Date] {
        let v = Values::Int32(v32.to_vec());
        prop_assert_eq!(round_trip(e, t, &v), v);
    }
    for &t in types64 {
        let v = Values::Int64(v64.to_vec());
        prop_assert_eq!(round_trip(e, t, &v), v);
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Value views

/// Raw bit patterns of FLOAT/DOUBLE values.
pub(crate) fn bits64(v: &Values) -> Vec<u64> {
    match v {
        Values::Double(v) => v.iter().map(|x| x.to_bits()).collect(),
        Values::Float(v) => v.iter().map(|x| x.to_bits() as u64).collect(),
        _ => unreachable!(),
    }
}

/// Java's `floatToIntBits`/`doubleToLongBits` view: every NaN the same.
pub(crate) fn canonical(v: &Values) -> Vec<u64> {
    nans_as(v, 1, 1)
}

/// Raw bit patterns of FLOAT/DOUBLE values, except every FLOAT NaN as `float_nan` and
/// every DOUBLE NaN as `double_nan`.
pub(crate) fn nans_as(v: &Values, float_nan: u64, double_nan: u64) -> Vec<u64> {
    match v {
        Values::Double(v) => v
            .iter()
            .map(|x| if x.is_nan() { double_nan } else { x.to_bits() })
            .collect(),
        Values::Float(v) => v
            .iter()
            .map(|x| {
                if x.is_nan() {
                    float_nan
                } else {
                    x.to_bits() as u64
                }
            })
            .collect(),
        _ => unreachable!(),
    }
}

pub(crate) fn has_nan(v: &Values) -> bool {
    match v {
        Values::Float(v) => v.iter().any(|x| x.is_nan()),
        Values::Double(v) => v.iter().any(|x| x.is_nan()),
        _ => false,
    }
}

/// The integers of the Java decoder tests' hybrid lists: 50 rounds of a constant run then
/// a +3 ramp, from 2000, the runs 11, 13, … long.
pub(crate) fn java_hybrid_ints() -> Vec<i32> {
    let mut ints = Vec::new();
    let (mut count, mut start) = (11, 2000);
    for _ in 0..50 {
        ints.extend(std::iter::repeat_n(start, count));
        for _ in 0..count {
            ints.push(start);
            start += 3;
        }
        count += 2;
    }
    ints
}

// ---------------------------------------------------------------------------------------
// C++-written fixtures

/// The bytes of `fixtures/tsfile/{file}.tsfile`.
pub(crate) fn fixture(file: &str) -> Vec<u8> {
    let path = format!(
        "{}/fixtures/tsfile/{file}.tsfile",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The rows of `fixtures/tsfile/{file}.expected.jsonl`, of every device.
pub(crate) fn fixture_rows(file: &str) -> Vec<serde_json::Value> {
    let path = format!(
        "{}/fixtures/tsfile/{file}.expected.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|r| r["kind"] == "row")
        .collect()
}

/// The rows of device d1 in `fixtures/tsfile/{file}.expected.jsonl`.
pub(crate) fn d1_rows(file: &str) -> Vec<serde_json::Value> {
    let mut rows = fixture_rows(file);
    rows.retain(|r| r["tags"]["dev"] == "d1");
    rows
}

/// A value page's payload: a u32 count of positions, a bitmap of the positions holding a
/// value (MSB first), then the encoded values.
pub(crate) struct Page<'a> {
    pub(crate) positions: usize,
    pub(crate) present: Vec<bool>,
    /// How many positions hold a value.
    pub(crate) count: usize,
    pub(crate) stream: &'a [u8],
}

/// The page whose payload is `len` bytes at `off` in `file`.
pub(crate) fn page(file: &[u8], off: usize, len: usize) -> Page<'_> {
    let page = &file[off..off + len];
    let positions = u32::from_be_bytes(page[..4].try_into().unwrap()) as usize;
    let bitmap = &page[4..4 + positions.div_ceil(8)];
    let stream = &page[4 + positions.div_ceil(8)..];
    let present: Vec<bool> = (0..positions)
        .map(|p| bitmap[p / 8] & (0x80 >> (p % 8)) != 0)
        .collect();
    let count = present.iter().filter(|&&b| b).count();
    Page {
        positions,
        present,
        count,
        stream,
    }
}

/// A JSON number, or one of the strings `NaN`, `Infinity`, `-Infinity`.
pub(crate) fn json_f64(w: &serde_json::Value) -> f64 {
    match w.as_str() {
        Some("NaN") => f64::NAN,
        Some("Infinity") => f64::INFINITY,
        Some("-Infinity") => f64::NEG_INFINITY,
        _ => w.as_f64().unwrap(),
    }
}

/// Asserts that `got`, the values of `page` (a numeric type `t`), are field `column` of
/// `rows[start..]` bit for bit, and that the positions without a value are null there.
pub(crate) fn assert_page_rows_bits(
    page: &Page<'_>,
    t: DataType,
    got: &Values,
    rows: &[serde_json::Value],
    start: usize,
    column: &str,
) {
    let mut k = 0;
    for (p, &is) in page.present.iter().enumerate() {
        let want = &rows[start + p]["fields"][column];
        if !is {
            assert!(want.is_null(), "{column} row {}", start + p);
            continue;
        }
        let ok = match got {
            Values::Int32(v) if t == DataType::Date => {
                want.as_str()
                    .unwrap()
                    .replace('-', "")
                    .parse::<i32>()
                    .unwrap()
                    == v[k]
            }
            Values::Int32(v) => want.as_i64() == Some(v[k] as i64),
            Values::Int64(v) => want.as_i64() == Some(v[k]),
            Values::Float(v) => json_f64(want).to_bits() == (v[k] as f64).to_bits(),
            Values::Double(v) => json_f64(want).to_bits() == v[k].to_bits(),
            _ => unreachable!(),
        };
        assert!(ok, "{column} row {}: want {want}", start + p);
        k += 1;
    }
}

// ---------------------------------------------------------------------------------------
// Proptest strategies

/// Up to `max_runs` runs of 1..`max_len` copies of a `value`.
pub(crate) fn runs<T: Clone + std::fmt::Debug>(
    value: impl Strategy<Value = T>,
    max_len: usize,
    max_runs: usize,
) -> impl Strategy<Value = Vec<T>> {
    proptest::collection::vec((value, 1..max_len), 0..max_runs).prop_map(|runs| {
        runs.into_iter()
            .flat_map(|(v, n)| std::iter::repeat_n(v, n))
            .collect()
    })
}

/// Runs of any integer, the extremes `min` and `max`, 0, -3..3 and `typical` values.
fn integers<T>(min: T, max: T, typical: Range<T>) -> impl Strategy<Value = Vec<T>>
where
    T: Arbitrary + Clone + std::fmt::Debug + From<i8> + 'static,
    Range<T>: Strategy<Value = T>,
{
    let value = prop_oneof![
        any::<T>(),
        Just(min),
        Just(max),
        Just(T::from(0)),
        T::from(-3)..T::from(3),
        typical,
    ];
    runs(value, 20, 40)
}

pub(crate) fn int32s() -> impl Strategy<Value = Vec<i32>> {
    integers(i32::MIN, i32::MAX, 0..1000)
}

pub(crate) fn int64s() -> impl Strategy<Value = Vec<i64>> {
    integers(i64::MIN, i64::MAX, 1_700_000_000_000..1_700_000_100_000)
}

pub(crate) fn f64s() -> impl Strategy<Value = Vec<f64>> {
    let value = prop_oneof![
        any::<u64>().prop_map(f64::from_bits),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(-0.0),
        Just(f64::MIN_POSITIVE / 3.0),
        Just(f64::MAX),
        (-1e6f64..1e6).prop_map(|x| (x * 100.0).round() / 100.0),
    ];
    runs(value, 5, 60)
}

pub(crate) fn f32s() -> impl Strategy<Value = Vec<f32>> {
    let value = prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(-0.0f32),
        Just(1e-45f32),
        Just(f32::MAX),
        (-1e4f32..1e4).prop_map(|x| (x * 100.0).round() / 100.0),
    ];
    runs(value, 5, 60)
}
