//! RCFile tables: every Hive type the Arrow mapping supports (scalars and nested
//! array/map/struct), both serdes, several codecs, small row groups and splits; rows read
//! back with `RowReader`.

use std::path::Path;

use arrow_schema::{DataType as AT, TimeUnit};
use colfile::compress::HadoopCodec;
use colfile::rcfile::{
    Date, Decimal, HiveType, RcFileWriter, RowReader, RowWriter, Schema, Serde, Timestamp, Value,
};
use colfile::source::FileSource;
use colfile_datafusion::RcFileOptions;

use super::harness::{files_in, fresh_dir, Case, Files};
use super::model::{days_from_ymd, Col, Kind, Table, V};
use super::rng::Rng;
use super::ts_table::compare_written;
use super::values::{i32_value, i64_value, nan_note, random_string, set_nan, with_nan, ymd};

fn kind(t: &HiveType) -> (Kind, AT) {
    match t {
        HiveType::Boolean => (Kind::Bool, AT::Boolean),
        HiveType::TinyInt => (Kind::I8, AT::Int8),
        HiveType::SmallInt => (Kind::I16, AT::Int16),
        HiveType::Int => (Kind::I32, AT::Int32),
        HiveType::BigInt => (Kind::I64, AT::Int64),
        HiveType::Float => (Kind::F32, AT::Float32),
        HiveType::Double => (Kind::F64, AT::Float64),
        HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) => (Kind::Str, AT::Utf8),
        HiveType::Binary => (Kind::Bin, AT::Binary),
        HiveType::Date => (Kind::Date, AT::Date32),
        HiveType::Timestamp => (Kind::TsUs, AT::Timestamp(TimeUnit::Microsecond, None)),
        HiveType::Decimal { precision, scale } => (
            Kind::Dec(*precision, *scale),
            AT::Decimal128(*precision, *scale as i8),
        ),
        // Nested types: the exact Arrow shape is not checked (AT::Null = "any").
        _ => (Kind::Nested, AT::Null),
    }
}

fn float(rng: &mut Rng, wide: bool) -> f64 {
    let mut ext = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY];
    if with_nan() {
        ext.push(f64::NAN);
    }
    ext.extend(if wide {
        [f64::MAX, f64::MIN, 5e-324]
    } else {
        [f32::MAX as f64, f32::MIN as f64, 1e-45f32 as f64]
    });
    match rng.below(10) {
        0 => *rng.pick(&ext),
        1..=3 => *rng.pick(&[1.5, -2.25, 0.1, 100.0]),
        _ => rng.range(-100_000, 100_000) as f64 / 64.0,
    }
}

/// A random value of `t` (nulls included) and what SQL must show for it.
fn value(t: &HiveType, rng: &mut Rng, nulls: f64, lb: bool) -> Value {
    if rng.chance(nulls) {
        return Value::Null;
    }
    match t {
        HiveType::Boolean => Value::Boolean(rng.chance(0.5)),
        HiveType::TinyInt => Value::TinyInt(if rng.chance(0.2) {
            *rng.pick(&[i8::MIN, i8::MAX])
        } else {
            rng.range(-5, 5) as i8
        }),
        HiveType::SmallInt => Value::SmallInt(if rng.chance(0.2) {
            *rng.pick(&[i16::MIN, i16::MAX])
        } else {
            rng.range(-300, 300) as i16
        }),
        HiveType::Int => Value::Int(i32_value(rng)),
        HiveType::BigInt => Value::BigInt(i64_value(rng)),
        HiveType::Float => Value::Float(float(rng, false) as f32),
        HiveType::Double => Value::Double(float(rng, true)),
        HiveType::String => Value::string(random_string(rng)),
        // LazyBinaryColumnarSerDe reads an empty varchar/char cell as NULL (as Hive does):
        // no empty ones there.
        HiveType::Varchar(n) => {
            let s: String = random_string(rng).chars().take(*n as usize).collect();
            Value::string(if lb && s.is_empty() { "v".into() } else { s })
        }
        HiveType::Char(n) => {
            let s: String = random_string(rng).chars().take(*n as usize).collect();
            let pad = *n as usize - s.chars().count();
            Value::string(format!("{s}{}", " ".repeat(pad)))
        }
        // LazyBinaryColumnarSerDe refuses empty binary values (as Hive does).
        HiveType::Binary => Value::Binary(
            (0..rng.below(6) + lb as usize)
                .map(|_| rng.next_u64() as u8)
                .collect(),
        ),
        HiveType::Date => {
            let (y, m, d) = ymd(rng);
            Value::Date(Date(days_from_ymd(y, m, d)))
        }
        HiveType::Timestamp => {
            let (y, m, d) = ymd(rng);
            let secs = days_from_ymd(y, m, d) as i64 * 86_400
                + if rng.chance(0.2) {
                    86_399
                } else {
                    rng.range(0, 86_399)
                };
            let nanos = match rng.below(4) {
                0 => 0,
                1 => 999_999_999,
                2 => rng.range(0, 999) as u32 * 1_000_000,
                _ => rng.range(0, 999_999_999) as u32,
            };
            Value::Timestamp(Timestamp::new(secs, nanos).unwrap())
        }
        HiveType::Decimal { precision, scale } => {
            let max = 10i128.pow(*precision as u32) - 1;
            let u = match rng.below(6) {
                0 => *rng.pick(&[max, -max, 0]),
                1..=2 => rng.range(-1000, 1000) as i128,
                _ => ((rng.next_u64() as i64 as i128) * (rng.next_u64() as i128)) % (max + 1),
            };
            Value::Decimal(Decimal::new(u, *scale).unwrap())
        }
        HiveType::Array(item) => {
            let xs: Vec<Value> = (0..rng.below(4))
                .map(|_| value(item, rng, 0.2, lb))
                .collect();
            // The text serde cannot tell `[NULL]` from NULL (both `\N`).
            if !lb && xs.len() == 1 && xs[0].is_null() {
                return Value::Array(vec![]);
            }
            Value::Array(xs)
        }
        HiveType::Map(k, v) => {
            let mut es: Vec<(Value, Value)> = Vec::new();
            for _ in 0..rng.below(4) {
                let key = value(k, rng, 0.0, lb);
                // Distinct keys: how duplicates read back is the serde's business.
                if !es.iter().any(|(x, _)| x == &key) {
                    es.push((key, value(v, rng, 0.2, lb)));
                }
            }
            Value::Map(es)
        }
        HiveType::Struct(fields) => {
            Value::Struct(fields.iter().map(|f| value(&f.ty, rng, 0.2, lb)).collect())
        }
        other => panic!("no values of {other:?}"),
    }
}

