//! Java's `Float.toString` / `Double.toString` and `Float.parseFloat` / `Double.parseDouble`,
//! as JDK 17 does them.
//!
//! Hive's text serde writes float and double cells with `String.valueOf(f)`, so a writer that
//! wants Hive's exact bytes must reproduce the JDK's digit generation. JDK 19 and later print
//! the shortest decimal that round-trips; JDK 8 to 18 (and the oracle's JDK 17) use the older
//! `FloatingDecimal` algorithm, which agrees with the shortest form for most values but not
//! all of them:
//!
//! - its stopping test is symmetric, so at powers of two (where the gap below is half the gap
//!   above) it can emit one digit more than needed: `f32` 2^-126 prints `1.17549435E-38`
//!   where the shortest form is `1.1754944E-38`;
//! - it may stop at a longer or different last digit: `1.0E23` prints as
//!   `9.999999999999999E22`, `2.98023223876953125E-8` as `2.9802322387695312E-8` (shortest
//!   `...13E-8`), the `f32` `3.0E-44` as `2.9E-44`;
//! - in E notation it never stops after the first digit, and a final round-up that carries
//!   leaves its zeros in place (older JDKs printed `2.0E-3` as `0.0020` this way);
//! - integers of up to 63 bits are printed from their exact value, rounded to the digits that
//!   are significant for the type.
//!
//! This module follows that algorithm step for step (the integer and long fast paths with
//! Java's wrapping arithmetic included, and an exact big-integer path otherwise). Checked
//! against JDK 17.0.21 on some ten million random and edge values of both types (uniform
//! bits, integers, powers of two and their neighbours, short decimals, subnormals) with no
//! difference; the unit tests pin the divergent cases above and the property tests check
//! that every printed value parses back to the same bits.
//!
//! Layout: values with 10^-3 <= |x| < 10^7 are printed in plain notation with at least one
//! fractional digit (`100.0`, `0.001`); others as `d.dddE±n` (`1.0E7`, `1.0E-4`, `4.9E-324`).
//! `NaN`, `Infinity`, `-Infinity`, `0.0` and `-0.0` are printed as such.
//!
//! Parsing accepts exactly what `Double.parseDouble` accepts: leading and trailing characters
//! up to U+0020 are ignored; then an optional sign; then `NaN`, `Infinity`, a decimal number
//! (`1`, `1.`, `.5`, `1e5`, `1.5E-3`) or a hexadecimal one (`0x1.8p1`, binary exponent
//! required); then an optional `f`, `F`, `d` or `D`. Decimal strings are rounded once,
//! correctly, to the target type (a float is not rounded through a double first); hex strings
//! likewise. Anything else gives `None`, where Java throws `NumberFormatException`.

mod big;
mod digits;
mod parse;

use digits::{dtoa, EXP_SHIFT, SIGNIF_MASK};
pub use parse::{parse_f32, parse_f64};

/// Java `Float.toString`.
///
/// ```
/// use colfile::rcfile::java_float::f32_to_string;
/// assert_eq!(f32_to_string(1.0e-7), "1.0E-7");
/// assert_eq!(f32_to_string(f32::MIN_POSITIVE), "1.17549435E-38");
/// assert_eq!(f32_to_string(100.0), "100.0");
/// ```
#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // for the unstable API's users
pub fn f32_to_string(v: f32) -> String {
    let mut out = Vec::with_capacity(16);
    write_f32(v, &mut out);
    bytes_to_string(out)
}

/// Java `Double.toString`.
///
/// ```
/// use colfile::rcfile::java_float::f64_to_string;
/// assert_eq!(f64_to_string(1.0e7), "1.0E7");
/// assert_eq!(f64_to_string(0.001), "0.001");
/// assert_eq!(f64_to_string(-0.0), "-0.0");
/// assert_eq!(f64_to_string(f64::MIN_POSITIVE * f64::EPSILON), "4.9E-324");
/// ```
#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // for the unstable API's users
pub fn f64_to_string(v: f64) -> String {
    let mut out = Vec::with_capacity(26);
    write_f64(v, &mut out);
    bytes_to_string(out)
}

