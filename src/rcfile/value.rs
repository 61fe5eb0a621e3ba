//! The value model for every Hive type ([`Value`]) and the scalar types it needs: [`Date`],
//! [`Timestamp`] and [`Decimal`], with their canonical text forms.

use std::fmt;

/// One Hive value. Strings keep their raw bytes (Hive does not validate UTF-8 in text files);
/// structs are positional (names come from the [`super::HiveType`]).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Value {
    /// SQL NULL.
    Null,
    /// `boolean`
    Boolean(bool),
    /// `tinyint`
    TinyInt(i8),
    /// `smallint`
    SmallInt(i16),
    /// `int`
    Int(i32),
    /// `bigint`
    BigInt(i64),
    /// `float`
    Float(f32),
    /// `double`
    Double(f64),
    /// `string`, `varchar(n)` or `char(n)` (char values keep their padding).
    String(Vec<u8>),
    /// `binary`
    Binary(Vec<u8>),
    /// `date`
    Date(Date),
    /// `timestamp`
    Timestamp(Timestamp),
    /// `decimal(p,s)`
    Decimal(Decimal),
    /// `array<T>`
    Array(Vec<Value>),
    /// `map<K,V>`: entries in file order (duplicates possible).
    Map(Vec<(Value, Value)>),
    /// `struct<...>`: one value per declared field.
    Struct(Vec<Value>),
    /// `uniontype<...>`: the member index and its value.
    Union {
        /// Index of the member type.
        tag: u8,
        /// The value, of that member's type.
        value: Box<Value>,
    },
}