/// A Hive value as SQL shows it.
fn to_v(t: &HiveType, v: &Value) -> V {
    match (t, v) {
        (_, Value::Null) => V::Null,
        (_, Value::Boolean(b)) => V::Bool(*b),
        (_, Value::TinyInt(x)) => V::Int(*x as i64),
        (_, Value::SmallInt(x)) => V::Int(*x as i64),
        (_, Value::Int(x)) => V::Int(*x as i64),
        (_, Value::BigInt(x)) => V::Int(*x),
        (_, Value::Float(x)) => V::F32(*x),
        (_, Value::Double(x)) => V::F64(*x),
        (_, Value::String(b)) => V::Str(String::from_utf8(b.clone()).expect("UTF-8")),
        (_, Value::Binary(b)) => V::Bin(b.clone()),
        (_, Value::Date(d)) => V::Date(d.0),
        // Microseconds, sub-microsecond nanos cut (floor: nanos are never negative).
        (_, Value::Timestamp(ts)) => V::Ts(ts.seconds * 1_000_000 + ts.nanos as i64 / 1_000),
        (HiveType::Decimal { scale, .. }, Value::Decimal(d)) => {
            assert!(
                d.scale <= *scale,
                "decimal read with scale {} > {scale}",
                d.scale
            );
            V::Dec(d.unscaled * 10i128.pow((*scale - d.scale) as u32))
        }
        (HiveType::Array(item), Value::Array(xs)) => {
            V::List(xs.iter().map(|x| to_v(item, x)).collect())
        }
        (HiveType::Map(kt, vt), Value::Map(es)) => {
            V::Map(es.iter().map(|(k, v)| (to_v(kt, k), to_v(vt, v))).collect())
        }
        (HiveType::Struct(fs), Value::Struct(xs)) => {
            V::Struct(fs.iter().zip(xs).map(|(f, x)| to_v(&f.ty, x)).collect())
        }
        (t, v) => panic!("value {v:?} for type {t:?}"),
    }
}

const COLUMNS: [&str; 18] = [
    "b:boolean",
    "ti:tinyint",
    "si:smallint",
    "i:int",
    "bi:bigint",
    "fl:float",
    "db:double",
    "s:string",
    "vc:varchar(10)",
    "ch:char(5)",
    "bin:binary",
    "ts:timestamp",
    "dt:date",
    "dec:decimal(P)",
    "arr:array<int>",
    "mp:map<string,bigint>",
    "st:struct<a:int,b:string,c:double>",
    "arrs:array<struct<x:double,y:string>>",
];