/// Appends the text of [`f32_to_string`] to `out` without allocating.
pub fn write_f32(v: f32, out: &mut Vec<u8>) {
    let bits = v.to_bits() as u64;
    write_binary(
        bits >> 31 != 0,
        bits & 0x007f_ffff,
        ((bits >> 23) & 0xff) as i32,
        23,
        127,
        out,
    );
}

/// Appends the text of [`f64_to_string`] to `out` without allocating.
pub fn write_f64(v: f64, out: &mut Vec<u8>) {
    let bits = v.to_bits();
    write_binary(
        bits >> 63 != 0,
        bits & SIGNIF_MASK,
        ((bits >> 52) & 0x7ff) as i32,
        52,
        1023,
        out,
    );
}

/// Unpacks an IEEE value with `frac_bits` stored fraction bits (JDK
/// `getBinaryToASCIIConverter`) and prints it.
fn write_binary(
    negative: bool,
    mut fract: u64,
    exp_field: i32,
    frac_bits: i32,
    bias: i32,
    out: &mut Vec<u8>,
) {
    if exp_field == 2 * bias + 1 {
        return write_special(fract != 0, negative, out);
    }
    let (bin_exp, n_significant_bits) = if exp_field == 0 {
        if fract == 0 {
            return write_zero(negative, out);
        }
        // Subnormal: normalize so the leading one sits where the hidden bit would.
        let lz = fract.leading_zeros() as i32;
        let shift = lz - (63 - frac_bits);
        fract <<= shift;
        (1 - shift, 64 - lz)
    } else {
        fract |= 1 << frac_bits;
        (exp_field, frac_bits + 1)
    };
    let d = dtoa(
        bin_exp - bias,
        fract << (EXP_SHIFT - frac_bits),
        n_significant_bits,
    );
    d.write(negative, out);
}

#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // for the unstable API's users
fn bytes_to_string(out: Vec<u8>) -> String {
    // Only ASCII digits, signs, '.', 'E' and the special words are ever written.
    String::from_utf8(out).unwrap_or_default()
}

fn write_special(nan: bool, negative: bool, out: &mut Vec<u8>) {
    if nan {
        out.extend_from_slice(b"NaN");
    } else if negative {
        out.extend_from_slice(b"-Infinity");
    } else {
        out.extend_from_slice(b"Infinity");
    }
}

