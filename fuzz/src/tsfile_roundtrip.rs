//! Structured write-then-read: an arbitrary table or set of tree devices (every type ×
//! encoding × compression that `supports` allows, every writer option that changes the
//! layout) and arbitrary rows are written by [`TsFileWriter`]; the file must pass `verify`
//! and read back exactly (rows whose fields are all null are not stored).
use arbitrary::{Arbitrary, Unstructured};
use colfile::tsfile::encoding::compression::page_codec;
use colfile::tsfile::encoding::supports;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, DeviceId, Encoding};
use colfile::tsfile::writer::Profile;
use colfile::tsfile::{verify, VerifyOptions};
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, ValueRef, WriterOptions};
use std::collections::BTreeMap;

use super::tsfile_encodings::{exact, same_value};

const TYPES: [DataType; 10] = [
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

#[derive(Debug, Arbitrary)]
struct Spec {
    tree: bool,
    /// Tree model: which devices are aligned (bit i: device i).
    aligned: u8,
    columns: Vec<(u8, u8, u8)>,
    devices: u8,
    time_plain: bool,
    time_compression: u8,
    java: bool,
    role_masks: bool,
    page_max_points: u8,
    page_max_bytes: u16,
    memory_threshold: u16,
    max_index_degree: u8,
    start: i64,
    rows: Vec<Row>,
}

#[derive(Debug, Arbitrary)]
struct Row {
    device: u8,
    step: u16,
    flush: bool,
    cells: Vec<Option<Cell>>,
}

#[derive(Debug, Arbitrary)]
struct Cell {
    bits: u64,
    bytes: Vec<u8>,
}

/// The column's value for a cell: any value of the type, except DATE (a valid date), GORILLA
/// integers (not the end sentinel) and FLOAT/DOUBLE under lossy encodings (two decimals).
fn value(t: DataType, e: Encoding, c: &Cell) -> Value {
    let b = c.bits;
    let no_min = |x: i64, min: i64| {
        if e == Encoding::Gorilla && x == min {
            x + 1
        } else {
            x
        }
    };
    match t {
        DataType::Boolean => Value::Boolean(b & 1 == 1),
        DataType::Int32 => Value::Int32(no_min(b as i32 as i64, i32::MIN.into()) as i32),
        DataType::Int64 | DataType::Timestamp => Value::Int64(no_min(b as i64, i64::MIN)),
        DataType::Date => {
            let (y, m, d) = (1000 + b % 9000, 1 + (b >> 16) % 12, 1 + (b >> 24) % 28);
            Value::Int32((y * 10000 + m * 100 + d) as i32)
        }
        DataType::Float if exact(e, t) => Value::Float(f32::from_bits(b as u32)),
        DataType::Double if exact(e, t) => Value::Double(f64::from_bits(b)),
        DataType::Float => Value::Float((((b % 200_000) as i64 - 100_000) as f64 / 100.0) as f32),
        DataType::Double => Value::Double(((b % 20_000_000) as i64 - 10_000_000) as f64 / 100.0),
        DataType::Blob => Value::Binary(c.bytes.clone()),
        _ => Value::string(&String::from_utf8_lossy(&c.bytes)),
    }
}

/// Every row the reader returns, keyed by (device, time): (column name, value) pairs. A
/// non-aligned series that never had a value is not in the file, so its column is absent.
type Rows = BTreeMap<(String, i64), Vec<(String, Value)>>;

fn read_all(bytes: &[u8]) -> Rows {
    let r = TsFileReader::open(bytes).unwrap_or_else(|e| panic!("open: {e}"));
    let mut out = BTreeMap::new();
    let all = r
        .query(&Query::all())
        .unwrap_or_else(|e| panic!("query: {e}"));
    for b in all {
        let b = b.unwrap_or_else(|e| panic!("batch: {e}"));
        let mut cursors: Vec<_> = b.columns.iter().map(|c| (&c.name, c.cursor())).collect();
        for &t in &b.times {
            let row = cursors
                .iter_mut()
                .map(|(n, c)| (n.to_string(), c.next_value().to_owned()))
                .collect();
            let dup = out.insert((b.device.to_string(), t), row);
            assert!(dup.is_none(), "{}@{t} read twice", b.device);
        }
    }
    out
}

/// The target body.
pub fn run(data: &[u8]) {
    let Ok(spec) = Spec::arbitrary_take_rest(Unstructured::new(data)) else {
        return;
    };
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        eprintln!("{spec:#?}");
    }
    // Every compression with a page codec.
    let compressions: Vec<Compression> = (Compression::ALL.iter().copied())
        .filter(|&c| page_codec(c).is_ok())
        .collect();
    let pick = |list: &[Compression], i: u8| list[i as usize % list.len()];
    let cols: Vec<(DataType, Encoding, Compression)> = spec
        .columns
        .iter()
        .take(6)
        .map(|&(t, e, c)| {
            let t = TYPES[t as usize % TYPES.len()];
            let e = Encoding::ALL[e as usize % Encoding::ALL.len()];
            (t, e, pick(&compressions, c))
        })
        .filter(|&(t, e, _)| supports(e, t))
        .collect();
    if cols.is_empty() {
        return;
    }
    let ndev = 1 + spec.devices as usize % 4;
    let mut options = WriterOptions::default()
        .with_page_max_points(1 + spec.page_max_points as usize)
        .with_page_max_bytes(64 + spec.page_max_bytes as usize)
        .with_memory_threshold(256 + spec.memory_threshold as usize * 16)
        .with_max_index_degree(2 + spec.max_index_degree as usize % 8)
        .with_time_codec(
            if spec.time_plain {
                Encoding::Plain
            } else {
                Encoding::Ts2Diff
            },
            pick(&compressions, spec.time_compression),
        )
        .with_threads(1);
    if spec.java {
        options = options.with_profile(Profile::Java);
    }
    options.role_masks = spec.role_masks;
    let mut w = TsFileWriter::new(Vec::new(), options).expect("valid options");
    let names: Vec<String> = (0..cols.len()).map(|i| format!("s{i}")).collect();
    let paths: Vec<String> = (0..ndev).map(|d| format!("root.sg.d{d}")).collect();
    let tags = |d: usize| vec![Some(format!("d{d}")), (d % 2 == 1).then(|| "x".to_string())];
    if spec.tree {
        for (d, path) in paths.iter().enumerate() {
            let ms = cols
                .iter()
                .zip(&names)
                .map(|(&(t, e, c), n)| MeasurementSchema::new(n, t, e, c))
                .collect();
            w.register_device(path, spec.aligned >> d & 1 == 1, ms)
                .unwrap_or_else(|e| panic!("register {path}: {e}"));
        }
    } else {
        let mut columns = vec![
            TableColumn::new("id", DataType::String, ColumnCategory::Tag),
            TableColumn::new("sub", DataType::Text, ColumnCategory::Tag),
        ];
        for (&(t, e, c), n) in cols.iter().zip(&names) {
            columns.push(TableColumn::new(n, t, ColumnCategory::Field).with_codec(e, c));
        }
        w.register_table(TableSchema::new("t", columns))
            .unwrap_or_else(|e| panic!("register table: {e}"));
    }
    let mut last = vec![spec.start; ndev];
    let mut expected = BTreeMap::new();
    for row in spec.rows.iter().take(2000) {
        let d = row.device as usize % ndev;
        let Some(t) = last[d].checked_add(1 + i64::from(row.step)) else {
            break;
        };
        last[d] = t;
        let values: Vec<Value> = cols
            .iter()
            .enumerate()
            .map(|(i, &(ty, e, _))| match row.cells.get(i) {
                Some(Some(c)) => value(ty, e, c),
                _ => Value::Null,
            })
            .collect();
        let key = if spec.tree {
            let rec: Vec<(&str, ValueRef<'_>)> = names
                .iter()
                .zip(&values)
                .map(|(n, v)| (n.as_str(), v.as_ref()))
                .collect();
            w.write_record(&paths[d], t, &rec)
                .unwrap_or_else(|e| panic!("write {}@{t}: {e}", paths[d]));
            paths[d].clone()
        } else {
            let mut full: Vec<Value> = tags(d)
                .iter()
                .map(|t| t.as_deref().map_or(Value::Null, Value::string))
                .collect();
            full.extend(values.iter().cloned());
            w.write_row("t", t, &full)
                .unwrap_or_else(|e| panic!("write row {d}@{t}: {e}"));
            DeviceId::from_table("t", tags(d))
                .expect("a device")
                .to_string()
        };
        if row.flush {
            w.flush().unwrap_or_else(|e| panic!("flush: {e}"));
        }
        expected.insert((key, t), values);
    }
    let (bytes, summary) = w
        .finish_into_inner()
        .unwrap_or_else(|e| panic!("finish: {e}"));
    assert_eq!(summary.rows, expected.len() as u64);
    if std::env::var_os("FUZZ_DEBUG").is_some() {
        let _ = std::fs::write("fuzz_debug.tsfile", &bytes);
    }
    let got = read_all(&bytes);
    let report = verify(&bytes, &VerifyOptions::default()).expect("verify reads a Vec");
    assert!(report.is_ok(), "verify: {:?}", report.problems);
    for (key, row) in &got {
        let want = expected
            .get(key)
            .unwrap_or_else(|| panic!("{key:?} read but never written"));
        for (name, b) in row {
            let i = names.iter().position(|n| n == name);
            let a = i
                .and_then(|i| want.get(i))
                .unwrap_or_else(|| panic!("{key:?}: column {name} read but never written"));
            let same = same_value(a.as_ref(), b.as_ref()) || a.is_null() && b.is_null();
            assert!(same, "{key:?} column {name}: wrote {a:?}, read {b:?}");
        }
        for (name, a) in names.iter().zip(want) {
            let read = row.iter().any(|(n, _)| n == name);
            assert!(read || a.is_null(), "{key:?} column {name}: {a:?} lost");
        }
    }
    for (key, want) in &expected {
        let stored = got.contains_key(key);
        assert!(stored || want.iter().all(Value::is_null), "{key:?} lost");
    }
}
