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

/// Java `Float.toString`.
///
/// ```
/// use colfile::format::java_float::f32_to_string;
/// assert_eq!(f32_to_string(1.0e-7), "1.0E-7");
/// assert_eq!(f32_to_string(f32::MIN_POSITIVE), "1.17549435E-38");
/// assert_eq!(f32_to_string(100.0), "100.0");
/// ```
pub fn f32_to_string(v: f32) -> String {
    let mut out = Vec::with_capacity(16);
    write_f32(v, &mut out);
    bytes_to_string(out)
}

/// Java `Double.toString`.
///
/// ```
/// use colfile::format::java_float::f64_to_string;
/// assert_eq!(f64_to_string(1.0e7), "1.0E7");
/// assert_eq!(f64_to_string(0.001), "0.001");
/// assert_eq!(f64_to_string(-0.0), "-0.0");
/// assert_eq!(f64_to_string(f64::MIN_POSITIVE * f64::EPSILON), "4.9E-324");
/// ```
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

const SIGNIF_MASK: u64 = (1 << 52) - 1;
const EXP_SHIFT: i32 = 52;
const MAX_SMALL_BIN_EXP: i32 = 62;
const MIN_SMALL_BIN_EXP: i32 = -(63 / 3);

/// 5^i for i in 0..=13 (the JDK's int table).
#[allow(clippy::indexing_slicing)] // in bounds: evaluated at compile time, 1 <= i < 14
const SMALL_5_POW: [i32; 14] = {
    let mut t = [1i32; 14];
    let mut i = 1;
    while i < 14 {
        t[i] = t[i - 1] * 5;
        i += 1;
    }
    t
};

/// 5^i for i in 0..=26 (the JDK's long table).
#[allow(clippy::indexing_slicing)] // in bounds: evaluated at compile time, 1 <= i < 27
const LONG_5_POW: [i64; 27] = {
    let mut t = [1i64; 27];
    let mut i = 1;
    while i < 27 {
        t[i] = t[i - 1] * 5;
        i += 1;
    }
    t
};

/// Approximately ceil(log2(5^i)), as the JDK tabulates it.
const N_5_BITS: [i32; 27] = [
    0, 3, 5, 7, 10, 12, 14, 17, 19, 21, 24, 26, 28, 31, 33, 35, 38, 40, 42, 45, 47, 49, 52, 54, 56,
    59, 61,
];

/// Number of decimal digits of 2^p2 that are insignificant, for the integer fast path.
const INSIGNIFICANT_DIGITS_FOR_POW2: [i32; 64] = [
    0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9,
    9, 9, 10, 10, 10, 11, 11, 11, 12, 12, 12, 12, 13, 13, 13, 14, 14, 14, 15, 15, 15, 15, 16, 16,
    16, 17, 17, 17, 18, 18, 18, 19,
];

fn insignificant_digits_for_pow2(p2: i32) -> i32 {
    if p2 > 1 {
        INSIGNIFICANT_DIGITS_FOR_POW2
            .get(p2 as usize)
            .copied()
            .unwrap_or(0)
    } else {
        0
    }
}

fn n5bits(i: i32) -> i32 {
    N_5_BITS
        .get(i as usize)
        .copied()
        .unwrap_or(i.saturating_mul(3))
}

/// Decimal digits `0.d1d2...dn × 10^dec_exponent` as the JDK develops them.
struct JavaDigits {
    digits: [u8; 24],
    first: usize,
    n: usize,
    dec_exponent: i32,
}

impl JavaDigits {
    fn new() -> Self {
        JavaDigits {
            digits: [b'0'; 24],
            first: 0,
            n: 0,
            dec_exponent: 0,
        }
    }

    fn slice(&self) -> &[u8] {
        self.digits
            .get(self.first..self.first + self.n)
            .unwrap_or(&[])
    }

    fn push(&mut self, q: i64) {
        if let Some(slot) = self.digits.get_mut(self.first + self.n) {
            *slot = b'0'.wrapping_add(q as u8);
            self.n += 1;
        }
    }

    fn last_is_odd(&self) -> bool {
        self.slice().last().is_some_and(|d| d & 1 != 0)
    }

