//! Reading text cells: LazySimpleSerDe's splitting (`LazyArray`, `LazyMap`, `LazyStruct`,
//! `LazyUnion`) and primitive parsing (`LazyInteger`, `LazyHiveDecimal`, ...).

use super::TextSerde;
use super::{bytes, datetime, scalar};
use crate::rcfile::java_float;
use crate::rcfile::{Date, Decimal, Field, HiveType, Timestamp, Value};
use std::borrow::Cow;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// Position of the first `sep` in `b` that is not preceded by the escape byte.
fn find_sep(b: &[u8], sep: u8, esc: Option<u8>) -> Option<usize> {
    let Some(esc) = esc else {
        return b.iter().position(|&c| c == sep);
    };
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c == sep {
            return Some(i);
        }
        // An escape byte protects the next byte, unless it is the last one.
        i += if c == esc && i + 1 < b.len() { 2 } else { 1 };
    }
    None
}

/// Splits on unescaped `sep`; an empty input is one empty part.
struct Split<'a> {
    rest: Option<&'a [u8]>,
    sep: u8,
    esc: Option<u8>,
}

impl<'a> Iterator for Split<'a> {
    type Item = &'a [u8];
    fn next(&mut self) -> Option<&'a [u8]> {
        let r = self.rest?;
        match find_sep(r, self.sep, self.esc) {
            Some(i) => {
                self.rest = r.get(i + 1..);
                r.get(..i)
            }
            None => self.rest.take(),
        }
    }
}

/// Splits at the first unescaped `sep`: (before, after it).
fn split_once(b: &[u8], sep: u8, esc: Option<u8>) -> (&[u8], Option<&[u8]>) {
    match find_sep(b, sep, esc) {
        Some(i) => (b.get(..i).unwrap_or(b), b.get(i + 1..)),
        None => (b, None),
    }
}

