//! `LazyBinaryColumnarSerDe`: Hive's binary cell encoding (LazyBinary rules, spec §9.3).
//!
//! One cell holds one top-level value:
//!
//! - a zero-length cell is NULL;
//! - strings, varchars, chars and binaries are their raw bytes; an empty `string` is the single
//!   byte `BF` (an invalid UTF-8 byte), and a one-byte `BF` cell reads as `""` for every
//!   string-like type;
//! - arrays, maps, structs and unions are written without the 4-byte size that the same
//!   values carry when nested;
//! - everything else has its nested layout: `int`/`bigint`/`date` as Hadoop VInts, `smallint`,
//!   `float`, `double` big-endian, timestamps as `TimestampWritable`, decimals as
//!   `scale, length, two's complement bytes`.
//!
//! Reading is lenient where Hive is (bytes after a value are ignored; structs with fewer
//! fields than the schema read the missing ones as NULL) and strict where Hive would read out
//! of bounds: every length and count is checked against the bytes that remain before anything
//! is allocated, and malformed bytes give an [`ErrorKind::Corrupt`] error with format
//! `"lazybinary"` and the byte offset within the cell.
//!
//! Writing matches Hive 2.3 byte for byte: decimals with their normalized scale, `BF` for an
//! empty top-level string, nothing for an empty top-level varchar (Hive reads it back as NULL;
//! see [`EmptyStringMarker`]), an error for an empty top-level binary, canonical NaNs, no null
//! bitmap for empty arrays and maps, and a NULL union value as the tag byte alone.
//!
//! [`ErrorKind::Corrupt`]: crate::ErrorKind::Corrupt

pub mod calendar;
mod nested;
#[cfg(feature = "arrow")]
pub(crate) use nested::{double_cell, float_cell, put_decimal};
mod time;
pub mod tzif;

pub use calendar::Calendar;
pub use time::{TimeZone, DEFAULT_TZDIR};

use crate::cursor::Cursor;
use crate::rcfile::{Date, Decimal, HiveType, Timestamp, Value};
use crate::{Error, ErrorKind, Result};

/// What to write for a non-NULL empty top-level `varchar` (or `char(0)`) value, which
/// LazyBinary cannot tell apart from NULL (spec §13 Q4).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum EmptyStringMarker {
    /// Hive parity (the default): zero bytes, so the value reads back as NULL in Hive and
    /// here — Hive's own behaviour.
    #[default]
    Hive,
    /// Trino parity: the byte `BF`, which Trino and this crate read as `""` (Hive reads it as
    /// the one-byte string `"\xBF"`).
    Trino,
}

/// Options of the binary serde. Built with [`BinaryOptions::default`] and the `with_*`
/// methods.
///
/// ```
/// use colfile::rcfile::serde::binary::{BinaryOptions, Calendar, TimeZone};
/// // Files written by Hive 2.x in a JVM running in UTC:
/// let o = BinaryOptions::default().with_calendar(Calendar::Hybrid);
/// assert_eq!(o.timestamp_zone, TimeZone::Utc);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct BinaryOptions {
    /// Zone of the stored timestamp instants (default UTC, Hive 3.1+ semantics; set the writer
    /// JVM's zone for Hive 2.x files, like Trino's `hive.rcfile.time-zone`).
    pub timestamp_zone: TimeZone,
    /// Calendar of stored day numbers (default proleptic Gregorian, `java.time`;
    /// [`Calendar::Hybrid`] for Hive 2.x files: the `java.sql` stack, which also reads the
    /// timestamp zone with `java.util.TimeZone`'s rules, see [`TimeZone`]).
    pub calendar: Calendar,
    /// What an empty top-level varchar is written as (default Hive parity).
    pub empty_varchar: EmptyStringMarker,
}

