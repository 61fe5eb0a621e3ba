//! FIRE, the learned delta predictor under SPRINTZ (`spec/tsfile.md` §7.8), and SPRINTZ's
//! zigzag-like residual mapping, for the two integer lanes: `i32` (INT32/DATE, FLOAT bits)
//! and `i64` (INT64/TIMESTAMP, DOUBLE bits).
//!
//! ```text
//! state:     acc: i32 (for both lanes), delta: lane
//! predict(x) = x + ((acc >> S) as lane * delta >> B)     i32: S = 2, B = 8; i64: S = 3, B = 16
//! train(pre, val, err): acc -= (err > 0 ? -delta : delta) as i32;  delta = val - pre
//! ```
//!
//! Everything wraps, as in Java: the accumulator is a Java `int` even in `LongFire`, whose
//! `accumulator -= gradient` narrows the `long` difference to 32 bits, and the product is
//! taken modulo 2^32 / 2^64 before the arithmetic shift. The C++ 2.5 `LongFire` instead
//! shifts the exact 128-bit product; [`Fire::cpp_agrees`] says whether that gives the same
//! prediction (it does unless `|alpha * delta| >= 2^63`). The C++ `IntFire` equals Java's.

use super::word::Word;

/// A lane FIRE predicts in, with Java's wrapping arithmetic.
pub(crate) trait Lane: Word {
    /// `learn_shift`: 2 (`IntFire(2)`) or 3 (`LongFire(3)`).
    const LEARN_SHIFT: u32;
    /// The predictor's `bitWidth`: 8 or 16.
    const SHIFT: u32;
    /// Sign-extends `x` (Java's `int` to `long` widening).
    fn from_i32(x: i32) -> Self;
    /// The low 32 bits (Java's narrowing to `int`).
    fn low_i32(self) -> i32;
    /// Arithmetic shift right.
    fn sar(self, n: u32) -> Self;
    /// Wrapping negation.
    fn neg(self) -> Self;
    /// Truncating division by two (Java `x / 2`).
    fn half(self) -> Self;
    /// C++ 2.5's `(alpha * delta) >> shift`: the exact product, shifted, then truncated.
    fn exact_product_shifted(alpha: Self, delta: Self, shift: u32) -> Self;
}

macro_rules! lane {
    ($t:ty, $wide:ty, $learn:literal, $shift:literal) => {
        impl Lane for $t {
            const LEARN_SHIFT: u32 = $learn;
            const SHIFT: u32 = $shift;
            fn from_i32(x: i32) -> Self {
                x as $t
            }
            fn low_i32(self) -> i32 {
                self as i32
            }
            fn sar(self, n: u32) -> Self {
                self >> n
            }
            fn neg(self) -> Self {
                self.wrapping_neg()
            }
            fn half(self) -> Self {
                self / 2
            }
            fn exact_product_shifted(alpha: Self, delta: Self, shift: u32) -> Self {
                ((alpha as $wide).wrapping_mul(delta as $wide) >> shift) as $t
            }
        }
    };
}

// The C++ `IntFire` computes the product in 64 bits and then truncates it to `int` before
// shifting, which is Java's 32-bit wrapping product: widening to i64 there would not be
// "exact" in the C++ sense, so the i32 lane's exact product is the wrapped one.
lane!(i32, i32, 2, 8);
lane!(i64, i128, 3, 16);

/// Java's `IntFire` / `LongFire` state; a fresh one per SPRINTZ group.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Fire<T> {
    acc: i32,
    delta: T,
}

impl<T: Lane> Fire<T> {
    fn alpha(&self) -> T {
        T::from_i32(self.acc >> T::LEARN_SHIFT)
    }

    /// The prediction for the value after `x`.
    pub(crate) fn predict(&self, x: T) -> T {
        x.wrapping_add(self.alpha().wrapping_mul(self.delta).sar(T::SHIFT))
    }

    /// Whether C++ 2.5's predictor would predict the same from this state.
    pub(crate) fn cpp_agrees(&self) -> bool {
        let java = self.alpha().wrapping_mul(self.delta).sar(T::SHIFT);
        java == T::exact_product_shifted(self.alpha(), self.delta, T::SHIFT)
    }

    /// Learns from the step `pre` → `val`, whose prediction error was `err`.
    pub(crate) fn train(&mut self, pre: T, val: T, err: T) {
        let gradient = if err > T::default() {
            self.delta.neg()
        } else {
            self.delta
        };
        self.acc = self.acc.wrapping_sub(gradient.low_i32());
        self.delta = val.wrapping_sub(pre);
    }
}

/// SPRINTZ's residual mapping: `err <= 0 ? -2 * err : 2 * err - 1`, wrapping.
pub(crate) fn map<T: Lane>(err: T) -> T {
    let two = T::from_i32(2);
    if err <= T::default() {
        two.neg().wrapping_mul(err)
    } else {
        two.wrapping_mul(err).wrapping_sub(T::from_i32(1))
    }
}

/// Java's inverse of [`map`] on the signed lane: even `m` gives `(-m) / 2`, odd `m` gives
/// `(m + 1) / 2`. It inverts [`map`] only for `-2^30 <= err < 2^30` (i32), `-2^62 <= err <
/// 2^62` (i64).
pub(crate) fn unmap<T: Lane>(m: T) -> T {
    if m.to_bits() & 1 == 0 {
        m.neg().half()
    } else {
        m.wrapping_add(T::from_i32(1)).half()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_round_trips_inside_the_range_and_not_beyond() {
        for e in [0i32, 1, -1, 2, -2, (1 << 30) - 1, -(1 << 30)] {
            assert_eq!(unmap(map(e)), e, "{e}");
        }
        // 2^30 maps to 2^31 - 1, whose (m + 1) / 2 wraps to -2^30; -2^30 maps to 2^31,
        // which wraps to MIN, even, and (-MIN) / 2 = -2^30 again.
        assert_eq!(unmap(map(1i32 << 30)), -(1 << 30));
        assert_ne!(unmap(map((1i32 << 30) + 1)), (1 << 30) + 1);
        assert_eq!(unmap(map(i32::MIN)), 0);
        assert_eq!(unmap(map(-(1i64 << 62))), -(1 << 62));
        assert_ne!(unmap(map((1i64 << 62) + 1)), (1 << 62) + 1);
    }

    #[test]
    fn long_fire_narrows_the_accumulator_and_wraps_the_product() {
        let mut f = Fire::<i64>::default();
        // delta becomes 2^40; the gradient of the next step is -2^40, whose low 32 bits
        // are 0, so the accumulator stays 0 and nothing is predicted.
        f.train(0, 1 << 40, 1);
        f.train(1 << 40, 1 << 41, 1);
        assert_eq!(f.acc, 0);
        assert_eq!(f.predict(5), 5);
        // With acc = 2^31 - 8 and delta = 2^40 the product overflows: Java wraps it.
        let f = Fire::<i64> {
            acc: i32::MAX - 7,
            delta: 1 << 40,
        };
        let alpha = ((i32::MAX - 7) >> 3) as i64;
        assert_eq!(f.predict(0), alpha.wrapping_mul(1 << 40) >> 16);
        assert!(!f.cpp_agrees());
        assert!(Fire::<i64> {
            acc: 800,
            delta: 1 << 40
        }
        .cpp_agrees());
    }
}
