//! The small fixed-capacity big integer the digit generation's exact path works in.

/// Limbs of [`Big`]: enough for every double (the largest operand is about 830 bits).
const BIG_LIMBS: usize = 40;

/// A small fixed-capacity unsigned big integer (little-endian 32-bit limbs).
#[derive(Clone)]
pub(super) struct Big {
    limbs: [u32; BIG_LIMBS],
    len: usize,
}

impl Big {
    pub(super) fn zero() -> Self {
        Big {
            limbs: [0; BIG_LIMBS],
            len: 0,
        }
    }

    pub(super) fn from_u64(v: u64) -> Self {
        let mut b = Big::zero();
        b.limbs[0] = v as u32;
        b.limbs[1] = (v >> 32) as u32;
        b.len = 2;
        b.trim();
        b
    }

    /// 5^p5 × 2^p2.
    pub(super) fn pow52(p5: i32, p2: i32) -> Self {
        let mut b = Big::from_u64(1);
        b.mul_pow5(p5);
        b.shl(p2);
        b
    }

    /// The limbs in use, least significant first (`len` never exceeds `BIG_LIMBS`).
    pub(super) fn used(&self) -> &[u32] {
        self.limbs.get(..self.len).unwrap_or(&self.limbs)
    }

    pub(super) fn trim(&mut self) {
        while self.len > 0 && self.limbs.get(self.len - 1) == Some(&0) {
            self.len -= 1;
        }
    }

    pub(super) fn mul_small(&mut self, k: u32) {
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

    pub(super) fn mul_pow5(&mut self, mut p5: i32) {
        // 5^13 is the largest power of five that fits in a u32.
        while p5 > 0 {
            let step = p5.min(13);
            self.mul_small(5u32.pow(step as u32));
            p5 -= step;
        }
    }

    pub(super) fn shl(&mut self, bits: i32) {
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

    pub(super) fn cmp(&self, other: &Big) -> std::cmp::Ordering {
        if self.len != other.len {
            return self.len.cmp(&other.len);
        }
        // Same length: the most significant differing limb decides.
        self.used().iter().rev().cmp(other.used().iter().rev())
    }

    pub(super) fn set_sum(&mut self, a: &Big, b: &Big) {
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

    pub(super) fn sub_assign(&mut self, other: &Big) {
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
    pub(super) fn quo_rem_times10(&mut self, s: &Big) -> u32 {
        let mut q = 0;
        while self.cmp(s).is_ge() && q < 64 {
            self.sub_assign(s);
            q += 1;
        }
        self.mul_small(10);
        q
    }
}
