//! [`Cursor`]: a bounds-checked reader over a byte slice that knows its absolute file offset,
//! so every error it returns names the byte where the problem is.

use crate::{Error, Result};

/// Reads primitives from a slice; every read is checked against what remains.
///
/// ```
/// use colfile::cursor::Cursor;
/// let mut c = Cursor::new(&[0, 0, 0, 7, 0x8f, 0x80], 100);
/// assert_eq!(c.read_i32_be().unwrap(), 7);
/// assert_eq!(c.read_vlong().unwrap(), 128);
/// assert!(c.read_u8().is_err()); // past the end: a Truncated error at byte 106
/// ```
#[derive(Debug, Clone)]
pub struct Cursor<'a> {
    buf: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Cursor<'a> {
    /// A cursor over `buf`, whose first byte is at absolute offset `base`.
    pub fn new(buf: &'a [u8], base: u64) -> Self {
        Cursor { buf, pos: 0, base }
    }
    /// Absolute offset of the next byte.
    pub fn offset(&self) -> u64 {
        self.base + self.pos as u64
    }
    /// Position within the slice.
    pub fn position(&self) -> usize {
        self.pos
    }
    /// Bytes left.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }
    /// True when nothing is left.
    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }
    /// The unread bytes.
    pub fn rest(&self) -> &'a [u8] {
        // `pos` never passes the end.
        self.buf.get(self.pos..).unwrap_or_default()
    }
    /// Fails with `Truncated` unless `n` bytes remain.
    pub fn need(&self, what: &'static str, n: usize) -> Result<()> {
        if self.remaining() < n {
            Err(self.short(what, n))
        } else {
            Ok(())
        }
    }
    /// Takes the next `n` bytes.
    #[inline]
    pub fn take(&mut self, what: &'static str, n: usize) -> Result<&'a [u8]> {
        match self.rest().get(..n) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(self.short(what, n)),
        }
    }
    /// The error for `n` bytes of `what` when fewer remain (out of line: the hot readers
    /// stay small enough to inline).
    #[cold]
    #[inline(never)]
    fn short(&self, what: &'static str, n: usize) -> Error {
        Error::truncated(what, n as u64, self.remaining() as u64).at_offset(self.offset())
    }
    /// Moves past `n` bytes that the caller has already seen in [`rest`](Self::rest).
    #[inline]
    pub(crate) fn skip_unchecked(&mut self, n: usize) {
        self.pos = (self.pos + n).min(self.buf.len());
    }
    /// Takes `N` bytes as an array.
    pub fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let s = self.take(what, N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }
    /// One byte.
    pub fn read_u8(&mut self) -> Result<u8> {
        Ok(self.array::<1>("byte")?[0])
    }
    /// Big-endian int32 (Java `DataInput.readInt`).
    pub fn read_i32_be(&mut self) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array("int32")?))
    }
    /// Big-endian int64.
    pub fn read_i64_be(&mut self) -> Result<i64> {
        Ok(i64::from_be_bytes(self.array("int64")?))
    }
}

/// Bytes as error messages show a magic number: hex, then the printable form in quotes
/// (ASCII letters, digits and punctuation as they are, other bytes as `\xNN`).
///
/// ```
/// assert_eq!(colfile::cursor::show_magic(b"RCF\x01"), r#"0x52434601 ("RCF\x01")"#);
/// ```
pub fn show_magic(bytes: &[u8]) -> String {
    let mut hex = String::from("0x");
    let mut text = String::new();
    for &b in bytes {
        hex.push_str(&format!("{b:02x}"));
        if b.is_ascii_graphic() && b != b'"' && b != b'\\' || b == b' ' {
            text.push(b as char);
        } else {
            text.push_str(&format!("\\x{b:02x}"));
        }
    }
    format!("{hex} (\"{text}\")")
}
