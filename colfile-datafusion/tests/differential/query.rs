//! Random queries over a [`Table`]: their SQL text and their answer, evaluated here in
//! plain Rust over the rows (three-valued logic for WHERE, SQL aggregates).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use super::model::{cmp_row, cmp_v, fcmp, Kind, Table, V};
use super::rng::Rng;

#[derive(Clone, Copy, Debug)]
pub enum Op {
    Lt,
    Le,
    Eq,
    Ne,
    Gt,
    Ge,
}

#[derive(Clone, Debug)]
pub enum Pred {
    Cmp(usize, Op, V),
    Between(usize, V, V),
    IsNull(usize, bool),
    In(usize, Vec<V>),
    Like(usize, String),
    And(Box<Pred>, Box<Pred>),
    Or(Box<Pred>, Box<Pred>),
    Not(Box<Pred>),
}

#[derive(Clone, Copy, Debug)]
pub enum Agg {
    CountStar,
    Count(usize),
    Min(usize),
    Max(usize),
    Sum(usize),
}

#[derive(Clone, Debug)]
pub struct Order {
    /// Per key column: descending, nulls first.
    pub dirs: Vec<(bool, bool)>,
    pub limit: Option<usize>,
    pub offset: usize,
}

#[derive(Clone, Debug)]
pub enum Query {
    /// `SELECT cols` (None: `*`) with an optional total ORDER BY + LIMIT/OFFSET.
    Rows {
        cols: Option<Vec<usize>>,
        pred: Option<Pred>,
        order: Option<Order>,
    },
    /// `SELECT keys, aggs ... GROUP BY keys` (no keys: one row).
    Aggs {
        keys: Vec<usize>,
        aggs: Vec<Agg>,
        pred: Option<Pred>,
    },
}

// ---------------------------------------------------------------------------------------
// SQL text

fn ident(t: &Table, c: usize) -> String {
    format!("\"{}\"", t.cols[c].name)
}

pub fn literal(kind: Kind, v: &V) -> String {
    match (kind, v) {
        (_, V::Null) => "NULL".into(),
        (_, V::Bool(b)) => b.to_string(),
        (_, V::Int(x)) => x.to_string(),
        // An f32 written as the f64 it equals, so the comparison is exact whichever side
        // DataFusion casts.
        (_, V::F32(x)) => format!("{:?}", *x as f64),
        (_, V::F64(x)) => format!("{x:?}"),
        (_, V::Str(s)) => format!("'{}'", s.replace('\'', "''")),
        (_, V::Date(d)) => format!("arrow_cast({d}, 'Date32')"),
        (Kind::TsUs, V::Ts(t)) => format!("to_timestamp_micros({t})"),
        // Not `to_timestamp_millis(N)`: that is zone-less, and DataFusion casts it to the
        // column's UTC type through chrono, which fails for times beyond chrono's range
        // ("Cannot cast timezone to different timezone") at the i64 extremes.
        (_, V::Ts(t)) => format!("arrow_cast({t}, 'Timestamp(Millisecond, Some(\"UTC\"))')"),
        (_, other) => panic!("no literal for {other:?}"),
    }
}

fn op_sql(op: Op) -> &'static str {
    match op {
        Op::Lt => "<",
        Op::Le => "<=",
        Op::Eq => "=",
        Op::Ne => "<>",
        Op::Gt => ">",
        Op::Ge => ">=",
    }
}

