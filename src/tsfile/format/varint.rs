//! TsFile's primitive encodings (`spec/tsfile.md` §3): `UVarInt` (LEB128 of a 32-bit value),
//! `VarInt` (zigzag, then `UVarInt`), `VarStr`/`VarBinary` (VarInt length, −1 = null) and
//! `String32`/`Binary32` (big-endian `int32` length). Readers are methods on
//! [`Cursor`]; writers are `put_*` functions that append to a `Vec<u8>`.

use crate::cursor::Cursor;
use crate::{Error, Result};

/// Appends `v` as a `UVarInt` (1–5 bytes).
///
/// ```
/// use colfile::tsfile::format::varint::{put_uvarint, put_varint};
/// let mut out = Vec::new();
/// put_uvarint(&mut out, 300);
/// put_varint(&mut out, -1);
/// assert_eq!(out, [0xac, 0x02, 0x01]);
/// ```
#[inline]
pub fn put_uvarint(out: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Appends `v` as a zigzag `VarInt`.
#[inline]
pub fn put_varint(out: &mut Vec<u8>, v: i32) {
    put_uvarint(out, ((v << 1) ^ (v >> 31)) as u32);
}

/// How many bytes [`put_uvarint`] writes for `v`.
pub fn uvarint_len(v: u32) -> usize {
    match v {
        0..=0x7f => 1,
        0x80..=0x3fff => 2,
        0x4000..=0x1f_ffff => 3,
        0x20_0000..=0xfff_ffff => 4,
        _ => 5,
    }
}

/// Appends a `VarStr`/`VarBinary`: VarInt length then the bytes; `None` is length −1.
///
/// Errors: a value of 2 GiB or more does not fit the length field.
pub fn put_var_bytes(out: &mut Vec<u8>, v: Option<&[u8]>) -> Result<()> {
    match v {
        None => put_varint(out, -1),
        Some(b) => {
            put_varint(out, len_i32(b.len())?);
            out.extend_from_slice(b);
        }
    }
    Ok(())
}

/// Appends a `String32`/`Binary32`: big-endian `int32` length then the bytes.
pub fn put_bytes32(out: &mut Vec<u8>, b: &[u8]) -> Result<()> {
    out.extend_from_slice(&len_i32(b.len())?.to_be_bytes());
    out.extend_from_slice(b);
    Ok(())
}

fn len_i32(n: usize) -> Result<i32> {
    i32::try_from(n).map_err(|_| Error::invalid(format!("a {n}-byte value is too long for TsFile")))
}

impl<'a> Cursor<'a> {
    /// A TsFile `UVarInt`: at most 5 bytes, and the value must fit in 32 bits.
    #[inline]
    pub fn read_uvarint(&mut self) -> Result<u32> {
        let rest = self.rest();
        if let Some(&b) = rest.first() {
            if b < 0x80 {
                self.skip_unchecked(1);
                return Ok(b as u32);
            }
        }
        let mut v: u32 = 0;
        for i in 0..5 {
            let Some(&b) = rest.get(i) else {
                return Err(Error::truncated("UVarInt", i as u64 + 1, rest.len() as u64)
                    .at_offset(self.offset()));
            };
            if i == 4 && b > 0x0f {
                return Err(Error::corrupt("tsfile", "UVarInt does not fit in 32 bits")
                    .at_offset(self.offset()));
            }
            v |= ((b & 0x7f) as u32) << (7 * i);
            if b < 0x80 {
                self.skip_unchecked(i + 1);
                return Ok(v);
            }
        }
        Err(Error::corrupt("tsfile", "UVarInt is longer than 5 bytes").at_offset(self.offset()))
    }

    /// A TsFile zigzag `VarInt`.
    #[inline]
    pub fn read_varint(&mut self) -> Result<i32> {
        let u = self.read_uvarint()?;
        Ok(((u >> 1) as i32) ^ -((u & 1) as i32))
    }

    /// A `UVarInt` count or length, checked against `max` (the caller's limit).
    pub fn read_ucount(&mut self, what: &'static str, max: usize) -> Result<usize> {
        let at = self.offset();
        let n = self.read_uvarint()? as usize;
        if n > max {
            return Err(Error::limit(what, n as u64, max as u64).at_offset(at));
        }
        Ok(n)
    }

    /// A `VarStr`/`VarBinary`: `None` for length −1. The length is checked against what
    /// remains before anything is taken.
    pub fn read_var_bytes(&mut self, what: &'static str) -> Result<Option<&'a [u8]>> {
        let at = self.offset();
        match self.read_varint()? {
            -1 => Ok(None),
            n if n < 0 => {
                Err(Error::corrupt("tsfile", format!("negative {what} length {n}")).at_offset(at))
            }
            n => Ok(Some(self.take(what, n as usize)?)),
        }
    }

    /// A `VarStr` that must be present (not null) and UTF-8.
    pub fn read_var_str(&mut self, what: &'static str) -> Result<&'a str> {
        let at = self.offset();
        match self.read_var_bytes(what)? {
            Some(b) => utf8(b, what, at),
            None => Err(Error::corrupt("tsfile", format!("{what} is null")).at_offset(at)),
        }
    }

    /// A `VarStr` that may be null; present values must be UTF-8.
    pub fn read_opt_var_str(&mut self, what: &'static str) -> Result<Option<&'a str>> {
        let at = self.offset();
        self.read_var_bytes(what)?
            .map(|b| utf8(b, what, at))
            .transpose()
    }

    /// A `String32`/`Binary32`: `int32` length (negative = null) then the bytes.
    pub fn read_bytes32(&mut self, what: &'static str) -> Result<Option<&'a [u8]>> {
        let n = self.read_i32_be()?;
        if n < 0 {
            return Ok(None);
        }
        Ok(Some(self.take(what, n as usize)?))
    }

    /// A `String32` that must be present and UTF-8.
    pub fn read_string32(&mut self, what: &'static str) -> Result<&'a str> {
        let at = self.offset();
        match self.read_bytes32(what)? {
            Some(b) => utf8(b, what, at),
            None => Err(Error::corrupt("tsfile", format!("{what} is null")).at_offset(at)),
        }
    }

    /// A big-endian `int16`.
    pub fn read_i16_be(&mut self) -> Result<i16> {
        Ok(i16::from_be_bytes(self.array("int16")?))
    }

    /// A big-endian IEEE binary32.
    pub fn read_f32_be(&mut self) -> Result<f32> {
        Ok(f32::from_be_bytes(self.array("float")?))
    }

    /// A big-endian IEEE binary64.
    pub fn read_f64_be(&mut self) -> Result<f64> {
        Ok(f64::from_be_bytes(self.array("double")?))
    }

    /// A TsFile `bool`: any non-zero byte is true.
    pub fn read_bool(&mut self) -> Result<bool> {
        Ok(self.read_u8()? != 0)
    }
}

fn utf8<'a>(b: &'a [u8], what: &'static str, at: u64) -> Result<&'a str> {
    std::str::from_utf8(b)
        .map_err(|e| Error::corrupt("tsfile", format!("{what} is not UTF-8: {e}")).at_offset(at))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spec_examples() {
        for (v, bytes) in [
            (0, &[0x00][..]),
            (-1, &[0x01]),
            (1, &[0x02]),
            (3, &[0x06]),
            (37, &[0x4a]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ] {
            let mut out = Vec::new();
            put_varint(&mut out, v);
            assert_eq!(out, bytes, "{v}");
            assert_eq!(Cursor::new(bytes, 0).read_varint().unwrap(), v);
        }
    }

    #[test]
    fn overlong_and_truncated_varints_are_errors() {
        assert!(Cursor::new(&[0x80, 0x80, 0x80, 0x80, 0x10], 0)
            .read_uvarint()
            .is_err());
        assert!(Cursor::new(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x01], 0)
            .read_uvarint()
            .is_err());
        let e = Cursor::new(&[0x80, 0x80], 7).read_uvarint().unwrap_err();
        assert_eq!(e.location().offset, Some(7));
        assert_eq!(
            Cursor::new(&[0xff, 0xff, 0xff, 0xff, 0x0f], 0)
                .read_uvarint()
                .unwrap(),
            u32::MAX
        );
    }

    #[test]
    fn var_bytes_null_and_length_check() {
        assert_eq!(Cursor::new(&[0x01], 0).read_var_bytes("s").unwrap(), None);
        assert_eq!(
            Cursor::new(&[0x04, b'h', b'i'], 0)
                .read_var_bytes("s")
                .unwrap(),
            Some(&b"hi"[..])
        );
        assert!(Cursor::new(&[0x08, b'h', b'i'], 0)
            .read_var_bytes("s")
            .is_err());
        assert!(Cursor::new(&[0x03], 0).read_var_bytes("s").is_err());
    }
}
