//! [`Filter`]: the row predicates of a [`Query`](crate::tsfile::Query) — comparisons on TAG and FIELD
//! columns combined with and/or/not — their evaluation on rows, and their three-valued
//! evaluation against [`Statistics`] that lets the reader skip devices, chunks and pages.
//!
//! Semantics follow the official reader's tag filters: a comparison with a null value is
//! false (so `!=` does not match nulls), `not` negates that plain boolean, strings compare by
//! their bytes, and `between` includes both ends. FIELD comparisons work the same way on
//! numbers (integers and floats compare by value), booleans and strings.

use std::cmp::Ordering;

use crate::tsfile::format::statistics::{StatValues, Statistics};
use crate::tsfile::format::value::{Value, ValueRef};
use crate::tsfile::format::{DataType, Physical};
use crate::{Error, Result};

/// A comparison operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `=`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

impl CmpOp {
    /// Whether `ord` (column value compared with the literal; `None`: unordered, e.g. NaN)
    /// satisfies the operator.
    fn holds(self, ord: Option<Ordering>) -> bool {
        match self {
            CmpOp::Eq => ord == Some(Ordering::Equal),
            CmpOp::Ne => ord != Some(Ordering::Equal),
            CmpOp::Lt => ord == Some(Ordering::Less),
            CmpOp::Le => matches!(ord, Some(Ordering::Less | Ordering::Equal)),
            CmpOp::Gt => ord == Some(Ordering::Greater),
            CmpOp::Ge => matches!(ord, Some(Ordering::Greater | Ordering::Equal)),
        }
    }

    /// The operator's symbol.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Eq => "=",
            CmpOp::Ne => "!=",
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
        }
    }
}

/// A row predicate over TAG and FIELD columns (names matched without regard to case).
///
/// ```
/// use colfile::tsfile::{Filter, Value};
/// let f = Filter::eq("city", Value::string("beijing"))
///     .and(Filter::gt("temp", Value::Double(20.0)).or(Filter::is_null("temp")));
/// // Display gives the `--where` syntax back (`filter_parse`), parentheses only where needed.
/// assert_eq!(f.to_string(), "city = 'beijing' and (temp > 20.0 or temp is null)");
/// assert_eq!(f.columns(), ["city", "temp"]);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Filter {
    /// `column op value`; false when the column is null.
    Cmp {
        /// Column name (lower case).
        column: String,
        /// The operator.
        op: CmpOp,
        /// The literal (never [`Value::Null`]).
        value: Value,
    },
    /// `column is null`.
    IsNull(String),
    /// Both hold.
    And(Box<Filter>, Box<Filter>),
    /// Either holds.
    Or(Box<Filter>, Box<Filter>),
    /// The predicate does not hold.
    Not(Box<Filter>),
}

/// What a predicate is over a set of rows: false for all, true for all, or unknown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tri {
    /// No row can match.
    No,
    /// Some rows may match.
    Maybe,
    /// Every row matches.
    Yes,
}

impl Tri {
    fn of(b: bool) -> Tri {
        if b {
            Tri::Yes
        } else {
            Tri::No
        }
    }
}

