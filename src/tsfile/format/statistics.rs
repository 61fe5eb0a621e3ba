//! [`Statistics`]: the per-page, per-chunk and per-series summary of TsFile v4
//! (`spec/tsfile.md` §8.1) — its wire form for every data type, and the writer-side
//! accumulation and merging rules of Java's `Statistics` classes.

use super::types::DataType;
use super::values::Values;
use super::varint::{put_bytes32, put_uvarint};
use crate::cursor::Cursor;
use crate::{Error, Result};

/// Count, time range and type-specific fields of a run of values.
///
/// ```
/// use colfile::tsfile::format::{DataType, NumStats, Statistics, StatValues};
/// use colfile::tsfile::Values;
/// let mut s = Statistics::new(DataType::Int32);
/// s.update_values(&[10, 20, 30], &Values::Int32(vec![5, -1, 7]))?;
/// assert_eq!((s.count, s.start_time, s.end_time), (3, 10, 30));
/// assert_eq!(s.values, StatValues::Int32(NumStats { min: -1, max: 7, first: 5, last: 7, sum: 11 }));
///
/// let mut bytes = Vec::new();
/// s.write_to(&mut bytes)?;
/// let back = Statistics::read(&mut colfile::cursor::Cursor::new(&bytes, 0), DataType::Int32)?;
/// assert_eq!(back, s);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Statistics {
    /// Number of non-null values (or timestamps, for time statistics); a `UVarInt` of a Java `int`.
    pub count: u32,
    /// Smallest timestamp covered (`i64::MAX` when empty).
    pub start_time: i64,
    /// Largest timestamp covered (`i64::MIN` when empty).
    pub end_time: i64,
    /// The type-specific fields.
    pub values: StatValues,
}

/// One line for messages: `count 3, time 10..=30, min -1, max 7, first 5, last 7, sum 11`
/// (text values quoted, invalid UTF-8 replaced).
///
/// ```
/// use colfile::tsfile::format::{DataType, Statistics};
/// use colfile::tsfile::Values;
/// let mut s = Statistics::new(DataType::Int32);
/// s.update_values(&[10, 20], &Values::Int32(vec![5, -1]))?;
/// assert_eq!(s.to_string(), "count 2, time 10..=20, min -1, max 5, first 5, last -1, sum 4");
/// # Ok::<(), colfile::Error>(())
/// ```
impl std::fmt::Display for Statistics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "count {}, time {}..={}",
            self.count, self.start_time, self.end_time
        )?;
        fn num<T: std::fmt::Display, S: std::fmt::Display>(
            f: &mut std::fmt::Formatter<'_>,
            n: &NumStats<T, S>,
        ) -> std::fmt::Result {
            write!(
                f,
                ", min {}, max {}, first {}, last {}, sum {}",
                n.min, n.max, n.first, n.last, n.sum
            )
        }
        let text = |b: &[u8]| format!("{:?}", String::from_utf8_lossy(b));
        match &self.values {
            StatValues::Boolean { first, last, sum } => {
                write!(f, ", first {first}, last {last}, sum {sum}")
            }
            StatValues::Int32(n) => num(f, n),
            StatValues::Int64(n) => num(f, n),
            StatValues::Float(n) => num(f, n),
            StatValues::Double(n) => num(f, n),
            StatValues::Text { first, last } => {
                write!(f, ", first {}, last {}", text(first), text(last))
            }
            StatValues::String {
                first,
                last,
                min,
                max,
            } => write!(
                f,
                ", min {}, max {}, first {}, last {}",
                text(min),
                text(max),
                text(first),
                text(last)
            ),
            StatValues::None => Ok(()),
        }
    }
}