fn pred_sql(t: &Table, p: &Pred) -> String {
    let k = |c: usize| t.cols[c].kind;
    match p {
        Pred::Cmp(c, op, v) => format!("{} {} {}", ident(t, *c), op_sql(*op), literal(k(*c), v)),
        Pred::Between(c, a, b) => format!(
            "{} BETWEEN {} AND {}",
            ident(t, *c),
            literal(k(*c), a),
            literal(k(*c), b)
        ),
        Pred::IsNull(c, true) => format!("{} IS NULL", ident(t, *c)),
        Pred::IsNull(c, false) => format!("{} IS NOT NULL", ident(t, *c)),
        Pred::In(c, vs) => format!(
            "{} IN ({})",
            ident(t, *c),
            vs.iter()
                .map(|v| literal(k(*c), v))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Pred::Like(c, prefix) => format!("{} LIKE '{}%'", ident(t, *c), prefix),
        Pred::And(a, b) => format!("({} AND {})", pred_sql(t, a), pred_sql(t, b)),
        Pred::Or(a, b) => format!("({} OR {})", pred_sql(t, a), pred_sql(t, b)),
        Pred::Not(a) => format!("NOT ({})", pred_sql(t, a)),
    }
}

fn agg_sql(t: &Table, a: &Agg) -> String {
    match a {
        Agg::CountStar => "count(*)".into(),
        Agg::Count(c) => format!("count({})", ident(t, *c)),
        Agg::Min(c) => format!("min({})", ident(t, *c)),
        Agg::Max(c) => format!("max({})", ident(t, *c)),
        Agg::Sum(c) => format!("sum({})", ident(t, *c)),
    }
}

pub fn sql(t: &Table, name: &str, q: &Query) -> String {
    let where_ = |p: &Option<Pred>| {
        p.as_ref()
            .map(|p| format!(" WHERE {}", pred_sql(t, p)))
            .unwrap_or_default()
    };
    match q {
        Query::Rows { cols, pred, order } => {
            let sel = match cols {
                None => "*".to_string(),
                Some(cs) => cs
                    .iter()
                    .enumerate()
                    .map(|(i, &c)| format!("{} AS c{i}", ident(t, c)))
                    .collect::<Vec<_>>()
                    .join(", "),
            };
            let mut s = format!("SELECT {sel} FROM {name}{}", where_(pred));
            if let Some(o) = order {
                let keys: Vec<String> = t
                    .order_key
                    .iter()
                    .zip(&o.dirs)
                    .map(|(&c, &(desc, nf))| {
                        format!(
                            "{} {} NULLS {}",
                            ident(t, c),
                            if desc { "DESC" } else { "ASC" },
                            if nf { "FIRST" } else { "LAST" }
                        )
                    })
                    .collect();
                s += &format!(" ORDER BY {}", keys.join(", "));
                if let Some(l) = o.limit {
                    s += &format!(" LIMIT {l}");
                }
                if o.offset > 0 {
                    s += &format!(" OFFSET {}", o.offset);
                }
            }
            s
        }
        Query::Aggs { keys, aggs, pred } => {
            let mut items: Vec<String> = keys.iter().map(|&c| ident(t, c)).collect();
            items.extend(
                aggs.iter()
                    .enumerate()
                    .map(|(i, a)| format!("{} AS a{i}", agg_sql(t, a))),
            );
            let mut s = format!("SELECT {} FROM {name}{}", items.join(", "), where_(pred));
            if !keys.is_empty() {
                let ks: Vec<String> = keys.iter().map(|&c| ident(t, c)).collect();
                s += &format!(" GROUP BY {}", ks.join(", "));
            }
            s
        }
    }
}

// ---------------------------------------------------------------------------------------
// Evaluation

/// SQL comparison of two non-null values of one column kind (floats by total order, as
/// Arrow's comparison kernels do).
///
/// Floats as DataFusion compares them: -0.0 equals 0.0, NaN equals NaN and is above
/// everything (checked on a `MemTable`: `f < 0.0` excludes -0.0, `f > 0.0` includes NaN).
fn compare(a: &V, b: &V) -> Ordering {
    let f = |x: f64, y: f64| {
        if x == 0.0 && y == 0.0 {
            Ordering::Equal
        } else {
            fcmp(x, y)
        }
    };
    match (a, b) {
        (V::F32(x), V::F32(y)) => f(*x as f64, *y as f64),
        (V::F64(x), V::F64(y)) => f(*x, *y),
        _ => cmp_v(a, b),
    }
}

/// min/max: floats by total order (-0.0 below 0.0), as Arrow's min/max kernels.
fn compare_total(a: &V, b: &V) -> Ordering {
    match (a, b) {
        (V::F32(x), V::F32(y)) => fcmp(*x as f64, *y as f64),
        _ => cmp_v(a, b),
    }
}

fn eval(p: &Pred, row: &[V]) -> Option<bool> {
    match p {
        Pred::Cmp(c, op, v) => {
            let x = &row[*c];
            if matches!(x, V::Null) || matches!(v, V::Null) {
                return None;
            }
            let o = compare(x, v);
            Some(match op {
                Op::Lt => o.is_lt(),
                Op::Le => o.is_le(),
                Op::Eq => o.is_eq(),
                Op::Ne => o.is_ne(),
                Op::Gt => o.is_gt(),
                Op::Ge => o.is_ge(),
            })
        }
        Pred::Between(c, a, b) => {
            let x = &row[*c];
            if matches!(x, V::Null) {
                return None;
            }
            Some(compare(x, a).is_ge() && compare(x, b).is_le())
        }
        Pred::IsNull(c, want) => Some(matches!(row[*c], V::Null) == *want),
        Pred::In(c, vs) => {
            let x = &row[*c];
            if matches!(x, V::Null) {
                return None;
            }
            Some(vs.iter().any(|v| compare(x, v).is_eq()))
        }
        Pred::Like(c, prefix) => match &row[*c] {
            V::Str(s) => Some(s.starts_with(prefix.as_str())),
            _ => None,
        },
        Pred::And(a, b) => match (eval(a, row), eval(b, row)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        Pred::Or(a, b) => match (eval(a, row), eval(b, row)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        Pred::Not(a) => eval(a, row).map(|b| !b),
    }
}

fn agg_value(t: &Table, a: &Agg, rows: &[&Vec<V>]) -> V {
    let present = |c: usize| {
        rows.iter()
            .map(move |r| &r[c])
            .filter(|v| !matches!(v, V::Null))
    };
    match *a {
        Agg::CountStar => V::Int(rows.len() as i64),
        Agg::Count(c) => V::Int(present(c).count() as i64),
        Agg::Min(c) => present(c)
            .min_by(|x, y| compare_total(x, y))
            .cloned()
            .unwrap_or(V::Null),
        Agg::Max(c) => present(c)
            .max_by(|x, y| compare_total(x, y))
            .cloned()
            .unwrap_or(V::Null),
        Agg::Sum(c) => {
            let vals: Vec<&V> = present(c).collect();
            if vals.is_empty() {
                return V::Null;
            }
            match t.cols[c].kind {
                k if k.is_int() => {
                    let s: i128 = vals
                        .iter()
                        .map(|v| match v {
                            V::Int(x) => *x as i128,
                            _ => unreachable!(),
                        })
                        .sum();
                    // DataFusion's integer sum wraps at i64.
                    V::Int(s as i64)
                }
                Kind::Dec(..) => V::Dec(
                    vals.iter()
                        .map(|v| match v {
                            V::Dec(x) => *x,
                            _ => unreachable!(),
                        })
                        .sum(),
                ),
                _ => {
                    let (mut sum, mut abs) = (0.0f64, 0.0f64);
                    let (mut nan, mut pinf, mut ninf) = (false, false, false);
                    for v in vals {
                        let x = match v {
                            V::F32(x) => *x as f64,
                            V::F64(x) => *x,
                            _ => unreachable!(),
                        };
                        nan |= x.is_nan();
                        pinf |= x == f64::INFINITY;
                        ninf |= x == f64::NEG_INFINITY;
                        if x.is_finite() {
                            sum += x;
                            abs += x.abs();
                        }
                    }
                    V::Approx {
                        sum,
                        abs,
                        nan,
                        pinf,
                        ninf,
                    }
                }
            }
        }
    }
}

/// The answer, and whether its row order is fixed by the query.
pub fn answer(t: &Table, q: &Query) -> (Vec<Vec<V>>, bool) {
    let keep = |p: &Option<Pred>, r: &Vec<V>| p.as_ref().is_none_or(|p| eval(p, r) == Some(true));
    match q {
        Query::Rows { cols, pred, order } => {
            let mut rows: Vec<&Vec<V>> = t.rows.iter().filter(|r| keep(pred, r)).collect();
            if let Some(o) = order {
                rows.sort_by(|a, b| {
                    for (&c, &(desc, nulls_first)) in t.order_key.iter().zip(&o.dirs) {
                        let (x, y) = (&a[c], &b[c]);
                        let ord = match (matches!(x, V::Null), matches!(y, V::Null)) {
                            (true, true) => Ordering::Equal,
                            (true, false) if nulls_first => Ordering::Less,
                            (true, false) => Ordering::Greater,
                            (false, true) if nulls_first => Ordering::Greater,
                            (false, true) => Ordering::Less,
                            _ if desc => compare(x, y).reverse(),
                            _ => compare(x, y),
                        };
                        if ord != Ordering::Equal {
                            return ord;
                        }
                    }
                    Ordering::Equal
                });
                let end = o
                    .limit
                    .map_or(rows.len(), |l| (o.offset + l).min(rows.len()));
                let start = o.offset.min(rows.len());
                rows = rows[start..end].to_vec();
            }
            let all: Vec<usize> = (0..t.cols.len()).collect();
            let cs = cols.as_ref().unwrap_or(&all);
            let out = rows
                .iter()
                .map(|r| cs.iter().map(|&c| r[c].clone()).collect())
                .collect();
            (out, order.is_some())
        }
        Query::Aggs { keys, aggs, pred } => {
            let rows: Vec<&Vec<V>> = t.rows.iter().filter(|r| keep(pred, r)).collect();
            if keys.is_empty() {
                let row = aggs.iter().map(|a| agg_value(t, a, &rows)).collect();
                return (vec![row], false);
            }
            let mut groups: BTreeMap<GroupKey, Vec<&Vec<V>>> = BTreeMap::new();
            for r in rows {
                let k = GroupKey(keys.iter().map(|&c| r[c].clone()).collect());
                groups.entry(k).or_default().push(r);
            }
            let out = groups
                .into_iter()
                .map(|(k, rs)| {
                    let mut row = k.0;
                    row.extend(aggs.iter().map(|a| agg_value(t, a, &rs)));
                    row
                })
                .collect();
            (out, false)
        }
    }
}

struct GroupKey(Vec<V>);
impl PartialEq for GroupKey {
    fn eq(&self, o: &Self) -> bool {
        cmp_row(&self.0, &o.0).is_eq()
    }
}
impl Eq for GroupKey {}
impl PartialOrd for GroupKey {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for GroupKey {
    fn cmp(&self, o: &Self) -> Ordering {
        cmp_row(&self.0, &o.0)
    }
}

// ---------------------------------------------------------------------------------------
// Generation

/// Columns a WHERE can compare with a literal.
fn comparable(k: Kind) -> bool {
    !matches!(k, Kind::Nested | Kind::Bin | Kind::Dec(..))
}

fn literal_for(t: &Table, c: usize, rng: &mut Rng) -> V {
    let extra = &t.extra_literals[c];
    if !extra.is_empty() && rng.chance(0.5) {
        return rng.pick(extra).clone();
    }
    for _ in 0..8 {
        if t.rows.is_empty() {
            break;
        }
        let v = &rng.pick(&t.rows)[c];
        if !matches!(v, V::Null) && literal_ok(v) {
            return v.clone();
        }
    }
    match t.cols[c].kind {
        Kind::Bool => V::Bool(rng.chance(0.5)),
        Kind::Str => V::Str("a".into()),
        Kind::F32 => V::F32(1.5),
        Kind::F64 => V::F64(-2.25),
        Kind::Date => V::Date(rng.range(-1000, 1000) as i32),
        Kind::Time | Kind::TsMs | Kind::TsUs => V::Ts(rng.range(-1000, 1000)),
        _ => V::Int(rng.range(-100, 100)),
    }
}

/// Literals SQL can spell plainly: finite floats other than -0.0, integers above i64::MIN.
fn literal_ok(v: &V) -> bool {
    match v {
        V::F32(x) => x.is_finite() && x.to_bits() != (-0.0f32).to_bits(),
        V::F64(x) => x.is_finite() && x.to_bits() != (-0.0f64).to_bits(),
        V::Int(x) | V::Ts(x) => *x != i64::MIN,
        _ => true,
    }
}

fn random_pred(t: &Table, rng: &mut Rng, depth: usize) -> Pred {
    let cands: Vec<usize> = (0..t.cols.len())
        .filter(|&c| comparable(t.cols[c].kind))
        .collect();
    if depth < 2 && rng.chance(0.25) {
        let a = Box::new(random_pred(t, rng, depth + 1));
        let b = Box::new(random_pred(t, rng, depth + 1));
        return match rng.below(5) {
            0 | 1 => Pred::And(a, b),
            2 | 3 => Pred::Or(a, b),
            _ => Pred::Not(a),
        };
    }
    // Time ranges (the pushdown that prunes pages) get a good share.
    let time = t.cols.iter().position(|c| c.kind == Kind::Time);
    let c = match time {
        Some(tc) if rng.chance(0.3) => tc,
        _ => *rng.pick(&cands),
    };
    let kind = t.cols[c].kind;
    if let Some((lc, prefixes)) = &t.like {
        if rng.chance(0.1) {
            return Pred::Like(*lc, rng.pick(prefixes).clone());
        }
    }
    let lit = |rng: &mut Rng| loop {
        let v = literal_for(t, c, rng);
        if literal_ok(&v) {
            return v;
        }
    };
    match rng.below(10) {
        0 => Pred::IsNull(c, rng.chance(0.5)),
        1 | 2 if kind != Kind::Bool => {
            let (mut a, mut b) = (lit(rng), lit(rng));
            if compare(&a, &b).is_gt() && rng.chance(0.8) {
                std::mem::swap(&mut a, &mut b);
            }
            Pred::Between(c, a, b)
        }
        3 if matches!(
            kind,
            Kind::Str | Kind::I8 | Kind::I16 | Kind::I32 | Kind::I64
        ) =>
        {
            let n = 1 + rng.below(3);
            Pred::In(c, (0..n).map(|_| lit(rng)).collect())
        }
        _ => {
            let op = if kind == Kind::Bool {
                *rng.pick(&[Op::Eq, Op::Ne])
            } else {
                *rng.pick(&[Op::Lt, Op::Le, Op::Eq, Op::Ne, Op::Gt, Op::Ge])
            };
            Pred::Cmp(c, op, lit(rng))
        }
    }
}

/// Aggregates; with `grouped`, no min/max over float columns: DataFusion 55's grouped
/// min/max of floats mishandles NaN (order-dependent answers, also over a `MemTable`:
/// `SELECT g, min(f), max(f) ... GROUP BY g` gives neither -inf nor NaN where the ungrouped
/// query gives both), which is DataFusion's bug, not colfile's.
fn random_aggs(t: &Table, rng: &mut Rng, grouped: bool) -> Vec<Agg> {
    let n = 1 + rng.below(5);
    let ordered: Vec<usize> = (0..t.cols.len())
        .filter(|&c| {
            t.cols[c].kind.orderable()
                && !((grouped || !t.float_minmax) && t.cols[c].kind.is_float())
        })
        .collect();
    let summable: Vec<usize> = (0..t.cols.len())
        .filter(|&c| t.cols[c].kind.summable())
        .collect();
    (0..n)
        .map(|_| match rng.below(6) {
            0 => Agg::CountStar,
            1 => Agg::Count(rng.below(t.cols.len())),
            2 => Agg::Min(*rng.pick(&ordered)),
            3 => Agg::Max(*rng.pick(&ordered)),
            _ if !summable.is_empty() => Agg::Sum(*rng.pick(&summable)),
            _ => Agg::CountStar,
        })
        .collect()
}

/// Every summable column summed, every orderable column's min and max, counts: one query
/// that checks all of them over the whole table or a filter.
pub fn full_aggregate(t: &Table, pred: Option<Pred>) -> Query {
    let mut aggs = vec![Agg::CountStar];
    for (c, col) in t.cols.iter().enumerate() {
        aggs.push(Agg::Count(c));
        if col.kind.orderable() && (t.float_minmax || !col.kind.is_float()) {
            aggs.push(Agg::Min(c));
            aggs.push(Agg::Max(c));
        }
        if col.kind.summable() {
            aggs.push(Agg::Sum(c));
        }
    }
    Query::Aggs {
        keys: vec![],
        aggs,
        pred,
    }
}

pub fn random_query(t: &Table, rng: &mut Rng) -> Query {
    let pred = |rng: &mut Rng, p: f64| rng.chance(p).then(|| random_pred(t, rng, 0));
    match rng.below(10) {
        0..=3 => {
            let cols = rng.chance(0.6).then(|| {
                let n = 1 + rng.below(t.cols.len().min(4));
                (0..n).map(|_| rng.below(t.cols.len())).collect()
            });
            let order = rng.chance(0.4).then(|| Order {
                dirs: t
                    .order_key
                    .iter()
                    .map(|_| (rng.chance(0.3), rng.chance(0.5)))
                    .collect(),
                limit: rng.chance(0.8).then(|| rng.below(40)),
                offset: if rng.chance(0.5) {
                    rng.below(t.rows.len() + 2)
                } else {
                    0
                },
            });
            Query::Rows {
                cols,
                pred: pred(rng, 0.8),
                order,
            }
        }
        4..=5 => Query::Aggs {
            keys: vec![],
            aggs: random_aggs(t, rng, false),
            pred: pred(rng, 0.6),
        },
        6 => full_aggregate(t, pred(rng, 0.5)),
        _ => {
            let mut keys = Vec::new();
            if !t.group_cols.is_empty() {
                keys.push(*rng.pick(&t.group_cols));
                if rng.chance(0.3) {
                    let k = *rng.pick(&t.group_cols);
                    if !keys.contains(&k) {
                        keys.push(k);
                    }
                }
            }
            let aggs = random_aggs(t, rng, !keys.is_empty());
            Query::Aggs {
                keys,
                aggs,
                pred: pred(rng, 0.5),
            }
        }
    }
}
