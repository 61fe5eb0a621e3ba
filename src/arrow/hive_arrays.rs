//! Decoded RCFile columns to Arrow arrays: a [`ColumnBatch`] of a primitive type (or an
//! array of one) becomes buffers directly; maps, structs, unions and arrays of complex types
//! go through their [`Value`]s, recursively, one child array per member.

use std::sync::Arc;

use arrow_array::types::{
    Date32Type, Decimal128Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type,
    Int8Type, TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType,
};
use arrow_array::{
    ArrayRef, ArrowPrimitiveType, BinaryArray, BooleanArray, ListArray, MapArray, PrimitiveArray,
    StringArray, StructArray, UnionArray,
};
use arrow_buffer::{BooleanBuffer, Buffer, NullBuffer, OffsetBuffer, ScalarBuffer};
use arrow_schema::{DataType, Field, TimeUnit};

use super::from_arrow;
use super::hive_types::{arrow_type, hive_field};
use super::spare::Spare;
use crate::rcfile::batch::{BatchValues, ColumnBatch};
use crate::rcfile::{Decimal, HiveType, Timestamp, Value};
use crate::{Error, Result};

/// How Hive values become Arrow values.
#[derive(Clone, Copy, Debug)]
pub(super) struct HiveToArrow {
    /// The unit of `timestamp` columns.
    pub unit: TimeUnit,
    /// Replace bytes that are not UTF-8 in strings instead of failing.
    pub lossy_utf8: bool,
}

impl HiveToArrow {
    /// The Arrow type of `ty` under these options (the timestamp unit).
    pub fn data_type(&self, ty: &HiveType) -> DataType {
        arrow_type(ty, self.unit)
    }

    /// A nullable field of Hive type `ty` under these options.
    pub fn field(&self, name: &str, ty: &HiveType) -> Field {
        hive_field(name, ty, true, self.unit)
    }

    /// One decoded column as an array of [`data_type`](Self::data_type)`(ty)`. Vectors
    /// that Arrow can hold as they are move into the array (lent through `spare`, to be
    /// taken back by [`restore`] before the next row group is decoded into `batch`).
    pub fn column(
        &self,
        batch: &mut ColumnBatch,
        ty: &HiveType,
        spare: &mut Spare,
    ) -> Result<ArrayRef> {
        let (valid, values) = batch.parts_mut();
        let nulls = null_buffer(valid);
        Ok(match (values, ty) {
            (BatchValues::Boolean(v), _) => {
                Arc::new(BooleanArray::new(BooleanBuffer::from(v.as_slice()), nulls))
            }
            (BatchValues::Int(v), HiveType::TinyInt) => narrow::<Int8Type>(v, nulls, spare),
            (BatchValues::Int(v), HiveType::SmallInt) => narrow::<Int16Type>(v, nulls, spare),
            (BatchValues::Int(v), HiveType::Int) => narrow::<Int32Type>(v, nulls, spare),
            (BatchValues::Int(v), _) => lend::<Int64Type>(take(v), nulls, spare),
            (BatchValues::Float(v), _) => lend::<Float32Type>(take(v), nulls, spare),
            (BatchValues::Double(v), _) => lend::<Float64Type>(take(v), nulls, spare),
            (BatchValues::Date(v), _) => lend::<Date32Type>(take(v), nulls, spare),
            (BatchValues::Bytes { data, offsets }, _) => {
                let offsets = offsets32(take(offsets), Some(spare))?;
                let data = spare.lend(take(data)).into_inner();
                self.bytes(ty, offsets, data, nulls)?
            }
            (BatchValues::Timestamp(v), _) => {
                let mut out = spare.take::<i64>();
                for (row, (t, ok)) in v.iter().zip(valid.iter()).enumerate() {
                    let x = if *ok { self.timestamp(*t) } else { Some(0) };
                    out.push(x.ok_or_else(|| out_of_range(*t).at_row(row as u64))?);
                }
                self.timestamps(spare.lend(out), nulls)
            }
            (BatchValues::Decimal { values, .. }, HiveType::Decimal { precision, scale }) => {
                decimal(spare.lend(take(values)), *precision, *scale, nulls)?
            }
            (BatchValues::List { offsets, items }, HiveType::Array(item)) => {
                let offsets = offsets32(take(offsets), Some(spare))?;
                let child = self.column(items, item, spare)?;
                let field = Arc::new(self.field("item", item));
                let list = ListArray::try_new(field, offsets, child, nulls);
                Arc::new(list.map_err(from_arrow)?)
            }
            (BatchValues::Nested(values), _) => {
                let refs: Vec<&Value> = values.iter().collect();
                self.values(&refs, ty)?
            }
            (_, _) => return Err(mismatch(ty)),
        })
    }