impl Value {
    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// A string value from text.
    pub fn string(s: impl Into<String>) -> Value {
        Value::String(s.into().into_bytes())
    }
    /// The string's text when it is valid UTF-8.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(b) => std::str::from_utf8(b).ok(),
            _ => None,
        }
    }
    /// The value as i64 for any integer type.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Value::TinyInt(v) => Some(v as i64),
            Value::SmallInt(v) => Some(v as i64),
            Value::Int(v) => Some(v as i64),
            Value::BigInt(v) => Some(v),
            _ => None,
        }
    }
    /// Equality that compares floats by bit pattern (so NaN equals NaN and -0.0 differs from
    /// 0.0): what round-trip tests want.
    pub fn same_as(&self, other: &Value) -> bool {
        use Value::*;
        match (self, other) {
            (Float(a), Float(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (Double(a), Double(b)) => a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
            (Array(a), Array(b)) | (Struct(a), Struct(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same_as(y))
            }
            (Map(a), Map(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|((k1, v1), (k2, v2))| k1.same_as(k2) && v1.same_as(v2))
            }
            (Union { tag: t1, value: v1 }, Union { tag: t2, value: v2 }) => {
                t1 == t2 && v1.same_as(v2)
            }
            _ => self == other,
        }
    }
}

/// A calendar date: days since 1970-01-01 in the proleptic Gregorian calendar.
///
/// ```
/// use colfile::rcfile::Date;
/// let d = Date::from_ymd(2012, 1, 1).unwrap();
/// assert_eq!(d.days(), 15340);
/// assert_eq!(d.to_string(), "2012-01-01");
/// assert_eq!("2012-01-01".parse::<Date>().unwrap(), d);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Date(pub i32);

/// Days from 1970-01-01 to y-m-d, proleptic Gregorian (any i64 year range that fits).
pub fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m as i64 + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d as i64 - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The proleptic Gregorian (year, month, day) of a day number.
pub fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// True when y-m-d is a real proleptic Gregorian date.
pub fn is_valid_ymd(y: i64, m: u32, d: u32) -> bool {
    if !(1..=12).contains(&m) || d == 0 {
        return false;
    }
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let dim = [
        31,
        if leap { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ];
    dim.get((m - 1) as usize).is_some_and(|&days| d <= days)
}

impl Date {
    /// The date y-m-d, if it exists and fits.
    pub fn from_ymd(y: i32, m: u32, d: u32) -> Option<Date> {
        if !is_valid_ymd(y as i64, m, d) {
            return None;
        }
        i32::try_from(days_from_civil(y as i64, m, d))
            .ok()
            .map(Date)
    }
    /// Days since 1970-01-01.
    pub fn days(self) -> i32 {
        self.0
    }
    /// (year, month, day).
    pub fn ymd(self) -> (i64, u32, u32) {
        civil_from_days(self.0 as i64)
    }
}

fn write_year(f: &mut fmt::Formatter<'_>, y: i64) -> fmt::Result {
    if y < 0 {
        write!(f, "-{:04}", -y)
    } else {
        write!(f, "{y:04}")
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (y, m, d) = self.ymd();
        write_year(f, y)?;
        write!(f, "-{m:02}-{d:02}")
    }
}

/// Parses `[-]Y-M-D` with 1–2 digit month/day; returns the rest of the string.
fn parse_ymd(s: &str) -> Option<((i64, u32, u32), &str)> {
    let (neg, s) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let mut it = s.splitn(3, '-');
    let y: i64 = digits(it.next()?, 1, 9)?;
    let m: u32 = digits(it.next()?, 1, 2)? as u32;
    let rest = it.next()?;
    let dl = rest.bytes().take_while(u8::is_ascii_digit).count();
    let d = digits(&rest[..dl], 1, 2)? as u32;
    let y = if neg { -y } else { y };
    Some(((y, m, d), &rest[dl..]))
}

fn digits(s: &str, min: usize, max: usize) -> Option<i64> {
    if s.len() < min || s.len() > max || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// Error returned when parsing a date, timestamp or decimal from text fails.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseValueError(pub String);

impl fmt::Display for ParseValueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for ParseValueError {}

impl std::str::FromStr for Date {
    type Err = ParseValueError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || ParseValueError(format!("invalid date {s:?} (want YYYY-MM-DD)"));
        let ((y, m, d), rest) = parse_ymd(s.trim()).ok_or_else(bad)?;
        if !rest.is_empty() {
            return Err(bad());
        }
        i32::try_from(y)
            .ok()
            .and_then(|y| Date::from_ymd(y, m, d))
            .ok_or_else(bad)
    }
}

/// A timestamp without time zone: wall-clock seconds since 1970-01-01 00:00:00 (proleptic
/// Gregorian, as if UTC) plus nanoseconds.
///
/// ```
/// use colfile::rcfile::Timestamp;
/// let t: Timestamp = "2012-01-01 00:00:00.123".parse().unwrap();
/// assert_eq!((t.seconds, t.nanos), (1_325_376_000, 123_000_000));
/// assert_eq!(t.to_string(), "2012-01-01 00:00:00.123");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp {
    /// Seconds since the epoch (wall clock).
    pub seconds: i64,
    /// Nanoseconds, 0..=999_999_999.
    pub nanos: u32,
}

impl Timestamp {
    /// A timestamp; `None` if nanos is out of range.
    pub fn new(seconds: i64, nanos: u32) -> Option<Timestamp> {
        (nanos < 1_000_000_000).then_some(Timestamp { seconds, nanos })
    }
    /// From calendar fields.
    pub fn from_parts(date: Date, h: u32, mi: u32, s: u32, nanos: u32) -> Option<Timestamp> {
        if h > 23 || mi > 59 || s > 59 {
            return None;
        }
        let secs = date.days() as i64 * 86_400 + (h * 3600 + mi * 60 + s) as i64;
        Timestamp::new(secs, nanos)
    }
    /// The date part.
    pub fn date(self) -> Date {
        Date(self.seconds.div_euclid(86_400) as i32)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let days = self.seconds.div_euclid(86_400);
        let sod = self.seconds.rem_euclid(86_400);
        let (y, m, d) = civil_from_days(days);
        write_year(f, y)?;
        write!(
            f,
            "-{m:02}-{d:02} {:02}:{:02}:{:02}",
            sod / 3600,
            sod / 60 % 60,
            sod % 60
        )?;
        if self.nanos != 0 {
            let mut frac = format!("{:09}", self.nanos);
            while frac.ends_with('0') {
                frac.pop();
            }
            write!(f, ".{frac}")?;
        }
        Ok(())
    }
}

impl std::str::FromStr for Timestamp {
    type Err = ParseValueError;
    /// Parses `YYYY-MM-DD[ HH:MM:SS[.f{1,9}]]` (also `T` as the separator).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let bad = || {
            ParseValueError(format!(
                "invalid timestamp {s:?} (want YYYY-MM-DD HH:MM:SS[.fffffffff])"
            ))
        };
        let ((y, m, d), rest) = parse_ymd(s.trim()).ok_or_else(bad)?;
        let date = i32::try_from(y)
            .ok()
            .and_then(|y| Date::from_ymd(y, m, d))
            .ok_or_else(bad)?;
        if rest.is_empty() {
            return Timestamp::from_parts(date, 0, 0, 0, 0).ok_or_else(bad);
        }
        let rest = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('T'))
            .ok_or_else(bad)?;
        let (hms, frac) = match rest.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (rest, None),
        };
        let mut it = hms.split(':');
        let h = digits(it.next().ok_or_else(bad)?, 1, 2).ok_or_else(bad)? as u32;
        let mi = digits(it.next().ok_or_else(bad)?, 1, 2).ok_or_else(bad)? as u32;
        let sec = digits(it.next().ok_or_else(bad)?, 1, 2).ok_or_else(bad)? as u32;
        if it.next().is_some() {
            return Err(bad());
        }
        let nanos = match frac {
            None => 0,
            Some(f) => {
                if f.is_empty() || f.len() > 9 || !f.bytes().all(|b| b.is_ascii_digit()) {
                    return Err(bad());
                }
                f.parse::<u32>().map_err(|_| bad())? * 10u32.pow(9 - f.len() as u32)
            }
        };
        Timestamp::from_parts(date, h, mi, sec, nanos).ok_or_else(bad)
    }
}

