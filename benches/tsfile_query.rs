//! TsFile query pruning: how long a query takes and what fraction of a large file's bytes it
//! reads (counted by wrapping the file's `ByteSource`). Two files are written with our writer
//! in a temporary directory:
//!
//! - `fleet`: 1000 devices (two tags) x 500 rows, a chunk group every 100 rows — a full scan
//!   against one device (every tag fixed: an index search; one tag fixed: an index walk).
//! - `history`: 8 devices x 200 000 rows, a chunk group every 20 000 rows, 1000-point pages
//!   — a full scan against 100 seconds out of 200 000.
//!
//! The byte fractions are printed once before timing. `cargo bench --bench tsfile_query`.

use colfile::source::{ByteSource, FileSource};
use colfile::tsfile::format::schema::{TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType};
use colfile::tsfile::writer::default_encoding;
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, WriterOptions};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

const T0: i64 = 1_700_000_000_000;

/// Counts the bytes read through it.
struct Counting<S> {
    inner: S,
    read: AtomicU64,
}

impl<S: ByteSource> ByteSource for Counting<S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> colfile::Result<()> {
        self.read.fetch_add(buf.len() as u64, Ordering::Relaxed);
        self.inner.read_exact_at(offset, buf)
    }
}

/// Writes `devices` x `rows` rows, one second apart, flushing every `flush_every` rows.
fn write_fleet(path: &Path, devices: usize, rows: i64, flush_every: i64, page_points: usize) {
    let field = |n: &str, t: DataType| {
        TableColumn::new(n, t, ColumnCategory::Field)
            .with_codec(default_encoding(t), Compression::Lz4)
    };
    let cols = vec![
        TableColumn::new("region", DataType::String, ColumnCategory::Tag),
        TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
        field("v", DataType::Int64),
        field("d", DataType::Double),
    ];
    let out = std::io::BufWriter::new(std::fs::File::create(path).expect("create"));
    let opts = WriterOptions::default().with_page_max_points(page_points);
    let mut w = TsFileWriter::new(out, opts).expect("writer");
    w.register_table(TableSchema::new("fleet", cols))
        .expect("table");
    let names: Vec<(String, String)> = (0..devices)
        .map(|i| (format!("r{}", i % 10), format!("dev{i:04}")))
        .collect();
    for t in 0..rows {
        for (i, (region, dev)) in names.iter().enumerate() {
            let x = (t * 7919 + i as i64 * 104_729) % 1000;
            let row = [
                Value::string(region),
                Value::string(dev),
                Value::Int64(x),
                Value::Double(x as f64 * 0.37 + (t % 13) as f64),
            ];
            w.write_row("fleet", T0 + t * 1000, &row).expect("row");
        }
        if (t + 1) % flush_every == 0 {
            w.flush().expect("flush");
        }
    }
    w.finish().expect("finish");
}

/// Runs `q` on `path`; returns (rows, bytes read).
fn run(path: &Path, q: &Query) -> (usize, u64) {
    let src = Counting {
        inner: FileSource::open(path).expect("open"),
        read: AtomicU64::new(0),
    };
    let r = TsFileReader::open(&src).expect("reader");
    let rows = r
        .query(q)
        .expect("query")
        .map(|b| b.expect("batch").len())
        .sum();
    (rows, src.read.load(Ordering::Relaxed))
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("colfile-query-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let fleet: PathBuf = dir.join("fleet.tsfile");
    let history: PathBuf = dir.join("history.tsfile");
    write_fleet(&fleet, 1000, 500, 100, 10_000);
    write_fleet(&history, 8, 200_000, 20_000, 1000);
    let table = || Query::all().table("fleet");
    let cases = [
        ("fleet/full", &fleet, table()),
        (
            "fleet/one_device_index_search",
            &fleet,
            table().tag_eq("region", "r7").tag_eq("dev", "dev0417"),
        ),
        (
            "fleet/one_device_index_walk",
            &fleet,
            table().tag_eq("dev", "dev0417"),
        ),
        ("history/full", &history, table()),
        (
            "history/100_seconds",
            &history,
            table().time_range(T0 + 123_456_000, T0 + 123_555_000),
        ),
    ];
    for (name, path, q) in &cases {
        let size = std::fs::metadata(path).expect("size").len();
        let (rows, read) = run(path, q);
        eprintln!(
            "{name}: {rows} rows, read {read} of {size} bytes ({:.2}%)",
            100.0 * read as f64 / size as f64
        );
    }
    let mut g = c.benchmark_group("query");
    g.sample_size(10);
    for (name, path, q) in &cases {
        g.bench_function(*name, |b| b.iter(|| run(path, q)));
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