impl TextSerde {
    fn split<'a>(&self, b: &'a [u8], sep: u8) -> Split<'a> {
        Split {
            rest: Some(b),
            sep,
            esc: self.opts.escape,
        }
    }

    /// A nested component: the null sequence is NULL, anything else is parsed.
    fn nested(&self, ty: &HiveType, b: &[u8], level: usize) -> Value {
        if b == self.opts.null_sequence.as_slice() {
            Value::Null
        } else {
            self.value(ty, b, level)
        }
    }

    /// Appends string bytes with escapes removed (`LazyUtils.copyAndEscapeStringDataToText`:
    /// the escape byte is dropped and the next byte kept, `r`/`n` becoming CR/LF).
    fn unescape_into(&self, b: &[u8], out: &mut Vec<u8>) {
        let Some(esc) = self.opts.escape.filter(|e| b.contains(e)) else {
            out.extend_from_slice(b);
            return;
        };
        out.reserve(b.len());
        let mut it = b.iter().copied();
        while let Some(c) = it.next() {
            match (c == esc).then(|| it.next()).flatten() {
                Some(b'r') => out.push(b'\r'),
                Some(b'n') => out.push(b'\n'),
                Some(next) => out.push(next),
                None => out.push(c),
            }
        }
    }

    /// String bytes with escapes removed, borrowed when there is nothing to remove.
    fn unescape<'a>(&self, b: &'a [u8]) -> Cow<'a, [u8]> {
        if self.opts.escape.is_some_and(|e| b.contains(&e)) {
            let mut out = Vec::with_capacity(b.len());
            self.unescape_into(b, &mut out);
            Cow::Owned(out)
        } else {
            Cow::Borrowed(b)
        }
    }

    /// Appends the bytes of a string, varchar, char or binary component (not a cell: no
    /// null check) as [`TextSerde::decode_bytes_into`] describes.
    fn bytes_into(&self, ty: &HiveType, b: &[u8], out: &mut Vec<u8>) -> bool {
        match ty {
            HiveType::String => self.unescape_into(b, out),
            HiveType::Varchar(n) => bytes::fit_chars_into(&self.unescape(b), *n, false, out),
            HiveType::Char(n) => bytes::fit_chars_into(&self.unescape(b), *n, true, out),
            HiveType::Binary => bytes::decode_binary_into(b, out),
            _ => return false,
        }
        true
    }

    /// The value of `ty` in `b` at nesting `level` (the null check is the caller's).
    pub(super) fn value(&self, ty: &HiveType, b: &[u8], level: usize) -> Value {
        let or_null = |v: Option<Value>| v.unwrap_or(Value::Null);
        let bytes = || {
            let mut v = Vec::with_capacity(b.len());
            self.bytes_into(ty, b, &mut v);
            v
        };
        match ty {
            HiveType::Boolean => or_null(self.boolean(b).map(Value::Boolean)),
            HiveType::TinyInt => or_null(self.int(ty, b).map(|v| Value::TinyInt(v as i8))),
            HiveType::SmallInt => or_null(self.int(ty, b).map(|v| Value::SmallInt(v as i16))),
            HiveType::Int => or_null(self.int(ty, b).map(|v| Value::Int(v as i32))),
            HiveType::BigInt => or_null(self.int(ty, b).map(Value::BigInt)),
            HiveType::Float => or_null(float(b).map(Value::Float)),
            HiveType::Double => or_null(double(b).map(Value::Double)),
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) => Value::String(bytes()),
            HiveType::Binary => Value::Binary(bytes()),
            HiveType::Date => or_null(datetime::parse_date(b).map(Value::Date)),
            HiveType::Timestamp => or_null(datetime::parse_timestamp(b).map(Value::Timestamp)),
            HiveType::Decimal { precision, scale } => {
                or_null(decimal(*precision, *scale, b).map(Value::Decimal))
            }
            HiveType::Array(et) => self.array(et, b, level),
            HiveType::Map(kt, vt) => self.map(kt, vt, b, level),
            HiveType::Struct(fields) => self.structure(fields, b, level),
            HiveType::Union(members) => self.union(members, b, level),
        }
    }

    fn boolean(&self, b: &[u8]) -> Option<bool> {
        scalar::parse_bool(b, self.opts.extended_boolean_literal)
    }

    /// An integer of type `ty` (NULL when out of its range).
    fn int(&self, ty: &HiveType, b: &[u8]) -> Option<i64> {
        if !scalar::is_number_maybe(b) {
            return None;
        }
        let v = scalar::parse_long(b)?;
        let fits = match ty {
            HiveType::TinyInt => i8::try_from(v).is_ok(),
            HiveType::SmallInt => i16::try_from(v).is_ok(),
            HiveType::Int => i32::try_from(v).is_ok(),
            _ => true,
        };
        fits.then_some(v)
    }

    /// `LazyStruct`: missing trailing fields are NULL, extra ones ignored; with
    /// `last_column_takes_rest` the last field keeps the remaining separators.
    #[inline(never)]
    fn structure(&self, fields: &[Field], b: &[u8], level: usize) -> Value {
        let Some(sep) = self.sep(level) else {
            return Value::Null;
        };
        let mut parts = self.split(b, sep);
        let n = fields.len();
        let vals = fields.iter().enumerate().map(|(i, f)| {
            let part = if self.opts.last_column_takes_rest && i + 1 == n {
                parts.rest.take()
            } else {
                parts.next()
            };
            part.map_or(Value::Null, |p| self.nested(&f.ty, p, level + 1))
        });
        Value::Struct(vals.collect())
    }

    #[inline(never)]
    fn array(&self, et: &HiveType, b: &[u8], level: usize) -> Value {
        let Some(sep) = self.sep(level) else {
            return Value::Null;
        };
        if b.is_empty() {
            return Value::Array(Vec::new());
        }
        Value::Array(
            self.split(b, sep)
                .map(|p| self.nested(et, p, level + 1))
                .collect(),
        )
    }

    /// `LazyMap`: entries whose key is NULL (the null sequence, or text that does not parse)
    /// are dropped, and so are later entries with an equal key.
    #[inline(never)]
    fn map(&self, kt: &HiveType, vt: &HiveType, b: &[u8], level: usize) -> Value {
        let (Some(sep), Some(kv_sep)) = (self.sep(level), self.sep(level + 1)) else {
            return Value::Null;
        };
        let mut entries: Vec<(Value, Value)> = Vec::new();
        if b.is_empty() {
            return Value::Map(entries);
        }
        let mut seen = KeySet::default();
        for entry in self.split(b, sep) {
            let (kb, vb) = split_once(entry, kv_sep, self.opts.escape);
            if kb == self.opts.null_sequence.as_slice() {
                continue;
            }
            let key = self.value(kt, kb, level + 2);
            if key.is_null() || seen.contains_or_insert(&key, &entries) {
                continue;
            }
            let val = vb.map_or(Value::Null, |vb| self.nested(vt, vb, level + 2));
            entries.push((key, val));
        }
        Value::Map(entries)
    }

    /// `LazyUnion`: the tag (tinyint text) up to the first separator, then the value; NULL
    /// when either is missing or the tag is out of range.
    #[inline(never)]
    fn union(&self, members: &[HiveType], b: &[u8], level: usize) -> Value {
        self.union_value(members, b, level).unwrap_or(Value::Null)
    }

    fn union_value(&self, members: &[HiveType], b: &[u8], level: usize) -> Option<Value> {
        let (tag, rest) = split_once(b, self.sep(level)?, self.opts.escape);
        let tag = u8::try_from(scalar::parse_long(tag)?).ok()?;
        let member = members.get(tag as usize)?;
        let value = self.nested(member, rest?, level + 1);
        Some(Value::Union {
            tag,
            value: Box::new(value),
        })
    }
}

