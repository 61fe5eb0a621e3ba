//! Arrow arrays to Hive [`Value`]s, one row at a time, for the RCFile writer: every Arrow
//! type that [`arrow_schema_to_hive`](super::arrow_schema_to_hive) maps, including large,
//! view and dictionary-encoded strings, other timestamp units and decimal widths.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type,
    Int16Type, Int32Type, Int64Type, Int8Type, TimestampMicrosecondType, TimestampMillisecondType,
    TimestampNanosecondType, TimestampSecondType,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, TimeUnit};

use crate::rcfile::{Date, Decimal, HiveType, Timestamp, Value};
use crate::{Error, Result};

/// Row `row` of `array` as a value of Hive type `ty` ([`Value::Null`] where it is null).
pub(super) fn value_at(array: &dyn Array, row: usize, ty: &HiveType) -> Result<Value> {
    if row >= array.len() {
        return Err(Error::invalid(format!("row {row} past the array's end")));
    }
    if array.is_null(row) {
        return Ok(Value::Null);
    }
    if let Some(d) = array.as_any_dictionary_opt() {
        let keys = d.normalized_keys();
        let k = *keys
            .get(row)
            .ok_or_else(|| Error::invalid("dictionary key past the end"))?;
        return value_at(d.values().as_ref(), k, ty);
    }
    let mismatch = || {
        Error::schema(format!(
            "an Arrow {} column cannot be written as Hive {ty}",
            array.data_type()
        ))
    };
    Ok(match (ty, array.data_type()) {
        (HiveType::Boolean, DataType::Boolean) => Value::Boolean(array.as_boolean().value(row)),
        (HiveType::TinyInt, DataType::Int8) => {
            Value::TinyInt(array.as_primitive::<Int8Type>().value(row))
        }
        (HiveType::SmallInt, DataType::Int16) => {
            Value::SmallInt(array.as_primitive::<Int16Type>().value(row))
        }
        (HiveType::Int, DataType::Int32) => {
            Value::Int(array.as_primitive::<Int32Type>().value(row))
        }
        (HiveType::BigInt, DataType::Int64) => {
            Value::BigInt(array.as_primitive::<Int64Type>().value(row))
        }
        (HiveType::Float, DataType::Float32) => {
            Value::Float(array.as_primitive::<Float32Type>().value(row))
        }
        (HiveType::Double, DataType::Float64) => {
            Value::Double(array.as_primitive::<Float64Type>().value(row))
        }
        (HiveType::String | HiveType::Varchar(_) | HiveType::Char(_), _) => {
            Value::String(bytes_at(array, row).ok_or_else(mismatch)?.to_vec())
        }
        (HiveType::Binary, _) => Value::Binary(bytes_at(array, row).ok_or_else(mismatch)?.to_vec()),
        (HiveType::Date, DataType::Date32) => {
            Value::Date(Date(array.as_primitive::<Date32Type>().value(row)))
        }
        (HiveType::Date, DataType::Date64) => {
            let days = array
                .as_primitive::<Date64Type>()
                .value(row)
                .div_euclid(86_400_000);
            Value::Date(Date(i32::try_from(days).map_err(|_| mismatch())?))
        }
        (HiveType::Timestamp, DataType::Timestamp(unit, _)) => {
            let v = timestamp_values(array, *unit)
                .get(row)
                .ok_or_else(mismatch)?;
            Value::Timestamp(timestamp(*v, *unit))
        }
        (HiveType::Decimal { precision, scale }, t) => {
            let (unscaled, s) = match t {
                DataType::Decimal32(_, s) => (
                    i128::from(array.as_primitive::<Decimal32Type>().value(row)),
                    *s,
                ),
                DataType::Decimal64(_, s) => (
                    i128::from(array.as_primitive::<Decimal64Type>().value(row)),
                    *s,
                ),
                DataType::Decimal128(_, s) => {
                    (array.as_primitive::<Decimal128Type>().value(row), *s)
                }
                _ => return Err(mismatch()),
            };
            let from = u8::try_from(s).map_err(|_| mismatch())?;
            fit_decimal(unscaled, from, *precision, *scale).map_or(Value::Null, Value::Decimal)
        }
        (HiveType::Array(item), _) => {
            let child = list_child(array, row).ok_or_else(mismatch)?;
            let mut out = Vec::with_capacity(child.len());
            for i in 0..child.len() {
                out.push(value_at(child.as_ref(), i, item)?);
            }
            Value::Array(out)
        }
        (HiveType::Map(kt, vt), DataType::Map(..)) => {
            let entries = array.as_map().value(row);
            let (keys, values) = (entries.column(0), entries.column(1));
            let mut out = Vec::with_capacity(entries.len());
            for i in 0..entries.len() {
                out.push((value_at(keys, i, kt)?, value_at(values, i, vt)?));
            }
            Value::Map(out)
        }
        (HiveType::Struct(fields), DataType::Struct(_)) => {
            let s = array.as_struct();
            if s.num_columns() != fields.len() {
                return Err(mismatch());
            }
            let mut out = Vec::with_capacity(fields.len());
            for (c, f) in s.columns().iter().zip(fields) {
                out.push(value_at(c.as_ref(), row, &f.ty)?);
            }
            Value::Struct(out)
        }
        (HiveType::Union(members), DataType::Union(..)) => {
            let u = array.as_union();
            let id = u.type_id(row);
            let member = usize::try_from(id)
                .ok()
                .and_then(|i| members.get(i))
                .ok_or_else(mismatch)?;
            let value = value_at(u.child(id).as_ref(), u.value_offset(row), member)?;
            Value::Union {
                tag: u8::try_from(id).map_err(|_| mismatch())?,
                value: Box::new(value),
            }
        }
        _ => return Err(mismatch()),
    })
}

