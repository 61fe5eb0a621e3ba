//! FLOAT/DOUBLE under TS_2DIFF and RLE: Java's `FloatEncoder`/`FloatDecoder` wrapper
//! (`spec/tsfile.md` §7.2). Each value becomes an integer — `round(v * 10^mpn)` when that
//! fits, else `round(v)`, else the raw IEEE bits (NaN, ±Inf, huge) — and the integers go
//! through the INT32 (FLOAT) or INT64 (DOUBLE) encoder. Three page forms:
//!
//! ```text
//! Form 1 (all scaled):   UVarInt mpn  Inner
//! Form 2 (some rounded): UVarInt 0x7FFFFFFF  UVarInt count  scaled_bitmap  UVarInt mpn  Inner
//! Form 3 (some raw):     UVarInt 0x7FFFFFFE  UVarInt count  scaled_bitmap  raw_bitmap  UVarInt mpn  Inner
//! ```
//!
//! Bitmaps are LSB-first and always `count / 8 + 1` bytes.

use super::limit_exceeded;
use super::plain::{java_double_bits, java_float_bits};
use super::word::Word;
use super::{rle, ts2diff};
use crate::cursor::Cursor;
use crate::tsfile::format::varint::put_uvarint;
use crate::tsfile::format::Encoding;
use crate::{Error, Result};

const FORM_ROUNDED: u32 = 0x7FFF_FFFF;
const FORM_RAW: u32 = 0x7FFF_FFFE;

/// How one value was turned into an integer (Java's `underflowFlags`: true, false, null).
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Flag {
    /// `round(v * 10^mpn)`.
    Scaled,
    /// `round(v)`: scaling would overflow.
    Rounded,
    /// The raw bits (`floatToIntBits` / `doubleToLongBits`).
    Raw,
}

/// FLOAT or DOUBLE and the integer width it is stored as.
pub(crate) trait Real: Copy {
    /// `i32` for FLOAT, `i64` for DOUBLE.
    type Int: Word;
    /// Java's `convertFloatToInt` / `convertDoubleToLong`.
    fn to_stored(self, scale: f64) -> (Self::Int, Flag);
    /// Java's `FloatDecoder` conversion back.
    fn from_stored(v: Self::Int, flag: Flag, scale: f64) -> Self;
}

/// Java `Math.round(double)`: `floor(x + 0.5)` computed exactly, saturating to `i64`
/// (NaN gives 0).
pub(super) fn java_round(x: f64) -> i64 {
    let f = x.floor();
    (if x - f >= 0.5 { f + 1.0 } else { f }) as i64
}

impl Real for f32 {
    type Int = i32;
    fn to_stored(self, scale: f64) -> (i32, Flag) {
        let s = self as f64 * scale;
        if s > i32::MAX as f64 || s < i32::MIN as f64 {
            // Java compares the float with `(float) Integer.MAX_VALUE`, i.e. 2^31, and with
            // -2^31 (not NaN here: a NaN product fails both comparisons above).
            if self.abs() > 2_147_483_648.0 {
                (java_float_bits(self) as i32, Flag::Raw)
            } else {
                // `Math.round(float)`; exact because |v| <= 2^31 fits a double's mantissa.
                (((self as f64) + 0.5).floor() as i32, Flag::Rounded)
            }
        } else if self.is_nan() {
            (java_float_bits(self) as i32, Flag::Raw)
        } else {
            // `(int) Math.round(double)`: a wrapping narrow of the long.
            (java_round(s) as i32, Flag::Scaled)
        }
    }
    fn from_stored(v: i32, flag: Flag, scale: f64) -> f32 {
        match flag {
            Flag::Raw => f32::from_bits(v as u32),
            Flag::Scaled => (v as f64 / scale) as f32,
            Flag::Rounded => v as f64 as f32,
        }
    }
}

impl Real for f64 {
    type Int = i64;
    fn to_stored(self, scale: f64) -> (i64, Flag) {
        let s = self * scale;
        if s > i64::MAX as f64 || s < i64::MIN as f64 {
            if self.abs() > i64::MAX as f64 {
                (java_double_bits(self) as i64, Flag::Raw)
            } else {
                (java_round(self), Flag::Rounded)
            }
        } else if self.is_nan() {
            (java_double_bits(self) as i64, Flag::Raw)
        } else {
            (java_round(s), Flag::Scaled)
        }
    }
    fn from_stored(v: i64, flag: Flag, scale: f64) -> f64 {
        match flag {
            Flag::Raw => f64::from_bits(v as u64),
            Flag::Scaled => v as f64 / scale,
            Flag::Rounded => v as f64,
        }
    }
}

