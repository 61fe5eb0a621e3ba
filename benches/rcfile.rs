//! RCFile read and write throughput: raw cell scans (uncompressed and lz4), typed decoding
//! with both serdes, the per-type column-batch decode loops, and writing. Data is generated in memory (~32 MiB of cells) so the
//! numbers measure the library, not the disk. Compare against `interop/bench.sh` (Hive).

use colfile::compress::HadoopCodec;
use colfile::rcfile::{RcFileReader, RcFileWriter, RowReader, RowWriter, Schema, Serde, Value};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

const SCHEMA: &str =
    "id:bigint,qty:int,price:double,name:string,flag:boolean,day:date,note:string,score:float";

/// A xorshift64 generator: the benches' data is random but the same on every run.
fn xorshift(mut x: u64) -> impl FnMut() -> u64 {
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

fn rows(n: usize) -> Vec<Vec<Value>> {
    let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
    let words = [
        "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta",
    ];
    (0..n)
        .map(|i| {
            let r = next();
            vec![
                Value::BigInt(i as i64 * 7919),
                Value::Int((r % 1000) as i32),
                Value::Double((r % 100_000) as f64 / 100.0),
                Value::string(words[(r % 8) as usize]),
                Value::Boolean(r & 1 == 0),
                Value::Date(colfile::rcfile::Date(18_000 + (r % 2000) as i32)),
                if r % 5 == 0 {
                    Value::Null
                } else {
                    Value::string(format!("note {}", r % 97))
                },
                Value::Float((r % 1000) as f32 / 8.0),
            ]
        })
        .collect()
}

fn file(serde: &Serde, codec: Option<HadoopCodec>, n: usize) -> Vec<u8> {
    let schema: Schema = SCHEMA.parse().unwrap();
    let w = RcFileWriter::builder(Vec::new(), schema.len())
        .with_codec(codec)
        .build()
        .unwrap();
    let mut w = RowWriter::new(w, schema, serde.clone());
    for r in rows(n) {
        w.write(&r).unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// Uncompressed cell bytes of all columns (the bytes a raw scan hands out).
fn cell_bytes(bytes: &[u8]) -> u64 {
    let mut r = RcFileReader::new(bytes).unwrap();
    let mut n = 0;
    while let Some(g) = r.next_row_group().unwrap() {
        n += g.layout().iter().map(|l| l.plain_len).sum::<u64>();
    }
    n
}

fn raw_scan(c: &mut Criterion) {
    let mut g = c.benchmark_group("rcfile_raw_scan");
    g.sample_size(10);
    let text = Serde::text();
    for (name, codec) in [
        ("none", None),
        ("lz4", Some(HadoopCodec::Lz4)),
        ("snappy", Some(HadoopCodec::Snappy)),
        ("deflate", Some(HadoopCodec::Default)),
    ] {
        let bytes = file(&text, codec, 1_000_000);
        g.throughput(Throughput::Bytes(cell_bytes(&bytes)));
        g.bench_with_input(BenchmarkId::from_parameter(name), &bytes, |b, bytes| {
            b.iter(|| {
                let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
                let mut sum = 0usize;
                while let Some(grp) = r.next_row_group().unwrap() {
                    for c in 0..grp.num_columns() {
                        for cell in grp.column(c).unwrap().cells() {
                            sum += cell.len();
                        }
                    }
                }
                black_box(sum)
            })
        });
    }
    g.finish();
}

fn typed_scan(c: &mut Criterion) {
    let mut g = c.benchmark_group("rcfile_typed_scan");
    g.sample_size(10);
    let n = 500_000;
    for serde in [Serde::binary(), Serde::text()] {
        let bytes = file(&serde, None, n);
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(
            BenchmarkId::new("rows", serde.short_name()),
            &bytes,
            |b, bytes| {
                b.iter(|| {
                    let schema: Schema = SCHEMA.parse().unwrap();
                    let mut r = RowReader::builder(bytes.as_slice(), schema, serde.clone())
                        .build()
                        .unwrap();
                    let mut values = 0usize;
                    while r.next_group_columns().unwrap() {
                        values += r.group_columns().iter().map(Vec::len).sum::<usize>();
                    }
                    black_box(values)
                })
            },
        );
    }
    g.finish();
}

/// Issue 23's column types with 5% NULLs, random values as Hive's oracle makes them
/// (timestamps 1900-2099 with every kind of nanoseconds, decimals of 1 to 10 digits).
const MIXED: &str = "id:bigint,account:int,price:double,name:string,ts:timestamp,\
    active:boolean,amount:decimal(10,2)";

fn mixed_rows(n: usize) -> Vec<Vec<Value>> {
    use colfile::rcfile::{Decimal, Timestamp};
    let mut next = xorshift(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            let mut v = vec![
                Value::BigInt((next() as i64) >> (next() % 64)),
                Value::Int((next() as i32) >> (next() % 32)),
                Value::Double(next() as f64 / 3.0),
                Value::string(
                    "abcdefghijklmnopqrstuvwx"
                        .get(..(next() % 25) as usize)
                        .unwrap(),
                ),
                Value::Timestamp(Timestamp {
                    seconds: -2_208_988_800 + (next() % 6_311_433_600) as i64,
                    nanos: match next() % 4 {
                        0 => 0,
                        1 => (next() % 1000) as u32 * 1_000_000,
                        2 => (next() % 1_000_000) as u32 * 1000,
                        _ => (next() % 1_000_000_000) as u32,
                    },
                }),
                Value::Boolean(next() & 1 == 0),
                Value::Decimal(Decimal {
                    unscaled: (next() % 10u64.pow(1 + (next() % 10) as u32)) as i128
                        * if next() & 1 == 0 { 1 } else { -1 },
                    scale: 2,
                }),
            ];
            for cell in v.iter_mut() {
                if next() % 20 == 0 {
                    *cell = Value::Null;
                }
            }
            v
        })
        .collect()
}

/// The per-type decode loops: each column of a 7-column binary-serde file into its
/// `ColumnBatch`, one thread (the cells already read; no I/O).
fn batch_decode(c: &mut Criterion) {
    use colfile::rcfile::ColumnBatch;
    let mut g = c.benchmark_group("rcfile_batch_decode");
    g.sample_size(20);
    let n = 200_000;
    let schema: Schema = MIXED.parse().unwrap();
    let serde = Serde::binary();
    let w = RcFileWriter::builder(Vec::new(), schema.len())
        .build()
        .unwrap();
    let mut w = RowWriter::new(w, schema.clone(), serde.clone());
    for r in mixed_rows(n) {
        w.write(&r).unwrap();
    }
    let bytes = w.finish_into_inner().unwrap().0;
    g.throughput(Throughput::Elements(n as u64));
    for (i, col) in schema.columns().iter().enumerate() {
        g.bench_function(BenchmarkId::new("column", &col.ty), |b| {
            let mut out = ColumnBatch::default();
            b.iter(|| {
                let mut r = RcFileReader::builder(bytes.as_slice())
                    .with_projection([i])
                    .build()
                    .unwrap();
                let mut values = 0;
                while let Some(grp) = r.next_row_group().unwrap() {
                    grp.decode_batch(i, &col.ty, &serde, &mut out).unwrap();
                    values += out.len();
                }
                black_box(values)
            })
        });
    }
    g.finish();
}

fn write(c: &mut Criterion) {
    let mut g = c.benchmark_group("rcfile_write");
    g.sample_size(10);
    let data = rows(200_000);
    let schema: Schema = SCHEMA.parse().unwrap();
    g.throughput(Throughput::Elements(data.len() as u64));
    for serde in [Serde::binary(), Serde::text()] {
        g.bench_function(BenchmarkId::new("rows", serde.short_name()), |b| {
            b.iter(|| {
                let w = RcFileWriter::builder(Vec::with_capacity(16 << 20), schema.len())
                    .build()
                    .unwrap();
                let mut w = RowWriter::new(w, schema.clone(), serde.clone());
                for r in &data {
                    w.write(r).unwrap();
                }
                black_box(w.finish().unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, raw_scan, typed_scan, batch_decode, write);
criterion_main!(benches);
