//! [`EncodedRows`]: rows turned into their cells column by column, on whatever thread the
//! caller likes, for [`RcFileWriter::write_encoded`] to add to the row group in one copy a
//! column.

use super::writer::RcFileWriter;
use super::{Field, Schema, Serde, Value};
use crate::{Error, Result};
use std::io::Write;

/// Rows of a schema encoded with a serde into cells, column by column: what
/// [`RcFileWriter::write_encoded`] appends, in the same row groups and bytes as
/// [`RcFileWriter::write_row`] of each row's [`Serde::encode_row`] cells.
///
/// Encoding is most of a write's work, and it needs neither the writer nor the file, so a
/// program can encode batches of rows on worker threads and hand the batches to the one
/// thread that writes. A batch reused after [`clear`](Self::clear) keeps its buffers.
///
/// ```
/// use colfile::rcfile::{EncodedRows, RcFileWriter, Schema, Serde, Value};
/// let schema: Schema = "id:int,name:string".parse()?;
/// let serde = Serde::binary();
/// let mut rows = EncodedRows::new(schema.len());
/// rows.push_row(&serde, &schema, &[Value::Int(1), Value::string("a")])?;
/// rows.push_row(&serde, &schema, &[Value::Int(2)])?; // name NULL
/// assert_eq!(rows.len(), 2);
///
/// let mut w = RcFileWriter::builder(Vec::new(), schema.len()).build()?;
/// w.write_encoded(&rows)?;
/// let (_file, summary) = w.finish_into_inner()?;
/// assert_eq!(summary.rows, 2);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug, Default, Clone)]
pub struct EncodedRows {
    columns: Vec<ColumnCells>,
    rows: usize,
}

impl EncodedRows {
    /// An empty batch of rows of `columns` cells.
    pub fn new(columns: usize) -> Self {
        EncodedRows {
            columns: vec![ColumnCells::default(); columns],
            rows: 0,
        }
    }

    /// Encodes `row` (values in `schema`'s order; missing trailing values NULL) with `serde`
    /// and adds it.
    ///
    /// Errors as [`Serde::encode_row`]'s ([`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
    /// for a row longer than the schema, or a value its column's type cannot hold, naming the
    /// column); the batch is then as it was before the call.
    pub fn push_row(&mut self, serde: &Serde, schema: &Schema, row: &[Value]) -> Result<()> {
        super::serde::check_row_len(schema, row)?;
        let cols = schema.columns();
        if cols.len() != self.columns.len() {
            return Err(Error::invalid(format!(
                "schema has {} columns, the batch {}",
                cols.len(),
                self.columns.len()
            )));
        }
        for (i, (cells, col)) in self.columns.iter_mut().zip(cols).enumerate() {
            let v = row.get(i).unwrap_or(&Value::Null);
            if let Err(e) = cells.push(serde, col, v) {
                // The columns before this one took the row's cell: take it back.
                for c in self.columns.iter_mut().take(i) {
                    c.pop();
                }
                return Err(e);
            }
        }
        self.rows += 1;
        Ok(())
    }

    /// How many rows it holds.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether it holds no rows.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Empties it, keeping its buffers for the next rows.
    pub fn clear(&mut self) {
        self.columns.iter_mut().for_each(ColumnCells::clear);
        self.rows = 0;
    }

    /// `rows` rows given as each column's cells (as the Arrow writer encodes a batch).
    #[cfg(feature = "arrow")]
    pub(crate) fn from_columns(columns: Vec<ColumnCells>, rows: usize) -> Self {
        EncodedRows { columns, rows }
    }

    /// The columns' cells, moved out.
    #[cfg(feature = "arrow")]
    pub(crate) fn into_columns(self) -> Vec<ColumnCells> {
        self.columns
    }

    /// Each column's cells, as [`RcFileWriter::write_columns`] takes them.
    fn column_refs(&self) -> Vec<(&[u8], &[usize])> {
        self.columns
            .iter()
            .map(|c| (&c.bytes[..], &c.ends[..]))
            .collect()
    }
}

impl<W: Write> RcFileWriter<W> {
    /// Appends every row of `rows`, as [`write_row`](Self::write_row) of each row's cells
    /// would (same row groups, same bytes), with one copy a column instead of one a cell.
    ///
    /// Errors: a batch of more columns than the file has, and those of writing a row group
    /// that fills up (as `write_row`'s).
    pub fn write_encoded(&mut self, rows: &EncodedRows) -> Result<()> {
        self.write_columns(&rows.column_refs(), rows.rows)
    }
}

/// One column's cells: cell `r`'s bytes end at `ends[r]` in `bytes`.
#[derive(Debug, Default, Clone)]
pub(crate) struct ColumnCells {
    pub(crate) bytes: Vec<u8>,
    pub(crate) ends: Vec<usize>,
}

impl ColumnCells {
    /// Appends the cell of `v`, a value of `col`, encoded with `serde`; nothing on error.
    pub(crate) fn push(&mut self, serde: &Serde, col: &Field, v: &Value) -> Result<()> {
        let start = self.bytes.len();
        if let Err(e) = serde.encode_in(col, v, &mut self.bytes) {
            self.bytes.truncate(start);
            return Err(e);
        }
        self.ends.push(self.bytes.len());
        Ok(())
    }