    /// Adds one to the last digit, carrying; a carry out of the first digit makes it `1` and
    /// bumps the exponent (the trailing zeros stay, as in the JDK).
    fn round_up(&mut self) {
        let digits = match self.digits.get_mut(self.first..self.first + self.n) {
            Some(d) if !d.is_empty() => d,
            _ => return,
        };
        // Trailing nines become zeros; the first digit that is not a nine takes the carry.
        for d in digits.iter_mut().rev() {
            if *d != b'9' {
                *d += 1;
                return;
            }
            *d = b'0';
        }
        // All nines: 99..9 + 1 = 100..0, one decimal place more.
        self.dec_exponent += 1;
        if let Some(d) = digits.first_mut() {
            *d = b'1';
        }
    }

    /// The integer fast path (JDK `developLongDigits`).
    fn from_long(mut lvalue: u64, insignificant: i32) -> Self {
        let mut d = JavaDigits::new();
        let mut dec_exponent = 0i32;
        if insignificant != 0 {
            let pow10 = 10u64.pow(insignificant as u32);
            let residue = lvalue % pow10;
            lvalue /= pow10;
            dec_exponent += insignificant;
            if residue >= pow10 >> 1 {
                lvalue += 1;
            }
        }
        // Strip trailing zeros, then lay the digits out from the right end of the buffer.
        while lvalue % 10 == 0 && lvalue != 0 {
            lvalue /= 10;
            dec_exponent += 1;
        }
        let mut pos = d.digits.len();
        for slot in d.digits.iter_mut().rev() {
            pos -= 1;
            *slot = b'0' + (lvalue % 10) as u8;
            lvalue /= 10;
            if lvalue == 0 || pos == 0 {
                break;
            }
            dec_exponent += 1;
        }
        d.first = pos;
        d.n = d.digits.len() - pos;
        d.dec_exponent = dec_exponent + 1;
        d
    }

    /// Java's `getChars` layout.
    fn write(&self, negative: bool, out: &mut Vec<u8>) {
        let digits = self.slice();
        let (first, rest) = match digits.split_first() {
            Some(x) => x,
            None => return write_zero(negative, out),
        };
        let e = self.dec_exponent;
        if negative {
            out.push(b'-');
        }
        if e > 0 && e < 8 {
            let int_len = (e as usize).min(digits.len());
            let (int_digits, frac_digits) = digits.split_at(int_len);
            out.extend_from_slice(int_digits);
            if int_len < e as usize {
                out.extend(std::iter::repeat_n(b'0', e as usize - int_len));
                out.extend_from_slice(b".0");
            } else {
                out.push(b'.');
                if !frac_digits.is_empty() {
                    out.extend_from_slice(frac_digits);
                } else {
                    out.push(b'0');
                }
            }
        } else if e <= 0 && e > -3 {
            out.extend_from_slice(b"0.");
            out.extend(std::iter::repeat_n(b'0', (-e) as usize));
            out.extend_from_slice(digits);
        } else {
            out.push(*first);
            out.push(b'.');
            if rest.is_empty() {
                out.push(b'0');
            } else {
                out.extend_from_slice(rest);
            }
            out.push(b'E');
            let exp = if e <= 0 {
                out.push(b'-');
                -e + 1
            } else {
                e - 1
            };
            // At most three digits (E-324 .. E308).
            if exp >= 100 {
                out.push(b'0' + (exp / 100) as u8);
            }
            if exp >= 10 {
                out.push(b'0' + (exp / 10 % 10) as u8);
            }
            out.push(b'0' + (exp % 10) as u8);
        }
    }
}

/// JDK `estimateDecExp`: floor(log10(value)), estimated from the bits (never too low by
/// more than the algorithm corrects).
// The JDK's truncated constants, not `LOG10_2`: the estimate must match bit for bit.
#[allow(clippy::approx_constant)]
fn estimate_dec_exp(fract_bits: u64, bin_exp: i32) -> i32 {
    let d2 = f64::from_bits((1023u64 << 52) | (fract_bits & SIGNIF_MASK));
    let d = (d2 - 1.5) * 0.289529654 + 0.176091259 + (bin_exp as f64) * 0.301029995663981;
    d.floor() as i32
}

