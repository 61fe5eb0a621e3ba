//! Columnar batches: one column of a row group decoded into typed vectors plus a validity
//! mask, with strings and binaries packed into one buffer. No per-value allocation for
//! primitive types; this is the shape Arrow arrays are built from.

mod binary;

use super::rowgroup::RowGroup;
use super::{HiveType, Serde, Timestamp, Value};
use crate::{Error, Result};
use binary::decode_binary;

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

/// One column of one row group (or of a slice of its rows), decoded.
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
        self.decode_batch_rows(col, 0..self.num_rows(), ty, serde, out)
    }

    /// Decodes rows `rows` of column `col` into `out` (replacing its contents), as
    /// [`decode_batch`](Self::decode_batch) decodes them all: a group decoded a slice at a
    /// time holds one slice's values at once. Rows past the group's end are an error.
    ///
    /// ```
    /// use colfile::rcfile::{ColumnBatch, RcFileReader, RcFileWriter, RowWriter, Schema, Serde, Value};
    /// let schema: Schema = "n:bigint".parse()?;
    /// let ty = &schema.columns()[0].ty;
    /// let w = RcFileWriter::builder(Vec::new(), 1).build()?;
    /// let mut w = RowWriter::new(w, schema.clone(), Serde::binary());
    /// for n in 0..10 {
    ///     w.write(&[Value::BigInt(n)])?;
    /// }
    /// let bytes = w.finish_into_inner()?.0;
    /// let mut r = RcFileReader::builder(bytes.as_slice()).build()?;
    /// let group = r.next_row_group()?.expect("one row group");
    /// let mut out = ColumnBatch::default();
    /// group.decode_batch_rows(0, 4..7, ty, &Serde::binary(), &mut out)?;
    /// assert_eq!(out.len(), 3);
    /// assert_eq!(out.value(0, ty), Some(Value::BigInt(4)));
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn decode_batch_rows(
        &self,
        col: usize,
        rows: std::ops::Range<usize>,
        ty: &HiveType,
        serde: &Serde,
        out: &mut ColumnBatch,
    ) -> Result<()> {
        out.reset(ty);
        if rows.start > rows.end || rows.end > self.num_rows() {
            return Err(Error::invalid(format!(
                "rows {}..{} of a row group of {} rows",
                rows.start,
                rows.end,
                self.num_rows()
            )));
        }
        let (first, n) = (rows.start, rows.len());
        let Some(column) = self.cells_to_decode(col)? else {
            for _ in 0..n {
                out.push_null();
            }
            return Ok(());
        };
        let data = column.rows(rows).ok_or_else(|| {
            Error::corrupt("rcfile", "column has fewer cells than its row group has rows")
        })?;
        out.valid.reserve(n);
        let at = |e: Error, row: usize| {
            e.in_section("cell")
                .at_row((first + row) as u64)
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
                    buf.reserve(data.span().len());
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

    /// Rows of every shape the decoders tell apart: NULLs, empty strings (a one-byte cell in
    /// the binary serde), nested values.
    fn varied_rows(n: u64) -> Vec<Vec<Value>> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        (0..n)
            .map(|i| {
                let k = next();
                let s = |k: u64| Value::string(["", "a", "xyz", "hello world"][(k % 4) as usize]);
                let row = vec![
                    Value::BigInt(k as i64 >> (k % 60)),
                    s(k >> 8),
                    Value::Timestamp(Timestamp {
                        seconds: (k % 8_000_000_000) as i64 - 3_000_000_000,
                        nanos: (k % 3) as u32 * 1_000_123,
                    }),
                    Value::Decimal(crate::rcfile::Decimal {
                        unscaled: (k % 2_000_000) as i128 - 1_000_000,
                        scale: 2,
                    }),
                    Value::Array(vec![s(k >> 3), Value::Null, s(k >> 5)]),
                    Value::Map(vec![(s(k >> 9), Value::Int(i as i32))]),
                ];
                row.into_iter()
                    .enumerate()
                    .map(|(c, v)| if (k >> (20 + c)) % 7 == 0 { Value::Null } else { v })
                    .collect()
            })
            .collect()
    }

    /// A row group decoded a slice at a time gives, slice by slice, what decoding it whole
    /// gives for those rows: every binary fast path (strings with empty cells dropped and
    /// not, lists of strings), the text serde's, and the value path (maps).
    #[test]
    fn row_slices_agree_with_whole_groups() {
        let schema: Schema = "n:bigint,s:string,ts:timestamp,d:decimal(9,2),a:array<string>,m:map<string,int>"
            .parse()
            .unwrap();
        for serde in [Serde::binary(), Serde::text()] {
            let w = RcFileWriter::builder(Vec::new(), schema.len())
                .with_row_group_rows(700)
                .build()
                .unwrap();
            let mut w = RowWriter::new(w, schema.clone(), serde.clone());
            for r in varied_rows(1500) {
                w.write(&r).unwrap();
            }
            let bytes = w.finish_into_inner().unwrap().0;
            let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
            let (mut whole, mut part) = (ColumnBatch::default(), ColumnBatch::default());
            let mut groups = 0;
            while let Some(g) = r.next_row_group().unwrap() {
                groups += 1;
                let rows = g.num_rows();
                for (c, f) in schema.columns().iter().enumerate() {
                    g.decode_batch(c, &f.ty, &serde, &mut whole).unwrap();
                    // Slices of every length from 0 to 97 rows, and the whole group.
                    let mut cuts = vec![(0, rows), (rows, rows), (0, 0), (rows - 1, rows)];
                    let mut start = 0;
                    for len in 0..98 {
                        let end = rows.min(start + len);
                        cuts.push((start, end));
                        start = end;
                    }
                    for (a, b) in cuts {
                        g.decode_batch_rows(c, a..b, &f.ty, &serde, &mut part).unwrap();
                        assert_eq!(part.len(), b - a);
                        for i in 0..b - a {
                            let (p, w) = (part.value(i, &f.ty), whole.value(a + i, &f.ty));
                            let (p, w) = (p.unwrap(), w.unwrap());
                            assert!(
                                p.same_as(&w),
                                "{} {} rows {a}..{b}, row {}: {p:?} vs {w:?}",
                                serde.short_name(),
                                f.name,
                                a + i
                            );
                        }
                    }
                }
                let ty = &schema.columns()[0].ty;
                let (two, one) = (2, 1);
                for bad in [rows..rows + 1, two..one, 0..usize::MAX] {
                    let e = g.decode_batch_rows(0, bad.clone(), ty, &serde, &mut part);
                    assert!(e.is_err(), "{bad:?}");
                }
            }
            assert_eq!(groups, 3);
        }
    }

    /// An error in a slice names the cell's row in the group, not in the slice.
    #[test]
    fn slice_errors_name_the_group_row() {
        let mut w = RcFileWriter::builder(Vec::new(), 1).build().unwrap();
        for row in 0..10u8 {
            // A VLong marker promising eight more bytes, in a one-byte cell, at row 6.
            let cell = if row == 6 { vec![0x88] } else { vec![row] };
            w.write_row(&[cell]).unwrap();
        }
        let bytes = w.finish_into_inner().unwrap().0;
        let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
        let g = r.next_row_group().unwrap().unwrap();
        let mut out = ColumnBatch::default();
        let e = g
            .decode_batch_rows(0, 4..8, &HiveType::BigInt, &Serde::binary(), &mut out)
            .unwrap_err();
        assert_eq!(e.location().row, Some(6), "{e}");
        assert_eq!(e.location().column, Some(0), "{e}");
        g.decode_batch_rows(0, 7..10, &HiveType::BigInt, &Serde::binary(), &mut out)
            .unwrap();
        assert_eq!(out.value(0, &HiveType::BigInt).unwrap(), Value::BigInt(7));
    }

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