/// The type-specific part of [`Statistics`], in wire order of each variant's fields.
#[derive(Clone, Debug, PartialEq)]
pub enum StatValues {
    /// BOOLEAN: first, last, and the number of `true` values.
    Boolean {
        /// Value at the smallest time.
        first: bool,
        /// Value at the largest time.
        last: bool,
        /// Number of `true` values.
        sum: i64,
    },
    /// INT32 and DATE: the sum is exact.
    Int32(NumStats<i32, i64>),
    /// INT64 and TIMESTAMP: the sum is a `double`, accumulated in value order.
    Int64(NumStats<i64, f64>),
    /// FLOAT: the sum is a `double`.
    Float(NumStats<f32, f64>),
    /// DOUBLE.
    Double(NumStats<f64, f64>),
    /// TEXT: first and last only.
    Text {
        /// Value at the smallest time.
        first: Vec<u8>,
        /// Value at the largest time.
        last: Vec<u8>,
    },
    /// STRING: first, last, and min/max in unsigned byte order.
    String {
        /// Value at the smallest time.
        first: Vec<u8>,
        /// Value at the largest time.
        last: Vec<u8>,
        /// Smallest value (unsigned byte order).
        min: Vec<u8>,
        /// Largest value (unsigned byte order).
        max: Vec<u8>,
    },
    /// BLOB, OBJECT and VECTOR (time) statistics: nothing beyond count and times.
    None,
}

/// The numeric statistics fields, in wire order: min, max, first, last, sum.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct NumStats<T, S> {
    /// Smallest value (IEEE `<` for floats, so a leading NaN sticks).
    pub min: T,
    /// Largest value (IEEE `>`).
    pub max: T,
    /// Value at the smallest time.
    pub first: T,
    /// Value at the largest time.
    pub last: T,
    /// Sum of the values.
    pub sum: S,
}

/// A fixed-width big-endian number of the statistics wire form.
trait Wire: Copy + PartialOrd + Default {
    fn read(c: &mut Cursor<'_>) -> Result<Self>;
    fn put(self, out: &mut Vec<u8>);
}

macro_rules! wire {
    ($t:ty, $read:ident, $bits:expr) => {
        impl Wire for $t {
            fn read(c: &mut Cursor<'_>) -> Result<Self> {
                c.$read()
            }
            fn put(self, out: &mut Vec<u8>) {
                #[allow(clippy::redundant_closure_call)]
                out.extend_from_slice(&($bits)(self).to_be_bytes());
            }
        }
    };
}
wire!(i32, read_i32_be, |v: i32| v);
wire!(i64, read_i64_be, |v: i64| v);
// Java's floatToIntBits/doubleToLongBits: every NaN is written in canonical form.
wire!(f32, read_f32_be, |v: f32| if v.is_nan() {
    0x7fc0_0000
} else {
    v.to_bits()
});
wire!(f64, read_f64_be, |v: f64| if v.is_nan() {
    0x7ff8_0000_0000_0000
} else {
    v.to_bits()
});

impl NumStats<i64, f64> {
    /// [`accumulate`](Self::accumulate) of 64-bit integers into Java's `double` sum. While
    /// every partial sum is an integer below 2^52 in magnitude each of Java's additions is
    /// exact, so the sum is the integer sum, added up without a dependency chain; otherwise
    /// value by value.
    fn accumulate_i64(&mut self, v: &[i64], empty: bool) {
        const EXACT: f64 = (1u64 << 52) as f64;
        let (Some(&first), Some(&last)) = (v.first(), v.last()) else {
            return;
        };
        let (lo, hi) = (v.iter()).fold((i64::MAX, i64::MIN), |(l, h), &x| (l.min(x), h.max(x)));
        let base = if empty { 0.0 } else { self.sum };
        let widest = lo.unsigned_abs().max(hi.unsigned_abs()) as f64;
        if base.fract() != 0.0 || base.abs() + widest * v.len() as f64 >= EXACT {
            return self.accumulate(v, empty, |x| x as f64);
        }
        // |total| < 2^52: no overflow.
        let total: i64 = v.iter().sum();
        if empty {
            (self.min, self.max, self.first) = (lo, hi, first);
        } else {
            (self.min, self.max) = (self.min.min(lo), self.max.max(hi));
        }
        (self.last, self.sum) = (last, base + total as f64);
    }
}

// The methods are private; the bound names a private trait on purpose.
#[allow(private_bounds)]
impl<T: Wire, S: Wire + std::ops::AddAssign> NumStats<T, S> {
    fn read(c: &mut Cursor<'_>) -> Result<Self> {
        Ok(NumStats {
            min: T::read(c)?,
            max: T::read(c)?,
            first: T::read(c)?,
            last: T::read(c)?,
            sum: S::read(c)?,
        })
    }

    fn put(&self, out: &mut Vec<u8>) {
        for v in [self.min, self.max, self.first, self.last] {
            v.put(out);
        }
        self.sum.put(out);
    }