/// The digit generator (JDK `BinaryToASCIIBuffer.dtoa` with `isCompatibleFormat`).
/// `fract_bits` has its high-order bit at bit 52.
fn dtoa(bin_exp: i32, mut fract_bits: u64, n_significant_bits: i32) -> JavaDigits {
    let tail_zeros = fract_bits.trailing_zeros() as i32;
    let n_fract_bits = EXP_SHIFT + 1 - tail_zeros;
    let n_tiny_bits = (n_fract_bits - bin_exp - 1).max(0);
    if (MIN_SMALL_BIN_EXP..=MAX_SMALL_BIN_EXP).contains(&bin_exp)
        && n_tiny_bits == 0
        && n_fract_bits + n5bits(0) < 64
    {
        // An integer below 2^63: print it from its exact value.
        let insignificant = if bin_exp > n_significant_bits {
            insignificant_digits_for_pow2(bin_exp - n_significant_bits - 1)
        } else {
            0
        };
        if bin_exp >= EXP_SHIFT {
            fract_bits <<= bin_exp - EXP_SHIFT;
        } else {
            fract_bits >>= EXP_SHIFT - bin_exp;
        }
        return JavaDigits::from_long(fract_bits, insignificant);
    }

    let mut dec_exp = estimate_dec_exp(fract_bits, bin_exp);
    let b5 = (-dec_exp).max(0);
    let mut b2 = b5 + n_tiny_bits + bin_exp;
    let s5 = dec_exp.max(0);
    let mut s2 = s5 + n_tiny_bits;
    let m5 = b5;
    let mut m2 = b2 - n_significant_bits;

    fract_bits >>= tail_zeros;
    b2 -= n_fract_bits - 1;
    let common2 = b2.min(s2);
    b2 -= common2;
    s2 -= common2;
    m2 -= common2;
    // At an exact power of two the next smaller value is only half as far away.
    if n_fract_bits == 1 {
        m2 -= 1;
    }
    if m2 < 0 {
        b2 -= m2;
        s2 -= m2;
        m2 = 0;
    }

    let b_bits = n_fract_bits + b2 + n5bits(b5);
    let ten_s_bits = s2 + 1 + n5bits(s5 + 1);
    type Generator = fn(&mut JavaDigits, &mut i32, Powers) -> (bool, bool, i64);
    let generate: Generator = if b_bits < 32 && ten_s_bits < 32 {
        generate_small::<i32>
    } else if b_bits < 64 && ten_s_bits < 64 {
        generate_small::<i64>
    } else {
        generate_big
    };
    let mut d = JavaDigits::new();
    let powers = Powers {
        fract_bits,
        b5,
        b2,
        s5,
        s2,
        m5,
        m2,
    };
    let (low, high, low_digit_difference) = generate(&mut d, &mut dec_exp, powers);
    d.dec_exponent = dec_exp + 1;
    if high {
        if low {
            if low_digit_difference == 0 {
                if d.last_is_odd() {
                    d.round_up();
                }
            } else if low_digit_difference > 0 {
                d.round_up();
            }
        } else {
            d.round_up();
        }
    }
    d
}

/// The scaled operands of the digit loop: B = fract × 5^b5 × 2^b2 is the value, S = 5^s5 ×
/// 2^s2 the divisor (so B/S is in [1, 10)), M = 5^m5 × 2^m2 half an ulp, all scaled alike.
#[derive(Clone, Copy)]
struct Powers {
    fract_bits: u64,
    b5: i32,
    b2: i32,
    s5: i32,
    s2: i32,
    m5: i32,
    m2: i32,
}

/// True when E notation will be used, in which case the first digit never stops generation.
fn forces_second_digit(dec_exp: i32) -> bool {
    !(-3..8).contains(&dec_exp)
}

/// Java's `int` or `long`, with its wrapping arithmetic, for the small-number paths.
trait JavaInt: Copy + PartialOrd {
    const ZERO: Self;
    const TEN: Self;
    fn pow5(i: i32) -> Self;
    fn from_fract(fract_bits: u64) -> Self;
    fn mul(self, o: Self) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn shl(self, bits: i32) -> Self;
    fn to_i64(self) -> i64;
}

