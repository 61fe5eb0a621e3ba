//! Writing text cells byte for byte as Hive's `LazySimpleSerDe.serialize` /
//! `LazyUtils.writePrimitiveUTF8` do.

use super::TextSerde;
use super::{bytes, datetime, scalar};
use crate::rcfile::java_float;
use crate::rcfile::{HiveType, Value};
use crate::{Error, Result};

/// What Hive writes for a decimal that does not fit its column (`LazyHiveDecimal.nullBytes`);
/// it reads back as NULL.
const DECIMAL_OVERFLOW: &[u8] = &[0, 0, 0, 0];

fn mismatch(ty: &HiveType, v: &Value) -> Error {
    let mut shown = format!("{v:?}");
    if shown.len() > 60 {
        let cut = (0..=57)
            .rev()
            .find(|&i| shown.is_char_boundary(i))
            .unwrap_or(0);
        shown.truncate(cut);
        shown.push_str("...");
    }
    Error::invalid(format!("cannot write {shown} as {ty}"))
}

impl TextSerde {
    /// Appends a string-like value, escaped when escaping is on (`LazyUtils.writeEscaped`).
    fn write_escaped(&self, b: &[u8], out: &mut Vec<u8>) {
        let Some(esc) = self.opts.escape else {
            out.extend_from_slice(b);
            return;
        };
        out.reserve(b.len());
        for &c in b {
            if self.needs_escape(c) {
                out.push(esc);
                out.push(match c {
                    b'\r' => b'r',
                    b'\n' => b'n',
                    c => c,
                });
            } else {
                out.push(c);
            }
        }
    }

