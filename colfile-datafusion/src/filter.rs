//! DataFusion filters to what a TsFile query can use: a time range (from `time` comparisons
//! and `BETWEEN`) and a [`Filter`] over tags and fields, which the reader applies to the
//! Bloom filter, the device index, chunk and page statistics, and rows.
//!
//! Conditions on FIELD columns are pushed only when asked for (`fields`): the reader skips
//! chunks and pages by their value statistics, which a table uses only when it trusts them
//! ([`TsFileOptions::trust_statistics`](crate::TsFileOptions)).
//!
//! Pushed filters are *inexact*: DataFusion still applies every filter to what the scan
//! returns, so a pushed filter only has to keep every row the SQL filter keeps. Whatever
//! cannot be said that safely is not pushed:
//! - literals that do not convert exactly to the column's type (`i > 2.5` on an INT32);
//! - `>`/`>=` on FLOAT and DOUBLE (SQL orders NaN above every number, TsFile statistics and
//!   comparisons do not);
//! - `NOT` (other than `IS NOT NULL`), `LIKE`, functions, casts of anything but the time
//!   column, and comparisons between two columns.

use arrow_schema::{DataType, Schema, TimeUnit};
use colfile::arrow::TSFILE_CATEGORY_KEY;
use colfile::tsfile::{CmpOp, Filter, Value};
use datafusion::logical_expr::{Between, BinaryExpr, Expr, Operator};
use datafusion::scalar::ScalarValue;

/// What of a conjunction of filters a TsFile query takes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Pushdown {
    /// Inclusive lower bound on `time`.
    pub start: Option<i64>,
    /// Inclusive upper bound on `time`.
    pub end: Option<i64>,
    /// The tag and field conditions, AND-ed.
    pub filter: Option<Filter>,
}

impl Pushdown {
    /// Translates every filter of `filters` (AND-ed) that can be pushed; `schema` is the
    /// table's Arrow schema (for column types), `time` the name of the time column.
    /// Conditions on FIELD columns are taken only if `fields`.
    pub fn from_filters(
        filters: &[Expr],
        schema: &Schema,
        time: &str,
        unit: TimeUnit,
        fields: bool,
    ) -> Self {
        let mut p = Pushdown::default();
        let t = Translator {
            schema,
            time,
            unit,
            fields,
        };
        for f in filters {
            for c in conjuncts(f) {
                if let Some((lo, hi)) = t.time_range(c) {
                    p.start = Some(p.start.map_or(lo, |s| s.max(lo)));
                    p.end = Some(p.end.map_or(hi, |e| e.min(hi)));
                } else if let Some(f) = t.filter(c) {
                    p.filter = Some(match p.filter.take() {
                        Some(g) => g.and(f),
                        None => f,
                    });
                }
            }
        }
        p
    }

    /// Whether one filter (as a whole) would be pushed.
    pub fn can_push(
        filter: &Expr,
        schema: &Schema,
        time: &str,
        unit: TimeUnit,
        fields: bool,
    ) -> bool {
        let t = Translator {
            schema,
            time,
            unit,
            fields,
        };
        conjuncts(filter)
            .into_iter()
            .all(|c| t.time_range(c).is_some() || t.filter(c).is_some())
    }
}

fn conjuncts(e: &Expr) -> Vec<&Expr> {
    match e {
        Expr::BinaryExpr(BinaryExpr {
            left,
            op: Operator::And,
            right,
        }) => {
            let mut v = conjuncts(left);
            v.extend(conjuncts(right));
            v
        }
        e => vec![e],
    }
}

struct Translator<'a> {
    schema: &'a Schema,
    time: &'a str,
    unit: TimeUnit,
    /// Whether FIELD columns may be named (else only TAG columns).
    fields: bool,
}