impl Filter {
    /// `column op value`.
    pub fn cmp(column: &str, op: CmpOp, value: Value) -> Filter {
        Filter::Cmp {
            column: column.to_lowercase(),
            op,
            value,
        }
    }
    /// `column = value`.
    pub fn eq(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Eq, value)
    }
    /// `column != value` (false for null).
    pub fn ne(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Ne, value)
    }
    /// `column < value`.
    pub fn lt(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Lt, value)
    }
    /// `column <= value`.
    pub fn le(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Le, value)
    }
    /// `column > value`.
    pub fn gt(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Gt, value)
    }
    /// `column >= value`.
    pub fn ge(column: &str, value: Value) -> Filter {
        Filter::cmp(column, CmpOp::Ge, value)
    }
    /// `low <= column <= high`.
    pub fn between(column: &str, low: Value, high: Value) -> Filter {
        Filter::ge(column, low).and(Filter::le(column, high))
    }
    /// `column is null`.
    pub fn is_null(column: &str) -> Filter {
        Filter::IsNull(column.to_lowercase())
    }
    /// `column is not null`.
    pub fn is_not_null(column: &str) -> Filter {
        Filter::is_null(column).negate()
    }
    /// Both `self` and `other`.
    pub fn and(self, other: Filter) -> Filter {
        Filter::And(Box::new(self), Box::new(other))
    }
    /// `self` or `other`.
    pub fn or(self, other: Filter) -> Filter {
        Filter::Or(Box::new(self), Box::new(other))
    }
    /// Not `self`.
    pub fn negate(self) -> Filter {
        Filter::Not(Box::new(self))
    }

    /// The columns the filter names, each once, in order of appearance.
    pub fn columns(&self) -> Vec<&str> {
        let mut out = Vec::new();
        self.visit(&mut |f| {
            if let Some(c) = f.leaf_column() {
                if !out.contains(&c) {
                    out.push(c);
                }
            }
        });
        out
    }

    fn visit<'a>(&'a self, f: &mut impl FnMut(&'a Filter)) {
        match self {
            Filter::And(a, b) | Filter::Or(a, b) => {
                a.visit(f);
                b.visit(f);
            }
            Filter::Not(a) => a.visit(f),
            leaf => f(leaf),
        }
    }

    /// The column of a comparison or null test.
    pub(crate) fn leaf_column(&self) -> Option<&str> {
        match self {
            Filter::Cmp { column, .. } | Filter::IsNull(column) => Some(column),
            _ => None,
        }
    }

    /// Evaluates the tree, asking `leaf` about each comparison and null test. With exact
    /// answers this is the row's truth; with [`Tri::Maybe`] it stays sound for sets of rows.
    pub fn eval(&self, leaf: &mut impl FnMut(&Filter) -> Tri) -> Tri {
        match self {
            Filter::And(a, b) => match a.eval(leaf) {
                Tri::No => Tri::No,
                x => match (x, b.eval(leaf)) {
                    (_, Tri::No) => Tri::No,
                    (Tri::Yes, Tri::Yes) => Tri::Yes,
                    _ => Tri::Maybe,
                },
            },
            Filter::Or(a, b) => match a.eval(leaf) {
                Tri::Yes => Tri::Yes,
                x => match (x, b.eval(leaf)) {
                    (_, Tri::Yes) => Tri::Yes,
                    (Tri::No, Tri::No) => Tri::No,
                    _ => Tri::Maybe,
                },
            },
            Filter::Not(a) => match a.eval(leaf) {
                Tri::No => Tri::Yes,
                Tri::Yes => Tri::No,
                Tri::Maybe => Tri::Maybe,
            },
            l => leaf(l),
        }
    }

    /// Checks that every literal can be compared with its column's type (`type_of` gives
    /// it; `None`: no such column, an error when `strict`, else a column of nulls).
    pub(crate) fn check(
        &self,
        type_of: &impl Fn(&str) -> Option<DataType>,
        strict: bool,
    ) -> Result<()> {
        let mut err = Ok(());
        self.visit(&mut |f| {
            let Some(c) = f.leaf_column() else { return };
            let Some(t) = type_of(c) else {
                if strict {
                    err = Err(Error::invalid(format!(
                        "filter column {c:?} is not a TAG or FIELD column of the table"
                    )));
                }
                return;
            };
            if let Filter::Cmp { value, .. } = f {
                if !comparable(t, value) {
                    err = Err(Error::invalid(format!(
                        "filter {f}: a {t} column cannot be compared with {value:?}"
                    )));
                }
            }
        });
        err
    }
}

/// Whether a literal can be compared with values of `t`.
fn comparable(t: DataType, v: &Value) -> bool {
    let numeric = |p: Physical| !matches!(p, Physical::Boolean | Physical::Binary);
    match (t.physical(), v.physical()) {
        (Ok(a), Some(b)) if numeric(a) => numeric(b),
        (Ok(a), Some(b)) => a == b,
        _ => false,
    }
}

