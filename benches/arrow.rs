//! What the Arrow conversion costs: the same file read through the plain columnar readers
//! (RCFile `decode_batch` into `ColumnBatch`es; TsFile `query` into `DeviceBatch`es) and
//! through `colfile::arrow` (which builds on them), in rows per second. The ratio of the two
//! is the figure to watch; the README reports it.
//!
//! `cargo bench --features arrow --bench arrow`

use std::sync::Arc;

use colfile::arrow::{BufferPool, RcFileArrowReader, TsFileArrowReader};
use colfile::rcfile::batch::ColumnBatch;
use colfile::rcfile::{RcFileReader, RcFileWriter, RowWriter, Schema, Serde, Value as HiveValue};
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType};
use colfile::tsfile::writer::default_encoding;
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, WriterOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const RC_ROWS: usize = 200_000;
const TS_DEVICES: usize = 20;
const TS_ROWS: i64 = 50_000;

fn rc_schema() -> Schema {
    "id:bigint,x:int,d:double,s:string".parse().expect("schema")
}

fn rc_file() -> Vec<u8> {
    let w = RcFileWriter::builder(Vec::new(), 4)
        .build()
        .expect("writer");
    let mut w = RowWriter::new(w, rc_schema(), Serde::binary());
    for i in 0..RC_ROWS as i64 {
        w.write(&[
            HiveValue::BigInt(i * 7),
            HiveValue::Int((i % 1000) as i32),
            HiveValue::Double(i as f64 / 3.0),
            HiveValue::string(format!("name-{}", i % 5000)),
        ])
        .expect("row");
    }
    w.finish_into_inner().expect("finish").0
}

fn ts_file() -> Vec<u8> {
    let field = |n: &str, t: DataType| {
        TableColumn::new(n, t, ColumnCategory::Field)
            .with_codec(default_encoding(t), Compression::Lz4)
    };
    let schema = TableSchema::new(
        "m",
        vec![
            TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
            field("v", DataType::Int64),
            field("d", DataType::Double),
            field("s", DataType::String),
        ],
    );
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).expect("writer");
    w.register_table(schema).expect("table");
    let devs: Vec<Value> = (0..TS_DEVICES)
        .map(|i| Value::string(&format!("d{i:02}")))
        .collect();
    for t in 0..TS_ROWS {
        for (i, dev) in devs.iter().enumerate() {
            let x = t * 31 + i as i64;
            let values = [
                dev.clone(),
                Value::Int64(x),
                Value::Double(x as f64 * 0.25),
                Value::string(&format!("s{}", x % 100)),
            ];
            w.write_row("m", 1_700_000_000_000 + t * 1000, &values)
                .expect("row");
        }
    }
    w.finish_into_inner().expect("finish").0
}

fn rcfile(c: &mut Criterion) {
    let bytes = rc_file();
    let schema = rc_schema();
    let mut g = c.benchmark_group("arrow/rcfile");
    g.throughput(Throughput::Elements(RC_ROWS as u64));
    let serde = Serde::binary();
    // Decode buffers kept from file to file, as the Arrow reader keeps its own below (freeing and
    // reallocating them per file costs glibc's page faults, up to 2x here).
    let cols = std::cell::RefCell::new(vec![ColumnBatch::default(); schema.len()]);
    let plain = || {
        let mut r = RcFileReader::builder(bytes.as_slice())
            .with_projection(0..schema.len())
            .build()
            .expect("reader");
        let mut cols = cols.borrow_mut();
        let mut rows = 0;
        while let Some(group) = r.next_row_group().expect("group") {
            for (i, (col, out)) in schema.columns().iter().zip(cols.iter_mut()).enumerate() {
                group.decode_batch(i, &col.ty, &serde, out).expect("decode");
            }
            rows += group.num_rows();
        }
        assert_eq!(rows, RC_ROWS);
    };
    // The Arrow reader keeps its buffers from file to file the same way, through a pool.
    let pool = BufferPool::new();
    let arrow = || {
        let r = RcFileArrowReader::builder(bytes.as_slice(), schema.clone(), serde.clone())
            .with_buffer_pool(pool.clone())
            .build()
            .expect("reader");
        let rows: usize = r.map(|b| b.expect("batch").num_rows()).sum();
        assert_eq!(rows, RC_ROWS);
    };
    warm(&plain, &arrow);
    g.bench_function("plain", |b| b.iter(plain));
    g.bench_function("arrow", |b| b.iter(arrow));
    g.finish();
}

fn tsfile(c: &mut Criterion) {
    let reader = Arc::new(TsFileReader::open(ts_file()).expect("open"));
    let total = TS_DEVICES as u64 * TS_ROWS as u64;
    let mut g = c.benchmark_group("arrow/tsfile");
    g.throughput(Throughput::Elements(total));
    let plain = || {
        let rows: usize = reader
            .query(&Query::all().batch_size(8192))
            .expect("query")
            .map(|b| b.expect("batch").len())
            .sum();
        assert_eq!(rows as u64, total);
    };
    let arrow = || {
        let r = TsFileArrowReader::builder(reader.clone())
            .with_batch_size(8192)
            .build()
            .expect("reader");
        let rows: usize = r.map(|b| b.expect("batch").num_rows()).sum();
        assert_eq!(rows as u64, total);
    };
    warm(&plain, &arrow);
    g.bench_function("plain", |b| b.iter(plain));
    g.bench_function("arrow", |b| b.iter(arrow));
    g.finish();
}

/// Runs both paths a few times before either is measured: here the first function measured
/// in a group came out up to 2x slower whichever it was (the allocator settling on its big
/// buffers), which would show up as a difference between the paths.
fn warm(a: &dyn Fn(), b: &dyn Fn()) {
    for _ in 0..5 {
        a();
        b();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = rcfile, tsfile
}
criterion_main!(benches);
