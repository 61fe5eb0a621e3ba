//! Cell encodings ("SerDes"): how one RCFile cell's bytes map to a [`Value`]. RCFile itself
//! never interprets cells; the table definition names the serde.
//!
//! - [`text`]: `ColumnarSerDe`, LazySimpleSerDe text rules (null sequence, separators per
//!   nesting level, escapes, serde properties).
//! - [`binary`]: `LazyBinaryColumnarSerDe`, LazyBinary rules (Hive's default since 0.12).

pub mod binary;
pub mod text;

use super::{HiveType, Value};
use crate::Result;

pub use binary::{BinaryOptions, BinarySerde, Calendar, EmptyStringMarker, TimeZone};
pub use text::{NestingLevels, TextOptions, TextSerde};

/// Hive class name of the text serde.
pub const TEXT_SERDE_CLASS: &str = "org.apache.hadoop.hive.serde2.columnar.ColumnarSerDe";
/// Hive class name of the binary serde.
pub const BINARY_SERDE_CLASS: &str =
    "org.apache.hadoop.hive.serde2.columnar.LazyBinaryColumnarSerDe";

/// A configured cell encoding.
///
/// ```
/// use colfile::rcfile::{Serde, HiveType, Value};
/// let serde = Serde::binary();
/// let mut cell = Vec::new();
/// serde.encode(&HiveType::Int, &Value::Int(300), &mut cell).unwrap();
/// assert_eq!(cell, [0x8e, 0x01, 0x2c]);
/// assert_eq!(serde.decode(&HiveType::Int, &cell).unwrap(), Value::Int(300));
/// ```
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum Serde {
    /// `ColumnarSerDe`
    Text(TextSerde),
    /// `LazyBinaryColumnarSerDe`
    Binary(BinarySerde),
}

impl Serde {
    /// The text serde with Hive's default properties.
    pub fn text() -> Serde {
        Serde::Text(TextSerde::new(TextOptions::default()))
    }
    /// The binary serde with default options (UTC timestamps).
    pub fn binary() -> Serde {
        Serde::Binary(BinarySerde::new(BinaryOptions::default()))
    }
    /// Hive's class name for this serde.
    pub fn class_name(&self) -> &'static str {
        match self {
            Serde::Text(_) => TEXT_SERDE_CLASS,
            Serde::Binary(_) => BINARY_SERDE_CLASS,
        }
    }
    /// Short name: `"text"` or `"binary"`.
    pub fn short_name(&self) -> &'static str {
        match self {
            Serde::Text(_) => "text",
            Serde::Binary(_) => "binary",
        }
    }
    /// Decodes one cell of type `ty`.
    #[inline]
    pub fn decode(&self, ty: &HiveType, cell: &[u8]) -> Result<Value> {
        match self {
            Serde::Text(s) => s.decode(ty, cell),
            Serde::Binary(s) => s.decode(ty, cell),
        }
    }
    /// Appends the cell bytes of `v` (of type `ty`) to `out`.
    #[inline]
    pub fn encode(&self, ty: &HiveType, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        match self {
            Serde::Text(s) => s.encode(ty, v, out),
            Serde::Binary(s) => s.encode(ty, v, out),
        }
    }
    /// The cells of `row` (values in `schema`'s order; missing trailing values NULL) into
    /// `cells` (one per column, cleared first): what [`RowWriter::write`](super::RowWriter::write)
    /// hands to [`RcFileWriter::write_row`](super::RcFileWriter::write_row), for encoding
    /// rows on other threads than the one writing.
    ///
    /// Errors: [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a row
    /// longer than the schema or a value its column's type cannot hold (naming the column).
    ///
    /// ```
    /// use colfile::rcfile::{Schema, Serde, Value};
    /// let schema: Schema = "id:int,name:string".parse()?;
    /// let mut cells = Vec::new();
    /// Serde::text().encode_row(&schema, &[Value::Int(7)], &mut cells)?;
    /// assert_eq!(cells, [b"7".to_vec(), b"\\N".to_vec()]);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn encode_row(
        &self,
        schema: &super::Schema,
        row: &[Value],
        cells: &mut Vec<Vec<u8>>,
    ) -> Result<()> {
        check_row_len(schema, row)?;
        cells.resize_with(schema.len(), Vec::new);
        for (i, (cell, col)) in cells.iter_mut().zip(schema.columns()).enumerate() {
            cell.clear();
            self.encode_in(col, row.get(i).unwrap_or(&Value::Null), cell)?;
        }
        Ok(())
    }

    /// [`encode`](Self::encode) for a value of the column `col`, whose name and type an
    /// error gives.
    pub(crate) fn encode_in(&self, col: &super::Field, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        self.encode(&col.ty, v, out).map_err(|e| {
            let message = format!("column {} ({}): {e}", col.name, col.ty);
            crate::Error::with_source(crate::ErrorKind::InvalidArgument(message), e)
        })
    }
}