impl Translator<'_> {
    /// `[lo, hi]` for a comparison of the time column with a literal, or a `BETWEEN`.
    fn time_range(&self, e: &Expr) -> Option<(i64, i64)> {
        match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => {
                let (op, v) = match (self.time_column(left), self.time_column(right)) {
                    (true, false) => (*op, self.time_literal(right)?),
                    (false, true) => (flip(*op)?, self.time_literal(left)?),
                    _ => return None,
                };
                Some(match op {
                    Operator::Eq => (v, v),
                    Operator::Lt => (i64::MIN, v.checked_sub(1)?),
                    Operator::LtEq => (i64::MIN, v),
                    Operator::Gt => (v.checked_add(1)?, i64::MAX),
                    Operator::GtEq => (v, i64::MAX),
                    _ => return None,
                })
            }
            Expr::Between(Between {
                expr,
                negated: false,
                low,
                high,
            }) if self.time_column(expr) => {
                Some((self.time_literal(low)?, self.time_literal(high)?))
            }
            _ => None,
        }
    }

    fn time_column(&self, e: &Expr) -> bool {
        match e {
            Expr::Column(c) => c.name.eq_ignore_ascii_case(self.time),
            // `time` compared with a plain integer: the cast keeps the stored value.
            Expr::Cast(c) if *c.field.data_type() == DataType::Int64 => self.time_column(&c.expr),
            _ => false,
        }
    }

    /// A literal as a stored time: raw integers, or timestamps in the reader's unit.
    fn time_literal(&self, e: &Expr) -> Option<i64> {
        let Expr::Literal(v, _) = e else { return None };
        match (v, self.unit) {
            (ScalarValue::Int64(Some(x)), _) => Some(*x),
            (ScalarValue::Int32(Some(x)), _) => Some(i64::from(*x)),
            (ScalarValue::TimestampSecond(Some(x), _), TimeUnit::Second)
            | (ScalarValue::TimestampMillisecond(Some(x), _), TimeUnit::Millisecond)
            | (ScalarValue::TimestampMicrosecond(Some(x), _), TimeUnit::Microsecond)
            | (ScalarValue::TimestampNanosecond(Some(x), _), TimeUnit::Nanosecond) => Some(*x),
            _ => None,
        }
    }

    /// A tag or field condition.
    fn filter(&self, e: &Expr) -> Option<Filter> {
        match e {
            Expr::BinaryExpr(BinaryExpr { left, op, right }) => match op {
                Operator::And => Some(self.filter(left)?.and(self.filter(right)?)),
                Operator::Or => Some(self.filter(left)?.or(self.filter(right)?)),
                _ => {
                    let (name, op, lit) = match (column(left), column(right)) {
                        (Some(c), None) => (c, *op, right.as_ref()),
                        (None, Some(c)) => (c, flip(*op)?, left.as_ref()),
                        _ => return None,
                    };
                    self.compare(name, op, lit)
                }
            },
            Expr::IsNull(inner) => Some(Filter::is_null(self.data_column(inner)?.0)),
            Expr::IsNotNull(inner) => Some(Filter::is_not_null(self.data_column(inner)?.0)),
            Expr::Between(Between {
                expr,
                negated: false,
                low,
                high,
            }) => {
                let name = column(expr)?;
                Some(self.compare(name, Operator::GtEq, low)?.and(self.compare(
                    name,
                    Operator::LtEq,
                    high,
                )?))
            }
            Expr::InList(l) if !l.negated && !l.list.is_empty() => {
                let name = column(&l.expr)?;
                let mut out: Option<Filter> = None;
                for v in &l.list {
                    let f = self.compare(name, Operator::Eq, v)?;
                    out = Some(match out {
                        Some(g) => g.or(f),
                        None => f,
                    });
                }
                out
            }
            _ => None,
        }
    }

    /// The schema name and type of a tag or field column (not time, not device).
    fn data_column(&self, e: &Expr) -> Option<(&str, &DataType)> {
        let name = column(e)?;
        if name.eq_ignore_ascii_case(self.time) || name == "device" {
            return None;
        }
        let f = self.schema.field_with_name(name).ok()?;
        let category = f.metadata().get(TSFILE_CATEGORY_KEY).map(String::as_str);
        match category {
            Some("TAG") => {}
            Some("FIELD") | None if self.fields => {}
            _ => return None,
        }
        Some((f.name().as_str(), f.data_type()))
    }

    fn compare(&self, name: &str, op: Operator, lit: &Expr) -> Option<Filter> {
        let (name, ty) = self.data_column(&Expr::Column(name.into()))?;
        let Expr::Literal(v, _) = lit else {
            return None;
        };
        let value = exact(v, ty)?;
        let float = matches!(ty, DataType::Float32 | DataType::Float64);
        let op = match op {
            Operator::Eq => CmpOp::Eq,
            Operator::NotEq => CmpOp::Ne,
            Operator::Lt => CmpOp::Lt,
            Operator::LtEq => CmpOp::Le,
            Operator::Gt if !float => CmpOp::Gt,
            Operator::GtEq if !float => CmpOp::Ge,
            _ => return None,
        };
        Some(Filter::cmp(name, op, value))
    }
}

