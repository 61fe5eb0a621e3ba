//! JSON encoding of [`Value`]s, the contract shared by the CLI (`cat`, `write`) and Hive's
//! oracle dumps: null; booleans; exact integers; floats as numbers that round-trip at their
//! own width (Java's `toString` digits) or `"NaN"`/`"Infinity"`/`"-Infinity"`; strings as JSON
//! strings; binary as lowercase hex; date `YYYY-MM-DD`; timestamp
//! `YYYY-MM-DD HH:MM:SS[.fffffffff]`; decimal with exactly the column's scale; arrays; maps as
//! `[[k,v],...]`; structs as objects by field name; unions as `{"tag":n,"value":v}`.

use super::schema::HiveType;
use super::value::{Date, Decimal, Timestamp, Value};
use crate::json_scan::Scalar;
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
    let bad = || Error::invalid(format!("cannot read {j} as {ty}"));
    // A number's own text (exact, thanks to `arbitrary_precision`).
    let text;
    let scalar = match j {
        Json::Null => Some(Scalar::Null),
        Json::Bool(b) => Some(Scalar::Bool(*b)),
        Json::String(s) => Some(Scalar::Str(s)),
        Json::Number(n) => {
            text = n.to_string();
            Some(Scalar::Number(&text))
        }
        Json::Array(_) | Json::Object(_) => None,
    };
    // Every nested type refuses a scalar, as `from_scalar` does.
    if let Some(x) = scalar {
        return from_scalar(ty, x).ok_or_else(bad);
    }
    Ok(match ty {
        HiveType::Binary => Value::Binary(match j {
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
        // A primitive type given an array or an object.
        _ => return Err(bad()),
    })
}

/// A JSON scalar as a value of type `ty` (null as NULL), with [`from_json`]'s coercions;
/// `None` where it cannot be one (every nested type).
#[inline(always)]
fn from_scalar(ty: &HiveType, j: Scalar<'_>) -> Option<Value> {
    let (num, text) = match j {
        Scalar::Null => return Some(Value::Null),
        Scalar::Number(t) => (true, Some(t)),
        Scalar::Str(t) => (false, Some(t)),
        Scalar::Bool(_) => (false, None),
    };
    // An exact integer from a JSON number or a decimal string.
    let int = || -> Option<i64> {
        match j {
            Scalar::Number(t) => t.parse().ok(),
            Scalar::Str(s) => s.trim().parse().ok(),
            _ => None,
        }
    };
    let string = || if num { None } else { text };
    Some(match ty {
        HiveType::Boolean => match j {
            Scalar::Bool(b) => Value::Boolean(b),
            _ => return None,
        },
        HiveType::TinyInt => Value::TinyInt(i8::try_from(int()?).ok()?),
        HiveType::SmallInt => Value::SmallInt(i16::try_from(int()?).ok()?),
        HiveType::Int => Value::Int(i32::try_from(int()?).ok()?),
        HiveType::BigInt => Value::BigInt(int()?),
        HiveType::Float => Value::Float(java_float::parse_f32(text?)?),
        HiveType::Double => Value::Double(java_float::parse_f64(text?)?),
        HiveType::String => Value::string(string()?),
        HiveType::Varchar(n) => {
            Value::string(string()?.chars().take(*n as usize).collect::<String>())
        }
        HiveType::Char(n) => {
            let s: String = string()?.chars().take(*n as usize).collect();
            let pad = (*n as usize).saturating_sub(s.chars().count());
            Value::string(s + &" ".repeat(pad))
        }
        HiveType::Binary => Value::Binary(parse_hex(string()?)?),
        HiveType::Date => Value::Date(string()?.parse::<Date>().ok()?),
        HiveType::Timestamp => Value::Timestamp(string()?.parse::<Timestamp>().ok()?),
        HiveType::Decimal { precision, scale } => {
            let d = Decimal::parse(text?)?;
            match d.round_to(*precision, *scale) {
                Some(d) => Value::Decimal(d),
                // Too many integer digits for the column: kept (at the column's scale where
                // 38 digits allow) so that each serde writes it as Hive does: the text serde
                // as four NUL bytes, the binary serde as NULL.
                None => Value::Decimal(d.round_to(38, *scale).unwrap_or(d)),
            }
        }
        HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_) => {
            return None
        }
    })
}

/// [`row_from_json`] of a JSON line, without serde_json for the common rows: an array or
/// object of scalars (see [`crate::json_scan`]) whose columns are all primitive and whose
/// object keys name columns exactly, once each. `None` for any other line, and for a row
/// [`row_from_json`] would refuse: callers then parse the line with serde_json and call
/// [`row_from_json`], which gives the same row or says what is wrong.
///
/// ```
/// use colfile::rcfile::{json, Decimal, Schema, Value};
/// let schema: Schema = "id:bigint,name:string,price:decimal(5,2)".parse().unwrap();
/// let row = json::row_from_json_line(&schema, r#"{"id": 7, "price": 1.5}"#).unwrap();
/// let price = Decimal { unscaled: 150, scale: 2 };
/// assert_eq!(row, [Value::BigInt(7), Value::Null, Value::Decimal(price)]);
/// ```
pub fn row_from_json_line(schema: &super::Schema, line: &str) -> Option<Vec<Value>> {
    let mut row = Vec::new();
    row_from_json_line_into(schema, line, &mut row).then_some(row)
}

