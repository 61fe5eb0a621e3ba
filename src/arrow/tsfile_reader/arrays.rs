//! A [`Column`] of a [`DeviceBatch`](crate::tsfile::DeviceBatch) as an Arrow array: the
//! packed non-null values spread over the rows (moved, not copied, when every row has a
//! value), the presence mask as the validity bitmap, byte strings as one buffer plus offsets.

use std::sync::Arc;

use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    ArrayRef, BinaryArray, BooleanArray, Date32Array, Float32Array, Float64Array, Int32Array,
    Int64Array, PrimitiveArray, StringArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::TimeUnit;

use super::super::from_arrow;
use super::super::tsfile_types::yyyymmdd_to_days;
use crate::tsfile::format::DataType;
use crate::tsfile::{BinaryValues, Column, Values};
use crate::{Error, Result};

/// How values are turned into arrays.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Opts {
    /// The unit of the time column and TIMESTAMP columns.
    pub unit: TimeUnit,
    /// Replace bytes that are not UTF-8 instead of failing.
    pub lossy: bool,
    /// Rows returned before this batch (for error locations).
    pub first_row: u64,
}

/// `values` as a `Timestamp(unit, "UTC")` array.
pub(crate) fn time_array(
    unit: TimeUnit,
    values: Vec<i64>,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let v = ScalarBuffer::from(values);
    fn make<T: arrow_array::types::ArrowTimestampType>(
        v: ScalarBuffer<i64>,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef> {
        let a = PrimitiveArray::<T>::try_new(v, nulls).map_err(from_arrow)?;
        Ok(Arc::new(a.with_timezone("UTC")))
    }
    match unit {
        TimeUnit::Second => make::<TimestampSecondType>(v, nulls),
        TimeUnit::Millisecond => make::<TimestampMillisecondType>(v, nulls),
        TimeUnit::Microsecond => make::<TimestampMicrosecondType>(v, nulls),
        TimeUnit::Nanosecond => make::<TimestampNanosecondType>(v, nulls),
    }
}

/// `n` copies of `value` (all null for `None`) as a Utf8 array.
pub(crate) fn repeated_string(value: Option<&str>, n: usize) -> Result<ArrayRef> {
    let Some(v) = value else {
        return Ok(Arc::new(StringArray::new_null(n)));
    };
    let too_big = || Error::invalid("a repeated tag value does not fit one Arrow string array");
    let len = i32::try_from(v.len()).map_err(|_| too_big())?;
    let total = len.checked_mul(i32::try_from(n).map_err(|_| too_big())?);
    total.ok_or_else(too_big)?;
    let offsets: Vec<i32> = (0..=n as i32).map(|i| i * len).collect();
    let offsets = OffsetBuffer::new(ScalarBuffer::from(offsets));
    let data = Buffer::from(v.repeat(n).into_bytes());
    let a = StringArray::try_new(offsets, data, None).map_err(from_arrow)?;
    Ok(Arc::new(a))
}

/// Spreads packed values over `present` (empty: every row has one), defaults in the gaps.
fn spread<T: Copy + Default>(values: Vec<T>, present: &[bool]) -> Vec<T> {
    if present.is_empty() {
        return values;
    }
    let mut it = values.into_iter();
    present
        .iter()
        .map(|&p| {
            if p {
                it.next().unwrap_or_default()
            } else {
                T::default()
            }
        })
        .collect()
}

/// Arrow offsets for `b`'s values spread over `present` (null rows are empty).
fn offsets(b: &BinaryValues, present: &[bool], n: usize) -> Result<OffsetBuffer<i32>> {
    let big = |_| Error::invalid("more than 2 GiB of strings in one batch; lower the batch size");
    let src = b.offsets();
    let mut out: Vec<i32> = Vec::with_capacity(n + 1);
    out.push(0);
    if present.is_empty() {
        for &o in src.iter().skip(1) {
            out.push(i32::try_from(o).map_err(big)?);
        }
    } else {
        let (mut next, mut last) = (1, 0);
        for &p in present {
            if p {
                let o = src.get(next).copied().unwrap_or_default();
                last = i32::try_from(o).map_err(big)?;
                next += 1;
            }
            out.push(last);
        }
    }
    // Every pair checked without an early exit, so that the loop vectorises.
    let ascending = (out.iter().zip(out.iter().skip(1))).fold(true, |ok, (a, b)| ok & (a <= b));
    if !ascending {
        return Err(Error::invalid("string offsets that decrease"));
    }
    Ok(OffsetBuffer::new(ScalarBuffer::from(out)))
}

/// A TEXT/STRING column as Utf8: checked once by Arrow; on failure the first bad row is
/// named, or (lossy) the values are rebuilt with replacement characters.
fn utf8(
    name: &str,
    b: BinaryValues,
    present: &[bool],
    nulls: Option<NullBuffer>,
    opts: &Opts,
) -> Result<ArrayRef> {
    let n = present.len().max(b.len());
    let offs = offsets(&b, present, n)?;
    // The bytes move into Arrow, which checks them; the buffer is shared, so on failure it
    // is still there to find the bad value in.
    let (src_offsets, data) = b.into_parts();
    let data = Buffer::from_vec(data);
    let err = match StringArray::try_new(offs, data.clone(), nulls.clone()) {
        Ok(a) => return Ok(Arc::new(a)),
        Err(e) => e,
    };
    let b: BinaryValues = (src_offsets.iter().zip(src_offsets.iter().skip(1)))
        .map(|(&a, &z)| data.as_slice().get(a..z).unwrap_or_default())
        .collect();
    let Some(i) = b.iter().position(|v| std::str::from_utf8(v).is_err()) else {
        return Err(from_arrow(err));
    };
    if !opts.lossy {
        let row = row_of_value(present, i);
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "column {name}, row {row} of the batch: not UTF-8 (with_lossy_utf8 replaces it)"
            ),
        )
        .at_row(opts.first_row + row as u64));
    }
    let fixed: BinaryValues = b
        .iter()
        .map(String::from_utf8_lossy)
        .collect::<Vec<_>>()
        .iter()
        .map(|s| s.as_bytes())
        .collect();
    let offs = offsets(&fixed, present, n)?;
    let a = StringArray::try_new(offs, Buffer::from(fixed.data()), nulls).map_err(from_arrow)?;
    Ok(Arc::new(a))
}