macro_rules! java_int {
    ($t:ty, $table:ident) => {
        impl JavaInt for $t {
            const ZERO: Self = 0;
            const TEN: Self = 10;
            fn pow5(i: i32) -> Self {
                $table.get(i as usize).copied().unwrap_or(0)
            }
            fn from_fract(fract_bits: u64) -> Self {
                fract_bits as $t
            }
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            fn sub(self, o: Self) -> Self {
                self.wrapping_sub(o)
            }
            fn div(self, o: Self) -> Self {
                self.wrapping_div(o)
            }
            fn rem(self, o: Self) -> Self {
                self.wrapping_rem(o)
            }
            fn shl(self, bits: i32) -> Self {
                self.wrapping_shl(bits as u32)
            }
            fn to_i64(self) -> i64 {
                self as i64
            }
        }
    };
}
java_int!(i32, SMALL_5_POW);
java_int!(i64, LONG_5_POW);

/// The all-`int` and all-`long` paths, with Java's wrapping arithmetic (`m` may overflow,
/// which the JDK detects only when it turns negative).
fn generate_small<T: JavaInt>(
    d: &mut JavaDigits,
    dec_exp: &mut i32,
    p: Powers,
) -> (bool, bool, i64) {
    let mut b = T::from_fract(p.fract_bits).mul(T::pow5(p.b5)).shl(p.b2);
    let s = T::pow5(p.s5).shl(p.s2);
    let mut m = T::pow5(p.m5).shl(p.m2);
    let tens = s.mul(T::TEN);
    if s <= T::ZERO {
        return (true, false, 0);
    }
    let mut q = b.div(s);
    b = b.rem(s).mul(T::TEN);
    m = m.mul(T::TEN);
    let mut low = b < m;
    let mut high = b.add(m) > tens;
    if q.to_i64() == 0 && !high {
        *dec_exp -= 1;
    } else {
        d.push(q.to_i64());
    }
    if forces_second_digit(*dec_exp) {
        low = false;
        high = false;
    }
    while !low && !high {
        q = b.div(s);
        b = b.rem(s).mul(T::TEN);
        m = m.mul(T::TEN);
        if m > T::ZERO {
            low = b < m;
            high = b.add(m) > tens;
        } else {
            low = true;
            high = true;
        }
        d.push(q.to_i64());
    }
    (low, high, b.shl(1).sub(tens).to_i64())
}

/// The exact big-integer path. Unlike the int/long paths, `high` includes equality here,
/// as in the JDK.
fn generate_big(d: &mut JavaDigits, dec_exp: &mut i32, p: Powers) -> (bool, bool, i64) {
    let s = Big::pow52(p.s5, p.s2);
    let mut b = Big::from_u64(p.fract_bits);
    b.mul_pow5(p.b5);
    b.shl(p.b2);
    let mut m = Big::pow52(p.m5 + 1, p.m2 + 1);
    let ten_s = Big::pow52(p.s5 + 1, p.s2 + 1);
    let mut sum = Big::zero();

    let mut q = b.quo_rem_times10(&s);
    let mut low = b.cmp(&m).is_lt();
    let mut high = {
        sum.set_sum(&b, &m);
        ten_s.cmp(&sum).is_le()
    };
    if q == 0 && !high {
        *dec_exp -= 1;
    } else {
        d.push(q as i64);
    }
    if forces_second_digit(*dec_exp) {
        low = false;
        high = false;
    }
    while !low && !high {
        q = b.quo_rem_times10(&s);
        m.mul_small(10);
        low = b.cmp(&m).is_lt();
        sum.set_sum(&b, &m);
        high = ten_s.cmp(&sum).is_le();
        d.push(q as i64);
    }
    let diff = if high && low {
        b.shl(1);
        b.cmp(&ten_s) as i64
    } else {
        0
    };
    (low, high, diff)
}

/// Limbs of [`Big`]: enough for every double (the largest operand is about 830 bits).
const BIG_LIMBS: usize = 40;

/// A small fixed-capacity unsigned big integer (little-endian 32-bit limbs).
#[derive(Clone)]
struct Big {
    limbs: [u32; BIG_LIMBS],
    len: usize,
}