/// `a` compared with `b`: numbers by value (integers exactly), bytes lexicographically.
fn compare(a: ValueRef<'_>, b: &Value) -> Option<Ordering> {
    use ValueRef as R;
    let as_f64 = |v: ValueRef<'_>| match v {
        R::Int32(x) => Some(x as f64),
        R::Int64(x) => Some(x as f64),
        R::Float(x) => Some(x as f64),
        R::Double(x) => Some(x),
        _ => None,
    };
    let as_int = |v: ValueRef<'_>| match v {
        R::Int32(x) => Some(x as i64),
        R::Int64(x) => Some(x),
        _ => None,
    };
    let b = b.as_ref();
    match (a, b) {
        (R::Boolean(x), R::Boolean(y)) => Some(x.cmp(&y)),
        (R::Binary(x), R::Binary(y)) => Some(x.cmp(y)),
        _ => match (as_int(a), as_int(b)) {
            (Some(x), Some(y)) => Some(x.cmp(&y)),
            _ => as_f64(a)?.partial_cmp(&as_f64(b)?),
        },
    }
}

/// A leaf's truth for one value (`ValueRef::Null` for null).
pub fn test_value(leaf: &Filter, v: ValueRef<'_>) -> bool {
    match leaf {
        Filter::IsNull(_) => matches!(v, ValueRef::Null),
        Filter::Cmp { op, value, .. } => {
            !matches!(v, ValueRef::Null) && op.holds(compare(v, value))
        }
        _ => false,
    }
}

/// A leaf's truth over `rows` rows (`None`: unknown) whose column is summarised by `stats`
/// (`None`: no values at all, e.g. a missing chunk). Unsure answers are [`Tri::Maybe`].
pub fn test_stats(leaf: &Filter, stats: Option<&Statistics>, rows: Option<u64>) -> Tri {
    let count = stats.map_or(0, |s| u64::from(s.count));
    let no_nulls = rows.is_some_and(|r| r == count);
    match leaf {
        Filter::IsNull(_) => match rows {
            Some(r) if count == 0 && r > 0 => Tri::Yes,
            _ if no_nulls => Tri::No,
            _ => Tri::Maybe,
        },
        Filter::Cmp { op, value, .. } => {
            if count == 0 {
                return Tri::No;
            }
            let Some(st) = stats else { return Tri::No };
            let Some((min, max, exact)) = range_of(st) else {
                return Tri::Maybe;
            };
            let (lo, hi) = (compare(min, value), compare(max, value));
            let (Some(lo), Some(hi)) = (lo, hi) else {
                return Tri::Maybe;
            };
            use Ordering::*;
            // `exact`: min..max covers every value (no NaN hiding outside it).
            let all = |b: bool| {
                if b && no_nulls && exact {
                    Tri::Yes
                } else {
                    Tri::Maybe
                }
            };
            match op {
                CmpOp::Eq if lo == Greater || hi == Less => Tri::No,
                CmpOp::Eq => all(lo == Equal && hi == Equal),
                CmpOp::Ne if lo == Equal && hi == Equal && exact => Tri::No,
                CmpOp::Ne => all(lo == Greater || hi == Less),
                CmpOp::Lt if lo != Less => Tri::No,
                CmpOp::Lt => all(hi == Less),
                CmpOp::Le if lo == Greater => Tri::No,
                CmpOp::Le => all(hi != Greater),
                CmpOp::Gt if hi != Greater => Tri::No,
                CmpOp::Gt => all(lo == Greater),
                CmpOp::Ge if hi == Less => Tri::No,
                CmpOp::Ge => all(lo != Less),
            }
        }
        _ => Tri::Maybe,
    }
}

/// Smallest and largest value of `st`, and whether every value lies between them (false
/// for floats: a NaN after the first value is in no min/max).
fn range_of(st: &Statistics) -> Option<(ValueRef<'_>, ValueRef<'_>, bool)> {
    use ValueRef as R;
    Some(match &st.values {
        StatValues::Boolean { sum, .. } => {
            let trues = u64::try_from(*sum).ok()?;
            let count = u64::from(st.count);
            (R::Boolean(trues == count), R::Boolean(trues > 0), true)
        }
        StatValues::Int32(n) => (R::Int32(n.min), R::Int32(n.max), true),
        StatValues::Int64(n) => (R::Int64(n.min), R::Int64(n.max), true),
        StatValues::Float(n) => {
            let (lo, hi) = (widen(f64::from(n.min), -1.0), widen(f64::from(n.max), 1.0));
            (R::Float(lo as f32), R::Float(hi as f32), false)
        }
        StatValues::Double(n) => (
            R::Double(widen(n.min, -1.0)),
            R::Double(widen(n.max, 1.0)),
            false,
        ),
        StatValues::String { min, max, .. } => (R::Binary(min), R::Binary(max), true),
        StatValues::Text { .. } | StatValues::None => return None,
    })
}