    /// `values` (one per row, [`Value::Null`] for NULL) as an array of Hive type `ty`.
    pub fn values(&self, values: &[&Value], ty: &HiveType) -> Result<ArrayRef> {
        let nulls = null_buffer(&values.iter().map(|v| !v.is_null()).collect::<Vec<_>>());
        macro_rules! prim {
            ($t:ty, $variant:ident) => {{
                let mut out = Vec::with_capacity(values.len());
                for v in values {
                    out.push(match v {
                        Value::$variant(x) => *x,
                        Value::Null => Default::default(),
                        _ => return Err(mismatch(ty)),
                    });
                }
                primitive::<$t>(out, nulls)
            }};
        }
        Ok(match ty {
            HiveType::Boolean => {
                let mut out = Vec::with_capacity(values.len());
                for v in values {
                    out.push(match v {
                        Value::Boolean(b) => *b,
                        Value::Null => false,
                        _ => return Err(mismatch(ty)),
                    });
                }
                Arc::new(BooleanArray::new(BooleanBuffer::from(out), nulls))
            }
            HiveType::TinyInt => prim!(Int8Type, TinyInt),
            HiveType::SmallInt => prim!(Int16Type, SmallInt),
            HiveType::Int => prim!(Int32Type, Int),
            HiveType::BigInt => prim!(Int64Type, BigInt),
            HiveType::Float => prim!(Float32Type, Float),
            HiveType::Double => prim!(Float64Type, Double),
            HiveType::Date => {
                let mut out = Vec::with_capacity(values.len());
                for v in values {
                    out.push(match v {
                        Value::Date(d) => d.days(),
                        Value::Null => 0,
                        _ => return Err(mismatch(ty)),
                    });
                }
                primitive::<Date32Type>(out, nulls)
            }
            HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) | HiveType::Binary => {
                let (mut data, mut ends) = (Vec::new(), Vec::with_capacity(values.len() + 1));
                ends.push(0u32);
                for v in values {
                    match v {
                        Value::String(b) | Value::Binary(b) => data.extend_from_slice(b),
                        Value::Null => {}
                        _ => return Err(mismatch(ty)),
                    }
                    ends.push(u32::try_from(data.len()).map_err(|_| too_big())?);
                }
                self.bytes(ty, offsets32(ends, None)?, Buffer::from(data), nulls)?
            }
            HiveType::Timestamp => {
                let mut out = Vec::with_capacity(values.len());
                for v in values {
                    out.push(match v {
                        Value::Timestamp(t) => {
                            self.timestamp(*t).ok_or_else(|| out_of_range(*t))?
                        }
                        Value::Null => 0,
                        _ => return Err(mismatch(ty)),
                    });
                }
                self.timestamps(out.into(), nulls)
            }
            HiveType::Decimal { precision, scale } => {
                let mut out = Vec::with_capacity(values.len());
                let mut valid = Vec::with_capacity(values.len());
                for v in values {
                    let d = match v {
                        Value::Decimal(d) => d.round_to(*precision, *scale),
                        Value::Null => None,
                        _ => return Err(mismatch(ty)),
                    };
                    valid.push(d.is_some());
                    out.push(d.map_or(0, |d: Decimal| d.unscaled));
                }
                decimal(out.into(), *precision, *scale, null_buffer(&valid))?
            }
            HiveType::Array(item) => {
                let mut items: Vec<&Value> = Vec::new();
                let mut ends = vec![0u32];
                for v in values {
                    match v {
                        Value::Array(xs) => items.extend(xs.iter()),
                        Value::Null => {}
                        _ => return Err(mismatch(ty)),
                    }
                    ends.push(u32::try_from(items.len()).map_err(|_| too_big())?);
                }
                let child = self.values(&items, item)?;
                let field = Arc::new(self.field("item", item));
                let list = ListArray::try_new(field, offsets32(ends, None)?, child, nulls);
                Arc::new(list.map_err(from_arrow)?)
            }
            HiveType::Map(kt, vt) => self.map(values, kt, vt, nulls)?,
            HiveType::Struct(fields) => {
                let mut children = Vec::with_capacity(fields.len());
                for (j, f) in fields.iter().enumerate() {
                    let member: Vec<&Value> = values
                        .iter()
                        .map(|v| match v {
                            Value::Struct(ms) => ms.get(j).unwrap_or(&Value::Null),
                            _ => &Value::Null,
                        })
                        .collect();
                    children.push(self.values(&member, &f.ty)?);
                }
                let DataType::Struct(fs) = self.data_type(ty) else {
                    return Err(mismatch(ty));
                };
                Arc::new(StructArray::try_new(fs, children, nulls).map_err(from_arrow)?)
            }
            HiveType::Union(members) => self.union(values, ty, members)?,
        })
    }

    fn map(
        &self,
        values: &[&Value],
        kt: &HiveType,
        vt: &HiveType,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef> {
        let (mut keys, mut vals): (Vec<&Value>, Vec<&Value>) = (Vec::new(), Vec::new());
        let mut ends = vec![0u32];
        for v in values {
            match v {
                Value::Map(entries) => {
                    for (k, x) in entries {
                        if k.is_null() {
                            return Err(Error::unsupported(
                                "a map key is NULL (Arrow map keys cannot be null)",
                            ));
                        }
                        keys.push(k);
                        vals.push(x);
                    }
                }
                Value::Null => {}
                _ => return Err(mismatch(kt)),
            }
            ends.push(u32::try_from(keys.len()).map_err(|_| too_big())?);
        }
        let DataType::Map(entries_field, _) =
            self.data_type(&HiveType::Map(Box::new(kt.clone()), Box::new(vt.clone())))
        else {
            return Err(mismatch(kt));
        };
        let DataType::Struct(kv) = entries_field.data_type() else {
            return Err(mismatch(kt));
        };
        let children = vec![self.values(&keys, kt)?, self.values(&vals, vt)?];
        let entries = StructArray::try_new(kv.clone(), children, None).map_err(from_arrow)?;
        let map = MapArray::try_new(entries_field, offsets32(ends, None)?, entries, nulls, false);
        Ok(Arc::new(map.map_err(from_arrow)?))
    }

    fn union(&self, values: &[&Value], ty: &HiveType, members: &[HiveType]) -> Result<ArrayRef> {
        let mut per_member: Vec<Vec<&Value>> = vec![Vec::new(); members.len()];
        let (mut ids, mut offsets) = (Vec::new(), Vec::new());
        for v in values {
            let (tag, inner) = match v {
                Value::Union { tag, value } => (*tag, value.as_ref()),
                Value::Null => (0, &Value::Null),
                _ => return Err(mismatch(ty)),
            };
            let slot = per_member
                .get_mut(usize::from(tag))
                .ok_or_else(|| Error::invalid(format!("union tag {tag} has no member type")))?;
            ids.push(i8::try_from(tag).map_err(|_| too_big())?);
            offsets.push(i32::try_from(slot.len()).map_err(|_| too_big())?);
            slot.push(inner);
        }
        let DataType::Union(fields, _) = self.data_type(ty) else {
            return Err(mismatch(ty));
        };
        let children = per_member
            .iter()
            .zip(members)
            .map(|(vs, t)| self.values(vs, t))
            .collect::<Result<Vec<_>>>()?;
        let u = UnionArray::try_new(fields, ids.into(), Some(offsets.into()), children);
        Ok(Arc::new(u.map_err(from_arrow)?))
    }

    /// Strings (validated as UTF-8, or replaced when lossy) or binaries.
    fn bytes(
        &self,
        ty: &HiveType,
        offsets: OffsetBuffer<i32>,
        data: Buffer,
        nulls: Option<NullBuffer>,
    ) -> Result<ArrayRef> {
        if *ty == HiveType::Binary {
            let a = BinaryArray::try_new(offsets, data, nulls).map_err(from_arrow)?;
            return Ok(Arc::new(a));
        }
        if let Ok(a) = StringArray::try_new(offsets.clone(), data.clone(), nulls.clone()) {
            return Ok(Arc::new(a));
        }
        // Find the first value that is not UTF-8, then fail or replace.
        let cells = offsets.windows(2).map(|w| match *w {
            [a, b] => data.get(a as usize..b as usize).unwrap_or_default(),
            _ => &[],
        });
        if !self.lossy_utf8 {
            let row = cells
                .clone()
                .position(|c| std::str::from_utf8(c).is_err())
                .unwrap_or(0);
            return Err(Error::invalid(format!(
                "a {ty} value is not UTF-8 (read it as binary, or turn on lossy UTF-8)"
            ))
            .at_row(row as u64));
        }
        let a: StringArray = cells
            .zip(0..)
            .map(|(c, i)| {
                let valid = nulls.as_ref().is_none_or(|n| n.is_valid(i));
                valid.then(|| String::from_utf8_lossy(c).into_owned())
            })
            .collect();
        Ok(Arc::new(a))
    }

    /// A timestamp in this unit, `None` when it does not fit in an i64.
    fn timestamp(&self, t: Timestamp) -> Option<i64> {
        let (per_second, per_nano) = match self.unit {
            TimeUnit::Second => (1, 1_000_000_000),
            TimeUnit::Millisecond => (1_000, 1_000_000),
            TimeUnit::Microsecond => (1_000_000, 1_000),
            TimeUnit::Nanosecond => (1_000_000_000, 1),
        };
        t.seconds
            .checked_mul(per_second)?
            .checked_add(i64::from(t.nanos) / per_nano)
    }

    fn timestamps(&self, v: ScalarBuffer<i64>, nulls: Option<NullBuffer>) -> ArrayRef {
        match self.unit {
            TimeUnit::Second => primitive::<TimestampSecondType>(v, nulls),
            TimeUnit::Millisecond => primitive::<TimestampMillisecondType>(v, nulls),
            TimeUnit::Microsecond => primitive::<TimestampMicrosecondType>(v, nulls),
            TimeUnit::Nanosecond => primitive::<TimestampNanosecondType>(v, nulls),
        }
    }
}

