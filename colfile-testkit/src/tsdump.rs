//! TsFile fixture helpers: which fixtures this build can read, and a semantic comparison of
//! two oracle-format dumps (the rules of `tsoracle.py compare`: key order and number
//! formatting ignored, floats bit-equal except NaN == NaN, rows matched by table, tags and
//! time or by device and time).

use colfile::tsfile::format::DataType;
use colfile::tsfile::Value;
use proptest::prelude::*;
use serde_json::Value as Json;
use std::collections::BTreeMap;
use std::path::PathBuf;

pub fn ts_fixtures_dir() -> PathBuf {
    crate::repo_root().join("fixtures/tsfile")
}

/// Every fixture name (`X` of `X.tsfile`), sorted.
pub fn ts_fixture_names() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(ts_fixtures_dir())
        .expect("fixtures/tsfile")
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_string_lossy().into_owned();
            n.strip_suffix(".tsfile").map(str::to_owned)
        })
        .collect();
    v.sort();
    v
}

/// Encodings and compressions that a spec uses (column and config level).
pub fn spec_codecs(spec: &Json) -> Vec<String> {
    let mut out = Vec::new();
    let col = |c: &Json, out: &mut Vec<String>| {
        for k in [
            "encoding",
            "compression",
            "time_encoding",
            "time_compression",
        ] {
            if let Some(s) = c.get(k).and_then(Json::as_str) {
                out.push(s.to_uppercase());
            }
        }
    };
    for t in spec["tables"].as_array().into_iter().flatten() {
        for c in t["columns"].as_array().into_iter().flatten() {
            col(c, &mut out);
        }
        col(t, &mut out);
        for v in t
            .get("encodings")
            .and_then(Json::as_object)
            .into_iter()
            .flatten()
        {
            if let Some(s) = v.1.as_str() {
                out.push(s.to_uppercase());
            }
        }
    }
    for d in spec["devices"].as_array().into_iter().flatten() {
        for m in d["measurements"].as_array().into_iter().flatten() {
            col(m, &mut out);
        }
    }
    if let Some(c) = spec.get("config") {
        col(c, &mut out);
    }
    out
}

/// Whether this build implements the encoding or compression called `name`: taken from the
/// library itself ([`supports`] for any data type, [`page_codec`]), so a fixture flips from
/// expected-unsupported to a real comparison as soon as its codec lands.
pub fn implemented(name: &str) -> bool {
    use colfile::tsfile::encoding::compression::page_codec;
    use colfile::tsfile::encoding::supports;
    use colfile::tsfile::format::{Compression, DataType, Encoding};
    if let Ok(e) = Encoding::from_name(name) {
        return DataType::ALL.iter().any(|&t| supports(e, t));
    }
    match Compression::from_name(name) {
        Ok(c) => page_codec(c).is_ok(),
        Err(_) => false,
    }
}

/// The first codec of `spec` that this build lacks, if any.
pub fn missing_codec(spec: &Json) -> Option<String> {
    spec_codecs(spec).into_iter().find(|c| !implemented(c))
}

