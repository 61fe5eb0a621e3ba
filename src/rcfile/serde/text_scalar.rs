//! Primitive text parsing and formatting for the text serde, each function mirroring the Hive
//! 2.3 / JDK 17 code path it replaces (named in its doc). None of them allocates except where
//! the result is a new byte string.

use crate::rcfile::value::{civil_from_days, days_from_civil};
use crate::rcfile::{Date, Decimal, Timestamp};
use std::borrow::Cow;

/// `LazyUtils.isNumberMaybe`: cheap rejections before number parsing.
pub(super) fn is_number_maybe(b: &[u8]) -> bool {
    match b {
        [] => false,
        [c] => c.is_ascii_digit(),
        [a, c] => a.is_ascii_digit() || c.is_ascii_digit(),
        [b'N' | b'n', _, _, _] => false,
        _ => true,
    }
}

/// `LazyLong.parseLong` / `LazyInteger.parseInt` (radix 10): optional sign, digits, and an
/// optional `.digits` tail that is checked and ignored; `None` on anything else or overflow.
pub(super) fn parse_long(b: &[u8]) -> Option<i64> {
    let (negative, digits) = match b.split_first()? {
        (b'-', rest) => (true, rest),
        (b'+', rest) => (false, rest),
        _ => (false, b),
    };
    if digits.is_empty() && b.len() == 1 {
        return None;
    }
    // Fast path: up to 18 plain digits cannot overflow.
    if !digits.is_empty() && digits.len() <= 18 {
        let mut mag = 0u64;
        let all_digits = digits.iter().all(|&c| {
            let d = c.wrapping_sub(b'0');
            mag = mag * 10 + d as u64;
            d < 10
        });
        if all_digits {
            return Some(if negative { -(mag as i64) } else { mag as i64 });
        }
    }
    let limit: u64 = if negative { 1 << 63 } else { i64::MAX as u64 };
    let mut mag: u64 = 0;
    let mut iter = digits.iter();
    while let Some(&c) = iter.next() {
        match c {
            b'0'..=b'9' => {
                mag = mag.checked_mul(10)?.checked_add((c - b'0') as u64)?;
                if mag > limit {
                    return None;
                }
            }
            b'.' => {
                if !iter.all(u8::is_ascii_digit) {
                    return None;
                }
                break;
            }
            _ => return None,
        }
    }
    Some(if negative {
        (mag as i64).wrapping_neg()
    } else {
        mag as i64
    })
}

/// `LazyBoolean`: `true`/`false` in any case; with the extended literals also one of
/// `T t 1` / `F f 0`.
pub(super) fn parse_bool(b: &[u8], extended: bool) -> Option<bool> {
    if b.eq_ignore_ascii_case(b"true") {
        Some(true)
    } else if b.eq_ignore_ascii_case(b"false") {
        Some(false)
    } else if extended {
        match b {
            [b'T' | b't' | b'1'] => Some(true),
            [b'F' | b'f' | b'0'] => Some(false),
            _ => None,
        }
    } else {
        None
    }
}

/// Float or double text (`LazyFloat`/`LazyDouble`): Java's parser after `isNumberMaybe`.
pub(super) fn number_text(b: &[u8]) -> Option<&str> {
    if !is_number_maybe(b) {
        return None;
    }
    std::str::from_utf8(b).ok()
}

// ---------------------------------------------------------------------------------------------
// Decimals

/// 10^38: a decimal's magnitude stays below this.
const TEN_38: u128 = 100_000_000_000_000_000_000_000_000_000_000_000_000;

fn pow10(k: u32) -> Option<u128> {
    10u128.checked_pow(k)
}

/// Rounds a magnitude half-up (away from zero) from `from` to `to` fraction digits in one
/// step, or scales it up exactly; `None` on overflow of u128.
pub(super) fn rescale(mag: u128, from: i32, to: i32) -> Option<u128> {
    if to >= from {
        return mag.checked_mul(pow10((to - from) as u32)?);
    }
    let k = (from - to) as u32;
    let Some(d) = pow10(k) else {
        return Some(0); // dropping 39+ digits of a < 2^128 magnitude
    };
    let (q, r) = (mag / d, mag % d);
    Some(if r >= d - r { q + 1 } else { q })
}

