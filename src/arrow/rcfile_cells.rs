//! Arrow columns of plain scalars (integers, booleans, floats, strings, timestamps, decimals)
//! encoded straight into binary-serde cells for the RCFile writer: one downcast a column and
//! no `Value` a cell.
//! Every other column, and every column under the text serde, goes value by value.

use arrow_array::cast::AsArray;
use arrow_array::types::{
    Decimal128Type, Decimal32Type, Decimal64Type, Float32Type, Float64Type, Int16Type, Int32Type,
    Int64Type, Int8Type,
};
use arrow_array::{Array, ArrowPrimitiveType, PrimitiveArray};
use arrow_buffer::NullBuffer;
use arrow_schema::DataType;

use super::hive_values::{fit_decimal, timestamp, timestamp_values};

use crate::rcfile::encoded::ColumnCells;
use crate::rcfile::hadoop::write_vlong;
use crate::rcfile::serde::binary::{double_cell, float_cell, put_decimal, string_cell};
use crate::rcfile::{HiveType, Serde};

/// Appends to `c` the cells of the first `rows` values of `array` as a column of Hive type
/// `ty`, where the binary serde's cell of each value is its plain bytes (the bytes the
/// serde's `encode` of the same values gives); false, with `c` untouched, for any other
/// column, serde or a short array.
pub(super) fn plain_cells(
    array: &dyn Array,
    ty: &HiveType,
    serde: &Serde,
    rows: usize,
    c: &mut ColumnCells,
) -> bool {
    let Serde::Binary(bs) = serde else {
        return false;
    };
    if array.len() < rows {
        return false;
    }
    c.ends.reserve(rows);
    let nulls = array.logical_nulls();
    let nulls = nulls.as_ref();
    match (ty, array.data_type()) {
        (HiveType::BigInt, DataType::Int64) => {
            let a = array.as_primitive::<Int64Type>();
            primitive(c, a, nulls, rows, 9, write_vlong);
        }
        (HiveType::Int, DataType::Int32) => {
            let a = array.as_primitive::<Int32Type>();
            primitive(c, a, nulls, rows, 5, |o, x| write_vlong(o, i64::from(x)));
        }
        (HiveType::SmallInt, DataType::Int16) => {
            let a = array.as_primitive::<Int16Type>();
            primitive(c, a, nulls, rows, 2, |o, x| {
                o.extend_from_slice(&x.to_be_bytes())
            });
        }
        (HiveType::TinyInt, DataType::Int8) => {
            let a = array.as_primitive::<Int8Type>();
            primitive(c, a, nulls, rows, 1, |o, x| o.push(x as u8));
        }
        (HiveType::Double, DataType::Float64) => {
            let a = array.as_primitive::<Float64Type>();
            primitive(c, a, nulls, rows, 8, |o, x| {
                o.extend_from_slice(&double_cell(x))
            });
        }
        (HiveType::Float, DataType::Float32) => {
            let a = array.as_primitive::<Float32Type>();
            primitive(c, a, nulls, rows, 4, |o, x| {
                o.extend_from_slice(&float_cell(x))
            });
        }
        (HiveType::Boolean, DataType::Boolean) => {
            let a = array.as_boolean();
            each(c, nulls, rows, |o, i| o.push(u8::from(a.value(i))));
        }
        (HiveType::String, DataType::Utf8) => {
            let a = array.as_string::<i32>();
            each(c, nulls, rows, |o, i| {
                o.extend_from_slice(string_cell(a.value(i).as_bytes()))
            });
        }
        (HiveType::String, DataType::LargeUtf8) => {
            let a = array.as_string::<i64>();
            each(c, nulls, rows, |o, i| {
                o.extend_from_slice(string_cell(a.value(i).as_bytes()))
            });
        }
        (HiveType::String, DataType::Utf8View) => {
            let a = array.as_string_view();
            each(c, nulls, rows, |o, i| {
                o.extend_from_slice(string_cell(a.value(i).as_bytes()))
            });
        }
        (HiveType::Timestamp, DataType::Timestamp(unit, _)) => {
            let v = timestamp_values(array, *unit);
            // `timestamp` gives nanos below 10^9, as `put_timestamp` wants.
            each(c, nulls, rows, |o, i| {
                if let Some(&x) = v.get(i) {
                    bs.put_timestamp(timestamp(x, *unit), o);
                }
            });
        }
        (&HiveType::Decimal { precision, scale }, t) if precision >= scale => {
            let fit = Fit {
                precision,
                scale,
                nulls,
                rows,
            };
            return match t {
                DataType::Decimal32(_, s) => {
                    fit.cells(c, array.as_primitive::<Decimal32Type>(), *s, i128::from)
                }
                DataType::Decimal64(_, s) => {
                    fit.cells(c, array.as_primitive::<Decimal64Type>(), *s, i128::from)
                }
                DataType::Decimal128(_, s) => {
                    fit.cells(c, array.as_primitive::<Decimal128Type>(), *s, |x| x)
                }
                _ => false,
            };
        }
        _ => return false,
    }
    true
}

