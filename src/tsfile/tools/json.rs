//! JSON for TsFile values, the contract of the CLI (`cat`, `write`) and of the official
//! library's oracle dumps: BOOLEAN `true`/`false`; INT32, INT64 and TIMESTAMP integers; FLOAT
//! and DOUBLE numbers that round-trip at their width, or `"NaN"`, `"Infinity"`,
//! `"-Infinity"`; TEXT and STRING strings; BLOB lowercase hex; DATE `"YYYY-MM-DD"`; null.

use crate::json_text::{parse_hex, push_hex, write_str};
use crate::tsfile::format::DataType;
use crate::tsfile::format::value::{date_to_string, parse_date, Value, ValueRef};
use crate::{Error, Result};
use serde_json::Value as Json;
use std::fmt::Write as _;

/// How FLOAT values are printed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FloatStyle {
    /// The shortest digits that read back as the same `f32` (`colfile cat`).
    Shortest,
    /// The `f64` that equals the `f32` (the official oracle's dumps).
    AsDouble,
}

/// Appends the JSON text of `v`, a value of a `data_type` column.
///
/// ```
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::tools::json::{write_value, FloatStyle};
/// use colfile::tsfile::ValueRef;
/// let mut s = String::new();
/// write_value(DataType::Date, ValueRef::Int32(20240229), FloatStyle::Shortest, &mut s);
/// s.push(' ');
/// write_value(DataType::Float, ValueRef::Float(0.1), FloatStyle::Shortest, &mut s);
/// s.push(' ');
/// write_value(DataType::Blob, ValueRef::Binary(&[0xff, 0]), FloatStyle::Shortest, &mut s);
/// assert_eq!(s, r#""2024-02-29" 0.1 "ff00""#);
/// ```
pub fn write_value(data_type: DataType, v: ValueRef<'_>, style: FloatStyle, out: &mut String) {
    match v {
        ValueRef::Null => out.push_str("null"),
        ValueRef::Boolean(b) => out.push_str(if b { "true" } else { "false" }),
        ValueRef::Int32(x) if data_type == DataType::Date => match date_to_string(x) {
            Some(d) => {
                let _ = write!(out, "\"{d}\"");
            }
            None => {
                let _ = write!(out, "{x}");
            }
        },
        ValueRef::Int32(x) => {
            let _ = write!(out, "{x}");
        }
        ValueRef::Int64(x) => {
            let _ = write!(out, "{x}");
        }
        ValueRef::Float(x) => match style {
            FloatStyle::Shortest => push_float(
                out,
                x.is_nan(),
                x.is_infinite() && x > 0.0,
                x.is_infinite(),
                format_args!("{x:?}"),
            ),
            FloatStyle::AsDouble => {
                let d = x as f64;
                push_float(
                    out,
                    d.is_nan(),
                    d.is_infinite() && d > 0.0,
                    d.is_infinite(),
                    format_args!("{d:?}"),
                )
            }
        },
        ValueRef::Double(x) => push_float(
            out,
            x.is_nan(),
            x.is_infinite() && x > 0.0,
            x.is_infinite(),
            format_args!("{x:?}"),
        ),
        ValueRef::Binary(b) => match data_type {
            DataType::Blob | DataType::Object => {
                out.push('"');
                push_hex(out, b);
                out.push('"');
            }
            _ => write_str(out, &String::from_utf8_lossy(b)),
        },
    }
}

fn push_float(
    out: &mut String,
    nan: bool,
    pos_inf: bool,
    inf: bool,
    digits: std::fmt::Arguments<'_>,
) {
    if nan {
        out.push_str("\"NaN\"");
    } else if pos_inf {
        out.push_str("\"Infinity\"");
    } else if inf {
        out.push_str("\"-Infinity\"");
    } else {
        let _ = out.write_fmt(digits);
    }
}

/// Appends tag columns as JSON object members, `"name":"value"` or `"name":null`, separated
/// by commas (no leading or trailing comma).
pub fn write_tag_members(tags: &[(String, Option<String>)], out: &mut String) {
    for (i, (name, v)) in tags.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_str(out, name);
        out.push(':');
        match v {
            Some(v) => write_str(out, v),
            None => out.push_str("null"),
        }
    }
}

