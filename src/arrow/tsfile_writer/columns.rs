//! Arrow columns as the crate's [`Column`]s: times, the packed non-null values of the rows
//! of one device, and the checks a batch passes before anything of it is written.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Float32Type, Float64Type, Int32Type, Int64Type, TimestampMicrosecondType,
    TimestampMillisecondType, TimestampNanosecondType, TimestampSecondType,
};
use std::ops::Range;

use arrow_array::{Array, StringArray};
use arrow_buffer::NullBuffer;
use arrow_schema::{DataType as ArrowType, TimeUnit};

use super::super::tsfile_types::days_to_yyyymmdd;
use super::pending::Rows;
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
    let nulls = time.logical_nulls().filter(|n| n.null_count() > 0);
    if let Some(row) = nulls.and_then(|n| n.iter().position(|valid| !valid)) {
        return Err(Error::invalid(format!(
            "the time column is null in row {row}"
        )));
    }
    Ok(times)
}

/// The times of the rows `parts` (each: a held time column and rows of it).
pub(super) fn gather_times(parts: &[(&dyn Array, &Rows)]) -> Result<Vec<i64>> {
    let mut out = Vec::with_capacity(parts.iter().map(|(_, r)| r.len()).sum());
    for (a, rows) in parts {
        let v = i64_values(*a).ok_or_else(|| Error::invalid("the time column changed type"))?;
        extend_rows(&mut out, v, rows, None)
            .ok_or_else(|| Error::invalid("the time column is shorter than the batch"))?;
    }
    Ok(out)
}

/// Appends the values of `rows` of `v` that `valid` (if any) says are not null; `None` for
/// a row past the end.
fn extend_rows<T: Copy>(
    out: &mut Vec<T>,
    v: &[T],
    rows: &Rows,
    valid: Option<&NullBuffer>,
) -> Option<()> {
    match (rows, valid) {
        (Rows::Run(run), None) => out.extend_from_slice(v.get(run.clone())?),
        _ => {
            for r in rows.iter() {
                if valid.is_none_or(|n| n.is_valid(r)) {
                    out.push(*v.get(r)?);
                }
            }
        }
    }
    Some(())
}

/// The runs of rows `0..n` over which every key column (`None`: absent, null in every row)
/// holds one value, in order.
pub(super) fn key_runs(keys: &[Option<&StringArray>], n: usize) -> Vec<Range<usize>> {
    let mut starts = vec![false; n];
    // Shorter arrays are refused before (a batch's columns have its length).
    for a in keys.iter().flatten().filter(|a| n > 0 && a.len() >= n) {
        let (offsets, data, nulls) = (a.value_offsets(), a.value_data(), a.nulls());
        let value = |r: usize| -> Option<&[u8]> {
            if nulls.is_some_and(|m| m.is_null(r)) {
                return None;
            }
            let (&s, &e) = (offsets.get(r)?, offsets.get(r + 1)?);
            data.get(usize::try_from(s).ok()?..usize::try_from(e).ok()?)
        };
        let mut prev = value(0);
        for (r, start) in starts.iter_mut().enumerate().skip(1) {
            let v = value(r);
            *start |= v != prev;
            prev = v;
        }
    }
    let mut runs = Vec::new();
    let mut begin = 0;
    for (r, &start) in starts.iter().enumerate().skip(1) {
        if start {
            runs.push(begin..r);
            begin = r;
        }
    }
    if n > 0 {
        runs.push(begin..n);
    }
    runs
}

