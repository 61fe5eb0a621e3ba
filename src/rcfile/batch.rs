//! Columnar batches: one column of a row group decoded into typed vectors plus a validity
//! mask, with strings and binaries packed into one buffer. No per-value allocation for
//! primitive types; this is the shape Arrow arrays are built from.

use super::rowgroup::{ColumnData, RowGroup};
use super::serde::binary::{self, BinarySerde, EMPTY_STRING_MARKER};
use super::{HiveType, Serde, Timestamp, Value};
use crate::{Error, Result};

/// Typed storage of a [`ColumnBatch`]. Slots of NULL rows hold a default value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum BatchValues {
    /// `boolean`
    Boolean(Vec<bool>),
    /// `tinyint`, `smallint`, `int`, `bigint`
    Int(Vec<i64>),
    /// `float`
    Float(Vec<f32>),
    /// `double`
    Double(Vec<f64>),
    /// `string`, `varchar`, `char`, `binary`: cell `i` is `data[offsets[i]..offsets[i+1]]`.
    Bytes {
        /// All values back to back.
        data: Vec<u8>,
        /// `len + 1` end offsets, starting at 0.
        offsets: Vec<u32>,
    },
    /// `date`: days since 1970-01-01.
    Date(Vec<i32>),
    /// `timestamp`
    Timestamp(Vec<Timestamp>),
    /// `decimal(p,s)`: unscaled values at the column's scale.
    Decimal {
        /// Unscaled values.
        values: Vec<i128>,
        /// The column's scale.
        scale: u8,
    },
    /// `array<T>` of a primitive `T`: row `i` holds `items[offsets[i]..offsets[i+1]]`.
    List {
        /// `len + 1` end offsets into `items`, starting at 0.
        offsets: Vec<u32>,
        /// The elements of every row, back to back.
        items: Box<ColumnBatch>,
    },
    /// Maps, structs, unions and arrays of complex types, as [`Value`]s.
    Nested(Vec<Value>),
}

impl Default for BatchValues {
    fn default() -> Self {
        BatchValues::Nested(Vec::new())
    }
}

/// One column of one row group, decoded.
///
/// Decoding into a batch reuses its memory: keep batches from row group to row group and
/// from file to file (freeing and reallocating them per file cost 4x in page faults under
/// glibc when the files are small).
///
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::{batch::{BatchValues, ColumnBatch}, HiveType, RcFileReader, Serde};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let mut r = RcFileReader::builder(bytes.as_slice()).with_projection([0]).build()?;
/// let mut batch = ColumnBatch::default();
/// let group = r.next_row_group()?.expect("a row group");
/// group.decode_batch(0, &HiveType::Int, &Serde::text(), &mut batch)?;
/// assert_eq!(batch.len(), group.num_rows());
/// assert!(matches!(batch.values(), BatchValues::Int(_)));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ColumnBatch {
    valid: Vec<bool>,
    values: BatchValues,
}

