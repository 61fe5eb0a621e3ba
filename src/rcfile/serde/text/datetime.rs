//! Dates and timestamps in text cells: `java.sql.Date.valueOf` / `Timestamp.valueOf` with the
//! lenient hybrid Julian/Gregorian calendar of Hive 2.3, and `yyyy-MM-dd[ HH:mm:ss[.f]]`
//! output.

use super::scalar::{digit_count, format_u128, write_i64};
use crate::rcfile::value::{civil_from_days, days_from_civil};
use crate::rcfile::{Date, Timestamp};

/// Day number (from 1970-01-01) of the first Gregorian day, 1582-10-15.
const GREGORIAN_CUTOVER_DAY: i64 = -141_427;
const SECONDS_PER_DAY: i64 = 86_400;

/// Day number of the Julian-calendar date y-m-1, plus `d - 1` days (lenient day of month).
fn julian_days(y: i64, m: i64, d: i64) -> i64 {
    let a = (14 - m) / 12;
    let y2 = y + 4800 - a;
    let m2 = m + 12 * a - 3;
    let jdn = 1 + (153 * m2 + 2) / 5 + 365 * y2 + y2.div_euclid(4) - 32_083;
    jdn - 2_440_588 + (d - 1)
}

/// The Julian-calendar date of a day number.
fn julian_from_days(days: i64) -> (i64, u32, u32) {
    let c = days + 2_440_588 + 32_082;
    let d = (4 * c + 3).div_euclid(1461);
    let e = c - (1461 * d).div_euclid(4);
    let m = (5 * e + 2) / 153;
    let day = e - (153 * m + 2) / 5 + 1;
    let month = m + 3 - 12 * (m / 10);
    (d - 4800 + m / 10, month as u32, day as u32)
}

/// `new java.util.Date(y - 1900, m - 1, d, 0, 0, secs)` in UTC: seconds since the epoch of
/// the lenient hybrid-calendar wall time (day of month 1..=31 may overflow its month, and
/// `secs` may be any number of seconds from midnight).
fn hybrid_instant(y: i64, m: i64, d: i64, secs: i64) -> i64 {
    let g = (days_from_civil(y, m as u32, 1) + d - 1) * SECONDS_PER_DAY + secs;
    let j = julian_days(y, m, d) * SECONDS_PER_DAY + secs;
    let cutover = GREGORIAN_CUTOVER_DAY * SECONDS_PER_DAY;
    if y >= 1582 {
        // Gregorian unless that lands before the cutover (the 1582 gap is read as Julian).
        if g >= cutover {
            g
        } else {
            j
        }
    } else if j < cutover {
        j
    } else {
        g
    }
}

/// The hybrid-calendar label of a day number, as `java.util.Date.toString` shows it (years
/// BC by their era year), as a proleptic [`Date`] with the same year, month and day (a
/// Julian-only February 29 becomes March 1).
fn hybrid_label(days: i64) -> Option<Date> {
    if days >= GREGORIAN_CUTOVER_DAY {
        return i32::try_from(days).ok().map(Date); // Gregorian: the label is the day itself
    }
    let (y, m, d) = julian_from_days(days);
    let y = if y <= 0 { 1 - y } else { y };
    i32::try_from(days_from_civil(y, m, d)).ok().map(Date)
}

/// `Integer.parseInt(s, 10)` on an ASCII slice.
fn java_int(b: &[u8]) -> Option<i32> {
    let (negative, digits) = match b.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut v: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (c - b'0') as i64;
        if v > 1 << 31 {
            return None;
        }
    }
    let v = if negative { -v } else { v };
    i32::try_from(v).ok()
}

fn find(b: &[u8], c: u8, from: usize) -> Option<usize> {
    b.get(from..)?
        .iter()
        .position(|&x| x == c)
        .map(|p| p + from)
}

/// Splits `yyyy-[m]m-[d]d` (as both `valueOf`s check it) into (year, month, day).
fn java_ymd(b: &[u8]) -> Option<(i64, i64, i64)> {
    let first = find(b, b'-', 0)?;
    let second = find(b, b'-', first + 1)?;
    if first != 4 || !(2..=3).contains(&(second - first)) || !(2..=3).contains(&(b.len() - second))
    {
        return None;
    }
    let year = java_int(b.get(..first)?)?;
    let month = java_int(b.get(first + 1..second)?)?;
    let day = java_int(b.get(second + 1..)?)?;
    ((1..=12).contains(&month) && (1..=31).contains(&day)).then_some((
        year as i64,
        month as i64,
        day as i64,
    ))
}

