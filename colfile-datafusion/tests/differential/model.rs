//! The row model both sides are turned into: [`V`] values, [`Table`]s of rows, and the
//! conversion of DataFusion's Arrow answers into rows.
//!
//! Semantics chosen to match Arrow/DataFusion (and stated here so a difference is a
//! difference): floats order and compare by IEEE total order (`-0.0 < 0.0`, NaN above
//! +inf, every NaN equal to every NaN); integer `sum` wraps at i64 as DataFusion's does;
//! strings order by bytes.

use std::cmp::Ordering;

use arrow_array::cast::AsArray;
use arrow_array::types::*;
use arrow_array::{Array, RecordBatch};
use arrow_schema::{DataType as AT, TimeUnit};

/// One value.
#[derive(Clone, Debug)]
pub enum V {
    Null,
    Bool(bool),
    /// Every integer width.
    Int(i64),
    F32(f32),
    F64(f64),
    Str(String),
    Bin(Vec<u8>),
    /// Days since 1970-01-01.
    Date(i32),
    /// A timestamp in the column's unit.
    Ts(i64),
    /// Unscaled decimal (scale from the column).
    Dec(i128),
    List(Vec<V>),
    Map(Vec<(V, V)>),
    Struct(Vec<V>),
    /// An expected float sum, whose exact bits depend on the summation order: the naive sum,
    /// the sum of magnitudes, and which specials were summed.
    Approx {
        sum: f64,
        abs: f64,
        nan: bool,
        pinf: bool,
        ninf: bool,
    },
}

fn rank(v: &V) -> u8 {
    match v {
        V::Null => 0,
        V::Bool(_) => 1,
        V::Int(_) => 2,
        V::F32(_) => 3,
        V::F64(_) | V::Approx { .. } => 4,
        V::Str(_) => 5,
        V::Bin(_) => 6,
        V::Date(_) => 7,
        V::Ts(_) => 8,
        V::Dec(_) => 9,
        V::List(_) => 10,
        V::Map(_) => 11,
        V::Struct(_) => 12,
    }
}

pub fn fcmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.total_cmp(&b),
    }
}

