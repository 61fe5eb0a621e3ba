//! SPRINTZ (`spec/tsfile.md` §7.8) for INT32/DATE, INT64/TIMESTAMP, FLOAT and DOUBLE, with
//! the FIRE predictor ([`super::fire`]); FLOAT/DOUBLE are predicted on their bits.
//!
//! ```text
//! Stream := Block*
//! Block  := u8 bw (1..=32 | 1..=64)  anchor  byte[bw]      # a group of 9 values
//!         | u8 (0x80 | k) (k = 1..=9)  raw                 # k values as they are
//! anchor := INT32: UVarInt(anchor as u32) | INT64: int64 BE | FLOAT: f32 BE | DOUBLE: f64 BE
//! byte[bw] := the 8 mapped residuals, bw bits each, MSB-first (Java `IntPacker`/`LongPacker`)
//! raw    := INT32/INT64: one RleStream (§7.3) of k values | FLOAT/DOUBLE: a GORILLA stream
//! ```
//!
//! A group predicts values 1..=8 from their predecessors with a fresh FIRE, maps each
//! residual with [`fire::map`] and packs them at the widest one's bit width (at least 1).
//! Java's writer groups values in nines and ends the page with the 1..=8 left over as a raw
//! block; its reader (and C++'s) reads blocks in any order, raw blocks of up to 9 included.
//!
//! **Java vs C++ 2.5.** Both readers undo the mapping on the *signed* lane
//! ([`fire::unmap`]), so a residual of magnitude 2^30 or more (2^62 for 64-bit lanes)
//! reads back wrong: Java's writer silently stores streams that Java's reader misreads (FLOAT
//! `[0.0, 5.0, …]` or `[1.0, -1.0, …]`, INT32 `[0, i32::MAX, …]`). For 64-bit lanes C++ 2.5
//! also disagrees with Java: its `LongFire::predict` shifts the exact 128-bit product
//! `alpha * delta` (`safe_mul_shift`) where Java (and older C++) wraps it to 64 bits first,
//! so once `|alpha * delta| >= 2^63` the two predict differently and each misreads the
//! other's group. That needs deltas of about 2^35 and more: INT64 values around ±10^12 (as
//! in the fixture `enc_sprintz`), and DOUBLE bit patterns of almost any changing series.
//! The 32-bit `IntFire` is the same in both. [`decode`] follows Java, so C++-written groups
//! in that range read as Java reads them, not as C++ does.
//!
//! **What we write.** Java's bytes, except for groups that Java's or C++'s reader would not
//! read back exactly: those values go into raw blocks instead, which both read exactly.
//! INT32/INT64 use one raw block of 9. A GORILLA raw block can only sit mid-stream when its
//! sentinel ends inside a byte (C++ leaves an all-padding final byte unread, Java reads it),
//! so FLOAT/DOUBLE take the longest such block of at most 9 and regroup after it. NaN is
//! written as the canonical NaN everywhere (Java keeps the payload of anchors and raw
//! values, C++ of residuals), so values read back bit-exactly apart from NaN payloads.
//!
//! The decoder reads blocks while bytes remain. A FLOAT/DOUBLE raw block carries no length:
//! it ends where its GORILLA stream does (sentinel, then 1..=8 padding bits, as
//! [`Mode::Exact`] requires), which one prefix of the rest satisfies.

use super::bits::{BitReader, BitWriter};
use super::fire::{self, Fire, Lane};
use super::framing::Mode;
use super::gorilla;
use super::{limit_exceeded, rle};
use crate::cursor::Cursor;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::varint::put_uvarint;
use crate::{Error, Result};

/// Values per group: the anchor and 8 predicted ones.
const GROUP: usize = 9;

/// How one of the four types stores anchors and raw values.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// INT32/DATE: UVarInt anchor, RLE tail.
    Int32,
    /// INT64/TIMESTAMP: big-endian anchor, RLE tail.
    Int64,
    /// FLOAT/DOUBLE: big-endian anchor, GORILLA tail of this sentinel.
    Float(u64),
}

/// Canonical `f32` bits as an `i32` lane (Java `floatToIntBits`).
fn f32_lane(x: f32) -> i32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits() as i32
    }
}

/// Canonical `f64` bits as an `i64` lane (Java `doubleToLongBits`).
fn f64_lane(x: f64) -> i64 {
    if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits() as i64
    }
}

/// Appends the SPRINTZ stream of `values` (INT32, INT64, FLOAT or DOUBLE). `rle_runs` as
/// for RLE (the tails). On error nothing is appended.
pub(crate) fn encode(values: &Values, rle_runs: bool, out: &mut Vec<u8>) -> Result<()> {
    let start = out.len();
    let r = match values {
        Values::Int32(v) => encode_lanes(v, Kind::Int32, rle_runs, out),
        Values::Int64(v) => encode_lanes(v, Kind::Int64, rle_runs, out),
        Values::Float(v) => {
            let lanes: Vec<i32> = v.iter().map(|&x| f32_lane(x)).collect();
            encode_lanes(&lanes, Kind::Float(0x7fc0_0000), rle_runs, out)
        }
        Values::Double(v) => {
            let lanes: Vec<i64> = v.iter().map(|&x| f64_lane(x)).collect();
            encode_lanes(&lanes, Kind::Float(0x7ff8_0000_0000_0000), rle_runs, out)
        }
        _ => Err(Error::unsupported("SPRINTZ of this type")),
    };
    if r.is_err() {
        out.truncate(start);
    }
    r
}

