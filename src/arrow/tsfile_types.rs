//! The TsFile <-> Arrow type mapping of the [module docs](super#tsfile-types): table schemas
//! and tree-model measurements to Arrow schemas, Arrow schemas back to table schemas, and
//! DATE's `YYYYMMDD` to and from Arrow's days since the epoch.

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType as ArrowType, Field, Schema, SchemaRef, TimeUnit};

use crate::tsfile::format::schema::{TableColumn, TableSchema};
use crate::tsfile::format::{ColumnCategory, DataType};
use crate::tsfile::writer::Profile;
use crate::{Error, Result};

/// Field metadata key holding a column's TsFile data type name (`INT64`, `TEXT`, `BLOB`, …).
/// [`arrow_schema_to_tsfile`] reads it to choose `TEXT` over `STRING` and `OBJECT` over
/// `BLOB`.
pub const TSFILE_TYPE_KEY: &str = "tsfile.type";

/// Field metadata key holding a column's category: `TAG`, `FIELD`, or `TIME` for the time
/// column. [`arrow_schema_to_tsfile`] reads it (absent means `FIELD`).
pub const TSFILE_CATEGORY_KEY: &str = "tsfile.category";

/// The name of the time column in the Arrow schemas of this module.
pub(crate) const TIME_COLUMN: &str = "time";

/// The name of the device column of tree-model schemas.
pub(crate) const DEVICE_COLUMN: &str = "device";

/// The Arrow type of values of `data_type` (see the mapping table); TIMESTAMP uses `unit`.
///
/// Errors: [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for VECTOR and UNKNOWN,
/// which hold no values.
pub(crate) fn tsfile_type_to_arrow(data_type: DataType, unit: TimeUnit) -> Result<ArrowType> {
    Ok(match data_type {
        DataType::Boolean => ArrowType::Boolean,
        DataType::Int32 => ArrowType::Int32,
        DataType::Int64 => ArrowType::Int64,
        DataType::Float => ArrowType::Float32,
        DataType::Double => ArrowType::Float64,
        DataType::Text | DataType::String => ArrowType::Utf8,
        DataType::Blob | DataType::Object => ArrowType::Binary,
        DataType::Date => ArrowType::Date32,
        DataType::Timestamp => timestamp_type(unit),
        other => {
            return Err(Error::unsupported(format!(
                "TsFile {other} columns have no Arrow type"
            )))
        }
    })
}

/// `Timestamp(unit, "UTC")`: the time column's and TIMESTAMP columns' type.
pub(crate) fn timestamp_type(unit: TimeUnit) -> ArrowType {
    ArrowType::Timestamp(unit, Some("UTC".into()))
}

/// Whether an Arrow column of type `arrow` may be written to a TsFile column of
/// `data_type`: the mapping's type, with a timestamp of any unit or zone.
pub(crate) fn arrow_fits(data_type: DataType, arrow: &ArrowType) -> bool {
    matches!(
        (data_type, arrow),
        (DataType::Boolean, ArrowType::Boolean)
            | (DataType::Int32, ArrowType::Int32)
            | (DataType::Int64, ArrowType::Int64)
            | (DataType::Float, ArrowType::Float32)
            | (DataType::Double, ArrowType::Float64)
            | (DataType::Text | DataType::String, ArrowType::Utf8)
            | (DataType::Blob | DataType::Object, ArrowType::Binary)
            | (DataType::Date, ArrowType::Date32)
            | (DataType::Timestamp, ArrowType::Timestamp(_, _))
    )
}

fn field(name: &str, t: ArrowType, nullable: bool, ts_type: &str, category: &str) -> Field {
    let meta = HashMap::from([
        (TSFILE_TYPE_KEY.to_owned(), ts_type.to_owned()),
        (TSFILE_CATEGORY_KEY.to_owned(), category.to_owned()),
    ]);
    Field::new(name, t, nullable).with_metadata(meta)
}

/// The non-null time column of TsFile schemas: `time`, `Timestamp(unit, "UTC")`, with type
/// `TIMESTAMP` and category `TIME` in its metadata.
///
/// ```
/// use arrow_schema::TimeUnit;
/// let f = colfile::arrow::tsfile_time_field(TimeUnit::Millisecond);
/// assert_eq!(f.name(), "time");
/// assert!(!f.is_nullable());
/// ```
pub fn tsfile_time_field(unit: TimeUnit) -> Field {
    field(
        TIME_COLUMN,
        timestamp_type(unit),
        false,
        "TIMESTAMP",
        "TIME",
    )
}

