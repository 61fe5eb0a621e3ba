//! DICTIONARY for byte strings (`spec/tsfile.md` §7.5): the page's distinct values in order
//! of first appearance, then an INT32 [RLE](super::rle) stream of 0-based indexes.
//!
//! ```text
//! DictStream := VarInt entry_count  (VarInt len, bytes[len]) * entry_count  RleStream
//! ```

use super::rle;
use crate::cursor::Cursor;
use crate::tsfile::format::values::BinaryValues;
use crate::tsfile::format::varint::{put_var_bytes, put_varint};
use crate::{Error, Result};
use std::collections::HashMap;

/// Appends the DICTIONARY stream of `values` (Java's `DictionaryEncoder` bytes).
pub(crate) fn encode(values: &BinaryValues, rle_runs: bool, out: &mut Vec<u8>) -> Result<()> {
    let mut ids: HashMap<&[u8], i32> = HashMap::new();
    let mut entries: Vec<&[u8]> = Vec::new();
    let mut indexes = Vec::with_capacity(values.len());
    for v in values.iter() {
        let next = entries.len() as i32;
        let id = *ids.entry(v).or_insert_with(|| {
            entries.push(v);
            next
        });
        indexes.push(id);
    }
    put_varint(out, entries.len() as i32);
    for e in entries {
        put_var_bytes(out, Some(e))?;
    }
    rle::encode(&indexes, rle_runs, out);
    Ok(())
}

/// Decodes a DICTIONARY stream, appending its values to `out`; more than `max` is an error.
pub(crate) fn decode(input: &[u8], max: usize, out: &mut BinaryValues) -> Result<()> {
    let mut c = Cursor::new(input, 0);
    let at = c.offset();
    let n = c.read_varint()?;
    // Each entry takes at least its one-byte length, which bounds the allocation.
    if n < 0 || n as usize > c.remaining() {
        return Err(Error::corrupt(
            "tsfile",
            format!("DICTIONARY of {n} entries in {} bytes", c.remaining()),
        )
        .at_offset(at));
    }
    let mut entries = Vec::with_capacity(n as usize);
    for _ in 0..n {
        let at = c.offset();
        match c.read_var_bytes("DICTIONARY entry")? {
            Some(e) => entries.push(e),
            None => return Err(Error::corrupt("tsfile", "DICTIONARY entry is null").at_offset(at)),
        }
    }
    let index_at = c.offset();
    let mut indexes: Vec<i32> = Vec::new();
    rle::decode(c.rest(), index_at, max, &mut indexes)?;
    for i in indexes {
        match usize::try_from(i).ok().and_then(|i| entries.get(i)) {
            Some(e) => out.push(e),
            None => {
                return Err(Error::corrupt(
                    "tsfile",
                    format!("DICTIONARY index {i} of {} entries", entries.len()),
                )
                .at_offset(index_at))
            }
        }
    }
    Ok(())
}
