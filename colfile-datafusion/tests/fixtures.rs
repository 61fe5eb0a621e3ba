//! Every TsFile fixture, and the Java-written v4 files of `../shared`, as SQL tables: each
//! table holds exactly the rows the plain reader returns (what `colfile cat` prints), and
//! every query below gives the same answer over the table as over those rows loaded into
//! memory. The rows reach the in-memory table by a path of their own (plain reader ->
//! values -> Arrow builders here), not through colfile's Arrow reader, its statistics or
//! its pushdown, which are what the comparison tests.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, Date32Builder, Float32Builder, Float64Builder, Int32Builder,
    Int64Builder, StringBuilder, TimestampMillisecondBuilder,
};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, SchemaRef, TimeUnit};
use colfile::source::FileSource;
use colfile::tsfile::{Query, TsFileReader, ValueRef};
use colfile_datafusion::{TsFileOptions, TsFileTable};
use datafusion::arrow::util::display::{ArrayFormatter, FormatOptions};
use datafusion::catalog::TableProvider;
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};

/// One value of a plain-reader row, owned.
#[derive(Clone, Debug)]
enum V {
    Null,
    Bool(bool),
    I32(i32),
    I64(i64),
    F32(f32),
    F64(f64),
    Bytes(Vec<u8>),
}

impl From<ValueRef<'_>> for V {
    fn from(v: ValueRef<'_>) -> V {
        match v {
            ValueRef::Null => V::Null,
            ValueRef::Boolean(b) => V::Bool(b),
            ValueRef::Int32(x) => V::I32(x),
            ValueRef::Int64(x) => V::I64(x),
            ValueRef::Float(x) => V::F32(x),
            ValueRef::Double(x) => V::F64(x),
            ValueRef::Binary(b) => V::Bytes(b.to_vec()),
        }
    }
}

/// A row of the plain reader: device path, tags by name, time, fields by name.
struct PlainRow {
    device: String,
    tags: Vec<(String, Option<String>)>,
    time: i64,
    fields: Vec<(String, V)>,
}

fn plain_rows(path: &Path, table: Option<&str>) -> Vec<PlainRow> {
    let r = TsFileReader::open(FileSource::open(path).unwrap()).unwrap();
    let q = match table {
        Some(t) => Query::all().table(t),
        None => Query::all(),
    };
    let mut out = Vec::new();
    for b in r.query(&q).unwrap() {
        let b = b.unwrap();
        let mut cursors: Vec<_> = b
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.cursor()))
            .collect();
        for &time in &b.times {
            let fields = cursors
                .iter_mut()
                .map(|(n, c)| (n.clone(), V::from(c.next_value())))
                .collect();
            out.push(PlainRow {
                device: b.device.to_string(),
                tags: b.tags.clone(),
                time,
                fields,
            });
        }
    }
    out
}