    /// Java page-writer accumulation; `empty` when nothing was counted before `v`.
    fn accumulate(&mut self, v: &[T], empty: bool, widen: impl Fn(T) -> S) {
        let rest = match v.split_first() {
            Some((&x, rest)) if empty => {
                *self = NumStats {
                    min: x,
                    max: x,
                    first: x,
                    last: x,
                    sum: widen(x),
                };
                rest
            }
            _ => v,
        };
        let Some(&last) = rest.last() else { return };
        // One pass: the sum must stay sequential, in value order, as Java adds (floating-point
        // sums depend on the order), and min/max ride along in its latency shadow.
        let (mut min, mut max, mut sum) = (self.min, self.max, self.sum);
        for &x in rest {
            if x < min {
                min = x;
            }
            if x > max {
                max = x;
            }
            sum += widen(x);
        }
        (self.min, self.max, self.last, self.sum) = (min, max, last, sum);
    }

    fn merge(&mut self, o: &Self, take_first: bool, take_last: bool) {
        if o.min < self.min {
            self.min = o.min;
        }
        if o.max > self.max {
            self.max = o.max;
        }
        self.sum += o.sum;
        if take_first {
            self.first = o.first;
        }
        if take_last {
            self.last = o.last;
        }
    }
}

impl StatValues {
    /// The zero fields of an empty statistics object of `data_type`, as Java serialises them.
    pub fn empty(data_type: DataType) -> StatValues {
        match data_type {
            DataType::Boolean => StatValues::Boolean {
                first: false,
                last: false,
                sum: 0,
            },
            DataType::Int32 | DataType::Date => StatValues::Int32(NumStats::default()),
            DataType::Int64 | DataType::Timestamp => StatValues::Int64(NumStats::default()),
            DataType::Float => StatValues::Float(NumStats::default()),
            DataType::Double => StatValues::Double(NumStats::default()),
            DataType::Text => StatValues::Text {
                first: Vec::new(),
                last: Vec::new(),
            },
            DataType::String => StatValues::String {
                first: Vec::new(),
                last: Vec::new(),
                min: Vec::new(),
                max: Vec::new(),
            },
            _ => StatValues::None,
        }
    }
}

impl Statistics {
    /// Empty statistics: count 0, start `i64::MAX`, end `i64::MIN`, zero fields.
    pub fn new(data_type: DataType) -> Statistics {
        Statistics {
            count: 0,
            start_time: i64::MAX,
            end_time: i64::MIN,
            values: StatValues::empty(data_type),
        }
    }

    /// True when no value has been counted.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Parses statistics of `data_type` (`UNKNOWN` is an error).
    pub fn read(c: &mut Cursor<'_>, data_type: DataType) -> Result<Statistics> {
        let at = c.offset();
        if data_type == DataType::Unknown {
            return Err(Error::corrupt("tsfile", "statistics of data type UNKNOWN").at_offset(at));
        }
        let count = c.read_uvarint()?;
        let start_time = c.read_i64_be()?;
        let end_time = c.read_i64_be()?;
        let values = match StatValues::empty(data_type) {
            StatValues::Boolean { .. } => StatValues::Boolean {
                first: c.read_bool()?,
                last: c.read_bool()?,
                sum: c.read_i64_be()?,
            },
            StatValues::Int32(_) => StatValues::Int32(NumStats::read(c)?),
            StatValues::Int64(_) => StatValues::Int64(NumStats::read(c)?),
            StatValues::Float(_) => StatValues::Float(NumStats::read(c)?),
            StatValues::Double(_) => StatValues::Double(NumStats::read(c)?),
            StatValues::Text { .. } => StatValues::Text {
                first: read_binary(c)?,
                last: read_binary(c)?,
            },
            StatValues::String { .. } => StatValues::String {
                first: read_binary(c)?,
                last: read_binary(c)?,
                min: read_binary(c)?,
                max: read_binary(c)?,
            },
            StatValues::None => StatValues::None,
        };
        Ok(Statistics {
            count,
            start_time,
            end_time,
            values,
        })
    }

