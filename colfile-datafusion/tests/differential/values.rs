//! Random TsFile values (with nulls and extremes) and the plain reader's values as [`V`].

use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::{Value, ValueRef};

use super::model::{days_from_ymd, days_in_month, Kind, V};
use super::rng::Rng;

thread_local! {
    static NAN: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread's current case generates NaN (one bit pattern, the canonical quiet
/// NaN; SQL orders it above +inf and equal to itself, as the evaluation here does). Cases
/// with NaN ask no float min/max (see `Table::float_minmax`).
pub fn with_nan() -> bool {
    NAN.with(|c| c.get())
}

pub fn set_nan(on: bool) {
    NAN.with(|c| c.set(on));
}

/// What a case description says about NaN.
pub fn nan_note() -> &'static str {
    if with_nan() {
        " (with NaN)"
    } else {
        ""
    }
}

pub const FIELD_TYPES: [DataType; 10] = [
    DataType::Boolean,
    DataType::Int32,
    DataType::Int64,
    DataType::Float,
    DataType::Double,
    DataType::Text,
    DataType::String,
    DataType::Date,
    DataType::Timestamp,
    DataType::Blob,
];

pub fn kind_of(t: DataType) -> Kind {
    match t {
        DataType::Boolean => Kind::Bool,
        DataType::Int32 => Kind::I32,
        DataType::Int64 => Kind::I64,
        DataType::Float => Kind::F32,
        DataType::Double => Kind::F64,
        DataType::Text | DataType::String => Kind::Str,
        DataType::Date => Kind::Date,
        DataType::Timestamp => Kind::TsMs,
        DataType::Blob => Kind::Bin,
        other => panic!("no kind for {other}"),
    }
}

pub fn arrow_of(t: DataType) -> arrow_schema::DataType {
    use arrow_schema::{DataType as AT, TimeUnit};
    match t {
        DataType::Boolean => AT::Boolean,
        DataType::Int32 => AT::Int32,
        DataType::Int64 => AT::Int64,
        DataType::Float => AT::Float32,
        DataType::Double => AT::Float64,
        DataType::Text | DataType::String => AT::Utf8,
        DataType::Date => AT::Date32,
        DataType::Timestamp => AT::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        DataType::Blob => AT::Binary,
        other => panic!("no arrow type for {other}"),
    }
}

pub fn time_arrow() -> arrow_schema::DataType {
    arrow_schema::DataType::Timestamp(arrow_schema::TimeUnit::Millisecond, Some("UTC".into()))
}

/// A random encoding and compression valid for `t`.
pub fn codec(t: DataType, rng: &mut Rng) -> (Encoding, Compression) {
    let encodings: Vec<Encoding> = [
        Encoding::Plain,
        Encoding::Ts2Diff,
        Encoding::Gorilla,
        Encoding::Rle,
        Encoding::Dictionary,
        Encoding::Zigzag,
        Encoding::Chimp,
        Encoding::Sprintz,
        Encoding::Rlbe,
        Encoding::Camel,
    ]
    .into_iter()
    .filter(|&e| colfile::tsfile::encoding_supports(e, t))
    .collect();
    let compressions = [
        Compression::Uncompressed,
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Lzma2,
    ];
    (*rng.pick(&encodings), *rng.pick(&compressions))
}

pub const STRINGS: [&str; 8] = ["", "a", "b", "abc", "Zürich", "x y", "o'k", "zz"];

pub fn random_string(rng: &mut Rng) -> String {
    if rng.chance(0.6) {
        return rng.pick(&STRINGS).to_string();
    }
    let n = rng.below(12);
    (0..n)
        .map(|_| *rng.pick(&['a', 'b', 'q', 'Z', '0', '9', ' ', 'é', '-']))
        .collect()
}

fn f64_value(rng: &mut Rng) -> f64 {
    let mut extremes = vec![
        0.0,
        -0.0,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        5e-324,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e300,
    ];
    if with_nan() {
        extremes.push(f64::NAN);
    }
    match rng.below(10) {
        0 => *rng.pick(&extremes),
        1..=3 => *rng.pick(&[1.5, -2.25, 0.1, 100.0, -0.5]),
        4 => f64::from_bits(rng.next_u64()).clamp(-1e200, 1e200),
        _ => rng.range(-100_000, 100_000) as f64 / 64.0,
    }
}