/// [`value_at`] into `slot`, reusing the room of the string or binary value it holds: no
/// allocation a cell for a column of strings.
pub(super) fn value_into(
    array: &dyn Array,
    row: usize,
    ty: &HiveType,
    slot: &mut Value,
) -> Result<()> {
    let text = matches!(
        ty,
        HiveType::String | HiveType::Varchar(_) | HiveType::Char(_)
    );
    if (text || *ty == HiveType::Binary) && row < array.len() && !array.is_null(row) {
        if let Some(b) = bytes_at(array, row) {
            match slot {
                Value::String(v) if text => v.clear(),
                Value::Binary(v) if !text => v.clear(),
                _ if text => *slot = Value::String(Vec::new()),
                _ => *slot = Value::Binary(Vec::new()),
            }
            if let Value::String(v) | Value::Binary(v) = slot {
                v.extend_from_slice(b);
            }
            return Ok(());
        }
    }
    *slot = value_at(array, row, ty)?;
    Ok(())
}

/// The bytes of row `row` of any string or binary array.
fn bytes_at(array: &dyn Array, row: usize) -> Option<&[u8]> {
    Some(match array.data_type() {
        DataType::Utf8 => array.as_string::<i32>().value(row).as_bytes(),
        DataType::LargeUtf8 => array.as_string::<i64>().value(row).as_bytes(),
        DataType::Utf8View => array.as_string_view().value(row).as_bytes(),
        DataType::Binary => array.as_binary::<i32>().value(row),
        DataType::LargeBinary => array.as_binary::<i64>().value(row),
        DataType::BinaryView => array.as_binary_view().value(row),
        DataType::FixedSizeBinary(_) => array.as_fixed_size_binary().value(row),
        _ => return None,
    })
}

/// The elements of row `row` of any list array.
fn list_child(array: &dyn Array, row: usize) -> Option<ArrayRef> {
    Some(match array.data_type() {
        DataType::List(_) => array.as_list::<i32>().value(row),
        DataType::LargeList(_) => array.as_list::<i64>().value(row),
        DataType::FixedSizeList(..) => array.as_fixed_size_list().value(row),
        _ => return None,
    })
}

/// The values of an Arrow timestamp array of `unit` (counts of it since the epoch).
pub(super) fn timestamp_values(array: &dyn Array, unit: TimeUnit) -> &[i64] {
    match unit {
        TimeUnit::Second => array.as_primitive::<TimestampSecondType>().values(),
        TimeUnit::Millisecond => array.as_primitive::<TimestampMillisecondType>().values(),
        TimeUnit::Microsecond => array.as_primitive::<TimestampMicrosecondType>().values(),
        TimeUnit::Nanosecond => array.as_primitive::<TimestampNanosecondType>().values(),
    }
}

/// An Arrow decimal of scale `from` as a Hive `decimal(precision, scale)` column holds it:
/// `None` (NULL, as in Hive) where it does not fit the column.
pub(super) fn fit_decimal(unscaled: i128, from: u8, precision: u8, scale: u8) -> Option<Decimal> {
    Decimal::new(unscaled, from).and_then(|d| d.round_to(precision, scale))
}

/// An Arrow timestamp in `unit` as a Hive timestamp (wall clock, no zone).
pub(super) fn timestamp(v: i64, unit: TimeUnit) -> Timestamp {
    let per_second: i64 = match unit {
        TimeUnit::Second => 1,
        TimeUnit::Millisecond => 1_000,
        TimeUnit::Microsecond => 1_000_000,
        TimeUnit::Nanosecond => 1_000_000_000,
    };
    let nanos = v.rem_euclid(per_second) * (1_000_000_000 / per_second);
    Timestamp {
        seconds: v.div_euclid(per_second),
        nanos: u32::try_from(nanos).unwrap_or(0),
    }
}