    /// Appends the wire form. Errors only for a binary field of 2 GiB or more.
    pub fn write_to(&self, out: &mut Vec<u8>) -> Result<()> {
        put_uvarint(out, self.count);
        out.extend_from_slice(&self.start_time.to_be_bytes());
        out.extend_from_slice(&self.end_time.to_be_bytes());
        match &self.values {
            StatValues::Boolean { first, last, sum } => {
                out.push(*first as u8);
                out.push(*last as u8);
                out.extend_from_slice(&sum.to_be_bytes());
            }
            StatValues::Int32(n) => n.put(out),
            StatValues::Int64(n) => n.put(out),
            StatValues::Float(n) => n.put(out),
            StatValues::Double(n) => n.put(out),
            StatValues::Text { first, last } => {
                put_bytes32(out, first)?;
                put_bytes32(out, last)?;
            }
            StatValues::String {
                first,
                last,
                min,
                max,
            } => {
                for v in [first, last, min, max] {
                    put_bytes32(out, v)?;
                }
            }
            StatValues::None => {}
        }
        Ok(())
    }

    /// Counts timestamps (time-column and VECTOR statistics, or just the time part of any).
    pub fn update_times(&mut self, times: &[i64]) {
        let (mut lo, mut hi) = (self.start_time, self.end_time);
        for &t in times {
            lo = lo.min(t);
            hi = hi.max(t);
        }
        (self.start_time, self.end_time) = (lo, hi);
        self.count = self.count.wrapping_add(times.len() as _);
    }

    /// Adds non-null values with their timestamps (in time order), as Java's page writers do:
    /// the first value initialises every field, later ones update min/max with IEEE `<`/`>`
    /// (so a leading NaN sticks), replace `last`, and add to the sum in value order.
    ///
    /// Errors: `times` and `values` differ in length, or `values` is of another type.
    pub fn update_values(&mut self, times: &[i64], values: &Values) -> Result<()> {
        if times.len() != values.len() {
            return Err(Error::invalid(format!(
                "{} timestamps for {} values",
                times.len(),
                values.len()
            )));
        }
        let empty = self.count == 0;
        match (&mut self.values, values) {
            (StatValues::None, _) => {}
            (StatValues::Boolean { first, last, sum }, Values::Boolean(v)) => {
                if let (Some(&f), Some(&l)) = (v.first(), v.last()) {
                    if empty {
                        (*first, *sum) = (f, 0);
                    }
                    *last = l;
                    *sum += v.iter().map(|&x| i64::from(x)).sum::<i64>();
                }
            }
            (StatValues::Int32(n), Values::Int32(v)) => n.accumulate(v, empty, i64::from),
            (StatValues::Int64(n), Values::Int64(v)) => n.accumulate_i64(v, empty),
            (StatValues::Float(n), Values::Float(v)) => n.accumulate(v, empty, f64::from),
            (StatValues::Double(n), Values::Double(v)) => n.accumulate(v, empty, |x| x),
            // Byte strings: find the winners first and copy each once (no copy per value).
            (StatValues::Text { first, last }, Values::Binary(v)) => {
                if let (Some(f), Some(l)) = (v.get(0), v.iter().last()) {
                    if empty {
                        first.clone_from(&f.to_vec());
                    }
                    last.clear();
                    last.extend_from_slice(l);
                }
            }
            (
                StatValues::String {
                    first,
                    last,
                    min,
                    max,
                },
                Values::Binary(v),
            ) => {
                let (Some(f), Some(l)) = (v.get(0), v.iter().last()) else {
                    return Ok(());
                };
                let (mut lo, mut hi) = if empty {
                    (f, f)
                } else {
                    (min.as_slice(), max.as_slice())
                };
                let (mut new_lo, mut new_hi) = (empty, empty);
                let sort_key_of = |s: &[u8]| sort_key(prefix_key(s), s.len());
                let (mut lo_key, mut hi_key) = (sort_key_of(lo), sort_key_of(hi));
                let data = v.data();
                for w in v.offsets().windows(2) {
                    let [a, b] = *w else { continue };
                    let x = data.get(a..b).unwrap_or_default();
                    let key = sort_key(prefix_key_at(data, a, b), x.len());
                    // Equal keys decide nothing only between two long strings, whose tails
                    // then do (`&` rather than `&&`: no branch on a repeated value).
                    let long = key as u8 == LONG;
                    let below = key < lo_key || ((key == lo_key) & long && tail(x) < tail(lo));
                    // `lo <= hi`, so a new minimum cannot also be a new maximum.
                    if below {
                        (lo, lo_key, new_lo) = (x, key, true);
                    } else if key > hi_key || ((key == hi_key) & long && tail(x) > tail(hi)) {
                        (hi, hi_key, new_hi) = (x, key, true);
                    }
                }
                let (lo, hi) = (lo.to_vec(), hi.to_vec());
                if new_lo {
                    *min = lo;
                }
                if new_hi {
                    *max = hi;
                }
                if empty {
                    *first = f.to_vec();
                }
                last.clear();
                last.extend_from_slice(l);
            }
            (_, v) => {
                return Err(Error::invalid(format!(
                    "{:?} values do not match these statistics",
                    v.physical()
                )))
            }
        }
        // `times` ascend, so the ends bound them.
        if let (Some(&lo), Some(&hi)) = (times.first(), times.last()) {
            self.start_time = self.start_time.min(lo);
            self.end_time = self.end_time.max(hi);
            self.count = self.count.wrapping_add(times.len() as _);
        }
        Ok(())
    }

