//! Hive rows ([`Value`]s, one per column of a [`Schema`]) to and from Arrow record batches,
//! under the same type mapping as [`RcFileArrowReader`](super::RcFileArrowReader) and
//! [`RcFileArrowWriter`](super::RcFileArrowWriter): for moving rows between Arrow and code
//! that works on rows (text formats, row-by-row producers).

use arrow_array::{ArrayRef, RecordBatch, RecordBatchOptions};
use arrow_schema::TimeUnit;

use super::from_arrow;
use super::hive_arrays::HiveToArrow;
use super::hive_types::hive_schema_to_arrow;
use super::hive_values::value_at;
use crate::rcfile::{Schema, Value};
use crate::{Error, Result};

/// `rows` (each one [`Value`] per column of `schema`, [`Value::Null`] for NULL) as one batch
/// of [`hive_schema_to_arrow`]`(schema)` (timestamps in nanoseconds, UTC).
///
/// Errors: a row of the wrong length, or a value that does not fit its column's type.
///
/// ```
/// use colfile::arrow::{arrow_row_to_hive, hive_rows_to_arrow};
/// use colfile::rcfile::{Schema, Value};
/// let schema: Schema = "id:bigint,name:string".parse()?;
/// let rows = vec![
///     vec![Value::BigInt(1), Value::string("a")],
///     vec![Value::BigInt(2), Value::Null],
/// ];
/// let batch = hive_rows_to_arrow(&schema, &rows)?;
/// assert_eq!(batch.num_rows(), 2);
/// assert_eq!(arrow_row_to_hive(&batch, 1, &schema)?, rows[1]);
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn hive_rows_to_arrow(schema: &Schema, rows: &[Vec<Value>]) -> Result<RecordBatch> {
    let width = schema.len();
    if let Some((i, r)) = rows.iter().enumerate().find(|(_, r)| r.len() != width) {
        return Err(Error::invalid(format!(
            "row {i} has {} values for {width} columns",
            r.len()
        ))
        .at_row(i as u64));
    }
    let conv = HiveToArrow {
        unit: TimeUnit::Nanosecond,
        lossy_utf8: false,
    };
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(width);
    for (c, col) in schema.columns().iter().enumerate() {
        let cells: Vec<&Value> = rows.iter().filter_map(|r| r.get(c)).collect();
        arrays.push(conv.values(&cells, &col.ty).map_err(|e| e.in_column(c))?);
    }
    let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
    RecordBatch::try_new_with_options(hive_schema_to_arrow(schema), arrays, &options)
        .map_err(from_arrow)
}

/// Row `row` of `batch` as Hive values of `schema`'s types, columns matched by position.
///
/// Errors: a batch with fewer columns than `schema`, a row past its end, or a value with no
/// form in its column's Hive type.
pub fn arrow_row_to_hive(batch: &RecordBatch, row: usize, schema: &Schema) -> Result<Vec<Value>> {
    if batch.num_columns() < schema.len() {
        return Err(Error::schema(format!(
            "a batch of {} columns for a schema of {}",
            batch.num_columns(),
            schema.len()
        )));
    }
    schema
        .columns()
        .iter()
        .zip(batch.columns())
        .enumerate()
        .map(|(c, (col, array))| value_at(array.as_ref(), row, &col.ty).map_err(|e| e.in_column(c)))
        .collect()
}