/// The value of a `data_type` column that `j` stands for: the forms [`write_value`] writes,
/// plus integers for DATE (`YYYYMMDD`), `"inf"`/`"-inf"`, and raw IEEE bits as `"0x…"` with 8
/// (FLOAT) or 16 (DOUBLE) hex digits.
///
/// Errors: [`ErrorKind::Schema`](crate::ErrorKind::Schema) naming the value and the type.
pub fn from_json(data_type: DataType, j: &Json) -> Result<Value> {
    let bad = || Error::schema(format!("{j} is not a {data_type} value"));
    if j.is_null() {
        return Ok(Value::Null);
    }
    Ok(match data_type {
        DataType::Boolean => Value::Boolean(j.as_bool().ok_or_else(bad)?),
        DataType::Int32 => Value::Int32(
            j.as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .ok_or_else(bad)?,
        ),
        DataType::Int64 | DataType::Timestamp => Value::Int64(j.as_i64().ok_or_else(bad)?),
        DataType::Date => Value::Int32(match j {
            Json::String(s) => parse_date(s).ok_or_else(bad)?,
            _ => j
                .as_i64()
                .and_then(|v| i32::try_from(v).ok())
                .filter(|&v| date_to_string(v).is_some())
                .ok_or_else(bad)?,
        }),
        DataType::Float => Value::Float(match j {
            Json::String(s) => match special(s) {
                Some(v) => v as f32,
                None => hex_bits(s, 8)
                    .map(|b| f32::from_bits(b as u32))
                    .ok_or_else(bad)?,
            },
            _ => number(j).ok_or_else(bad)? as f32,
        }),
        DataType::Double => Value::Double(match j {
            Json::String(s) => match special(s) {
                Some(v) => v,
                None => hex_bits(s, 16).map(f64::from_bits).ok_or_else(bad)?,
            },
            _ => number(j).ok_or_else(bad)?,
        }),
        DataType::Text | DataType::String => {
            Value::Binary(j.as_str().ok_or_else(bad)?.as_bytes().to_vec())
        }
        DataType::Blob | DataType::Object => {
            Value::Binary(j.as_str().and_then(parse_hex).ok_or_else(bad)?)
        }
        DataType::Vector | DataType::Unknown => return Err(bad()),
    })
}

/// A JSON number as `f64`, read from its text so that `f32`s given with 9 digits are exact.
fn number(j: &Json) -> Option<f64> {
    match j {
        Json::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

fn special(s: &str) -> Option<f64> {
    match s {
        "NaN" | "nan" => Some(f64::NAN),
        "Infinity" | "inf" | "+inf" => Some(f64::INFINITY),
        "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

fn hex_bits(s: &str, digits: usize) -> Option<u64> {
    let h = s.strip_prefix("0x")?;
    if h.len() != digits {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn round_trips_and_specials() {
        let cases = [
            (DataType::Float, ValueRef::Float(f32::MAX)),
            (DataType::Float, ValueRef::Float(1e-45)),
            (DataType::Double, ValueRef::Double(5e-324)),
            (DataType::Double, ValueRef::Double(-0.0)),
            (DataType::Int64, ValueRef::Int64(i64::MIN)),
            (DataType::String, ValueRef::Binary("é\"\n".as_bytes())),
            (DataType::Blob, ValueRef::Binary(&[0, 0xab])),
            (DataType::Date, ValueRef::Int32(10000101)),
            (DataType::Boolean, ValueRef::Boolean(true)),
        ];
        for (t, v) in cases {
            let mut s = String::new();
            write_value(t, v, FloatStyle::Shortest, &mut s);
            let j: Json = serde_json::from_str(&s).unwrap();
            let back = from_json(t, &j).unwrap();
            match (back.as_ref(), v) {
                (ValueRef::Double(a), ValueRef::Double(b)) => assert_eq!(a.to_bits(), b.to_bits()),
                (a, b) => assert_eq!(a, b, "{s}"),
            }
        }
        assert!(
            matches!(from_json(DataType::Float, &json!("NaN")).unwrap(), Value::Float(x) if x.is_nan())
        );
        assert!(matches!(
            from_json(DataType::Float, &json!("0x7fc00001")).unwrap(),
            Value::Float(x) if x.to_bits() == 0x7fc0_0001
        ));
        assert!(from_json(DataType::Int32, &json!(1i64 << 40)).is_err());
        assert_eq!(
            from_json(DataType::Date, &json!(20240229)).unwrap(),
            Value::Int32(20240229)
        );
        let mut s = String::new();
        write_value(
            DataType::Float,
            ValueRef::Float(0.1),
            FloatStyle::AsDouble,
            &mut s,
        );
        assert_eq!(s, "0.10000000149011612");
    }
}
