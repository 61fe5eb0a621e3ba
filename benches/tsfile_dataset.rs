//! The cost of reading an IoTDB data directory as one dataset. A directory is written in a
//! temporary folder: 8 non-aligned devices (two INT64 series) over 4 sequence files of
//! 50 000 rows per device each, and one unsequence file rewriting 5 % of the first file's
//! times; the first sequence file has a `.mods` deleting one series over a tenth of its
//! range. Measured, each over every row:
//!
//! - `files`: the five files read one after another (`TsFileReader::query`, no merge, no
//!   deletions): the baseline;
//! - `files_with_mods`: the same with each file's `.mods` applied (`open_path`);
//! - `dataset`: `Dataset::query`, merged by IoTDB's priority, deletions applied.
//!
//! Rows per second are printed once before timing. `cargo bench --bench tsfile_dataset`.

use colfile::tsfile::dataset::{Dataset, ReadOptions};
use colfile::tsfile::{
    Compression, DataType, Encoding, MeasurementSchema, Query, TsFileReader, TsFileWriter,
    ValueRef, WriterOptions,
};
use criterion::{criterion_group, criterion_main, Criterion};
use std::path::{Path, PathBuf};
use std::time::Instant;

const DEVICES: usize = 8;
const ROWS: i64 = 50_000;

fn write(path: &Path, times: impl Iterator<Item = i64> + Clone, sign: i64) {
    let mut w = TsFileWriter::new(
        std::io::BufWriter::new(std::fs::File::create(path).expect("create")),
        WriterOptions::default(),
    )
    .expect("writer");
    let m =
        |n: &str| MeasurementSchema::new(n, DataType::Int64, Encoding::Ts2Diff, Compression::Lz4);
    for d in 0..DEVICES {
        w.register_device(&format!("root.sg.d{d}"), false, vec![m("s1"), m("s2")])
            .expect("device");
    }
    for t in times {
        for d in 0..DEVICES {
            let v = sign * (t + d as i64);
            let row = [("s1", ValueRef::Int64(v)), ("s2", ValueRef::Int64(v * 3))];
            w.write_record(&format!("root.sg.d{d}"), t, &row)
                .expect("row");
        }
    }
    w.finish().expect("finish");
}

/// The directory, built once per run.
fn data_dir() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-bench-dataset-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let seq = dir.join("sequence/root.sg/1/0");
    let unseq = dir.join("unsequence/root.sg/1/0");
    std::fs::create_dir_all(&seq).expect("dir");
    std::fs::create_dir_all(&unseq).expect("dir");
    for k in 0..4 {
        let times = (k * ROWS)..((k + 1) * ROWS);
        write(
            &seq.join(format!("{}-{}-0-0.tsfile", k + 1, k + 1)),
            times,
            1,
        );
    }
    write(&unseq.join("9-9-0-0.tsfile"), (0..ROWS).step_by(20), -1);
    let mods = format!("DELETION,root.sg.*.s2,{},0,{}\n", i64::MAX, ROWS / 10);
    std::fs::write(seq.join("1-1-0-0.tsfile.mods"), mods).expect("mods");
    dir
}

fn files(ds: &Dataset, mods: bool) -> usize {
    let mut n = 0;
    for f in &ds.files {
        let r = TsFileReader::path_builder(&f.path)
            .expect("open")
            .with_mods(mods)
            .build()
            .expect("build");
        for b in r.query(&Query::all()).expect("query") {
            n += b.expect("batch").len();
        }
    }
    n
}

fn dataset(ds: &Dataset) -> usize {
    let mut n = 0;
    for b in ds
        .query_with(&Query::all(), ReadOptions::default())
        .expect("query")
    {
        n += b.expect("batch").len();
    }
    n
}

fn bench(c: &mut Criterion) {
    let dir = data_dir();
    let ds = Dataset::open(&dir).expect("dataset");
    type Read = Box<dyn Fn(&Dataset) -> usize>;
    let cases: [(&str, Read); 3] = [
        ("files", Box::new(|d| files(d, false))),
        ("files_with_mods", Box::new(|d| files(d, true))),
        ("dataset", Box::new(dataset)),
    ];
    for (name, read) in &cases {
        let started = Instant::now();
        let rows = read(&ds);
        let s = started.elapsed().as_secs_f64();
        println!("{name}: {rows} rows, {:.2} M rows/s", rows as f64 / s / 1e6);
    }
    let mut g = c.benchmark_group("tsfile_dataset");
    g.sample_size(10);
    for (name, read) in &cases {
        g.bench_function(*name, |b| b.iter(|| read(&ds)));
    }
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
