//! JSON encoding of [`Value`]s, the contract shared by the CLI (`cat`, `write`) and Hive's
//! oracle dumps: null; booleans; exact integers; floats as numbers that round-trip at their
//! own width (Java's `toString` digits) or `"NaN"`/`"Infinity"`/`"-Infinity"`; strings as JSON
//! strings; binary as lowercase hex; date `YYYY-MM-DD`; timestamp
//! `YYYY-MM-DD HH:MM:SS[.fffffffff]`; decimal with exactly the column's scale; arrays; maps as
//! `[[k,v],...]`; structs as objects by field name; unions as `{"tag":n,"value":v}`.

use super::schema::HiveType;
use super::value::{Date, Decimal, Timestamp, Value};
use crate::rcfile::java_float;
use crate::{Error, Result};
use serde_json::Value as Json;
use std::fmt::Write as _;

/// Appends the JSON text of `v` (of type `ty`) to `out`.
///
/// ```
/// use colfile::rcfile::{json, HiveType, Value};
/// let ty: HiveType = "map<string,array<float>>".parse().unwrap();
/// let v = Value::Map(vec![(Value::string("a"), Value::Array(vec![Value::Float(0.1), Value::Null]))]);
/// let mut s = String::new();
/// json::write_value(&ty, &v, &mut s);
/// assert_eq!(s, r#"[["a",[0.1,null]]]"#);
/// ```
pub fn write_value(ty: &HiveType, v: &Value, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Boolean(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::TinyInt(x) => push_display(out, x),
        Value::SmallInt(x) => push_display(out, x),
        Value::Int(x) => push_display(out, x),
        Value::BigInt(x) => push_display(out, x),
        Value::Float(x) => push_float(out, x.is_finite(), || java_float::f32_to_string(*x)),
        Value::Double(x) => push_float(out, x.is_finite(), || java_float::f64_to_string(*x)),
        Value::String(b) => write_str(out, &String::from_utf8_lossy(b)),
        Value::Binary(b) => {
            out.push('"');
            push_hex(out, b);
            out.push('"');
        }
        Value::Date(d) => {
            let _ = write!(out, "\"{d}\"");
        }
        Value::Timestamp(t) => {
            let _ = write!(out, "\"{t}\"");
        }
        Value::Decimal(d) => {
            // Print with exactly the column's scale.
            let d = match ty {
                HiveType::Decimal { precision, scale } if *scale != d.scale => {
                    d.round_to(*precision, *scale).unwrap_or(*d)
                }
                _ => *d,
            };
            let _ = write!(out, "\"{d}\"");
        }
        Value::Array(items) => {
            let et = match ty {
                HiveType::Array(t) => t.as_ref(),
                _ => ty,
            };
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(et, x, out);
            }
            out.push(']');
        }
        Value::Map(entries) => {
            let (kt, vt) = match ty {
                HiveType::Map(k, v) => (k.as_ref(), v.as_ref()),
                _ => (ty, ty),
            };
            out.push('[');
            for (i, (k, x)) in entries.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push('[');
                write_value(kt, k, out);
                out.push(',');
                write_value(vt, x, out);
                out.push(']');
            }
            out.push(']');
        }
        Value::Struct(vals) => {
            out.push('{');
            let fields: &[super::schema::Field] = match ty {
                HiveType::Struct(f) => f,
                _ => &[],
            };
            for (i, x) in vals.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match fields.get(i) {
                    Some(f) => {
                        write_str(out, &f.name);
                        out.push(':');
                        write_value(&f.ty, x, out);
                    }
                    None => {
                        let _ = write!(out, "\"_col{i}\":");
                        write_value(&HiveType::String, x, out);
                    }
                }
            }
            out.push('}');
        }
        Value::Union { tag, value } => {
            let mt = match ty {
                HiveType::Union(ts) => ts.get(*tag as usize).unwrap_or(ty),
                _ => ty,
            };
            let _ = write!(out, "{{\"tag\":{tag},\"value\":");
            write_value(mt, value, out);
            out.push('}');
        }
    }
}

