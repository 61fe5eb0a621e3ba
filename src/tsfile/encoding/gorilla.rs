//! GORILLA (v2) XOR encoding (`spec/tsfile.md` §7.4) of `W`-bit patterns: INT32/DATE and
//! FLOAT (raw bits) with `W = 32`, INT64/TIMESTAMP and DOUBLE with `W = 64`.
//!
//! First value raw; then per value `0` (same), `10` + the XOR's meaningful bits inside the
//! stored leading/trailing-zero window, or `11` + leading zeros (5/6 bits) + meaningful
//! length − 1 (5/6 bits) + the bits. The page ends with the type's sentinel encoded as a
//! value, then the partial byte is always written (an extra `00` when already aligned).
//!
//! Sentinels: INT32 `0x80000000`, INT64 `0x8000000000000000`, FLOAT `0x7fc00000`, DOUBLE
//! `0x7ff8000000000000`. [`encode`] refuses values equal to it (the dispatcher first maps
//! FLOAT/DOUBLE's canonical NaN to another NaN). Java's reader stops at the
//! first sentinel after the first value; C++'s reader is count-driven, and the C++ writer
//! stores sentinel values as data. [`decode`] follows Java but treats a sentinel with more
//! than the final byte's bits after it as data; [`Mode::Exact`] reads a known count the way
//! C++ does.

use super::bits::{BitReader, BitWriter};
use super::limit_exceeded;
use crate::{Error, Result};

/// How the end of a stream is found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Stop at the sentinel; at most this many values.
    UpTo(usize),
    /// Exactly this many values; sentinel values among them are data.
    Exact(usize),
}

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
    values: impl Iterator<Item = u64>,
    sentinel: u64,
    out: &mut Vec<u8>,
) -> Result<()> {
    let mut w = BitWriter::new(out);
    let mut first = true;
    let (mut stored, mut stored_lz, mut stored_tz) = (0u64, u32::MAX, 0u32);
    let mut push = |w: &mut BitWriter<'_>, v: u64| {
        if first {
            w.put(v, W);
            stored = v;
            first = false;
            return;
        }
        let x = stored ^ v;
        stored = v;
        if x == 0 {
            w.put(0, 1);
            return;
        }
        let lz = x.leading_zeros() - (64 - W);
        let tz = x.trailing_zeros();
        if lz >= stored_lz && tz >= stored_tz {
            w.put(0b10, 2);
            w.put(x >> stored_tz, W - stored_lz - stored_tz);
        } else {
            let sig = W - lz - tz;
            w.put(0b11, 2);
            w.put(lz as u64, field_bits(W));
            w.put((sig - 1) as u64, field_bits(W));
            w.put(x >> tz, sig);
            (stored_lz, stored_tz) = (lz, tz);
        }
    };
    let mut any = false;
    for v in values {
        push(&mut w, v);
        any = true;
    }
    if any {
        push(&mut w, sentinel);
        let pad = 8 - w.partial_bits();
        w.put(0, pad);
        w.finish();
    }
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
    let (max, exact) = match mode {
        Mode::UpTo(n) => (n, false),
        Mode::Exact(n) => (n, true),
    };
    if input.is_empty() && !(exact && max > 0) {
        return Ok(());
    }
    let at = |r: &BitReader<'_>| base + r.consumed_bits() / 8;
    let truncated = |r: &BitReader<'_>| {
        Error::truncated(
            "GORILLA stream",
            r.consumed_bits().div_ceil(8),
            input.len() as u64,
        )
        .at_offset(base)
    };
    let total_bits = input.len() * 8;
    let f = field_bits(W);
    let field_mask = (1u64 << f) - 1;
    let mut r = BitReader::new(input);
    let mut value = r.read_wide(W);
    if r.overrun() {
        return Err(truncated(&r));
    }
    if max == 0 {
        return Err(limit_exceeded("GORILLA", max).at_offset(base));
    }
    // A '10' before any '11' has no window yet: `sig == 0` marks that.
    let (mut sig, mut tz) = (0u32, 0u32);
    // Every value takes at least one bit, so `limit` values cannot fit without running past
    // the end of `input`: the overrun check waits until the sentinel or `limit` is reached
    // (zero bits read past the end repeat the last value, so the loop still gets there).
    let limit = max.min(total_bits);
    out.reserve(limit);
    out.push(conv(value));
    let mut produced = 1usize;
    loop {
        let head = r.peek();
        if head >> 63 == 0 {
            r.skip(1);
        } else {
            if head >> 62 == 0b11 {
                let lz = ((head >> (62 - f)) & field_mask) as u32;
                sig = ((head >> (62 - 2 * f)) & field_mask) as u32 + 1;
                if lz + sig > W {
                    return Err(Error::corrupt(
                        "tsfile",
                        format!("GORILLA window of {lz} leading zeros and {sig} bits"),
                    )
                    .at_offset(at(&r)));
                }
                tz = W - lz - sig;
                r.skip(2 + 2 * f);
            } else {
                if sig == 0 {
                    return Err(
                        Error::corrupt("tsfile", "GORILLA '10' before any '11'").at_offset(at(&r))
                    );
                }
                r.skip(2);
            }
            value ^= r.read_wide(sig) << tz;
        }
        // One test for everything that is not "another ordinary value".
        if value == sentinel || produced >= limit {
            if r.overrun() {
                return Err(truncated(&r));
            }
            // The end: the sentinel, then 1..=8 padding bits (the always-written final byte).
            let end = value == sentinel && (1..=8).contains(&r.remaining_bits());
            if exact && produced == max {
                if !end {
                    return Err(Error::corrupt(
                        "tsfile",
                        format!("GORILLA stream does not end after {max} values"),
                    )
                    .at_offset(at(&r)));
                }
                return Ok(());
            }
            if !exact && value == sentinel && r.remaining_bits() <= 8 {
                return if end { Ok(()) } else { Err(truncated(&r)) };
            }
            if produced == max {
                return Err(limit_exceeded("GORILLA", max).at_offset(at(&r)));
            }
        }
        out.push(conv(value));
        produced += 1;
    }
}
