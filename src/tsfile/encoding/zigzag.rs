//! ZIGZAG (`spec/tsfile.md` §7.6) for INT32/DATE and INT64/TIMESTAMP: a package is
//! `UVarInt byte_len, UVarInt value_count` and then `byte_len` bytes of zigzag LEB128 values
//! (up to 5 bytes each for 32-bit types, 10 for 64-bit). Writers emit one package per page;
//! the decoder reads packages while bytes remain and checks each one's declared count.

use super::limit_exceeded;
use crate::cursor::Cursor;
use crate::tsfile::format::varint::put_uvarint;
use crate::{Error, Result};

/// A 32- or 64-bit integer as ZIGZAG stores it.
pub(crate) trait Zig: Copy {
    /// Most LEB128 bytes of one value.
    const MAX_BYTES: usize;
    /// The zigzag mapping to an unsigned value.
    fn zig(self) -> u64;
    /// Back from the unsigned value.
    fn unzig(u: u64) -> Self;
}

impl Zig for i32 {
    const MAX_BYTES: usize = 5;
    fn zig(self) -> u64 {
        ((self << 1) ^ (self >> 31)) as u32 as u64
    }
    fn unzig(u: u64) -> Self {
        let u = u as u32;
        ((u >> 1) as i32) ^ -((u & 1) as i32)
    }
}

impl Zig for i64 {
    const MAX_BYTES: usize = 10;
    fn zig(self) -> u64 {
        ((self << 1) ^ (self >> 63)) as u64
    }
    fn unzig(u: u64) -> Self {
        ((u >> 1) as i64) ^ -((u & 1) as i64)
    }
}

/// Appends one package holding `values` (nothing for no values, as the writers do).
pub(crate) fn encode<T: Zig>(values: &[T], out: &mut Vec<u8>) -> Result<()> {
    if values.is_empty() {
        return Ok(());
    }
    let mut body = Vec::with_capacity(values.len() * 2);
    for &v in values {
        let mut u = v.zig();
        while u >= 0x80 {
            body.push((u as u8) | 0x80);
            u >>= 7;
        }
        body.push(u as u8);
    }
    let len = u32::try_from(body.len()).map_err(|_| Error::invalid("ZIGZAG page too large"))?;
    let count = u32::try_from(values.len()).map_err(|_| Error::invalid("ZIGZAG page too large"))?;
    put_uvarint(out, len);
    put_uvarint(out, count);
    out.extend_from_slice(&body);
    Ok(())
}

/// Decodes every package of `input` (first byte at offset `base`) into `out`; more than
/// `max` values is an error.
pub(crate) fn decode<T: Zig>(input: &[u8], base: u64, max: usize, out: &mut Vec<T>) -> Result<()> {
    let mut c = Cursor::new(input, base);
    let start = out.len();
    while !c.is_empty() {
        let len = c.read_uvarint()? as usize;
        let at = c.offset();
        let count = c.read_uvarint()? as usize;
        let body = c.take("ZIGZAG package", len)?;
        // Every value takes at least one byte: a count above the body length is corrupt.
        if count > body.len() {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "ZIGZAG package declares {count} values in {} bytes",
                    body.len()
                ),
            )
            .at_offset(at));
        }
        if out.len() - start + count > max {
            return Err(limit_exceeded("ZIGZAG", max).at_offset(at));
        }
        out.reserve(count);
        let mut pos = 0usize;
        for _ in 0..count {
            let mut u = 0u64;
            let mut shift = 0;
            loop {
                let Some(&b) = body.get(pos) else {
                    return Err(
                        Error::corrupt("tsfile", "ZIGZAG value runs past its package")
                            .at_offset(at + pos as u64),
                    );
                };
                pos += 1;
                if shift >= 7 * T::MAX_BYTES {
                    return Err(Error::corrupt("tsfile", "ZIGZAG value is too long")
                        .at_offset(at + pos as u64));
                }
                u |= ((b & 0x7f) as u64) << shift;
                shift += 7;
                if b < 0x80 {
                    break;
                }
            }
            out.push(T::unzig(u));
        }
        if pos != body.len() {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "ZIGZAG package has {} bytes after its {count} values",
                    body.len() - pos
                ),
            )
            .at_offset(at));
        }
    }
    Ok(())
}
