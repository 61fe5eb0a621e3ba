//! JSON for TsFile values, the contract of the CLI (`cat`, `write`) and of the official
//! library's oracle dumps: BOOLEAN `true`/`false`; INT32, INT64 and TIMESTAMP integers; FLOAT
//! and DOUBLE numbers that round-trip at their width, or `"NaN"`, `"Infinity"`,
//! `"-Infinity"`; TEXT and STRING strings; BLOB lowercase hex; DATE `"YYYY-MM-DD"`; null.

use crate::json_scan::Scalar;
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
    // A number's own text (exact, thanks to `arbitrary_precision`).
    let text;
    let scalar = match j {
        Json::Null => Scalar::Null,
        Json::Bool(b) => Scalar::Bool(*b),
        Json::String(s) => Scalar::Str(s),
        Json::Number(n) => {
            text = n.to_string();
            Scalar::Number(&text)
        }
        Json::Array(_) | Json::Object(_) => return Err(bad()),
    };
    from_scalar(data_type, scalar).ok_or_else(bad)
}

/// [`from_json`] of a JSON scalar (as [`crate::json_scan`] reads it; null as null); `None`
/// where [`from_json`] fails.
pub fn from_scalar(data_type: DataType, j: Scalar<'_>) -> Option<Value> {
    match (data_type, j) {
        (DataType::Blob | DataType::Object, Scalar::Str(s)) => parse_hex(s).map(Value::Binary),
        _ => from_scalar_ref(data_type, j).map(|v| v.to_owned()),
    }
}

/// [`from_scalar`] borrowing the text of strings; `None` also for a BLOB or OBJECT string,
/// whose bytes are decoded from hex and so cannot be borrowed.
///
/// ```
/// use colfile::json_scan::Scalar;
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::tools::json::from_scalar_ref;
/// use colfile::tsfile::ValueRef;
/// let v = from_scalar_ref(DataType::String, Scalar::Str("on"));
/// assert_eq!(v, Some(ValueRef::Binary(b"on")));
/// assert_eq!(from_scalar_ref(DataType::Int32, Scalar::Number("1.5")), None);
/// ```
#[inline(always)]
pub fn from_scalar_ref(data_type: DataType, j: Scalar<'_>) -> Option<ValueRef<'_>> {
    if j == Scalar::Null {
        return Some(ValueRef::Null);
    }
    // JSON integers only (serde_json's `as_i64`); strings are not numbers here.
    let int = || match j {
        Scalar::Number(t) => t.parse::<i64>().ok(),
        _ => None,
    };
    // A JSON number as `f64`, read from its text so that `f32`s given with 9 digits are exact.
    let number = || match j {
        Scalar::Number(t) => t.parse::<f64>().ok(),
        _ => None,
    };
    let string = match j {
        Scalar::Str(s) => Some(s),
        _ => None,
    };
    Some(match data_type {
        DataType::Boolean => match j {
            Scalar::Bool(b) => ValueRef::Boolean(b),
            _ => return None,
        },
        DataType::Int32 => ValueRef::Int32(i32::try_from(int()?).ok()?),
        DataType::Int64 | DataType::Timestamp => ValueRef::Int64(int()?),
        DataType::Date => ValueRef::Int32(match string {
            Some(s) => parse_date(s)?,
            None => i32::try_from(int()?)
                .ok()
                .filter(|&v| date_to_string(v).is_some())?,
        }),
        DataType::Float => ValueRef::Float(match string {
            Some(s) => match special(s) {
                Some(v) => v as f32,
                None => f32::from_bits(hex_bits(s, 8)? as u32),
            },
            None => number()? as f32,
        }),
        DataType::Double => ValueRef::Double(match string {
            Some(s) => match special(s) {
                Some(v) => v,
                None => f64::from_bits(hex_bits(s, 16)?),
            },
            None => number()?,
        }),
        DataType::Text | DataType::String => ValueRef::Binary(string?.as_bytes()),
        DataType::Blob | DataType::Object | DataType::Vector | DataType::Unknown => return None,
    })
}

/// A JSON-lines row of a TsFile table or device, without serde_json's tree: `[time, v1, ...]`
/// with a value for each of `names` (of `types`), or `{"time": t, "name": v, ...}` (names
/// matched ignoring ASCII case, absent ones null), where every value is a scalar that
/// [`from_scalar`] takes. `None` for any other line, including every row the CLI's
/// serde_json path refuses, which then says why.
///
/// ```
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::format::value::Value;
/// use colfile::tsfile::tools::json::row_from_json_line;
/// let names = ["temp".to_string(), "city".to_string()];
/// let types = [DataType::Double, DataType::String];
/// let (t, row) = row_from_json_line(r#"{"time": 5, "TEMP": 21.5}"#, &names, &types).unwrap();
/// assert_eq!((t, row), (5, vec![Value::Double(21.5), Value::Null]));
/// ```
pub fn row_from_json_line<'a>(
    line: &'a str,
    names: &[String],
    types: &[DataType],
) -> Option<(i64, Vec<Value>)> {
    let mut row = Vec::new();
    let members = |m: Members<'a, '_>| crate::json_scan::visit_flat_row(line, m);
    let t = flat_row_into(members, names, types, &mut row, Value::Null, from_scalar)?;
    Some((t, row))
}