    /// Writes `items` separated by the separator of `level`, each with `f`.
    fn write_joined<T>(
        &self,
        level: usize,
        items: &[T],
        out: &mut Vec<u8>,
        mut f: impl FnMut(&T, &mut Vec<u8>) -> Result<()>,
    ) -> Result<()> {
        let sep = self.level_sep(level)?;
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                out.push(sep);
            }
            f(item, out)?;
        }
        Ok(())
    }

    fn level_sep(&self, level: usize) -> Result<u8> {
        self.sep(level)
            .ok_or_else(|| Error::schema(format!("no separator for nesting level {level}")))
    }

    /// Appends `v` of type `ty` at nesting `level`.
    pub(super) fn write(
        &self,
        ty: &HiveType,
        v: &Value,
        level: usize,
        out: &mut Vec<u8>,
    ) -> Result<()> {
        let int_range = |lo: i64, hi: i64| match v.as_i64() {
            Some(x) if (lo..=hi).contains(&x) => Ok(x),
            _ => Err(mismatch(ty, v)),
        };
        match (ty, v) {
            (_, Value::Null) => out.extend_from_slice(&self.opts.null_sequence),
            (HiveType::Boolean, Value::Boolean(b)) => {
                out.extend_from_slice(if *b { b"true" } else { b"false" })
            }
            (HiveType::TinyInt, _) => {
                scalar::write_i64(int_range(i8::MIN as i64, i8::MAX as i64)?, out)
            }
            (HiveType::SmallInt, _) => {
                scalar::write_i64(int_range(i16::MIN as i64, i16::MAX as i64)?, out)
            }
            (HiveType::Int, _) => {
                scalar::write_i64(int_range(i32::MIN as i64, i32::MAX as i64)?, out)
            }
            (HiveType::BigInt, _) => scalar::write_i64(int_range(i64::MIN, i64::MAX)?, out),
            (HiveType::Float, Value::Float(x)) => java_float::write_f32(*x, out),
            (HiveType::Double, Value::Double(x)) => java_float::write_f64(*x, out),
            (HiveType::String, Value::String(b)) => self.write_escaped(b, out),
            (HiveType::Varchar(n), Value::String(b)) => {
                self.write_escaped(&bytes::fit_chars(b, *n, false), out)
            }
            (HiveType::Char(n), Value::String(b)) => {
                self.write_escaped(&bytes::fit_chars(b, *n, true), out)
            }
            (HiveType::Binary, Value::Binary(b)) => bytes::write_base64(b, out),
            (HiveType::Date, Value::Date(d)) => datetime::write_date(*d, out),
            (HiveType::Timestamp, Value::Timestamp(t)) => datetime::write_timestamp(*t, out),
            (HiveType::Decimal { precision, scale }, Value::Decimal(d)) => {
                let negative = d.unscaled < 0;
                let mag = d.unscaled.unsigned_abs();
                match scalar::enforce(negative, mag, d.scale as i32, *precision, *scale) {
                    Some(d) => scalar::write_decimal(&d, out),
                    None => out.extend_from_slice(DECIMAL_OVERFLOW),
                }
            }
            (HiveType::Array(et), Value::Array(items)) => {
                self.write_joined(level, items, out, |x, out| {
                    self.write(et, x, level + 1, out)
                })?
            }
            (HiveType::Map(kt, vt), Value::Map(entries)) => {
                let kv_sep = self.level_sep(level + 1)?;
                self.write_joined(level, entries, out, |(k, x), out| {
                    self.write(kt, k, level + 2, out)?;
                    out.push(kv_sep);
                    self.write(vt, x, level + 2, out)
                })?
            }
            (HiveType::Struct(fields), Value::Struct(vals)) => {
                if fields.len() != vals.len() {
                    return Err(Error::invalid(format!(
                        "a struct value with {} fields cannot be written as {ty}",
                        vals.len()
                    )));
                }
                let mut types = fields.iter();
                self.write_joined(level, vals, out, |x, out| match types.next() {
                    Some(f) => self.write(&f.ty, x, level + 1, out),
                    None => Err(mismatch(ty, v)),
                })?
            }
            (HiveType::Union(members), Value::Union { tag, value }) => {
                let member = members.get(*tag as usize).ok_or_else(|| {
                    Error::invalid(format!("union tag {tag} is out of range for {ty}"))
                })?;
                scalar::write_i64(*tag as i64, out);
                out.push(self.level_sep(level)?);
                self.write(member, value, level + 1, out)?
            }
            _ => return Err(mismatch(ty, v)),
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rcfile::serde::TextOptions;
    use crate::rcfile::{Date, Decimal, Timestamp};

    fn enc(s: &TextSerde, ty: &str, v: &Value) -> Vec<u8> {
        let mut out = Vec::new();
        s.encode(&ty.parse().unwrap(), v, &mut out).unwrap();
        out
    }

    #[test]
    fn primitives() {
        let s = TextSerde::new(TextOptions::default());
        assert_eq!(enc(&s, "tinyint", &Value::TinyInt(-128)), b"-128");
        assert_eq!(
            enc(&s, "bigint", &Value::BigInt(i64::MIN)),
            b"-9223372036854775808"
        );
        assert_eq!(enc(&s, "int", &Value::TinyInt(5)), b"5");
        assert_eq!(enc(&s, "double", &Value::Double(1e7)), b"1.0E7");
        assert_eq!(enc(&s, "float", &Value::Float(f32::NAN)), b"NaN");
        let d = |s: &str| Value::Decimal(Decimal::parse(s).unwrap());
        assert_eq!(enc(&s, "decimal(5,2)", &d("1.5")), b"1.50");
        assert_eq!(enc(&s, "decimal(5,2)", &d("-0.005")), b"-0.01");
        assert_eq!(enc(&s, "decimal(5,2)", &d("0.004")), b"0.00");
        assert_eq!(enc(&s, "decimal(5,0)", &d("100000")), b"\0\0\0\0");
        assert_eq!(enc(&s, "decimal(38,10)", &d("0")), b"0.0000000000");
        assert_eq!(enc(&s, "char(4)", &Value::string("ab")), b"ab  ");
        assert_eq!(enc(&s, "varchar(2)", &Value::string("abc")), b"ab");
        assert_eq!(enc(&s, "binary", &Value::Binary(vec![0, 0xff])), b"AP8=");
        assert_eq!(
            enc(&s, "date", &Value::Date(Date::from_ymd(1, 1, 1).unwrap())),
            b"0001-01-01"
        );
        let t: Timestamp = "2000-02-29 12:00:00.120".parse().unwrap();
        assert_eq!(
            enc(&s, "timestamp", &Value::Timestamp(t)),
            b"2000-02-29 12:00:00.12"
        );
        let mut out = Vec::new();
        assert!(s
            .encode(&HiveType::TinyInt, &Value::Int(300), &mut out)
            .is_err());
        assert!(s
            .encode(&HiveType::Float, &Value::Double(1.0), &mut out)
            .is_err());
    }

    #[test]
    fn nested_and_escaped() {
        let s = TextSerde::new(TextOptions::default());
        let v = Value::Union {
            tag: 1,
            value: Box::new(Value::Struct(vec![
                Value::Null,
                Value::Array(vec![Value::Int(1), Value::Int(2)]),
            ])),
        };
        assert_eq!(
            enc(&s, "uniontype<int,struct<a:int,b:array<int>>>", &v),
            b"1\x02\\N\x031\x042"
        );
        let mut o =
            TextOptions::from_properties([("escape.delim", "\\"), ("colelction.delim", "-")])
                .unwrap();
        o.escape_crlf = true;
        let e = TextSerde::new(o);
        let v = Value::Array(vec![Value::string("a-b\\\r\n\x02\x03"), Value::Int(-1)]);
        assert_eq!(
            enc(
                &e,
                "array<string>",
                &Value::Array(vec![Value::string("a-b\\\r\n\x02\x03")])
            ),
            b"a\\-b\\\\\\r\\n\x02\\\x03"
        );
        assert!(e
            .encode(&"array<string>".parse().unwrap(), &v, &mut Vec::new())
            .is_err());
        assert_eq!(
            enc(
                &e,
                "array<int>",
                &Value::Array(vec![Value::Int(-5), Value::Int(3)])
            ),
            b"-5-3"
        );
        assert_eq!(enc(&e, "char(3)", &Value::string("-")), b"\\-  ");
    }
}