/// A decimal number: `unscaled × 10^-scale`, up to 38 digits.
///
/// ```
/// use colfile::rcfile::Decimal;
/// let d = Decimal::parse("1.505").unwrap().round_to(10, 2).unwrap();
/// assert_eq!(d.to_string(), "1.51");
/// assert_eq!(Decimal::parse("123.4").unwrap().round_to(3, 0).unwrap().to_string(), "123");
/// assert!(Decimal::parse("1234").unwrap().round_to(3, 0).is_none()); // 4 integer digits
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Decimal {
    /// The unscaled integer.
    pub unscaled: i128,
    /// Digits after the point (0..=38).
    pub scale: u8,
}

/// 10^38: decimal values must stay below this in magnitude.
pub const DECIMAL_MAX_UNSCALED: i128 = 100_000_000_000_000_000_000_000_000_000_000_000_000;

impl Decimal {
    /// A decimal, if `|unscaled| < 10^38` and `scale <= 38`.
    pub fn new(unscaled: i128, scale: u8) -> Option<Decimal> {
        (unscaled.unsigned_abs() < DECIMAL_MAX_UNSCALED as u128 && scale <= 38)
            .then_some(Decimal { unscaled, scale })
    }

    /// Number of digits of the unscaled value (at least 1).
    pub fn digits(&self) -> u32 {
        let mut n = self.unscaled.unsigned_abs();
        let mut d = 1;
        while n >= 10 {
            n /= 10;
            d += 1;
        }
        d
    }

    /// Rounds half-up (away from zero) to `scale` digits and checks that the integer part fits
    /// in `precision - scale` digits, as Hive's `enforcePrecisionScale` does; `None` if not.
    pub fn round_to(self, precision: u8, scale: u8) -> Option<Decimal> {
        let mut u = self.unscaled;
        if self.scale > scale {
            // One rounding step: HALF_UP on the first dropped digit and everything after it.
            let drop = (self.scale - scale) as u32;
            if drop > 38 {
                u = 0;
            } else {
                let d = 10i128.pow(drop);
                let (q, r) = (u / d, (u % d).abs());
                u = if r >= d - r { q + u.signum() } else { q };
            }
        } else if self.scale < scale {
            u = u.checked_mul(10i128.checked_pow((scale - self.scale) as u32)?)?;
        }
        let d = Decimal::new(u, scale)?;
        let fits = if precision >= scale {
            // An integer part of at most precision - scale digits: at most `precision`
            // digits in all (one comparison, not a division a digit).
            let max = 10u128.checked_pow(u32::from(precision));
            max.is_none_or(|m| d.unscaled.unsigned_abs() < m)
        } else {
            // No integer digits allowed.
            d.unscaled == 0 || d.digits() <= u32::from(scale)
        };
        fits.then_some(d)
    }