/// [`row_from_json_line`] into `row` (cleared first), with values that borrow `line`, so
/// that a reused `row` makes reading a line allocate nothing. `None` also when a BLOB or
/// OBJECT column is given (its hex is decoded into bytes of its own: read such lines with
/// [`row_from_json_line`]).
///
/// ```
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::tools::json::row_refs_from_json_line;
/// use colfile::tsfile::ValueRef;
/// let names = ["temp".to_string(), "city".to_string()];
/// let types = [DataType::Double, DataType::String];
/// let mut row = Vec::new();
/// let t = row_refs_from_json_line(r#"[5, 21.5, "Oslo"]"#, &names, &types, &mut row);
/// assert_eq!(t, Some(5));
/// assert_eq!(row, [ValueRef::Double(21.5), ValueRef::Binary(b"Oslo")]);
/// ```
pub fn row_refs_from_json_line<'a>(
    line: &'a str,
    names: &[String],
    types: &[DataType],
    row: &mut Vec<ValueRef<'a>>,
) -> Option<i64> {
    let members = |m: Members<'a, '_>| crate::json_scan::visit_flat_row(line, m);
    flat_row_into(members, names, types, row, ValueRef::Null, from_scalar_ref)
}

/// [`row_refs_from_json_line`] of the JSON object whose members (key and value, in order)
/// `members(m)` hands to `m`, for rows that are not JSON text, such as a CSV record's cells
/// under its header's names (`None` from `members` refuses the row, as from `m`).
///
/// ```
/// use colfile::json_scan::Scalar;
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::tools::json::row_refs_from_members;
/// use colfile::tsfile::ValueRef;
/// let (names, types) = (["temp".to_string()], [DataType::Float]);
/// let cells = [("TEMP", Scalar::Number("2.5")), ("time", Scalar::Number("9"))];
/// let members = |m: &mut dyn FnMut(&'static str, Scalar<'static>) -> Option<()>| {
///     cells.iter().try_for_each(|(k, v)| m(k, *v))
/// };
/// let mut row = Vec::new();
/// assert_eq!(row_refs_from_members(members, &names, &types, &mut row), Some(9));
/// assert_eq!(row, [ValueRef::Float(2.5)]);
/// ```
pub fn row_refs_from_members<'a>(
    members: impl FnOnce(&mut dyn FnMut(&'a str, Scalar<'a>) -> Option<()>) -> Option<()>,
    names: &[String],
    types: &[DataType],
    row: &mut Vec<ValueRef<'a>>,
) -> Option<i64> {
    let members = |m: Members<'a, '_>| members(&mut |k, v| m(Some(k), v)).map(|()| true);
    flat_row_into(members, names, types, row, ValueRef::Null, from_scalar_ref)
}

/// What [`crate::json_scan::visit_columns`] hands a row's members to.
type Members<'a, 'm> = &'m mut dyn FnMut(Option<&'a str>, Scalar<'a>) -> Option<()>;