/// Gives `batch` back the vectors that [`HiveToArrow::column`] moved into arrays the caller
/// has dropped since (or, with `allocate`, new ones of their size), so decoding the next row
/// group into it reuses their memory.
pub(super) fn restore(batch: &mut ColumnBatch, spare: &mut Spare, allocate: bool) {
    fn refill<T: arrow_buffer::ArrowNativeType>(v: &mut Vec<T>, spare: &mut Spare, allocate: bool) {
        if v.capacity() == 0 {
            if allocate {
                *v = spare.take();
            } else if let Ok(back) = spare.take_back() {
                *v = back;
            }
        }
    }
    match batch.parts_mut().1 {
        BatchValues::Int(v) => refill(v, spare, allocate),
        BatchValues::Float(v) => refill(v, spare, allocate),
        BatchValues::Double(v) => refill(v, spare, allocate),
        BatchValues::Date(v) => refill(v, spare, allocate),
        BatchValues::Decimal { values, .. } => refill(values, spare, allocate),
        BatchValues::Bytes { data, offsets } => {
            refill(data, spare, allocate);
            refill(offsets, spare, allocate);
        }
        BatchValues::List { offsets, items } => {
            refill(offsets, spare, allocate);
            restore(items, spare, allocate);
        }
        BatchValues::Boolean(_) | BatchValues::Timestamp(_) | BatchValues::Nested(_) => {}
    }
}