impl ColumnBatch {
    /// Number of rows.
    pub fn len(&self) -> usize {
        self.valid.len()
    }
    /// True when there are no rows.
    pub fn is_empty(&self) -> bool {
        self.valid.is_empty()
    }
    /// `true` for rows that are not NULL.
    pub fn validity(&self) -> &[bool] {
        &self.valid
    }
    /// Number of NULL rows.
    pub fn null_count(&self) -> usize {
        self.valid.iter().filter(|v| !**v).count()
    }
    /// The typed values.
    pub fn values(&self) -> &BatchValues {
        &self.values
    }
    /// Validity and values, the values open to having their vectors moved out (the Arrow
    /// reader lends them to arrays; [`reset`](Self::reset) copes with any vector's state).
    #[cfg(feature = "arrow")]
    pub(crate) fn parts_mut(&mut self) -> (&[bool], &mut BatchValues) {
        (&self.valid, &mut self.values)
    }
    /// The memory the batch keeps allocated (validity and values); `None` when the values
    /// are held as [`Value`]s, whose own allocations are not counted.
    #[cfg(feature = "arrow")]
    pub(crate) fn heap_bytes(&self) -> Option<usize> {
        fn cap<T>(v: &Vec<T>) -> usize {
            v.capacity() * std::mem::size_of::<T>()
        }
        let values = match &self.values {
            BatchValues::Boolean(v) => cap(v),
            BatchValues::Int(v) => cap(v),
            BatchValues::Float(v) => cap(v),
            BatchValues::Double(v) => cap(v),
            BatchValues::Date(v) => cap(v),
            BatchValues::Timestamp(v) => cap(v),
            BatchValues::Decimal { values, .. } => cap(values),
            BatchValues::Bytes { data, offsets } => cap(data) + cap(offsets),
            BatchValues::List { offsets, items } => cap(offsets) + items.heap_bytes()?,
            BatchValues::Nested(_) => return None,
        };
        Some(cap(&self.valid) + values)
    }
    /// Row `i` as a [`Value`] (`None` past the end).
    pub fn value(&self, i: usize, ty: &HiveType) -> Option<Value> {
        if !*self.valid.get(i)? {
            return Some(Value::Null);
        }
        Some(match &self.values {
            BatchValues::Boolean(v) => Value::Boolean(*v.get(i)?),
            BatchValues::Int(v) => {
                let x = *v.get(i)?;
                match ty {
                    HiveType::TinyInt => Value::TinyInt(x as i8),
                    HiveType::SmallInt => Value::SmallInt(x as i16),
                    HiveType::Int => Value::Int(x as i32),
                    _ => Value::BigInt(x),
                }
            }
            BatchValues::Float(v) => Value::Float(*v.get(i)?),
            BatchValues::Double(v) => Value::Double(*v.get(i)?),
            BatchValues::Bytes { data, offsets } => {
                let b = data
                    .get(*offsets.get(i)? as usize..*offsets.get(i + 1)? as usize)?
                    .to_vec();
                if *ty == HiveType::Binary {
                    Value::Binary(b)
                } else {
                    Value::String(b)
                }
            }
            BatchValues::Date(v) => Value::Date(super::Date(*v.get(i)?)),
            BatchValues::Timestamp(v) => Value::Timestamp(*v.get(i)?),
            BatchValues::Decimal { values, scale } => Value::Decimal(super::Decimal {
                unscaled: *values.get(i)?,
                scale: *scale,
            }),
            BatchValues::List { offsets, items } => {
                let et = match ty {
                    HiveType::Array(et) => et.as_ref(),
                    _ => ty,
                };
                let (a, b) = (*offsets.get(i)? as usize, *offsets.get(i + 1)? as usize);
                Value::Array(
                    (a..b)
                        .map(|j| items.value(j, et))
                        .collect::<Option<Vec<_>>>()?,
                )
            }
            BatchValues::Nested(v) => v.get(i)?.clone(),
        })
    }