/// [`row_from_json_line`] into `row`, whose values' room (a string's bytes) is reused:
/// whether the line was read. `row` holds one value a column when it was; what it holds
/// otherwise is unspecified.
///
/// ```
/// use colfile::rcfile::{json, Schema, Value};
/// let schema: Schema = "id:bigint,name:string".parse().unwrap();
/// let mut row = Vec::new();
/// for line in [r#"[1, "ada"]"#, r#"{"id": 2}"#] {
///     assert!(json::row_from_json_line_into(&schema, line, &mut row));
/// }
/// assert_eq!(row, [Value::BigInt(2), Value::Null]);
/// assert!(!json::row_from_json_line_into(&schema, "[1, [2]]", &mut row));
/// ```
pub fn row_from_json_line_into(schema: &super::Schema, line: &str, row: &mut Vec<Value>) -> bool {
    row_of_members(schema, |m| crate::json_scan::visit_flat_row(line, m), row).is_some()
}

/// [`row_from_json_line`] of the JSON object whose members (key and value, in order)
/// `members(m)` hands to `m`, for rows that are not JSON text, such as a CSV record's cells
/// under its header's names (`None` from `members` refuses the row, as from `m`).
///
/// ```
/// use colfile::json_scan::Scalar;
/// use colfile::rcfile::{json, Schema, Value};
/// let schema: Schema = "id:bigint,name:string".parse().unwrap();
/// let cells = [("name", Scalar::Str("ada"))];
/// let members = |m: &mut dyn FnMut(&'static str, Scalar<'static>) -> Option<()>| {
///     cells.iter().try_for_each(|(k, v)| m(k, *v))
/// };
/// let row = json::row_from_members(&schema, members).unwrap();
/// assert_eq!(row, [Value::Null, Value::string("ada")]);
/// ```
pub fn row_from_members<'a>(
    schema: &super::Schema,
    members: impl FnOnce(&mut dyn FnMut(&'a str, Scalar<'a>) -> Option<()>) -> Option<()>,
) -> Option<Vec<Value>> {
    let mut row = Vec::new();
    row_from_members_into(schema, members, &mut row).then_some(row)
}

/// [`row_from_members`] into `row`, whose values' room is reused (as
/// [`row_from_json_line_into`]): whether the members made a row.
pub fn row_from_members_into<'a>(
    schema: &super::Schema,
    members: impl FnOnce(&mut dyn FnMut(&'a str, Scalar<'a>) -> Option<()>) -> Option<()>,
    row: &mut Vec<Value>,
) -> bool {
    let members = |m: &mut dyn FnMut(Option<&'a str>, Scalar<'a>) -> Option<()>| {
        members(&mut |k, v| m(Some(k), v)).map(|()| true)
    };
    row_of_members(schema, members, row).is_some()
}

/// The row of the members `members` gives (see [`crate::json_scan::visit_columns`]) into
/// `row`: the columns they name read from their values, the others NULL.
fn row_of_members<'a>(
    schema: &super::Schema,
    members: impl FnOnce(&mut dyn FnMut(Option<&'a str>, Scalar<'a>) -> Option<()>) -> Option<bool>,
    row: &mut Vec<Value>,
) -> Option<()> {
    let cols = schema.columns();
    row.resize(cols.len(), Value::Null);
    // Which columns were given, for rows of up to 64 columns (wider rows start all NULL).
    let mut given = 0u64;
    if cols.len() > 64 {
        row.iter_mut().for_each(|v| *v = Value::Null);
    }
    // Keys mostly come in the schema's order: try the n-th column first.
    let column_of = |n: usize, k: &str| match cols.get(n) {
        Some(c) if c.name == k => Some(n),
        _ => cols.iter().position(|c| c.name == k),
    };
    crate::json_scan::visit_columns(members, cols.len(), column_of, |i, j| {
        from_scalar_into(&cols.get(i)?.ty, j, row.get_mut(i)?)?;
        given |= 1u64.checked_shl(i as u32).unwrap_or(0);
        Some(())
    })?;
    if cols.len() <= 64 {
        // Columns not given are NULL, as `from_scalar` reads a JSON null.
        for (i, v) in row.iter_mut().enumerate() {
            if given >> i & 1 == 0 {
                *v = Value::Null;
            }
        }
    }
    Some(())
}

