//! A DataFusion scan of many TsFiles, on one partition and on two: with both cores the
//! second should take about half as long (the README reports the ratio). Sixteen files of
//! 8 devices x 20 000 rows are written to a temporary directory first.
//!
//! `cargo bench -p colfile-datafusion --bench scan`

use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType};
use colfile::tsfile::writer::default_encoding;
use colfile::tsfile::{TsFileWriter, Value, WriterOptions};
use colfile_datafusion::{register_tsfile, TsFileOptions};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use datafusion::prelude::{SessionConfig, SessionContext};

const FILES: usize = 16;
const DEVICES: usize = 8;
const ROWS: i64 = 20_000;

fn write_dir() -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-df-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let field = |n: &str, t: DataType| {
        TableColumn::new(n, t, ColumnCategory::Field)
            .with_codec(default_encoding(t), Compression::Lz4)
    };
    for f in 0..FILES {
        let out = std::io::BufWriter::new(
            std::fs::File::create(dir.join(format!("f{f:02}.tsfile"))).expect("file"),
        );
        let mut w = TsFileWriter::new(out, WriterOptions::default()).expect("writer");
        w.register_table(TableSchema::new(
            "m",
            vec![
                TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
                field("v", DataType::Int64),
                field("d", DataType::Double),
            ],
        ))
        .expect("table");
        for t in 0..ROWS {
            for d in 0..DEVICES {
                let dev = Value::string(&format!("f{f}d{d}"));
                let x = t * 13 + d as i64;
                w.write_row(
                    "m",
                    t * 1000,
                    &[dev, Value::Int64(x), Value::Double(x as f64 / 7.0)],
                )
                .expect("row");
            }
        }
        w.finish().expect("finish");
    }
    dir
}

fn scan(c: &mut Criterion) {
    let dir = write_dir();
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    let mut g = c.benchmark_group("datafusion/tsfile_scan");
    g.throughput(Throughput::Elements((FILES * DEVICES) as u64 * ROWS as u64));
    let run = |ctx: &SessionContext| {
        rt.block_on(async {
            let df = ctx
                .sql("SELECT dev, sum(v), max(d) FROM m WHERE v % 3 = 0 GROUP BY dev")
                .await
                .expect("sql");
            let rows: usize = df
                .collect()
                .await
                .expect("collect")
                .iter()
                .map(|b| b.num_rows())
                .sum();
            assert_eq!(rows, FILES * DEVICES);
        })
    };
    let contexts: Vec<(usize, SessionContext)> = [1usize, 2]
        .into_iter()
        .map(|partitions| {
            let config = SessionConfig::new().with_target_partitions(partitions);
            let ctx = SessionContext::new_with_config(config);
            let dir = dir.to_str().expect("utf-8 path");
            register_tsfile(&ctx, "m", dir, TsFileOptions::default()).expect("register");
            (partitions, ctx)
        })
        .collect();
    // Both warmed before either is measured (the first function of a group otherwise pays
    // for the allocator settling, see benches/arrow.rs in the core crate).
    for _ in 0..3 {
        for (_, ctx) in &contexts {
            run(ctx);
        }
    }
    for (partitions, ctx) in &contexts {
        g.bench_function(format!("partitions={partitions}"), |b| b.iter(|| run(ctx)));
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = scan
}
criterion_main!(benches);