fn encode_lanes<T: Lane>(lanes: &[T], kind: Kind, runs: bool, out: &mut Vec<u8>) -> Result<()> {
    let mut rest = lanes;
    while !rest.is_empty() {
        let Some((g, after)) = rest.split_first_chunk::<GROUP>() else {
            put_raw(rest, kind, runs, out);
            break;
        };
        if let Some((mapped, width)) = predict_group(g) {
            out.push(width as u8);
            put_anchor(g[0], kind, out);
            let mut w = BitWriter::new(out);
            for m in mapped {
                w.put(m.to_bits(), width);
            }
            w.finish();
            rest = after;
            continue;
        }
        // The longest prefix of the group (all of it for integers) stored raw.
        let raw = match kind {
            Kind::Float(sentinel) => (1..=GROUP)
                .rev()
                .filter_map(|k| g.get(..k))
                .find(|&prefix| !gorilla_ends_aligned(prefix, sentinel))
                .ok_or_else(|| Error::invalid("SPRINTZ cannot store these FLOAT/DOUBLE values"))?,
            _ => g.as_slice(),
        };
        put_raw(raw, kind, runs, out);
        rest = rest.get(raw.len()..).unwrap_or_default();
    }
    Ok(())
}

/// Whether the GORILLA stream of `values` ends its sentinel on a byte boundary, so that a
/// final `00` byte follows, which the C++ reader leaves unread (Java reads it). Each
/// repeat of the sentinel after it costs one bit, so seven more fit in the final byte
/// exactly when that byte held only padding.
fn gorilla_ends_aligned<T: Lane>(values: &[T], sentinel: u64) -> bool {
    let encode = |extra: usize| {
        let mut b = Vec::new();
        let bits = values
            .iter()
            .map(|v| v.to_bits())
            .chain(std::iter::repeat_n(sentinel, extra));
        let _ = if T::BITS == 32 {
            gorilla::encode::<32>(bits, sentinel, &mut b)
        } else {
            gorilla::encode::<64>(bits, sentinel, &mut b)
        };
        b.len()
    };
    encode(0) == encode(7)
}

/// The 8 mapped residuals of a group of 9 and their bit width, or `None` when Java's
/// reader would not undo them exactly or C++ 2.5 would predict otherwise.
fn predict_group<T: Lane>(g: &[T]) -> Option<([T; 8], u32)> {
    let mut f = Fire::<T>::default();
    let mut mapped = [T::default(); 8];
    let mut width = 1;
    for (i, m) in mapped.iter_mut().enumerate() {
        let (pre, val) = (*g.get(i)?, *g.get(i + 1)?);
        if !f.cpp_agrees() {
            return None;
        }
        let err = val.wrapping_sub(f.predict(pre));
        f.train(pre, val, err);
        *m = fire::map(err);
        if fire::unmap(*m) != err {
            return None;
        }
        width = width.max(m.bit_len());
    }
    Some((mapped, width))
}

fn put_anchor<T: Lane>(v: T, kind: Kind, out: &mut Vec<u8>) {
    if kind == Kind::Int32 {
        put_uvarint(out, v.to_bits() as u32);
    } else {
        v.put_be(out);
    }
}

/// A raw block of 1..=9 values.
fn put_raw<T: Lane>(values: &[T], kind: Kind, runs: bool, out: &mut Vec<u8>) {
    out.push(0x80 | values.len() as u8);
    match kind {
        Kind::Float(sentinel) => {
            // Cannot fail: GORILLA stores sentinel-valued data as data.
            let bits = values.iter().map(|v| v.to_bits());
            let _ = if T::BITS == 32 {
                gorilla::encode::<32>(bits, sentinel, out)
            } else {
                gorilla::encode::<64>(bits, sentinel, out)
            };
        }
        _ => rle::encode(values, runs, out),
    }
}

/// Decodes the SPRINTZ stream `input` into `out` (INT32, INT64, FLOAT or DOUBLE values);
/// more than `max` values is an error.
pub(crate) fn decode(input: &[u8], max: usize, out: &mut Values) -> Result<()> {
    match out {
        Values::Int32(o) => decode_lanes(input, Kind::Int32, max, |x: i32| x, o),
        Values::Int64(o) => decode_lanes(input, Kind::Int64, max, |x: i64| x, o),
        Values::Float(o) => decode_lanes(
            input,
            Kind::Float(0x7fc0_0000),
            max,
            |x: i32| f32::from_bits(x as u32),
            o,
        ),
        Values::Double(o) => decode_lanes(
            input,
            Kind::Float(0x7ff8_0000_0000_0000),
            max,
            |x: i64| f64::from_bits(x as u64),
            o,
        ),
        _ => Err(Error::unsupported("SPRINTZ of this type")),
    }
}

