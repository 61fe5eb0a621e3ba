//! The framing CHIMP and GORILLA_V1 share with GORILLA (`spec/tsfile.md` §7.4, §7.7): a
//! stream is the first value raw, then one XOR code per value, ended by an end marker (the
//! type's sentinel, or any NaN for GORILLA_V1) encoded as one more value and padding to
//! the byte. [`decode_framed`] drives a codec's per-value step and applies the end rules of
//! both [`Mode`]s; [`close_page`] writes GORILLA/CHIMP's page end and [`sentinel_ended`]
//! describes it to their decoders; [`nan_safe`] is the FLOAT/DOUBLE mapping that keeps data
//! NaNs from looking like the sentinel.
//!
//! End rules: [`Mode::UpTo`] stops at an end marker followed by no more bits than the
//! padding can hold (a marker with more after it is data, as the C++ writer stores such
//! values); [`Mode::Exact`] takes exactly the count given, markers among them as data, and
//! then requires the end marker and padding.

use super::bits::{BitReader, BitWriter};
use super::limit_exceeded;
use crate::{Error, Result};
use std::ops::RangeInclusive;

/// How the end of a stream is found.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    /// Stop at the sentinel; at most this many values.
    UpTo(usize),
    /// Exactly this many values; sentinel values among them are data.
    Exact(usize),
}

/// How a framed stream begins and ends.
pub(crate) struct Framing<E> {
    /// The encoding's name, for messages.
    pub(crate) name: &'static str,
    /// What a truncation error calls the stream.
    pub(crate) stream: &'static str,
    /// Whether the first value's `W` bits are little-endian bytes (GORILLA_V1) rather than
    /// MSB-first bits.
    pub(crate) first_le: bool,
    /// Whether a decoded value is the end marker.
    pub(crate) is_end: E,
    /// How many bits may follow the end marker: `1..=8` where the final byte is always
    /// written (GORILLA, CHIMP), `0..=7` where it is only written when partial (GORILLA_V1).
    pub(crate) pad: RangeInclusive<u64>,
}

/// The framing of GORILLA and CHIMP pages: the first value MSB first, ended by `sentinel`
/// and the padding [`close_page`] writes (1 to 8 bits: the final byte is always written).
pub(crate) fn sentinel_ended(
    name: &'static str,
    stream: &'static str,
    sentinel: u64,
) -> Framing<impl Fn(u64) -> bool> {
    Framing {
        name,
        stream,
        first_le: false,
        is_end: move |v| v == sentinel,
        pad: 1..=8,
    }
}

/// The byte offset of `r`'s position, for errors (`base` is the offset of the first byte).
pub(crate) fn offset(base: u64, r: &BitReader<'_>) -> u64 {
    base + r.consumed_bits() / 8
}

/// Ends a GORILLA or CHIMP page after its sentinel: the partial byte is always written, an
/// extra `00` when the sentinel ended on a byte boundary (Java's reader fetches the next
/// byte as soon as one is used up).
pub(crate) fn close_page(mut w: BitWriter<'_>) {
    let pad = 8 - w.partial_bits();
    w.put(0, pad);
    w.finish();
}

/// The pattern stored for FLOAT/DOUBLE raw bits `bits` under a sentinel-ended encoding:
/// unchanged, except that the canonical NaN (the type's `sentinel`) becomes the quiet NaN
/// with payload 1, which reads back as NaN in Java (whose reader would stop at the
/// sentinel) and C++ alike.
pub(crate) fn nan_safe(bits: u64, sentinel: u64) -> u64 {
    if bits == sentinel {
        bits | 1
    } else {
        bits
    }
}

/// Decodes the framed stream `input` (first byte at offset `base`): the first value raw
/// (`W` bits), then one `next(reader, previous)` per value until the end marker, appending
/// `conv(bits)` for each value to `out`. `next` may read past the end of `input` (zero
/// bits); that is caught here.
pub(crate) fn decode_framed<T, const W: u32>(
    input: &[u8],
    base: u64,
    mode: Mode,
    framing: &Framing<impl Fn(u64) -> bool>,
    mut next: impl FnMut(&mut BitReader<'_>, u64) -> Result<u64>,
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
    let truncated = |r: &BitReader<'_>| {
        Error::truncated(
            framing.stream,
            r.consumed_bits().div_ceil(8),
            input.len() as u64,
        )
        .at_offset(base)
    };
    let total_bits = input.len() * 8;
    let mut r = BitReader::new(input);
    let mut value = r.read_wide(W);
    if framing.first_le {
        value = value.swap_bytes() >> (64 - W);
    }
    if r.overrun() {
        return Err(truncated(&r));
    }
    if max == 0 {
        return Err(limit_exceeded(framing.name, max).at_offset(base));
    }
    // Every value takes at least one bit, so `limit` values cannot fit without running past
    // the end of `input`: the overrun check waits until the end marker or `limit` is
    // reached (zero bits read past the end repeat a stored value, so the loop still gets
    // there).
    let limit = max.min(total_bits);
    let last_pad = *framing.pad.end();
    out.reserve(limit);
    out.push(conv(value));
    let mut produced = 1usize;
    loop {
        value = next(&mut r, value)?;
        let marker = (framing.is_end)(value);
        // One test for everything that is not "another ordinary value".
        if marker || produced >= limit {
            if r.overrun() {
                return Err(truncated(&r));
            }
            let rest = r.remaining_bits();
            let end = marker && framing.pad.contains(&rest);
            if exact && produced == max {
                if !end {
                    return Err(Error::corrupt(
                        "tsfile",
                        format!("{} stream does not end after {max} values", framing.name),
                    )
                    .at_offset(offset(base, &r)));
                }
                return Ok(());
            }
            if !exact && marker && rest <= last_pad {
                return if end { Ok(()) } else { Err(truncated(&r)) };
            }
            if produced == max {
                return Err(limit_exceeded(framing.name, max).at_offset(offset(base, &r)));
            }
        }
        out.push(conv(value));
        produced += 1;
    }
}
