//! Page payloads (after decompression, `spec/tsfile.md` §5.5): the non-aligned layout (a time
//! stream and a value stream), aligned time pages, and aligned value pages (a position count,
//! an MSB-first presence bitmap, then the non-null values).

use crate::cursor::Cursor;
use crate::tsfile::encoding;
use crate::tsfile::format::values::Values;
use crate::tsfile::format::{DataType, Encoding};
use crate::{Error, Result};

/// Decodes a time page (or any time stream), appending to `times`; at most `max`
/// timestamps.
pub fn decode_times(
    payload: &[u8],
    encoding: Encoding,
    max: usize,
    times: &mut Vec<i64>,
) -> Result<()> {
    time_stream(payload, encoding, max, times).map_err(in_payload)
}

/// Locates an error from a page decoder: its offset counts from the start of the
/// (decompressed) payload, which the section says.
fn in_payload(e: Error) -> Error {
    e.within(0).in_section("page payload")
}

/// [`decode_times`], with offsets counted from the start of `stream`.
fn time_stream(stream: &[u8], encoding: Encoding, max: usize, times: &mut Vec<i64>) -> Result<()> {
    if encoding == Encoding::Ts2Diff {
        return encoding::decode_ts2diff_i64(stream, max, times);
    }
    let mut v = Values::Int64(std::mem::take(times));
    let r = encoding::decode(encoding, DataType::Int64, stream, max, &mut v);
    if let Values::Int64(t) = v {
        *times = t;
    }
    r
}

/// Decodes a stream that must hold exactly `count` values (so GORILLA values equal to the
/// sentinel are data, as the C++ reader takes them). The stream starts at offset `at` of
/// the page payload; offsets in errors are re-based to the payload.
fn decode_counted(
    encoding: Encoding,
    data_type: DataType,
    stream: &[u8],
    count: usize,
    values: &mut Values,
    at: u64,
) -> Result<()> {
    encoding::decode_exact(encoding, data_type, stream, count, values).map_err(|e| e.within(at))
}

/// Decodes a non-aligned page: `UVarInt time_len`, the time stream, then the value stream
/// with the same number of points. Appends to `times` and `values`; returns the point count.
pub fn decode_non_aligned(
    payload: &[u8],
    time_encoding: Encoding,
    data_type: DataType,
    value_encoding: Encoding,
    max: usize,
    times: &mut Vec<i64>,
    values: &mut Values,
) -> Result<usize> {
    let mut c = Cursor::new(payload, 0);
    let time_len = c.read_uvarint().map_err(in_payload)? as usize;
    let times_at = c.offset();
    let stream = c.take("page time stream", time_len).map_err(in_payload)?;
    let t0 = times.len();
    time_stream(stream, time_encoding, max, times).map_err(|e| in_payload(e.within(times_at)))?;
    let n = times.len() - t0;
    let at = c.offset();
    decode_counted(value_encoding, data_type, c.rest(), n, values, at).map_err(in_payload)?;
    Ok(n)
}

/// Decodes an aligned value page whose time page holds `positions` timestamps. Appends one
/// presence flag per position to `present` and the non-null values to `values`. An empty
/// payload (the all-null page) gives `positions` absent flags.
pub fn decode_value_page(
    payload: &[u8],
    data_type: DataType,
    encoding: Encoding,
    positions: usize,
    present: &mut Vec<bool>,
    values: &mut Values,
) -> Result<()> {
    if payload.is_empty() {
        present.resize(present.len() + positions, false);
        return Ok(());
    }
    let mut c = Cursor::new(payload, 0);
    let count = c.read_i32_be().map_err(in_payload)?;
    if usize::try_from(count).ok() != Some(positions) {
        return Err(Error::corrupt(
            "tsfile",
            format!("value page has {count} positions, its time page {positions}"),
        )
        .at_offset(0)
        .in_section("page payload"));
    }
    let bitmap = c
        .take("value page bitmap", positions.div_ceil(8))
        .map_err(in_payload)?;
    let set = unpack_bitmap(bitmap, positions, present);
    let at = c.offset();
    decode_counted(encoding, data_type, c.rest(), set, values, at).map_err(in_payload)
}

/// Appends the first `positions` bits of an MSB-first `bitmap` to `present` and returns how
/// many are set. A byte at a time into the already sized tail (a push a bit, with its
/// capacity check, was a fifth of a one-thread scan of an aligned file).
fn unpack_bitmap(bitmap: &[u8], positions: usize, present: &mut Vec<bool>) -> usize {
    let start = present.len();
    present.resize(start + positions, false);
    let Some(out) = present.get_mut(start..) else {
        return 0;
    };
    for (slots, &b) in out.chunks_mut(8).zip(bitmap) {
        if b == 0xFF && slots.len() == 8 {
            slots.fill(true);
        } else if b != 0 {
            for (j, slot) in slots.iter_mut().enumerate() {
                *slot = (b << j) & 0x80 != 0;
            }
        }
    }
    out.iter().filter(|&&p| p).count()
}

/// Builds an aligned value page payload: position count, MSB-first bitmap of `present`, and
/// the already encoded stream of the non-null values.
pub fn encode_value_page(present: &[bool], value_stream: &[u8], out: &mut Vec<u8>) -> Result<()> {
    let n = i32::try_from(present.len())
        .map_err(|_| Error::invalid("too many positions in one page"))?;
    out.extend_from_slice(&n.to_be_bytes());
    for chunk in present.chunks(8) {
        let mut b = 0u8;
        for (i, &p) in chunk.iter().enumerate() {
            if p {
                b |= 0x80 >> i;
            }
        }
        out.push(b);
    }
    out.extend_from_slice(value_stream);
    Ok(())
}

#[cfg(test)]
#[allow(clippy::indexing_slicing)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// The bytewise unpacking agrees with reading bit i of byte i / 8, ignores the bits
        /// past `positions` in the last byte, and undoes `encode_value_page`'s packing.
        #[test]
        fn bitmap_unpacks_like_bit_by_bit(
            bytes in proptest::collection::vec(any::<u8>(), 0..40),
            cut in 0usize..8,
            prefix in proptest::collection::vec(any::<bool>(), 0..5),
        ) {
            let positions = (bytes.len() * 8).saturating_sub(cut);
            let expect: Vec<bool> = (0..positions).map(|i| bytes[i / 8] & (0x80 >> (i % 8)) != 0).collect();
            let mut present = prefix.clone();
            let set = unpack_bitmap(&bytes, positions, &mut present);
            prop_assert_eq!(&present[..prefix.len()], &prefix[..]);
            prop_assert_eq!(&present[prefix.len()..], &expect[..]);
            prop_assert_eq!(set, expect.iter().filter(|&&p| p).count());

            let mut page = Vec::new();
            encode_value_page(&expect, &[], &mut page).unwrap();
            let mut again = Vec::new();
            unpack_bitmap(&page[4..], positions, &mut again);
            prop_assert_eq!(again, expect);
        }
    }
}