/// The row of the `i`-th packed value.
fn row_of_value(present: &[bool], i: usize) -> usize {
    if present.is_empty() {
        return i;
    }
    present
        .iter()
        .enumerate()
        .filter(|(_, &p)| p)
        .nth(i)
        .map_or(i, |(r, _)| r)
}

/// `column` (declared `expected` by the schema) as an Arrow array of `n` rows.
///
/// Errors: a column whose type is not `expected`'s, whose mask or value count does not match
/// `n`, an impossible DATE, text that is not UTF-8 (unless lossy).
pub(crate) fn column_array(
    column: Column,
    expected: DataType,
    n: usize,
    opts: &Opts,
) -> Result<ArrayRef> {
    let data_type = column.data_type;
    let same = super::super::tsfile_types::tsfile_type_to_arrow(data_type, opts.unit)?
        == super::super::tsfile_types::tsfile_type_to_arrow(expected, opts.unit)?;
    if !same {
        return Err(Error::corrupt(
            "tsfile",
            format!(
                "column {} is {data_type} here but {expected} in the schema",
                column.name
            ),
        ));
    }
    let set = column.rows_present(n)?;
    let Column {
        name,
        values,
        present,
        ..
    } = column;
    // A mask without a null (aligned pages always carry one) is no mask: the values move
    // into Arrow as they are, with no validity bitmap.
    let present = if set == n { Vec::new() } else { present };
    let nulls =
        (!present.is_empty()).then(|| NullBuffer::new(BooleanBuffer::from(present.as_slice())));
    let arrow = |e| from_arrow(e);
    Ok(match (data_type, values) {
        (DataType::Boolean, Values::Boolean(v)) => {
            let v = BooleanBuffer::from(spread(v, &present).as_slice());
            Arc::new(BooleanArray::new(v, nulls))
        }
        (DataType::Date, Values::Int32(v)) => {
            let mut days = spread(v, &present);
            for (row, d) in days.iter_mut().enumerate() {
                if nulls.as_ref().is_some_and(|b| b.is_null(row)) {
                    continue;
                }
                *d = yyyymmdd_to_days(*d).ok_or_else(|| {
                    Error::corrupt(
                        "tsfile",
                        format!(
                            "column {name}, row {row} of the batch: {d} is not a YYYYMMDD date"
                        ),
                    )
                    .at_row(opts.first_row + row as u64)
                })?;
            }
            Arc::new(Date32Array::try_new(days.into(), nulls).map_err(arrow)?)
        }
        (DataType::Int32, Values::Int32(v)) => {
            Arc::new(Int32Array::try_new(spread(v, &present).into(), nulls).map_err(arrow)?)
        }
        (DataType::Timestamp, Values::Int64(v)) => {
            time_array(opts.unit, spread(v, &present), nulls)?
        }
        (DataType::Int64, Values::Int64(v)) => {
            Arc::new(Int64Array::try_new(spread(v, &present).into(), nulls).map_err(arrow)?)
        }
        (DataType::Float, Values::Float(v)) => {
            Arc::new(Float32Array::try_new(spread(v, &present).into(), nulls).map_err(arrow)?)
        }
        (DataType::Double, Values::Double(v)) => {
            Arc::new(Float64Array::try_new(spread(v, &present).into(), nulls).map_err(arrow)?)
        }
        (DataType::Text | DataType::String, Values::Binary(b)) => {
            utf8(&name, b, &present, nulls, opts)?
        }
        (DataType::Blob | DataType::Object, Values::Binary(b)) => {
            let offs = offsets(&b, &present, n)?;
            let data = Buffer::from_vec(b.into_parts().1);
            Arc::new(BinaryArray::try_new(offs, data, nulls).map_err(arrow)?)
        }
        (t, v) => {
            return Err(Error::corrupt(
                "tsfile",
                format!(
                    "column {name}: {t} column holding {:?} values",
                    v.physical()
                ),
            ))
        }
    })
}
