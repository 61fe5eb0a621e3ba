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
    let mut set = 0usize;
    present.reserve(positions);
    for i in 0..positions {
        let bit = bitmap
            .get(i / 8)
            .is_some_and(|b| b & (0x80 >> (i % 8)) != 0);
        set += bit as usize;
        present.push(bit);
    }
    let at = c.offset();
    decode_counted(encoding, data_type, c.rest(), set, values, at).map_err(in_payload)
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