fn f32_value(rng: &mut Rng) -> f32 {
    let mut extremes = vec![
        0.0,
        -0.0,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        1e-45,
        f32::INFINITY,
        f32::NEG_INFINITY,
    ];
    if with_nan() {
        extremes.push(f32::NAN);
    }
    match rng.below(10) {
        0 => *rng.pick(&extremes),
        1..=3 => *rng.pick(&[1.5, -2.25, 0.1, 100.0, -0.5]),
        _ => rng.range(-100_000, 100_000) as f32 / 64.0,
    }
}

pub fn i64_value(rng: &mut Rng) -> i64 {
    match rng.below(10) {
        0 => *rng.pick(&[i64::MIN, i64::MAX, 0, -1, 1, i64::MAX - 1, i64::MIN + 1]),
        1..=4 => rng.range(-5, 5),
        5 => rng.next_u64() as i64,
        _ => rng.range(-1_000_000, 1_000_000),
    }
}

pub fn i32_value(rng: &mut Rng) -> i32 {
    match rng.below(10) {
        0 => *rng.pick(&[i32::MIN, i32::MAX, 0, -1, 1]),
        1..=4 => rng.range(-5, 5) as i32,
        _ => rng.range(i32::MIN as i64, i32::MAX as i64) as i32,
    }
}

/// A random (y, m, d) with y in 1..=9999.
pub fn ymd(rng: &mut Rng) -> (i64, u32, u32) {
    match rng.below(8) {
        0 => *rng.pick(&[
            (1, 1, 1),
            (9999, 12, 31),
            (1970, 1, 1),
            (1969, 12, 31),
            (2000, 2, 29),
        ]),
        1..=3 => (2024, 1 + rng.below(3) as u32, 1 + rng.below(3) as u32),
        _ => {
            let y = rng.range(1, 9999);
            let m = 1 + rng.below(12) as u32;
            (y, m, 1 + rng.below(days_in_month(y, m) as usize) as u32)
        }
    }
}

/// A random non-null value of `t`: what is written, and what SQL must show.
pub fn random_value(t: DataType, rng: &mut Rng) -> (Value, V) {
    match t {
        DataType::Boolean => {
            let b = rng.chance(0.5);
            (Value::Boolean(b), V::Bool(b))
        }
        DataType::Int32 => {
            let x = i32_value(rng);
            (Value::Int32(x), V::Int(x as i64))
        }
        DataType::Int64 => {
            let x = i64_value(rng);
            (Value::Int64(x), V::Int(x))
        }
        DataType::Timestamp => {
            let x = i64_value(rng);
            (Value::Int64(x), V::Ts(x))
        }
        DataType::Float => {
            let x = f32_value(rng);
            (Value::Float(x), V::F32(x))
        }
        DataType::Double => {
            let x = f64_value(rng);
            (Value::Double(x), V::F64(x))
        }
        DataType::Text | DataType::String => {
            let s = random_string(rng);
            (Value::string(&s), V::Str(s))
        }
        DataType::Date => {
            let (y, m, d) = ymd(rng);
            let packed = (y * 10_000 + m as i64 * 100 + d as i64) as i32;
            (Value::Int32(packed), V::Date(days_from_ymd(y, m, d)))
        }
        DataType::Blob => {
            let n = rng.below(6);
            let b: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            (Value::Binary(b.clone()), V::Bin(b))
        }
        other => panic!("no values of {other}"),
    }
}

/// A value from the plain reader as [`V`], by the column's declared type.
pub fn from_reader(t: DataType, v: ValueRef<'_>) -> V {
    match (t, v) {
        (_, ValueRef::Null) => V::Null,
        (_, ValueRef::Boolean(b)) => V::Bool(b),
        (DataType::Date, ValueRef::Int32(x)) => {
            let (y, m, d) = (x / 10_000, (x / 100 % 100) as u32, (x % 100) as u32);
            V::Date(days_from_ymd(y as i64, m, d))
        }
        (_, ValueRef::Int32(x)) => V::Int(x as i64),
        (DataType::Timestamp, ValueRef::Int64(x)) => V::Ts(x),
        (_, ValueRef::Int64(x)) => V::Int(x),
        (_, ValueRef::Float(x)) => V::F32(x),
        (_, ValueRef::Double(x)) => V::F64(x),
        (DataType::Blob | DataType::Object, ValueRef::Binary(b)) => V::Bin(b.to_vec()),
        (_, ValueRef::Binary(b)) => V::Str(String::from_utf8(b.to_vec()).expect("UTF-8 text")),
    }
}