fn float(b: &[u8]) -> Option<f32> {
    scalar::number_text(b).and_then(java_float::parse_f32)
}

fn double(b: &[u8]) -> Option<f64> {
    scalar::number_text(b).and_then(java_float::parse_f64)
}

fn decimal(precision: u8, scale: u8, b: &[u8]) -> Option<Decimal> {
    if !scalar::is_number_maybe(b) {
        return None;
    }
    let (negative, mag, s) = scalar::parse_hive_decimal(b)?;
    scalar::enforce(negative, mag, s, precision, scale)
}

/// Typed decoding of primitive cells without building a [`Value`], for columnar readers.
/// Each takes a whole cell (the null sequence is NULL) and returns `None` for NULL, exactly
/// where [`TextSerde::decode`] returns [`Value::Null`].
impl TextSerde {
    fn is_null_cell(&self, cell: &[u8]) -> bool {
        cell == self.opts.null_sequence.as_slice()
    }

    /// A `tinyint`, `smallint`, `int` or `bigint` cell of type `ty`.
    pub fn decode_int(&self, ty: &HiveType, cell: &[u8]) -> Option<i64> {
        if self.is_null_cell(cell) {
            return None;
        }
        self.int(ty, cell)
    }

    /// A `boolean` cell.
    pub fn decode_boolean(&self, cell: &[u8]) -> Option<bool> {
        (!self.is_null_cell(cell))
            .then(|| self.boolean(cell))
            .flatten()
    }

    /// A `float` cell.
    pub fn decode_float(&self, cell: &[u8]) -> Option<f32> {
        (!self.is_null_cell(cell)).then(|| float(cell)).flatten()
    }

    /// A `double` cell.
    pub fn decode_double(&self, cell: &[u8]) -> Option<f64> {
        (!self.is_null_cell(cell)).then(|| double(cell)).flatten()
    }

    /// A `date` cell.
    pub fn decode_date(&self, cell: &[u8]) -> Option<Date> {
        (!self.is_null_cell(cell))
            .then(|| datetime::parse_date(cell))
            .flatten()
    }

    /// A `timestamp` cell.
    pub fn decode_timestamp(&self, cell: &[u8]) -> Option<Timestamp> {
        (!self.is_null_cell(cell))
            .then(|| datetime::parse_timestamp(cell))
            .flatten()
    }

    /// A `decimal(precision, scale)` cell, at exactly `scale`.
    pub fn decode_decimal(&self, precision: u8, scale: u8, cell: &[u8]) -> Option<Decimal> {
        (!self.is_null_cell(cell))
            .then(|| decimal(precision, scale, cell))
            .flatten()
    }

