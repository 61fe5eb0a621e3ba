//! [`Word`]: the two integer widths (`i32` for INT32/DATE/FLOAT, `i64` for INT64/TIMESTAMP/
//! DOUBLE) that TS_2DIFF, RLE and the FLOAT/DOUBLE wrapper are generic over. It owns the
//! width-specific details: wrapping arithmetic, big-endian headers, and RLE run values
//! (INT32 little-endian, INT64 big-endian — `spec/tsfile.md` §7.3).

use crate::cursor::Cursor;
use crate::Result;

/// An integer width that the integer encodings are written for.
pub(crate) trait Word: Copy + Eq + Ord + Default + std::fmt::Debug + 'static {
    /// 32 or 64.
    const BITS: u32;
    /// The largest value (Java's `MAX_VALUE`, TS_2DIFF's single-value `min_delta`).
    const MAX: Self;
    /// The bit pattern, zero-extended.
    fn to_bits(self) -> u64;
    /// The low [`BITS`](Self::BITS) bits of `bits`.
    fn from_bits(bits: u64) -> Self;
    /// Wrapping addition.
    fn wrapping_add(self, other: Self) -> Self;
    /// Wrapping subtraction.
    fn wrapping_sub(self, other: Self) -> Self;
    /// Wrapping multiplication.
    fn wrapping_mul(self, other: Self) -> Self;
    /// Appends the value as big-endian bytes.
    fn put_be(self, out: &mut Vec<u8>);
    /// Reads a big-endian value.
    fn read_be(c: &mut Cursor<'_>) -> Result<Self>;
    /// Appends the low `n` bytes the way RLE stores a run value.
    fn put_rle_value(self, n: usize, out: &mut Vec<u8>);
    /// The inverse of [`put_rle_value`](Self::put_rle_value) for `bytes.len()` bytes.
    fn from_rle_value(bytes: &[u8]) -> Self;
    /// Number of significant bits: `BITS - leading_zeros` (0 for 0).
    #[inline]
    fn bit_len(self) -> u32 {
        64 - self.to_bits().leading_zeros()
    }
}

macro_rules! word {
    ($t:ty, $u:ty, $bits:literal) => {
        impl Word for $t {
            const BITS: u32 = $bits;
            const MAX: Self = <$t>::MAX;
            #[inline]
            fn to_bits(self) -> u64 {
                self as $u as u64
            }
            #[inline]
            fn from_bits(bits: u64) -> Self {
                bits as $u as $t
            }
            #[inline]
            fn wrapping_add(self, other: Self) -> Self {
                <$t>::wrapping_add(self, other)
            }
            #[inline]
            fn wrapping_sub(self, other: Self) -> Self {
                <$t>::wrapping_sub(self, other)
            }
            #[inline]
            fn wrapping_mul(self, other: Self) -> Self {
                <$t>::wrapping_mul(self, other)
            }
            fn put_be(self, out: &mut Vec<u8>) {
                out.extend_from_slice(&self.to_be_bytes());
            }
            fn read_be(c: &mut Cursor<'_>) -> Result<Self> {
                Ok(<$t>::from_be_bytes(c.array(stringify!($t))?))
            }
            fn put_rle_value(self, n: usize, out: &mut Vec<u8>) {
                rle_value_bytes(self.to_bits(), n, $bits == 32, out);
            }
            fn from_rle_value(bytes: &[u8]) -> Self {
                Self::from_bits(rle_value_from(bytes, $bits == 32))
            }
        }
    };
}

word!(i32, u32, 32);
word!(i64, u64, 64);

/// INT32 runs are little-endian (`writeIntLittleEndianPaddedOnBitWidth`); INT64 runs are
/// big-endian despite the Java name (`writeLongLittleEndianPaddedOnBitWidth`).
fn rle_value_bytes(bits: u64, n: usize, little_endian: bool, out: &mut Vec<u8>) {
    for i in 0..n {
        let shift = if little_endian { i } else { n - 1 - i } * 8;
        out.push((bits >> shift) as u8);
    }
}

fn rle_value_from(bytes: &[u8], little_endian: bool) -> u64 {
    let fold = |acc: u64, (i, &b): (usize, &u8)| acc | (b as u64) << (8 * i);
    if little_endian {
        bytes.iter().enumerate().fold(0, fold)
    } else {
        bytes.iter().rev().enumerate().fold(0, fold)
    }
}
