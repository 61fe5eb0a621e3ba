//! JDK 17's `FloatingDecimal` digit generation: the integer and long fast paths with Java's
//! wrapping arithmetic, and the exact big-integer path ([`super::big`]) otherwise.

use super::big::Big;
use super::*;

pub(super) const SIGNIF_MASK: u64 = (1 << 52) - 1;
pub(super) const EXP_SHIFT: i32 = 52;
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
pub(super) struct JavaDigits {
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
    pub(super) fn write(&self, negative: bool, out: &mut Vec<u8>) {
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
pub(super) fn dtoa(bin_exp: i32, mut fract_bits: u64, n_significant_bits: i32) -> JavaDigits {
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