impl BinaryOptions {
    /// Hive 2.x's reading of dates and timestamps: hybrid calendar, with the writer JVM's
    /// time zone.
    pub fn hive2(zone: TimeZone) -> Self {
        BinaryOptions {
            timestamp_zone: zone,
            calendar: Calendar::Hybrid,
            ..Default::default()
        }
    }
    /// Sets the timestamp zone.
    pub fn with_timestamp_zone(mut self, zone: TimeZone) -> Self {
        self.timestamp_zone = zone;
        self
    }
    /// Sets the calendar of stored dates and timestamps.
    pub fn with_calendar(mut self, calendar: Calendar) -> Self {
        self.calendar = calendar;
        self
    }
    /// Sets what an empty top-level varchar is written as.
    pub fn with_empty_varchar(mut self, marker: EmptyStringMarker) -> Self {
        self.empty_varchar = marker;
        self
    }
}

/// The `LazyBinaryColumnarSerDe` cell codec.
///
/// ```
/// use colfile::rcfile::serde::binary::{BinaryOptions, BinarySerde};
/// use colfile::rcfile::{HiveType, Value};
/// let serde = BinarySerde::new(BinaryOptions::default());
/// let ty: HiveType = "array<int>".parse().unwrap();
/// let v = Value::Array(vec![Value::Int(1), Value::Null, Value::Int(3)]);
/// let mut cell = Vec::new();
/// serde.encode(&ty, &v, &mut cell).unwrap();
/// assert_eq!(cell, [0x03, 0x05, 0x01, 0x03]); // count, null bitmap, 1, 3
/// assert_eq!(serde.decode(&ty, &cell).unwrap(), v);
/// assert_eq!(serde.decode(&ty, &[]).unwrap(), Value::Null);
/// assert!(serde.decode(&ty, &[0x03, 0x05, 0x01]).is_err()); // truncated
/// ```
#[derive(Debug, Clone, Default)]
pub struct BinarySerde {
    options: BinaryOptions,
}

/// The one byte that marks an empty top-level string.
pub const EMPTY_STRING_MARKER: u8 = 0xBF;

/// A top-level `string` cell's bytes: the string's, or the marker for an empty one (an empty
/// cell is NULL).
#[inline]
pub(crate) fn string_cell(s: &[u8]) -> &[u8] {
    if s.is_empty() {
        &[EMPTY_STRING_MARKER]
    } else {
        s
    }
}

/// Hive's error for an empty top-level binary.
const EMPTY_BINARY_MESSAGE: &str = "LazyBinaryColumnarSerde cannot serialize a non-null zero \
     length binary field. Consider using either LazyBinarySerde or ColumnarSerde.";

impl BinarySerde {
    /// A serde with these options.
    pub fn new(options: BinaryOptions) -> Self {
        BinarySerde { options }
    }

    /// The options.
    pub fn options(&self) -> &BinaryOptions {
        &self.options
    }