/// The cells of a primitive array's first `rows` values: `put` of each valid one, an empty
/// cell (NULL) for each null; `width` bytes reserved a value.
fn primitive<T: ArrowPrimitiveType>(
    c: &mut ColumnCells,
    a: &PrimitiveArray<T>,
    nulls: Option<&NullBuffer>,
    rows: usize,
    width: usize,
    put: impl Fn(&mut Vec<u8>, T::Native),
) {
    c.bytes.reserve(rows * width);
    let values = a.values().iter().take(rows);
    match nulls {
        None => {
            for &x in values {
                put(&mut c.bytes, x);
                c.ends.push(c.bytes.len());
            }
        }
        Some(n) => {
            for (i, &x) in values.enumerate() {
                if n.is_valid(i) {
                    put(&mut c.bytes, x);
                }
                c.ends.push(c.bytes.len());
            }
        }
    }
}

/// A Hive `decimal(precision, scale)` column (`precision >= scale`) of rows `0..rows`.
struct Fit<'n> {
    precision: u8,
    scale: u8,
    nulls: Option<&'n NullBuffer>,
    rows: usize,
}

impl Fit<'_> {
    /// The cells of an Arrow decimal array of scale `from` (its values widened by `wide`):
    /// each value as the value path reads it, NULL (an empty cell) where it does not fit
    /// the column; false, with `c` untouched, for a negative scale (refused value by value).
    fn cells<T: ArrowPrimitiveType>(
        &self,
        c: &mut ColumnCells,
        a: &PrimitiveArray<T>,
        from: i8,
        wide: impl Fn(T::Native) -> i128,
    ) -> bool {
        let Ok(from) = u8::try_from(from) else {
            return false;
        };
        let values = a.values();
        each(c, self.nulls, self.rows, |o, i| {
            let fitted = values
                .get(i)
                .and_then(|&u| fit_decimal(wide(u), from, self.precision, self.scale));
            if let Some(d) = fitted {
                put_decimal(d, o);
            }
        });
        true
    }
}