/// Refuses a row of more values than `schema` has columns (fewer are NULL-padded).
pub(crate) fn check_row_len(schema: &super::Schema, row: &[Value]) -> Result<()> {
    if row.len() > schema.len() {
        return Err(crate::Error::invalid(format!(
            "row has {} values, schema has {} columns",
            row.len(),
            schema.len()
        )));
    }
    Ok(())
}

/// Hive's binary writer stores a decimal that has too many digits for its column as NULL
/// (`enforcePrecisionScale`). Returns `v` with such decimals replaced by NULL, or `None` when
/// nothing needs replacing (the common case: no copy).
#[inline]
pub(crate) fn null_overflowing_decimals(ty: &HiveType, v: &Value) -> Option<Value> {
    // Only decimals and values that may hold them can change: the rest return at once.
    match v {
        Value::Decimal(_)
        | Value::Array(_)
        | Value::Map(_)
        | Value::Struct(_)
        | Value::Union { .. } => fitted_decimals(ty, v),
        _ => None,
    }
}

/// [`null_overflowing_decimals`] of any value.
fn fitted_decimals(ty: &HiveType, v: &Value) -> Option<Value> {
    /// Rebuilds a sequence when any element changed.
    fn rebuild<T: Clone>(orig: &[T], fixed: Vec<Option<T>>) -> Option<Vec<T>> {
        fixed.iter().any(Option::is_some).then(|| {
            fixed
                .into_iter()
                .zip(orig)
                .map(|(f, x)| f.unwrap_or_else(|| x.clone()))
                .collect()
        })
    }
    match (ty, v) {
        (HiveType::Decimal { precision, scale }, Value::Decimal(d)) => d
            .round_to(*precision, *scale)
            .is_none()
            .then_some(Value::Null),
        (HiveType::Array(et), Value::Array(items)) => {
            let fixed = items
                .iter()
                .map(|x| null_overflowing_decimals(et, x))
                .collect();
            rebuild(items, fixed).map(Value::Array)
        }
        (HiveType::Map(kt, vt), Value::Map(entries)) => {
            let fixed = entries
                .iter()
                .map(|(k, x)| {
                    let (fk, fx) = (
                        null_overflowing_decimals(kt, k),
                        null_overflowing_decimals(vt, x),
                    );
                    (fk.is_some() || fx.is_some()).then(|| {
                        (
                            fk.unwrap_or_else(|| k.clone()),
                            fx.unwrap_or_else(|| x.clone()),
                        )
                    })
                })
                .collect();
            rebuild(entries, fixed).map(Value::Map)
        }
        (HiveType::Struct(fields), Value::Struct(vals)) => {
            let fixed = fields
                .iter()
                .zip(vals)
                .map(|(f, x)| null_overflowing_decimals(&f.ty, x))
                .collect();
            rebuild(vals, fixed).map(Value::Struct)
        }
        (HiveType::Union(members), Value::Union { tag, value }) => {
            let mt = members.get(*tag as usize)?;
            null_overflowing_decimals(mt, value).map(|f| Value::Union {
                tag: *tag,
                value: Box::new(f),
            })
        }
        _ => None,
    }
}

impl Serde {
    /// A serde by short name (`"text"` or `"binary"`, or a Hive class name) configured from
    /// Hive serde properties (text serde), and the binary serde's timestamp zone (`"UTC"`,
    /// `"+05:30"`, `"America/New_York"`) and calendar (`"proleptic"` or `"hybrid"`).
    ///
    /// ```
    /// use colfile::rcfile::Serde;
    /// let s = Serde::from_options("binary", &[], Some("UTC"), Some("hybrid")).unwrap();
    /// assert_eq!(s.short_name(), "binary");
    /// assert!(Serde::from_options("json", &[], None, None).is_err());
    /// ```
    pub fn from_options(
        name: &str,
        props: &[(String, String)],
        time_zone: Option<&str>,
        calendar: Option<&str>,
    ) -> Result<Serde> {
        match name {
            "text" | TEXT_SERDE_CLASS => {
                if time_zone.is_some() || calendar.is_some() {
                    return Err(crate::Error::invalid(
                        "--time-zone and --calendar apply to the binary serde only (text timestamps carry no zone)",
                    ));
                }
                let props = props.iter().map(|(k, v)| (k.as_str(), v.as_str()));
                Ok(Serde::Text(TextSerde::new(TextOptions::from_properties(
                    props,
                )?)))
            }
            "binary" | BINARY_SERDE_CLASS => {
                if let Some((k, _)) = props.first() {
                    return Err(crate::Error::invalid(format!(
                        "the binary serde takes no serde properties (got {k:?})"
                    )));
                }
                let mut o = BinaryOptions::default();
                if let Some(z) = time_zone {
                    o = o.with_timestamp_zone(TimeZone::parse(z)?);
                }
                if let Some(c) = calendar {
                    o = o.with_calendar(c.parse::<Calendar>()?);
                }
                Ok(Serde::Binary(BinarySerde::new(o)))
            }
            other => Err(crate::Error::invalid(format!(
                "unknown serde {other:?} (text or binary)"
            ))),
        }
    }
}