impl Big {
    fn zero() -> Self {
        Big {
            limbs: [0; BIG_LIMBS],
            len: 0,
        }
    }

    fn from_u64(v: u64) -> Self {
        let mut b = Big::zero();
        b.limbs[0] = v as u32;
        b.limbs[1] = (v >> 32) as u32;
        b.len = 2;
        b.trim();
        b
    }

    /// 5^p5 × 2^p2.
    fn pow52(p5: i32, p2: i32) -> Self {
        let mut b = Big::from_u64(1);
        b.mul_pow5(p5);
        b.shl(p2);
        b
    }

    /// The limbs in use, least significant first (`len` never exceeds `BIG_LIMBS`).
    fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or(&self.limbs)
    }

    fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    fn mul_small(&mut self, k: u32) {
        let mut carry = 0u64;
        for limb in self.limbs.iter_mut().take(self.len) {
            let p = *limb as u64 * k as u64 + carry;
            *limb = p as u32;
            carry = p >> 32;
        }
        if carry != 0 {
            if let Some(slot) = self.limbs.get_mut(self.len) {
                *slot = carry as u32;
                self.len += 1;
            }
        }
    }

    fn mul_pow5(&mut self, mut p5: i32) {
        // 5^13 is the largest power of five that fits in a u32.
        while p5 > 0 {
            let step = p5.min(13);
            self.mul_small(5u32.pow(step as u32));
            p5 -= step;
        }
    }

    fn shl(&mut self, bits: i32) {
        if bits <= 0 || self.len == 0 {
            return;
        }
        let words = bits as usize / 32;
        let rem = bits as u32 % 32;
        let new_len = (self.len + words + 1).min(BIG_LIMBS);
        let mut out = [0u32; BIG_LIMBS];
        for (i, &limb) in self.used().iter().enumerate().rev() {
            let v = (limb as u64) << rem;
            if let Some(slot) = out.get_mut(i + words) {
                *slot |= v as u32;
            }
            if let Some(slot) = out.get_mut(i + words + 1) {
                *slot |= (v >> 32) as u32;
            }
        }
        self.limbs = out;
        self.len = new_len;
        self.trim();
    }

    fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        if self.len != other.len {
            return self.len.cmp(&other.len);
        }
        // Same length: the most significant differing limb decides.
        self.used().iter().rev().cmp(other.used().iter().rev())
    }

    fn set_sum(&mut self, a: &Big, b: &Big) {
        let n = a.len.max(b.len);
        let mut carry = 0u64;
        let limbs = self.limbs.iter_mut().zip(a.limbs.iter().zip(&b.limbs));
        for (slot, (&x, &y)) in limbs.take(n) {
            let s = x as u64 + y as u64 + carry;
            *slot = s as u32;
            carry = s >> 32;
        }
        for limb in self.limbs.iter_mut().skip(n) {
            *limb = 0;
        }
        self.len = n;
        if carry != 0 {
            if let Some(slot) = self.limbs.get_mut(n) {
                *slot = carry as u32;
                self.len += 1;
            }
        }
    }

    fn sub_assign(&mut self, other: &Big) {
        let mut borrow = 0i64;
        let len = self.len;
        for (i, slot) in self.limbs.iter_mut().enumerate().take(len) {
            let o = other.used().get(i).map_or(0, |&l| l as i64);
            let mut v = *slot as i64 - o - borrow;
            borrow = 0;
            if v < 0 {
                v += 1 << 32;
                borrow = 1;
            }
            *slot = v as u32;
        }
        self.trim();
    }

    /// q = self / s (a single decimal digit in practice); self = (self mod s) × 10.
    fn quo_rem_times10(&mut self, s: &Big) -> u32 {
        let mut q = 0;
        while self.cmp(s).is_ge() && q < 64 {
            self.sub_assign(s);
            q += 1;
        }
        self.mul_small(10);
        q
    }
}

// ---------------------------------------------------------------------------------------------
// Parsing

/// Java `Float.parseFloat` semantics; `None` where Java throws.
///
/// ```
/// use colfile::format::java_float::parse_f32;
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
/// use colfile::format::java_float::parse_f64;
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