pub fn make(rng: &mut Rng, case: usize, root: &Path) -> Case {
    set_nan(rng.chance(0.5));
    let dir = fresh_dir(root.join(format!("rc{case}")));
    let mut picked: Vec<String> = vec!["id:bigint".into()];
    for c in COLUMNS {
        if rng.chance(0.7) {
            let (p, s) = *rng.pick(&[(5u8, 2u8), (12, 0), (18, 6), (28, 10), (10, 10)]);
            picked.push(c.replace("(P)", &format!("({p},{s})")));
        }
    }
    let schema_text = picked.join(",");
    let schema: Schema = schema_text.parse().unwrap();
    let serde = if rng.chance(0.5) {
        Serde::binary()
    } else {
        Serde::text()
    };
    let serde_name = if matches!(serde, Serde::Binary(_)) {
        "binary"
    } else {
        "text"
    };
    let types: Vec<HiveType> = schema.columns().iter().map(|f| f.ty.clone()).collect();
    let nulls: Vec<f64> = types
        .iter()
        .enumerate()
        .map(|(i, _)| {
            if i == 0 {
                0.0
            } else {
                *rng.pick(&[0.0, 0.1, 0.5, 1.0])
            }
        })
        .collect();

    let nfiles = 1 + rng.below(2);
    let mut written = Vec::new();
    let mut file_desc = Vec::new();
    let mut id = 0i64;
    for f in 0..nfiles {
        let codec = *rng.pick(&[
            None,
            Some(HadoopCodec::Default),
            Some(HadoopCodec::Gzip),
            Some(HadoopCodec::Snappy),
            Some(HadoopCodec::Lz4),
            Some(HadoopCodec::ZStandard),
            Some(HadoopCodec::BZip2),
        ]);
        let group_rows = *rng.pick(&[3usize, 10, 50, 200]);
        let n = 50 + rng.below(700);
        file_desc.push(format!(
            "part-{f}.rc: {n} rows, codec {codec:?}, {group_rows} rows per group"
        ));
        let file = std::fs::File::create(dir.join(format!("part-{f}.rc"))).unwrap();
        let w = RcFileWriter::builder(file, schema.len())
            .with_codec(codec)
            .with_row_group_rows(group_rows)
            .build()
            .unwrap();
        let mut w = RowWriter::new(w, schema.clone(), serde.clone());
        for _ in 0..n {
            // Ids are unique but not in row order.
            id += 1 + rng.below(3) as i64;
            let mut row = vec![Value::BigInt(if rng.chance(0.5) { id } else { -id })];
            row.extend(
                types
                    .iter()
                    .zip(&nulls)
                    .skip(1)
                    .map(|(t, &p)| value(t, rng, p, serde_name == "binary")),
            );
            written.push(
                types
                    .iter()
                    .zip(&row)
                    .map(|(t, v)| to_v(t, v))
                    .collect::<Vec<V>>(),
            );
            w.write(&row)
                .unwrap_or_else(|e| panic!("RowWriter::write: {e}"));
        }
        w.finish().unwrap();
    }

    // The rows, through RowReader.
    let mut rows = Vec::new();
    for f in files_in(&dir) {
        let mut r =
            RowReader::builder(FileSource::open(&f).unwrap(), schema.clone(), serde.clone())
                .build()
                .unwrap();
        while let Some(row) = r.next_row().unwrap() {
            rows.push(
                types
                    .iter()
                    .zip(row)
                    .map(|(t, v)| to_v(t, v))
                    .collect::<Vec<V>>(),
            );
        }
    }
    let mut reader_issues = Vec::new();
    compare_written(&written, &rows, &[], &mut reader_issues);

    let cols: Vec<Col> = schema
        .columns()
        .iter()
        .map(|f| {
            let (kind, arrow) = kind(&f.ty);
            Col {
                name: f.name.clone(),
                kind,
                arrow,
            }
        })
        .collect();
    let group_cols = cols
        .iter()
        .enumerate()
        .filter(|(_, c)| ["b", "ti", "s", "ch", "dt"].contains(&c.name.as_str()))
        .map(|(i, _)| i)
        .collect();
    let split = *rng.pick(&[512u64, 4096, 64 << 20]);
    let mut options = RcFileOptions::new(schema, serde);
    options.split_size = split;
    let desc = format!(
        "rcfile case {case}{}: {} (serde {serde_name}, split_size {split}; {}); schema {schema_text}; null rates {nulls:?}",
        nan_note(),
        dir.display(),
        file_desc.join("; ")
    );
    let n = cols.len();
    Case {
        dir,
        name: "rc".into(),
        files: Files::RcFile(options),
        table: Table {
            order_key: vec![0],
            group_cols,
            extra_literals: vec![Vec::new(); n],
            like: None,
            cols,
            rows,
            float_minmax: !with_nan(),
        },
        desc,
        reader_issues,
    }
}
