//! Java's `Float.parseFloat` / `Double.parseDouble`: decimal and hexadecimal strings, rounded
//! once, correctly, to the target type.

/// Java `Float.parseFloat` semantics; `None` where Java throws.
///
/// ```
/// use colfile::rcfile::java_float::parse_f32;
/// assert_eq!(parse_f32(" 1.5f "), Some(1.5));
/// assert_eq!(parse_f32("0x1.8p1"), Some(3.0));
/// assert_eq!(parse_f32("-Infinity"), Some(f32::NEG_INFINITY));
/// assert_eq!(parse_f32("1e"), None);
/// ```
pub fn parse_f32(s: &str) -> Option<f32> {
    match scan(s)? {
        Scanned::NaN => Some(f32::NAN),
        Scanned::Decimal(text) => text.parse::<f32>().ok(),
        Scanned::Hex(h) => Some(f32::from_bits(h.to_bits(23, 8) as u32)),
    }
}

/// Java `Double.parseDouble` semantics; `None` where Java throws.
///
/// ```
/// use colfile::rcfile::java_float::parse_f64;
/// assert_eq!(parse_f64("1e-3d"), Some(0.001));
/// assert_eq!(parse_f64("\t.5\n"), Some(0.5));
/// assert_eq!(parse_f64("+NaN").map(f64::is_nan), Some(true));
/// assert_eq!(parse_f64("1.0 E5"), None);
/// ```
pub fn parse_f64(s: &str) -> Option<f64> {
    match scan(s)? {
        Scanned::NaN => Some(f64::NAN),
        Scanned::Decimal(text) => text.parse::<f64>().ok(),
        Scanned::Hex(h) => Some(f64::from_bits(h.to_bits(52, 11))),
    }
}

enum Scanned<'a> {
    NaN,
    /// Validated decimal text (sign included, suffix removed), which Rust's parser accepts
    /// and rounds correctly.
    Decimal(&'a str),
    /// A hex float, or an infinity.
    Hex(HexFloat),
}

/// Java's `String.trim`: strips characters up to U+0020 at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Checks the string against Java's floating-point grammar.
fn scan(s: &str) -> Option<Scanned<'_>> {
    let t = java_trim(s);
    let b = t.as_bytes();
    let mut i = 0;
    let mut negative = false;
    match b.first()? {
        b'-' => {
            negative = true;
            i = 1;
        }
        b'+' => i = 1,
        _ => {}
    }
    let rest = b.get(i..)?;
    match rest.first()? {
        b'N' => return (rest == b"NaN").then_some(Scanned::NaN),
        b'I' => return (rest == b"Infinity").then(|| Scanned::Hex(HexFloat::infinity(negative))),
        b'0' if matches!(rest.get(1), Some(b'x' | b'X')) => {
            return HexFloat::parse(negative, rest.get(2..)?).map(Scanned::Hex);
        }
        _ => {}
    }
    let mut j = i;
    let mut digits = 0usize;
    let mut dot = false;
    while let Some(&c) = b.get(j) {
        if c.is_ascii_digit() {
            digits += 1;
        } else if c == b'.' && !dot {
            dot = true;
        } else {
            break;
        }
        j += 1;
    }
    if digits == 0 {
        return None;
    }
    if matches!(b.get(j), Some(b'e' | b'E')) {
        j += 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let start = j;
        while b.get(j).is_some_and(u8::is_ascii_digit) {
            j += 1;
        }
        if j == start {
            return None;
        }
    }
    let end = match b.len() - j {
        0 => j,
        1 if matches!(b.get(j), Some(b'f' | b'F' | b'd' | b'D')) => j,
        _ => return None,
    };
    t.get(..end).map(Scanned::Decimal)
}

/// A hexadecimal float: value = mantissa × 2^exp2, with `sticky` set when nonzero bits were
/// dropped below the mantissa.
struct HexFloat {
    negative: bool,
    mantissa: u64,
    sticky: bool,
    exp2: i64,
    /// The exponent did not fit in an `int`: Java returns an infinity or a zero.
    exponent_overflow: Option<bool>,
}

impl HexFloat {
    /// An infinity, as a value whose exponent overflowed.
    fn infinity(negative: bool) -> HexFloat {
        HexFloat {
            negative,
            mantissa: 1,
            sticky: false,
            exp2: 0,
            exponent_overflow: Some(true),
        }
    }

