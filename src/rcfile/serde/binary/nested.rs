//! The nested LazyBinary layout: primitives in their self-delimiting form, complex values as a
//! 4-byte size followed by their body, and the bodies of arrays, maps, structs and unions
//! (which is all a top-level complex cell holds).

use super::time::read_timestamp;
use super::{i128_from_be, rescale, string_value, write_i128_be, write_string_like, BinarySerde};
use crate::cursor::Cursor;
use crate::rcfile::hadoop::write_vlong;
use crate::rcfile::{Date, Decimal, Field, HiveType, Timestamp, Value};
use crate::{Error, Result};

fn corrupt(msg: impl Into<String>) -> Error {
    Error::corrupt("lazybinary", msg)
}

fn mismatch(ty: &HiveType, v: &Value) -> Error {
    let what = match v {
        Value::Null => "NULL",
        Value::Boolean(_) => "a boolean",
        Value::TinyInt(_) => "a tinyint",
        Value::SmallInt(_) => "a smallint",
        Value::Int(_) => "an int",
        Value::BigInt(_) => "a bigint",
        Value::Float(_) => "a float",
        Value::Double(_) => "a double",
        Value::String(_) => "a string",
        Value::Binary(_) => "a binary",
        Value::Date(_) => "a date",
        Value::Timestamp(_) => "a timestamp",
        Value::Decimal(_) => "a decimal",
        Value::Array(_) => "an array",
        Value::Map(_) => "a map",
        Value::Struct(_) => "a struct",
        Value::Union { .. } => "a union",
    };
    Error::invalid(format!("cannot write {what} as {ty}"))
}

/// Reads a non-negative VInt count or length.
#[inline]
fn read_count(c: &mut Cursor<'_>, what: &str) -> Result<usize> {
    let at = c.offset();
    let n = c.read_vint()?;
    usize::try_from(n).map_err(|_| corrupt(format!("negative {what} {n}")).at_offset(at))
}

/// Takes `n` null-bitmap bytes.
#[inline]
fn take_bitmap<'a>(c: &mut Cursor<'a>, bits: usize) -> Result<&'a [u8]> {
    c.take("null bitmap", bits.div_ceil(8))
}

#[inline]
fn bit(bitmap: &[u8], i: usize) -> bool {
    bitmap.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0)
}

impl BinarySerde {
    /// Reads one value in its nested (self-delimiting) form.
    #[inline]
    pub(super) fn read_nested(&self, ty: &HiveType, c: &mut Cursor<'_>) -> Result<Value> {
        if ty.is_primitive() {
            self.read_primitive(ty, c)
        } else {
            self.read_sized(ty, c)
        }
    }

    /// A `date` in nested form (a VInt day count in the configured calendar).
    #[inline]
    pub(crate) fn read_date(&self, c: &mut Cursor<'_>) -> Result<Date> {
        let at = c.offset();
        self.date_from_stored(c.read_vint()?)
            .map_err(|e| e.at_offset(at))
    }

    /// A `timestamp` in nested form (`TimestampWritable`), as wall clock.
    #[inline]
    pub(crate) fn read_timestamp_value(&self, c: &mut Cursor<'_>) -> Result<Timestamp> {
        let (s, n) = read_timestamp(c)?;
        Ok(self.timestamp_from_stored(s, n))
    }

    /// A `decimal(precision, scale)` in nested form, rescaled to the column; `None` (NULL, as
    /// in Hive) when it needs more than 128 bits or more digits than the column has.
    #[inline]
    pub(crate) fn read_decimal(
        &self,
        c: &mut Cursor<'_>,
        precision: u8,
        scale: u8,
    ) -> Result<Option<Decimal>> {
        let stored_scale = c.read_vint()?;
        let at = c.offset();
        let n = c.read_vint()?;
        if n <= 0 {
            return Err(corrupt(format!("decimal byte length {n}")).at_offset(at));
        }
        let bytes = c.take("decimal", n as usize)?;
        Ok(i128_from_be(bytes).and_then(|u| rescale(u, stored_scale, precision, scale)))
    }