pub fn parse_lines(text: &str) -> Vec<Json> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn same(a: &Json, b: &Json) -> bool {
    match (a, b) {
        (Json::Number(x), Json::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(p), Some(q)) => p == q,
            _ => match (x.as_f64(), y.as_f64()) {
                (Some(p), Some(q)) => p.to_bits() == q.to_bits(),
                _ => x.to_string() == y.to_string(),
            },
        },
        (Json::Array(x), Json::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Json::Object(x), Json::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// JSON text with object keys sorted (serde_json keeps insertion order here).
pub fn canon(j: &Json) -> String {
    match j {
        Json::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            let parts: Vec<String> = keys
                .iter()
                .map(|k| format!("{}:{}", Json::from(k.as_str()), canon(&m[*k])))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Json::Array(a) => format!("[{}]", a.iter().map(canon).collect::<Vec<_>>().join(",")),
        _ => j.to_string(),
    }
}

fn row_key(r: &Json) -> String {
    match r.get("device") {
        Some(d) => format!("{d}|{}", r["time"]),
        None => format!("{}|{}|{}", r["table"], canon(&r["tags"]), r["time"]),
    }
}

/// Differences between two dumps (empty = equal); `rows_only` skips the header lines.
pub fn compare_dumps(expected: &[Json], actual: &[Json], rows_only: bool) -> Vec<String> {
    let split = |lines: &[Json]| {
        let mut rows = BTreeMap::new();
        let mut other = BTreeMap::new();
        for l in lines {
            let kind = l["kind"].as_str().unwrap_or("").to_owned();
            if kind == "row" {
                rows.insert(row_key(l), l["fields"].clone());
            } else {
                let mut l = l.clone();
                if kind == "devices" {
                    let mut d: Vec<String> = l["devices"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(canon)
                        .collect();
                    d.sort();
                    l = Json::from(d);
                }
                other.insert(kind, l);
            }
        }
        (rows, other)
    };
    let (ra, oa) = split(expected);
    let (rb, ob) = split(actual);
    let mut problems = Vec::new();
    if !rows_only {
        for k in ["schema", "devices", "properties"] {
            if !same(
                oa.get(k).unwrap_or(&Json::Null),
                ob.get(k).unwrap_or(&Json::Null),
            ) {
                problems.push(format!(
                    "{k} differs:\n  expected {:?}\n  actual   {:?}",
                    oa.get(k),
                    ob.get(k)
                ));
            }
        }
    }
    for (k, v) in &ra {
        match rb.get(k) {
            None => problems.push(format!("row missing: {k}")),
            Some(w) if !same(v, w) => problems.push(format!("row {k}: expected {v} got {w}")),
            _ => {}
        }
    }
    for k in rb.keys() {
        if !ra.contains_key(k) {
            problems.push(format!("unexpected row: {k}"));
        }
    }
    problems
}

/// Our dump of `bytes` in the oracle's format.
pub fn our_dump(bytes: Vec<u8>) -> colfile::Result<String> {
    let r = colfile::tsfile::TsFileReader::open(bytes)?;
    let tree = r.metadata().footer().schemas.is_empty();
    let mut out = String::new();
    for l in colfile::tsfile::tools::dump::header_lines(&r)? {
        out.push_str(&l);
        out.push('\n');
    }
    for b in r.query(&colfile::tsfile::Query::all())? {
        let b = b?;
        let owner = if tree {
            b.device.to_string()
        } else {
            b.table.clone()
        };
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let values: Vec<_> = cursors.iter_mut().map(|c| c.next_value()).collect();
            let mut line = String::new();
            colfile::tsfile::tools::dump::row_line(&mut line, tree, &owner, t, &b, &values);
            out.push_str(&line);
            out.push('\n');
        }
    }
    Ok(out)
}

/// Every TsFile data type that holds values and that both writers accept.
pub const VALUE_TYPES: [DataType; 10] = [
    DataType::Boolean,
    DataType::Int32,
    DataType::Int64,
    DataType::Float,
    DataType::Double,
    DataType::Text,
    DataType::String,
    DataType::Blob,
    DataType::Date,
    DataType::Timestamp,
];

/// A random TsFile value of `t`, null one time in five. With `exact_float` false, FLOAT and
/// DOUBLE values have two decimals (what TS_2DIFF and RLE keep exactly).
pub fn arb_value(t: DataType, exact_float: bool) -> BoxedStrategy<Value> {
    let v: BoxedStrategy<Value> = match t {
        DataType::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
        DataType::Int32 => any::<i32>().prop_map(Value::Int32).boxed(),
        DataType::Date => (1000i32..=9999, 1i32..=12, 1i32..=28)
            .prop_map(|(y, m, d)| Value::Int32(y * 10000 + m * 100 + d))
            .boxed(),
        DataType::Int64 | DataType::Timestamp => any::<i64>().prop_map(Value::Int64).boxed(),
        DataType::Float if exact_float => any::<f32>()
            .prop_filter("NaN payloads are not kept", |x| !x.is_nan())
            .prop_map(Value::Float)
            .boxed(),
        DataType::Double if exact_float => any::<f64>()
            .prop_filter("NaN payloads are not kept", |x| !x.is_nan())
            .prop_map(Value::Double)
            .boxed(),
        DataType::Float => (-100_000i32..100_000)
            .prop_map(|c| Value::Float((c as f64 / 100.0) as f32))
            .boxed(),
        DataType::Double => (-10_000_000i64..10_000_000)
            .prop_map(|c| Value::Double(c as f64 / 100.0))
            .boxed(),
        DataType::Blob => proptest::collection::vec(any::<u8>(), 0..20)
            .prop_map(Value::Binary)
            .boxed(),
        _ => "[a-c]{0,3}|\\PC{0,12}"
            .prop_map(|s| Value::string(&s))
            .boxed(),
    };
    prop_oneof![1 => Just(Value::Null), 4 => v].boxed()
}