/// [`from_scalar`] into `slot`, reusing the bytes of a string it holds for a string.
fn from_scalar_into(ty: &HiveType, j: Scalar<'_>, slot: &mut Value) -> Option<()> {
    match (ty, j, &mut *slot) {
        (HiveType::String, Scalar::Str(s), Value::String(b)) => {
            b.clear();
            b.extend_from_slice(s.as_bytes());
        }
        _ => *slot = from_scalar(ty, j)?,
    }
    Some(())
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

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const SCHEMA: &str = "b:boolean,t:tinyint,s:smallint,i:int,l:bigint,f:float,d:double,\
        st:string,v:varchar(3),c:char(4),bin:binary,dt:date,ts:timestamp,dec:decimal(6,2)";

    /// A JSON scalar text that may or may not suit each column.
    fn scalar() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("null".to_owned()),
            Just("true".to_owned()),
            Just("false".to_owned()),
            "-?(0|[1-9][0-9]{0,20})(\\.[0-9]{1,4})?",
            "\"[ a-f0-9:.-]{0,6}\"",
            Just("\"2024-02-29\"".to_owned()),
            Just("\"1969-12-31 23:59:59.5\"".to_owned()),
            Just("\"abcd\"".to_owned()),
            Just("\"😀x\"".to_owned()),
            Just("1e3".to_owned()),
            Just("[1]".to_owned()),
        ]
    }

    /// A JSON value that suits column `i` of [`SCHEMA`] (most of the time, another scalar).
    fn suited(i: usize) -> impl Strategy<Value = String> {
        let re = match i {
            0 => "(true|false)",
            1 => "-?(0|[1-9][0-9]?)",
            2 => "-?(0|[1-9][0-9]{0,3})",
            3 => "-?(0|[1-9][0-9]{0,8})",
            4 => "-?(0|[1-9][0-9]{0,17})",
            5 | 6 => "-?(0|[1-9][0-9]{0,4})(\\.[0-9]{1,7})?([eE][+-]?[0-9]{1,2})?",
            7..=9 => "\"[a-z é]{0,6}\"",
            10 => "\"([0-9a-f]{2}){0,4}\"",
            11 => "\"(19|20)[0-9]{2}-0[1-9]-[12][0-9]\"",
            12 => "\"20[0-9]{2}-0[1-9]-[12][0-9] [01][0-9]:[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?\"",
            _ => "-?(0|[1-9][0-9]{0,4})(\\.[0-9]{1,3})?([eE][+-]?[0-3])?",
        };
        prop_oneof![8 => proptest::string::string_regex(re).unwrap(), 1 => scalar()]
    }

    fn row_values() -> impl Strategy<Value = Vec<String>> {
        (0usize..=14).prop_flat_map(|n| (0..n).map(suited).collect::<Vec<_>>())
    }

    proptest::proptest! {
        /// The scanning path gives exactly serde_json's row where it gives one, and gives
        /// one for every flat row that converts.
        #[test]
        fn line_rows_agree_with_serde_json(
            vals in row_values(),
            object in any::<bool>(),
            shuffle in any::<u64>(),
            before in row_values(),
        ) {
            let schema: crate::rcfile::Schema = SCHEMA.parse().unwrap();
            let names: Vec<&str> = schema.columns().iter().map(|c| c.name.as_str()).collect();
            let line = if object {
                let mut fields: Vec<String> = vals
                    .iter()
                    .zip(&names)
                    .map(|(v, n)| format!("\"{n}\": {v}"))
                    .collect();
                let k = fields.len().max(1);
                fields.rotate_left((shuffle as usize) % k);
                format!("{{{}}}", fields.join(", "))
            } else {
                format!("[{}]", vals.join(","))
            };
            let fast = row_from_json_line(&schema, &line);
            // A row reused from another line reads the same.
            let mut reused = Vec::new();
            row_from_json_line_into(&schema, &format!("[{}]", before.join(",")), &mut reused);
            let read = row_from_json_line_into(&schema, &line, &mut reused);
            prop_assert_eq!(read.then_some(reused), fast.clone(), "{}", line);
            let j: Json = serde_json::from_str(&line).unwrap();
            let slow = row_from_json(&schema, &j);
            match (&fast, &slow) {
                (Some(f), Ok(s)) => prop_assert_eq!(f, s, "{}", line),
                (Some(f), Err(e)) => prop_assert!(false, "{line}: fast {f:?}, slow {e}"),
                (None, Ok(_)) => {
                    // Only lines outside the scanner's subset go the slow way.
                    prop_assert!(line.len() > 2 && line[1..].contains('['), "{}", line);
                }
                (None, Err(_)) => {}
            }
        }
    }

    #[test]
    fn object_keys_must_name_columns_once() {
        let schema: crate::rcfile::Schema = "a:int,b:string".parse().unwrap();
        assert!(row_from_json_line(&schema, r#"{"a":1,"a":2}"#).is_none());
        assert!(row_from_json_line(&schema, r#"{"A":1}"#).is_none());
        assert!(row_from_json_line(&schema, r#"{"x":1}"#).is_none());
        assert!(row_from_json_line(&schema, r#"[1,"x",3]"#).is_none());
        assert_eq!(
            row_from_json_line(&schema, r#"{"b":"x"}"#).unwrap(),
            [Value::Null, Value::string("x")]
        );
    }
}