    /// Appends the bytes of a `string`, `varchar`, `char` or `binary` cell to `out` (no
    /// allocation beyond `out`); `false` when the cell is NULL or `ty` is not one of these
    /// (then nothing is appended).
    ///
    /// ```
    /// use colfile::rcfile::serde::{TextOptions, TextSerde};
    /// use colfile::rcfile::HiveType;
    /// let s = TextSerde::new(TextOptions::default());
    /// let mut buf = Vec::new();
    /// assert!(s.decode_bytes_into(&HiveType::Char(3), b"a", &mut buf));
    /// assert!(s.decode_bytes_into(&HiveType::Binary, b"YWJj", &mut buf));
    /// assert!(!s.decode_bytes_into(&HiveType::String, b"\\N", &mut buf));
    /// assert_eq!(buf, b"a  abc");
    /// ```
    pub fn decode_bytes_into(&self, ty: &HiveType, cell: &[u8], out: &mut Vec<u8>) -> bool {
        !self.is_null_cell(cell) && self.bytes_into(ty, cell, out)
    }
}

/// Duplicate-key detection with Hive's key equality: floats are equal when their bits are
/// (never for NaN, and 0.0 differs from -0.0, as `FloatWritable` hashes them), doubles when
/// `==` holds (`DoubleWritable` hashes the low bits, so 0.0 and -0.0 collide and compare
/// equal), everything else by value.
#[derive(Default)]
struct KeySet {
    /// Hash of each key -> index of the first entry with that hash (used above a few keys).
    first_by_hash: HashMap<u64, usize>,
}

impl KeySet {
    const LINEAR: usize = 16;

    /// True when `key` equals one in `entries`; otherwise remembers it (it is about to be
    /// pushed at index `entries.len()`).
    fn contains_or_insert(&mut self, key: &Value, entries: &[(Value, Value)]) -> bool {
        let linear = |entries: &[(Value, Value)]| entries.iter().any(|(k, _)| same_key(k, key));
        if entries.len() < Self::LINEAR {
            return linear(entries);
        }
        if self.first_by_hash.is_empty() {
            for (i, (k, _)) in entries.iter().enumerate() {
                self.first_by_hash.entry(key_hash(k)).or_insert(i);
            }
        }
        let h = key_hash(key);
        match self.first_by_hash.get(&h) {
            None => {
                self.first_by_hash.insert(h, entries.len());
                false
            }
            Some(&i) if entries.get(i).is_some_and(|(k, _)| same_key(k, key)) => true,
            Some(_) => linear(entries),
        }
    }
}

fn same_key(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Float(x), Value::Float(y)) => x.to_bits() == y.to_bits() && !x.is_nan(),
        (Value::Double(x), Value::Double(y)) => x == y,
        _ => a == b,
    }
}

