//! Hive types to Arrow types and back (the table in the [module docs](super)).

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{DataType, Field, Fields, Schema as ArrowSchema, SchemaRef, TimeUnit};
use arrow_schema::{UnionFields, UnionMode};

use crate::rcfile::schema::Field as HiveField;
use crate::rcfile::{HiveType, Schema};
use crate::{Error, Result};

/// Field metadata key holding a field's Hive type string (`varchar(10)`, `map<int,string>`).
pub const HIVE_TYPE_KEY: &str = "hive.type";

/// The Arrow type of a Hive type.
///
/// ```
/// use arrow_schema::{DataType, TimeUnit};
/// use colfile::arrow::hive_type_to_arrow;
/// use colfile::rcfile::HiveType;
/// assert_eq!(hive_type_to_arrow(&HiveType::Timestamp), DataType::Timestamp(TimeUnit::Nanosecond, None));
/// let t: HiveType = "decimal(10,2)".parse().unwrap();
/// assert_eq!(hive_type_to_arrow(&t), DataType::Decimal128(10, 2));
/// ```
pub fn hive_type_to_arrow(ty: &HiveType) -> DataType {
    arrow_type(ty, TimeUnit::Nanosecond)
}

/// The Arrow type of a Hive type, with `timestamp`s (at any depth) in `unit`.
pub(super) fn arrow_type(ty: &HiveType, unit: TimeUnit) -> DataType {
    match ty {
        HiveType::Boolean => DataType::Boolean,
        HiveType::TinyInt => DataType::Int8,
        HiveType::SmallInt => DataType::Int16,
        HiveType::Int => DataType::Int32,
        HiveType::BigInt => DataType::Int64,
        HiveType::Float => DataType::Float32,
        HiveType::Double => DataType::Float64,
        HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) => DataType::Utf8,
        HiveType::Binary => DataType::Binary,
        HiveType::Date => DataType::Date32,
        HiveType::Timestamp => DataType::Timestamp(unit, None),
        HiveType::Decimal { precision, scale } => {
            DataType::Decimal128(*precision, i8::try_from(*scale).unwrap_or(i8::MAX))
        }
        HiveType::Array(item) => DataType::List(Arc::new(hive_field("item", item, true, unit))),
        HiveType::Map(k, v) => DataType::Map(Arc::new(map_entries(k, v, unit)), false),
        HiveType::Struct(fields) => DataType::Struct(struct_fields(fields, unit)),
        HiveType::Union(members) => DataType::Union(union_fields(members, unit), UnionMode::Dense),
    }
}

/// The entries field of a map: `entries: struct<key: K not null, value: V>`.
pub(super) fn map_entries(k: &HiveType, v: &HiveType, unit: TimeUnit) -> Field {
    let kv = Fields::from(vec![
        hive_field("key", k, false, unit),
        hive_field("value", v, true, unit),
    ]);
    Field::new("entries", DataType::Struct(kv), false)
}

pub(super) fn struct_fields(fields: &[HiveField], unit: TimeUnit) -> Fields {
    fields
        .iter()
        .map(|f| hive_field(&f.name, &f.ty, true, unit))
        .collect()
}

/// Union members are unnamed in Hive: they are called `_0`, `_1`, … with type ids 0, 1, ….
pub(super) fn union_fields(members: &[HiveType], unit: TimeUnit) -> UnionFields {
    let fields = members
        .iter()
        .enumerate()
        .map(|(i, t)| hive_field(&format!("_{i}"), t, true, unit));
    // At most 256 members (Hive's tag is a byte); ids past i8 are not representable.
    UnionFields::from_fields(fields.take(128).collect::<Vec<_>>())
}

/// A field of Hive type `ty`, with the type string as metadata.
pub(super) fn hive_field(name: &str, ty: &HiveType, nullable: bool, unit: TimeUnit) -> Field {
    let meta = HashMap::from([(HIVE_TYPE_KEY.to_owned(), ty.to_string())]);
    Field::new(name, arrow_type(ty, unit), nullable).with_metadata(meta)
}

/// The Arrow schema of a Hive table schema: every column nullable, with its Hive type in
/// the field metadata.
///
/// ```
/// use colfile::arrow::{hive_schema_to_arrow, HIVE_TYPE_KEY};
/// use colfile::rcfile::Schema;
/// let schema: Schema = "id:bigint,name:varchar(20),tags:array<string>".parse().unwrap();
/// let arrow = hive_schema_to_arrow(&schema);
/// assert_eq!(arrow.field(1).name(), "name");
/// assert_eq!(arrow.field(1).metadata()[HIVE_TYPE_KEY], "varchar(20)");
/// ```
pub fn hive_schema_to_arrow(schema: &Schema) -> SchemaRef {
    let fields: Vec<Field> = schema
        .columns()
        .iter()
        .map(|c| hive_field(&c.name, &c.ty, true, TimeUnit::Nanosecond))
        .collect();
    Arc::new(ArrowSchema::new(fields))
}

