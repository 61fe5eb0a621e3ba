//! MSB-first bit packing, the one bit layer under TS_2DIFF's packed deltas, RLE's bit-packed
//! groups and GORILLA's bit stream: [`BitWriter`] appends bits to a `Vec<u8>`, [`unpacked`]
//! reads fixed-width values at random positions, and [`BitReader`] streams variable-width
//! fields through a 64-bit buffer.
//!
//! Bit `k` of a stream is bit `7 - k % 8` of byte `k / 8`; a `w`-bit field stores its most
//! significant bit first (Java `BytesUtils.intToBytes(value, buf, pos, w)`, `IntPacker`).

/// Appends MSB-first bit fields to a byte vector, 64 bits at a time.
pub(crate) struct BitWriter<'a> {
    out: &'a mut Vec<u8>,
    acc: u64,
    used: u32,
}

impl<'a> BitWriter<'a> {
    /// A writer that appends to `out`.
    pub(crate) fn new(out: &'a mut Vec<u8>) -> Self {
        BitWriter {
            out,
            acc: 0,
            used: 0,
        }
    }

    /// Appends the low `n` bits of `v` (`n` ≤ 64), most significant first.
    #[inline]
    pub(crate) fn put(&mut self, v: u64, n: u32) {
        if n == 0 {
            return;
        }
        let v = if n >= 64 { v } else { v & ((1u64 << n) - 1) };
        let free = 64 - self.used;
        if n < free {
            self.acc |= v << (free - n);
            self.used += n;
        } else {
            let rest = n - free;
            self.acc |= v >> rest;
            self.out.extend_from_slice(&self.acc.to_be_bytes());
            self.used = rest;
            self.acc = if rest == 0 { 0 } else { v << (64 - rest) };
        }
    }

    /// Bits written so far past the last whole byte (0..8).
    pub(crate) fn partial_bits(&self) -> u32 {
        self.used % 8
    }

    /// Writes the pending bits, zero-padded to a whole byte.
    pub(crate) fn finish(self) {
        let n = self.used.div_ceil(8) as usize;
        self.out.extend_from_slice(&self.acc.to_be_bytes()[..n]);
    }
}

/// Loads 8 bytes big-endian from `at`, zero-filling past the end of `data`.
#[inline]
fn load_be(data: &[u8], at: usize) -> u64 {
    match data.get(at..).and_then(|s| s.first_chunk::<8>()) {
        Some(w) => u64::from_be_bytes(*w),
        None => {
            let mut w = [0u8; 8];
            let tail = data.get(at..).unwrap_or_default();
            w[..tail.len()].copy_from_slice(tail);
            u64::from_be_bytes(w)
        }
    }
}

/// The first `count` `width`-bit values packed back to back in `packed` (`width` ≤ 64),
/// zero-extended. Bits past the end of `packed` read as zeros; callers check the length.
#[inline]
pub(crate) fn unpacked(packed: &[u8], width: u32, count: usize) -> impl Iterator<Item = u64> + '_ {
    let w = width as usize;
    (0..count).map(move |i| {
        let bit = i * w;
        let (byte, shift) = (bit / 8, (bit % 8) as u32);
        let word = load_be(packed, byte) << shift;
        // `checked_shr(64)` is the zero-width case.
        let high = word.checked_shr(64 - width).unwrap_or(0);
        if shift + width <= 64 {
            high
        } else {
            // Up to 7 more bits from the 9th byte.
            let k = shift + width - 64;
            high | (load_be(packed, byte + 8) >> (64 - k))
        }
    })
}

/// Streams MSB-first bit fields through a 64-bit buffer. Reading past the end yields zero
/// bits; [`overrun`](Self::overrun) says whether that happened.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    /// Next byte not yet in `buf`.
    pos: usize,
    /// Valid bits, MSB-aligned; bits below `avail` are the following stream bits or zero.
    buf: u64,
    avail: u32,
}

impl<'a> BitReader<'a> {
    /// A reader at bit 0 of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            pos: 0,
            buf: 0,
            avail: 0,
        }
    }

    /// Tops the buffer up to at least 56 valid bits.
    #[inline]
    pub(crate) fn refill(&mut self) {
        self.buf |= load_be(self.data, self.pos) >> self.avail;
        self.pos += ((63 - self.avail) >> 3) as usize;
        self.avail |= 56;
    }

    /// The next `n` bits (1 ≤ `n` ≤ the valid bits) without consuming them.
    #[inline]
    pub(crate) fn peek(&self, n: u32) -> u64 {
        self.buf >> (64 - n)
    }

    /// Drops `n` bits (`n` ≤ the valid bits).
    #[inline]
    pub(crate) fn consume(&mut self, n: u32) {
        self.buf <<= n;
        self.avail -= n;
    }

    /// Reads `n` bits, 1 ≤ `n` ≤ the valid bits (56 right after [`refill`](Self::refill)).
    #[inline]
    pub(crate) fn read(&mut self, n: u32) -> u64 {
        let v = self.peek(n);
        self.consume(n);
        v
    }

    /// Reads `n` bits, 1 ≤ `n` ≤ 64, refilling as needed.
    #[inline]
    pub(crate) fn read_wide(&mut self, n: u32) -> u64 {
        if n <= 56 {
            if n > self.avail {
                self.refill();
            }
            self.read(n)
        } else {
            self.refill();
            let hi = self.read(n - 32);
            self.refill();
            (hi << 32) | self.read(32)
        }
    }

    /// Bits consumed so far.
    #[inline]
    pub(crate) fn consumed_bits(&self) -> u64 {
        self.pos as u64 * 8 - self.avail as u64
    }

    /// Bits of `data` not yet consumed (0 once past the end).
    #[inline]
    pub(crate) fn remaining_bits(&self) -> u64 {
        (self.data.len() as u64 * 8).saturating_sub(self.consumed_bits())
    }

    /// True when more bits were consumed than `data` holds.
    #[inline]
    pub(crate) fn overrun(&self) -> bool {
        self.consumed_bits() > self.data.len() as u64 * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writer_reader_round_trip_every_width() {
        let mut out = Vec::new();
        let mut w = BitWriter::new(&mut out);
        let fields: Vec<(u64, u32)> = (0..=64u32)
            .map(|n| (0xdead_beef_cafe_f00du64.rotate_left(n), n))
            .collect();
        for &(v, n) in &fields {
            w.put(v, n);
        }
        w.finish();
        let mut r = BitReader::new(&out);
        for &(v, n) in &fields {
            if n == 0 {
                continue;
            }
            let want = if n == 64 { v } else { v & ((1 << n) - 1) };
            assert_eq!(r.read_wide(n), want, "width {n}");
        }
        assert!(!r.overrun());
        assert!(r.remaining_bits() < 8);
    }

    #[test]
    fn unpacked_matches_writer_for_all_widths() {
        for width in 0..=64u32 {
            let vals: Vec<u64> = (0..37u64)
                .map(|i| {
                    let v = i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                    if width == 64 {
                        v
                    } else {
                        v & ((1u64 << width) - 1)
                    }
                })
                .collect();
            let mut out = Vec::new();
            let mut w = BitWriter::new(&mut out);
            for &v in &vals {
                w.put(v, width);
            }
            w.finish();
            let got: Vec<u64> = unpacked(&out, width, vals.len()).collect();
            assert_eq!(got, vals, "width {width}");
        }
    }
}