/// The selected columns of `schema`: every TAG and FIELD column (in table order), or those
/// named in `columns` (case-insensitive), still in table order.
///
/// Errors: [`ErrorKind::Schema`](crate::ErrorKind::Schema) naming a selected column that is
/// not a TAG or FIELD column of the table.
pub(crate) fn selected_columns<'s>(
    schema: &'s TableSchema,
    columns: Option<&[String]>,
) -> Result<Vec<&'s TableColumn>> {
    let usable =
        |c: &&TableColumn| matches!(c.category, ColumnCategory::Tag | ColumnCategory::Field);
    if let Some(cols) = columns {
        for c in cols {
            if !schema
                .columns
                .iter()
                .filter(usable)
                .any(|x| x.schema.name.eq_ignore_ascii_case(c))
            {
                return Err(Error::schema(format!(
                    "table {} has no TAG or FIELD column {c}",
                    schema.name
                )));
            }
        }
    }
    let wanted = |c: &&TableColumn| {
        columns.is_none_or(|cols| cols.iter().any(|n| n.eq_ignore_ascii_case(&c.schema.name)))
    };
    Ok(schema
        .columns
        .iter()
        .filter(usable)
        .filter(wanted)
        .collect())
}

/// The Arrow schema of a table-model read: `time`, then the selected TAG and FIELD columns
/// (all of them, or those in `columns`, matched without regard to case) in table order.
/// ATTRIBUTE and TIME-category columns are left out. TIMESTAMP columns and the time column
/// are `Timestamp(unit, "UTC")`; `unit` only says how to read the stored integers (TsFile
/// does not record it), values are never rescaled.
///
/// ```
/// use arrow_schema::{DataType, TimeUnit};
/// use colfile::arrow::{tsfile_table_to_arrow, TSFILE_CATEGORY_KEY};
/// use colfile::tsfile::format::schema::{TableColumn, TableSchema};
/// use colfile::tsfile::format::{ColumnCategory, DataType as Ts};
/// let table = TableSchema::new("weather", vec![
///     TableColumn::new("city", Ts::String, ColumnCategory::Tag),
///     TableColumn::new("temp", Ts::Double, ColumnCategory::Field),
/// ]);
/// let schema = tsfile_table_to_arrow(&table, None, TimeUnit::Millisecond)?;
/// assert_eq!(schema.field(0).name(), "time");
/// assert_eq!(schema.field(1).metadata()[TSFILE_CATEGORY_KEY], "TAG");
/// assert_eq!(schema.field(2).data_type(), &DataType::Float64);
/// # Ok::<(), colfile::Error>(())
/// ```
///
/// Errors: [`ErrorKind::Schema`](crate::ErrorKind::Schema) for a selected column the table
/// lacks; [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for a column type without
/// values (VECTOR, UNKNOWN).
pub fn tsfile_table_to_arrow(
    schema: &TableSchema,
    columns: Option<&[String]>,
    unit: TimeUnit,
) -> Result<SchemaRef> {
    let mut fields = vec![tsfile_time_field(unit)];
    for c in selected_columns(schema, columns)? {
        let dt = c.schema.data_type;
        let (t, nullable) = match c.category {
            ColumnCategory::Tag => (ArrowType::Utf8, true),
            _ => (tsfile_type_to_arrow(dt, unit)?, true),
        };
        fields.push(field(
            &c.schema.name,
            t,
            nullable,
            dt.name(),
            c.category.name(),
        ));
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// The Arrow schema of a tree-model read: `device` (the full path, non-null Utf8), `time`,
/// then one nullable FIELD column per measurement.
pub(crate) fn tree_to_arrow(
    measurements: &[(String, DataType)],
    unit: TimeUnit,
) -> Result<SchemaRef> {
    let mut fields = vec![
        field(DEVICE_COLUMN, ArrowType::Utf8, false, "STRING", "TAG"),
        tsfile_time_field(unit),
    ];
    for (name, dt) in measurements {
        let t = tsfile_type_to_arrow(*dt, unit)?;
        fields.push(field(name, t, true, dt.name(), "FIELD"));
    }
    Ok(Arc::new(Schema::new(fields)))
}

/// The table schema that an Arrow schema describes, the reverse of
/// [`tsfile_table_to_arrow`]: the field named `time` (any case) or of category `TIME` is the
/// time column and is left out; every other field is a column whose category comes from
/// [`TSFILE_CATEGORY_KEY`] (`TAG` or `FIELD`, absent = `FIELD`) and whose type is the
/// mapping's, with [`TSFILE_TYPE_KEY`] choosing `TEXT` (else `STRING`) for `Utf8` and
/// `OBJECT` (else `BLOB`) for `Binary`. Columns get the portable profile's default encoding
/// and LZ4 compression; names are lower-cased.
///
/// ```
/// use arrow_schema::{DataType, Field, Schema, TimeUnit};
/// use colfile::arrow::{arrow_schema_to_tsfile, TSFILE_CATEGORY_KEY};
/// use colfile::tsfile::format::{ColumnCategory, DataType as Ts};
/// let tag = std::collections::HashMap::from([(TSFILE_CATEGORY_KEY.to_string(), "TAG".to_string())]);
/// let schema = Schema::new(vec![
///     Field::new("time", DataType::Timestamp(TimeUnit::Millisecond, None), false),
///     Field::new("City", DataType::Utf8, true).with_metadata(tag),
///     Field::new("temp", DataType::Float64, true),
/// ]);
/// let t = arrow_schema_to_tsfile("weather", &schema)?;
/// assert_eq!(t.columns.len(), 2);
/// assert_eq!((t.columns[0].schema.name.as_str(), t.columns[0].category), ("city", ColumnCategory::Tag));
/// assert_eq!(t.columns[1].schema.data_type, Ts::Double);
/// # Ok::<(), colfile::Error>(())
/// ```
///
/// Errors: [`ErrorKind::Schema`](crate::ErrorKind::Schema) naming a field whose Arrow type
/// has no TsFile equivalent (unsigned or small integers, `LargeUtf8`, lists, …), a TAG that is
/// not `Utf8`, or an unknown category.
pub fn arrow_schema_to_tsfile(table_name: &str, schema: &Schema) -> Result<TableSchema> {
    arrow_schema_to_tsfile_with(table_name, schema, Profile::Portable)
}

/// [`arrow_schema_to_tsfile`] with `profile`'s default encodings.
pub(crate) fn arrow_schema_to_tsfile_with(
    table_name: &str,
    schema: &Schema,
    profile: Profile,
) -> Result<TableSchema> {
    let mut columns = Vec::new();
    for f in schema.fields() {
        let Some((data_type, category)) = arrow_field_to_tsfile(f)? else {
            continue;
        };
        let mut c = TableColumn::new(&f.name().to_lowercase(), data_type, category);
        c.schema.encoding = profile.default_encoding(data_type);
        columns.push(c);
    }
    Ok(TableSchema::new(&table_name.to_lowercase(), columns))
}

/// The TsFile type and category of an Arrow field (see [`arrow_schema_to_tsfile`]); `None`
/// for the time column.
pub(crate) fn arrow_field_to_tsfile(f: &Field) -> Result<Option<(DataType, ColumnCategory)>> {
    let meta = |k: &str| f.metadata().get(k).map(|v| v.to_ascii_uppercase());
    let category = meta(TSFILE_CATEGORY_KEY);
    if f.name().eq_ignore_ascii_case(TIME_COLUMN) || category.as_deref() == Some("TIME") {
        return Ok(None);
    }
    let category = match category.as_deref() {
        None | Some("FIELD") => ColumnCategory::Field,
        Some("TAG") => ColumnCategory::Tag,
        Some(other) => {
            return Err(Error::schema(format!(
                "field {}: category {other} is not TAG or FIELD",
                f.name()
            )))
        }
    };
    let named = meta(TSFILE_TYPE_KEY);
    let data_type = match f.data_type() {
        ArrowType::Boolean => DataType::Boolean,
        ArrowType::Int32 => DataType::Int32,
        ArrowType::Int64 => DataType::Int64,
        ArrowType::Float32 => DataType::Float,
        ArrowType::Float64 => DataType::Double,
        ArrowType::Utf8 if named.as_deref() == Some("TEXT") => DataType::Text,
        ArrowType::Utf8 => DataType::String,
        ArrowType::Binary if named.as_deref() == Some("OBJECT") => DataType::Object,
        ArrowType::Binary => DataType::Blob,
        ArrowType::Date32 => DataType::Date,
        ArrowType::Timestamp(_, _) => DataType::Timestamp,
        other => {
            return Err(Error::schema(format!(
                "field {}: Arrow type {other} has no TsFile equivalent",
                f.name()
            )))
        }
    };
    if category == ColumnCategory::Tag && !matches!(data_type, DataType::String | DataType::Text) {
        return Err(Error::schema(format!(
            "field {}: a TAG column must be Utf8, not {}",
            f.name(),
            f.data_type()
        )));
    }
    Ok(Some((data_type, category)))
}

/// DATE's `YYYYMMDD` as days since 1970-01-01, `None` for an impossible date.
pub(crate) fn yyyymmdd_to_days(v: i32) -> Option<i32> {
    crate::tsfile::format::value::date_to_string(v)?;
    let (y, m, d) = (
        i64::from(v / 10000),
        i64::from(v / 100 % 100),
        i64::from(v % 100),
    );
    // Days from the civil date (proleptic Gregorian), counting years from March.
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    i32::try_from(era * 146_097 + doe - 719_468).ok()
}

/// Days since 1970-01-01 as DATE's `YYYYMMDD`, `None` outside years 0–9999.
pub(crate) fn days_to_yyyymmdd(days: i32) -> Option<i32> {
    let z = i64::from(days) + 719_468;
    let era = if z >= 0 { z } else { z - 146_096 } / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    if !(0..=9999).contains(&y) {
        return None;
    }
    i32::try_from(y * 10000 + m * 100 + d).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_convert_both_ways() {
        assert_eq!(yyyymmdd_to_days(19700101), Some(0));
        assert_eq!(yyyymmdd_to_days(19691231), Some(-1));
        assert_eq!(yyyymmdd_to_days(20000301), Some(11017));
        assert_eq!(yyyymmdd_to_days(20230229), None);
        assert_eq!(yyyymmdd_to_days(1), None);
        for d in [-719_528, -1, 0, 59, 60, 11016, 19_000, 2_932_896] {
            let v = days_to_yyyymmdd(d).unwrap();
            assert_eq!(yyyymmdd_to_days(v), Some(d), "{d} -> {v}");
        }
        assert_eq!(days_to_yyyymmdd(-719_529), None);
        assert_eq!(days_to_yyyymmdd(2_932_897), None);
    }
}