fn decode_lanes<T: Lane, V>(
    input: &[u8],
    kind: Kind,
    max: usize,
    conv: impl Fn(T) -> V + Copy,
    out: &mut Vec<V>,
) -> Result<()> {
    let mut c = Cursor::new(input, 0);
    let mut left = max;
    while !c.is_empty() {
        let at = c.offset();
        let head = c.read_u8()?;
        let n = if head & 0x80 == 0 {
            GROUP
        } else {
            (head & 0x7f) as usize
        };
        if n == 0 || n > GROUP {
            return Err(
                Error::corrupt("tsfile", format!("SPRINTZ raw block of {n} values")).at_offset(at),
            );
        }
        if n > left {
            return Err(limit_exceeded("SPRINTZ", max).at_offset(at));
        }
        left -= n;
        if head & 0x80 == 0 {
            decode_group(&mut c, head as u32, kind, conv, out)?;
            continue;
        }
        let body_at = c.offset();
        match kind {
            Kind::Float(sentinel) => {
                let (len, bits) = gorilla_block::<T>(c.rest(), body_at, n, sentinel)?;
                c.take("SPRINTZ raw block", len)?;
                out.extend(bits.into_iter().map(|b| conv(T::from_bits(b))));
            }
            _ => {
                let mut peek = Cursor::new(c.rest(), body_at);
                let len = peek.read_uvarint()? as usize;
                let stream = c.take("SPRINTZ RLE tail", peek.position() + len)?;
                let mut raw: Vec<T> = Vec::new();
                rle::decode(stream, body_at, n, &mut raw)?;
                if raw.len() != n {
                    return Err(Error::corrupt(
                        "tsfile",
                        format!("SPRINTZ raw block holds {} values, not {n}", raw.len()),
                    )
                    .at_offset(body_at));
                }
                out.extend(raw.into_iter().map(conv));
            }
        }
    }
    Ok(())
}

/// The length and values of the GORILLA raw block of `n` values at the start of `input`.
/// The stream carries no length: exactly one prefix ends in the sentinel and 1..=8
/// padding bits (the bits decode the same in every prefix that holds them, so the end
/// sits at one bit position), and that is the shortest prefix that decodes.
fn gorilla_block<T: Lane>(
    input: &[u8],
    base: u64,
    n: usize,
    sentinel: u64,
) -> Result<(usize, Vec<u64>)> {
    let mut bits = Vec::with_capacity(n);
    let mut try_len = |len: usize| {
        bits.clear();
        let prefix = input.get(..len).unwrap_or(input);
        if T::BITS == 32 {
            gorilla::decode::<u64, 32>(prefix, base, Mode::Exact(n), sentinel, |b| b, &mut bits)
        } else {
            gorilla::decode::<u64, 64>(prefix, base, Mode::Exact(n), sentinel, |b| b, &mut bits)
        }
    };
    let first = T::BITS as usize / 8 + 1;
    match (first..input.len()).find(|&len| try_len(len).is_ok()) {
        Some(len) => {
            try_len(len)?;
            Ok((len, bits))
        }
        None => try_len(input.len()).map(|()| (input.len(), bits)),
    }
}

/// Reads a group's anchor and residuals and appends its 9 values, as Java reconstructs them.
fn decode_group<T: Lane, V>(
    c: &mut Cursor<'_>,
    width: u32,
    kind: Kind,
    conv: impl Fn(T) -> V,
    out: &mut Vec<V>,
) -> Result<()> {
    let at = c.offset();
    if width == 0 || width > T::BITS {
        return Err(
            Error::corrupt("tsfile", format!("SPRINTZ bit width {width}")).at_offset(at - 1),
        );
    }
    let anchor = if kind == Kind::Int32 {
        T::from_bits(c.read_uvarint()? as u64)
    } else {
        T::read_be(c)?
    };
    let packed = c.take("SPRINTZ packed residuals", width as usize)?;
    let mut mapped = [T::default(); 8];
    let mut r = BitReader::new(packed);
    for m in &mut mapped {
        *m = T::from_bits(r.read_wide(width));
    }
    // Java predicts from `floatToIntBits(anchor)`: a NaN anchor as the canonical NaN.
    let mut pre = match kind {
        Kind::Float(sentinel) if is_nan::<T>(anchor) => T::from_bits(sentinel),
        _ => anchor,
    };
    out.push(conv(anchor));
    let mut f = Fire::<T>::default();
    for m in mapped {
        let err = fire::unmap(m);
        let val = f.predict(pre).wrapping_add(err);
        f.train(pre, val, err);
        out.push(conv(val));
        pre = val;
    }
    Ok(())
}

/// Whether a FLOAT/DOUBLE lane holds a NaN.
fn is_nan<T: Lane>(bits: T) -> bool {
    let b = bits.to_bits();
    if T::BITS == 32 {
        b & 0x7f80_0000 == 0x7f80_0000 && b & 0x007f_ffff != 0
    } else {
        b & 0x7ff0_0000_0000_0000 == 0x7ff0_0000_0000_0000 && b & 0x000f_ffff_ffff_ffff != 0
    }
}