    /// Empties the batch for values of type `ty`, keeping allocations where the kind matches.
    fn reset(&mut self, ty: &HiveType) {
        self.valid.clear();
        macro_rules! reuse {
            ($variant:ident) => {
                match &mut self.values {
                    BatchValues::$variant(v) => v.clear(),
                    other => *other = BatchValues::$variant(Vec::new()),
                }
            };
        }
        match ty {
            HiveType::Boolean => reuse!(Boolean),
            HiveType::TinyInt | HiveType::SmallInt | HiveType::Int | HiveType::BigInt => {
                reuse!(Int)
            }
            HiveType::Float => reuse!(Float),
            HiveType::Double => reuse!(Double),
            HiveType::Date => reuse!(Date),
            HiveType::Timestamp => reuse!(Timestamp),
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) | HiveType::Binary => {
                match &mut self.values {
                    BatchValues::Bytes { data, offsets } => {
                        data.clear();
                        offsets.clear();
                        offsets.push(0);
                    }
                    other => {
                        *other = BatchValues::Bytes {
                            data: Vec::new(),
                            offsets: vec![0],
                        }
                    }
                }
            }
            HiveType::Decimal { scale, .. } => match &mut self.values {
                BatchValues::Decimal { values, scale: s } => {
                    values.clear();
                    *s = *scale;
                }
                other => {
                    *other = BatchValues::Decimal {
                        values: Vec::new(),
                        scale: *scale,
                    }
                }
            },
            HiveType::Array(et) if et.is_primitive() => match &mut self.values {
                BatchValues::List { offsets, items } => {
                    offsets.clear();
                    offsets.push(0);
                    items.reset(et);
                }
                other => {
                    let mut items = ColumnBatch::default();
                    items.reset(et);
                    *other = BatchValues::List {
                        offsets: vec![0],
                        items: Box::new(items),
                    };
                }
            },
            _ => reuse!(Nested),
        }
    }

    fn push_null(&mut self) {
        self.valid.push(false);
        match &mut self.values {
            BatchValues::Boolean(v) => v.push(false),
            BatchValues::Int(v) => v.push(0),
            BatchValues::Float(v) => v.push(0.0),
            BatchValues::Double(v) => v.push(0.0),
            BatchValues::Bytes { data, offsets } => offsets.push(data.len() as u32),
            BatchValues::Date(v) => v.push(0),
            BatchValues::Timestamp(v) => v.push(Timestamp {
                seconds: 0,
                nanos: 0,
            }),
            BatchValues::Decimal { values, .. } => values.push(0),
            BatchValues::List { offsets, items } => offsets.push(items.len() as u32),
            BatchValues::Nested(v) => v.push(Value::Null),
        }
    }

    /// Appends a decoded value; its variant must match the batch's kind.
    fn push(&mut self, v: Value) -> std::result::Result<(), Value> {
        if v.is_null() {
            self.push_null();
            return Ok(());
        }
        match (&mut self.values, v) {
            (BatchValues::Boolean(out), Value::Boolean(x)) => out.push(x),
            (
                BatchValues::Int(out),
                v @ (Value::TinyInt(_) | Value::SmallInt(_) | Value::Int(_) | Value::BigInt(_)),
            ) => out.push(v.as_i64().unwrap_or_default()),
            (BatchValues::Float(out), Value::Float(x)) => out.push(x),
            (BatchValues::Double(out), Value::Double(x)) => out.push(x),
            (BatchValues::Bytes { data, offsets }, Value::String(b) | Value::Binary(b)) => {
                data.extend_from_slice(&b);
                offsets.push(data.len() as u32);
            }
            (BatchValues::Date(out), Value::Date(d)) => out.push(d.0),
            (BatchValues::Timestamp(out), Value::Timestamp(t)) => out.push(t),
            (BatchValues::Decimal { values, scale }, Value::Decimal(d)) => {
                let d = if d.scale == *scale {
                    d
                } else {
                    d.round_to(38, *scale).unwrap_or(d)
                };
                values.push(d.unscaled)
            }
            (BatchValues::List { offsets, items }, Value::Array(elems)) => {
                for e in elems {
                    items.push(e)?;
                }
                offsets.push(items.len() as u32);
            }
            (BatchValues::Nested(out), v) => out.push(v),
            (_, v) => return Err(v),
        }
        self.valid.push(true);
        Ok(())
    }
}

