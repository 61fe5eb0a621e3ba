//! PLAIN (`spec/tsfile.md` §7.1): values one after another with no header or count.
//! BOOLEAN is one byte, INT32/DATE a zigzag `VarInt`, INT64/TIMESTAMP/VECTOR an `int64` BE,
//! FLOAT/DOUBLE IEEE BE (NaN written as Java's canonical NaN, `floatToIntBits`), and byte
//! strings a `VarInt` length then the bytes.

use super::limit_exceeded;
use crate::cursor::Cursor;
use crate::tsfile::format::values::{extend_short, Values};
use crate::tsfile::format::varint::{put_var_bytes, put_varint};
use crate::{Error, Result};

/// Longest value [`encode`] copies as one fixed-size window (its length is one VarInt byte).
const WINDOW: usize = 16;

/// Appends the PLAIN stream of `values`.
pub(crate) fn encode(values: &Values, out: &mut Vec<u8>) -> Result<()> {
    match values {
        Values::Boolean(v) => out.extend(v.iter().map(|&b| b as u8)),
        Values::Int32(v) => v.iter().for_each(|&x| put_varint(out, x)),
        Values::Int64(v) => v
            .iter()
            .for_each(|x| out.extend_from_slice(&x.to_be_bytes())),
        Values::Float(v) => v
            .iter()
            .for_each(|&x| out.extend_from_slice(&java_float_bits(x).to_be_bytes())),
        Values::Double(v) => v
            .iter()
            .for_each(|&x| out.extend_from_slice(&java_double_bits(x).to_be_bytes())),
        Values::Binary(v) => {
            // Lengths under 64 take one VarInt byte.
            out.reserve(v.data_len() + v.len() + WINDOW);
            let data = v.data();
            for w in v.offsets().windows(2) {
                let [a, b] = *w else { continue };
                let len = b.wrapping_sub(a);
                // A short value: its length byte, then a fixed 16-byte copy cut back to the
                // value (no copy of a length that changes from value to value).
                if len <= WINDOW {
                    if let Some(window) = data.get(a..).and_then(<[u8]>::first_chunk) {
                        put_varint(out, len as i32);
                        extend_short(out, window, len);
                        continue;
                    }
                }
                put_var_bytes(out, Some(data.get(a..b).unwrap_or_default()))?;
            }
        }
    }
    Ok(())
}

/// Java `Float.floatToIntBits`: the raw bits, with every NaN as `0x7fc00000`.
pub(crate) fn java_float_bits(x: f32) -> u32 {
    if x.is_nan() {
        0x7fc0_0000
    } else {
        x.to_bits()
    }
}

/// Java `Double.doubleToLongBits`: the raw bits, with every NaN as `0x7ff8000000000000`.
pub(crate) fn java_double_bits(x: f64) -> u64 {
    if x.is_nan() {
        0x7ff8_0000_0000_0000
    } else {
        x.to_bits()
    }
}

