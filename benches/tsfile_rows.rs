//! TsFile writer, table rows one at a time (`TsFileWriter::write_row_refs`), as a program
//! that has rows rather than columns feeds it: the testkit's IoT table (two tags, six
//! fields), 100 devices x 1000 rows, device after device (as rows sorted by device come) and
//! interleaved (a device a row). `cargo bench --bench tsfile_rows`.

use colfile::tsfile::{TsFileWriter, ValueRef, WriterOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const DEVICES: usize = 100;
const ROWS: usize = 1000;

/// Writes every row; `device_major` orders them device after device, else time after time.
fn write(names: &[(String, String)], device_major: bool) -> usize {
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).expect("writer");
    w.register_table(colfile_testkit::iot::iot_schema())
        .expect("table");
    let mut row = |d: usize, t: usize| {
        let (region, id) = &names[d];
        let x = (t * 7919 + d * 104_729) as i64 % 1000;
        let values = [
            ValueRef::Binary(region.as_bytes()),
            ValueRef::Binary(id.as_bytes()),
            ValueRef::Int64(x),
            ValueRef::Double(x as f64 * 0.37),
            ValueRef::Float(x as f32 / 4.0),
            ValueRef::Int32(x as i32),
            ValueRef::Boolean(x % 3 == 0),
            ValueRef::Binary(if x % 2 == 0 { b"ok" } else { b"warn" }),
        ];
        w.write_row_refs("t", 1_700_000_000_000 + t as i64 * 1000, &values)
            .expect("row");
    };
    let (outer, inner) = if device_major {
        (DEVICES, ROWS)
    } else {
        (ROWS, DEVICES)
    };
    for a in 0..outer {
        for b in 0..inner {
            if device_major {
                row(a, b);
            } else {
                row(b, a);
            }
        }
    }
    w.finish_into_inner().expect("finish").0.len()
}

fn bench(c: &mut Criterion) {
    let names: Vec<(String, String)> = (0..DEVICES)
        .map(|i| (format!("region_{:02}", i % 10), format!("dev_{i:05}")))
        .collect();
    let mut g = c.benchmark_group("write_rows");
    g.throughput(Throughput::Elements((DEVICES * ROWS) as u64));
    g.bench_function("device_major", |b| b.iter(|| write(&names, true)));
    g.bench_function("interleaved", |b| b.iter(|| write(&names, false)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