fn take<T>(v: &mut Vec<T>) -> Vec<T> {
    std::mem::take(v)
}

/// `None` when every row is valid (Arrow's cheap case).
pub(super) fn null_buffer(valid: &[bool]) -> Option<NullBuffer> {
    (!valid.iter().all(|v| *v)).then(|| NullBuffer::from(valid))
}

fn primitive<T: ArrowPrimitiveType>(
    v: impl Into<ScalarBuffer<T::Native>>,
    nulls: Option<NullBuffer>,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(v.into(), nulls))
}

fn lend<T: ArrowPrimitiveType>(
    v: Vec<T::Native>,
    nulls: Option<NullBuffer>,
    spare: &mut Spare,
) -> ArrayRef {
    Arc::new(PrimitiveArray::<T>::new(spare.lend(v), nulls))
}

/// Integers held as i64 into a narrower type (the decoder checked their range; anything
/// else would be a decoder bug, and wraps rather than panics).
fn narrow<T>(v: &[i64], nulls: Option<NullBuffer>, spare: &mut Spare) -> ArrayRef
where
    T: ArrowPrimitiveType,
    T::Native: arrow_array::ArrowNativeTypeOp + num_from::FromI64,
{
    let mut out = spare.take::<T::Native>();
    out.extend(
        v.iter()
            .map(|x| <T::Native as num_from::FromI64>::from_i64(*x)),
    );
    lend::<T>(out, nulls, spare)
}

