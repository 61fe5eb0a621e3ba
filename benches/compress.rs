//! Throughput of every RCFile codec, and of TsFile's xz (LZMA2, preset 6), on ~1 MiB buffers, compressing and decompressing, for
//! text-like column data and for incompressible bytes. Figures are MB/s of plain data.
//!
//! `cargo bench --bench compress [-- <filter>]`, e.g. `-- decompress/text`.

use colfile::compress::{new_codec, Algorithm, Codec, Framing, HadoopCodec};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::hint::black_box;
use std::time::Duration;

const SIZE: usize = 1 << 20;

/// The codecs a writer would pick (`DeflateCodec` reads and writes like `DefaultCodec`), by
/// name, plus xz.
fn codecs() -> Vec<(&'static str, Box<dyn Codec>)> {
    let mut codecs: Vec<_> = HadoopCodec::ALL
        .into_iter()
        .filter(|c| *c != HadoopCodec::Deflate)
        .map(|h| {
            (
                h.short_name(),
                h.codec().unwrap_or_else(|e| panic!("{h:?}: {e}")),
            )
        })
        .collect();
    let xz = new_codec(Algorithm::Lzma2, Framing::Xz, None).expect("xz");
    codecs.push(("xz", xz));
    codecs
}

/// CSV-like rows, as a text-serde column buffer of a small table would hold.
fn text_column() -> Vec<u8> {
    const NAMES: [&str; 8] = [
        "berlin", "lisbon", "osaka", "quito", "nairobi", "oslo", "lima", "perth",
    ];
    let mut out = Vec::with_capacity(SIZE + 64);
    let mut row: u64 = 0;
    while out.len() < SIZE {
        let line = format!(
            "{row},{},{}.{:02},2024-{:02}-{:02},{}\n",
            NAMES[(row * 7 % 8) as usize],
            row * 37 % 10_000,
            row % 100,
            row % 12 + 1,
            row % 28 + 1,
            if row % 3 == 0 { "true" } else { "\\N" },
        );
        out.extend_from_slice(line.as_bytes());
        row += 1;
    }
    out.truncate(SIZE);
    out
}

/// Incompressible bytes (SplitMix64 output).
fn random_column() -> Vec<u8> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut out = Vec::with_capacity(SIZE);
    while out.len() < SIZE {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        out.extend_from_slice(&(z ^ (z >> 31)).to_le_bytes());
    }
    out.truncate(SIZE);
    out
}

/// Benchmarks `run(codec, input, out)` for every codec on both kinds of data, in groups named
/// `{name}/text` and `{name}/random`. `prepare(codec, data)` makes the routine's input.
fn bench_each(
    c: &mut Criterion,
    name: &str,
    prepare: fn(&mut dyn Codec, &[u8]) -> Vec<u8>,
    run: fn(&mut dyn Codec, &[u8], &mut Vec<u8>),
) {
    for (kind, data) in [("text", text_column()), ("random", random_column())] {
        let mut group = c.benchmark_group(format!("{name}/{kind}"));
        group.throughput(Throughput::Bytes(SIZE as u64));
        group.sample_size(10);
        group.warm_up_time(Duration::from_millis(500));
        group.measurement_time(Duration::from_secs(2));
        for (codec_name, mut codec) in codecs() {
            let input = prepare(codec.as_mut(), &data);
            let mut out = Vec::with_capacity(2 * SIZE);
            group.bench_function(codec_name, |b| {
                b.iter(|| {
                    out.clear();
                    run(codec.as_mut(), black_box(&input), &mut out);
                    black_box(out.len())
                })
            });
        }
        group.finish();
    }
}

fn bench_compress(c: &mut Criterion) {
    bench_each(
        c,
        "compress",
        |_, data| data.to_vec(),
        |codec, data, out| codec.compress(data, out).expect("compress"),
    );
}

/// Decompression into a reused buffer (the usual reader loop: the decoder gets a zeroed window).
fn bench_decompress(c: &mut Criterion) {
    bench_each(c, "decompress", packed, |codec, input, out| {
        codec.decompress(input, out, SIZE).expect("decompress")
    });
}

/// Decompression into a new buffer each time (the streaming decoders write straight into its
/// spare capacity, without zeroing it first).
fn bench_decompress_fresh(c: &mut Criterion) {
    bench_each(c, "decompress-fresh", packed, |codec, input, out| {
        *out = Vec::new();
        codec.decompress(input, out, SIZE).expect("decompress")
    });
}

fn packed(codec: &mut dyn Codec, data: &[u8]) -> Vec<u8> {
    let mut packed = Vec::new();
    codec.compress(data, &mut packed).expect("compress");
    packed
}

criterion_group!(
    benches,
    bench_compress,
    bench_decompress,
    bench_decompress_fresh
);
criterion_main!(benches);