fn push_display(out: &mut String, x: impl std::fmt::Display) {
    let _ = write!(out, "{x}");
}

fn push_float(out: &mut String, finite: bool, text: impl FnOnce() -> String) {
    let s = text();
    if finite {
        out.push_str(&s);
    } else {
        out.push('"');
        out.push_str(&s);
        out.push('"');
    }
}

pub use crate::json_text::{parse_hex, push_hex, write_str};

/// Converts a JSON value to a [`Value`] of type `ty`, applying Hive's write-side coercions:
/// varchar truncated and char padded to their length, decimals rounded half-up to the
/// column scale (kept when they overflow the precision, for each serde to write as Hive
/// does), integers range-checked.
///
/// ```
/// use colfile::rcfile::{json, HiveType, Value};
/// let ty: HiveType = "char(3)".parse().unwrap();
/// let v = json::from_json(&ty, &serde_json::json!("a")).unwrap();
/// assert_eq!(v, Value::string("a  "));
/// ```
pub fn from_json(ty: &HiveType, j: &Json) -> Result<Value> {
    if j.is_null() {
        return Ok(Value::Null);
    }
    let bad = || Error::invalid(format!("cannot read {j} as {ty}"));
    Ok(match ty {
        HiveType::Boolean => Value::Boolean(j.as_bool().ok_or_else(bad)?),
        HiveType::TinyInt => {
            Value::TinyInt(int(j).and_then(|v| i8::try_from(v).ok()).ok_or_else(bad)?)
        }
        HiveType::SmallInt => {
            Value::SmallInt(int(j).and_then(|v| i16::try_from(v).ok()).ok_or_else(bad)?)
        }
        HiveType::Int => Value::Int(int(j).and_then(|v| i32::try_from(v).ok()).ok_or_else(bad)?),
        HiveType::BigInt => Value::BigInt(int(j).ok_or_else(bad)?),
        HiveType::Float => {
            Value::Float(java_float::parse_f32(&number_text(j).ok_or_else(bad)?).ok_or_else(bad)?)
        }
        HiveType::Double => {
            Value::Double(java_float::parse_f64(&number_text(j).ok_or_else(bad)?).ok_or_else(bad)?)
        }
        HiveType::String => Value::string(j.as_str().ok_or_else(bad)?),
        HiveType::Varchar(n) => {
            let s = j.as_str().ok_or_else(bad)?;
            Value::string(s.chars().take(*n as usize).collect::<String>())
        }
        HiveType::Char(n) => {
            let s: String = j
                .as_str()
                .ok_or_else(bad)?
                .chars()
                .take(*n as usize)
                .collect();
            let pad = (*n as usize).saturating_sub(s.chars().count());
            Value::string(s + &" ".repeat(pad))
        }
        HiveType::Binary => Value::Binary(match j {
            Json::String(s) => parse_hex(s).ok_or_else(bad)?,
            Json::Object(o) => match (o.get("utf8"), o.get("base64")) {
                (Some(Json::String(s)), _) => s.as_bytes().to_vec(),
                (_, Some(Json::String(s))) => {
                    use base64::Engine as _;
                    base64::engine::general_purpose::STANDARD
                        .decode(s)
                        .map_err(|_| bad())?
                }
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        }),
        HiveType::Date => Value::Date(
            j.as_str()
                .ok_or_else(bad)?
                .parse::<Date>()
                .map_err(|_| bad())?,
        ),
        HiveType::Timestamp => Value::Timestamp(
            j.as_str()
                .ok_or_else(bad)?
                .parse::<Timestamp>()
                .map_err(|_| bad())?,
        ),
        HiveType::Decimal { precision, scale } => {
            let text = number_text(j).ok_or_else(bad)?;
            let d = Decimal::parse(&text).ok_or_else(bad)?;
            match d.round_to(*precision, *scale) {
                Some(d) => Value::Decimal(d),
                // Too many integer digits for the column: kept (at the column's scale where
                // 38 digits allow) so that each serde writes it as Hive does: the text serde
                // as four NUL bytes, the binary serde as NULL.
                None => Value::Decimal(d.round_to(38, *scale).unwrap_or(d)),
            }
        }
        HiveType::Array(et) => Value::Array(
            j.as_array()
                .ok_or_else(bad)?
                .iter()
                .map(|x| from_json(et, x))
                .collect::<Result<_>>()?,
        ),
        HiveType::Map(kt, vt) => Value::Map(match j {
            Json::Array(entries) => entries
                .iter()
                .map(|e| match e.as_array().map(|a| a.as_slice()) {
                    Some([k, v]) => Ok((from_json(kt, k)?, from_json(vt, v)?)),
                    _ => Err(bad()),
                })
                .collect::<Result<_>>()?,
            Json::Object(o) => o
                .iter()
                .map(|(k, v)| Ok((from_json(kt, &Json::String(k.clone()))?, from_json(vt, v)?)))
                .collect::<Result<_>>()?,
            _ => return Err(bad()),
        }),
        HiveType::Struct(fields) => Value::Struct(match j {
            Json::Object(o) => fields
                .iter()
                .map(|f| from_json(&f.ty, o.get(&f.name).unwrap_or(&Json::Null)))
                .collect::<Result<_>>()?,
            Json::Array(a) => fields
                .iter()
                .enumerate()
                .map(|(i, f)| from_json(&f.ty, a.get(i).unwrap_or(&Json::Null)))
                .collect::<Result<_>>()?,
            _ => return Err(bad()),
        }),
        HiveType::Union(members) => {
            let tag = j.get("tag").and_then(Json::as_u64).ok_or_else(bad)?;
            let mt = members.get(tag as usize).ok_or_else(bad)?;
            let v = from_json(mt, j.get("value").unwrap_or(&Json::Null))?;
            Value::Union {
                tag: tag as u8,
                value: Box::new(v),
            }
        }
    })
}

/// An exact integer from a JSON number or a decimal string.
fn int(j: &Json) -> Option<i64> {
    match j {
        Json::Number(n) => n.as_i64(),
        Json::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// The original text of a JSON number (exact, thanks to `arbitrary_precision`), or a string.
fn number_text(j: &Json) -> Option<String> {
    match j {
        Json::Number(n) => Some(n.to_string()),
        Json::String(s) => Some(s.clone()),
        _ => None,
    }
}

/// Reads one row given as a JSON array (schema order) or object (by column name).
pub fn row_from_json(schema: &super::Schema, j: &Json) -> Result<Vec<Value>> {
    let cols = schema.columns();
    match j {
        Json::Array(a) => {
            if a.len() > cols.len() {
                return Err(Error::invalid(format!(
                    "row has {} values but the schema has {} columns",
                    a.len(),
                    cols.len()
                )));
            }
            cols.iter()
                .enumerate()
                .map(|(i, c)| from_json(&c.ty, a.get(i).unwrap_or(&Json::Null)))
                .collect()
        }
        Json::Object(o) => {
            for k in o.keys() {
                if schema.index_of(k).is_none() {
                    return Err(Error::invalid(format!("row names unknown column {k:?}")));
                }
            }
            cols.iter()
                .map(|c| {
                    let v = o.get(&c.name).or_else(|| {
                        o.iter()
                            .find(|(k, _)| k.eq_ignore_ascii_case(&c.name))
                            .map(|(_, v)| v)
                    });
                    from_json(&c.ty, v.unwrap_or(&Json::Null))
                })
                .collect()
        }
        _ => Err(Error::invalid("a row must be a JSON array or object")),
    }
}