impl RowGroup {
    /// Decodes column `col` as type `ty` with `serde` into `out` (replacing its contents).
    /// A column the file does not have, or a nulled column, gives all NULLs.
    pub fn decode_batch(
        &self,
        col: usize,
        ty: &HiveType,
        serde: &Serde,
        out: &mut ColumnBatch,
    ) -> Result<()> {
        out.reset(ty);
        let rows = self.num_rows();
        let Some(data) = self.cells_to_decode(col)? else {
            for _ in 0..rows {
                out.push_null();
            }
            return Ok(());
        };
        out.valid.reserve(rows);
        let at = |e: Error, row: usize| {
            e.in_section("cell")
                .at_row(row as u64)
                .in_column(col)
                .in_row_group(self.index())
        };
        if let Serde::Binary(bs) = serde {
            match decode_binary(bs, ty, data, out) {
                Some(Ok(())) => return Ok(()),
                Some(Err(row)) => {
                    let cell = data.cell(row).unwrap_or_default();
                    return Err(at(slow_error(serde, ty, cell), row));
                }
                None => {}
            }
        }
        if let Serde::Text(t) = serde {
            // Typed text parsers: a cell that does not parse is NULL, as in Hive.
            macro_rules! fast {
                ($vals:expr, $read:expr) => {{
                    for cell in data.cells() {
                        let v = $read(cell);
                        out.valid.push(v.is_some());
                        $vals.push(v.unwrap_or_default());
                    }
                    return Ok(());
                }};
            }
            match (&mut out.values, ty) {
                (BatchValues::Int(v), _) => fast!(v, |c| t.decode_int(ty, c)),
                (BatchValues::Double(v), _) => fast!(v, |c| t.decode_double(c)),
                (BatchValues::Float(v), _) => fast!(v, |c| t.decode_float(c)),
                (BatchValues::Boolean(v), _) => fast!(v, |c| t.decode_boolean(c)),
                (BatchValues::Date(v), _) => fast!(v, |c| t.decode_date(c).map(|d| d.0)),
                (BatchValues::Timestamp(v), _) => fast!(v, |c| t.decode_timestamp(c)),
                (BatchValues::Decimal { values, scale }, HiveType::Decimal { precision, .. }) => {
                    let s = *scale;
                    fast!(values, |c| t
                        .decode_decimal(*precision, s, c)
                        .and_then(|d| if d.scale == s {
                            Some(d)
                        } else {
                            d.round_to(*precision, s)
                        })
                        .map(|d| d.unscaled))
                }
                (BatchValues::Bytes { data: buf, offsets }, _) => {
                    buf.reserve(data.bytes().len());
                    for cell in data.cells() {
                        out.valid.push(t.decode_bytes_into(ty, cell, buf));
                        offsets.push(buf.len() as u32);
                    }
                    return Ok(());
                }
                _ => {}
            }
        }
        for (row, cell) in data.cells().enumerate() {
            let v = serde.decode(ty, cell).map_err(|e| at(e, row))?;
            out.push(v).map_err(|v| {
                at(
                    Error::invalid(format!("serde returned {v:?} for {ty}")),
                    row,
                )
            })?;
        }
        Ok(())
    }
}

/// The cells of `data` as (start, end) offset pairs.
#[inline]
fn cell_bounds(data: &ColumnData) -> impl Iterator<Item = (usize, usize)> + '_ {
    let offsets = data.offsets();
    offsets
        .iter()
        .zip(offsets.get(1..).unwrap_or_default())
        .map(|(&s, &e)| (s as usize, e as usize))
}

/// Appends one validity flag per cell: binary-serde cells are NULL exactly when empty.
#[inline]
fn push_validity(data: &ColumnData, valid: &mut Vec<bool>) {
    valid.extend(cell_bounds(data).map(|(s, e)| s != e));
}

