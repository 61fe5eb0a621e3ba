//! TsFiles written with huge chunks (600 000 points and 4.8 MB of data each, well over the
//! 4 MiB a reader reads whole), for the tests of what reads of them hold.

use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
use colfile::tsfile::{TsFileWriter, Value, ValueRef, WriterOptions};

const MIB: usize = 1 << 20;

/// Points in each huge chunk.
pub const POINTS: i64 = 600_000;

/// Uncompressed PLAIN everywhere (times too), so that each chunk's data is 8 bytes a point.
fn options() -> WriterOptions {
    WriterOptions::default()
        .with_page_max_points(10_000)
        .with_memory_threshold(512 * MIB)
        .with_time_codec(Encoding::Plain, Compression::Uncompressed)
}

/// The value written at time (or row) `t`.
pub fn value_of(t: i64) -> i64 {
    (t * 7919) % 100_003
}

/// One table device, INT64 `v` and DOUBLE `d`, `POINTS` rows in one chunk per column.
pub fn aligned_file() -> Vec<u8> {
    let col = |n: &str, t| {
        TableColumn::new(n, t, ColumnCategory::Field)
            .with_codec(Encoding::Plain, Compression::Uncompressed)
    };
    let cols = vec![
        TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
        col("v", DataType::Int64),
        col("d", DataType::Double),
    ];
    let mut w = TsFileWriter::new(Vec::new(), options()).unwrap();
    w.register_table(TableSchema::new("big", cols)).unwrap();
    for t in 0..POINTS {
        let v = value_of(t);
        // Every 7th row has no `d`, so value pages carry nulls.
        let d = if t % 7 == 0 {
            Value::Null
        } else {
            Value::Double(v as f64 / 4.0)
        };
        let row = [Value::string("a"), Value::Int64(v), d];
        w.write_row("big", t * 3, &row).unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// One tree device, non-aligned: `s1` at even times and `s2` at odd ones, `POINTS` points
/// each, in one chunk each.
pub fn tree_file() -> Vec<u8> {
    let m = |n: &str| MeasurementSchema {
        name: n.into(),
        data_type: DataType::Int64,
        encoding: Encoding::Plain,
        compression: Compression::Uncompressed,
        props: vec![],
    };
    let mut w = TsFileWriter::new(Vec::new(), options()).unwrap();
    w.register_device("root.sg.d1", false, vec![m("s1"), m("s2")])
        .unwrap();
    for t in 0..2 * POINTS {
        let name = if t % 2 == 0 { "s1" } else { "s2" };
        let v = [(name, ValueRef::Int64(value_of(t)))];
        w.write_record("root.sg.d1", t, &v).unwrap();
    }
    w.finish_into_inner().unwrap().0
}
