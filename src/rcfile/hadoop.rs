//! Hadoop `WritableUtils` encodings: the zero-compressed VInt/VLong (not LEB128), `Text`
//! (VInt length + UTF-8) and big-endian int32, as RCFile headers and key sections use them.
//!
//! ```
//! use colfile::rcfile::hadoop::{write_vlong, decode_vlong};
//! let mut out = Vec::new();
//! write_vlong(&mut out, 300);
//! assert_eq!(out, [0x8e, 0x01, 0x2c]);
//! assert_eq!(decode_vlong(&out), Some((300, 3)));
//! ```

use crate::cursor::Cursor;
use crate::{Error, Result};

/// Total encoded size (marker included) implied by the first byte of a VLong.
#[inline]
pub fn vlong_size_from_first(first: u8) -> usize {
    let b = first as i8;
    if b >= -112 {
        1
    } else if b < -120 {
        (-119 - b as i32) as usize
    } else {
        (-111 - b as i32) as usize
    }
}

/// Decodes one VLong from the front of `buf`: `(value, bytes used)`, or `None` if `buf` ends
/// inside it. Non-minimal encodings are accepted, as Hadoop's reader accepts them.
#[inline]
pub fn decode_vlong(buf: &[u8]) -> Option<(i64, usize)> {
    let &first = buf.first()?;
    let b = first as i8;
    if b >= -112 {
        return Some((b as i64, 1));
    }
    let n = vlong_size_from_first(first);
    let m: u64 = match buf.get(1..9) {
        // One big-endian load of the 8 bytes after the marker, shifted down to the n-1 that
        // belong to this value (limits.md: 3.3 ns instead of 8.3 ns for a byte loop).
        Some(w) if n > 1 => {
            let w = u64::from_be_bytes(w.try_into().ok()?);
            w >> (8 * (9 - n))
        }
        _ => {
            let mut m: u64 = 0;
            for &x in buf.get(1..n)? {
                m = (m << 8) | x as u64;
            }
            m
        }
    };
    let v = if b < -120 { !(m as i64) } else { m as i64 };
    Some((v, n))
}

/// The VLong at the front of `rest` if it ends within its first `len` bytes: a cell's
/// VLong, where `rest` runs on past the cell to the end of its column.
#[inline(always)]
pub(crate) fn vlong_within(rest: &[u8], len: usize) -> Option<(i64, usize)> {
    decode_vlong(rest).filter(|&(_, n)| n <= len)
}

/// Encoded size of `v` (Hadoop `getVIntSize`).
#[inline]
#[cfg_attr(not(feature = "unstable"), allow(dead_code))] // for the unstable API's users
pub fn vlong_size(v: i64) -> usize {
    if (-112..=127).contains(&v) {
        return 1;
    }
    let m = if v < 0 { !v } else { v } as u64;
    let bits = 64 - m.leading_zeros() as usize;
    bits.div_ceil(8) + 1
}

/// Appends the minimal zero-compressed encoding of `v`.
#[inline]
pub fn write_vlong(out: &mut Vec<u8>, v: i64) {
    if (-112..=127).contains(&v) {
        out.push(v as u8);
        return;
    }
    let (base, m) = if v < 0 {
        (-120i32, !v as u64)
    } else {
        (-112i32, v as u64)
    };
    let k = (64 - m.leading_zeros() as usize).div_ceil(8);
    out.push((base - k as i32) as i8 as u8);
    for i in (0..k).rev() {
        out.push((m >> (8 * i)) as u8);
    }
}

/// Appends a Hadoop `Text`: VInt byte length + bytes.
pub fn write_text(out: &mut Vec<u8>, s: &[u8]) {
    write_vlong(out, s.len() as i64);
    out.extend_from_slice(s);
}

/// Appends a big-endian int32.
#[inline]
pub fn write_i32_be(out: &mut Vec<u8>, v: i32) {
    out.extend_from_slice(&v.to_be_bytes());
}

