//! Throughput of TsFile's value encodings on 10 000-point pages (Java's default page size),
//! in points per second. The headline figure is `decode/page`: one aligned page's time
//! page (TS_2DIFF INT64, millisecond timestamps with jitter) plus its value page (GORILLA
//! DOUBLE, a full-precision random walk), each LZ4-compressed as in a file: decompressed and
//! decoded, per point. `decode/page_uncompressed` is the same without the codec.
//!
//! `cargo bench --bench tsfile_encoding [-- <filter>]`, e.g. `-- decode/`.

use colfile::tsfile::encoding::compression::PageCodecs;
use colfile::tsfile::encoding::{
    decode, decode_gorilla_f64, decode_ts2diff_i64, encode, EncodeOptions,
};
use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::Values;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;

const POINTS: usize = 10_000;

/// SplitMix64, so the data is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// Timestamps one second apart with up to ±8 ms of jitter.
fn jittered_times(rng: &mut Rng) -> Vec<i64> {
    (0..POINTS as i64)
        .map(|i| 1_700_000_000_000 + i * 1000 + (rng.next() % 17) as i64 - 8)
        .collect()
}

/// A sensor-like random walk at full double precision.
fn walk(rng: &mut Rng) -> Vec<f64> {
    let mut x = 20.0;
    (0..POINTS)
        .map(|_| {
            x += rng.unit() - 0.5;
            x
        })
        .collect()
}

fn encoded(e: Encoding, t: DataType, v: &Values) -> Vec<u8> {
    let mut out = Vec::new();
    encode(e, t, v, &EncodeOptions::default(), &mut out).expect("encode");
    out
}

fn benches(c: &mut Criterion) {
    let mut rng = Rng(42);
    let times = Values::Int64(jittered_times(&mut rng));
    let regular = Values::Int64((0..POINTS as i64).map(|i| i * 1000).collect());
    let doubles = Values::Double(walk(&mut rng));
    let counters = Values::Int32((0..POINTS as i32).map(|i| i / 50).collect());
    let cases = [
        (
            "ts2diff_i64_jitter",
            Encoding::Ts2Diff,
            DataType::Int64,
            &times,
        ),
        (
            "ts2diff_i64_regular",
            Encoding::Ts2Diff,
            DataType::Int64,
            &regular,
        ),
        (
            "gorilla_f64_walk",
            Encoding::Gorilla,
            DataType::Double,
            &doubles,
        ),
        (
            "ts2diff_f64_walk",
            Encoding::Ts2Diff,
            DataType::Double,
            &doubles,
        ),
        ("rle_i32_steps", Encoding::Rle, DataType::Int32, &counters),
        ("plain_f64", Encoding::Plain, DataType::Double, &doubles),
    ];

    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(POINTS as u64));
    let time_stream = encoded(Encoding::Ts2Diff, DataType::Int64, &times);
    let value_stream = encoded(Encoding::Gorilla, DataType::Double, &doubles);
    let (mut t_out, mut v_out) = (Vec::with_capacity(POINTS), Vec::with_capacity(POINTS));
    let mut codecs = PageCodecs::new();
    let (mut t_lz4, mut v_lz4) = (Vec::new(), Vec::new());
    codecs
        .compress(Compression::Lz4, &time_stream, &mut t_lz4)
        .expect("lz4");
    codecs
        .compress(Compression::Lz4, &value_stream, &mut v_lz4)
        .expect("lz4");
    let (mut t_plain, mut v_plain) = (Vec::new(), Vec::new());
    g.bench_function("page", |b| {
        b.iter(|| {
            t_out.clear();
            v_out.clear();
            t_plain.clear();
            v_plain.clear();
            codecs
                .decompress(
                    Compression::Lz4,
                    black_box(&t_lz4),
                    &mut t_plain,
                    time_stream.len(),
                )
                .expect("lz4");
            codecs
                .decompress(
                    Compression::Lz4,
                    black_box(&v_lz4),
                    &mut v_plain,
                    value_stream.len(),
                )
                .expect("lz4");
            decode_ts2diff_i64(&t_plain, POINTS, &mut t_out).expect("time");
            decode_gorilla_f64(&v_plain, POINTS, &mut v_out).expect("value");
            black_box((&t_out, &v_out));
        })
    });
    g.bench_function("page_uncompressed", |b| {
        b.iter(|| {
            t_out.clear();
            v_out.clear();
            decode_ts2diff_i64(black_box(&time_stream), POINTS, &mut t_out).expect("time");
            decode_gorilla_f64(black_box(&value_stream), POINTS, &mut v_out).expect("value");
            black_box((&t_out, &v_out));
        })
    });
    for &(name, e, t, v) in &cases {
        let bytes = encoded(e, t, v);
        let mut out = Values::for_type(t).expect("type");
        g.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                decode(e, t, black_box(&bytes), POINTS, &mut out).expect("decode");
                black_box(&out);
            })
        });
    }
    g.finish();

    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(POINTS as u64));
    let mut out = Vec::new();
    for &(name, e, t, v) in &cases {
        g.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                encode(e, t, black_box(v), &EncodeOptions::default(), &mut out).expect("encode");
                black_box(&out);
            })
        });
    }
    g.finish();
}

criterion_group!(tsfile_encoding, benches);
criterion_main!(tsfile_encoding);