    /// Merges `other` into `self` (Java `mergeStatistics`): an empty `other` changes nothing;
    /// `first` comes from whichever starts no later, `last` from whichever ends no earlier.
    ///
    /// Errors: the two are of different types.
    pub fn merge(&mut self, other: &Statistics) -> Result<()> {
        if std::mem::discriminant(&self.values) != std::mem::discriminant(&other.values) {
            return Err(Error::invalid(
                "cannot merge statistics of different data types",
            ));
        }
        if other.is_empty() {
            return Ok(());
        }
        if self.is_empty() {
            *self = other.clone();
            return Ok(());
        }
        let take_first = other.start_time <= self.start_time;
        let take_last = other.end_time >= self.end_time;
        self.start_time = self.start_time.min(other.start_time);
        self.end_time = self.end_time.max(other.end_time);
        self.count = self.count.wrapping_add(other.count);
        merge_values(&mut self.values, &other.values, take_first, take_last);
        Ok(())
    }
}

/// Field-wise merge of two same-typed value summaries (both non-empty).
fn merge_values(a: &mut StatValues, b: &StatValues, take_first: bool, take_last: bool) {
    let pick = |dst: &mut Vec<u8>, src: &Vec<u8>, take: bool| {
        if take {
            dst.clone_from(src);
        }
    };
    use StatValues as S;
    match (a, b) {
        (
            S::Boolean { first, last, sum },
            S::Boolean {
                first: f,
                last: l,
                sum: n,
            },
        ) => {
            *sum += *n;
            if take_first {
                *first = *f;
            }
            if take_last {
                *last = *l;
            }
        }
        (S::Int32(a), S::Int32(b)) => a.merge(b, take_first, take_last),
        (S::Int64(a), S::Int64(b)) => a.merge(b, take_first, take_last),
        (S::Float(a), S::Float(b)) => a.merge(b, take_first, take_last),
        (S::Double(a), S::Double(b)) => a.merge(b, take_first, take_last),
        (S::Text { first, last }, S::Text { first: f, last: l }) => {
            pick(first, f, take_first);
            pick(last, l, take_last);
        }
        (
            S::String {
                first,
                last,
                min,
                max,
            },
            S::String {
                first: f,
                last: l,
                min: lo,
                max: hi,
            },
        ) => {
            pick(min, lo, lo < min);
            pick(max, hi, hi > max);
            pick(first, f, take_first);
            pick(last, l, take_last);
        }
        _ => {}
    }
}

fn read_binary(c: &mut Cursor<'_>) -> Result<Vec<u8>> {
    let at = c.offset();
    c.read_bytes32("statistics value")?
        .map(<[u8]>::to_vec)
        .ok_or_else(|| Error::corrupt("tsfile", "null statistics value").at_offset(at))
}

/// The first 8 bytes of `s` as a big-endian number, zero-padded: when two keys differ they
/// order the strings as a byte-wise comparison does (a string that ends early is a prefix
/// of the other, so smaller); when they are equal, [`sort_key`] settles it.
#[inline]
fn prefix_key(s: &[u8]) -> u64 {
    if let Some(head) = s.first_chunk::<8>() {
        return u64::from_be_bytes(*head);
    }
    // Shorter than 8 bytes: shifts rather than a byte buffer, whose 8-byte reload would stall
    // on the byte stores.
    s.iter()
        .zip((0..8u32).rev())
        .fold(0u64, |k, (&x, i)| k | u64::from(x) << (8 * i))
}

/// [`prefix_key`] of `data[a..b]`: where `data` holds 8 bytes from `a`, one load masked to
/// the value's length, so that short values of varying length cost no loop and no
/// mispredicted branch.
#[inline]
fn prefix_key_at(data: &[u8], a: usize, b: usize) -> u64 {
    let len = b.wrapping_sub(a);
    match data.get(a..a.wrapping_add(8)) {
        Some(w) if len <= data.len() => {
            let k = u64::from_be_bytes(w.try_into().unwrap_or([0; 8]));
            let mask = if len >= 8 {
                u64::MAX
            } else {
                !(u64::MAX >> (8 * len))
            };
            k & mask
        }
        _ => prefix_key(data.get(a..b).unwrap_or_default()),
    }
}

/// The length byte of a [`sort_key`] of a string of more than 8 bytes.
const LONG: u8 = 9;

/// A byte string's bytes from the ninth on.
fn tail(s: &[u8]) -> &[u8] {
    s.get(8..).unwrap_or_default()
}

/// A byte string's order key from its [`prefix_key`] and length: the prefix, then the length
/// capped at [`LONG`]. Byte strings compare as their keys, except two longer than 8 bytes with
/// the same prefix, whose bytes from the ninth on decide: where the prefixes are equal and
/// one string is at most 8 bytes long, it is a prefix of the other (the key pads with zeros),
/// so the shorter comes first.
#[inline]
fn sort_key(prefix: u64, len: usize) -> u128 {
    (u128::from(prefix) << 8) | u128::from(len.min(usize::from(LONG)) as u8)
}

#[cfg(test)]
mod tests {
    use super::{prefix_key, prefix_key_at, sort_key, tail, NumStats, LONG};
    use proptest::prelude::*;