/// The Hive schema for an Arrow schema: a field's [`HIVE_TYPE_KEY`] metadata is used when
/// it names a type of the same Arrow shape; otherwise the natural Hive type (see the
/// [module docs](super)). Errors name the first field whose type has no Hive equivalent.
///
/// ```
/// use arrow_schema::{DataType, Field, Schema};
/// use colfile::arrow::arrow_schema_to_hive;
/// let arrow = Schema::new(vec![
///     Field::new("id", DataType::Int64, false),
///     Field::new("tags", DataType::new_list(DataType::Utf8, true), true),
/// ]);
/// assert_eq!(arrow_schema_to_hive(&arrow)?.to_string(), "id:bigint,tags:array<string>");
/// assert!(arrow_schema_to_hive(&Schema::new(vec![Field::new("u", DataType::UInt8, true)])).is_err());
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn arrow_schema_to_hive(schema: &ArrowSchema) -> Result<Schema> {
    let columns = schema
        .fields()
        .iter()
        .map(|f| {
            Ok(HiveField {
                name: f.name().clone(),
                ty: field_to_hive(f)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Schema::new(columns))
}

/// The Hive type of one Arrow field (metadata first, then its Arrow type).
pub(super) fn field_to_hive(f: &Field) -> Result<HiveType> {
    if let Some(t) = f.metadata().get(HIVE_TYPE_KEY) {
        if let Ok(ty) = t.parse::<HiveType>() {
            if same_shape(&hive_type_to_arrow(&ty), f.data_type()) {
                return Ok(ty);
            }
        }
    }
    arrow_to_hive(f.data_type(), f.name())
}

fn arrow_to_hive(t: &DataType, name: &str) -> Result<HiveType> {
    let none = |why: &str| Error::schema(format!("field {name:?} of type {t}: {why}"));
    Ok(match t {
        DataType::Boolean => HiveType::Boolean,
        DataType::Int8 => HiveType::TinyInt,
        DataType::Int16 => HiveType::SmallInt,
        DataType::Int32 => HiveType::Int,
        DataType::Int64 => HiveType::BigInt,
        DataType::Float32 => HiveType::Float,
        DataType::Float64 => HiveType::Double,
        DataType::Utf8 | DataType::LargeUtf8 | DataType::Utf8View => HiveType::String,
        DataType::Binary
        | DataType::LargeBinary
        | DataType::BinaryView
        | DataType::FixedSizeBinary(_) => HiveType::Binary,
        DataType::Date32 | DataType::Date64 => HiveType::Date,
        DataType::Timestamp(_, None) => HiveType::Timestamp,
        DataType::Timestamp(_, Some(tz)) if is_utc(tz) => HiveType::Timestamp,
        DataType::Decimal32(p, s) | DataType::Decimal64(p, s) | DataType::Decimal128(p, s)
            if *s >= 0 && *p >= 1 && *p <= 38 && (*s as u8) <= *p =>
        {
            HiveType::Decimal {
                precision: *p,
                scale: *s as u8,
            }
        }
        DataType::List(f) | DataType::LargeList(f) | DataType::FixedSizeList(f, _) => {
            HiveType::Array(Box::new(field_to_hive(f)?))
        }
        DataType::Map(entries, _) => match entries.data_type() {
            DataType::Struct(kv) if kv.len() == 2 => {
                let (Some(k), Some(v)) = (kv.first(), kv.get(1)) else {
                    return Err(none("no Hive type holds it"));
                };
                HiveType::Map(Box::new(field_to_hive(k)?), Box::new(field_to_hive(v)?))
            }
            _ => return Err(none("map entries are not a two-field struct")),
        },
        DataType::Struct(fields) => HiveType::Struct(
            fields
                .iter()
                .map(|f| {
                    Ok(HiveField {
                        name: f.name().clone(),
                        ty: field_to_hive(f)?,
                    })
                })
                .collect::<Result<Vec<_>>>()?,
        ),
        DataType::Union(fields, _) => {
            let mut members = Vec::with_capacity(fields.len());
            for (i, (id, f)) in fields.iter().enumerate() {
                if usize::try_from(id).ok() != Some(i) {
                    return Err(none("union type ids are not 0, 1, 2, ... in order"));
                }
                members.push(field_to_hive(f)?);
            }
            HiveType::Union(members)
        }
        DataType::Dictionary(_, value) => arrow_to_hive(value, name)?,
        _ => return Err(none("no Hive type holds it")),
    })
}

fn is_utc(tz: &str) -> bool {
    matches!(tz, "UTC" | "utc" | "Z" | "+00:00" | "Etc/UTC")
}

/// Equal types, but for timestamp units (a Hive `timestamp` read in microseconds is still one).
fn same_shape(a: &DataType, b: &DataType) -> bool {
    match (a, b) {
        (DataType::Timestamp(_, None), DataType::Timestamp(_, tz)) => {
            tz.as_deref().is_none_or(is_utc)
        }
        (DataType::List(x), DataType::List(y)) => same_shape(x.data_type(), y.data_type()),
        (DataType::Map(x, _), DataType::Map(y, _)) => same_shape(x.data_type(), y.data_type()),
        (DataType::Struct(x), DataType::Struct(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|(p, q)| same_shape(p.data_type(), q.data_type()))
        }
        (DataType::Union(x, _), DataType::Union(y, _)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y.iter())
                    .all(|((i, p), (j, q))| i == j && same_shape(p.data_type(), q.data_type()))
        }
        _ => a.equals_datatype(b),
    }
}
