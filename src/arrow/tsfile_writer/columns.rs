//! Arrow columns as the crate's [`Column`]s: times, the packed non-null values of the rows
//! of one device, and the checks a batch passes before anything of it is written.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::Array;
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::super::tsfile_types::days_to_yyyymmdd;
use crate::tsfile::format::{DataType, DeviceId};
use crate::tsfile::{BinaryValues, Column, Values};
use crate::{Error, Result};

/// The times of a batch's time column (`None`: the batch has none): non-null 64-bit values.
///
/// Errors: no time column, one of another type, a null time.
pub(super) fn time_values(time: Option<&dyn Array>) -> Result<&[i64]> {
    let time = time.ok_or_else(|| Error::schema("the batch has no time column"))?;
    let times = i64_values(time).ok_or_else(|| {
        Error::schema(format!(
            "the time column is {}, not a timestamp or Int64",
            time.data_type()
        ))
    })?;
    if let Some(row) = (0..time.len()).find(|&r| time.is_null(r)) {
        return Err(Error::invalid(format!(
            "the time column is null in row {row}"
        )));
    }
    Ok(times)
}

/// Rows `rows` of `times`.
pub(super) fn pick_times(times: &[i64], rows: &[usize]) -> Result<Vec<i64>> {
    pick(times, rows).ok_or_else(|| Error::invalid("the time column is shorter than the batch"))
}

/// The run `rows` covers when its rows follow one another (a device's rows in a batch
/// sorted by device, the common case), to be copied as one slice.
fn contiguous(rows: &[usize]) -> Option<std::ops::Range<usize>> {
    match (rows.first(), rows.last()) {
        (Some(&a), Some(&b)) if b >= a && b - a + 1 == rows.len() => Some(a..b + 1),
        _ => None,
    }
}

/// Byte strings `rows`, packed into buffers sized once.
fn packed<'a>(rows: &[usize], value: impl Fn(usize) -> &'a [u8]) -> BinaryValues {
    let bytes = rows.iter().map(|&r| value(r).len()).sum();
    let mut out = BinaryValues::with_capacity(rows.len(), bytes);
    for &r in rows {
        out.push(value(r));
    }
    out
}

/// Values `rows` of `v` (`None`: a row past the end).
fn pick<T: Copy>(v: &[T], rows: &[usize]) -> Option<Vec<T>> {
    if let Some(run) = contiguous(rows) {
        return v.get(run).map(<[T]>::to_vec);
    }
    let mut out = Vec::with_capacity(rows.len());
    for &r in rows {
        out.push(*v.get(r)?);
    }
    Some(out)
}

/// Times that increase within the batch and start after the device's `last` time.
pub(super) fn check_times(device: &DeviceId, times: &[i64], last: Option<i64>) -> Result<()> {
    if let Some(w) = times.windows(2).find(|w| !matches!(w, [a, b] if a < b)) {
        return Err(Error::invalid(format!(
            "device {device}: times do not increase ({w:?})"
        )));
    }
    if let (Some(last), Some(&first)) = (last, times.first()) {
        if first <= last {
            return Err(Error::invalid(format!(
                "device {device}: time {first} is not after the last time written, {last}"
            )));
        }
    }
    Ok(())
}

/// The raw 64-bit values of an `Int64` or timestamp array.
pub(super) fn i64_values(a: &dyn Array) -> Option<&[i64]> {
    Some(match a.data_type() {
        ArrowType::Int64 => a.as_primitive_opt::<Int64Type>()?.values(),
        ArrowType::Timestamp(TimeUnit::Second, _) => {
            a.as_primitive_opt::<TimestampSecondType>()?.values()
        }
        ArrowType::Timestamp(TimeUnit::Millisecond, _) => {
            a.as_primitive_opt::<TimestampMillisecondType>()?.values()
        }
        ArrowType::Timestamp(TimeUnit::Microsecond, _) => {
            a.as_primitive_opt::<TimestampMicrosecondType>()?.values()
        }
        ArrowType::Timestamp(TimeUnit::Nanosecond, _) => {
            a.as_primitive_opt::<TimestampNanosecondType>()?.values()
        }
        _ => return None,
    })
}

/// Rows `rows` of `array` as a column of `data_type`: the non-null values packed, plus the
/// presence mask when some are null.
pub(super) fn gather(
    name: &str,
    data_type: DataType,
    array: &dyn Array,
    rows: &[usize],
) -> Result<Column> {
    // Without nulls every row is a value (no copy of the row list, no mask).
    let some_null: Vec<usize>;
    let (valid, present): (&[usize], Vec<bool>) = if array.null_count() == 0 {
        (rows, Vec::new())
    } else {
        some_null = rows
            .iter()
            .copied()
            .filter(|&r| array.is_valid(r))
            .collect();
        let present = if some_null.len() == rows.len() {
            Vec::new()
        } else {
            rows.iter().map(|&r| array.is_valid(r)).collect()
        };
        (&some_null, present)
    };
    let wrong = || {
        Error::schema(format!(
            "column {name}: {} does not hold {data_type}",
            array.data_type()
        ))
    };
    let short = || Error::invalid(format!("column {name} is shorter than the batch"));
    let values = match data_type {
        DataType::Boolean => {
            let a = array.as_boolean_opt().ok_or_else(wrong)?;
            Values::Boolean(valid.iter().map(|&r| a.value(r)).collect())
        }
        DataType::Int32 => {
            let a = array.as_primitive_opt::<Int32Type>().ok_or_else(wrong)?;
            Values::Int32(pick(a.values(), valid).ok_or_else(short)?)
        }
        DataType::Date => {
            let a = array.as_primitive_opt::<Date32Type>().ok_or_else(wrong)?;
            let mut v = Vec::with_capacity(valid.len());
            for &r in valid {
                let days = a.values().get(r).copied().ok_or_else(short)?;
                v.push(days_to_yyyymmdd(days).ok_or_else(|| {
                    Error::invalid(format!(
                        "column {name}, row {r}: {days} days from 1970 is outside years 0-9999"
                    ))
                    .at_row(r as u64)
                })?);
            }
            Values::Int32(v)
        }
        DataType::Int64 | DataType::Timestamp => {
            Values::Int64(pick(i64_values(array).ok_or_else(wrong)?, valid).ok_or_else(short)?)
        }
        DataType::Float => {
            let a = array.as_primitive_opt::<Float32Type>().ok_or_else(wrong)?;
            Values::Float(pick(a.values(), valid).ok_or_else(short)?)
        }
        DataType::Double => {
            let a = array.as_primitive_opt::<Float64Type>().ok_or_else(wrong)?;
            Values::Double(pick(a.values(), valid).ok_or_else(short)?)
        }
        DataType::Text | DataType::String => {
            let a = array.as_string_opt::<i32>().ok_or_else(wrong)?;
            Values::Binary(packed(valid, |r| a.value(r).as_bytes()))
        }
        DataType::Blob | DataType::Object => {
            let a = array.as_binary_opt::<i32>().ok_or_else(wrong)?;
            Values::Binary(packed(valid, |r| a.value(r)))
        }
        other => return Err(Error::unsupported(format!("column {name}: {other} values"))),
    };
    Ok(Column {
        name: name.to_owned(),
        data_type,
        values,
        present,
    })
}