    /// Parses what follows `0x`: `HEX+ '.'? | HEX* '.' HEX+`, then `[pP][+-]?DIGIT+`, then an
    /// optional `[fFdD]`.
    fn parse(negative: bool, b: &[u8]) -> Option<HexFloat> {
        let mut i = 0;
        let mut mantissa = 0u64;
        let mut sticky = false;
        let mut exp2: i64 = 0;
        let mut seen_digit = false;
        let mut dot = false;
        while let Some(&c) = b.get(i) {
            let v = match c {
                b'0'..=b'9' => c - b'0',
                b'a'..=b'f' => c - b'a' + 10,
                b'A'..=b'F' => c - b'A' + 10,
                b'.' if !dot => {
                    dot = true;
                    i += 1;
                    continue;
                }
                _ => break,
            };
            seen_digit = true;
            if mantissa >> 60 == 0 {
                mantissa = mantissa << 4 | v as u64;
                if dot {
                    exp2 -= 4;
                }
            } else {
                sticky |= v != 0;
                if !dot {
                    exp2 += 4;
                }
            }
            i += 1;
        }
        if !seen_digit || !matches!(b.get(i), Some(b'p' | b'P')) {
            return None;
        }
        i += 1;
        let exp_negative = b.get(i) == Some(&b'-');
        i += matches!(b.get(i), Some(b'+' | b'-')) as usize;
        let start = i;
        let mut e: i64 = 0;
        let mut overflow = false;
        while let Some(&c) = b.get(i) {
            if !c.is_ascii_digit() {
                break;
            }
            e = e * 10 + (c - b'0') as i64;
            if e > i32::MAX as i64 {
                overflow = true;
                e = i32::MAX as i64;
            }
            i += 1;
        }
        if i == start {
            return None;
        }
        match b.len() - i {
            0 => {}
            1 if matches!(b.get(i), Some(b'f' | b'F' | b'd' | b'D')) => {}
            _ => return None,
        }
        let e = if exp_negative { -e } else { e };
        Some(HexFloat {
            negative,
            mantissa,
            sticky,
            exp2: exp2 + e,
            exponent_overflow: overflow.then_some(!exp_negative),
        })
    }

    /// IEEE bits with round-half-even, for a format with `frac_bits` stored fraction bits and
    /// `exp_bits` exponent bits.
    fn to_bits(&self, frac_bits: u32, exp_bits: u32) -> u64 {
        let sign = (self.negative as u64) << (frac_bits + exp_bits);
        let max_exp_field = (1u64 << exp_bits) - 1;
        let inf = sign | (max_exp_field << frac_bits);
        if self.mantissa == 0 {
            return sign;
        }
        if let Some(huge) = self.exponent_overflow {
            return if huge { inf } else { sign };
        }
        // Normalize so the top bit is bit 63: value = m × 2^(e - 63).
        let lz = self.mantissa.leading_zeros();
        let m = self.mantissa << lz;
        let e = self.exp2 + 63 - lz as i64; // value in [2^e, 2^(e+1))
        let bias = (max_exp_field >> 1) as i64;
        let min_normal_exp = 1 - bias;
        // Number of mantissa bits kept (including the leading one).
        let keep: i64 = if e >= min_normal_exp {
            frac_bits as i64 + 1
        } else {
            frac_bits as i64 + 1 - (min_normal_exp - e)
        };
        if keep < 0 {
            return sign;
        }
        let drop = 64 - keep;
        let (mut kept, round, rest_sticky) = if drop >= 64 {
            (
                0u64,
                m >> 63 != 0 && drop == 64,
                (m << 1) != 0 || self.sticky,
            )
        } else {
            let kept = m >> drop;
            let round = (m >> (drop - 1)) & 1 != 0;
            let rest = drop > 1 && m & ((1u64 << (drop - 1)) - 1) != 0;
            (kept, round, rest || self.sticky)
        };
        if round && (rest_sticky || kept & 1 != 0) {
            kept += 1;
        }
        if e >= min_normal_exp {
            // kept has frac_bits + 1 bits, or frac_bits + 2 after a carry.
            let mut exp_field = e + bias;
            if kept >> (frac_bits + 1) != 0 {
                kept >>= 1;
                exp_field += 1;
            }
            if exp_field >= max_exp_field as i64 {
                return inf;
            }
            sign | ((exp_field as u64) << frac_bits) | (kept & ((1u64 << frac_bits) - 1))
        } else {
            // Subnormal: a carry into bit frac_bits correctly yields the smallest normal.
            sign | kept
        }
    }
}