/// A float statistic moved outwards (`dir` -1 for a minimum, 1 for a maximum) by the most
/// that a lossy float encoding can move a value: TS_2DIFF and RLE keep `max_point_number`
/// decimals, so a decoded value lies up to half a unit of its last decimal (at most 0.5)
/// from the value the writer's statistics saw; a millionth of the value covers the
/// float rounding of the scaling. Without this, a page holding a matching decoded value
/// could be skipped.
fn widen(x: f64, dir: f64) -> f64 {
    if x.is_finite() {
        x + dir * (0.5 + x.abs() * 1e-6)
    } else {
        x
    }
}

/// Evaluates a filter exactly, `value` giving each named column's value.
pub fn matches<'v>(f: &Filter, value: &mut impl FnMut(&str) -> ValueRef<'v>) -> bool {
    f.eval(&mut |leaf| {
        let v = leaf.leaf_column().map_or(ValueRef::Null, &mut *value);
        Tri::of(test_value(leaf, v))
    }) == Tri::Yes
}

/// Writes `s` as the parser reads it back: single-quoted, a quote inside doubled.
fn write_quoted(f: &mut std::fmt::Formatter<'_>, s: &str) -> std::fmt::Result {
    write!(f, "'{}'", s.replace('\'', "''"))
}

/// Writes a column name bare when the parser reads it back as the same name, else quoted.
fn write_column(f: &mut std::fmt::Formatter<'_>, c: &str) -> std::fmt::Result {
    let keyword = ["and", "or", "not", "is", "between", "null"]
        .iter()
        .any(|k| c.eq_ignore_ascii_case(k));
    let word = !c.is_empty()
        && !c
            .chars()
            .any(|x| x.is_whitespace() || "()'\"=!<>".contains(x));
    if word && !keyword {
        f.write_str(c)
    } else {
        write_quoted(f, c)
    }
}

impl Filter {
    /// Writes the filter in `--where` syntax, in parentheses when its operator binds more
    /// loosely than `min` (0: or, 1: and, 2: not and the leaves). Right operands get parentheses
    /// for their own operator too, so printing and parsing keep the tree's shape.
    fn write(&self, f: &mut std::fmt::Formatter<'_>, min: u8) -> std::fmt::Result {
        let own = match self {
            Filter::Or(..) => 0,
            Filter::And(..) => 1,
            _ => 2,
        };
        if own < min {
            f.write_str("(")?;
            self.write(f, 0)?;
            return f.write_str(")");
        }
        match self {
            Filter::Cmp { column, op, value } => {
                write_column(f, column)?;
                write!(f, " {} ", op.symbol())?;
                match value {
                    Value::Binary(b) => write_quoted(f, &String::from_utf8_lossy(b)),
                    Value::Boolean(v) => write!(f, "{v}"),
                    Value::Int32(v) => write!(f, "{v}"),
                    Value::Int64(v) => write!(f, "{v}"),
                    // Debug keeps a `.0` or an exponent, so the text parses back as a float.
                    Value::Float(v) => write!(f, "{v:?}"),
                    Value::Double(v) => write!(f, "{v:?}"),
                    Value::Null => write!(f, "null"),
                }
            }
            Filter::IsNull(c) => {
                write_column(f, c)?;
                f.write_str(" is null")
            }
            Filter::And(a, b) => {
                a.write(f, 1)?;
                f.write_str(" and ")?;
                b.write(f, 2)
            }
            Filter::Or(a, b) => {
                a.write(f, 0)?;
                f.write_str(" or ")?;
                b.write(f, 1)
            }
            Filter::Not(a) => {
                f.write_str("not ")?;
                a.write(f, 2)
            }
        }
    }
}

/// The `--where` syntax (`filter_parse`): text that parses back to the same filter, for every
/// filter that parsing gives.
impl std::fmt::Display for Filter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.write(f, 0)
    }
}
