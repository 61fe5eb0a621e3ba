//! `convert --timestamp-unit s|ms|us|ns` (feature `parquet`): the unit of the timestamp
//! columns of Parquet and Arrow IPC output. Hive `timestamp` columns are read from an RCFile
//! in that unit directly (so dates beyond the nanosecond range, 1677-2262, fit a coarser
//! one); every other top-level timestamp column (TsFile's time and TIMESTAMP columns, a
//! Parquet or IPC input's) is rescaled here: a finer unit multiplies exactly (a value that
//! overflows 64 bits is an error), a coarser one divides and rounds down.

use crate::Failure;
use arrow_array::{make_array, Array, ArrayRef, Int64Array, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef, TimeUnit};
use std::sync::Arc;

/// `s`, `ms`, `us` or `ns` as a unit (the names are checked by the argument parser).
pub fn unit_of(name: &str) -> Result<TimeUnit, Failure> {
    Ok(match name {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        other => {
            return Err(Failure::usage(format!(
                "--timestamp-unit {other:?}: s, ms, us or ns"
            )))
        }
    })
}

/// Powers of ten per unit: seconds 0, milliseconds 3, microseconds 6, nanoseconds 9.
fn digits(u: &TimeUnit) -> u32 {
    match u {
        TimeUnit::Second => 0,
        TimeUnit::Millisecond => 3,
        TimeUnit::Microsecond => 6,
        TimeUnit::Nanosecond => 9,
    }
}

/// `schema` with every top-level timestamp column in `unit` (its zone and metadata kept).
pub fn schema_in(schema: &SchemaRef, unit: TimeUnit) -> SchemaRef {
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .map(|f| match f.data_type() {
            DataType::Timestamp(_, tz) => f
                .as_ref()
                .clone()
                .with_data_type(DataType::Timestamp(unit, tz.clone())),
            _ => f.as_ref().clone(),
        })
        .collect();
    Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()))
}

/// `column`'s values from `from` to `to`.
fn rescale(
    column: &ArrayRef,
    from: &TimeUnit,
    to: TimeUnit,
    name: &str,
) -> Result<ArrayRef, Failure> {
    let (f, t) = (digits(from), digits(&to));
    let tz = match column.data_type() {
        DataType::Timestamp(_, tz) => tz.clone(),
        _ => None,
    };
    let bad = |e: arrow_schema::ArrowError| Failure::input(format!("column {name}: {e}"));
    let ints = Int64Array::from(
        column
            .to_data()
            .into_builder()
            .data_type(DataType::Int64)
            .build()
            .map_err(bad)?,
    );
    let factor = 10i64.pow(f.abs_diff(t));
    let scaled = ints
        .iter()
        .map(|v| match v {
            None => Ok(None),
            Some(v) if t >= f => v.checked_mul(factor).map(Some).ok_or_else(|| {
                Failure::input(format!(
                    "column {name}: {v} does not fit a 64-bit timestamp in --timestamp-unit {}",
                    ["s", "ms", "us", "ns"][t as usize / 3]
                ))
            }),
            Some(v) => Ok(Some(v.div_euclid(factor))),
        })
        .collect::<Result<Int64Array, Failure>>()?;
    let data = scaled
        .to_data()
        .into_builder()
        .data_type(DataType::Timestamp(to, tz))
        .build()
        .map_err(bad)?;
    Ok(make_array(data))
}

/// `batch` with every top-level timestamp column in `unit`, under `schema` (from
/// [`schema_in`]).
pub fn batch_in(
    batch: RecordBatch,
    schema: &SchemaRef,
    unit: TimeUnit,
) -> Result<RecordBatch, Failure> {
    let mut columns = Vec::with_capacity(batch.num_columns());
    for (c, f) in batch.columns().iter().zip(batch.schema().fields()) {
        columns.push(match c.data_type() {
            DataType::Timestamp(from, _) if *from != unit => rescale(c, from, unit, f.name())?,
            _ => Arc::clone(c),
        });
    }
    RecordBatch::try_new(Arc::clone(schema), columns)
        .map_err(|e| Failure::input(format!("--timestamp-unit: {e}")))
}

/// `schema` and `batches` with `--timestamp-unit` applied, when it is given.
pub fn apply(
    a: &super::ConvertArgs,
    schema: SchemaRef,
    batches: super::parquet::Batches,
) -> Result<(SchemaRef, super::parquet::Batches), Failure> {
    let Some(name) = &a.timestamp_unit else {
        return Ok((schema, batches));
    };
    let unit = unit_of(name)?;
    let schema = schema_in(&schema, unit);
    let out = Arc::clone(&schema);
    let batches = batches.map(move |b| b.and_then(|b| batch_in(b, &out, unit)));
    Ok((schema, Box::new(batches)))
}
