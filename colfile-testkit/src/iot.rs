//! An IoT-shaped table-model TsFile made by colfile's writer, in the shape of the official
//! benchmark file (`tsoracle.py benchwrite`): a table `t` with tags `region` and `id`,
//! fields of every common type, many devices, flushed in several chunk groups per device.

use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType};
use colfile::tsfile::writer::default_encoding;
use colfile::tsfile::{TsFileWriter, Value, WriterOptions};

/// The table `t`: tags `region` and `id`, then fields `l` (INT64), `d` (DOUBLE), `f`
/// (FLOAT), `i` (INT32), `b` (BOOLEAN) and `s` (STRING), each in its default encoding and
/// LZ4.
pub fn iot_schema() -> TableSchema {
    let field = |n: &str, t: DataType| {
        TableColumn::new(n, t, ColumnCategory::Field)
            .with_codec(default_encoding(t), Compression::Lz4)
    };
    TableSchema::new(
        "t",
        vec![
            TableColumn::new("region", DataType::String, ColumnCategory::Tag),
            TableColumn::new("id", DataType::String, ColumnCategory::Tag),
            field("l", DataType::Int64),
            field("d", DataType::Double),
            field("f", DataType::Float),
            field("i", DataType::Int32),
            field("b", DataType::Boolean),
            field("s", DataType::String),
        ],
    )
}

/// The file's bytes: `devices` devices with `rows` rows each (times `0, 10, 20, …`), rows
/// written time by time across devices, a flush every `flush_rows` rows in all, 1,000-point
/// pages, LZ4. Every seventh value is null; values are deterministic.
pub fn iot_table(devices: usize, rows: usize, flush_rows: usize) -> Vec<u8> {
    let schema = iot_schema();
    let opts = WriterOptions::default().with_page_max_points(1000);
    let mut w = TsFileWriter::new(Vec::new(), opts).expect("writer");
    w.register_table(schema).expect("table");
    let mut written = 0usize;
    for r in 0..rows {
        for d in 0..devices {
            let k = (r * 31 + d * 17) as i64;
            let v = |j: i64, x: Value| if (k + j) % 7 == 0 { Value::Null } else { x };
            let vals = [
                Value::string(&format!("r{}", d % 10)),
                Value::string(&format!("dev{d:05}")),
                v(0, Value::Int64(k * 1_000 + r as i64)),
                v(1, Value::Double(k as f64 / 8.0)),
                v(2, Value::Float((k % 1000) as f32 / 4.0)),
                v(3, Value::Int32((k % 100_000) as i32)),
                v(4, Value::Boolean(k % 3 == 0)),
                v(5, Value::string(["ok", "warn", "fault"][(k % 3) as usize])),
            ];
            w.write_row("t", r as i64 * 10, &vals).expect("row");
            written += 1;
            if written % flush_rows == 0 {
                w.flush().expect("flush");
            }
        }
    }
    w.finish_into_inner().expect("finish").0
}
