//! MSB-first bit packing, the one bit layer under TS_2DIFF's packed deltas, RLE's bit-packed
//! groups and GORILLA's bit stream: [`BitWriter`] appends bits to a `Vec<u8>`, [`unpack_map`]
//! reads runs of fixed-width values, and [`BitReader`] reads variable-width
//! fields at a bit position.
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
        let bytes = self.acc.to_be_bytes();
        self.out.extend_from_slice(bytes.get(..n).unwrap_or(&bytes));
    }
}

/// Loads 8 bytes big-endian from `at`, zero-filling past the end of `data`.
#[inline]
fn load_be(data: &[u8], at: usize) -> u64 {
    match data.get(at..at.wrapping_add(8)) {
        Some(w) => u64::from_be_bytes(w.try_into().unwrap_or([0; 8])),
        None => load_tail(data, at),
    }
}

/// [`load_be`] for 16 bytes.
#[cold]
fn load_tail128(data: &[u8], at: usize) -> u128 {
    (u128::from(load_be(data, at)) << 64) | u128::from(load_be(data, at.wrapping_add(8)))
}

#[cold]
fn load_tail(data: &[u8], at: usize) -> u64 {
    let mut w = [0u8; 8];
    let tail = data.get(at..).unwrap_or_default();
    w.iter_mut().zip(tail).for_each(|(d, &s)| *d = s);
    u64::from_be_bytes(w)
}

/// Fills `dst` with `f` of each of the first `dst.len()` `width`-bit values packed back to
/// back from the start of `packed` (`width` ≤ 64), zero-extended, in order. Callers check
/// that `packed` holds `dst.len() * width` bits; bytes after them may follow (the rest of
/// the stream), which lets more groups take the fast path.
///
/// Values go in groups of 8, which span exactly `width` bytes and start on a byte. A group
/// reads from a 72-byte window starting there — borrowed from `packed` when that many bytes
/// remain, else copied zero-padded — so every value is one or two unaligned 8-byte loads at
/// a masked (provably in-range) index, with no bounds checks in the loop. Widths up to 32
/// (deltas and run lengths nearly always) have a copy of the loop each, whose shifts and
/// load offsets are constants.
#[inline]
pub(crate) fn unpack_map<T>(packed: &[u8], width: u32, dst: &mut [T], mut f: impl FnMut(u64) -> T) {
    let width = width.min(64) as usize;
    if width == 0 {
        dst.iter_mut().for_each(|d| *d = f(0));
        return;
    }
    macro_rules! fixed {
        ($($w:literal)*) => {
            match width {
                $($w => return unpack_fixed::<T, $w>(packed, dst, &mut f),)*
                _ => {}
            }
        };
    }
    fixed!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32);
    let mut pad = [0; WIN];
    for (g, group) in dst.chunks_mut(8).enumerate() {
        unpack_group(window(packed, g * width, &mut pad), width, group, &mut f);
    }
}

/// [`unpack_map`] for a width `W` known when compiling.
fn unpack_fixed<T, const W: usize>(packed: &[u8], dst: &mut [T], f: &mut impl FnMut(u64) -> T) {
    let mut pad = [0; WIN];
    let full = dst.len() / 8;
    let mut groups = dst.chunks_exact_mut(8);
    for (g, group) in (&mut groups).enumerate() {
        if let Ok(group) = <&mut [T; 8]>::try_from(group) {
            unpack_group(window(packed, g * W, &mut pad), W, group, f);
        }
    }
    let tail = groups.into_remainder();
    if !tail.is_empty() {
        unpack_group(window(packed, full * W, &mut pad), W, tail, f);
    }
}

/// Bytes of a group's window: 8 values of up to 64 bits start within its first 57 bytes and
/// need at most 9 bytes each.
const WIN: usize = 72;

/// The window of the group whose bytes start at `at` in `packed`: borrowed, or copied into
/// `pad` zero-filled near the end.
#[inline(always)]
fn window<'a>(packed: &'a [u8], at: usize, pad: &'a mut [u8; WIN]) -> &'a [u8; WIN] {
    let src = packed.get(at..).unwrap_or_default();
    match src.first_chunk::<WIN>() {
        Some(win) => win,
        None => {
            *pad = [0; WIN];
            pad.iter_mut().zip(src).for_each(|(d, &s)| *d = s);
            pad
        }
    }
}

