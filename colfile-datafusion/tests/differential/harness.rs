//! Runs a table's queries through DataFusion and compares each answer with the one
//! evaluated over the plain reader's rows; collects every difference.

use std::path::{Path, PathBuf};

use arrow_schema::DataType as AT;
use colfile_datafusion::{register_rcfile, register_tsfile, RcFileOptions, TsFileOptions};
use datafusion::prelude::{SessionConfig, SessionContext};

use super::model::{batches_to_rows, cmp_row, matches, show_row, Table, V};
use super::query::{answer, full_aggregate, random_query, sql, Query};
use super::rng::Rng;

/// The base seed (override with `COLFILE_DIFF_SEED`).
pub fn seed() -> u64 {
    std::env::var("COLFILE_DIFF_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xC01F_11E5_D1FF)
}

/// Queries for a part of the test: `default`, scaled by `COLFILE_DIFF_QUERIES` (the total
/// over the three parts, default 660).
fn queries(default: usize) -> usize {
    match std::env::var("COLFILE_DIFF_QUERIES")
        .ok()
        .and_then(|s| s.parse::<usize>().ok())
    {
        Some(total) => (default * total).div_ceil(660).max(1),
        None => default,
    }
}

fn ctx(partitions: usize) -> SessionContext {
    SessionContext::new_with_config(SessionConfig::new().with_target_partitions(partitions))
}

/// What a part found.
#[derive(Default)]
pub struct Report {
    pub queries: usize,
    pub failures: Vec<String>,
}

impl Report {
    pub fn finish(self, part: &str) {
        eprintln!(
            "differential {part}: {} queries, {} differences (seed {})",
            self.queries,
            self.failures.len(),
            seed()
        );
        if !self.failures.is_empty() {
            for f in &self.failures {
                eprintln!("{f}\n");
            }
            panic!(
                "differential {part}: {} of {} queries differ (seed {}); see above",
                self.failures.len(),
                self.queries,
                seed()
            );
        }
    }
}

/// Checks the registered table's schema against the contract and reorders `t`'s columns
/// into the table's order (the order only matters to `SELECT *`; `strict_prefix` columns
/// must come first, in order). Returns a problem description if the schema differs.
pub async fn align_schema(
    ctx: &SessionContext,
    name: &str,
    t: &mut Table,
    strict: bool,
) -> Option<String> {
    let df = match ctx.table(name).await {
        Ok(df) => df,
        Err(e) => return Some(format!("table {name} does not open: {e}")),
    };
    let schema = df.schema().as_arrow().clone();
    let got: Vec<(String, AT)> = schema
        .fields()
        .iter()
        .map(|f| (f.name().clone(), f.data_type().clone()))
        .collect();
    let want: Vec<(String, AT)> = t
        .cols
        .iter()
        .map(|c| (c.name.clone(), c.arrow.clone()))
        .collect();
    // AT::Null in the contract: any type (nested Hive types, whose exact Arrow shape is the
    // mapping's business).
    let fits = |w: &(String, AT), g: &(String, AT)| w.0 == g.0 && (w.1 == AT::Null || w.1 == g.1);
    let same_set = got.len() == want.len() && want.iter().all(|w| got.iter().any(|g| fits(w, g)));
    let same_order = want.iter().zip(&got).all(|(w, g)| fits(w, g));
    if !same_set || (strict && !same_order) {
        return Some(format!(
            "schema of {name} differs from the contract\n  want: {want:?}\n  got:  {got:?}"
        ));
    }
    // Reorder to the table's column order.
    let perm: Vec<usize> = got.iter().map(|(n, _)| t.col(n)).collect();
    let remap = |c: usize| perm.iter().position(|&p| p == c).unwrap();
    t.cols = perm.iter().map(|&p| t.cols[p].clone()).collect();
    t.rows = t
        .rows
        .iter()
        .map(|r| perm.iter().map(|&p| r[p].clone()).collect())
        .collect();
    t.extra_literals = perm.iter().map(|&p| t.extra_literals[p].clone()).collect();
    t.order_key = t.order_key.iter().map(|&c| remap(c)).collect();
    t.group_cols = t.group_cols.iter().map(|&c| remap(c)).collect();
    if let Some((c, p)) = t.like.take() {
        t.like = Some((remap(c), p));
    }
    None
}

/// Compares one query; returns a description of the difference.
async fn check(ctx: &SessionContext, name: &str, t: &Table, q: &Query) -> Option<String> {
    let text = sql(t, name, q);
    let (mut want, ordered) = answer(t, q);
    let got = match ctx.sql(&text).await {
        Ok(df) => df.collect().await,
        Err(e) => Err(e),
    };
    let mut got = match got {
        Ok(b) => batches_to_rows(&b),
        Err(e) => {
            return Some(format!(
                "SQL: {text}\n  DataFusion failed: {e}\n  expected {} rows",
                want.len()
            ))
        }
    };
    if !ordered {
        want.sort_by(|a, b| cmp_row(a, b));
        got.sort_by(|a, b| cmp_row(a, b));
    }
    let same = want.len() == got.len()
        && want
            .iter()
            .zip(&got)
            .all(|(w, g)| w.len() == g.len() && w.iter().zip(g).all(|(a, b)| matches(a, b)));
    if same {
        return None;
    }
    Some(format!(
        "SQL: {text}\n  expected {} rows, DataFusion gave {} rows{}\n{}",
        want.len(),
        got.len(),
        if ordered {
            " (ordered)"
        } else {
            " (as multisets)"
        },
        diff(&want, &got, ordered)
    ))
}

fn diff(want: &[Vec<V>], got: &[Vec<V>], ordered: bool) -> String {
    let mut out = String::new();
    let row_eq =
        |w: &Vec<V>, g: &Vec<V>| w.len() == g.len() && w.iter().zip(g).all(|(a, b)| matches(a, b));
    if ordered {
        for i in 0..want.len().max(got.len()) {
            let (w, g) = (want.get(i), got.get(i));
            if w.zip(g).is_some_and(|(w, g)| row_eq(w, g)) {
                continue;
            }
            out += &format!(
                "  row {i}: expected {}\n          got      {}\n",
                w.map_or("-".into(), |r| show_row(r)),
                g.map_or("-".into(), |r| show_row(r))
            );
            if out.len() > 3000 {
                break;
            }
        }
        return out;
    }
    // Multisets (both sorted): walk them like a merge.
    let (mut i, mut j, mut shown) = (0, 0, 0);
    while (i < want.len() || j < got.len()) && shown < 12 {
        if i < want.len() && j < got.len() && row_eq(&want[i], &got[j]) {
            i += 1;
            j += 1;
            continue;
        }
        let take_want = j >= got.len() || (i < want.len() && cmp_row(&want[i], &got[j]).is_le());
        if take_want {
            out += &format!("  only expected: {}\n", show_row(&want[i]));
            i += 1;
        } else {
            out += &format!("  only got:      {}\n", show_row(&got[j]));
            j += 1;
        }
        shown += 1;
    }
    if want.len() <= 3 && got.len() <= 3 {
        out += &format!(
            "  expected: {}\n  got:      {}\n",
            want.iter()
                .map(|r| show_row(r))
                .collect::<Vec<_>>()
                .join(" "),
            got.iter()
                .map(|r| show_row(r))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    out
}

/// What a case registers: its files, under a table name.
pub enum Files {
    TsFile,
    RcFile(RcFileOptions),
}

/// One random table of a part: its files, the rows the plain side read back, and how to
/// describe it in a failure.
pub struct Case {
    pub dir: PathBuf,
    /// The SQL table name.
    pub name: String,
    pub files: Files,
    pub table: Table,
    pub desc: String,
    /// Where the plain reader's rows differ from what was written (reported, not fatal).
    pub reader_issues: Vec<String>,
}

impl Case {
    fn register(&self, ctx: &SessionContext) -> Result<(), String> {
        let dir = self.dir.to_str().unwrap();
        match &self.files {
            Files::TsFile => register_tsfile(ctx, &self.name, dir, TsFileOptions::default())
                .map_err(|e| format!("register_tsfile failed: {e}")),
            Files::RcFile(o) => register_rcfile(ctx, &self.name, dir, o.clone())
                .map_err(|e| format!("register_rcfile failed: {e}")),
        }
    }
}

/// One part of the test: what differs between the table model, the tree model and RCFile.
pub struct Part {
    /// As the report names it.
    pub label: &'static str,
    /// The part's folder under the temp dir (kept when something differs).
    pub dir: &'static str,
    /// Mixed into the base seed.
    pub seed: u64,
    pub cases: usize,
    /// Queries over all cases (scaled by `COLFILE_DIFF_QUERIES`, see [`queries`]).
    pub queries: usize,
    /// The reader the rows were read back with ("plain reader", "row reader").
    pub reader: &'static str,
    /// Whether the SQL columns must come in the contract's order (see [`align_schema`]).
    pub strict_order: bool,
    pub make: fn(&mut Rng, usize, &Path) -> Case,
    /// A further check of the aligned table (e.g. the tree model's leading columns).
    pub check: fn(&Table) -> Option<String>,
}

/// `dir`, emptied (created if missing).
pub fn fresh_dir(dir: PathBuf) -> PathBuf {
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Makes the part's cases, registers each in a fresh context and runs its queries; panics
/// with the report if anything differs (the files are then kept).
pub async fn run_part(part: Part) {
    let mut rng = Rng::new(seed() ^ part.seed);
    let root = fresh_dir(std::env::temp_dir().join(format!(
        "colfile-diff-{}-{}",
        part.dir,
        std::process::id()
    )));
    let per_case = queries(part.queries) / part.cases;
    let mut report = Report::default();
    let mut reader_issues = Vec::new();
    for case in 0..part.cases {
        let mut c = (part.make)(&mut rng, case, &root);
        reader_issues.extend(c.reader_issues.iter().map(|i| format!("{}: {i}", c.desc)));
        let ctx = ctx(1 + rng.below(3));
        if let Err(d) = c.register(&ctx) {
            report.failures.push(format!("{}\n  {d}", c.desc));
            continue;
        }
        let problem = match align_schema(&ctx, &c.name, &mut c.table, part.strict_order).await {
            Some(d) => Some(d),
            None => (part.check)(&c.table),
        };
        if let Some(d) = problem {
            report.failures.push(format!("{}\n  {d}", c.desc));
            continue;
        }
        let mut qrng = rng.fork();
        run_queries(&ctx, &c, per_case, &mut qrng, &mut report).await;
    }
    for i in &reader_issues {
        eprintln!("{i}");
    }
    let clean = report.failures.is_empty();
    report.finish(part.label);
    assert!(
        reader_issues.is_empty(),
        "the {} differs from what was written (above)",
        part.reader
    );
    if clean {
        let _ = std::fs::remove_dir_all(&root);
    }
}

/// Runs the queries every case runs (all rows, every aggregate) and `n` random ones over
/// the case's registered table, recording differences.
async fn run_queries(ctx: &SessionContext, c: &Case, n: usize, rng: &mut Rng, report: &mut Report) {
    let t = &c.table;
    let mut qs = vec![
        Query::Rows {
            cols: None,
            pred: None,
            order: None,
        },
        full_aggregate(t, None),
    ];
    for _ in 0..n {
        qs.push(random_query(t, rng));
    }
    for q in &qs {
        report.queries += 1;
        if let Some(d) = check(ctx, &c.name, t, q).await {
            if report.failures.len() < 40 {
                report
                    .failures
                    .push(format!("[seed {}] {}\n  {d}", seed(), c.desc));
            } else {
                report.failures.push(String::new());
            }
        }
    }
}

/// The files of `dir`, sorted by name.
pub fn files_in(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
}