mod num_from {
    /// `as` casts from i64, for the three narrower Hive integer types.
    pub trait FromI64 {
        fn from_i64(x: i64) -> Self;
    }
    impl FromI64 for i8 {
        fn from_i64(x: i64) -> Self {
            x as i8
        }
    }
    impl FromI64 for i16 {
        fn from_i64(x: i64) -> Self {
            x as i16
        }
    }
    impl FromI64 for i32 {
        fn from_i64(x: i64) -> Self {
            x as i32
        }
    }
}

fn decimal(
    v: ScalarBuffer<i128>,
    precision: u8,
    scale: u8,
    nulls: Option<NullBuffer>,
) -> Result<ArrayRef> {
    let scale = i8::try_from(scale).map_err(|_| Error::schema("decimal scale above 127"))?;
    let a = PrimitiveArray::<Decimal128Type>::new(v, nulls)
        .with_precision_and_scale(precision, scale)
        .map_err(from_arrow)?;
    Ok(Arc::new(a))
}

/// Our `len + 1` u32 end offsets (increasing, from 0, as every decoder builds them) as
/// Arrow's i32 offsets, in the same memory; more than 2 GiB of values in one column of one
/// batch is refused.
fn offsets32(mut ends: Vec<u32>, spare: Option<&mut Spare>) -> Result<OffsetBuffer<i32>> {
    if ends.is_empty() {
        ends.push(0);
    }
    let increasing = ends
        .iter()
        .zip(ends.iter().skip(1))
        .fold(true, |ok, (a, b)| ok & (a <= b));
    if ends.first() != Some(&0) || !increasing {
        return Err(Error::invalid("offsets decrease (decoder bug)"));
    }
    if ends.last().is_some_and(|&e| i32::try_from(e).is_err()) {
        return Err(too_big());
    }
    // Increasing from 0 up to at most i32::MAX: the same numbers as i32.
    let len = ends.len();
    let buffer = match spare {
        Some(spare) => spare.lend(ends).into_inner(),
        None => Buffer::from_vec(ends),
    };
    Ok(OffsetBuffer::new(ScalarBuffer::new(buffer, 0, len)))
}

fn too_big() -> Error {
    Error::unsupported("more than 2 GiB of values in one column of one batch (use a smaller batch)")
}

fn mismatch(ty: &HiveType) -> Error {
    Error::schema(format!(
        "decoded values do not match the column's type {ty}"
    ))
}

fn out_of_range(t: Timestamp) -> Error {
    Error::unsupported(format!(
        "timestamp {t} is outside what the Arrow unit can hold (choose a coarser unit)"
    ))
}
