//! Binary-serde (LazyBinary) decoding loops of [`ColumnBatch`](super::ColumnBatch): the
//! types with a loop of their own, read straight from the cells without a cursor.

use super::{BatchValues, ColumnBatch};
use crate::rcfile::rowgroup::Cells;
use crate::rcfile::serde::binary::{self, BinarySerde, EMPTY_STRING_MARKER};
use crate::rcfile::HiveType;

/// The cells of `data` as (start, end) offset pairs.
#[inline]
fn cell_bounds(data: Cells<'_>) -> impl Iterator<Item = (usize, usize)> + '_ {
    let offsets = data.offsets();
    offsets
        .iter()
        .zip(offsets.get(1..).unwrap_or_default())
        .map(|(&s, &e)| (s as usize, e as usize))
}

/// Appends one validity flag per cell: binary-serde cells are NULL exactly when empty.
#[inline]
fn push_validity(data: Cells<'_>, valid: &mut Vec<bool>) {
    valid.extend(cell_bounds(data).map(|(s, e)| s != e));
}

/// Appends one value per cell of `data` to `vals` (the default for empty cells). `read` gets
/// the bytes from the start of a non-empty cell to the end of the column and the cell's
/// length; the first row it rejects is returned.
#[inline]
fn fill<T: Default>(
    data: Cells<'_>,
    vals: &mut Vec<T>,
    mut read: impl FnMut(&[u8], usize) -> Option<T>,
) -> std::result::Result<(), usize> {
    let bytes = data.bytes();
    let mut bad = None;
    vals.extend(cell_bounds(data).enumerate().map(|(row, (s, e))| {
        let len = e.wrapping_sub(s);
        if len == 0 {
            return T::default();
        }
        match bytes.get(s..).and_then(|rest| read(rest, len)) {
            Some(v) => v,
            None => {
                bad.get_or_insert(row);
                T::default()
            }
        }
    }));
    bad.map_or(Ok(()), Err)
}

/// Binary-serde decoding of the types with a dedicated loop: `None` for other types, else the
/// row of the first malformed cell, if any.
pub(super) fn decode_binary(
    bs: &BinarySerde,
    ty: &HiveType,
    data: Cells<'_>,
    out: &mut ColumnBatch,
) -> Option<std::result::Result<(), usize>> {
    use crate::rcfile::hadoop::vlong_within as vlong;
    let ColumnBatch { valid, values } = out;
    let r = match (values, ty) {
        // Strings and binaries are the cell bytes themselves, except that a one-byte `BF`
        // string cell is "": copy the column in runs between such cells.
        (BatchValues::Bytes { data: buf, offsets }, HiveType::String | HiveType::Binary) => {
            let (bytes, span) = (data.bytes(), data.span());
            buf.reserve(span.len());
            // Cell ends in the column → ends in `buf`.
            let (base, start) = (span.start, buf.len());
            let is_string = *ty == HiveType::String;
            let marker = |&(s, e): &(usize, usize)| {
                e.wrapping_sub(s) == 1 && bytes.get(s) == Some(&EMPTY_STRING_MARKER)
            };
            let ends = data.offsets().get(1..).unwrap_or_default();
            if !is_string || !cell_bounds(data).any(|b| marker(&b)) {
                // Nothing to drop (the usual case): the cells' bytes and ends as they are,
                // two copies instead of a loop that checks and writes every cell.
                buf.extend_from_slice(bytes.get(span).unwrap_or_default());
                if base == 0 && start == 0 {
                    offsets.extend_from_slice(ends);
                } else {
                    offsets.extend(ends.iter().map(|&e| (e as usize - base + start) as u32));
                }
                push_validity(data, valid);
                return Some(Ok(()));
            }
            let (mut copied, mut dropped) = (base, 0usize);
            offsets.extend(cell_bounds(data).map(|(s, e)| {
                if marker(&(s, e)) {
                    buf.extend_from_slice(bytes.get(copied..s).unwrap_or_default());
                    copied = e;
                    dropped += 1;
                }
                (e - base - dropped + start) as u32
            }));
            buf.extend_from_slice(bytes.get(copied..span.end).unwrap_or_default());
            Ok(())
        }
        (BatchValues::Int(v), HiveType::BigInt) => fill(data, v, |r, len| Some(vlong(r, len)?.0)),
        (BatchValues::Int(v), HiveType::Int) => fill(data, v, |r, len| {
            i32::try_from(vlong(r, len)?.0).ok().map(i64::from)
        }),
        (BatchValues::Int(v), HiveType::SmallInt) => fill(data, v, |r, len| {
            let b = r.get(..2).filter(|_| len >= 2)?;
            Some(i64::from(i16::from_be_bytes(b.try_into().ok()?)))
        }),
        (BatchValues::Int(v), HiveType::TinyInt) => {
            fill(data, v, |r, _| r.first().map(|&b| i64::from(b as i8)))
        }
        (BatchValues::Double(v), _) => fill(data, v, |r, len| {
            binary::fast_double(r).filter(|_| len >= 8)
        }),
        (BatchValues::Float(v), _) => {
            fill(data, v, |r, len| binary::fast_float(r).filter(|_| len >= 4))
        }
        (BatchValues::Boolean(v), _) => fill(data, v, |r, _| r.first().map(|&b| b != 0)),
        (BatchValues::Date(v), _) => fill(data, v, |r, len| bs.date_fast(r, len)),
        (BatchValues::Timestamp(v), _) => fill(data, v, |r, len| bs.timestamp_fast(r, len)),
        (BatchValues::Decimal { values, scale }, HiveType::Decimal { precision, .. }) => {
            // Also NULL: values with more digits than the column has.
            let (p, s) = (*precision, *scale);
            let bytes = data.bytes();
            let mut bad = None;
            valid.reserve(data.len());
            values.extend(cell_bounds(data).enumerate().map(|(row, (start, end))| {
                let len = end.wrapping_sub(start);
                let d = if len == 0 {
                    None
                } else {
                    match bytes
                        .get(start..)
                        .and_then(|r| bs.decimal_fast(r, len, p, s))
                    {
                        Some(d) => d,
                        None => {
                            bad.get_or_insert(row);
                            None
                        }
                    }
                };
                valid.push(d.is_some());
                d.unwrap_or(0)
            }));
            return Some(bad.map_or(Ok(()), Err));
        }
        (BatchValues::List { offsets, items }, HiveType::Array(et))
            if matches!(**et, HiveType::String | HiveType::Binary) =>
        {
            return Some(string_lists(data, offsets, items, valid));
        }
        (BatchValues::List { offsets, items }, HiveType::Array(et)) if list_fast(et) => {
            for (row, cell) in data.cells().enumerate() {
                if cell.is_empty() {
                    valid.push(false);
                } else if read_binary_list(et, cell, items).is_some() {
                    valid.push(true);
                } else {
                    return Some(Err(row));
                }
                offsets.push(items.len() as u32);
            }
            return Some(Ok(()));
        }
        _ => return None,
    };
    push_validity(data, valid);
    Some(r)
}

/// Top-level LazyBinary `array<string>` / `array<binary>` cells (VInt count, null bitmap,
/// then each non-NULL element as VInt length and bytes) into `offsets` and `items` (a
/// `Bytes` batch); the row of the first malformed cell, if any.
fn string_lists(
    data: Cells<'_>,
    offsets: &mut Vec<u32>,
    items: &mut ColumnBatch,
    valid: &mut Vec<bool>,
) -> std::result::Result<(), usize> {
    use crate::rcfile::hadoop::decode_vlong;
    /// Elements up to this long are copied as one fixed-size block.
    const BLOCK: usize = 16;
    let ColumnBatch {
        valid: item_valid,
        values,
    } = items;
    let BatchValues::Bytes {
        data: buf,
        offsets: item_offsets,
    } = values
    else {
        return Err(0);
    };
    let bytes = data.bytes();
    // The elements hold fewer bytes than the cells: write them into a pre-sized buffer
    // (with room for one block past the end) and cut it to size at the end.
    let mut o = buf.len();
    buf.resize(o + data.span().len() + BLOCK, 0);
    valid.reserve(data.len());
    offsets.reserve(data.len());
    for (row, (s, e)) in cell_bounds(data).enumerate() {
        if s != e {
            // `wide` runs to the end of the column, `cell` is this row's bytes.
            let wide = bytes.get(s..).unwrap_or_default();
            let Some(cell) = wide.get(..e.wrapping_sub(s)) else {
                return Err(row);
            };
            let mut one = || -> Option<()> {
                let (count, n) = decode_vlong(cell)?;
                let count = usize::try_from(count).ok()?;
                let bitmap = cell.get(n..n.checked_add(count.div_ceil(8))?)?;
                let mut p = n + bitmap.len();
                for i in 0..count {
                    let present = bitmap.get(i / 8).is_some_and(|b| b >> (i % 8) & 1 != 0);
                    if present {
                        let (len, k) = decode_vlong(wide.get(p..)?)?;
                        let len = usize::try_from(len).ok()?;
                        let start = p + k;
                        let end = start.checked_add(len).filter(|&x| x <= cell.len())?;
                        match wide.get(start..start + BLOCK) {
                            Some(block) if len <= BLOCK => {
                                buf.get_mut(o..o + BLOCK)?.copy_from_slice(block)
                            }
                            _ => buf
                                .get_mut(o..o + len)?
                                .copy_from_slice(cell.get(start..end)?),
                        }
                        o += len;
                        p = end;
                    }
                    item_offsets.push(o as u32);
                    item_valid.push(present);
                }
                Some(())
            };
            if one().is_none() {
                return Err(row);
            }
        }
        valid.push(s != e);
        offsets.push(item_valid.len() as u32);
    }
    buf.truncate(o);
    Ok(())
}

/// Element types whose nested LazyBinary form [`read_binary_list`] reads directly.
fn list_fast(et: &HiveType) -> bool {
    matches!(
        et,
        HiveType::String
            | HiveType::Binary
            | HiveType::TinyInt
            | HiveType::SmallInt
            | HiveType::Int
            | HiveType::BigInt
            | HiveType::Float
            | HiveType::Double
            | HiveType::Boolean
    )
}

/// Appends the elements of a top-level LazyBinary `array<et>` cell (VInt count, null bitmap,
/// then the non-NULL elements in nested form) to `items`. `None` if the cell is malformed;
/// `items` may then hold part of the row, and the caller reports the serde's error.
fn read_binary_list(et: &HiveType, cell: &[u8], items: &mut ColumnBatch) -> Option<()> {
    use crate::rcfile::hadoop::decode_vlong;
    let (count, n) = decode_vlong(cell)?;
    let count = usize::try_from(count).ok()?;
    let bitmap = cell.get(n..n.checked_add(count.div_ceil(8))?)?;
    let mut rest = cell.get(n + bitmap.len()..)?;
    let present = |i: usize| bitmap.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0);
    let ColumnBatch { valid, values } = items;
    // One loop per element layout, chosen once per cell: `$read` takes the bytes left and
    // returns (value, bytes used); NULL elements take no bytes.
    macro_rules! each {
        ($vals:expr, $read:expr) => {{
            for i in 0..count {
                if present(i) {
                    let (v, used) = $read(rest)?;
                    $vals.push(v);
                    valid.push(true);
                    rest = rest.get(used..)?;
                } else {
                    $vals.push(Default::default());
                    valid.push(false);
                }
            }
        }};
    }
    let vlong = |r: &[u8]| decode_vlong(r);
    match (values, et) {
        (BatchValues::Bytes { data, offsets }, _) => {
            for i in 0..count {
                if present(i) {
                    let (len, k) = decode_vlong(rest)?;
                    let len = usize::try_from(len).ok()?;
                    data.extend_from_slice(rest.get(k..k.checked_add(len)?)?);
                    rest = rest.get(k + len..)?;
                }
                offsets.push(data.len() as u32);
                valid.push(present(i));
            }
        }
        (BatchValues::Int(v), HiveType::TinyInt) => {
            each!(v, |r: &[u8]| Some((*r.first()? as i8 as i64, 1)))
        }
        (BatchValues::Int(v), HiveType::SmallInt) => each!(v, |r: &[u8]| Some((
            i16::from_be_bytes(r.get(..2)?.try_into().ok()?) as i64,
            2
        ))),
        (BatchValues::Int(v), HiveType::Int) => each!(v, |r: &[u8]| {
            let (x, k) = vlong(r)?;
            Some((i32::try_from(x).ok()? as i64, k))
        }),
        (BatchValues::Int(v), _) => each!(v, vlong),
        (BatchValues::Float(v), _) => each!(v, |r: &[u8]| Some((binary::fast_float(r)?, 4))),
        (BatchValues::Double(v), _) => each!(v, |r: &[u8]| Some((binary::fast_double(r)?, 8))),
        (BatchValues::Boolean(v), _) => each!(v, |r: &[u8]| Some((*r.first()? != 0, 1))),
        _ => return None,
    }
    Some(())
}