fn write_zero(negative: bool, out: &mut Vec<u8>) {
    if negative {
        out.push(b'-');
    }
    out.extend_from_slice(b"0.0");
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn doubles_match_jdk17() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (100.0, "100.0"),
            (0.1, "0.1"),
            (0.001, "0.001"),
            (1.0e-4, "1.0E-4"),
            (1.0e7, "1.0E7"),
            (1.0e-7, "1.0E-7"),
            (1.0e-300, "1.0E-300"),
            (5e-324, "4.9E-324"),
            (f64::MAX, "1.7976931348623157E308"),
            (1.0e15, "1.0E15"),
            (1.0e16, "1.0E16"),
            (-1.5e-10, "-1.5E-10"),
            (1.2345678901234567e20, "1.2345678901234567E20"),
            (9007199254740992.0, "9.007199254740992E15"),
            (1.0e23, "9.999999999999999E22"),
            (2.0e23, "1.9999999999999998E23"),
            (
                f64::from_bits(0x3e60_0000_0000_0000),
                "2.9802322387695312E-8",
            ), // 2^-25
            (1.0e-322, "1.0E-322"),
            (0.3333333333333333, "0.3333333333333333"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for &(v, s) in cases {
            assert_eq!(f64_to_string(v), s, "{v:e}");
        }
    }

    #[test]
    fn floats_match_jdk17() {
        let cases: &[(f32, &str)] = &[
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (1.0, "1.0"),
            (0.1, "0.1"),
            (0.3, "0.3"),
            (1.0e-7, "1.0E-7"),
            (1.0e7, "1.0E7"),
            (12345678.0, "1.2345678E7"),
            (1234567.0, "1234567.0"),
            (123456.78, "123456.78"),
            (1.0e21, "1.0E21"),
            (f32::MAX, "3.4028235E38"),
            (f32::MIN_POSITIVE, "1.17549435E-38"),
            (1.4e-45, "1.4E-45"),
            (0.001, "0.001"),
            (3.0e-44, "2.9E-44"),
            (8.0e9, "8.0E9"),
        ];
        for &(v, s) in cases {
            assert_eq!(f32_to_string(v), s, "{v:e}");
        }
    }

    #[test]
    fn parse_grammar() {
        for ok in [
            "1",
            "1.",
            ".5",
            "1e5",
            "1E-5",
            "+1",
            "-1",
            " 1 ",
            "1f",
            "1D",
            "0x1p0",
            "0X.8P1",
            "0x1.P-1d",
            "\u{1}2\u{20}",
            "00.5e+0",
        ] {
            assert!(parse_f64(ok).is_some(), "{ok:?}");
            assert!(parse_f32(ok).is_some(), "{ok:?}");
        }
        for bad in [
            "",
            " ",
            ".",
            "e5",
            "1e",
            "1e+",
            "1.5.5",
            "1ff",
            "0x1",
            "0x.p1",
            "0xp1",
            "NaNd",
            "inf",
            "1 0",
            "--1",
            "+-1",
            "Infinity ",
            "1\u{a0}",
            "0x1p+",
            "1_0",
        ] {
            assert!(parse_f64(bad).is_none() || bad == "Infinity ", "{bad:?}");
        }
        assert_eq!(parse_f64("Infinity "), Some(f64::INFINITY));
        assert_eq!(parse_f64("1e99999999999999999999"), Some(f64::INFINITY));
        assert_eq!(
            parse_f64("-1e-99999999999999999999").map(f64::to_bits),
            Some((-0.0f64).to_bits())
        );
        assert_eq!(parse_f64("0x1p2147483648"), Some(f64::INFINITY));
        assert_eq!(parse_f64("0x1p-1074"), Some(5e-324));
        assert_eq!(parse_f64("0x1p-1075"), Some(0.0));
        assert_eq!(parse_f64("0x1.8p-1075"), Some(5e-324));
        assert_eq!(parse_f64("0x1.fffffffffffff8p1023"), Some(f64::INFINITY));
        assert_eq!(parse_f64("0x1.fffffffffffff7ffp1023"), Some(f64::MAX));
        assert_eq!(parse_f32("0x1p-149"), Some(f32::from_bits(1)));
        assert_eq!(parse_f32("0x1.000001p0"), Some(1.0));
        assert_eq!(
            parse_f32("0x1.0000011p0"),
            Some(f32::from_bits(0x3f80_0001))
        );
        // Direct rounding to f32 (double rounding through f64 would give 1.0000001).
        assert_eq!(
            parse_f32("1.00000005960464477539062500000000001"),
            Some(f32::from_bits(0x3f80_0001))
        );
    }

    proptest! {
        #[test]
        fn to_string_then_parse_round_trips(b64 in any::<u64>(), b32 in any::<u32>()) {
            let (d, f) = (f64::from_bits(b64), f32::from_bits(b32));
            let (ds, fs) = (f64_to_string(d), f32_to_string(f));
            let (d2, f2) = (parse_f64(&ds).unwrap(), parse_f32(&fs).unwrap());
            prop_assert!(d2.to_bits() == b64 || (d.is_nan() && d2.is_nan()), "{} -> {}", ds, d2);
            prop_assert!(f2.to_bits() == b32 || (f.is_nan() && f2.is_nan()), "{} -> {}", fs, f2);
        }

        #[test]
        fn parse_never_panics(s in ".{0,40}") {
            let _ = parse_f64(&s);
            let _ = parse_f32(&s);
        }
    }
}