    /// Decodes one cell of type `ty`.
    pub fn decode(&self, ty: &HiveType, cell: &[u8]) -> Result<Value> {
        if cell.is_empty() {
            return Ok(Value::Null);
        }
        let v = match ty {
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) => {
                let bytes = if cell == [EMPTY_STRING_MARKER] {
                    &[][..]
                } else {
                    cell
                };
                return Ok(string_value(ty, bytes));
            }
            HiveType::Binary => return Ok(Value::Binary(cell.to_vec())),
            HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_) => {
                self.read_body(ty, &mut Cursor::new(cell, 0))
            }
            _ => match fast_primitive(ty, cell) {
                Some(v) => return Ok(v),
                None => self.read_primitive(ty, &mut Cursor::new(cell, 0)),
            },
        };
        v.map_err(lazybinary_error)
    }

    /// Appends the cell bytes of `v` (of type `ty`) to `out`. NULL appends nothing.
    pub fn encode(&self, ty: &HiveType, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        // Hive stores decimals with too many digits for their column as NULL.
        if let Some(fitted) = super::null_overflowing_decimals(ty, v) {
            return self.encode(ty, &fitted, out);
        }
        let bytes: &[u8] = match (ty, v) {
            (_, Value::Null) => return Ok(()),
            (HiveType::String, Value::String(s)) => string_cell(s),
            (HiveType::Varchar(_) | HiveType::Char(_), Value::String(s)) => {
                let start = out.len();
                write_string_like(ty, s, false, out);
                if out.len() == start && self.options.empty_varchar == EmptyStringMarker::Trino {
                    out.push(EMPTY_STRING_MARKER);
                }
                return Ok(());
            }
            (HiveType::Binary, Value::Binary(b)) if b.is_empty() => {
                return Err(Error::invalid(EMPTY_BINARY_MESSAGE));
            }
            (HiveType::Binary, Value::Binary(b)) => b,
            (
                HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_),
                _,
            ) => {
                return self.write_body(ty, v, out);
            }
            _ => return self.write_nested(ty, v, out),
        };
        out.extend_from_slice(bytes);
        Ok(())
    }

    /// A stored day count as a date.
    #[inline]
    fn date_from_stored(&self, days: i32) -> Result<Date> {
        let d = self.options.calendar.days_to_proleptic(i64::from(days));
        i32::try_from(d)
            .map(Date)
            .map_err(|_| Error::corrupt("lazybinary", format!("date {days} out of range")))
    }

    /// A date as a stored day count.
    #[inline]
    fn date_to_stored(&self, d: Date) -> Result<i32> {
        let days = self.options.calendar.days_from_proleptic(i64::from(d.0));
        i32::try_from(days).map_err(|_| Error::invalid(format!("date {d} cannot be stored")))
    }

    /// Stored UTC seconds → wall-clock timestamp.
    #[inline]
    fn timestamp_from_stored(&self, seconds: i64, nanos: u32) -> Timestamp {
        let (zone, calendar) = (&self.options.timestamp_zone, self.options.calendar);
        let local = match calendar {
            Calendar::Proleptic => zone.utc_to_local(seconds),
            Calendar::Hybrid => zone.legacy_utc_to_local(seconds),
        };
        Timestamp {
            seconds: calendar.seconds_to_proleptic(local),
            nanos,
        }
    }

    /// Wall-clock timestamp → stored UTC seconds.
    #[inline]
    fn timestamp_to_stored(&self, t: Timestamp) -> i64 {
        let (zone, calendar) = (&self.options.timestamp_zone, self.options.calendar);
        let local = calendar.seconds_from_proleptic(t.seconds);
        match calendar {
            Calendar::Proleptic => zone.local_to_utc(local),
            Calendar::Hybrid => zone.legacy_local_to_utc(local),
        }
    }

    /// Appends the cell of a timestamp whose nanos are below 10^9, stored in the serde's
    /// zone and calendar.
    #[inline]
    pub(crate) fn put_timestamp(&self, t: Timestamp, out: &mut Vec<u8>) {
        time::write_timestamp(out, self.timestamp_to_stored(t), t.nanos);
    }
}

/// Batch decoding: top-level cells read without a cursor. Each takes the bytes from the start
/// of a cell to the end of its column (`rest`) and the cell's length `len`, so multi-byte
/// VInts can be read with one 8-byte load; nothing past `len` is used. `None` exactly where
/// [`BinarySerde::decode`] of the cell fails (it then reports why).
impl BinarySerde {
    /// A non-empty `date` cell as proleptic days.
    #[inline]
    pub(crate) fn date_fast(&self, rest: &[u8], len: usize) -> Option<i32> {
        let (v, _) = crate::rcfile::hadoop::vlong_within(rest, len)?;
        let days = i32::try_from(v).ok()?;
        // Both calendars agree from the Gregorian cutover on.
        if self.options.calendar == Calendar::Proleptic
            || i64::from(days) >= calendar::GREGORIAN_CUTOVER_DAY
        {
            return Some(days);
        }
        self.date_from_stored(days).ok().map(|d| d.0)
    }