    fn values() -> impl Strategy<Value = Vec<i64>> {
        let small = -1000i64..1000;
        let wide = any::<i64>();
        let edge = prop_oneof![Just(1i64 << 52), Just(-(1i64 << 52)), Just(1i64 << 40)];
        prop::collection::vec(prop_oneof![4 => small, 1 => wide, 1 => edge], 0..40)
    }

    proptest! {
        /// The integer-sum shortcut gives Java's value-by-value `double` sum bit for bit.
        #[test]
        fn the_exact_integer_sum_equals_the_sequential_double_sum(a in values(), b in values()) {
            let (mut fast, mut slow) = (NumStats::<i64, f64>::default(), NumStats::default());
            fast.accumulate_i64(&a, true);
            slow.accumulate(&a, true, |x| x as f64);
            let empty = a.is_empty();
            fast.accumulate_i64(&b, empty);
            slow.accumulate(&b, empty, |x| x as f64);
            prop_assert_eq!((fast.min, fast.max, fast.first, fast.last), (slow.min, slow.max, slow.first, slow.last));
            prop_assert_eq!(fast.sum.to_bits(), slow.sum.to_bits());
        }

        /// Keys, then the tails of two long strings with one key, order byte strings as
        /// a byte-wise comparison does (zero bytes and prefixes included).
        #[test]
        fn sort_keys_and_tails_order_as_bytes(
            x in prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xff]), 0..12),
            y in prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', 0xff]), 0..12),
        ) {
            let (kx, ky) = (sort_key(prefix_key(&x), x.len()), sort_key(prefix_key(&y), y.len()));
            let both_long = kx as u8 == LONG && ky as u8 == LONG;
            let by_keys = kx.cmp(&ky).then_with(|| if both_long { tail(&x).cmp(tail(&y)) } else { std::cmp::Ordering::Equal });
            prop_assert_eq!(by_keys, x.cmp(&y));
        }

        /// The masked load gives the key of the value alone, wherever it sits in the buffer
        /// (near its end too, where fewer than 8 bytes follow).
        #[test]
        fn the_key_at_an_offset_is_the_values_key(
            data in prop::collection::vec(any::<u8>(), 0..40),
            a in 0usize..40,
            len in 0usize..14,
        ) {
            let a = a.min(data.len());
            let b = (a + len).min(data.len());
            prop_assert_eq!(prefix_key_at(&data, a, b), prefix_key(&data[a..b]));
        }
    }
}