/// Decodes a whole PLAIN stream, appending to `out`; at most `max` values.
pub(crate) fn decode(input: &[u8], max: usize, out: &mut Values) -> Result<()> {
    match out {
        Values::Boolean(v) => {
            check_count(input.len(), max)?;
            v.extend(input.iter().map(|&b| b != 0));
        }
        Values::Int32(v) => {
            let mut c = Cursor::new(input, 0);
            v.reserve(input.len().min(max));
            let mut n = 0usize;
            while !c.is_empty() {
                if n == max {
                    return Err(limit_exceeded("PLAIN", max).at_offset(c.offset()));
                }
                v.push(c.read_varint()?);
                n += 1;
            }
        }
        Values::Int64(v) => fixed(input, max, v, i64::from_be_bytes)?,
        Values::Float(v) => fixed(input, max, v, |b| f32::from_bits(u32::from_be_bytes(b)))?,
        Values::Double(v) => fixed(input, max, v, |b| f64::from_bits(u64::from_be_bytes(b)))?,
        Values::Binary(v) => {
            // The bytes of the values are fewer than the stream's: reserved once.
            v.reserve(input.len().min(max), input.len());
            let mut rest = input;
            let mut n = 0usize;
            while let Some(&first) = rest.first() {
                let at = (input.len() - rest.len()) as u64;
                if n == max {
                    return Err(limit_exceeded("PLAIN", max).at_offset(at));
                }
                n += 1;
                // A length under 64 is one even VarInt byte: taken without a cursor.
                if first & 0x81 == 0 {
                    let end = 1 + usize::from(first >> 1);
                    if let (Some(b), Some(after)) = (rest.get(1..end), rest.get(end..)) {
                        // Up to 16 bytes with 16 to spare are copied as one fixed block.
                        match rest.get(1..17).and_then(|w| <&[u8; 16]>::try_from(w).ok()) {
                            Some(window) if end <= 17 => v.push_from_window(window, end - 1),
                            _ => v.push(b),
                        }
                        rest = after;
                        continue;
                    }
                }
                let mut c = Cursor::new(rest, at);
                match c.read_var_bytes("PLAIN value")? {
                    Some(b) => v.push(b),
                    None => {
                        return Err(
                            Error::corrupt("tsfile", "PLAIN value has length -1").at_offset(at)
                        )
                    }
                }
                rest = c.rest();
            }
        }
    }
    Ok(())
}

fn check_count(n: usize, max: usize) -> Result<()> {
    if n > max {
        Err(limit_exceeded("PLAIN", max).at_offset(0))
    } else {
        Ok(())
    }
}

fn fixed<T, const N: usize>(
    input: &[u8],
    max: usize,
    out: &mut Vec<T>,
    conv: impl Fn([u8; N]) -> T,
) -> Result<()> {
    let chunks = input.chunks_exact(N);
    let tail = chunks.remainder();
    if !tail.is_empty() {
        let at = (input.len() - tail.len()) as u64;
        return Err(Error::truncated("PLAIN value", N as u64, tail.len() as u64).at_offset(at));
    }
    check_count(chunks.len(), max)?;
    out.reserve(chunks.len());
    out.extend(chunks.filter_map(|b| b.first_chunk::<N>().map(|&b| conv(b))));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::format::values::BinaryValues;
    use proptest::prelude::*;

    /// PLAIN byte strings read with the cursor alone, value by value (the decoder before its
    /// one-byte-length shortcut): the values, or the error's offset.
    fn cursor_only(input: &[u8], max: usize) -> std::result::Result<BinaryValues, Option<u64>> {
        let mut c = Cursor::new(input, 0);
        let mut out = BinaryValues::default();
        while !c.is_empty() {
            let at = c.offset();
            if out.len() == max {
                return Err(Some(at));
            }
            match c.read_var_bytes("PLAIN value") {
                Ok(Some(b)) => out.push(b),
                Ok(None) => return Err(Some(at)),
                Err(e) => return Err(e.location().offset),
            }
        }
        Ok(out)
    }

    proptest! {
        /// On any bytes (short and long lengths, -1, negative, truncated, too many values)
        /// the decoder gives what the cursor-only reading gives, error offsets included.
        #[test]
        fn binary_shortcut_agrees_with_cursor(
            parts in proptest::collection::vec(
                prop_oneof![
                    proptest::collection::vec(any::<u8>(), 0..24)
                        .prop_map(|b| { let mut v = vec![(b.len() as u8) << 1]; v.extend(b); v }),
                    proptest::collection::vec(any::<u8>(), 60..140).prop_map(|b| {
                        let mut v = Vec::new();
                        crate::tsfile::format::varint::put_varint(&mut v, b.len() as i32);
                        v.extend(b);
                        v
                    }),
                    proptest::collection::vec(any::<u8>(), 0..4),
                ],
                0..12,
            ),
            max in 0usize..14,
        ) {
            let input: Vec<u8> = parts.concat();
            let mut out = Values::Binary(BinaryValues::default());
            let got = match decode(&input, max, &mut out) {
                Ok(()) => match out { Values::Binary(b) => Ok(b), _ => unreachable!() },
                Err(e) => Err(e.location().offset),
            };
            prop_assert_eq!(got, cursor_only(&input, max));
        }
    }
}