/// The cells of rows `0..rows`: `put(out, i)` of each valid row, an empty cell for each null.
fn each(
    c: &mut ColumnCells,
    nulls: Option<&NullBuffer>,
    rows: usize,
    put: impl Fn(&mut Vec<u8>, usize),
) {
    for i in 0..rows {
        if nulls.is_none_or(|n| n.is_valid(i)) {
            put(&mut c.bytes, i);
        }
        c.ends.push(c.bytes.len());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rcfile::serde::binary::{BinaryOptions, BinarySerde, Calendar, TimeZone};
    use crate::rcfile::Field;
    use arrow_array::{
        ArrayRef, BooleanArray, Decimal128Array, Decimal32Array, Decimal64Array, Float32Array,
        Float64Array, Int16Array, Int32Array, Int64Array, Int8Array, LargeStringArray, StringArray,
        StringViewArray, TimestampMicrosecondArray, TimestampMillisecondArray,
        TimestampNanosecondArray, TimestampSecondArray,
    };
    use proptest::prelude::*;
    use std::sync::Arc;

    /// The cells the serde's `encode` gives for each value, one at a time.
    fn by_value(array: &dyn Array, ty: &HiveType, serde: &Serde) -> ColumnCells {
        let col = Field {
            name: "c".into(),
            ty: ty.clone(),
        };
        let mut c = ColumnCells::default();
        for r in 0..array.len() {
            let v = crate::arrow::hive_values::value_at(array, r, ty).unwrap();
            c.push(serde, &col, &v).unwrap();
        }
        c
    }

    fn arrays(v: &[Option<i64>], s: &[Option<String>]) -> Vec<(ArrayRef, HiveType)> {
        let f = |x: i64| f64::from_bits(x as u64);
        vec![
            (Arc::new(Int64Array::from(v.to_vec())), HiveType::BigInt),
            (
                Arc::new(Int32Array::from_iter(v.iter().map(|x| x.map(|x| x as i32)))),
                HiveType::Int,
            ),
            (
                Arc::new(Int16Array::from_iter(v.iter().map(|x| x.map(|x| x as i16)))),
                HiveType::SmallInt,
            ),
            (
                Arc::new(Int8Array::from_iter(v.iter().map(|x| x.map(|x| x as i8)))),
                HiveType::TinyInt,
            ),
            (
                Arc::new(Float64Array::from_iter(v.iter().map(|x| x.map(f)))),
                HiveType::Double,
            ),
            (
                Arc::new(Float32Array::from_iter(
                    v.iter().map(|x| x.map(|x| f(x) as f32)),
                )),
                HiveType::Float,
            ),
            (
                Arc::new(BooleanArray::from_iter(
                    v.iter().map(|x| x.map(|x| x % 2 == 0)),
                )),
                HiveType::Boolean,
            ),
            (Arc::new(StringArray::from(s.to_vec())), HiveType::String),
            (
                Arc::new(LargeStringArray::from(s.to_vec())),
                HiveType::String,
            ),
            (
                Arc::new(StringViewArray::from_iter(s.iter().cloned())),
                HiveType::String,
            ),
            // Timestamps of every unit, before the Gregorian cutover and after.
            (
                Arc::new(TimestampSecondArray::from(
                    v.iter().map(|x| x.map(|x| x >> 30)).collect::<Vec<_>>(),
                )),
                HiveType::Timestamp,
            ),
            (
                Arc::new(TimestampMillisecondArray::from(
                    v.iter().map(|x| x.map(|x| x >> 20)).collect::<Vec<_>>(),
                )),
                HiveType::Timestamp,
            ),
            (
                Arc::new(TimestampMicrosecondArray::from(
                    v.iter().map(|x| x.map(|x| x >> 10)).collect::<Vec<_>>(),
                )),
                HiveType::Timestamp,
            ),
            (
                Arc::new(TimestampNanosecondArray::from(v.to_vec())),
                HiveType::Timestamp,
            ),
            // Decimals that fit, that round, and that overflow the column (NULL), from
            // every Arrow width; trailing zeros dropped as Hive normalizes.
            (
                decimals(v, |x| i128::from(x % 100_000_000_000), 128, 2),
                DEC_10_2,
            ),
            (decimals(v, i128::from, 128, 2), DEC_10_2),
            (
                decimals(v, |x| i128::from(x % 1_000_000_000_000), 64, 4),
                DEC_10_2,
            ),
            (
                decimals(v, |x| i128::from(x % 1_000_000_000), 32, 0),
                HiveType::Decimal {
                    precision: 9,
                    scale: 0,
                },
            ),
            (
                decimals(v, |x| i128::from(x) * 1_000_000_000_000_000, 128, 20),
                HiveType::Decimal {
                    precision: 38,
                    scale: 18,
                },
            ),
        ]
    }

    const DEC_10_2: HiveType = HiveType::Decimal {
        precision: 10,
        scale: 2,
    };

    /// A decimal array of `bits` width and `scale` whose values are `f` of `v`'s.
    fn decimals(v: &[Option<i64>], f: impl Fn(i64) -> i128, bits: u32, scale: i8) -> ArrayRef {
        let w: Vec<Option<i128>> = v.iter().map(|x| x.map(&f)).collect();
        match bits {
            32 => Arc::new(
                Decimal32Array::from(w.iter().map(|x| x.map(|x| x as i32)).collect::<Vec<_>>())
                    .with_precision_and_scale(9, scale)
                    .unwrap(),
            ),
            64 => Arc::new(
                Decimal64Array::from(w.iter().map(|x| x.map(|x| x as i64)).collect::<Vec<_>>())
                    .with_precision_and_scale(18, scale)
                    .unwrap(),
            ),
            _ => Arc::new(
                Decimal128Array::from(w)
                    .with_precision_and_scale(38, scale)
                    .unwrap(),
            ),
        }
    }

    /// [`plain_cells`] into fresh cells.
    fn plain(array: &dyn Array, ty: &HiveType, serde: &Serde, rows: usize) -> Option<ColumnCells> {
        let mut c = ColumnCells::default();
        plain_cells(array, ty, serde, rows, &mut c).then_some(c)
    }

    proptest! {
        /// Each plain column's cells are the ones the serde gives value by value, nulls,
        /// NaNs, empty strings and sliced arrays included.
        #[test]
        fn plain_cells_are_the_serdes_cells(
            v in prop::collection::vec(prop::option::of(any::<i64>()), 0..60),
            s in prop::collection::vec(prop::option::of("[a-z]{0,3}"), 60),
            cut in 0usize..4,
        ) {
            let s = &s[..v.len()];
            // Also Hive 2's calendar and a zone with offsets of its own.
            let hive2 = Serde::Binary(BinarySerde::new(BinaryOptions {
                calendar: Calendar::Hybrid,
                timestamp_zone: TimeZone::Fixed(-(5 * 3600 + 30 * 60)),
                ..BinaryOptions::default()
            }));
            for serde in [Serde::binary(), hive2] {
                for (array, ty) in arrays(&v, s) {
                    let start = cut.min(array.len());
                    let array = array.slice(start, array.len() - start);
                    let got = plain(array.as_ref(), &ty, &serde, array.len()).expect("plain");
                    let want = by_value(array.as_ref(), &ty, &serde);
                    prop_assert_eq!(&got.ends, &want.ends, "{} {:?}", ty, array.data_type());
                    prop_assert_eq!(&got.bytes, &want.bytes, "{} {:?}", ty, array.data_type());
                }
            }
        }
    }

    #[test]
    fn other_columns_and_serdes_go_value_by_value() {
        let ints: ArrayRef = Arc::new(Int64Array::from(vec![1, 2]));
        let text = Serde::text();
        assert!(plain(ints.as_ref(), &HiveType::BigInt, &text, 2).is_none());
        let bin = Serde::binary();
        assert!(plain(
            ints.as_ref(),
            &HiveType::Decimal {
                precision: 10,
                scale: 0
            },
            &bin,
            2
        )
        .is_none());
        assert!(plain(ints.as_ref(), &HiveType::BigInt, &bin, 3).is_none());
        // A negative Arrow scale is left to the value path (which refuses it).
        let scaled: ArrayRef = Arc::new(
            Decimal128Array::from(vec![1i128])
                .with_precision_and_scale(10, -2)
                .unwrap(),
        );
        assert!(plain(scaled.as_ref(), &DEC_10_2, &bin, 1).is_none());
        let strings: ArrayRef = Arc::new(StringArray::from(vec!["a"]));
        assert!(plain(strings.as_ref(), &HiveType::Varchar(1), &bin, 1).is_none());
    }
}