/// Two ASCII digits at `b[i..i + 2]`.
fn two_digits(b: &[u8], i: usize) -> Option<u32> {
    match b.get(i..i + 2)? {
        &[x @ b'0'..=b'9', y @ b'0'..=b'9'] => Some((x - b'0') as u32 * 10 + (y - b'0') as u32),
        _ => None,
    }
}

/// Fast path for what Hive writes, `yyyy-MM-dd` after 1582 with an existing day: the day
/// number, with no calendar normalization to do. `None` sends the text down the general path.
fn canonical_date(b: &[u8]) -> Option<i32> {
    if b.len() != 10 || b.get(4) != Some(&b'-') || b.get(7) != Some(&b'-') {
        return None;
    }
    let y = two_digits(b, 0)? * 100 + two_digits(b, 2)?;
    let (m, d) = (two_digits(b, 5)?, two_digits(b, 8)?);
    if y <= 1582 || !crate::rcfile::value::is_valid_ymd(y as i64, m, d) {
        return None;
    }
    Some(days_from_civil(y as i64, m, d) as i32)
}

/// Fast path for what Hive writes, `yyyy-MM-dd HH:mm:ss[.f{1,9}]` after 1582 with fields in
/// range.
fn canonical_timestamp(b: &[u8]) -> Option<Timestamp> {
    if b.len() < 19 || b.len() == 20 || b.len() > 29 || b.get(10) != Some(&b' ') {
        return None;
    }
    let days = canonical_date(b.get(..10)?)?;
    if b.get(13) != Some(&b':') || b.get(16) != Some(&b':') {
        return None;
    }
    let (h, mi, sec) = (two_digits(b, 11)?, two_digits(b, 14)?, two_digits(b, 17)?);
    if h > 23 || mi > 59 || sec > 59 {
        return None;
    }
    let mut nanos = 0u32;
    if let Some(frac) = b.get(20..).filter(|_| b.len() > 19) {
        if b.get(19) != Some(&b'.') || !frac.iter().all(u8::is_ascii_digit) {
            return None;
        }
        nanos = frac.iter().fold(0, |n, &c| n * 10 + (c - b'0') as u32)
            * 10u32.pow(9 - frac.len() as u32);
    }
    let secs = days as i64 * SECONDS_PER_DAY + (h * 3600 + mi * 60 + sec) as i64;
    Timestamp::new(secs, nanos)
}

/// `LazyDate` (Hive 2.3): `java.sql.Date.valueOf`, i.e. `yyyy-[m]m-[d]d`, normalized
/// leniently in the hybrid calendar.
pub(super) fn parse_date(b: &[u8]) -> Option<Date> {
    if let Some(days) = canonical_date(b) {
        return Some(Date(days));
    }
    let (y, m, d) = java_ymd(b)?;
    hybrid_label(hybrid_instant(y, m, d, 0).div_euclid(SECONDS_PER_DAY))
}

/// `LazyTimestamp` (Hive 2.3): at least 8 bytes, then `java.sql.Timestamp.valueOf` on the
/// trimmed text: `yyyy-[m]m-[d]d h:m:s[.f{1,9}]` with any integers for h, m and s, normalized
/// leniently in the hybrid calendar.
pub(super) fn parse_timestamp(b: &[u8]) -> Option<Timestamp> {
    if let Some(t) = canonical_timestamp(b) {
        return Some(t);
    }
    if b.len() < 8 || !b.is_ascii() {
        return None;
    }
    // String.trim: strip bytes up to 0x20 at both ends.
    let start = b.iter().position(|&c| c > b' ')?;
    let end = b.iter().rposition(|&c| c > b' ')?;
    let s = b.get(start..=end)?;
    let space = find(s, b' ', 0)?;
    let (y, m, d) = java_ymd(s.get(..space)?)?;
    let colon1 = find(s, b':', space + 1)?;
    let colon2 = find(s, b':', colon1 + 1)?;
    if colon2 + 1 >= s.len() {
        return None;
    }
    let hour = java_int(s.get(space + 1..colon1)?)?;
    let minute = java_int(s.get(colon1 + 1..colon2)?)?;
    let (second, nanos) = match find(s, b'.', colon2 + 1) {
        None => (java_int(s.get(colon2 + 1..)?)?, 0),
        Some(p) => {
            let frac = s.get(p + 1..)?;
            if frac.is_empty() || frac.len() > 9 || !frac.first()?.is_ascii_digit() {
                return None;
            }
            let f = java_int(frac)?;
            (
                java_int(s.get(colon2 + 1..p)?)?,
                f as u32 * 10u32.pow(9 - frac.len() as u32),
            )
        }
    };
    let secs = hour as i64 * 3600 + minute as i64 * 60 + second as i64;
    let t = hybrid_instant(y, m, d, secs);
    let date = hybrid_label(t.div_euclid(SECONDS_PER_DAY))?;
    Timestamp::new(
        date.days() as i64 * SECONDS_PER_DAY + t.rem_euclid(SECONDS_PER_DAY),
        nanos,
    )
}