/// Days since 1970-01-01 of a `YYYYMMDD` date (proleptic Gregorian).
fn days_of(yyyymmdd: i32) -> i32 {
    let (y, m, d) = (yyyymmdd / 10000, (yyyymmdd / 100) % 100, yyyymmdd % 100);
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The value of column `name` in `row` (path columns from the device path, split here).
fn value_of(row: &PlainRow, name: &str) -> V {
    if name == "device" {
        return V::Bytes(row.device.clone().into_bytes());
    }
    if let Some(n) = name
        .strip_prefix("level")
        .and_then(|n| n.parse::<usize>().ok())
    {
        assert!(!row.device.contains('`'), "fixture paths are plain");
        return match row.device.split('.').nth(n) {
            Some(s) => V::Bytes(s.as_bytes().to_vec()),
            None => V::Null,
        };
    }
    if let Some((_, t)) = row.tags.iter().find(|(t, _)| t == name) {
        return t.clone().map_or(V::Null, |s| V::Bytes(s.into_bytes()));
    }
    row.fields
        .iter()
        .find(|(f, _)| f.eq_ignore_ascii_case(name))
        .map_or(V::Null, |(_, v)| v.clone())
}

/// Arrow arrays of `schema` built from the plain rows, value by value.
fn in_memory(schema: &SchemaRef, rows: &[PlainRow]) -> RecordBatch {
    let columns: Vec<ArrayRef> = schema
        .fields()
        .iter()
        .map(|f| {
            let name = f.name().as_str();
            let values = rows.iter().map(|r| {
                if name == "time" {
                    V::I64(r.time)
                } else {
                    value_of(r, name)
                }
            });
            let a: ArrayRef = match f.data_type() {
                DataType::Boolean => {
                    let mut b = BooleanBuilder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::Bool(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                DataType::Int32 => {
                    let mut b = Int32Builder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::I32(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                DataType::Int64 => {
                    let mut b = Int64Builder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::I64(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                DataType::Float32 => {
                    let mut b = Float32Builder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::F32(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                DataType::Float64 => {
                    let mut b = Float64Builder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::F64(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish())
                }
                DataType::Utf8 => {
                    let mut b = StringBuilder::new();
                    values.for_each(|v| match v {
                        V::Bytes(x) => b.append_value(String::from_utf8(x).unwrap()),
                        _ => b.append_null(),
                    });
                    Arc::new(b.finish())
                }
                DataType::Binary => {
                    let mut b = BinaryBuilder::new();
                    values.for_each(|v| match v {
                        V::Bytes(x) => b.append_value(x),
                        _ => b.append_null(),
                    });
                    Arc::new(b.finish())
                }
                DataType::Date32 => {
                    let mut b = Date32Builder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::I32(x) = v {
                            Some(days_of(x))
                        } else {
                            None
                        })
                    });
                    Arc::new(b.finish())
                }
                DataType::Timestamp(TimeUnit::Millisecond, tz) => {
                    let mut b = TimestampMillisecondBuilder::new();
                    values.for_each(|v| {
                        b.append_option(if let V::I64(x) = v { Some(x) } else { None })
                    });
                    Arc::new(b.finish().with_timezone_opt(tz.clone()))
                }
                other => panic!("{name}: no builder for {other}"),
            };
            a
        })
        .collect();
    RecordBatch::try_new(schema.clone(), columns).unwrap()
}

/// A query's answer as sorted lines of text (`Err` text for an error).
async fn answer(ctx: &SessionContext, q: &str, ordered: bool) -> Result<Vec<String>, String> {
    let df = ctx.sql(q).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    let options = FormatOptions::default().with_display_error(true);
    let mut lines = Vec::new();
    for b in &batches {
        let formatters: Vec<ArrayFormatter> = b
            .columns()
            .iter()
            .map(|c| ArrayFormatter::try_new(c.as_ref(), &options).unwrap())
            .collect();
        for i in 0..b.num_rows() {
            let cells: Vec<String> = formatters
                .iter()
                .zip(b.columns())
                .map(|(f, c)| {
                    if c.is_null(i) {
                        "∅".to_owned()
                    } else {
                        f.value(i).to_string()
                    }
                })
                .collect();
            lines.push(cells.join(" | "));
        }
    }
    if !ordered {
        lines.sort();
    }
    Ok(lines)
}

/// Float aggregates may differ in the last bits (summation order): equal within 1e-9.
fn same(a: &[String], b: &[String]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x == y
                || x.split(" | ").zip(y.split(" | ")).all(|(p, q)| {
                    p == q
                        || matches!((p.parse::<f64>(), q.parse::<f64>()),
                            (Ok(p), Ok(q)) if (p - q).abs() <= 1e-9 * p.abs().max(q.abs()))
                })
        })
}

/// The queries asked of each table (`{t}` is the table).
fn queries(schema: &SchemaRef, rows: &[PlainRow]) -> Vec<(String, bool)> {
    let names: Vec<String> = schema
        .fields()
        .iter()
        .map(|f| format!("\"{}\"", f.name()))
        .collect();
    let mut q = vec![
        ("SELECT * FROM {t}".to_owned(), false),
        ("SELECT count(*) FROM {t}".to_owned(), false),
        (
            format!(
                "SELECT * FROM {{t}} ORDER BY {} NULLS FIRST LIMIT 7 OFFSET 3",
                names.join(", ")
            ),
            true,
        ),
    ];
    let mut times: Vec<i64> = rows.iter().map(|r| r.time).collect();
    times.sort_unstable();
    if let Some(&mid) = times.get(times.len() / 2) {
        q.push((format!("SELECT count(*) FROM {{t}} WHERE time >= arrow_cast({mid}, 'Timestamp(Millisecond, Some(\"UTC\"))')"), false));
        q.push((format!("SELECT count(*) FROM {{t}} WHERE time < arrow_cast({mid}, 'Timestamp(Millisecond, Some(\"UTC\"))')"), false));
    }
    // The Java files have 210 columns: 40 of them tell as much.
    for f in schema.fields().iter().take(40) {
        let c = format!("\"{}\"", f.name());
        q.push((format!("SELECT count({c}) FROM {{t}}"), false));
        let numeric = matches!(
            f.data_type(),
            DataType::Int32 | DataType::Int64 | DataType::Float32 | DataType::Float64
        );
        let ordered = numeric
            || matches!(
                f.data_type(),
                DataType::Utf8 | DataType::Date32 | DataType::Timestamp(_, _) | DataType::Boolean
            );
        if ordered {
            q.push((format!("SELECT min({c}), max({c}) FROM {{t}}"), false));
        }
        if numeric {
            q.push((format!("SELECT sum({c}) FROM {{t}}"), false));
            // Conditions on a value the column holds: pages may be skipped by statistics.
            let mut present: Vec<String> = rows
                .iter()
                .filter_map(|r| match value_of(r, f.name()) {
                    V::I32(x) => Some(x.to_string()),
                    V::I64(x) => Some(x.to_string()),
                    V::F32(x) if x.is_finite() => Some(format!("{:?}", f64::from(x))),
                    V::F64(x) if x.is_finite() => Some(format!("{x:?}")),
                    _ => None,
                })
                .collect();
            present.sort();
            if let Some(v) = present.get(present.len() / 2) {
                for op in ["=", ">=", "<"] {
                    q.push((
                        format!("SELECT count(*), sum({c}) FROM {{t}} WHERE {c} {op} {v}"),
                        false,
                    ));
                }
            }
        }
        let category = f.metadata().get("tsfile.category").map(String::as_str);
        if f.name() == "device" || f.name().starts_with("level") || category == Some("TAG") {
            q.push((
                format!("SELECT {c}, count(*), max(time) FROM {{t}} GROUP BY {c}"),
                false,
            ));
            q.push((
                format!("SELECT count(*) FROM {{t}} WHERE {c} IS NULL"),
                false,
            ));
        }
    }
    q
}

fn fixture_files() -> Vec<(PathBuf, Vec<Option<String>>)> {
    let mut out = Vec::new();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/tsfile");
    let shared = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/fixtures/external/real");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "tsfile"))
        .collect();
    // Java-written v4 files (org.apache.tsfile 1.2), when ../shared is beside the clone.
    for name in [
        "javav4_TableTsFileV4_NoSameDevice_SameTimeStamp1.tsfile",
        "javav4_TableTsFileV4_SameDevice_NoSameTimeStamp1.tsfile",
    ] {
        if shared.join(name).exists() {
            paths.push(shared.join(name));
        }
    }
    paths.sort();
    for p in paths {
        let r = TsFileReader::open(FileSource::open(&p).unwrap()).unwrap();
        let schemas = &r.metadata().footer().schemas;
        let tables: BTreeSet<String> = schemas.iter().map(|s| s.name.clone()).collect();
        let tables: Vec<Option<String>> = if tables.is_empty() {
            vec![None]
        } else {
            tables.into_iter().map(Some).collect()
        };
        out.push((p, tables));
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_answers_in_sql_as_its_rows_do() {
    let files = fixture_files();
    assert!(files.len() >= 36, "fixtures missing: {}", files.len());
    let mut asked = 0;
    let mut failures = Vec::new();
    for (path, tables) in &files {
        for table in tables {
            let options = TsFileOptions {
                table: table.clone(),
                ..TsFileOptions::default()
            };
            let t = TsFileTable::try_new(path.to_str().unwrap(), options).unwrap();
            let schema = t.schema();
            let rows = plain_rows(path, table.as_deref());
            let mem =
                MemTable::try_new(schema.clone(), vec![vec![in_memory(&schema, &rows)]]).unwrap();
            let ctx =
                SessionContext::new_with_config(SessionConfig::new().with_target_partitions(3));
            ctx.register_table("t", Arc::new(t)).unwrap();
            ctx.register_table("m", Arc::new(mem)).unwrap();
            let what = format!(
                "{} {}",
                path.display(),
                table.as_deref().unwrap_or("(tree)")
            );
            for (q, ordered) in queries(&schema, &rows) {
                let got = answer(&ctx, &q.replace("{t}", "t"), ordered).await;
                let want = answer(&ctx, &q.replace("{t}", "m"), ordered).await;
                asked += 1;
                let ok = match (&got, &want) {
                    (Ok(g), Ok(w)) => same(g, w),
                    (Err(_), Err(_)) => true,
                    _ => false,
                };
                if !ok {
                    failures.push(format!("{what}: {q}\n  SQL:  {got:?}\n  rows: {want:?}"));
                }
            }
        }
    }
    assert!(asked > 500, "only {asked} queries");
    assert!(
        failures.is_empty(),
        "{} of {asked} differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
