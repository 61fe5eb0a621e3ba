//! Single TsFile values: [`Value`] (owned; what writers take row by row) and [`ValueRef`]
//! (borrowed from decoded [`Values`]; what readers hand out row by row).

use super::values::Values;
use crate::tsfile::format::{DataType, Physical};
use crate::{Error, Result};

/// One owned value, or null.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// No value.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// INT32, and DATE as `YYYYMMDD`.
    Int32(i32),
    /// INT64 and TIMESTAMP.
    Int64(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// TEXT, STRING (UTF-8 by convention), BLOB, OBJECT.
    Binary(Vec<u8>),
}

/// One borrowed value, or null.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum ValueRef<'a> {
    /// No value.
    Null,
    /// BOOLEAN.
    Boolean(bool),
    /// INT32, and DATE as `YYYYMMDD`.
    Int32(i32),
    /// INT64 and TIMESTAMP.
    Int64(i64),
    /// FLOAT.
    Float(f32),
    /// DOUBLE.
    Double(f64),
    /// TEXT, STRING, BLOB, OBJECT.
    Binary(&'a [u8]),
}

impl Value {
    /// A TEXT/STRING value.
    pub fn string(s: &str) -> Value {
        Value::Binary(s.as_bytes().to_vec())
    }
    /// True for [`Value::Null`].
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// Borrows the value.
    pub fn as_ref(&self) -> ValueRef<'_> {
        match self {
            Value::Null => ValueRef::Null,
            Value::Boolean(v) => ValueRef::Boolean(*v),
            Value::Int32(v) => ValueRef::Int32(*v),
            Value::Int64(v) => ValueRef::Int64(*v),
            Value::Float(v) => ValueRef::Float(*v),
            Value::Double(v) => ValueRef::Double(*v),
            Value::Binary(v) => ValueRef::Binary(v),
        }
    }
    /// The physical type, `None` for null.
    pub fn physical(&self) -> Option<Physical> {
        self.as_ref().physical()
    }
}

impl ValueRef<'_> {
    /// The physical type, `None` for null.
    pub fn physical(&self) -> Option<Physical> {
        Some(match self {
            ValueRef::Null => return None,
            ValueRef::Boolean(_) => Physical::Boolean,
            ValueRef::Int32(_) => Physical::Int32,
            ValueRef::Int64(_) => Physical::Int64,
            ValueRef::Float(_) => Physical::Float,
            ValueRef::Double(_) => Physical::Double,
            ValueRef::Binary(_) => Physical::Binary,
        })
    }
    /// An owned copy.
    pub fn to_owned(&self) -> Value {
        match *self {
            ValueRef::Null => Value::Null,
            ValueRef::Boolean(v) => Value::Boolean(v),
            ValueRef::Int32(v) => Value::Int32(v),
            ValueRef::Int64(v) => Value::Int64(v),
            ValueRef::Float(v) => Value::Float(v),
            ValueRef::Double(v) => Value::Double(v),
            ValueRef::Binary(v) => Value::Binary(v.to_vec()),
        }
    }
}

impl Values {
    /// Value `i` of the run, or `None` past the end.
    pub fn get(&self, i: usize) -> Option<ValueRef<'_>> {
        Some(match self {
            Values::Boolean(v) => ValueRef::Boolean(*v.get(i)?),
            Values::Int32(v) => ValueRef::Int32(*v.get(i)?),
            Values::Int64(v) => ValueRef::Int64(*v.get(i)?),
            Values::Float(v) => ValueRef::Float(*v.get(i)?),
            Values::Double(v) => ValueRef::Double(*v.get(i)?),
            Values::Binary(v) => ValueRef::Binary(v.get(i)?),
        })
    }

    /// Appends a non-null value of this run's physical type.
    ///
    /// Errors: [`ErrorKind::Schema`](crate::ErrorKind::Schema) for null or another type.
    pub fn push(&mut self, v: ValueRef<'_>) -> Result<()> {
        match (self, v) {
            (Values::Boolean(a), ValueRef::Boolean(x)) => a.push(x),
            (Values::Int32(a), ValueRef::Int32(x)) => a.push(x),
            (Values::Int64(a), ValueRef::Int64(x)) => a.push(x),
            (Values::Float(a), ValueRef::Float(x)) => a.push(x),
            (Values::Double(a), ValueRef::Double(x)) => a.push(x),
            (Values::Binary(a), ValueRef::Binary(x)) => a.push(x),
            (s, v) => {
                return Err(Error::schema(format!(
                    "a {:?} value does not fit a {:?} column",
                    v.physical(),
                    s.physical()
                )))
            }
        }
        Ok(())
    }

    /// Bytes the run takes in memory (values only), for flush decisions.
    pub fn mem_size(&self) -> usize {
        match self {
            Values::Boolean(v) => v.len(),
            Values::Int32(v) => v.len() * 4,
            Values::Int64(v) => v.len() * 8,
            Values::Float(v) => v.len() * 4,
            Values::Double(v) => v.len() * 8,
            Values::Binary(v) => v.data_len() + v.len() * 8,
        }
    }

    /// Bytes the run has allocated (capacity, not length), for memory accounting.
    pub fn allocated_bytes(&self) -> usize {
        match self {
            Values::Boolean(v) => v.capacity(),
            Values::Int32(v) => v.capacity() * 4,
            Values::Int64(v) => v.capacity() * 8,
            Values::Float(v) => v.capacity() * 4,
            Values::Double(v) => v.capacity() * 8,
            Values::Binary(v) => v.allocated_bytes(),
        }
    }
}

/// Checks that `v` may be stored in a column of `data_type` (null always may).
pub fn check_type(data_type: DataType, v: ValueRef<'_>) -> Result<()> {
    match v.physical() {
        None => Ok(()),
        Some(p) if p == data_type.physical()? => Ok(()),
        Some(p) => Err(Error::schema(format!(
            "a {p:?} value does not fit a {data_type} column"
        ))),
    }
}

/// A DATE's `YYYYMMDD` integer as `YYYY-MM-DD`, or `None` if it is not a valid date.
pub fn date_to_string(v: i32) -> Option<String> {
    let (y, m, d) = (v / 10000, v / 100 % 100, v % 100);
    if !(0..=9999).contains(&y) || !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    Some(format!("{y:04}-{m:02}-{d:02}"))
}

/// Parses `YYYY-MM-DD` into the DATE integer `YYYYMMDD`.
pub fn parse_date(s: &str) -> Option<i32> {
    let b = s.as_bytes();
    let &[_, _, _, _, b'-', _, _, b'-', _, _] = b else {
        return None;
    };
    let num = |r: std::ops::Range<usize>| s.get(r)?.parse::<i32>().ok();
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    Some(y * 10000 + m * 100 + d)
}

fn days_in_month(y: i32, m: i32) -> i32 {
    match m {
        2 if (y % 4 == 0 && y % 100 != 0) || y % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(parse_date("2024-02-29"), Some(20240229));
        assert_eq!(parse_date("2023-02-29"), None);
        assert_eq!(date_to_string(99991231).as_deref(), Some("9999-12-31"));
        assert_eq!(date_to_string(20241301), None);
    }

    #[test]
    fn push_checks_the_type() {
        let mut v = Values::Int32(vec![]);
        v.push(ValueRef::Int32(3)).unwrap();
        assert!(v.push(ValueRef::Int64(3)).is_err());
        assert_eq!(v.get(0), Some(ValueRef::Int32(3)));
    }
}