    /// A complex value: its 4-byte size, then its body.
    fn read_sized(&self, ty: &HiveType, c: &mut Cursor<'_>) -> Result<Value> {
        let at = c.offset();
        let size = c.read_i32_be()?;
        let n = usize::try_from(size)
            .map_err(|_| corrupt(format!("negative {ty} size {size}")).at_offset(at))?;
        let base = c.offset();
        let body = c.take("nested value", n)?;
        self.read_body(ty, &mut Cursor::new(body, base))
    }

    /// A primitive value (top-level cells of these types have the same layout).
    #[inline]
    pub(super) fn read_primitive(&self, ty: &HiveType, c: &mut Cursor<'_>) -> Result<Value> {
        Ok(match ty {
            HiveType::Boolean => Value::Boolean(c.read_u8()? != 0),
            HiveType::TinyInt => Value::TinyInt(c.read_u8()? as i8),
            HiveType::SmallInt => Value::SmallInt(i16::from_be_bytes(c.array("smallint")?)),
            HiveType::Int => Value::Int(c.read_vint()?),
            HiveType::BigInt => Value::BigInt(c.read_vlong()?),
            HiveType::Float => Value::Float(f32::from_bits(u32::from_be_bytes(c.array("float")?))),
            HiveType::Double => {
                Value::Double(f64::from_bits(u64::from_be_bytes(c.array("double")?)))
            }
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) => {
                let n = read_count(c, "string length")?;
                string_value(ty, c.take("string", n)?)
            }
            HiveType::Binary => {
                let n = read_count(c, "binary length")?;
                Value::Binary(c.take("binary", n)?.to_vec())
            }
            HiveType::Date => Value::Date(self.read_date(c)?),
            HiveType::Timestamp => Value::Timestamp(self.read_timestamp_value(c)?),
            HiveType::Decimal { precision, scale } => self
                .read_decimal(c, *precision, *scale)?
                .map_or(Value::Null, Value::Decimal),
            HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_) => {
                self.read_sized(ty, c)?
            }
        })
    }

    /// Reads the body of a complex value: everything after the 4-byte size (a top-level
    /// complex cell is just this). Bytes after the value are ignored, as Hive ignores them.
    pub(super) fn read_body(&self, ty: &HiveType, c: &mut Cursor<'_>) -> Result<Value> {
        match ty {
            HiveType::Array(et) => {
                let n = read_count(c, "array length")?;
                if n == 0 {
                    return Ok(Value::Array(Vec::new()));
                }
                let bitmap = take_bitmap(c, n)?;
                // n <= 8 × bitmap bytes, which were all present: bounded by the input.
                let mut items = Vec::with_capacity(n);
                for i in 0..n {
                    items.push(if bit(bitmap, i) {
                        self.read_nested(et, c)?
                    } else {
                        Value::Null
                    });
                }
                Ok(Value::Array(items))
            }
            HiveType::Map(kt, vt) => {
                let n = read_count(c, "map size")?;
                if n == 0 {
                    return Ok(Value::Map(Vec::new()));
                }
                let bits = n
                    .checked_mul(2)
                    .ok_or_else(|| corrupt("map size overflows"))?;
                let bitmap = take_bitmap(c, bits)?;
                let mut entries = Vec::with_capacity(n);
                for i in 0..n {
                    let k = if bit(bitmap, 2 * i) {
                        self.read_nested(kt, c)?
                    } else {
                        Value::Null
                    };
                    let v = if bit(bitmap, 2 * i + 1) {
                        self.read_nested(vt, c)?
                    } else {
                        Value::Null
                    };
                    entries.push((k, v));
                }
                Ok(Value::Map(entries))
            }
            HiveType::Struct(fields) => self.read_struct(fields, c),
            HiveType::Union(members) => {
                let at = c.offset();
                let tag = c.read_u8()?;
                let mt = members.get(tag as usize).ok_or_else(|| {
                    corrupt(format!(
                        "union tag {tag} but the type has {} members",
                        members.len()
                    ))
                    .at_offset(at)
                })?;
                // Hive writes a NULL member value as the tag alone.
                let value = if c.is_empty() {
                    Value::Null
                } else {
                    self.read_nested(mt, c)?
                };
                Ok(Value::Union {
                    tag,
                    value: Box::new(value),
                })
            }
            _ => self.read_primitive(ty, c),
        }
    }

    /// Struct fields in groups of eight, each group led by its null byte. When the bytes end
    /// at a group boundary the remaining fields are NULL (a file written with fewer fields);
    /// data for fields beyond the schema is ignored.
    fn read_struct(&self, fields: &[Field], c: &mut Cursor<'_>) -> Result<Value> {
        let mut vals = Vec::with_capacity(fields.len());
        let mut nulls = 0u8;
        for (i, f) in fields.iter().enumerate() {
            if i % 8 == 0 {
                if c.is_empty() {
                    vals.resize(fields.len(), Value::Null);
                    break;
                }
                nulls = c.read_u8()?;
            }
            vals.push(if nulls & (1 << (i % 8)) != 0 {
                self.read_nested(&f.ty, c)?
            } else {
                Value::Null
            });
        }
        Ok(Value::Struct(vals))
    }

    /// Appends a non-NULL value in its nested form.
    pub(super) fn write_nested(&self, ty: &HiveType, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        match (ty, v) {
            (HiveType::Boolean, Value::Boolean(b)) => out.push(u8::from(*b)),
            (HiveType::TinyInt, Value::TinyInt(x)) => out.push(*x as u8),
            (HiveType::SmallInt, Value::SmallInt(x)) => out.extend_from_slice(&x.to_be_bytes()),
            (HiveType::Int, Value::Int(x)) => write_vlong(out, i64::from(*x)),
            (HiveType::BigInt, Value::BigInt(x)) => write_vlong(out, *x),
            (HiveType::Float, Value::Float(x)) => out.extend_from_slice(&float_cell(*x)),
            (HiveType::Double, Value::Double(x)) => out.extend_from_slice(&double_cell(*x)),
            (HiveType::String | HiveType::Varchar(_) | HiveType::Char(_), Value::String(s)) => {
                write_string_like(ty, s, true, out);
            }
            (HiveType::Binary, Value::Binary(b)) => {
                write_vlong(out, b.len() as i64);
                out.extend_from_slice(b);
            }
            (HiveType::Date, Value::Date(d)) => {
                write_vlong(out, i64::from(self.date_to_stored(*d)?))
            }
            (HiveType::Timestamp, Value::Timestamp(t)) => {
                if t.nanos >= 1_000_000_000 {
                    return Err(Error::invalid(format!(
                        "timestamp nanos {} out of range",
                        t.nanos
                    )));
                }
                self.put_timestamp(*t, out);
            }
            (HiveType::Decimal { precision, scale }, Value::Decimal(d)) => {
                let fitted = rescale(d.unscaled, i32::from(d.scale), *precision, *scale)
                    .ok_or_else(|| Error::invalid(format!("decimal {d} does not fit {ty}")))?;
                put_decimal(fitted, out);
            }
            (
                HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_),
                _,
            ) => {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                self.write_body(ty, v, out)?;
                let size = i32::try_from(out.len() - at - 4)
                    .map_err(|_| Error::invalid(format!("{ty} value larger than 2 GiB")))?;
                if let Some(s) = out.get_mut(at..at + 4) {
                    s.copy_from_slice(&size.to_be_bytes());
                }
            }
            _ => return Err(mismatch(ty, v)),
        }
        Ok(())
    }

    /// Appends the body of a non-NULL complex value (a top-level complex cell).
    pub(super) fn write_body(&self, ty: &HiveType, v: &Value, out: &mut Vec<u8>) -> Result<()> {
        match (ty, v) {
            (HiveType::Array(et), Value::Array(items)) => {
                write_count(out, items.len())?;
                write_bitmap(out, items.iter().map(|x| !x.is_null()));
                for x in items.iter().filter(|x| !x.is_null()) {
                    self.write_nested(et, x, out)?;
                }
            }
            (HiveType::Map(kt, vt), Value::Map(entries)) => {
                write_count(out, entries.len())?;
                write_bitmap(
                    out,
                    entries
                        .iter()
                        .flat_map(|(k, x)| [!k.is_null(), !x.is_null()]),
                );
                for (k, x) in entries {
                    if !k.is_null() {
                        self.write_nested(kt, k, out)?;
                    }
                    if !x.is_null() {
                        self.write_nested(vt, x, out)?;
                    }
                }
            }
            (HiveType::Struct(fields), Value::Struct(vals)) => {
                if fields.len() != vals.len() {
                    return Err(Error::invalid(format!(
                        "struct value has {} fields but {ty} has {}",
                        vals.len(),
                        fields.len()
                    )));
                }
                for (fs, vs) in fields.chunks(8).zip(vals.chunks(8)) {
                    write_bitmap(out, vs.iter().map(|x| !x.is_null()));
                    for (f, x) in fs.iter().zip(vs).filter(|(_, x)| !x.is_null()) {
                        self.write_nested(&f.ty, x, out)?;
                    }
                }
            }
            (HiveType::Union(members), Value::Union { tag, value }) => {
                let mt = members.get(*tag as usize).ok_or_else(|| {
                    Error::invalid(format!(
                        "union tag {tag} but {ty} has {} members",
                        members.len()
                    ))
                })?;
                out.push(*tag);
                if !value.is_null() {
                    self.write_nested(mt, value, out)?;
                }
            }
            _ => return Err(mismatch(ty, v)),
        }
        Ok(())
    }
}

