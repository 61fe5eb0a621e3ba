//! GORILLA_V1 (encoding 6, `spec/tsfile.md` §7.4 end), the legacy Gorilla layout Java still
//! reads and writes for FLOAT (`W = 32`) and DOUBLE (`W = 64`); C++ has no codec for it.
//! Bytes equal Java's `SinglePrecisionEncoderV1` / `DoublePrecisionEncoderV1`.
//!
//! The first value is its `W / 8` bytes **little-endian**. Each later value is XORed with
//! the previous one and written MSB first as `0` (same value), `10` + the XOR's bits from
//! `W − 1 − lz(prev)` down to `tz(prev)` — the window is the previous *value*'s leading and
//! trailing zeros, not a previous XOR's — when the XOR fits it, else `11` + the XOR's
//! leading zeros (5/6 bits) + its meaningful length (6/7 bits, not minus one) + those bits.
//!
//! End of page: Java's `flush` encodes `NaN` as one more value, then writes the partial byte
//! only if there is one (no extra byte when aligned: its reader fetches bytes lazily), so 0
//! to 7 zero bits follow the end marker. Nothing is written for an empty page (Java would
//! write a lone `NaN`).
//!
//! NaN: Java takes the bits with `floatToIntBits`/`doubleToLongBits`, so every NaN is
//! stored as the canonical one (`0x7fc00000` / `0x7ff8000000000000`) — the same bits as the
//! end marker — and [`encode`] does the same (NaN payloads and signs are not kept). Java's
//! reader ends the page at the first NaN it decodes: it stops fetching bytes, so any value
//! after a NaN that does not fit in the rest of that NaN's last byte reads as repeats of
//! the value before it. Data NaNs are therefore only safe for Java readers as a page's
//! last values. This decoder reads them as data: [`Mode::Exact`] by count; [`Mode::UpTo`]
//! takes a NaN followed by 8 or more bits as data and a NaN followed by fewer as the end
//! (so trailing data NaNs that share the final byte with the marker need the count).

use super::bits::{BitReader, BitWriter};
use super::framing::Mode;
use super::framing::{decode_framed, offset, Framing};
use crate::{Error, Result};

/// Widths of the `11` case's leading-zero and length fields.
const fn fields(w: u32) -> (u32, u32) {
    if w == 32 {
        (5, 6)
    } else {
        (6, 7)
    }
}

/// Whether the `W`-bit pattern `v` is a NaN.
fn is_nan<const W: u32>(v: u64) -> bool {
    if W == 32 {
        f32::from_bits(v as u32).is_nan()
    } else {
        f64::from_bits(v).is_nan()
    }
}

/// The canonical NaN of width `W`, Java's end marker.
const fn canonical_nan(w: u32) -> u64 {
    if w == 32 {
        0x7fc0_0000
    } else {
        0x7ff8_0000_0000_0000
    }
}

/// Leading and trailing zeros of a `W`-bit pattern (`W` each for zero).
fn zeros<const W: u32>(x: u64) -> (u32, u32) {
    if x == 0 {
        (W, W)
    } else {
        (x.leading_zeros() - (64 - W), x.trailing_zeros())
    }
}

/// Appends the GORILLA_V1 stream of `values` (`W`-bit float patterns in the low bits; any
/// NaN is stored as the canonical one, as Java does); nothing for no values.
pub(crate) fn encode<const W: u32>(values: impl Iterator<Item = u64>, out: &mut Vec<u8>) {
    let (lz_bits, len_bits) = fields(W);
    let mut w = BitWriter::new(out);
    let mut prev: Option<u64> = None;
    let mut push = |w: &mut BitWriter<'_>, v: u64| {
        let v = if is_nan::<W>(v) { canonical_nan(W) } else { v };
        let Some(p) = prev.replace(v) else {
            w.put(v.swap_bytes() >> (64 - W), W);
            return;
        };
        let x = p ^ v;
        if x == 0 {
            w.put(0, 1);
            return;
        }
        let (lz, tz) = zeros::<W>(x);
        let (plz, ptz) = zeros::<W>(p);
        if lz >= plz && tz >= ptz {
            w.put(0b10, 2);
            w.put(x >> ptz, W - plz - ptz);
        } else {
            let len = W - lz - tz;
            w.put(0b11, 2);
            w.put(lz as u64, lz_bits);
            w.put(len as u64, len_bits);
            w.put(x >> tz, len);
        }
    };
    let mut any = false;
    for v in values {
        push(&mut w, v);
        any = true;
    }
    if any {
        push(&mut w, canonical_nan(W));
        w.finish();
    }
}

/// Decodes the GORILLA_V1 stream `input` (first byte at offset `base`), appending
/// `conv(bits)` for each value to `out`.
pub(crate) fn decode<T, const W: u32>(
    input: &[u8],
    base: u64,
    mode: Mode,
    conv: impl Fn(u64) -> T,
    out: &mut Vec<T>,
) -> Result<()> {
    let framing = Framing {
        name: "GORILLA_V1",
        stream: "GORILLA_V1 stream",
        first_le: true,
        is_end: is_nan::<W>,
        pad: 0..=7,
    };
    let (lz_bits, len_bits) = fields(W);
    let corrupt = |r: &BitReader<'_>, msg: String| -> Result<u64> {
        Err(Error::corrupt("tsfile", msg).at_offset(offset(base, r)))
    };
    let next = |r: &mut BitReader<'_>, prev: u64| {
        let head = r.peek();
        if head >> 63 == 0 {
            r.skip(1);
            return Ok(prev);
        }
        if head >> 62 == 0b10 {
            let (plz, ptz) = zeros::<W>(prev);
            if prev == 0 {
                return corrupt(r, "GORILLA_V1 '10' after a zero value".into());
            }
            r.skip(2);
            return Ok(prev ^ (r.read_wide(W - plz - ptz) << ptz));
        }
        let lz = ((head >> (62 - lz_bits)) & ((1 << lz_bits) - 1)) as u32;
        let len = ((head >> (62 - lz_bits - len_bits)) & ((1 << len_bits) - 1)) as u32;
        if lz + len > W {
            return corrupt(
                r,
                format!("GORILLA_V1 window of {lz} leading zeros and {len} bits"),
            );
        }
        r.skip(2 + lz_bits + len_bits);
        // A zero length (never written) XORs nothing, as in Java.
        if len == 0 {
            return Ok(prev);
        }
        Ok(prev ^ (r.read_wide(len) << (W - lz - len)))
    };
    decode_framed::<T, W>(input, base, mode, &framing, next, conv, out)
}
