//! Numbers in text cells: integers, booleans, float text and decimals, each function
//! mirroring the Hive 2.3 code path it replaces (named in its doc). Nothing here allocates.

use crate::rcfile::Decimal;

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
pub(super) fn digit_count(mut mag: u128) -> u32 {
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
    for slot in buf.iter_mut().rev() {
        i -= 1;
        *slot = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    buf.get(i..).unwrap_or_default()
}

/// Appends the decimal text of `v`.
pub(super) fn write_i64(v: i64, out: &mut Vec<u8>) {
    let mut buf = [0u8; 40];
    if v < 0 {
        out.push(b'-');
    }
    out.extend_from_slice(format_u128(v.unsigned_abs() as u128, &mut buf));
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
}