/// The row whose members `members` gives into `row` as `value` converts each scalar (`null`
/// for absent names); returns its time. The rules are [`row_from_json_line`]'s.
fn flat_row_into<'a, T: Clone>(
    members: impl FnOnce(Members<'a, '_>) -> Option<bool>,
    names: &[String],
    types: &[DataType],
    row: &mut Vec<T>,
    null: T,
    value: impl Fn(DataType, Scalar<'a>) -> Option<T>,
) -> Option<i64> {
    if !flat_columns(names, types) {
        return None;
    }
    row.clear();
    row.resize(names.len(), null);
    let mut time = None;
    let column_of = |member: usize, k: &str| column_of(names, member, k);
    let (object, given) =
        crate::json_scan::visit_columns(members, names.len() + 1, column_of, |i, j| {
            match i.checked_sub(1) {
                None => {
                    let Scalar::Number(t) = j else { return None };
                    time = Some(t.parse::<i64>().ok()?);
                }
                Some(i) => *row.get_mut(i)? = value(*types.get(i)?, j)?,
            }
            Some(())
        })?;
    if !object && given != names.len() + 1 {
        return None;
    }
    time
}

/// Whether rows of `names` (of `types`) are read by the flat readers: a type for each name,
/// and no column the key "time" could also name (those are left to serde_json's rules).
fn flat_columns(names: &[String], types: &[DataType]) -> bool {
    types.len() == names.len() && !names.iter().any(|n| n.eq_ignore_ascii_case("time"))
}

/// The column the key `k` of a row's `member`-th member names: 0 for the time, `i + 1` for
/// `names[i]` (any case). Keys mostly come in the names' order, after the time or before
/// it: those places are looked at first.
fn column_of(names: &[String], member: usize, k: &str) -> Option<usize> {
    if k == "time" {
        return Some(0);
    }
    let at = |i: usize| names.get(i)?.eq_ignore_ascii_case(k).then_some(i + 1);
    let near = member.checked_sub(1).and_then(at).or_else(|| at(member));
    near.or_else(|| names.iter().position(|n| n.eq_ignore_ascii_case(k)).map(|i| i + 1))
}

/// Rows whose members always come under the same keys in the same order (CSV records under
/// their header), placed as [`row_refs_from_members`] places them, with each key's column
/// found once instead of in every row.
///
/// ```
/// use colfile::json_scan::Scalar;
/// use colfile::tsfile::format::DataType;
/// use colfile::tsfile::tools::json::{from_scalar_ref, FixedKeys};
/// use colfile::tsfile::ValueRef;
/// let (names, types) = (["temp".to_string(), "on".to_string()], [DataType::Float, DataType::Boolean]);
/// let keys = FixedKeys::new(&["TEMP", "time"], &names, &types).unwrap();
/// let cells = [Scalar::Number("2.5"), Scalar::Number("9")];
/// let mut row = Vec::new();
/// let time = keys.row_refs(|i, t| from_scalar_ref(t, cells[i]), &mut row);
/// assert_eq!(time, Some(9));
/// assert_eq!(row, [ValueRef::Float(2.5), ValueRef::Null]);
/// assert!(FixedKeys::new(&["temp", "Temp", "time"], &names, &types).is_none());
/// ```
#[derive(Clone, Debug)]
pub struct FixedKeys {
    /// Each key's column (0 = the time) and the type its value is read as (the time's INT64).
    columns: Vec<(usize, DataType)>,
    width: usize,
}