/// `f` of each `width`-bit value of a group (up to 8) from its window.
#[inline(always)]
fn unpack_group<T>(win: &[u8; WIN], width: usize, group: &mut [T], f: &mut impl FnMut(u64) -> T) {
    // Clamping the index keeps every load inside the window.
    let load = |at: usize| {
        let at = at.min(WIN - 8);
        win.get(at..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map_or(0, |b| u64::from_be_bytes(*b))
    };
    if width <= 57 {
        for (i, d) in group.iter_mut().enumerate() {
            let bit = i * width;
            *d = f((load(bit / 8) << (bit % 8)) >> (64 - width));
        }
    } else {
        for (i, d) in group.iter_mut().enumerate() {
            let bit = i * width;
            let x = (u128::from(load(bit / 8)) << 64) | u128::from(load(bit / 8 + 8));
            *d = f(((x << (bit % 8)) >> (128 - width)) as u64);
        }
    }
}

/// Reads MSB-first bit fields at a bit position: each read is one unaligned 8-byte load and
/// two shifts, with no buffer state carried between reads. Reading past the end yields zero
/// bits; [`overrun`](Self::overrun) says whether that happened.
pub(crate) struct BitReader<'a> {
    data: &'a [u8],
    bit: usize,
}

impl<'a> BitReader<'a> {
    /// A reader at bit 0 of `data`.
    pub(crate) fn new(data: &'a [u8]) -> Self {
        BitReader { data, bit: 0 }
    }

    /// The stream from the current bit on, MSB-aligned; the top 57 bits are valid.
    #[inline]
    pub(crate) fn peek(&self) -> u64 {
        load_be(self.data, self.bit / 8) << (self.bit % 8)
    }

    /// The stream from the current bit on, MSB-aligned, all 64 bits valid: the 8-byte load
    /// of [`peek`](Self::peek) topped up with the next byte's leading bits.
    #[inline]
    pub(crate) fn peek64(&self) -> u64 {
        let (at, s) = (self.bit / 8, self.bit % 8);
        // One bounds check and one 16-byte window away from the end; the last 15 bytes
        // take the zero-filling path.
        let window = match self.data.get(at..at.wrapping_add(16)) {
            Some(w) => u128::from_be_bytes(w.try_into().unwrap_or([0; 16])),
            None => load_tail128(self.data, at),
        };
        ((window << s) >> 64) as u64
    }

    /// Moves past `n` bits.
    #[inline]
    pub(crate) fn skip(&mut self, n: u32) {
        self.bit += n as usize;
    }

    /// Reads `n` bits, 1 ≤ `n` ≤ 57.
    #[inline]
    pub(crate) fn read(&mut self, n: u32) -> u64 {
        let v = self.peek() >> (64 - n);
        self.skip(n);
        v
    }

    /// Reads `n` bits, 1 ≤ `n` ≤ 64.
    #[inline]
    pub(crate) fn read_wide(&mut self, n: u32) -> u64 {
        if n <= 57 {
            self.read(n)
        } else {
            let hi = self.read(n - 32);
            (hi << 32) | self.read(32)
        }
    }

    /// Bits consumed so far.
    #[inline]
    pub(crate) fn consumed_bits(&self) -> u64 {
        self.bit as u64
    }

    /// Bits of `data` not yet consumed (0 once past the end).
    #[inline]
    pub(crate) fn remaining_bits(&self) -> u64 {
        (self.data.len() as u64 * 8).saturating_sub(self.bit as u64)
    }

    /// True when more bits were consumed than `data` holds.
    #[inline]
    pub(crate) fn overrun(&self) -> bool {
        self.bit > self.data.len() * 8
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
            let wide = r.peek64() >> (64 - n);
            assert_eq!(r.read_wide(n), want, "width {n}");
            assert_eq!(wide, want, "peek64, width {n}");
        }
        assert!(!r.overrun());
        assert!(r.remaining_bits() < 8);
    }

    #[test]
    fn unpacked_matches_writer_for_all_widths() {
        for (width, len) in (0..=64u32).flat_map(|w| [0u64, 1, 7, 8, 9, 301].map(|n| (w, n))) {
            let vals: Vec<u64> = (0..len)
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
            // Exactly the packed bytes (every group from the padded copy near the end),
            // and with the rest of a stream after them (most groups borrowed in place).
            for trailing in [0usize, 80] {
                let mut packed = out.clone();
                packed.extend((0..trailing).map(|i| i as u8 ^ 0xa5));
                let mut got = vec![0u64; vals.len()];
                unpack_map(&packed, width, &mut got, |v| v);
                assert_eq!(got, vals, "width {width}, {len} values, {trailing} trailing bytes");
            }
        }
    }
}