/// Appends `yyyy-MM-dd`.
pub(super) fn write_date(d: Date, out: &mut Vec<u8>) {
    let (y, m, day) = civil_from_days(d.days() as i64);
    if y < 0 {
        out.push(b'-');
    }
    let y = y.unsigned_abs();
    if y < 1000 {
        out.extend(std::iter::repeat_n(
            b'0',
            4 - digit_count(y as u128).max(1) as usize,
        ));
    }
    write_i64(y as i64, out);
    out.extend_from_slice(&[b'-', b'0' + (m / 10) as u8, b'0' + (m % 10) as u8]);
    out.extend_from_slice(&[b'-', b'0' + (day / 10) as u8, b'0' + (day % 10) as u8]);
}

/// Appends `yyyy-MM-dd HH:mm:ss` and, when nanos ≠ 0, `.` and the fraction without trailing
/// zeros (`TimestampWritable.toString`).
pub(super) fn write_timestamp(t: Timestamp, out: &mut Vec<u8>) {
    write_date(Date(t.seconds.div_euclid(SECONDS_PER_DAY) as i32), out);
    let sod = t.seconds.rem_euclid(SECONDS_PER_DAY) as u32;
    for (sep, v) in [(b' ', sod / 3600), (b':', sod / 60 % 60), (b':', sod % 60)] {
        out.extend_from_slice(&[sep, b'0' + (v / 10) as u8, b'0' + (v % 10) as u8]);
    }
    if t.nanos != 0 {
        let mut n = t.nanos;
        let mut width = 9;
        while n % 10 == 0 {
            n /= 10;
            width -= 1;
        }
        out.push(b'.');
        let mut buf = [0u8; 40];
        let digits = format_u128(n as u128, &mut buf);
        out.extend(std::iter::repeat_n(b'0', width - digits.len()));
        out.extend_from_slice(digits);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks `parse` on (input, expected text or None) pairs.
    fn table<T: ToString>(parse: fn(&[u8]) -> Option<T>, cases: &[(&str, Option<&str>)]) {
        for &(input, want) in cases {
            let got = parse(input.as_bytes()).map(|v| v.to_string());
            assert_eq!(got.as_deref(), want, "{input:?}");
        }
    }

    #[test]
    fn dates() {
        table(
            parse_date,
            &[
                ("2020-1-1", Some("2020-01-01")),
                ("2020-02-30", Some("2020-03-01")),
                ("1582-10-10", Some("1582-10-20")),
                ("1582-10-04", Some("1582-10-04")),
                ("1900-02-29", Some("1900-03-01")),
                ("0000-01-01", Some("0001-01-01")),
                ("+202-01-01", Some("0202-01-01")),
                ("0001-01-01", Some("0001-01-01")),
                ("2020-13-01", None),
                ("2020-01-32", None),
                ("10000-01-01", None),
                ("2020-01-01 ", None),
                ("-202-01-01", None),
                ("2020-001-01", None),
            ],
        );
    }

    #[test]
    fn timestamps() {
        table(
            parse_timestamp,
            &[
                ("2020-01-01 24:00:00", Some("2020-01-02 00:00:00")),
                ("2020-01-01 -1:00:00", Some("2019-12-31 23:00:00")),
                ("2020-01-01 999999:00:00", Some("2134-01-29 15:00:00")),
                (" 2020-01-01 00:00:00.1 ", Some("2020-01-01 00:00:00.1")),
                (
                    "\u{1}2020-01-01 00:00:00\u{1f}",
                    Some("2020-01-01 00:00:00"),
                ),
                ("1582-10-04 24:00:00", Some("1582-10-15 00:00:00")),
                ("0000-01-01 00:00:00", Some("0001-01-01 00:00:00")),
                ("2020-01-01", None),
                ("2020-01-01 00:00:00.", None),
                ("2020-01-01T00:00:00", None),
                ("2020-01-01  00:00:00", None),
                ("2020-01-01 00:00:00.1234567890", None),
                ("2020-01-01 00:00:00.+1", None),
                ("2020-01-01 00:00", None),
            ],
        );
        let mut out = Vec::new();
        write_timestamp(Timestamp::new(-1, 999_999_999).unwrap(), &mut out);
        assert_eq!(out, b"1969-12-31 23:59:59.999999999");
        out.clear();
        write_timestamp(Timestamp::new(0, 100_000_000).unwrap(), &mut out);
        assert_eq!(out, b"1970-01-01 00:00:00.1");
    }
}