fn key_hash(v: &Value) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    match v {
        Value::Float(x) => x.to_bits().hash(&mut h),
        Value::Double(x) => (if *x == 0.0 { 0 } else { x.to_bits() }).hash(&mut h),
        Value::String(b) | Value::Binary(b) => b.hash(&mut h),
        Value::Boolean(x) => x.hash(&mut h),
        Value::Date(d) => d.hash(&mut h),
        Value::Timestamp(t) => t.hash(&mut h),
        Value::Decimal(d) => d.hash(&mut h),
        other => other.as_i64().hash(&mut h),
    }
    h.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rcfile::serde::TextOptions;

    fn serde(props: &[(&str, &str)]) -> TextSerde {
        TextSerde::new(TextOptions::from_properties(props.iter().copied()).unwrap())
    }

    fn dec(s: &TextSerde, ty: &str, b: &[u8]) -> Value {
        s.decode(&ty.parse().unwrap(), b).unwrap()
    }

    #[test]
    fn splitting() {
        assert_eq!(find_sep(b"a\\,b,c", b',', Some(b'\\')), Some(4));
        assert_eq!(find_sep(b"ab\\", b',', Some(b'\\')), None);
        let parts: Vec<&[u8]> = Split {
            rest: Some(b",a,"),
            sep: b',',
            esc: None,
        }
        .collect();
        assert_eq!(parts, [&b""[..], b"a", b""]);
    }

    #[test]
    fn maps_drop_null_and_duplicate_keys() {
        let s = serde(&[]);
        let m = dec(
            &s,
            "map<int,string>",
            b"1\x03a\x02x\x03b\x023\x03c\x021\x03d\x02\\N\x03e",
        );
        assert_eq!(
            m,
            Value::Map(vec![
                (Value::Int(1), Value::string("a")),
                (Value::Int(3), Value::string("c"))
            ])
        );
        let m = dec(&s, "map<string,int>", b"\x02\x02a");
        assert_eq!(
            m,
            Value::Map(vec![
                (Value::string(""), Value::Null),
                (Value::string("a"), Value::Null)
            ])
        );
        let big: Vec<u8> = (0..100)
            .flat_map(|i| format!("{}\x03{i}\x02", i % 40).into_bytes())
            .collect();
        match dec(&s, "map<int,int>", &big) {
            Value::Map(e) => {
                assert_eq!(e.len(), 40);
                assert_eq!(e[39], (Value::Int(39), Value::Int(39)));
            }
            other => panic!("{other:?}"),
        }
        let m = dec(
            &s,
            "map<double,int>",
            b"0.0\x031\x02-0.0\x032\x02NaN\x033\x02NaN\x034",
        );
        assert!(matches!(m, Value::Map(e) if e.len() == 3));
        let m = dec(&s, "map<float,int>", b"0.0\x031\x02-0.0\x032");
        assert!(matches!(m, Value::Map(e) if e.len() == 2));
    }

    #[test]
    fn structs_and_unions() {
        let s = serde(&[]);
        let v = dec(&s, "struct<a:int,b:string,c:int>", b"1\x02x");
        assert_eq!(
            v,
            Value::Struct(vec![Value::Int(1), Value::string("x"), Value::Null])
        );
        let v = dec(&s, "struct<a:int,b:string>", b"1\x02x\x02y");
        assert_eq!(v, Value::Struct(vec![Value::Int(1), Value::string("x")]));
        let rest = serde(&[("serialization.last.column.takes.rest", "true")]);
        let v = dec(&rest, "struct<a:int,b:string>", b"1\x02x\x02y");
        assert_eq!(
            v,
            Value::Struct(vec![Value::Int(1), Value::string("x\x02y")])
        );
        let u = "uniontype<int,string>";
        let one = |v| Value::Union {
            tag: 1,
            value: Box::new(v),
        };
        assert_eq!(dec(&s, u, b"1\x02a\x02b"), one(Value::string("a\x02b")));
        assert_eq!(dec(&s, u, b"1.5\x02a"), one(Value::string("a")));
        assert_eq!(dec(&s, u, b"1\x02\\N"), one(Value::Null));
        for bad in [&b"1"[..], b"", b"2\x02x", b"x\x025", b"-1\x02a"] {
            assert_eq!(dec(&s, u, bad), Value::Null);
        }
    }

    #[test]
    fn escapes() {
        let s = serde(&[("escape.delim", "\\")]);
        assert_eq!(
            dec(&s, "string", b"a\\rb\\nc\\\\d\\xe\\"),
            Value::string("a\rb\nc\\dxe\\")
        );
        assert_eq!(dec(&s, "string", b"\\\\N"), Value::string("\\N"));
        assert_eq!(dec(&s, "char(3)", b"a\\"), Value::string("a\\ "));
        assert_eq!(
            dec(&s, "array<int>", b"1\\\x022"),
            Value::Array(vec![Value::Null])
        );
        let a = dec(&s, "array<string>", b"a\\\x02b\x02c");
        assert_eq!(
            a,
            Value::Array(vec![Value::string("a\x02b"), Value::string("c")])
        );
    }

    #[test]
    fn booleans() {
        let s = serde(&[]);
        assert_eq!(dec(&s, "boolean", b"tRuE"), Value::Boolean(true));
        assert_eq!(dec(&s, "boolean", b"T"), Value::Null);
        let x = serde(&[("hive.lazysimple.extended_boolean_literal", "true")]);
        assert_eq!(dec(&x, "boolean", b"T"), Value::Boolean(true));
        assert_eq!(dec(&x, "boolean", b"0"), Value::Boolean(false));
        assert_eq!(dec(&x, "boolean", b"yes"), Value::Null);
    }
}