    /// A non-empty `timestamp` cell as wall clock.
    #[inline]
    pub(crate) fn timestamp_fast(&self, rest: &[u8], len: usize) -> Option<Timestamp> {
        let (seconds, nanos) = time::read_timestamp_fast(rest, len)?;
        let (zone, calendar) = (&self.options.timestamp_zone, self.options.calendar);
        let local = match zone {
            // No zone rules to look up, and no calendar rebasing after the cutover.
            TimeZone::Utc => seconds,
            TimeZone::Fixed(o) => seconds.saturating_add(i64::from(*o)),
            TimeZone::Named(_) => return Some(self.timestamp_from_stored(seconds, nanos)),
        };
        if local >= calendar::GREGORIAN_CUTOVER_DAY * 86_400 || calendar == Calendar::Proleptic {
            return Some(Timestamp {
                seconds: local,
                nanos,
            });
        }
        Some(self.timestamp_from_stored(seconds, nanos))
    }

    /// A non-empty `decimal(precision, scale)` cell as unscaled at `scale`: `Some(None)` for
    /// a value Hive reads as NULL (too many digits).
    #[inline]
    pub(crate) fn decimal_fast(
        &self,
        rest: &[u8],
        len: usize,
        precision: u8,
        scale: u8,
    ) -> Option<Option<i128>> {
        // The common case: one-byte scale and length VInts, up to 8 value bytes, a column
        // of up to 18 digits and no digits to drop. In i64 throughout: a product that
        // overflows i64 has more than 18 digits, which is NULL as it is for i128.
        if let Some(&[s0, n0, ref value @ ..]) = rest.first_chunk::<10>() {
            let (stored, n) = (i32::from(s0 as i8), i32::from(n0 as i8));
            let shift = i32::from(scale) - stored;
            if stored >= -112
                && (1..=8).contains(&n)
                && precision <= 18
                && (0..=18).contains(&shift)
                && n as usize + 2 <= len
            {
                // The value's n bytes, sign-extended by an arithmetic shift: no loop over a
                // length that changes from cell to cell.
                let v = i64::from_be_bytes(*value) >> (64 - 8 * n);
                // Both at most 10^18: they fit i64.
                let max = pow10(u32::from(precision)) as u64;
                let mul = pow10(shift as u32) as i64;
                return Some(
                    v.checked_mul(mul)
                        .filter(|u| u.unsigned_abs() < max)
                        .map(i128::from),
                );
            }
        }
        let mut c = Cursor::new(rest.get(..len)?, 0);
        self.read_decimal(&mut c, precision, scale)
            .ok()
            .map(|d| d.map(|d| d.unscaled))
    }
}

/// The common top-level primitives straight from the cell bytes; `None` sends the cell down
/// the general path, which also reports what is wrong with it.
#[inline]
fn fast_primitive(ty: &HiveType, cell: &[u8]) -> Option<Value> {
    Some(match ty {
        HiveType::Int => Value::Int(fast_int(ty, cell)? as i32),
        HiveType::BigInt => Value::BigInt(fast_int(ty, cell)?),
        HiveType::Double => Value::Double(fast_double(cell)?),
        HiveType::Boolean => Value::Boolean(*cell.first()? != 0),
        _ => return None,
    })
}

/// A top-level `tinyint`, `smallint`, `int` or `bigint` cell; `None` if malformed (the slow
/// path then reports why).
#[inline]
pub(crate) fn fast_int(ty: &HiveType, cell: &[u8]) -> Option<i64> {
    use crate::rcfile::hadoop::decode_vlong;
    match ty {
        HiveType::Int => i32::try_from(decode_vlong(cell)?.0).ok().map(i64::from),
        HiveType::BigInt => Some(decode_vlong(cell)?.0),
        HiveType::TinyInt => Some(*cell.first()? as i8 as i64),
        HiveType::SmallInt => Some(i16::from_be_bytes(cell.get(..2)?.try_into().ok()?) as i64),
        _ => None,
    }
}

/// A top-level `double` cell.
#[inline]
pub(crate) fn fast_double(cell: &[u8]) -> Option<f64> {
    Some(f64::from_be_bytes(cell.get(..8)?.try_into().ok()?))
}

