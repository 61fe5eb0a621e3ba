//! REGULAR (`spec/tsfile.md` §7.11, code 7; Java only: `RegularDataEncoder` /
//! `RegularDataDecoder`) for INT32/DATE and INT64/TIMESTAMP: arithmetic sequences, possibly
//! with points missing.
//!
//! A stream is a run of blocks, each
//! `u8 missing` (`1` = yes; Java reads any other byte as no), then if missing
//! `int32 bitmap_len` + `bitmap_len` bytes of a `java.util.BitSet` (bit `k` is bit `k % 8`
//! of byte `k / 8`, trailing zero bytes dropped), then `int32 count`, `min_delta` and
//! `first` (each `int32` for INT32/DATE, `int64` for INT64/TIMESTAMP), all big-endian.
//!
//! Without points missing a block holds `count` values `first + i · min_delta`. With points
//! missing, `count` is the number of grid positions `first + k · min_delta`; the values are
//! `first` and then the positions `k ≥ 1` whose bit is set, up to and including the last
//! position `count − 1` (exactly what Java's reader returns; a block with `count == 2` holds
//! only `first`). All arithmetic wraps, as in Java.
//!
//! Java's writer cuts blocks of 128 values and is lossy for anything but an arithmetic
//! sequence with gaps (deltas that are multiples of the smallest one). [`encode`] cuts each
//! block at the longest prefix (up to 128 values) that reads back exactly, so for the data
//! REGULAR is meant for (the Java tests' sequences) the bytes are Java's, and other data is
//! stored exactly in shorter blocks (any two values form an exact block) instead of being
//! altered. A block whose bitmap would pass [`MAX_POSITIONS`] bits is also cut short.

use super::limit_exceeded;
use super::word::Word;
use crate::cursor::Cursor;
use crate::{Error, Result};

/// Values per block in Java's writer.
const BLOCK: usize = 128;
/// Most grid positions (bitmap bits) a block written here spans.
const MAX_POSITIONS: i128 = 1 << 16;

/// The value as a signed number.
fn signed<T: Word>(v: T) -> i128 {
    let shift = 64 - T::BITS;
    i128::from(((v.to_bits() << shift) as i64) >> shift)
}

/// The longest prefix of `v` (at most [`BLOCK`] values, at least `min(2, v.len())`) that
/// one block stores exactly, and whether that block has points missing.
fn exact_prefix<T: Word>(v: &[T]) -> (usize, bool) {
    let n = v.len().min(BLOCK);
    let (mut best, mut best_missing) = (n.min(2), false);
    let (Some(&a), Some(&b)) = (v.first(), v.get(1)) else {
        return (best, false);
    };
    let first_delta = b.wrapping_sub(a);
    let (mut all_equal, mut min, mut gcd, mut sum) = (true, first_delta, 0i128, 0i128);
    let pairs = v.iter().zip(v.iter().skip(1)).take(n - 1);
    for (i, (&p, &q)) in (1..).zip(pairs) {
        let d = q.wrapping_sub(p);
        all_equal &= d == first_delta;
        min = min.min(d);
        let sd = signed(d);
        gcd = gcd_of(gcd, sd.abs());
        sum += sd;
        let len = i + 1;
        if all_equal {
            (best, best_missing) = (len, false);
            continue;
        }
        let m = signed(min);
        // Java's bitmap path is exact when every delta is a positive multiple of the
        // smallest one and the span neither overflows nor makes the bitmap too long.
        if m > 0 && gcd == m && sum <= signed(T::MAX) && sum / m < MAX_POSITIONS {
            (best, best_missing) = (len, true);
        }
        if m <= 0 {
            break; // no longer prefix can be exact with points missing
        }
    }
    (best, best_missing)
}