/// Number of decimal digits of `mag` (0 for zero).
fn digit_count(mut mag: u128) -> u32 {
    let mut n = 0;
    while mag > 0 {
        mag /= 10;
        n += 1;
    }
    n
}

/// Hive's `enforcePrecisionScale`: rounds half-up to `scale` and checks that at most
/// `precision - scale` integer digits remain.
pub(super) fn enforce(
    negative: bool,
    mag: u128,
    from_scale: i32,
    precision: u8,
    scale: u8,
) -> Option<Decimal> {
    let mag = rescale(mag, from_scale, scale as i32)?;
    if mag >= TEN_38 || mag >= pow10(precision as u32)? {
        return None;
    }
    let unscaled = mag as i128;
    Decimal::new(if negative { -unscaled } else { unscaled }, scale)
}

/// `HiveDecimalWritable.setFromBytes` without blank trimming (`FastHiveDecimalImpl`):
/// `[+-][digits][.[digits]][(e|E)[+-]digits]`, at most 38 stored digits (more fraction digits
/// round half-up on the first dropped digit), an exponent of at most two significant digits,
/// and a result scale of at most 38. Returns (negative, magnitude, scale).
pub(super) fn parse_hive_decimal(b: &[u8]) -> Option<(bool, u128, i32)> {
    let mut i = 0;
    let negative = match b.first()? {
        b'-' => {
            i = 1;
            true
        }
        b'+' => {
            i = 1;
            false
        }
        _ => false,
    };
    if i >= b.len() {
        return None;
    }
    let at = |i: usize| b.get(i).copied();
    let mut mag: u128 = 0;
    let mut precision = 0u32; // stored digits
    let mut have_integer = false;
    while let Some(c @ b'0'..=b'9') = at(i) {
        have_integer = true;
        i += 1;
        if precision == 0 && c == b'0' {
            continue;
        }
        if precision == 38 {
            return None;
        }
        mag = mag * 10 + (c - b'0') as u128;
        precision += 1;
    }
    let integer_digits = precision;
    let saw_dot = at(i) == Some(b'.');
    if saw_dot {
        i += 1;
    }
    if i >= b.len() {
        return have_integer.then_some((negative, mag, 0));
    }
    if !have_integer && !saw_dot {
        return None;
    }
    let mut scale = 0i32;
    let mut round_up = false;
    if saw_dot {
        while let Some(c) = at(i) {
            if !c.is_ascii_digit() {
                if !have_integer {
                    return None; // a naked dot followed by something else
                }
                break;
            }
            i += 1;
            if precision == 38 {
                round_up = c >= b'5';
                while at(i).is_some_and(|c| c.is_ascii_digit()) {
                    i += 1;
                }
                break;
            }
            mag = mag * 10 + (c - b'0') as u128;
            precision += 1;
            scale += 1;
        }
    }
    let is_zero = integer_digits == 0 && mag == 0;
    if round_up {
        mag += 1;
        if mag >= TEN_38 {
            if scale == 0 {
                return None;
            }
            mag /= 10;
            scale -= 1;
        }
    }
    if !matches!(at(i), Some(b'e' | b'E')) {
        return (i >= b.len()).then_some((negative, mag, scale));
    }
    i += 1;
    let exp_negative = at(i)? == b'-';
    i += matches!(at(i), Some(b'+' | b'-')) as usize;
    if i >= b.len() {
        return None;
    }
    let mut exponent = 0i32;
    let mut significant = 0;
    while let Some(c @ b'0'..=b'9') = at(i) {
        if significant >= 2 {
            return None; // a power of ten far beyond any decimal
        }
        if c != b'0' || exponent != 0 {
            exponent = exponent * 10 + (c - b'0') as i32;
            significant += 1;
        }
        i += 1;
    }
    if i < b.len() {
        return None;
    }
    if is_zero || exponent == 0 {
        return Some((negative, mag, scale));
    }
    let exponent = if exp_negative { -exponent } else { exponent };
    // value × 10^exponent, keeping the scale within 0..=38.
    let new_scale = scale - exponent;
    if new_scale < 0 {
        let mag = mag.checked_mul(pow10((-new_scale) as u32)?)?;
        return (mag < TEN_38).then_some((negative, mag, 0));
    }
    if new_scale > 38 {
        return Some((negative, rescale(mag, new_scale, 38)?, 38));
    }
    Some((negative, mag, new_scale))
}