/// Appends one value per cell of `data` to `vals` (the default for empty cells). `read` gets
/// the bytes from the start of a non-empty cell to the end of the column and the cell's
/// length; the first row it rejects is returned.
#[inline]
fn fill<T: Default>(
    data: &ColumnData,
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
fn decode_binary(
    bs: &BinarySerde,
    ty: &HiveType,
    data: &ColumnData,
    out: &mut ColumnBatch,
) -> Option<std::result::Result<(), usize>> {
    use crate::rcfile::hadoop::vlong_within as vlong;
    let ColumnBatch { valid, values } = out;
    let r = match (values, ty) {
        // Strings and binaries are the cell bytes themselves, except that a one-byte `BF`
        // string cell is "": copy the column in runs between such cells.
        (BatchValues::Bytes { data: buf, offsets }, HiveType::String | HiveType::Binary) => {
            let bytes = data.bytes();
            buf.reserve(bytes.len());
            let is_string = *ty == HiveType::String;
            let marker = |&(s, e): &(usize, usize)| {
                e.wrapping_sub(s) == 1 && bytes.get(s) == Some(&EMPTY_STRING_MARKER)
            };
            if !is_string || !cell_bounds(data).any(|b| marker(&b)) {
                // Nothing to drop (the usual case): the column's bytes and cell ends as they
                // are, two copies instead of a loop that checks and writes every cell.
                buf.extend_from_slice(bytes);
                offsets.extend_from_slice(data.offsets().get(1..).unwrap_or_default());
                push_validity(data, valid);
                return Some(Ok(()));
            }
            let (mut copied, mut dropped) = (0usize, 0usize);
            offsets.extend(cell_bounds(data).map(|(s, e)| {
                if marker(&(s, e)) {
                    buf.extend_from_slice(bytes.get(copied..s).unwrap_or_default());
                    copied = e;
                    dropped += 1;
                }
                (e - dropped) as u32
            }));
            buf.extend_from_slice(bytes.get(copied..).unwrap_or_default());
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
    data: &ColumnData,
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
    // The elements hold fewer bytes than the column: write them into a pre-sized buffer
    // (with room for one block past the end) and cut it to size at the end.
    let mut o = buf.len();
    buf.resize(o + bytes.len() + BLOCK, 0);
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

/// The serde's own error for a cell the fast path could not read.
#[cold]
fn slow_error(serde: &Serde, ty: &HiveType, cell: &[u8]) -> Error {
    match serde.decode(ty, cell) {
        Err(e) => e,
        Ok(v) => Error::corrupt(
            "lazybinary",
            format!("cell {cell:02x?} decodes to {v:?} only on the slow path"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rcfile::{RcFileReader, RcFileWriter, RowWriter, Schema};

    #[test]
    fn batches_agree_with_values() {
        let schema: Schema =
            "b:boolean,i:int,t:tinyint,f:float,d:double,s:string,bin:binary,v:varchar(3),dt:date,ts:timestamp,dec:decimal(6,2),a:array<int>,as:array<string>,ad:array<double>,m:map<string,int>"
                .parse()
                .unwrap();
        for serde in [Serde::binary(), Serde::text()] {
            let w = RcFileWriter::builder(Vec::new(), schema.len())
                .build()
                .unwrap();
            let mut w = RowWriter::new(w, schema.clone(), serde.clone());
            let rows = [
                vec![
                    Value::Boolean(true),
                    Value::Int(-7),
                    Value::TinyInt(3),
                    Value::Float(1.5),
                    Value::Double(-0.25),
                    Value::string(""),
                    Value::Binary(vec![1, 2]),
                    Value::string("abc"),
                    Value::Date(crate::rcfile::Date(19000)),
                    Value::Timestamp(Timestamp {
                        seconds: 5,
                        nanos: 7,
                    }),
                    Value::Decimal(crate::rcfile::Decimal {
                        unscaled: 150,
                        scale: 2,
                    }),
                    Value::Array(vec![Value::Int(1), Value::Null]),
                    Value::Array(vec![Value::string("x"), Value::Null, Value::string("")]),
                    Value::Array(vec![]),
                    Value::Map(vec![(Value::string("k"), Value::Int(2))]),
                ],
                vec![Value::Null; 15],
            ];
            for r in &rows {
                w.write(r).unwrap();
            }
            let bytes = w.finish_into_inner().unwrap().0;
            let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
            let g = r.next_row_group().unwrap().unwrap();
            let mut batch = ColumnBatch::default();
            let mut vals = Vec::new();
            for (c, f) in schema.columns().iter().enumerate() {
                g.decode_batch(c, &f.ty, &serde, &mut batch).unwrap();
                vals.clear();
                g.decode_column(c, &f.ty, &serde, &mut vals).unwrap();
                for (i, v) in vals.iter().enumerate() {
                    let b = batch.value(i, &f.ty).unwrap();
                    assert!(
                        b.same_as(v),
                        "{} {}: {b:?} vs {v:?}",
                        serde.short_name(),
                        f.name
                    );
                }
            }
        }
    }
}