    /// Takes the last cell back.
    fn pop(&mut self) {
        self.ends.pop();
        self.bytes.truncate(self.ends.last().copied().unwrap_or(0));
    }

    fn clear(&mut self) {
        self.bytes.clear();
        self.ends.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn value(kind: u8, n: i64, s: &str) -> Value {
        match kind % 4 {
            0 => Value::Null,
            1 => Value::BigInt(n),
            2 => Value::string(s),
            _ => Value::Double(n as f64 / 8.0),
        }
    }

    proptest! {
        /// Batches of encoded rows make the file `write_row` makes of the same rows, with
        /// row groups cut by rows and by bytes inside the batches.
        #[test]
        fn write_encoded_is_write_row(
            rows in prop::collection::vec((any::<u8>(), any::<i64>(), "[a-z]{0,12}"), 0..300),
            batch in 1usize..64,
            group_rows in 1usize..50,
            column_max in prop::option::of(12usize..80),
        ) {
            let schema: Schema = "a:bigint,b:string,c:double".parse().unwrap();
            let serde = Serde::binary();
            let ty = |i: usize| match i { 0 => 1, 1 => 2, _ => 3 };
            let row_of = |&(k, n, ref s): &(u8, i64, String)| -> Vec<Value> {
                (0..3).map(|i| if k >> i & 1 == 1 { Value::Null } else { value(ty(i), n, s) })
                    .collect()
            };
            // Columns small enough for their bytes to end row groups too (no cell is over
            // 12 bytes), or RCFile's 2 GiB.
            let build = || {
                let w = RcFileWriter::builder(Vec::new(), 3)
                    .with_row_group_rows(group_rows)
                    .with_row_group_bytes(200)
                    .with_sync([7; 16])
                    .build()
                    .unwrap();
                match column_max {
                    Some(m) => w.with_max_column_bytes(m),
                    None => w,
                }
            };
            let mut by_row = build();
            let mut cells = Vec::new();
            for r in &rows {
                serde.encode_row(&schema, &row_of(r), &mut cells).unwrap();
                by_row.write_row(&cells).unwrap();
            }
            let mut by_batch = build();
            let mut enc = EncodedRows::new(3);
            for chunk in rows.chunks(batch) {
                enc.clear();
                for r in chunk {
                    enc.push_row(&serde, &schema, &row_of(r)).unwrap();
                }
                prop_assert_eq!(enc.len(), chunk.len());
                by_batch.write_encoded(&enc).unwrap();
            }
            prop_assert_eq!(by_batch.finish_into_inner().unwrap(), by_row.finish_into_inner().unwrap());
        }
    }

    #[test]
    fn a_cell_no_row_group_holds_is_refused_after_the_rows_before_it() {
        let schema: Schema = "a:string".parse().unwrap();
        let serde = Serde::binary();
        let write = |by_batch: bool| {
            let mut w = RcFileWriter::builder(Vec::new(), 1)
                .with_sync([7; 16])
                .build()
                .unwrap()
                .with_max_column_bytes(8);
            let rows = ["abc", "defg", "0123456789", "h"].map(|s| vec![Value::string(s)]);
            let e = if by_batch {
                let mut enc = EncodedRows::new(1);
                for r in &rows {
                    enc.push_row(&serde, &schema, r).unwrap();
                }
                w.write_encoded(&enc).unwrap_err()
            } else {
                let mut cells = Vec::new();
                let mut e = None;
                for r in &rows {
                    serde.encode_row(&schema, r, &mut cells).unwrap();
                    if let Err(x) = w.write_row(&cells) {
                        e = Some(x);
                        break;
                    }
                }
                e.unwrap()
            };
            assert!(e.to_string().contains("larger than 2 GiB"), "{e}");
            w.finish_into_inner().unwrap()
        };
        // Both write the two rows before it, in row groups of at most 8 bytes a column.
        let (a, b) = (write(true), write(false));
        assert_eq!(a, b);
        assert_eq!(a.1.rows, 2);
    }

    #[test]
    fn a_refused_row_leaves_the_batch_as_it_was() {
        let schema: Schema = "a:bigint,b:int,c:string".parse().unwrap();
        let serde = Serde::binary();
        let mut enc = EncodedRows::new(3);
        enc.push_row(&serde, &schema, &[Value::BigInt(1), Value::Int(2)])
            .unwrap();
        let before = enc.clone();
        // Column b cannot hold a string: column a's cell is taken back.
        let bad = [Value::BigInt(5), Value::string("x"), Value::string("y")];
        let e = enc.push_row(&serde, &schema, &bad).unwrap_err();
        assert!(e.to_string().contains("column b"), "{e}");
        let too_long = [Value::Null, Value::Null, Value::Null, Value::Null];
        assert!(enc.push_row(&serde, &schema, &too_long).is_err());
        assert_eq!(enc.len(), 1);
        assert_eq!(enc.column_refs(), before.column_refs());
    }
}