/// Hadoop reads on a [`Cursor`]: VLong, VInt, lengths and `Text`, each checked against what
/// remains, errors naming their byte offset.
impl<'a> Cursor<'a> {
    /// Hadoop zero-compressed VLong (the format `decode_vlong` in `rcfile::hadoop` reads).
    #[inline]
    pub fn read_vlong(&mut self) -> Result<i64> {
        if let Some(&b) = self.rest().first() {
            if (b as i8) >= -112 {
                self.skip_unchecked(1);
                return Ok(b as i8 as i64);
            }
        }
        match decode_vlong(self.rest()) {
            Some((v, n)) => {
                self.skip_unchecked(n);
                Ok(v)
            }
            None => Err(self.vlong_truncated()),
        }
    }

    #[cold]
    fn vlong_truncated(&self) -> Error {
        let need = self.rest().first().map_or(1, |&b| vlong_size_from_first(b));
        Error::truncated("VLong", need as u64, self.remaining() as u64).at_offset(self.offset())
    }

    /// Hadoop VInt: a VLong that must fit in int32.
    #[inline]
    pub fn read_vint(&mut self) -> Result<i32> {
        let at = self.offset();
        let v = self.read_vlong()?;
        i32::try_from(v).map_err(|_| vint_overflow(v, at))
    }
    /// A non-negative VInt length, checked against what remains and against `max`.
    pub fn read_len(&mut self, what: &'static str, max: usize) -> Result<usize> {
        let at = self.offset();
        let v = self.read_vint()?;
        if v < 0 {
            return Err(
                Error::corrupt("hadoop", format!("negative {what} length {v}")).at_offset(at),
            );
        }
        let n = v as usize;
        if n > max {
            return Err(Error::limit(what, n as u64, max as u64).at_offset(at));
        }
        self.need(what, n)?;
        Ok(n)
    }
    /// Hadoop `Text`: VInt byte length + UTF-8 bytes, at most `max_len` bytes.
    pub fn read_text(&mut self, what: &'static str, max_len: usize) -> Result<&'a str> {
        let n = self.read_len(what, max_len)?;
        let at = self.offset();
        let bytes = self.take(what, n)?;
        std::str::from_utf8(bytes).map_err(|e| {
            Error::corrupt("hadoop", format!("{what} is not UTF-8: {e}")).at_offset(at)
        })
    }
}

#[cold]
fn vint_overflow(v: i64, at: u64) -> Error {
    Error::corrupt("hadoop", format!("VInt {v} does not fit in 32 bits")).at_offset(at)
}

#[cfg(test)]
mod tests {
    use super::*;

    const VECTORS: &[(i64, &[u8])] = &[
        (0, &[0x00]),
        (1, &[0x01]),
        (127, &[0x7f]),
        (128, &[0x8f, 0x80]),
        (255, &[0x8f, 0xff]),
        (256, &[0x8e, 0x01, 0x00]),
        (300, &[0x8e, 0x01, 0x2c]),
        (2_147_483_647, &[0x8c, 0x7f, 0xff, 0xff, 0xff]),
        (
            i64::MAX,
            &[0x88, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ),
        (15_340, &[0x8e, 0x3b, 0xec]),
        (-1, &[0xff]),
        (-2, &[0xfe]),
        (-3, &[0xfd]),
        (-112, &[0x90]),
        (-113, &[0x87, 0x70]),
        (-128, &[0x87, 0x7f]),
        (-129, &[0x87, 0x80]),
        (-257, &[0x86, 0x01, 0x00]),
        (-(1 << 31), &[0x84, 0x7f, 0xff, 0xff, 0xff]),
        (
            i64::MIN,
            &[0x80, 0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
        ),
    ];

    #[test]
    fn reference_vectors() {
        for &(v, bytes) in VECTORS {
            let mut out = Vec::new();
            write_vlong(&mut out, v);
            assert_eq!(out, bytes, "encode {v}");
            assert_eq!(vlong_size(v), bytes.len(), "size {v}");
            assert_eq!(decode_vlong(bytes), Some((v, bytes.len())), "decode {v}");
            assert_eq!(
                decode_vlong(&bytes[..bytes.len() - 1]),
                None,
                "truncated {v}"
            );
        }
    }

    #[test]
    fn non_minimal_accepted() {
        assert_eq!(decode_vlong(&[0x8f, 0x05]), Some((5, 2)));
    }
}
