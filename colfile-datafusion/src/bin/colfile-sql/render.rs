//! Timestamps that Arrow's writers cannot print. A TsFile time is any i64 (`i64::MIN` and
//! `i64::MAX` included) and stays exact in the table, but Arrow's CSV, JSON and table
//! writers go through a calendar that ends about 262,000 years from 1970: past it they
//! print an error message in place of the value (the JSON writer even unquoted). A column
//! holding such a value is printed as text instead, each value in ISO 8601 with an
//! expanded year where needed (`-292275055-05-16T16:47:04.192Z`), the form Java's
//! `Instant` uses; values inside the calendar read exactly as Arrow prints them.

use std::sync::Arc;

use arrow_array::cast::AsArray;
use arrow_array::types::ArrowTimestampType;
use arrow_array::types::{
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{Array, ArrayRef, PrimitiveArray, RecordBatch, StringArray};
use arrow_schema::{ArrowError, DataType, Field, Schema, TimeUnit};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};

/// `batches` with every timestamp column that holds a value outside the calendar (in any
/// batch) turned into text, in every batch, so that all batches keep one schema.
pub fn printable(batches: Vec<RecordBatch>) -> Result<Vec<RecordBatch>, ArrowError> {
    let Some(first) = batches.first() else {
        return Ok(batches);
    };
    let schema = first.schema();
    let wide: Vec<usize> = (0..schema.fields().len())
        .filter(|&i| {
            batches
                .iter()
                .any(|b| b.num_columns() > i && !printable_column(b.column(i)))
        })
        .collect();
    if wide.is_empty() {
        return Ok(batches);
    }
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .enumerate()
        .map(|(i, f)| {
            if wide.contains(&i) {
                Field::new(f.name(), DataType::Utf8, f.is_nullable())
                    .with_metadata(f.metadata().clone())
            } else {
                f.as_ref().clone()
            }
        })
        .collect();
    let out = Arc::new(Schema::new_with_metadata(fields, schema.metadata().clone()));
    batches
        .iter()
        .map(|b| {
            let columns = b
                .columns()
                .iter()
                .enumerate()
                .map(|(i, c)| {
                    if wide.contains(&i) {
                        as_text(c)
                    } else {
                        Ok(c.clone())
                    }
                })
                .collect::<Result<Vec<ArrayRef>, ArrowError>>()?;
            RecordBatch::try_new(out.clone(), columns)
        })
        .collect()
}

/// Whether every value of `array` can go through Arrow's own formatting.
fn printable_column(array: &ArrayRef) -> bool {
    fn all_fit<T: ArrowTimestampType>(a: &ArrayRef) -> bool {
        let a: &PrimitiveArray<T> = a.as_primitive();
        a.iter()
            .all(|v| v.is_none_or(|v| a_date_time::<T>(v).is_some()))
    }
    match array.data_type() {
        DataType::Timestamp(TimeUnit::Second, _) => all_fit::<TimestampSecondType>(array),
        DataType::Timestamp(TimeUnit::Millisecond, _) => all_fit::<TimestampMillisecondType>(array),
        DataType::Timestamp(TimeUnit::Microsecond, _) => all_fit::<TimestampMicrosecondType>(array),
        DataType::Timestamp(TimeUnit::Nanosecond, _) => all_fit::<TimestampNanosecondType>(array),
        _ => true,
    }
}

fn a_date_time<T: ArrowTimestampType>(v: i64) -> Option<()> {
    arrow_array::temporal_conversions::as_datetime::<T>(v).map(|_| ())
}

