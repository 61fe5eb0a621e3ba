//! TS_2DIFF for integers (`spec/tsfile.md` §7.2): blocks of up to 129 values, each a
//! first value plus up to 128 deltas stored as `delta - min_delta`, bit-packed MSB-first.
//!
//! ```text
//! Block := int32 n  int32 w  intW min_delta  intW first  packed[ceil(n*w/8)]
//! ```
//!
//! The encoder is Java's `DeltaBinaryEncoder` (block size 128, `min_delta = MAX` for a
//! single-value block). It writes zero padding bits; Java can leave stale bits from an
//! earlier, longer block in the last byte's padding, which every reader ignores, so those
//! padding bits are the one place our bytes may differ. The decoder accepts any block size
//! and C++'s `min_delta = 0` single-value blocks, and loops over blocks while bytes remain.

use super::bits::{unpack_map, BitWriter};
use super::limit_exceeded;
use super::word::Word;
use crate::cursor::Cursor;
use crate::{Error, Result};

/// Deltas per block (`TSFileConfig.deltaBlockSize`).
pub(crate) const BLOCK_SIZE: usize = 128;

/// Appends the TS_2DIFF stream of `values`.
pub(crate) fn encode<T: Word>(values: &[T], out: &mut Vec<u8>) {
    for block in values.chunks(BLOCK_SIZE + 1) {
        encode_block(block, out);
    }
}

fn encode_block<T: Word>(block: &[T], out: &mut Vec<u8>) {
    let Some(&first) = block.first() else { return };
    // Deltas once into a stack buffer; the widest `delta - min` has the bit length of the
    // OR of them all.
    let mut buf = [T::default(); BLOCK_SIZE];
    let mut min = T::MAX;
    for (d, (&prev, &cur)) in buf.iter_mut().zip(block.iter().zip(block.iter().skip(1))) {
        *d = cur.wrapping_sub(prev);
        min = min.min(*d);
    }
    let n = block.len() - 1;
    let deltas = buf.get_mut(..n).unwrap_or_default();
    let mut or = 0u64;
    for d in deltas.iter_mut() {
        *d = d.wrapping_sub(min);
        or |= d.to_bits();
    }
    let width = 64 - or.leading_zeros();
    out.extend_from_slice(&(n as i32).to_be_bytes());
    out.extend_from_slice(&(width as i32).to_be_bytes());
    min.put_be(out);
    first.put_be(out);
    let mut w = BitWriter::new(out);
    for d in deltas.iter() {
        w.put(d.to_bits(), width);
    }
    w.finish();
}

/// Decodes a whole TS_2DIFF stream of `input` (whose first byte is at offset `base`),
/// appending to `out`; more than `max` values is an error.
pub(crate) fn decode<T: Word>(input: &[u8], base: u64, max: usize, out: &mut Vec<T>) -> Result<()> {
    let mut c = Cursor::new(input, base);
    let mut left = max;
    // Room for the page at once instead of growing block by block: as many values as asked
    // for, up to one a byte of input (as PLAIN reserves; denser blocks grow the rest).
    out.reserve(max.min(input.len()));
    while !c.is_empty() {
        let at = c.offset();
        let n = c.read_i32_be()?;
        let width = c.read_i32_be()?;
        if n < 0 || !(0..=T::BITS as i32).contains(&width) {
            return Err(Error::corrupt(
                "tsfile",
                format!("TS_2DIFF block of {n} deltas of width {width}"),
            )
            .at_offset(at));
        }
        let (n, width) = (n as usize, width as u32);
        let min = T::read_be(&mut c)?;
        let first = T::read_be(&mut c)?;
        // The deltas, and the rest of the stream after them (read-ahead for `unpack_map`).
        let packed = c.rest();
        c.take(
            "TS_2DIFF deltas",
            (n as u64 * width as u64).div_ceil(8) as usize,
        )?;
        if n >= left {
            return Err(limit_exceeded("TS_2DIFF", max).at_offset(at));
        }
        left -= n + 1;
        let start = out.len();
        out.resize(start + n + 1, first);
        let mut v = first;
        // Width 0 (every delta is `min`, as for regular timestamps) unpacks zeros.
        let step = |d: u64| {
            v = v.wrapping_add(min.wrapping_add(T::from_bits(d)));
            v
        };
        unpack_map(
            packed,
            width,
            out.get_mut(start + 1..).unwrap_or_default(),
            step,
        );
    }
    Ok(())
}