/// `10^mpn`, or 1 for `mpn <= 0` (the stream's UVarInt read as a Java `int`).
fn scale_for(mpn: i32) -> f64 {
    if mpn <= 0 {
        1.0
    } else {
        10f64.powf(mpn as f64)
    }
}

/// Appends the wrapper stream of `values` with `inner` (TS_2DIFF or RLE) underneath.
/// No values give no bytes (Java never flushes an empty page). `rle_runs` as in
/// [`EncodeOptions`](super::EncodeOptions).
pub(crate) fn encode<F: Real>(
    inner: Encoding,
    values: &[F],
    max_point_number: i32,
    rle_runs: bool,
    out: &mut Vec<u8>,
) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let mpn = max_point_number.max(0);
    let scale = scale_for(mpn);
    let (ints, flags): (Vec<F::Int>, Vec<Flag>) = values.iter().map(|v| v.to_stored(scale)).unzip();
    let any_raw = flags.contains(&Flag::Raw);
    if any_raw || flags.contains(&Flag::Rounded) {
        let count = u32::try_from(values.len())
            .map_err(|_| Error::invalid(format!("{} values in one page", values.len())))?;
        put_uvarint(out, if any_raw { FORM_RAW } else { FORM_ROUNDED });
        put_uvarint(out, count);
        put_bitmap(&flags, Flag::Scaled, out);
        if any_raw {
            put_bitmap(&flags, Flag::Raw, out);
        }
    }
    put_uvarint(out, mpn as u32);
    match inner {
        Encoding::Rle => rle::encode(&ints, rle_runs, out),
        _ => ts2diff::encode(&ints, out),
    }
    Ok(())
}

fn put_bitmap(flags: &[Flag], which: Flag, out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + flags.len() / 8 + 1, 0);
    for (i, _) in flags.iter().enumerate().filter(|(_, &f)| f == which) {
        if let Some(b) = out.get_mut(start + i / 8) {
            *b |= 1 << (i % 8);
        }
    }
}

fn bit(bitmap: &[u8], i: usize) -> bool {
    bitmap.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
}

/// Decodes a wrapper stream in any of the three forms, appending to `out`; more than `max`
/// values is an error.
pub(crate) fn decode<F: Real>(
    inner: Encoding,
    input: &[u8],
    max: usize,
    out: &mut Vec<F>,
) -> Result<()> {
    if input.is_empty() {
        return Ok(());
    }
    let mut c = Cursor::new(input, 0);
    let tag = c.read_uvarint()?;
    let mut bitmaps = None;
    let mpn = if tag == FORM_ROUNDED || tag == FORM_RAW {
        let at = c.offset();
        let count = c.read_uvarint()? as usize;
        if count > max {
            return Err(limit_exceeded("FLOAT/DOUBLE wrapper", max).at_offset(at));
        }
        let scaled = c.take("scaled-value bitmap", count / 8 + 1)?;
        let raw = match tag {
            FORM_RAW => c.take("raw-value bitmap", count / 8 + 1)?,
            _ => &[],
        };
        bitmaps = Some((count, scaled, raw));
        c.read_uvarint()?
    } else {
        tag
    };
    let scale = scale_for(mpn as i32);
    let mut ints: Vec<F::Int> = Vec::new();
    let (rest, base) = (c.rest(), c.offset());
    match inner {
        Encoding::Rle => rle::decode(rest, base, max, &mut ints)?,
        _ => ts2diff::decode(rest, base, max, &mut ints)?,
    }
    match bitmaps {
        None => out.extend(ints.iter().map(|&v| F::from_stored(v, Flag::Scaled, scale))),
        Some((count, scaled, raw)) => {
            if ints.len() != count {
                return Err(Error::corrupt(
                    "tsfile",
                    format!(
                        "wrapper declares {count} values, stream holds {}",
                        ints.len()
                    ),
                )
                .at_offset(base));
            }
            out.extend(ints.iter().enumerate().map(|(i, &v)| {
                let flag = if bit(raw, i) {
                    Flag::Raw
                } else if bit(scaled, i) {
                    Flag::Scaled
                } else {
                    Flag::Rounded
                };
                F::from_stored(v, flag, scale)
            }));
        }
    }
    Ok(())
}