/// Appends `±digits` with exactly `scale` fraction digits (`HiveDecimal.toFormatBytes`).
pub(super) fn write_decimal(d: &Decimal, out: &mut Vec<u8>) {
    let mut buf = [0u8; 40];
    let digits = format_u128(d.unscaled.unsigned_abs(), &mut buf);
    if d.unscaled < 0 {
        out.push(b'-');
    }
    let scale = d.scale as usize;
    if scale == 0 {
        out.extend_from_slice(digits);
    } else if digits.len() > scale {
        let (a, b) = digits.split_at(digits.len() - scale);
        out.extend_from_slice(a);
        out.push(b'.');
        out.extend_from_slice(b);
    } else {
        out.extend_from_slice(b"0.");
        out.extend(std::iter::repeat_n(b'0', scale - digits.len()));
        out.extend_from_slice(digits);
    }
}

/// Decimal digits of `v` in `buf`.
pub(super) fn format_u128(mut v: u128, buf: &mut [u8; 40]) -> &[u8] {
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 || i == 0 {
            break;
        }
    }
    &buf[i..]
}

/// Appends the decimal text of `v`.
pub(super) fn write_i64(v: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 40];
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(format_u128(v.unsigned_abs() as u128, &mut buf));
}

// ---------------------------------------------------------------------------------------------
// Dates and timestamps (java.sql.Date/Timestamp.valueOf, hybrid Julian/Gregorian calendar)

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

// ---------------------------------------------------------------------------------------------
// Binary (Base64)

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Appends standard Base64 with `=` padding and no line breaks (commons-codec
/// `encodeBase64`).
pub(super) fn write_base64(b: &[u8], out: &mut Vec<u8>) {
    let sym = |v: u32| B64[(v & 63) as usize];
    for chunk in b.chunks(3) {
        let v = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | (x as u32) << (16 - 8 * i));
        out.extend_from_slice(&[sym(v >> 18), sym(v >> 12)]);
        out.push(if chunk.len() > 1 { sym(v >> 6) } else { b'=' });
        out.push(if chunk.len() > 2 { sym(v) } else { b'=' });
    }
}

/// The 6-bit value of a Base64 symbol of either alphabet (commons-codec decodes both).
fn b64_value(c: u8) -> Option<u32> {
    Some(match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' | b'-' => 62,
        b'/' | b'_' => 63,
        _ => return None,
    } as u32)
}

/// `Character.isWhitespace` on a (signed) byte.
fn java_whitespace(c: u8) -> bool {
    matches!(c, 9..=13 | 28..=32)
}

/// `LazyBinary` (Hive 2.3, commons-codec 1.17): if every byte is a Base64 symbol, `=` or
/// whitespace, decode leniently (whitespace skipped, stop at the first `=`, leftover bits
/// dropped); keep the raw bytes when that fails the check or decodes to nothing.
pub(super) fn decode_binary_into(b: &[u8], out: &mut Vec<u8>) {
    let start = out.len();
    if b.iter()
        .all(|&c| b64_value(c).is_some() || c == b'=' || java_whitespace(c))
    {
        out.reserve(b.len() / 4 * 3 + 2);
        let (mut acc, mut n) = (0u32, 0);
        for &c in b {
            if c == b'=' {
                break;
            }
            if let Some(v) = b64_value(c) {
                acc = acc << 6 | v;
                n += 1;
                if n == 4 {
                    out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
                    (acc, n) = (0, 0);
                }
            }
        }
        match n {
            2 => out.push((acc >> 4) as u8),
            3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
            _ => {}
        }
    }
    if out.len() == start {
        out.extend_from_slice(b);
    }
}

// ---------------------------------------------------------------------------------------------
// Varchar and char

