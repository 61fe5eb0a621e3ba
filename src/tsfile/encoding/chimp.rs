//! CHIMP (Chimp128, `spec/tsfile.md` §7.7) of `W`-bit patterns: INT32/DATE and FLOAT (raw
//! bits) with `W = 32`, INT64/TIMESTAMP and DOUBLE with `W = 64`. Bytes equal Java's
//! (`IntChimpEncoder`, `LongChimpEncoder`, `Single`/`DoublePrecisionChimpEncoder`) and the
//! C++ writer's (`chimp_encoder.h`), except on pages holding the canonical NaN (below).
//!
//! Each value is XORed with one of the last `P` values (`P` = 64 / 128), kept in a ring. The
//! candidate is the last value whose low `K` bits (`K` = 12 / 14) equal this one's, found
//! through a table from those bits to the value's position; it is used when it lies within
//! the ring and the XOR has more than `K − 1` trailing zeros, otherwise the previous value
//! is. The table starts zeroed, so a key not seen yet still proposes ring slot 0 while
//! fewer than `P` values were written. That is replicated, though it cannot change the
//! bytes: slot 0 then still holds the first value, whose key differs, so its XOR has at
//! most `K − 1` trailing zeros and the previous value is used.
//!
//! Bit stream, MSB first. First value: `W` bits raw. Then per value, with `L` the XOR's
//! leading zeros rounded down to one of {0, 8, 12, 16, 18, 20, 22, 24} (3-bit code `c`):
//!
//! | bits | case |
//! | --- | --- |
//! | `00` + slot (6/7 bits) | XOR is zero: the value in that ring slot |
//! | `01` + slot (6/7) + `c` (3) + `s` (5/6) + `s` bits | XOR with that slot's value, `s` meaningful bits above the trailing zeros (`s = 0` reads as `W`) |
//! | `10` + `W − L` bits | XOR with the previous value, same `L` as the last `11` or `01` |
//! | `11` + `c` (3) + `W − L` bits | XOR with the previous value, new `L` |
//!
//! After a `00` or `01` the encoder forgets `L` (the next `10`/`11` choice always writes
//! `11`). Pages end as GORILLA's do (same sentinels; the [`framing`](super::framing) driver): the
//! type's sentinel encoded as a value, then the partial byte always written (an extra `00`
//! when aligned). A value equal to the sentinel is written as data, as the C++ writer does;
//! the dispatcher maps FLOAT/DOUBLE's canonical NaN to the NaN with payload 1 first
//! ([`nan_safe`](super::framing::nan_safe)), which Java's reader, stopping at the first
//! sentinel, would otherwise take for the end (C++ writes and reads it as data). Every
//! value takes at least 8 bits, so a sentinel followed by more than 8 bits is data and one
//! followed by 1..=8 is the end: [`Mode::UpTo`] reads such pages exactly, unambiguously.

use super::bits::{BitReader, BitWriter};
use super::framing::Mode;
use super::framing::{close_page, decode_framed, offset, sentinel_ended};
use crate::{Error, Result};

/// Leading-zero counts the 3-bit codes stand for.
const LEADING: [u32; 8] = [0, 8, 12, 16, 18, 20, 22, 24];

/// The leading-zero count of the code in the low 3 bits of `bits`.
fn leading(bits: u64) -> u32 {
    // The mask keeps the index below 8, so the fallback is never taken (and compiles away).
    LEADING.get((bits & 7) as usize).copied().unwrap_or(0)
}

/// `ring[i]` for an index already masked below `PREV` ≤ 128 (the fallback never applies).
fn ring_at(ring: &[u64; 128], i: usize) -> u64 {
    ring.get(i).copied().unwrap_or(0)
}

/// A leading-zero count rounded down to one CHIMP can name, and that one's code.
fn round_leading(nlz: u32) -> (u32, u64) {
    match nlz {
        0..=7 => (0, 0),
        8..=11 => (8, 1),
        12..=15 => (12, 2),
        16..=17 => (16, 3),
        18..=19 => (18, 4),
        20..=21 => (20, 5),
        22..=23 => (22, 6),
        _ => (24, 7),
    }
}

/// The per-width parameters.
struct Params<const W: u32>;

impl<const W: u32> Params<W> {
    /// log2 of the ring size.
    const LOG2: u32 = if W == 32 { 6 } else { 7 };
    /// Ring size.
    const PREV: usize = 1 << Self::LOG2;
    /// Trailing zeros a ring candidate's XOR must exceed.
    const THRESHOLD: u32 = Self::LOG2 + if W == 32 { 5 } else { 6 };
    /// Low bits that key the position table.
    const KEY_MASK: u64 = (1 << (Self::THRESHOLD + 1)) - 1;
    /// Width of case `01`'s meaningful-bit count.
    const SIG_BITS: u32 = if W == 32 { 5 } else { 6 };
    /// Width of case `01`'s header, control bits included.
    const CASE01: u32 = 2 + Self::LOG2 + 3 + Self::SIG_BITS;
}

/// Leading zeros of a `W`-bit pattern held in a `u64`.
fn nlz<const W: u32>(x: u64) -> u32 {
    x.leading_zeros() - (64 - W)
}

/// Encoder state for one page.
struct Encoder<const W: u32> {
    ring: [u64; 128],
    /// Position (count of values before it) of the last value with each key.
    positions: Vec<u32>,
    /// Values written so far, minus one (the first value is position 0).
    index: u32,
    /// `L` of the last `11`, or `None` after a `00`/`01` (Java's `W + 1`).
    stored_lz: Option<u32>,
    started: bool,
}