fn seq_cmp(a: &[V], b: &[V]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = cmp_v(x, y);
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

/// Total order over values: NULL first, then by kind, then by value.
pub fn cmp_v(a: &V, b: &V) -> Ordering {
    use V::*;
    match (a, b) {
        (Bool(x), Bool(y)) => x.cmp(y),
        (Int(x), Int(y)) => x.cmp(y),
        (F32(x), F32(y)) => fcmp(*x as f64, *y as f64),
        (F64(x), F64(y)) => fcmp(*x, *y),
        (Approx { sum, .. }, F64(y)) => fcmp(*sum, *y),
        (F64(x), Approx { sum, .. }) => fcmp(*x, *sum),
        (Approx { sum: x, .. }, Approx { sum: y, .. }) => fcmp(*x, *y),
        (Str(x), Str(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Bin(x), Bin(y)) => x.cmp(y),
        (Date(x), Date(y)) => x.cmp(y),
        (Ts(x), Ts(y)) => x.cmp(y),
        (Dec(x), Dec(y)) => x.cmp(y),
        (List(x), List(y)) | (Struct(x), Struct(y)) => seq_cmp(x, y),
        (Map(x), Map(y)) => {
            for ((k1, v1), (k2, v2)) in x.iter().zip(y) {
                let o = cmp_v(k1, k2).then_with(|| cmp_v(v1, v2));
                if o != Ordering::Equal {
                    return o;
                }
            }
            x.len().cmp(&y.len())
        }
        _ => rank(a).cmp(&rank(b)),
    }
}

pub fn cmp_row(a: &[V], b: &[V]) -> Ordering {
    seq_cmp(a, b)
}

/// Whether an actual answer value matches an expected one: exactly (floats bit for bit, or
/// both NaN), except expected float sums, which allow 1e-9 of the summed magnitudes.
pub fn matches(expected: &V, actual: &V) -> bool {
    match (expected, actual) {
        (
            V::Approx {
                sum,
                abs,
                nan,
                pinf,
                ninf,
            },
            V::F64(a),
        ) => {
            if *nan || (*pinf && *ninf) {
                a.is_nan()
            } else if !abs.is_finite() {
                // Finite values whose magnitudes overflow: partial sums may reach +inf and
                // -inf in some order, so any answer (finite, ±inf, NaN) is possible.
                true
            } else if *pinf {
                *a == f64::INFINITY
            } else if *ninf {
                *a == f64::NEG_INFINITY
            } else {
                (a - sum).abs() <= 1e-9 * abs
            }
        }
        (V::F32(x), V::F32(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (V::F64(x), V::F64(y)) => x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
        (V::List(x), V::List(y)) | (V::Struct(x), V::Struct(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| matches(a, b))
        }
        (V::Map(x), V::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| matches(k1, k2) && matches(v1, v2))
        }
        (V::Null, V::Null) => true,
        (V::Null, _) | (_, V::Null) => false,
        _ => rank(expected) == rank(actual) && cmp_v(expected, actual) == Ordering::Equal,
    }
}

/// How a column's values behave in queries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Kind {
    /// TsFile `time`: Timestamp(ms, UTC).
    Time,
    Str,
    Bin,
    Bool,
    I8,
    I16,
    I32,
    I64,
    F32,
    F64,
    Date,
    /// TsFile TIMESTAMP fields: Timestamp(ms, UTC).
    TsMs,
    /// Hive timestamps: Timestamp(us, no zone).
    TsUs,
    Dec(u8, u8),
    Nested,
}

impl Kind {
    pub fn is_int(self) -> bool {
        matches!(self, Kind::I8 | Kind::I16 | Kind::I32 | Kind::I64)
    }
    pub fn is_float(self) -> bool {
        matches!(self, Kind::F32 | Kind::F64)
    }
    pub fn summable(self) -> bool {
        self.is_int() || self.is_float() || matches!(self, Kind::Dec(..))
    }
    pub fn orderable(self) -> bool {
        self != Kind::Nested
    }
}

#[derive(Clone, Debug)]
pub struct Col {
    pub name: String,
    pub kind: Kind,
    /// The Arrow type the SQL table must give this column.
    pub arrow: AT,
}

/// A table as the independent side sees it.
#[derive(Clone, Debug)]
pub struct Table {
    pub cols: Vec<Col>,
    pub rows: Vec<Vec<V>>,
    /// Columns that order rows totally (with their nulls): ORDER BY uses them.
    pub order_key: Vec<usize>,
    /// Columns worth grouping by.
    pub group_cols: Vec<usize>,
    /// Literal pools per column, besides the column's own values (e.g. page-edge times).
    pub extra_literals: Vec<Vec<V>>,
    /// Prefix patterns for LIKE on a column: (column, prefixes).
    pub like: Option<(usize, Vec<String>)>,
    /// Whether min/max over float columns are asked: not when the data hold NaN, since
    /// DataFusion 55's min/max of floats with NaN depend on batch and partition boundaries
    /// (also over a `MemTable`; its bug, not colfile's).
    pub float_minmax: bool,
}

impl Table {
    pub fn col(&self, name: &str) -> usize {
        self.cols
            .iter()
            .position(|c| c.name == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    }
}

/// One value of an Arrow array as a [`V`].
pub fn arrow_value(a: &dyn Array, i: usize) -> V {
    if a.is_null(i) {
        return V::Null;
    }
    match a.data_type() {
        AT::Boolean => V::Bool(a.as_boolean().value(i)),
        AT::Int8 => V::Int(a.as_primitive::<Int8Type>().value(i) as i64),
        AT::Int16 => V::Int(a.as_primitive::<Int16Type>().value(i) as i64),
        AT::Int32 => V::Int(a.as_primitive::<Int32Type>().value(i) as i64),
        AT::Int64 => V::Int(a.as_primitive::<Int64Type>().value(i)),
        AT::UInt64 => V::Int(a.as_primitive::<UInt64Type>().value(i) as i64),
        AT::Float32 => V::F32(a.as_primitive::<Float32Type>().value(i)),
        AT::Float64 => V::F64(a.as_primitive::<Float64Type>().value(i)),
        AT::Utf8 => V::Str(a.as_string::<i32>().value(i).to_owned()),
        AT::LargeUtf8 => V::Str(a.as_string::<i64>().value(i).to_owned()),
        AT::Utf8View => V::Str(a.as_string_view().value(i).to_owned()),
        AT::Binary => V::Bin(a.as_binary::<i32>().value(i).to_vec()),
        AT::LargeBinary => V::Bin(a.as_binary::<i64>().value(i).to_vec()),
        AT::BinaryView => V::Bin(a.as_binary_view().value(i).to_vec()),
        AT::Date32 => V::Date(a.as_primitive::<Date32Type>().value(i)),
        AT::Timestamp(TimeUnit::Second, _) => {
            V::Ts(a.as_primitive::<TimestampSecondType>().value(i))
        }
        AT::Timestamp(TimeUnit::Millisecond, _) => {
            V::Ts(a.as_primitive::<TimestampMillisecondType>().value(i))
        }
        AT::Timestamp(TimeUnit::Microsecond, _) => {
            V::Ts(a.as_primitive::<TimestampMicrosecondType>().value(i))
        }
        AT::Timestamp(TimeUnit::Nanosecond, _) => {
            V::Ts(a.as_primitive::<TimestampNanosecondType>().value(i))
        }
        AT::Decimal128(..) => V::Dec(a.as_primitive::<Decimal128Type>().value(i)),
        AT::List(_) => {
            let l = a.as_list::<i32>().value(i);
            V::List((0..l.len()).map(|j| arrow_value(&l, j)).collect())
        }
        AT::LargeList(_) => {
            let l = a.as_list::<i64>().value(i);
            V::List((0..l.len()).map(|j| arrow_value(&l, j)).collect())
        }
        AT::Map(..) => {
            let e = a.as_map().value(i);
            let (k, v) = (e.column(0), e.column(1));
            V::Map(
                (0..e.len())
                    .map(|j| (arrow_value(k, j), arrow_value(v, j)))
                    .collect(),
            )
        }
        AT::Struct(_) => {
            let s = a.as_struct();
            V::Struct(s.columns().iter().map(|c| arrow_value(c, i)).collect())
        }
        AT::Dictionary(..) => {
            let d = a.as_any_dictionary();
            let k = d.normalized_keys()[i];
            arrow_value(d.values(), k)
        }
        other => panic!("answer column of unexpected type {other}"),
    }
}

pub fn batches_to_rows(batches: &[RecordBatch]) -> Vec<Vec<V>> {
    let mut out = Vec::new();
    for b in batches {
        for i in 0..b.num_rows() {
            out.push(b.columns().iter().map(|c| arrow_value(c, i)).collect());
        }
    }
    out
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
pub fn days_from_ymd(y: i64, m: u32, d: u32) -> i32 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    (era * 146_097 + doe - 719_468) as i32
}

pub fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Shows a value briefly (for failure messages).
pub fn show(v: &V) -> String {
    match v {
        V::Null => "NULL".into(),
        V::Bool(b) => b.to_string(),
        V::Int(x) => x.to_string(),
        V::F32(x) => format!("{x:?}f32"),
        V::F64(x) => format!("{x:?}"),
        V::Str(s) => format!("{s:?}"),
        V::Bin(b) => format!(
            "x'{}'",
            b.iter().map(|x| format!("{x:02x}")).collect::<String>()
        ),
        V::Date(d) => format!("date({d})"),
        V::Ts(t) => format!("ts({t})"),
        V::Dec(d) => format!("dec({d})"),
        V::List(xs) => format!("[{}]", xs.iter().map(show).collect::<Vec<_>>().join(",")),
        V::Struct(xs) => format!("{{{}}}", xs.iter().map(show).collect::<Vec<_>>().join(",")),
        V::Map(xs) => format!(
            "map{{{}}}",
            xs.iter()
                .map(|(k, v)| format!("{}:{}", show(k), show(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        V::Approx { sum, abs, .. } => format!("~{sum:?}(±1e-9*{abs:e})"),
    }
}

pub fn show_row(r: &[V]) -> String {
    format!("({})", r.iter().map(show).collect::<Vec<_>>().join(", "))
}