/// UTF-8 as Java's decoder reads it with replacement (`Text.decode`): valid text unchanged;
/// each malformed sequence becomes one U+FFFD, with the JDK's choice of how many bytes a
/// malformed sequence spans (an encoded surrogate is one sequence of three bytes, a truncated
/// sequence at the end is one).
pub(super) fn java_utf8_lossy(b: &[u8]) -> Cow<'_, [u8]> {
    if std::str::from_utf8(b).is_ok() {
        return Cow::Borrowed(b);
    }
    const FFFD: &[u8] = "\u{fffd}".as_bytes();
    let cont = |i: usize| b.get(i).is_some_and(|&c| c & 0xc0 == 0x80);
    let mut out = Vec::with_capacity(b.len() + 8);
    let mut i = 0;
    while let Some(&b1) = b.get(i) {
        let rest = b.len() - i;
        // (bytes of a valid sequence, or bytes to replace with one U+FFFD)
        let (valid, len) = match b1 {
            0x00..=0x7f => (true, 1),
            0xc2..=0xdf => (cont(i + 1), 1 + cont(i + 1) as usize),
            0xe0..=0xef => {
                let b2 = b.get(i + 1).copied().unwrap_or(0);
                let bad2 = (b1 == 0xe0 && b2 & 0xe0 == 0x80) || !cont(i + 1);
                if rest < 3 {
                    (false, if rest > 1 && bad2 { 1 } else { rest })
                } else if bad2 {
                    (false, 1)
                } else if !cont(i + 2) {
                    (false, 2)
                } else {
                    // ED A0..BF xx encodes a surrogate: one malformed unit of three bytes.
                    (!(b1 == 0xed && b2 >= 0xa0), 3)
                }
            }
            0xf0..=0xf7 => {
                let b2 = b.get(i + 1).copied().unwrap_or(0);
                let bad2 = b1 > 0xf4
                    || (b1 == 0xf0 && !(0x90..=0xbf).contains(&b2))
                    || (b1 == 0xf4 && b2 & 0xf0 != 0x80)
                    || !cont(i + 1);
                if rest < 4 {
                    if b1 > 0xf4 || (rest > 1 && bad2) {
                        (false, 1)
                    } else if rest > 2 && !cont(i + 2) {
                        (false, 2)
                    } else {
                        (false, rest)
                    }
                } else if bad2 {
                    (false, 1)
                } else if !cont(i + 2) {
                    (false, 2)
                } else if !cont(i + 3) {
                    (false, 3)
                } else {
                    (true, 4)
                }
            }
            _ => (false, 1),
        };
        let end = (i + len.max(1)).min(b.len());
        if valid {
            out.extend_from_slice(b.get(i..end).unwrap_or_default());
        } else {
            out.extend_from_slice(FFFD);
        }
        i = end;
    }
    Cow::Owned(out)
}

/// The first `n` code points of valid UTF-8.
pub(super) fn truncate_chars(b: &[u8], n: u32) -> &[u8] {
    let mut count = 0u32;
    for (i, &c) in b.iter().enumerate() {
        if c & 0xc0 != 0x80 {
            if count == n {
                return b.get(..i).unwrap_or(b);
            }
            count += 1;
        }
    }
    b
}

/// Appends varchar(n) / char(n) text as Hive holds it: Java-decoded, truncated to `n` code
/// points, and for char padded with spaces to `n` code points.
pub(super) fn fit_chars_into(b: &[u8], n: u32, pad: bool, out: &mut Vec<u8>) {
    let text = java_utf8_lossy(b);
    let kept = truncate_chars(&text, n);
    out.extend_from_slice(kept);
    if pad {
        let count = kept.iter().filter(|&&c| c & 0xc0 != 0x80).count() as u32;
        out.extend(std::iter::repeat_n(b' ', n.saturating_sub(count) as usize));
    }
}