fn column(e: &Expr) -> Option<&str> {
    match e {
        Expr::Column(c) => Some(c.name.as_str()),
        _ => None,
    }
}

/// `lit op col` as `col op' lit`.
fn flip(op: Operator) -> Option<Operator> {
    Some(match op {
        Operator::Eq => Operator::Eq,
        Operator::NotEq => Operator::NotEq,
        Operator::Lt => Operator::Gt,
        Operator::LtEq => Operator::GtEq,
        Operator::Gt => Operator::Lt,
        Operator::GtEq => Operator::LtEq,
        _ => return None,
    })
}

/// A literal as a TsFile value of a column of Arrow type `ty`, when it converts exactly.
fn exact(v: &ScalarValue, ty: &DataType) -> Option<Value> {
    let int = |v: &ScalarValue| -> Option<i64> {
        match v {
            ScalarValue::Int8(Some(x)) => Some(i64::from(*x)),
            ScalarValue::Int16(Some(x)) => Some(i64::from(*x)),
            ScalarValue::Int32(Some(x)) => Some(i64::from(*x)),
            ScalarValue::Int64(Some(x)) => Some(*x),
            ScalarValue::UInt8(Some(x)) => Some(i64::from(*x)),
            ScalarValue::UInt16(Some(x)) => Some(i64::from(*x)),
            ScalarValue::UInt32(Some(x)) => Some(i64::from(*x)),
            ScalarValue::UInt64(Some(x)) => i64::try_from(*x).ok(),
            _ => None,
        }
    };
    let float = |v: &ScalarValue| -> Option<f64> {
        match v {
            ScalarValue::Float32(Some(x)) => Some(f64::from(*x)),
            ScalarValue::Float64(Some(x)) => Some(*x),
            other => int(other)
                .filter(|i| i.unsigned_abs() < 1 << 53)
                .map(|i| i as f64),
        }
    };
    Some(match ty {
        DataType::Boolean => match v {
            ScalarValue::Boolean(Some(b)) => Value::Boolean(*b),
            _ => return None,
        },
        DataType::Int32 => Value::Int32(i32::try_from(int(v)?).ok()?),
        DataType::Int64 => Value::Int64(int(v)?),
        DataType::Float32 => {
            let x = float(v)?;
            let f = x as f32;
            (x.is_finite() && f64::from(f) == x).then_some(Value::Float(f))?
        }
        DataType::Float64 => Value::Double(float(v).filter(|x| x.is_finite())?),
        DataType::Utf8 => match v {
            ScalarValue::Utf8(Some(s))
            | ScalarValue::LargeUtf8(Some(s))
            | ScalarValue::Utf8View(Some(s)) => Value::string(s),
            _ => return None,
        },
        // DATE and TIMESTAMP fields, BLOBs: left to DataFusion.
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use arrow_schema::Field;
    use datafusion::prelude::{col, lit};

    fn schema() -> Schema {
        Schema::new(vec![
            Field::new(
                "time",
                DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
                false,
            ),
            Field::new("city", DataType::Utf8, true).with_metadata(category("TAG")),
            Field::new("n", DataType::Int32, true).with_metadata(category("FIELD")),
            Field::new("temp", DataType::Float64, true).with_metadata(category("FIELD")),
        ])
    }

    fn category(c: &str) -> std::collections::HashMap<String, String> {
        [(TSFILE_CATEGORY_KEY.to_owned(), c.to_owned())].into()
    }

    fn push(filters: &[Expr]) -> Pushdown {
        Pushdown::from_filters(filters, &schema(), "time", TimeUnit::Millisecond, true)
    }

    fn ts(ms: i64) -> Expr {
        lit(ScalarValue::TimestampMillisecond(
            Some(ms),
            Some("UTC".into()),
        ))
    }

    #[test]
    fn time_comparisons_narrow_the_range() {
        let p = push(&[
            col("time").gt_eq(ts(10)).and(col("time").lt(ts(20))),
            ts(12).lt(col("time")),
        ]);
        assert_eq!((p.start, p.end), (Some(13), Some(19)));
        assert_eq!(p.filter, None);
        let p = push(&[col("time").between(ts(5), ts(7))]);
        assert_eq!((p.start, p.end), (Some(5), Some(7)));
        // A time literal in another unit is not pushed.
        let p = push(&[col("time").gt(lit(ScalarValue::TimestampSecond(Some(1), None)))]);
        assert_eq!((p.start, p.end), (None, None));
    }

    #[test]
    fn tags_and_fields_become_a_filter() {
        let p = push(&[col("city").eq(lit("oslo")).and(col("n").gt(lit(3i64)))]);
        let want = Filter::eq("city", Value::string("oslo")).and(Filter::cmp(
            "n",
            CmpOp::Gt,
            Value::Int32(3),
        ));
        assert_eq!(p.filter, Some(want));
        let p = push(&[col("city").in_list(vec![lit("a"), lit("b")], false)]);
        assert_eq!(
            p.filter,
            Some(Filter::eq("city", Value::string("a")).or(Filter::eq("city", Value::string("b"))))
        );
    }

    #[test]
    fn unsafe_conditions_are_not_pushed() {
        for e in [
            col("n").gt(lit(2.5f64)),                           // not an exact INT32
            col("n").gt(lit(i64::MAX)),                         // out of INT32 range
            col("temp").gt(lit(1.0f64)),                        // NaN sorts above numbers in SQL
            !col("city").eq(lit("a")),                          // NOT
            col("city").like(lit("a%")),                        // LIKE
            col("n").eq(col("temp")),                           // two columns
            col("city").eq(lit("a")).or(col("time").gt(ts(1))), // time inside OR
        ] {
            assert_eq!(push(std::slice::from_ref(&e)), Pushdown::default(), "{e}");
            assert!(!Pushdown::can_push(
                &e,
                &schema(),
                "time",
                TimeUnit::Millisecond,
                true
            ));
        }
        assert!(Pushdown::can_push(
            &col("temp").lt(lit(1.0f64)),
            &schema(),
            "time",
            TimeUnit::Millisecond,
            true
        ));
    }

    #[test]
    fn fields_only_when_asked_for() {
        let e = col("city")
            .eq(lit("oslo"))
            .and(col("n").gt(lit(3i64)))
            .and(col("time").gt(ts(5)));
        let p = Pushdown::from_filters(&[e], &schema(), "time", TimeUnit::Millisecond, false);
        assert_eq!(p.filter, Some(Filter::eq("city", Value::string("oslo"))));
        assert_eq!(p.start, Some(6));
        let field = col("n").gt(lit(3i64));
        for (fields, want) in [(false, false), (true, true)] {
            let got = Pushdown::can_push(&field, &schema(), "time", TimeUnit::Millisecond, fields);
            assert_eq!(got, want);
        }
    }
}
