//! Columnar batches: one column of a row group decoded into typed vectors plus a validity
//! mask, with strings and binaries packed into one buffer. No per-value allocation for
//! primitive types; this is the shape Arrow arrays are built from.

use super::rowgroup::RowGroup;
use super::serde::binary::{self, EMPTY_STRING_MARKER};
use super::{HiveType, Serde, Timestamp, Value};
use crate::format::Cursor;
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
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::{batch::{BatchValues, ColumnBatch}, HiveType, Reader, Serde};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let mut r = Reader::builder(bytes.as_slice()).with_projection([0]).build()?;
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
            e.at_row(row as u64)
                .in_column(col)
                .in_row_group(self.index())
        };
        // Raw fast path: binary-serde strings and binaries are the cell bytes themselves.
        if let (
            Serde::Binary(_),
            HiveType::String | HiveType::Binary,
            BatchValues::Bytes { data: buf, offsets },
        ) = (serde, ty, &mut out.values)
        {
            buf.reserve(data.bytes().len());
            for cell in data.cells() {
                if cell.is_empty() {
                    out.valid.push(false);
                } else {
                    if !(cell == [EMPTY_STRING_MARKER] && *ty == HiveType::String) {
                        buf.extend_from_slice(cell);
                    }
                    out.valid.push(true);
                }
                offsets.push(buf.len() as u32);
            }
            return Ok(());
        }
        if let Serde::Binary(bs) = serde {
            // Tight loops for fixed-layout primitives: no Value in between.
            macro_rules! fast {
                ($vals:expr, $read:expr) => {{
                    for (row, cell) in data.cells().enumerate() {
                        if cell.is_empty() {
                            out.valid.push(false);
                            $vals.push(Default::default());
                        } else if let Some(v) = $read(cell) {
                            out.valid.push(true);
                            $vals.push(v);
                        } else {
                            return Err(at(slow_error(serde, ty, cell), row));
                        }
                    }
                    return Ok(());
                }};
            }
            match (&mut out.values, ty) {
                (BatchValues::Int(v), _) => fast!(v, |c| binary::fast_int(ty, c)),
                (BatchValues::Double(v), _) => fast!(v, binary::fast_double),
                (BatchValues::Float(v), _) => fast!(v, binary::fast_float),
                (BatchValues::Boolean(v), _) => fast!(v, |c: &[u8]| c.first().map(|&b| b != 0)),
                (BatchValues::Date(v), _) => {
                    fast!(v, |c| bs
                        .read_date(&mut Cursor::new(c, 0))
                        .ok()
                        .map(|d| d.0))
                }
                (BatchValues::Timestamp(v), _) => {
                    fast!(v, |c| bs.read_timestamp_value(&mut Cursor::new(c, 0)).ok())
                }
                (BatchValues::Decimal { values, scale }, HiveType::Decimal { precision, .. }) => {
                    let s = *scale;
                    for (row, cell) in data.cells().enumerate() {
                        let d = if cell.is_empty() {
                            None
                        } else {
                            bs.read_decimal(&mut Cursor::new(cell, 0), *precision, s)
                                .map_err(|_| at(slow_error(serde, ty, cell), row))?
                        };
                        out.valid.push(d.is_some());
                        values.push(d.map_or(0, |d| d.unscaled));
                    }
                    return Ok(());
                }
                (BatchValues::List { offsets, items }, HiveType::Array(et)) if list_fast(et) => {
                    for (row, cell) in data.cells().enumerate() {
                        if cell.is_empty() {
                            out.valid.push(false);
                        } else if read_binary_list(et, cell, items).is_some() {
                            out.valid.push(true);
                        } else {
                            return Err(at(slow_error(serde, ty, cell), row));
                        }
                        offsets.push(items.len() as u32);
                    }
                    return Ok(());
                }
                _ => {}
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
    use crate::format::hadoop::decode_vlong;
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
    use crate::rcfile::{Reader, RowWriter, Schema, Writer};

    #[test]
    fn batches_agree_with_values() {
        let schema: Schema =
            "b:boolean,i:int,t:tinyint,f:float,d:double,s:string,bin:binary,v:varchar(3),dt:date,ts:timestamp,dec:decimal(6,2),a:array<int>,as:array<string>,ad:array<double>,m:map<string,int>"
                .parse()
                .unwrap();
        for serde in [Serde::binary(), Serde::text()] {
            let w = Writer::builder(Vec::new(), schema.len()).build().unwrap();
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
            let mut r = Reader::new(bytes.as_slice()).unwrap();
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