fn gcd_of(mut a: i128, mut b: i128) -> i128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Appends the blocks holding `values` (nothing for none).
pub(crate) fn encode<T: Word>(values: &[T], out: &mut Vec<u8>) {
    let mut rest = values;
    while !rest.is_empty() {
        let (len, missing) = exact_prefix(rest);
        let (block, tail) = rest.split_at(len);
        rest = tail;
        // `exact_prefix` takes at least one value of a non-empty run.
        let Some(&first) = block.first() else { break };
        let count;
        let min_delta;
        if missing {
            let min = block
                .iter()
                .zip(block.iter().skip(1))
                .map(|(&a, &b)| b.wrapping_sub(a))
                .min()
                .unwrap_or(T::MAX);
            let m = signed(min);
            let last = block.last().copied().unwrap_or(first);
            let span = signed(last.wrapping_sub(first));
            let positions = (span / m + 1) as usize;
            let mut bitmap = vec![0u8; positions.div_ceil(8)];
            for &x in block {
                let k = (signed(x.wrapping_sub(first)) / m) as usize;
                // k ≤ span / m < positions, so the byte is there.
                if let Some(byte) = bitmap.get_mut(k / 8) {
                    *byte |= 1 << (k % 8);
                }
            }
            out.push(1);
            out.extend_from_slice(&(bitmap.len() as i32).to_be_bytes());
            out.extend_from_slice(&bitmap);
            (count, min_delta) = (positions, min);
        } else {
            out.push(0);
            let d = block.get(1).map_or(T::MAX, |&b| b.wrapping_sub(first));
            (count, min_delta) = (len, d);
        }
        out.extend_from_slice(&(count as i32).to_be_bytes());
        min_delta.put_be(out);
        first.put_be(out);
    }
}

/// Decodes every block of `input` (first byte at offset `base`) into `out`; more than `max`
/// values is an error.
pub(crate) fn decode<T: Word>(input: &[u8], base: u64, max: usize, out: &mut Vec<T>) -> Result<()> {
    let mut c = Cursor::new(input, base);
    let start = out.len();
    while !c.is_empty() {
        let at = c.offset();
        let missing = c.read_u8()? == 1;
        let bitmap = if missing {
            let n = c.read_i32_be()?;
            let n = usize::try_from(n).map_err(|_| {
                Error::corrupt("tsfile", format!("REGULAR bitmap of {n} bytes")).at_offset(at)
            })?;
            c.take("REGULAR bitmap", n)?
        } else {
            &[]
        };
        let count_at = c.offset();
        let count = c.read_i32_be()?;
        let min_delta = T::read_be(&mut c)?;
        let first = T::read_be(&mut c)?;
        let bad = |msg: String| Error::corrupt("tsfile", msg).at_offset(count_at);
        let room = max - (out.len() - start);
        let at_k = |k: usize| first.wrapping_add(min_delta.wrapping_mul(T::from_bits(k as u64)));
        if !missing {
            let n = usize::try_from(count)
                .ok()
                .filter(|&n| n > 0)
                .ok_or_else(|| bad(format!("REGULAR block of {count} values")))?;
            if n > room {
                return Err(limit_exceeded("REGULAR", max).at_offset(count_at));
            }
            out.extend((0..n).map(at_k));
            continue;
        }
        // Java's reader walks the set bits from position 1 and stops at `count - 1`, which
        // must therefore be set (it loops or overruns otherwise).
        let last = usize::try_from(count)
            .ok()
            .filter(|&n| n >= 2)
            .ok_or_else(|| bad(format!("REGULAR block of {count} positions")))?
            - 1;
        let bit = |k: usize| bitmap.get(k / 8).is_some_and(|b| b >> (k % 8) & 1 == 1);
        if last > 1 && !bit(last) {
            return Err(bad(format!(
                "REGULAR bitmap does not mark its last position {last}"
            )));
        }
        if room == 0 {
            return Err(limit_exceeded("REGULAR", max).at_offset(count_at));
        }
        out.push(first);
        if last == 1 {
            continue; // Java returns only `first` for two positions
        }
        for k in (1..=last).filter(|&k| bit(k)) {
            if out.len() - start == max {
                return Err(limit_exceeded("REGULAR", max).at_offset(count_at));
            }
            out.push(at_k(k));
        }
    }
    Ok(())
}