impl<const W: u32> Encoder<W> {
    fn new() -> Self {
        Encoder {
            ring: [0; 128],
            positions: vec![0; Params::<W>::KEY_MASK as usize + 1],
            index: 0,
            stored_lz: None,
            started: false,
        }
    }

    fn slot(&self, i: usize) -> u64 {
        // `i % PREV` < 128 = the ring's length.
        ring_at(&self.ring, i % Params::<W>::PREV)
    }

    fn push(&mut self, w: &mut BitWriter<'_>, v: u64) {
        let prev = Params::<W>::PREV;
        let key = (v & Params::<W>::KEY_MASK) as usize;
        if !self.started {
            w.put(v, W);
            self.ring[0] = v;
            self.started = true;
            return;
        }
        let candidate = self.positions.get(key).copied().unwrap_or(0);
        let last = self.index as usize % prev;
        let mut tz = 0;
        let (mut slot, mut x) = (last, self.slot(last) ^ v);
        if (self.index.wrapping_sub(candidate) as usize) < prev {
            let c = candidate as usize % prev;
            let t = self.slot(c) ^ v;
            tz = t.trailing_zeros().min(W);
            if tz > Params::<W>::THRESHOLD {
                (slot, x) = (c, t);
            }
        }
        if x == 0 {
            w.put(slot as u64, Params::<W>::LOG2 + 2);
            self.stored_lz = None;
        } else {
            let (lz, code) = round_leading(nlz::<W>(x));
            if tz > Params::<W>::THRESHOLD {
                let sig = W - lz - tz;
                let head = ((prev + slot) as u64) << (3 + Params::<W>::SIG_BITS)
                    | code << Params::<W>::SIG_BITS
                    | sig as u64;
                w.put(head, Params::<W>::CASE01);
                w.put(x >> tz, sig);
                self.stored_lz = None;
            } else if self.stored_lz == Some(lz) {
                w.put(0b10, 2);
                w.put(x, W - lz);
            } else {
                self.stored_lz = Some(lz);
                w.put(24 + code, 5);
                w.put(x, W - lz);
            }
        }
        self.index = self.index.wrapping_add(1);
        if let Some(r) = self.ring.get_mut(self.index as usize % prev) {
            *r = v;
        }
        if let Some(p) = self.positions.get_mut(key) {
            *p = self.index;
        }
    }
}

/// Appends the CHIMP stream of `values` (`W`-bit patterns in the low bits), ended by
/// `sentinel`; nothing for no values. Values equal to `sentinel` are written as data.
pub(crate) fn encode<const W: u32>(
    values: impl Iterator<Item = u64>,
    sentinel: u64,
    out: &mut Vec<u8>,
) {
    let mut w = BitWriter::new(out);
    let mut e = Encoder::<W>::new();
    let mut any = false;
    for v in values {
        e.push(&mut w, v);
        any = true;
    }
    if any {
        e.push(&mut w, sentinel);
        close_page(w);
    }
}

/// Decodes the CHIMP stream `input` (first byte at offset `base`), appending `conv(bits)`
/// for each value to `out`.
pub(crate) fn decode<T, const W: u32>(
    input: &[u8],
    base: u64,
    mode: Mode,
    sentinel: u64,
    conv: impl Fn(u64) -> T,
    out: &mut Vec<T>,
) -> Result<()> {
    let framing = sentinel_ended("CHIMP", "CHIMP stream", sentinel);
    let log2 = Params::<W>::LOG2;
    let sig_bits = Params::<W>::SIG_BITS;
    let case01 = Params::<W>::CASE01;
    let slot_mask = Params::<W>::PREV as u64 - 1;
    let mut ring = [0u64; 128];
    // The slot of the previous value; it is stored there on the next call.
    let mut cur = 0usize;
    let mut stored_lz: Option<u32> = None;
    let corrupt = |r: &BitReader<'_>, msg: String| -> Result<u64> {
        Err(Error::corrupt("tsfile", msg).at_offset(offset(base, r)))
    };
    let next = |r: &mut BitReader<'_>, prev: u64| {
        // Indices below are masked to less than PREV ≤ 128, the ring's length.
        if let Some(r) = ring.get_mut(cur) {
            *r = prev;
        }
        let head = r.peek();
        let value = match head >> 62 {
            0b00 => {
                r.skip(2 + log2);
                ring_at(&ring, ((head >> (62 - log2)) & slot_mask) as usize)
            }
            0b01 => {
                let slot = ((head >> (62 - log2)) & slot_mask) as usize;
                let lz = leading(head >> (59 - log2));
                let sig = match ((head >> (64 - case01)) & ((1 << sig_bits) - 1)) as u32 {
                    0 => W,
                    s => s,
                };
                if lz + sig > W {
                    return corrupt(
                        r,
                        format!("CHIMP window of {lz} leading zeros and {sig} bits"),
                    );
                }
                stored_lz = Some(lz);
                r.skip(case01);
                ring_at(&ring, slot) ^ (r.read_wide(sig) << (W - lz - sig))
            }
            0b10 => {
                let Some(lz) = stored_lz else {
                    return corrupt(r, "CHIMP '10' before any leading-zero count".into());
                };
                r.skip(2);
                prev ^ r.read_wide(W - lz)
            }
            _ => {
                let lz = leading(head >> 59);
                stored_lz = Some(lz);
                r.skip(5);
                prev ^ r.read_wide(W - lz)
            }
        };
        cur = (cur + 1) & slot_mask as usize;
        Ok(value)
    };
    decode_framed::<T, W>(input, base, mode, &framing, next, conv, out)
}