/// Checks that the times of `rows` increase and start after the device's `last` time;
/// gives the last of them.
pub(super) fn check_times(
    device: &DeviceId,
    times: &[i64],
    rows: &Rows,
    last: Option<i64>,
) -> Result<i64> {
    let short = || Error::invalid("the time column is shorter than the batch");
    let (mut prev, mut first) = (last, true);
    let mut check = |t: i64| -> Result<()> {
        if let Some(p) = prev.filter(|&p| t <= p) {
            return Err(Error::invalid(if first {
                format!("device {device}: time {t} is not after the last time written, {p}")
            } else {
                format!("device {device}: times do not increase ({p}, {t})")
            }));
        }
        (prev, first) = (Some(t), false);
        Ok(())
    };
    match rows {
        Rows::Run(run) => {
            let slice = times.get(run.clone()).ok_or_else(short)?;
            // Every pair checked without an early exit, so that the loop vectorises.
            let increasing =
                (slice.iter().zip(slice.iter().skip(1))).fold(true, |ok, (a, b)| ok & (a < b));
            match (slice.first(), slice.last()) {
                (Some(&first), Some(&end)) if increasing => {
                    check(first)?;
                    prev = Some(end);
                }
                _ => slice.iter().try_for_each(|&t| check(t))?,
            }
        }
        Rows::List(list) => {
            for &r in list {
                check(*times.get(r).ok_or_else(short)?)?;
            }
        }
    }
    prev.filter(|_| rows.len() > 0)
        .ok_or_else(|| Error::invalid("no rows"))
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

/// The rows `parts` of a column (each: the column in a held batch, `None` where that batch
/// lacks it, and rows of it) as a column of `data_type`: the non-null values packed, plus
/// the presence mask when some are null. `None` when no batch has the column.
pub(super) fn gather(
    name: &str,
    data_type: DataType,
    parts: &[(Option<&dyn Array>, &Rows)],
) -> Result<Option<Column>> {
    if parts.iter().all(|(a, _)| a.is_none()) {
        return Ok(None);
    }
    let n: usize = parts.iter().map(|(_, r)| r.len()).sum();
    let some_null = parts
        .iter()
        .any(|(a, _)| a.is_none_or(|a| a.logical_null_count() > 0));
    let mut present = Vec::new();
    if some_null {
        present.reserve_exact(n);
        for (a, rows) in parts {
            match a.and_then(|a| a.logical_nulls()) {
                Some(nulls) => present.extend(rows.iter().map(|r| nulls.is_valid(r))),
                None => present.extend(std::iter::repeat_n(a.is_some(), rows.len())),
            }
        }
    }
    let count = if some_null {
        present.iter().filter(|p| **p).count()
    } else {
        n
    };
    let mut values = match data_type {
        DataType::Boolean => Values::Boolean(Vec::with_capacity(count)),
        DataType::Int32 | DataType::Date => Values::Int32(Vec::with_capacity(count)),
        DataType::Int64 | DataType::Timestamp => Values::Int64(Vec::with_capacity(count)),
        DataType::Float => Values::Float(Vec::with_capacity(count)),
        DataType::Double => Values::Double(Vec::with_capacity(count)),
        DataType::Text | DataType::String | DataType::Blob | DataType::Object => {
            let bytes = parts
                .iter()
                .map(|(a, r)| a.map_or(0, |a| byte_len(a, r)))
                .sum();
            Values::Binary(BinaryValues::with_capacity(count, bytes))
        }
        other => return Err(Error::unsupported(format!("column {name}: {other} values"))),
    };
    let wrong = |a: &dyn Array| {
        Error::schema(format!(
            "column {name}: {} does not hold {data_type}",
            a.data_type()
        ))
    };
    let short = || Error::invalid(format!("column {name} is shorter than the batch"));
    for (a, rows) in parts {
        let Some(a) = *a else { continue };
        let nulls = a.logical_nulls();
        let valid = nulls.as_ref();
        let is_valid = |r: usize| valid.is_none_or(|n| n.is_valid(r));
        match (&mut values, data_type) {
            (Values::Boolean(out), _) => {
                let b = a.as_boolean_opt().ok_or_else(|| wrong(a))?;
                out.extend(rows.iter().filter(|&r| is_valid(r)).map(|r| b.value(r)));
            }
            (Values::Int32(out), DataType::Date) => {
                let d = a.as_primitive_opt::<Date32Type>().ok_or_else(|| wrong(a))?;
                for r in rows.iter().filter(|&r| is_valid(r)) {
                    let days = d.values().get(r).copied().ok_or_else(short)?;
                    out.push(date_value(name, r, days)?);
                }
            }
            (Values::Int32(out), _) => {
                let v = a.as_primitive_opt::<Int32Type>().ok_or_else(|| wrong(a))?;
                extend_rows(out, v.values(), rows, valid).ok_or_else(short)?;
            }
            (Values::Int64(out), _) => {
                let v = i64_values(a).ok_or_else(|| wrong(a))?;
                extend_rows(out, v, rows, valid).ok_or_else(short)?;
            }
            (Values::Float(out), _) => {
                let v = a
                    .as_primitive_opt::<Float32Type>()
                    .ok_or_else(|| wrong(a))?;
                extend_rows(out, v.values(), rows, valid).ok_or_else(short)?;
            }
            (Values::Double(out), _) => {
                let v = a
                    .as_primitive_opt::<Float64Type>()
                    .ok_or_else(|| wrong(a))?;
                extend_rows(out, v.values(), rows, valid).ok_or_else(short)?;
            }
            (Values::Binary(out), _) => {
                let (data, offsets) = match (data_type, a.as_string_opt::<i32>()) {
                    (DataType::Text | DataType::String, Some(s)) => {
                        (s.value_data(), s.value_offsets())
                    }
                    (DataType::Blob | DataType::Object, _) => {
                        let b = a.as_binary_opt::<i32>().ok_or_else(|| wrong(a))?;
                        (b.value_data(), b.value_offsets())
                    }
                    _ => return Err(wrong(a)),
                };
                extend_binary(out, data, offsets, rows, valid).ok_or_else(short)?;
            }
        }
    }
    Ok(Some(Column {
        name: name.to_owned(),
        data_type,
        values,
        present: if count == n { Vec::new() } else { present },
    }))
}

/// Appends the values of `rows` of Arrow byte strings (`data`, `offsets`) that `valid` (if
/// any) says are not null; a run without nulls is copied in one piece. `None` for a row
/// past the end or bad offsets.
fn extend_binary(
    out: &mut BinaryValues,
    data: &[u8],
    offsets: &[i32],
    rows: &Rows,
    valid: Option<&NullBuffer>,
) -> Option<()> {
    if let (Rows::Run(run), None) = (rows, valid) {
        return out
            .extend_from_offsets(data, offsets.get(run.start..run.end + 1)?)
            .ok();
    }
    for r in rows.iter().filter(|&r| valid.is_none_or(|n| n.is_valid(r))) {
        let (a, b) = (*offsets.get(r)?, *offsets.get(r + 1)?);
        out.push(data.get(usize::try_from(a).ok()?..usize::try_from(b).ok()?)?);
    }
    Some(())
}

/// Bytes of the values of `rows` of a string or binary array (0 for other arrays).
fn byte_len(a: &dyn Array, rows: &Rows) -> usize {
    let offsets = match (a.as_string_opt::<i32>(), a.as_binary_opt::<i32>()) {
        (Some(s), _) => s.value_offsets(),
        (_, Some(b)) => b.value_offsets(),
        _ => return 0,
    };
    let at = |r: usize| offsets.get(r).map_or(0, |&o| o.max(0) as usize);
    match rows {
        Rows::Run(run) => at(run.end).saturating_sub(at(run.start)),
        Rows::List(l) => l.iter().map(|&r| at(r + 1).saturating_sub(at(r))).sum(),
    }
}

/// A DATE value (days from 1970) as TsFile's `yyyymmdd`.
fn date_value(name: &str, row: usize, days: i32) -> Result<i32> {
    days_to_yyyymmdd(days).ok_or_else(|| {
        Error::invalid(format!(
            "column {name}, row {row}: {days} days from 1970 is outside years 0-9999"
        ))
        .at_row(row as u64)
    })
}

/// Checks that every non-null value of a DATE column is within years 0–9999.
pub(super) fn check_dates(name: &str, array: &dyn Array) -> Result<()> {
    let Some(d) = array.as_primitive_opt::<Date32Type>() else {
        return Ok(());
    };
    for (row, days) in d.iter().enumerate() {
        if let Some(days) = days {
            date_value(name, row, days)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::key_runs;
    use arrow_array::StringArray;

    #[test]
    fn runs_end_where_any_key_changes_nulls_included() {
        let a = StringArray::from(vec![Some("x"), Some("x"), None, None, Some("x"), Some("")]);
        let b = StringArray::from(vec![
            Some("1"),
            Some("2"),
            Some("2"),
            Some("2"),
            Some("2"),
            None,
        ]);
        let runs = key_runs(&[Some(&a), Some(&b), None], 6);
        assert_eq!(runs, vec![0..1, 1..2, 2..4, 4..5, 5..6]);
        // A slice compares its own rows.
        let s = a.slice(2, 3);
        assert_eq!(key_runs(&[Some(&s)], 3), vec![0..2, 2..3]);
        assert_eq!(key_runs(&[None], 4), vec![0..4]);
        assert!(key_runs(&[Some(&a)], 0).is_empty());
    }
}