/// A top-level `float` cell.
#[inline]
pub(crate) fn fast_float(cell: &[u8]) -> Option<f32> {
    Some(f32::from_be_bytes(cell.get(..4)?.try_into().ok()?))
}

/// Rewrites any error met while decoding a cell as a `lazybinary` corruption, keeping its
/// offset (relative to the start of the cell).
#[cold]
fn lazybinary_error(e: Error) -> Error {
    let message = match e.kind() {
        ErrorKind::Corrupt {
            format: "lazybinary",
            ..
        } => return e,
        ErrorKind::Truncated {
            what,
            needed,
            available,
        } => {
            format!("truncated {what}: needs {needed} bytes, {available} left")
        }
        ErrorKind::Corrupt { message, .. } => message.clone(),
        other => other.to_string(),
    };
    let mut out = Error::corrupt("lazybinary", message);
    if let Some(o) = e.location().offset {
        out = out.at_offset(o);
    }
    out
}

/// Byte length of the first `n` characters (code points; UTF-8 continuation bytes belong to
/// the character before them) of `b`, and how many characters that is.
#[inline]
fn char_prefix(b: &[u8], n: usize) -> (usize, usize) {
    let mut chars = 0;
    for (i, &x) in b.iter().enumerate() {
        if x & 0xC0 != 0x80 {
            if chars == n {
                return (i, chars);
            }
            chars += 1;
        }
    }
    (b.len(), chars)
}

/// The bytes of a string-like value as Hive holds it: varchar(n) truncated to n characters,
/// char(n) truncated and padded with spaces to n characters. Returns the kept prefix length
/// and the number of pad spaces.
#[inline]
fn string_shape(ty: &HiveType, b: &[u8]) -> (usize, usize) {
    match *ty {
        HiveType::Varchar(n) if b.len() > n as usize => (char_prefix(b, n as usize).0, 0),
        HiveType::Char(n) => {
            let (len, chars) = char_prefix(b, n as usize);
            (len, n as usize - chars)
        }
        _ => (b.len(), 0),
    }
}

/// A string-like value read from `b`, shaped to its type.
#[inline]
fn string_value(ty: &HiveType, b: &[u8]) -> Value {
    let (len, pad) = string_shape(ty, b);
    let kept = b.get(..len).unwrap_or(b);
    if pad == 0 {
        return Value::String(kept.to_vec());
    }
    let mut v = Vec::with_capacity(len + pad);
    v.extend_from_slice(kept);
    v.resize(len + pad, b' ');
    Value::String(v)
}

/// Appends a string-like value shaped to its type, after its VInt length if `with_len`.
#[inline]
fn write_string_like(ty: &HiveType, b: &[u8], with_len: bool, out: &mut Vec<u8>) {
    let (len, pad) = string_shape(ty, b);
    if with_len {
        crate::rcfile::hadoop::write_vlong(out, (len + pad) as i64);
    }
    out.extend_from_slice(b.get(..len).unwrap_or(b));
    out.resize(out.len() + pad, b' ');
}