/// A timestamp column as text: Arrow's form where it has one, the expanded form elsewhere.
fn as_text(array: &ArrayRef) -> Result<ArrayRef, ArrowError> {
    let DataType::Timestamp(unit, tz) = array.data_type() else {
        return Ok(array.clone());
    };
    let options = FormatOptions::default().with_display_error(false);
    let formatter = ArrayFormatter::try_new(array.as_ref(), &options)?;
    let raw = |i: usize| -> i64 {
        match unit {
            TimeUnit::Second => array.as_primitive::<TimestampSecondType>().value(i),
            TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().value(i),
            TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().value(i),
            TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().value(i),
        }
    };
    let zone = tz.is_some();
    let values: Vec<Option<String>> = (0..array.len())
        .map(|i| {
            if array.is_null(i) {
                return None;
            }
            let mut s = String::new();
            match formatter.value(i).write(&mut s) {
                Ok(()) => Some(s),
                Err(_) => Some(expanded(raw(i), *unit, zone)),
            }
        })
        .collect();
    Ok(Arc::new(StringArray::from(values)))
}

/// `v` units after 1970-01-01T00:00:00 in ISO 8601, the year expanded (signed, at least
/// four digits) and the fraction with 3, 6 or 9 digits as needed, `Z` when zoned.
pub fn expanded(v: i64, unit: TimeUnit, zone: bool) -> String {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let secs = v.div_euclid(per_second);
    let frac = v.rem_euclid(per_second);
    let nanos = frac * (1_000_000_000 / per_second);
    let days = secs.div_euclid(86_400);
    let sod = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let year = if (0..=9999).contains(&y) {
        format!("{y:04}")
    } else if y < 0 {
        format!("-{:04}", y.unsigned_abs())
    } else {
        format!("+{y:04}")
    };
    let mut s = format!(
        "{year}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod % 3600 / 60,
        sod % 60
    );
    if nanos != 0 {
        if nanos % 1_000_000 == 0 {
            s += &format!(".{:03}", nanos / 1_000_000);
        } else if nanos % 1_000 == 0 {
            s += &format!(".{:06}", nanos / 1_000);
        } else {
            s += &format!(".{nanos:09}");
        }
    }
    if zone {
        s.push('Z');
    }
    s
}

/// (year, month, day) of the proleptic Gregorian calendar, `days` after 1970-01-01: the
/// era arithmetic of 400-year cycles (146,097 days), exact over the whole i64 range of
/// seconds / 86,400.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = i128::from(days) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097); // [0, 146096]
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365; // [0, 399]
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100); // [0, 365]
    let mp = (5 * doy + 2) / 153; // [0, 11], March first
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i128::from(m <= 2);
    (y as i64, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_array::TimestampMillisecondArray;

    #[test]
    fn expanded_years_match_java_instant() {
        // Java: Instant.ofEpochMilli(Long.MIN_VALUE / MAX_VALUE).
        assert_eq!(
            expanded(i64::MIN, TimeUnit::Millisecond, true),
            "-292275055-05-16T16:47:04.192Z"
        );
        assert_eq!(
            expanded(i64::MAX, TimeUnit::Millisecond, true),
            "+292278994-08-17T07:12:55.807Z"
        );
        assert_eq!(expanded(0, TimeUnit::Second, false), "1970-01-01T00:00:00");
        assert_eq!(
            expanded(-1, TimeUnit::Nanosecond, true),
            "1969-12-31T23:59:59.999999999Z"
        );
        assert_eq!(
            expanded(951_782_400, TimeUnit::Second, true),
            "2000-02-29T00:00:00Z"
        );
    }

    #[test]
    fn in_calendar_values_print_as_arrow_prints_them() {
        let a: ArrayRef = Arc::new(
            TimestampMillisecondArray::from(vec![
                Some(1),
                None,
                Some(i64::MIN),
                Some(1_700_000_000_000),
            ])
            .with_timezone("UTC"),
        );
        assert!(!printable_column(&a));
        let t = as_text(&a).unwrap();
        let t = t.as_string::<i32>();
        assert_eq!(t.value(0), "1970-01-01T00:00:00.001Z");
        assert!(t.is_null(1));
        assert_eq!(t.value(2), "-292275055-05-16T16:47:04.192Z");
        assert_eq!(t.value(3), "2023-11-14T22:13:20Z");
    }
}
