//! The TsFile tools: `recover` (files cut at every chunk-group boundary and at random bytes
//! recover exactly the rows of their complete chunk groups; the official library reads a
//! recovered file), `sketch` (offsets agree with the oracle's `.raw.json` structure) and
//! `verify` (every fixture is clean; each kind of damage gives its own located problem).

use colfile_testkit as common;

#[path = "tsfile_tools/recover.rs"]
mod recover_tests;
#[path = "tsfile_tools/sketch.rs"]
mod sketch_tests;
#[path = "tsfile_tools/verify.rs"]
mod verify_tests;

use std::collections::BTreeMap;

use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{
    ColumnCategory, Compression, DataType, DeviceId, Encoding, TailBytes, TimeseriesMetadata,
};
use colfile::tsfile::tools::json::{write_value, FloatStyle};
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::tools::sketch::sketch;
use colfile::tsfile::writer::index::{write_index, IndexInput};
use colfile::tsfile::FileMetadata;
use colfile::tsfile::WriterOptions;
use colfile::tsfile::{recover, Query, TsFileReader, TsFileWriter, Value, ValueRef};
use colfile::tsfile::{recover_with, RecoverOptions};
use colfile::tsfile::{verify, Check, Problem, VerifyOptions};
use colfile::Limits;
use common::load;
use common::tsdump::{compare_dumps, parse_lines, ts_fixture_names, ts_fixtures_dir};

/// A device's identity: its segments (display forms can collide: `null` vs a null tag).
fn key(d: &DeviceId) -> String {
    format!("{:?}", d.segments())
}

/// (device, time) -> non-null field values as JSON text.
type Rows = BTreeMap<(String, i64), BTreeMap<String, String>>;

fn rows_of(bytes: Vec<u8>) -> Rows {
    let r = TsFileReader::open(bytes).expect("open");
    let mut rows = Rows::new();
    for b in r.query(&Query::all()).expect("query") {
        let b = b.expect("batch");
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let mut fields = BTreeMap::new();
            for (c, cur) in b.columns.iter().zip(cursors.iter_mut()) {
                let v = cur.next_value();
                if !matches!(v, ValueRef::Null) {
                    let mut s = String::new();
                    write_value(c.data_type, v, FloatStyle::Shortest, &mut s);
                    fields.insert(c.name.clone(), s);
                }
            }
            rows.insert((key(&b.device), t), fields);
        }
    }
    rows
}

/// A table-model file of our writer: 2 tables, 3 devices (one with a null tag), several
/// flushes (so several chunk groups per device), multi-page chunks, nulls.
fn table_file() -> Vec<u8> {
    let mut opts = WriterOptions::default();
    opts.page_max_points = 7;
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    w.register_table(TableSchema::new(
        "plant",
        vec![
            TableColumn::new("region", DataType::String, ColumnCategory::Tag),
            TableColumn::new("unit", DataType::String, ColumnCategory::Tag),
            TableColumn::new("kw", DataType::Double, ColumnCategory::Field)
                .with_codec(Encoding::Gorilla, Compression::Lz4),
            TableColumn::new("on", DataType::Boolean, ColumnCategory::Field),
            TableColumn::new("note", DataType::String, ColumnCategory::Attribute),
            TableColumn::new("n", DataType::Int32, ColumnCategory::Field)
                .with_codec(Encoding::Ts2Diff, Compression::Uncompressed),
        ],
    ))
    .unwrap();
    w.register_table(TableSchema::new(
        "meter",
        vec![
            TableColumn::new("id", DataType::String, ColumnCategory::Tag),
            TableColumn::new("v", DataType::Int64, ColumnCategory::Field),
        ],
    ))
    .unwrap();
    let mut t = 1_000i64;
    for round in 0..4 {
        for i in 0..20 {
            t += 10;
            for (region, unit) in [("east", Some("u1")), ("west", None)] {
                let unit = unit.map_or(Value::Null, Value::string);
                let kw = if i % 5 == 3 {
                    Value::Null
                } else {
                    Value::Double(i as f64 * 1.5 - round as f64)
                };
                let row = [
                    Value::string(region),
                    unit,
                    kw,
                    Value::Boolean(i % 2 == 0),
                    Value::Null,
                    Value::Int32(i * round),
                ];
                w.write_row("plant", t, &row).unwrap();
            }
            w.write_row("meter", t, &[Value::string("m1"), Value::Int64(t * 3)])
                .unwrap();
        }
        w.flush().unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// A tree-model file of our writer: a non-aligned device with multi-page chunks and an
/// aligned one, flushed twice.
fn tree_file() -> Vec<u8> {
    let mut opts = WriterOptions::default();
    opts.page_max_points = 5;
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    let m = |n: &str, t| MeasurementSchema::new(n, t, Encoding::Plain, Compression::Snappy);
    w.register_device(
        "root.sg.d1",
        false,
        vec![m("a", DataType::Int64), m("b", DataType::Float)],
    )
    .unwrap();
    w.register_device("root.sg.d2", true, vec![m("c", DataType::Text)])
        .unwrap();
    for k in 0..2i64 {
        for i in 0..12i64 {
            let t = k * 100 + i;
            let b = (i % 3 != 0).then_some(ValueRef::Float(i as f32 / 4.0));
            let mut rec = vec![("a", ValueRef::Int64(i - 6))];
            rec.extend(b.map(|b| ("b", b)));
            w.write_record("root.sg.d1", t, &rec).unwrap();
            w.write_record("root.sg.d2", t, &[("c", ValueRef::Binary(b"x"))])
                .unwrap();
        }
        w.flush().unwrap();
    }
    w.finish_into_inner().unwrap().0
}

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(ts_fixtures_dir().join(format!("{name}.tsfile"))).unwrap()
}