/// 10^n for n in 0..=38.
#[allow(clippy::indexing_slicing)] // in bounds: evaluated at compile time, 1 <= i < 39
const POW10: [i128; 39] = {
    let mut t = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// 10^n for n in 0..=38 (a table lookup: this is on the decimal decode path).
#[inline]
fn pow10(n: u32) -> i128 {
    POW10.get(n as usize).copied().unwrap_or(i128::MAX)
}

/// Rescales `unscaled × 10^-scale` to `target` digits (HALF_UP, away from zero) and checks
/// it fits `precision` digits; `None` if it does not.
#[inline]
pub(crate) fn rescale(unscaled: i128, scale: i32, precision: u8, target: u8) -> Option<Decimal> {
    let shift = i64::from(target) - i64::from(scale);
    let u = if unscaled == 0 {
        0
    } else if shift < 0 {
        match u32::try_from(-shift) {
            // |unscaled| < 2^127 < 10^39 / 2: every digit is dropped and the rest rounds to 0.
            Ok(drop) if drop <= 38 => {
                let p = pow10(drop);
                let q = unscaled / p;
                let r = (unscaled % p).unsigned_abs();
                if r >= p.unsigned_abs() / 2 {
                    q + unscaled.signum()
                } else {
                    q
                }
            }
            _ => 0,
        }
    } else if shift > 38 {
        return None;
    } else {
        unscaled.checked_mul(pow10(shift as u32))?
    };
    let max = pow10(u32::from(precision.min(38)));
    (u.unsigned_abs() < max.unsigned_abs()).then_some(Decimal {
        unscaled: u,
        scale: target,
    })
}

/// A big-endian two's complement integer (Java `BigInteger` bytes) as i128; `None` if it
/// needs more than 128 bits.
#[inline]
fn i128_from_be(bytes: &[u8]) -> Option<i128> {
    let neg = bytes.first().is_some_and(|&b| b & 0x80 != 0);
    let pad = if neg { 0xFF } else { 0x00 };
    // Redundant sign-extension bytes (never written by Java, but legal to read).
    let mut b = bytes;
    while b.len() > 16 {
        match b {
            [first, rest @ ..]
                if *first == pad && rest.first().is_some_and(|s| (s & 0x80 != 0) == neg) =>
            {
                b = rest
            }
            _ => return None,
        }
    }
    // Up to 8 bytes (every decimal of up to 18 digits): one sign-extending i64 load.
    if b.len() <= 8 {
        let mut buf = [pad; 8];
        buf.get_mut(8 - b.len()..)?.copy_from_slice(b);
        return Some(i128::from(i64::from_be_bytes(buf)));
    }
    let mut buf = [pad; 16];
    buf.get_mut(16 - b.len()..)?.copy_from_slice(b);
    Some(i128::from_be_bytes(buf))
}

/// Appends the minimal big-endian two's complement bytes of `v` (`BigInteger.toByteArray`).
#[inline]
fn write_i128_be(v: i128, out: &mut Vec<u8>) -> usize {
    let magnitude_bits = 128
        - if v < 0 {
            (!v).leading_zeros()
        } else {
            v.leading_zeros()
        };
    let n = (magnitude_bits / 8 + 1) as usize;
    let all = v.to_be_bytes();
    out.extend_from_slice(all.get(16 - n..).unwrap_or(&all));
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_complement_bytes() {
        for (v, bytes) in [
            (0i128, &[0x00][..]),
            (-1, &[0xFF]),
            (15, &[0x0F]),
            (127, &[0x7F]),
            (128, &[0x00, 0x80]),
            (-128, &[0x80]),
            (-129, &[0xFF, 0x7F]),
        ] {
            let mut out = Vec::new();
            assert_eq!(write_i128_be(v, &mut out), bytes.len());
            assert_eq!(out, bytes, "{v}");
            assert_eq!(i128_from_be(bytes), Some(v));
        }
        for v in [i128::MAX, i128::MIN, i128::MIN + 1, 1 << 100, -(1 << 100)] {
            let mut out = Vec::new();
            write_i128_be(v, &mut out);
            assert!(out.len() <= 16);
            assert_eq!(i128_from_be(&out), Some(v));
        }
        let mut long = vec![0xFF; 20];
        long.push(0x80);
        assert_eq!(i128_from_be(&long), Some(-128));
        assert_eq!(i128_from_be(&[0x01; 17]), None);
    }

    #[test]
    fn fast_decimal_agrees() {
        let bs = BinarySerde::default();
        let mut cells: Vec<Vec<u8>> = Vec::new();
        for (unscaled, scale) in [
            (0i128, 0i32),
            (15, 1),
            (-12_345, 2),
            (999_999_999_999, 2),
            (1_000_000_000_000, 2),
            (-(1 << 62), 0),
            (1 << 70, 3),
            (7, -3),
            (123_456, 5),
        ] {
            let mut c = Vec::new();
            crate::rcfile::hadoop::write_vlong(&mut c, i64::from(scale));
            let mut b = Vec::new();
            write_i128_be(unscaled, &mut b);
            crate::rcfile::hadoop::write_vlong(&mut c, b.len() as i64);
            c.extend_from_slice(&b);
            cells.push(c);
        }
        for c in cells.clone() {
            for cut in 1..c.len() {
                cells.push(c[..cut].to_vec());
            }
        }
        cells.push(vec![0, 0]); // zero byte length
        for c in &cells {
            for (p, s) in [(12, 2), (18, 0), (5, 1), (38, 4), (3, 3)] {
                let slow = bs
                    .read_decimal(&mut Cursor::new(c, 0), p, s)
                    .ok()
                    .map(|d| d.map(|d| d.unscaled));
                let mut padded = c.clone();
                padded.extend_from_slice(&[0x7F; 12]);
                assert_eq!(
                    bs.decimal_fast(&padded, c.len(), p, s),
                    slow,
                    "{c:02x?} {p},{s}"
                );
                assert_eq!(bs.decimal_fast(c, c.len(), p, s), slow, "{c:02x?} {p},{s}");
            }
        }
    }

    proptest::proptest! {
        /// Any bytes after a plausible head, any cell length, anything after the cell: the
        /// fast reader agrees with the cursor reader.
        #[test]
        fn fast_decimal_agrees_on_any_bytes(
            head in (-3i8..40, -2i8..20),
            body in proptest::collection::vec(proptest::num::u8::ANY, 0..24),
            len in 0usize..26,
            p in 1u8..=38,
            s in 0u8..=38,
        ) {
            use proptest::prelude::*;
            let s = s.min(p);
            let bs = BinarySerde::default();
            let mut c = vec![head.0 as u8, head.1 as u8];
            c.extend_from_slice(&body);
            let len = len.min(c.len());
            let slow = bs
                .read_decimal(&mut Cursor::new(&c[..len], 0), p, s)
                .ok()
                .map(|d| d.map(|d| d.unscaled));
            prop_assert_eq!(bs.decimal_fast(&c, len, p, s), slow);
        }
    }

    #[test]
    fn rescaling() {
        let d = |u, s| {
            Some(Decimal {
                unscaled: u,
                scale: s,
            })
        };
        assert_eq!(rescale(15, 1, 5, 2), d(150, 2));
        assert_eq!(rescale(1445, 3, 10, 1), d(14, 1)); // one rounding, not two
        assert_eq!(rescale(1450, 3, 10, 1), d(15, 1));
        assert_eq!(rescale(-1450, 3, 10, 1), d(-15, 1));
        assert_eq!(rescale(-1449, 3, 10, 1), d(-14, 1));
        assert_eq!(rescale(999_995, 2, 5, 1), None); // rounds to 10000.0: 6 digits
        assert_eq!(rescale(i128::MAX, 1000, 38, 0), d(0, 0));
        assert_eq!(rescale(5, -3, 5, 0), d(5000, 0));
        assert_eq!(rescale(5, -3, 3, 0), None);
        assert_eq!(rescale(0, i32::MIN, 3, 2), d(0, 2));
        assert_eq!(rescale(1, i32::MIN, 3, 2), None);
    }

    #[test]
    fn string_shapes() {
        assert_eq!(string_value(&HiveType::Char(3), b"a"), Value::string("a  "));
        assert_eq!(
            string_value(&HiveType::Char(2), "日本語".as_bytes()),
            Value::string("日本")
        );
        assert_eq!(
            string_value(&HiveType::Varchar(2), "日本語".as_bytes()),
            Value::string("日本")
        );
        assert_eq!(
            string_value(&HiveType::Varchar(5), b"abc"),
            Value::string("abc")
        );
        assert_eq!(string_value(&HiveType::String, b""), Value::string(""));
    }
}