/// [`fit_chars_into`] into a new vector.
pub(super) fn fit_chars(b: &[u8], n: u32, pad: bool) -> Vec<u8> {
    let mut v = Vec::with_capacity(b.len() + n as usize);
    fit_chars_into(b, n, pad, &mut v);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn longs() {
        let ok: &[(&[u8], i64)] = &[
            (b"1", 1),
            (b"+1", 1),
            (b"-0", 0),
            (b"1.", 1),
            (b".5", 0),
            (b"-.5", 0),
            (b"-1.99", -1),
            (b"00012", 12),
            (b"9223372036854775807", i64::MAX),
            (b"-9223372036854775808", i64::MIN),
        ];
        for &(b, v) in ok {
            assert_eq!(parse_long(b), Some(v), "{:?}", String::from_utf8_lossy(b));
        }
        for b in [
            &b"-"[..],
            b"+",
            b"1..",
            b"1.x",
            b"1 ",
            b" 1",
            b"1e3",
            b"9223372036854775808",
            b"-9223372036854775809",
            b"--1",
        ] {
            assert_eq!(parse_long(b), None, "{:?}", String::from_utf8_lossy(b));
        }
    }

    #[test]
    fn decimals() {
        let cases: &[(&str, u8, u8, Option<&str>)] = &[
            ("1.445", 10, 1, Some("1.4")),
            ("1.45", 10, 1, Some("1.5")),
            ("-1.005", 10, 2, Some("-1.01")),
            (".5", 10, 2, Some("0.50")),
            (".5e1", 10, 2, None),
            ("0.5e1", 10, 2, Some("5.00")),
            ("1e-99", 10, 2, Some("0.00")),
            ("1e-100", 10, 2, None),
            ("1e-099", 10, 2, Some("0.00")),
            (
                "1.5e-38",
                38,
                38,
                Some("0.00000000000000000000000000000000000002"),
            ),
            ("99999999.995", 10, 2, None),
            ("-0", 10, 2, Some("0.00")),
            (" 1", 10, 2, None),
            ("1e38", 38, 0, None),
            (
                "0.1e38",
                38,
                0,
                Some("10000000000000000000000000000000000000"),
            ),
            (
                "9.99999999999999999999999999999999999999",
                10,
                2,
                Some("10.00"),
            ),
            (
                "0.0000000000000000000000000000000000000145",
                38,
                38,
                Some("0.00000000000000000000000000000000000001"),
            ),
        ];
        for &(text, precision, scale, want) in cases {
            let got = parse_hive_decimal(text.as_bytes())
                .and_then(|(n, m, sc)| enforce(n, m, sc, precision, scale))
                .map(|d| d.to_string());
            assert_eq!(
                got.as_deref(),
                want,
                "{text} as decimal({precision},{scale})"
            );
        }
    }

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

    #[test]
    fn binary() {
        for (i, o) in [
            (&b"YWJj"[..], &b"abc"[..]),
            (b"YWI", b"ab"),
            (b"Y", b"Y"),
            (b"=", b"="),
            (b"YW Jj\n", b"abc"),
            (b"YWJj!", b"YWJj!"),
            (b"YQ==YQ==", b"a"),
            (b"-_8=", b"\xfb\xff"),
            (b"", b""),
            (b"YWJj\x0b", b"abc"),
            (b"YWJj\x7f", b"YWJj\x7f"),
        ] {
            let mut out = b"x".to_vec();
            decode_binary_into(i, &mut out);
            assert_eq!(&out[1..], o, "{:?}", String::from_utf8_lossy(i));
        }
        let mut out = Vec::new();
        write_base64(b"\x00\xff", &mut out);
        assert_eq!(out, b"AP8=");
    }

    #[test]
    fn java_utf8() {
        let l = |b: &[u8]| java_utf8_lossy(b).into_owned();
        let r = "\u{fffd}".as_bytes();
        assert_eq!(l(b"\xc3\x28"), [r, b"("].concat());
        assert_eq!(l(b"\xed\xa0\x80x"), [r, b"x"].concat());
        assert_eq!(l(b"\xe4\xb8"), r);
        assert_eq!(l(b"\xc0\xafz"), [r, r, b"z"].concat());
        assert_eq!(l(b"\xf4\x90\x80\x80"), [r, r, r, r].concat());
        assert_eq!(
            fit_chars("e\u{301}e\u{301}".as_bytes(), 3, false),
            "e\u{301}e".as_bytes()
        );
        assert_eq!(fit_chars(b"a", 3, true), b"a  ");
    }
}