/// Appends an element count (a VInt, so at most `i32::MAX`).
fn write_count(out: &mut Vec<u8>, n: usize) -> Result<()> {
    let n = i32::try_from(n)
        .map_err(|_| Error::invalid(format!("{n} elements: more than a VInt holds")))?;
    write_vlong(out, i64::from(n));
    Ok(())
}

/// Appends a null bitmap (bit set = present), LSB first; nothing for zero bits.
fn write_bitmap(out: &mut Vec<u8>, present: impl Iterator<Item = bool>) {
    let mut byte = 0u8;
    let mut n = 0;
    for p in present {
        if p {
            byte |= 1 << (n % 8);
        }
        n += 1;
        if n % 8 == 0 {
            out.push(byte);
            byte = 0;
        }
    }
    if n % 8 != 0 {
        out.push(byte);
    }
}

/// A `float`'s bytes: Java's `Float.floatToIntBits`, big-endian (every NaN the canonical one).
#[inline]
pub(crate) fn float_cell(x: f32) -> [u8; 4] {
    let bits = if x.is_nan() { 0x7FC0_0000 } else { x.to_bits() };
    bits.to_be_bytes()
}

/// A `double`'s bytes: Java's `Double.doubleToLongBits`, big-endian (every NaN the canonical
/// one).
#[inline]
pub(crate) fn double_cell(x: f64) -> [u8; 8] {
    let bits = if x.is_nan() {
        0x7FF8_0000_0000_0000
    } else {
        x.to_bits()
    };
    bits.to_be_bytes()
}

/// Appends the cell of a decimal already fitted to its column: Hive writes the value's own,
/// normalized scale, then its unscaled bytes with their count.
#[inline]
pub(crate) fn put_decimal(fitted: Decimal, out: &mut Vec<u8>) {
    let n = fitted.normalized();
    write_vlong(out, i64::from(n.scale));
    let len_at = out.len();
    out.push(0);
    let len = write_i128_be(n.unscaled, out);
    if let Some(b) = out.get_mut(len_at) {
        *b = len as u8; // 1..=16: a one-byte VInt
    }
}