    /// Removes trailing fractional zeros (Hive's normalized form): `1.50` → `1.5`, `0.00` → `0`.
    pub fn normalized(self) -> Decimal {
        let mut d = self;
        // In 64 bits where it fits: i128 division is a library call (the writers' hot path).
        if let Ok(mut u) = i64::try_from(d.unscaled) {
            while d.scale > 0 && u % 10 == 0 {
                u /= 10;
                d.scale -= 1;
            }
            d.unscaled = i128::from(u);
            return d;
        }
        while d.scale > 0 && d.unscaled % 10 == 0 {
            d.unscaled /= 10;
            d.scale -= 1;
        }
        d
    }

    /// Parses plain or scientific notation (`-1.5`, `.5`, `1e3`, `+2.50E-1`), keeping every
    /// digit given (at most 38 significant digits after trimming; more are rounded away).
    pub fn parse(s: &str) -> Option<Decimal> {
        let s = s.trim();
        let (neg, s) = match s.as_bytes().first()? {
            b'-' => (true, &s[1..]),
            b'+' => (false, &s[1..]),
            _ => (false, s),
        };
        let (mant, exp) = match s.find(['e', 'E']) {
            Some(i) => (&s[..i], s[i + 1..].parse::<i32>().ok()?),
            None => (s, 0),
        };
        let (int, frac) = match mant.split_once('.') {
            Some((a, b)) => (a, b),
            None => (mant, ""),
        };
        if int.is_empty() && frac.is_empty() {
            return None;
        }
        if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
            return None;
        }
        // All digits, with the point after `int.len() + exp` of them.
        let all: Vec<u8> = int.bytes().chain(frac.bytes()).map(|b| b - b'0').collect();
        let first_nz = all.iter().position(|&d| d != 0);
        let Some(first_nz) = first_nz else {
            return Some(Decimal {
                unscaled: 0,
                scale: 0,
            });
        };
        let digits = all.get(first_nz..).unwrap_or_default();
        // scale = number of digits after the point
        let mut scale: i64 = frac.len() as i64 - exp as i64;
        let mut kept: Vec<u8> = digits.to_vec();
        // drop trailing digits beyond 38 significant or beyond scale 38, rounding half up
        // Too many digits: drop the excess in one HALF_UP step (rounding digit by digit would
        // round twice).
        let excess = (kept.len().saturating_sub(38) as i64)
            .max(scale - 38)
            .max(0) as usize;
        if excess > 0 {
            let first_dropped = kept.len().checked_sub(excess).and_then(|i| kept.get(i));
            let round_up = first_dropped.is_some_and(|&d| d >= 5);
            kept.truncate(kept.len().saturating_sub(excess));
            scale -= excess as i64;
            if round_up {
                // Trailing nines become zeros; the first other digit takes the carry, or a
                // new leading 1 does.
                let mut carry = true;
                for d in kept.iter_mut().rev() {
                    if *d == 9 {
                        *d = 0;
                    } else {
                        *d += 1;
                        carry = false;
                        break;
                    }
                }
                if carry {
                    kept.insert(0, 1);
                }
            }
        }
        let mut u: i128 = 0;
        for &d in &kept {
            u = u.checked_mul(10)?.checked_add(d as i128)?;
        }
        while scale < 0 {
            u = u.checked_mul(10)?;
            scale += 1;
        }
        let u = if neg { -u } else { u };
        Decimal::new(u, scale as u8)
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.unscaled.unsigned_abs().to_string();
        let sign = if self.unscaled < 0 { "-" } else { "" };
        let scale = self.scale as usize;
        if scale == 0 {
            return write!(f, "{sign}{digits}");
        }
        if digits.len() > scale {
            let (a, b) = digits.split_at(digits.len() - scale);
            write!(f, "{sign}{a}.{b}")
        } else {
            write!(f, "{sign}0.{}{digits}", "0".repeat(scale - digits.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Normalizing in 64 bits where the value fits gives what dividing the i128 does.
        #[test]
        fn normalized_drops_trailing_zeros_at_any_width(
            digits in 0i128..1_000_000_000_000,
            zeros in 0u32..30,
            neg in proptest::prelude::any::<bool>(),
            scale in 0u8..=38,
        ) {
            let u = digits.saturating_mul(10i128.pow(zeros)) * if neg { -1 } else { 1 };
            let Some(d) = Decimal::new(u, scale) else { return Ok(()) };
            let mut want = d;
            while want.scale > 0 && want.unscaled % 10 == 0 {
                want.unscaled /= 10;
                want.scale -= 1;
            }
            proptest::prop_assert_eq!(d.normalized(), want);
        }
    }

    #[test]
    fn civil_round_trip() {
        for z in (-800_000..3_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(z);
            assert!(is_valid_ymd(y, m, d));
            assert_eq!(days_from_civil(y, m, d), z);
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }

    #[test]
    fn timestamps() {
        let t: Timestamp = "1969-12-31 23:59:59.999999999".parse().unwrap();
        assert_eq!((t.seconds, t.nanos), (-1, 999_999_999));
        assert_eq!(t.to_string(), "1969-12-31 23:59:59.999999999");
        assert_eq!(
            "0001-01-01 12:00:00"
                .parse::<Timestamp>()
                .unwrap()
                .to_string(),
            "0001-01-01 12:00:00"
        );
        assert!("2020-02-30 00:00:00".parse::<Timestamp>().is_err());
    }

    #[test]
    fn decimals() {
        let p = |s: &str| Decimal::parse(s).unwrap();
        assert_eq!(p("1.50").to_string(), "1.50");
        assert_eq!(
            p("-0.000000000000000001").to_string(),
            "-0.000000000000000001"
        );
        assert_eq!(p("1e3").to_string(), "1000");
        assert_eq!(p("1.5E-10").to_string(), "0.00000000015");
        assert_eq!(p("99999.5").round_to(5, 0), None);
        assert_eq!(p("-0.5").round_to(9, 0).unwrap().to_string(), "-1");
        // One rounding step, not digit by digit (1.445 -> 1.4, not 1.45 -> 1.5).
        assert_eq!(p("1.445").round_to(10, 1).unwrap().to_string(), "1.4");
        assert_eq!(p("0.0449").round_to(10, 2).unwrap().to_string(), "0.04");
        assert_eq!(p("-0.0450").round_to(10, 2).unwrap().to_string(), "-0.05");
        assert_eq!(p("0.5").round_to(1, 0).unwrap().to_string(), "1");
        assert_eq!(p("1.50").normalized().to_string(), "1.5");
        assert_eq!(p("0.00").normalized().to_string(), "0");
        assert_eq!(
            p("99999999999999999999.999999999999999999")
                .round_to(38, 18)
                .unwrap()
                .to_string(),
            "99999999999999999999.999999999999999999"
        );
        // More than 38 digits are rounded away in one step.
        let many = format!("0.{}145", "0".repeat(37));
        assert_eq!(p(&many).to_string(), format!("0.{}1", "0".repeat(37)));
        assert!(Decimal::parse("abc").is_none());
        assert!(Decimal::parse("").is_none());
        assert!(Decimal::parse(".").is_none());
    }

    /// `round_to`'s fit test is Hive's count of integer digits against `precision - scale`,
    /// on both sides of every power of ten, for every precision and scale.
    #[test]
    fn round_to_fits_as_digits_count() {
        let mut values = vec![0i128, 1, -1];
        for k in 1..38u32 {
            let t = 10i128.pow(k);
            values.extend([t - 1, t, t + 1, -(t - 1), -t]);
        }
        for &u in &values {
            for scale in 0..=38u8 {
                let Some(d) = Decimal::new(u, scale) else {
                    continue;
                };
                for precision in 1..=38u8 {
                    for to in [
                        scale,
                        scale.saturating_sub(1),
                        scale.saturating_add(1).min(38),
                    ] {
                        let got = d.round_to(precision, to);
                        // Precision 38 holds any decimal: the rounded value, untested.
                        let rounded = d.round_to(38, to);
                        let expect = rounded.filter(|r| {
                            let int = if r.unscaled == 0 {
                                0
                            } else {
                                r.digits().saturating_sub(u32::from(to))
                            };
                            int <= u32::from(precision).saturating_sub(u32::from(to))
                        });
                        assert_eq!(got, expect, "{d} to ({precision}, {to})");
                    }
                }
            }
        }
    }
}
