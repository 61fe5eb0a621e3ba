//! GORILLA (v2) XOR encoding (`spec/tsfile.md` §7.4) of `W`-bit patterns: INT32/DATE and
//! FLOAT (raw bits) with `W = 32`, INT64/TIMESTAMP and DOUBLE with `W = 64`.
//!
//! First value raw; then per value `0` (same), `10` + the XOR's meaningful bits inside the
//! stored leading/trailing-zero window, or `11` + leading zeros (5/6 bits) + meaningful
//! length − 1 (5/6 bits) + the bits. The page ends with the type's sentinel encoded as a
//! value, then the partial byte is always written (an extra `00` when already aligned).
//!
//! Sentinels: INT32 `0x80000000`, INT64 `0x8000000000000000`, FLOAT `0x7fc00000`, DOUBLE
//! `0x7ff8000000000000`. [`encode`] writes values equal to it as data, as the C++ writer
//! does (the dispatcher first maps FLOAT/DOUBLE's canonical NaN to another NaN). Java's
//! reader stops at the first sentinel after the first value; C++'s reader is count-driven.
//! [`decode`] follows Java but treats a sentinel with more than the final byte's bits after
//! it as data; [`Mode::Exact`] reads a known count the way C++ does. The end rules and the
//! page end live in [`framing`](super::framing), shared with CHIMP and GORILLA_V1.

use super::bits::{BitReader, BitWriter};
use super::framing::{close_page, decode_framed, offset, sentinel_ended, Mode};
use crate::{Error, Result};

const fn field_bits(w: u32) -> u32 {
    if w == 32 {
        5
    } else {
        6
    }
}

/// Appends the GORILLA stream of `values` (`W`-bit patterns in the low bits). A value equal
/// to `sentinel` is written as data, as the C++ writer does: count-driven readers (C++ and
/// [`Mode::Exact`]) read it back, while Java's reader would stop at it, so callers map the
/// float sentinel (canonical NaN) to another NaN first.
pub(crate) fn encode<const W: u32>(
    mut values: impl Iterator<Item = u64>,
    sentinel: u64,
    out: &mut Vec<u8>,
) -> Result<()> {
    let Some(first) = values.next() else {
        return Ok(());
    };
    // Most values take close to W bits: reserve once rather than growing per word.
    out.reserve(values.size_hint().0.saturating_add(2) * (W as usize / 8 + 1));
    let f = field_bits(W);
    let mut w = BitWriter::new(out);
    w.put(first, W);
    let (mut stored, mut stored_lz, mut stored_tz) = (first, u32::MAX, 0u32);
    // The sentinel is encoded as one more value; one loop body keeps the step inlined.
    for v in values.chain(std::iter::once(sentinel)) {
        let x = stored ^ v;
        stored = v;
        if x == 0 {
            w.put(0, 1);
            continue;
        }
        let lz = x.leading_zeros() - (64 - W);
        let tz = x.trailing_zeros();
        if lz >= stored_lz && tz >= stored_tz {
            w.put(0b10, 2);
            w.put(x >> stored_tz, W - stored_lz - stored_tz);
        } else {
            let sig = W - lz - tz;
            w.put(0b11, 2);
            w.put(lz as u64, f);
            w.put((sig - 1) as u64, f);
            w.put(x >> tz, sig);
            (stored_lz, stored_tz) = (lz, tz);
        }
    }
    close_page(w);
    Ok(())
}

/// Decodes the GORILLA stream `input` (first byte at offset `base`), appending
/// `conv(bits)` for each value to `out`.
pub(crate) fn decode<T, const W: u32>(
    input: &[u8],
    base: u64,
    mode: Mode,
    sentinel: u64,
    conv: impl Fn(u64) -> T,
    out: &mut Vec<T>,
) -> Result<()> {
    let framing = sentinel_ended("GORILLA", "GORILLA stream", sentinel);
    let f = field_bits(W);
    let field_mask = (1u64 << f) - 1;
    // A '10' before any '11' has no window yet: `sig == 0` marks that.
    let (mut sig, mut tz) = (0u32, 0u32);
    // Whether a '10' takes the one-window path: a window is set and its bits fit in the
    // 62 bits after the code.
    let mut short = false;
    // Every step starts from one 64-bit window: a '10' whose bits fit in the window after
    // the code (nearly every value of real float data), and a '0', need no second load.
    let next = |r: &mut BitReader<'_>, value: u64| {
        let head = r.peek64();
        if head >> 62 == 0b10 && short {
            r.skip(2 + sig);
            return Ok(value ^ (((head << 2) >> (64 - sig)) << tz));
        }
        if head >> 63 == 0 {
            r.skip(1);
            return Ok(value);
        }
        if head >> 62 == 0b10 {
            if sig == 0 {
                return Err(Error::corrupt("tsfile", "GORILLA '10' before any '11'")
                    .at_offset(offset(base, r)));
            }
            r.skip(2);
        } else {
            let lz = ((head >> (62 - f)) & field_mask) as u32;
            sig = ((head >> (62 - 2 * f)) & field_mask) as u32 + 1;
            if lz + sig > W {
                return Err(Error::corrupt(
                    "tsfile",
                    format!("GORILLA window of {lz} leading zeros and {sig} bits"),
                )
                .at_offset(offset(base, r)));
            }
            tz = W - lz - sig;
            short = sig <= 62;
            r.skip(2 + 2 * f);
        }
        let bits = r.peek64() >> (64 - sig);
        r.skip(sig);
        Ok(value ^ (bits << tz))
    };
    decode_framed::<T, W>(input, base, mode, &framing, next, conv, out)
}