impl FixedKeys {
    /// Where rows of members under `keys` go among `names` (of `types`); `None` where
    /// [`row_refs_from_members`] refuses every such row (a key that names no column or one
    /// named before it, no key for the time, a column the key "time" could also name).
    pub fn new<'k>(
        keys: &'k [impl AsRef<str>],
        names: &[String],
        types: &[DataType],
    ) -> Option<Self> {
        if !flat_columns(names, types) {
            return None;
        }
        // The keys placed as every row's members are (a key naming no column, or one named
        // before, refuses them all).
        let mut columns = Vec::with_capacity(keys.len());
        let each_key = |m: Members<'k, '_>| {
            keys.iter()
                .try_for_each(|k| m(Some(k.as_ref()), Scalar::Null))
                .map(|()| true)
        };
        let column_of = |member: usize, k: &str| column_of(names, member, k);
        crate::json_scan::visit_columns(each_key, names.len() + 1, column_of, |i, _| {
            let t = match i.checked_sub(1) {
                None => DataType::Int64,
                Some(c) => *types.get(c)?,
            };
            columns.push((i, t));
            Some(())
        })?;
        columns.iter().any(|&(i, _)| i == 0).then_some(FixedKeys {
            columns,
            width: names.len(),
        })
    }

    /// The row whose `i`-th member's value is `value(i, data_type)`, the value a column of
    /// `data_type` holds (INT64 for the time), into `row`; returns its time. `None` where a
    /// value is `None` or the time is null, as [`row_refs_from_members`] refuses such a row.
    #[inline]
    pub fn row_refs<'a>(
        &self,
        mut value: impl FnMut(usize, DataType) -> Option<ValueRef<'a>>,
        row: &mut Vec<ValueRef<'a>>,
    ) -> Option<i64> {
        row.clear();
        row.resize(self.width, ValueRef::Null);
        let mut time = None;
        for (member, &(i, t)) in self.columns.iter().enumerate() {
            let v = value(member, t)?;
            match i.checked_sub(1) {
                None => match v {
                    ValueRef::Int64(t) => time = Some(t),
                    _ => return None,
                },
                Some(c) => *row.get_mut(c)? = v,
            }
        }
        time
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
    use proptest::strategy::Strategy as _;
    use serde_json::json;

    /// Members of an object may leave columns out (NULL), in any order and any ASCII case,
    /// but not name one twice nor give a name no column has.
    #[test]
    fn rows_from_members() {
        let names = ["a".to_string(), "b".to_string()];
        let types = [DataType::Int64, DataType::String];
        let read = |cells: &[(&'static str, Scalar<'static>)]| {
            let mut row = Vec::new();
            let t = row_refs_from_members(
                |m| cells.iter().try_for_each(|(k, v)| m(k, *v)),
                &names,
                &types,
                &mut row,
            );
            let t = t.map(|t| (t, row));
            // Rows under these keys read the same with their columns found once; where
            // these keys are refused, every row under them is.
            let keys: Vec<&str> = cells.iter().map(|c| c.0).collect();
            let mut fixed = vec![ValueRef::Int32(7)];
            let value = |i: usize, ty| from_scalar_ref(ty, cells.get(i)?.1);
            match FixedKeys::new(&keys, &names, &types) {
                Some(k) => assert_eq!(k.row_refs(value, &mut fixed).map(|f| (f, fixed)), t),
                None => assert_eq!(t, None, "{keys:?}"),
            }
            t
        };
        let (one, b) = (Scalar::Number("1"), Scalar::Str("x"));
        let none = Scalar::Null;
        assert_eq!(read(&[("time", none), ("a", one)]), None); // a null time
        assert_eq!(read(&[("time", one), ("a", b)]), None); // not an INT64
        assert_eq!(
            read(&[("B", b), ("time", one)]),
            Some((1, vec![ValueRef::Null, ValueRef::Binary(b"x")]))
        );
        assert_eq!(read(&[("time", one)]), Some((1, vec![ValueRef::Null; 2])));
        assert_eq!(read(&[("time", one), ("a", one), ("A", one)]), None);
        assert_eq!(read(&[("time", one), ("c", one)]), None);
        assert_eq!(read(&[("a", one)]), None); // no time
    }
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

    /// The CLI's rules for a parsed row (its serde_json path), for comparison.
    fn reference(j: &Json, names: &[String], types: &[DataType]) -> Option<(i64, Vec<Value>)> {
        match j {
            Json::Array(items) if items.len() == names.len() + 1 => {
                let time = items.first()?.as_i64()?;
                let vals = items[1..].iter().zip(types).map(|(v, t)| from_json(*t, v).ok());
                Some((time, vals.collect::<Option<_>>()?))
            }
            Json::Object(m) => {
                let time = m.get("time")?.as_i64()?;
                if m.keys().any(|k| k != "time" && !names.iter().any(|n| n.eq_ignore_ascii_case(k))) {
                    return None;
                }
                let vals = names.iter().zip(types).map(|(n, t)| {
                    let v = m.iter().find(|(k, _)| k.eq_ignore_ascii_case(n)).map(|(_, v)| v);
                    from_json(*t, v.unwrap_or(&Json::Null)).ok()
                });
                Some((time, vals.collect::<Option<_>>()?))
            }
            _ => None,
        }
    }

    fn suited(t: DataType) -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let re = match t {
            DataType::Boolean => "(true|false)",
            DataType::Int32 | DataType::Int64 => "-?(0|[1-9][0-9]{0,11})",
            DataType::Date => "(20[0-9]{2}0[1-9][12][0-9]|\"20[0-9]{2}-0[1-9]-[12][0-9]\")",
            DataType::Float | DataType::Double => {
                "(-?(0|[1-9][0-9]{0,4})(\\.[0-9]{1,9})?([eE][+-]?[0-9]{1,2})?|\"(NaN|inf|-Infinity)\")"
            }
            DataType::Blob => "\"([0-9a-f]{2}){0,3}\"",
            _ => "\"[a-z é]{0,5}\"",
        };
        prop_oneof![
            8 => proptest::string::string_regex(re).unwrap(),
            1 => prop_oneof![Just("null".to_owned()), Just("\"x\"".to_owned()), Just("1.5".to_owned())],
        ]
    }

    proptest::proptest! {
        /// The scanning path gives the serde_json path's row wherever that path gives one.
        #[test]
        fn line_rows_agree_with_the_serde_json_path(
            vals in (0usize..7).prop_flat_map(|n| {
                (0..n).map(|i| suited(TYPES[i])).collect::<Vec<_>>()
            }),
            time in proptest::prelude::any::<i32>(),
            object in proptest::prelude::any::<bool>(),
            upper in proptest::prelude::any::<bool>(),
        ) {
            use proptest::prelude::*;
            let names: Vec<String> = NAMES.iter().take(vals.len()).map(|s| s.to_string()).collect();
            let types = &TYPES[..vals.len()];
            let line = if object {
                let mut f = vec![format!("\"time\": {time}")];
                for (n, v) in names.iter().zip(&vals) {
                    let n = if upper { n.to_uppercase() } else { n.clone() };
                    f.push(format!("\"{n}\": {v}"));
                }
                f.rotate_left(vals.len() / 2);
                format!("{{{}}}", f.join(","))
            } else {
                format!("[{time}{}]", vals.iter().map(|v| format!(", {v}")).collect::<String>())
            };
            let j: Json = serde_json::from_str(&line).unwrap();
            let want = reference(&j, &names, types);
            let got = row_from_json_line(&line, &names, types);
            // The borrowing reader agrees, into a row that held another line's values,
            // and refuses only lines with a BLOB column.
            let mut refs = vec![ValueRef::Int32(7); 3];
            let t = row_refs_from_json_line(&line, &names, types, &mut refs);
            let owned = t.map(|t| (t, refs.iter().map(|v| v.to_owned()).collect::<Vec<_>>()));
            // An object's members handed over one by one read as its line does.
            if let Some(flat) = crate::json_scan::scan_flat_row(&line).filter(|f| f.object) {
                let mut by_members = Vec::new();
                let u = row_refs_from_members(
                    |m| flat.keys.iter().zip(&flat.values).try_for_each(|(k, v)| m(k, *v)),
                    &names,
                    types,
                    &mut by_members,
                );
                prop_assert_eq!(format!("{:?}", u.map(|u| (u, &by_members))),
                    format!("{:?}", t.map(|t| (t, &refs))), "{}", line);
                // So do rows under the same keys whose columns were found once.
                let mut fixed = vec![ValueRef::Int32(7); 2];
                let f = FixedKeys::new(&flat.keys, &names, types).and_then(|k| {
                    k.row_refs(|i, t| from_scalar_ref(t, *flat.values.get(i)?), &mut fixed)
                });
                prop_assert_eq!(format!("{:?}", f.map(|f| (f, &fixed))),
                    format!("{:?}", u.map(|u| (u, &by_members))), "{}", line);
            }
            if !types.contains(&DataType::Blob) {
                prop_assert_eq!(format!("{owned:?}"), format!("{got:?}"), "{}", line);
            } else if owned.is_some() {
                prop_assert!(false, "{line}: a BLOB column read as borrowed");
            }
            match (&got, &want) {
                (Some(_), _) => prop_assert_eq!(format!("{got:?}"), format!("{want:?}"), "{}", line),
                (None, Some(_)) => prop_assert!(false, "{line}: only the serde_json path reads it"),
                (None, None) => {}
            }
        }
    }

    const NAMES: [&str; 7] = ["b", "i", "l", "d", "f", "s", "x"];
    const TYPES: [DataType; 7] = [
        DataType::Boolean,
        DataType::Int32,
        DataType::Int64,
        DataType::Date,
        DataType::Double,
        DataType::String,
        DataType::Blob,
    ];
}
