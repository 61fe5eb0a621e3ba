//! Decompression bombs are refused. At the compress layer, for every algorithm and framing:
//! a real, highly compressible stream whose output is above the limit is refused by
//! `check_plain_len` before anything is allocated, and when a file lies (declares less than
//! the stream holds) decoding stops at the declared length; a tiny input whose own header
//! declares a huge output (a Snappy length, a Hadoop block header, a zstd content size, an
//! .xz block header, a gzip ISIZE) is refused by the bound on what its compressed length can
//! produce, and decoding the most that the bound admits fails without allocating more. Then
//! whole files: an RCFile key section that declares a huge decompressed column or key
//! section, and a TsFile page header that declares a huge uncompressed size, each refused with
//! `LimitExceeded` naming what. A counting allocator checks that no declared size was
//! allocated.
#![cfg(all(
    feature = "deflate",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd",
    feature = "bzip2",
    feature = "lzma2",
    feature = "lzo"
))]

use colfile_testkit as common;
#[path = "common/counting_alloc.rs"]
mod counting_alloc;
#[allow(dead_code)]
#[path = "damage/mutate.rs"]
mod mutate;
#[allow(dead_code)]
#[path = "damage/rc.rs"]
mod rc;

use colfile::compress::{check_plain_len, new_codec, Algorithm, Codec, Framing, HadoopCodec};
use colfile::rcfile::{RcFileReader, RcFileWriter};
use colfile::tsfile::tools::sketch::sketch;
use colfile::tsfile::{Query, TsFileReader};
use colfile::{Error, ErrorKind, Limits};
use counting_alloc::{measure, Usage};
use std::time::{Duration, Instant};

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

const MIB: usize = 1 << 20;

/// Every algorithm in every framing that a format uses.
const PAIRS: [(Algorithm, Framing); 10] = [
    (Algorithm::Deflate, Framing::Zlib),
    (Algorithm::Deflate, Framing::Gzip),
    (Algorithm::Snappy, Framing::HadoopBlock),
    (Algorithm::Lz4, Framing::HadoopBlock),
    (Algorithm::Zstd, Framing::ZstdFrame),
    (Algorithm::Bzip2, Framing::Bzip2Stream),
    (Algorithm::Snappy, Framing::Raw),
    (Algorithm::Lz4, Framing::Raw),
    (Algorithm::Lzo, Framing::Raw),
    (Algorithm::Lzma2, Framing::Xz),
];

/// What a decoder may allocate besides its output of `expected` bytes: its own state.
/// bzip2 needs one `u32` per byte of a level-9 block (900 000 × 4 bytes) plus its Huffman
/// tables; zlib's window is 32 KiB; zstd's context is allocated by C and not seen here. The
/// xz decoder keeps its dictionary in a `Vec` that grows with what it has decoded, which
/// is up to one LZMA2 chunk (2 MiB) past the output, and doubles when it grows.
fn state_slack(algorithm: Algorithm, expected: usize) -> usize {
    match algorithm {
        Algorithm::Bzip2 => 4 * MIB,
        Algorithm::Lzma2 => expected + 4 * MIB,
        _ => 256 << 10,
    }
}

fn codec(pair: (Algorithm, Framing)) -> Box<dyn Codec> {
    new_codec(pair.0, pair.1, None).unwrap()
}

fn compress(pair: (Algorithm, Framing), plain: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    codec(pair).compress(plain, &mut out).unwrap();
    out
}

/// `(what, requested, limit)` of a `LimitExceeded`, or a failure naming the error.
fn limit_of(e: &Error) -> (&'static str, u64, u64) {
    match e.kind() {
        ErrorKind::LimitExceeded {
            what,
            requested,
            limit,
        } => (what, *requested, *limit),
        other => panic!("expected LimitExceeded, got {other:?} ({e})"),
    }
}

/// Runs `f`, checking that it took under two seconds, and reports its allocations.
fn timed<R>(what: &str, f: impl FnOnce() -> R) -> (R, Usage) {
    let start = Instant::now();
    let out = measure(f);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "{what} took {took:?}");
    out
}

/// A real, highly compressible stream whose output is above the limit: refused before
/// decoding when declared honestly; when the file declares less (within the limit), decoding
/// stops at the declared length and allocates no more than that.
#[test]
fn streams_above_the_limit_are_refused_and_lies_stay_bounded() {
    let limits = Limits::default().with_max_decompressed_bytes(MIB);
    for pair in PAIRS {
        let (algorithm, framing) = pair;
        // Two to four times the limit (bzip2 is slow in a debug build).
        let size = if algorithm == Algorithm::Bzip2 { 2 } else { 4 } * MIB;
        let plain = vec![0u8; size];
        let packed = compress(pair, &plain);
        assert!(packed.len() < size / 20, "{pair:?}: {} bytes", packed.len());

        let e = check_plain_len(algorithm, packed.len(), size as u64, &limits).unwrap_err();
        assert_eq!(
            limit_of(&e),
            ("decompressed size", size as u64, MIB as u64),
            "{pair:?}"
        );

        // The stream really is that long: with the default limits it decodes in full.
        let n = check_plain_len(algorithm, packed.len(), size as u64, &Limits::default())
            .unwrap_or_else(|e| panic!("{pair:?}: {e}"));
        let mut out = Vec::new();
        codec(pair).decompress(&packed, &mut out, n).unwrap();
        assert!(out.len() == size && out.iter().all(|&b| b == 0), "{pair:?}");
        drop(out);

        // A file that declares the limit: the excess is never decoded nor allocated.
        let n = check_plain_len(algorithm, packed.len(), MIB as u64, &limits).unwrap();
        let mut c = codec(pair);
        let (r, usage) = timed(&format!("{pair:?}"), || {
            c.decompress(&packed, &mut Vec::new(), n)
        });
        let e = r.unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Corrupt { .. } | ErrorKind::Codec { .. }
            ),
            "{pair:?}: {e}"
        );
        let most = MIB + state_slack(algorithm, MIB);
        assert!(
            usage.peak_single <= most && usage.peak_live <= most,
            "{pair:?} ({framing:?}): {usage:?} for a declared {MIB}"
        );
    }
}

fn be32(n: u32) -> [u8; 4] {
    n.to_be_bytes()
}

/// A snappy block that says it is 1 GiB long and holds one literal byte.
const SNAPPY_LIE: [u8; 7] = [0x80, 0x80, 0x80, 0x80, 0x04, 0x00, b'a'];

/// A zstd frame (single segment) declaring `size` bytes of content, holding one RLE block
/// of 128 KiB.
fn zstd_lie(size: u64) -> Vec<u8> {
    let mut f = vec![0x28, 0xb5, 0x2f, 0xfd, 0xe0];
    f.extend_from_slice(&size.to_le_bytes());
    let block = 1 | (1 << 1) | ((128u32 << 10) << 3); // last, RLE, 128 KiB
    f.extend_from_slice(&block.to_le_bytes()[..3]);
    f.push(b'a');
    f
}

/// An .xz VLI.
fn vli(mut v: u64, out: &mut Vec<u8>) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A real .xz stream of 64 KiB of zeros whose block header is replaced by one that declares
/// an uncompressed size of 2^40 bytes and a 4 GiB dictionary (CRC32 recomputed, so the header
/// itself is valid).
fn xz_lie() -> Vec<u8> {
    let real = compress((Algorithm::Lzma2, Framing::Xz), &vec![0u8; 64 << 10]);
    let old_len = (real[12] as usize + 1) * 4;
    let mut h = vec![0, 0x80]; // size (set below); flags: uncompressed size, one filter
    vli(1 << 40, &mut h);
    h.extend_from_slice(&[0x21, 0x01, 40]); // LZMA2, 1 property byte, dictionary 4 GiB - 1
    while (h.len() + 4) % 4 != 0 {
        h.push(0);
    }
    h[0] = ((h.len() + 4) / 4 - 1) as u8;
    let mut crc = flate2::Crc::new();
    crc.update(&h);
    h.extend_from_slice(&crc.sum().to_le_bytes());
    mutate::spliced(&real, 12..12 + old_len, &h)
}

/// A tiny input and the huge size declared for it: `(name, pair, input, declared)`.
type Lie = (&'static str, (Algorithm, Framing), Vec<u8>, u64);

/// Tiny inputs whose own headers (or, for formats that record no size, the file around them)
/// declare a huge output.
fn lies() -> Vec<Lie> {
    let zeros = vec![0u8; 64 << 10];
    let mut hadoop_snappy = be32(0x7fff_ffff).to_vec();
    hadoop_snappy.extend(be32(SNAPPY_LIE.len() as u32));
    hadoop_snappy.extend(SNAPPY_LIE);
    let lz4 = compress((Algorithm::Lz4, Framing::Raw), &zeros);
    let mut hadoop_lz4 = be32(0x7fff_ffff).to_vec();
    hadoop_lz4.extend(be32(lz4.len() as u32));
    hadoop_lz4.extend(&lz4);
    let mut gzip = compress((Algorithm::Deflate, Framing::Gzip), &zeros);
    let isize_at = gzip.len() - 4;
    gzip[isize_at..].copy_from_slice(&u32::MAX.to_le_bytes());
    let zlib = compress((Algorithm::Deflate, Framing::Zlib), &zeros);
    let bzip2 = compress((Algorithm::Bzip2, Framing::Bzip2Stream), &zeros);
    let lzo = compress((Algorithm::Lzo, Framing::Raw), &zeros);
    vec![
        (
            "raw snappy length 2^30",
            PAIRS[6],
            SNAPPY_LIE.to_vec(),
            1 << 30,
        ),
        (
            "hadoop snappy block of 2^31-1",
            PAIRS[2],
            hadoop_snappy,
            0x7fff_ffff,
        ),
        (
            "hadoop lz4 block of 2^31-1",
            PAIRS[3],
            hadoop_lz4,
            0x7fff_ffff,
        ),
        (
            "zstd content size 2^30",
            PAIRS[4],
            zstd_lie(1 << 30),
            1 << 30,
        ),
        (
            "zstd content size 2^40",
            PAIRS[4],
            zstd_lie(1 << 40),
            1 << 40,
        ),
        (
            "xz block of 2^40, 4 GiB dictionary",
            PAIRS[9],
            xz_lie(),
            1 << 40,
        ),
        ("gzip ISIZE 2^32-1", PAIRS[1], gzip, u32::MAX as u64),
        ("zlib declared 2^30", PAIRS[0], zlib, 1 << 30),
        ("bzip2 declared 2^30", PAIRS[5], bzip2, 1 << 30),
        ("raw lz4 declared 2^30", PAIRS[7], lz4, 1 << 30),
        ("lzo declared 2^30", PAIRS[8], lzo, 1 << 30),
    ]
}

#[test]
fn tiny_inputs_declaring_huge_outputs_are_refused() {
    for (name, pair, input, declared) in lies() {
        let algorithm = pair.0;
        // Above the default cap (256 MiB): refused by the cap.
        let e = check_plain_len(algorithm, input.len(), declared, &Limits::default()).unwrap_err();
        let (what, requested, _) = limit_of(&e);
        assert_eq!((what, requested), ("decompressed size", declared), "{name}");
        // Without caps, the compressed length alone bounds it.
        let e =
            check_plain_len(algorithm, input.len(), declared, &Limits::unlimited()).unwrap_err();
        let (what, _, most) = limit_of(&e);
        assert_eq!(
            what, "decompressed size for the compressed length",
            "{name}"
        );
        assert_eq!(most, algorithm.max_plain_len(input.len()), "{name}");

        // The most a reader can be made to ask for this input: decoding it fails (or gives
        // what the input really holds) without allocating beyond it.
        let most = most.min(Limits::default().max_decompressed_bytes as u64);
        let n = check_plain_len(algorithm, input.len(), most, &Limits::default()).unwrap();
        let mut c = codec(pair);
        let (r, usage) = timed(name, || c.decompress(&input, &mut Vec::new(), n));
        assert!(r.is_err(), "{name}: {n} bytes decoded");
        let bound = n + state_slack(algorithm, n);
        assert!(
            usage.peak_single <= bound,
            "{name}: one allocation of {} bytes, {n} admitted",
            usage.peak_single
        );
    }
}

/// What an RCFile bomb must be refused as: the check of a declared decompressed size.
fn assert_decompressed_limit(e: &Error, context: &str) {
    let (what, requested, limit) = limit_of(e);
    assert!(
        what.starts_with("decompressed size") && requested > limit,
        "{context}: {e}"
    );
}

/// An RCFile (two columns, four row groups) with `codec`.
fn rcfile(codec: HadoopCodec) -> Vec<u8> {
    let mut w = RcFileWriter::builder(Vec::new(), 2)
        .with_codec(Some(codec))
        .with_row_group_rows(50)
        .build()
        .unwrap();
    for i in 0..200u32 {
        w.write_row(&[i.to_string().into_bytes(), vec![b'x'; (i % 40) as usize]])
            .unwrap();
    }
    w.finish_into_inner().unwrap().0
}

fn read_rcfile(bytes: &[u8], limits: Limits) -> colfile::Result<u64> {
    let mut r = RcFileReader::builder(bytes).with_limits(limits).build()?;
    let mut cells = 0u64;
    while let Some(g) = r.next_row_group()? {
        for c in 0..g.num_columns() {
            cells += g.column(c).map_or(0, |d| d.cells().len() as u64);
        }
    }
    Ok(cells)
}

#[test]
fn rcfile_declaring_huge_decompressed_lengths_is_refused() {
    for codec in HadoopCodec::ALL {
        let bytes = rcfile(codec);
        // The key sections and columns of this file are a few hundred bytes.
        let small = 64 << 10 | state_slack(codec.algorithm(), 0);
        assert_eq!(read_rcfile(&bytes, Limits::default()).unwrap(), 400);
        let (_, groups) = rc::structure(&bytes);
        let g = &groups[1];
        let key = rc::key_section(&bytes, Some(codec), g);
        let (_, cols) = rc::key_fields(&key);
        for huge in [1i64 << 30, 0x7fff_ffff, 100 << 20] {
            // Column 1's plain length; its few compressed bytes stay as they are.
            let at = cols[1][1];
            let n = colfile::rcfile::hadoop::decode_vlong(&key[at..]).unwrap().1;
            let mut v = Vec::new();
            colfile::rcfile::hadoop::write_vlong(&mut v, huge);
            let damaged_key = mutate::spliced(&key, at..at + n, &v);
            let damaged = rc::with_key_section(&bytes, Some(codec), g, &damaged_key);
            // 100 MiB is below the default cap, and bzip2 can really make that much of a
            // few hundred bytes: only the 64 MiB limit refuses it.
            let all = [Limits::default(), limits_64()];
            let limits_list = if huge == 100 << 20 {
                &all[1..]
            } else {
                &all[..]
            };
            for limits in limits_list {
                let context = format!("{codec:?}: column plain length {huge}");
                let (r, usage) = timed(&context, || read_rcfile(&damaged, limits.clone()));
                let e = r.unwrap_err();
                assert_decompressed_limit(&e, &context);
                assert_eq!(e.location().row_group, Some(1), "{context}: {e}");
                assert_eq!(e.location().column, Some(1), "{context}: {e}");
                assert!(usage.peak_single < small, "{context}: {usage:?}");
            }
            // The key section's own uncompressed length (and the record length that
            // includes it, so that the two agree).
            let Ok(record) = i32::try_from(huge as usize + g.record_len - g.key_len) else {
                continue;
            };
            let mut damaged = bytes.clone();
            damaged[g.at..g.at + 4].copy_from_slice(&record.to_be_bytes());
            damaged[g.at + 4..g.at + 8].copy_from_slice(&(huge as i32).to_be_bytes());
            let context = format!("{codec:?}: key length {huge}");
            let (r, usage) = timed(&context, || read_rcfile(&damaged, limits_64()));
            let e = r.unwrap_err();
            assert_decompressed_limit(&e, &context);
            assert_eq!(e.location().row_group, Some(1), "{context}: {e}");
            assert!(usage.peak_single < small, "{context}: {usage:?}");
        }
    }
}

/// Deflate bombs in every column of a row group, each under the per-buffer cap: the row
/// group's total is refused before any column is decompressed.
#[test]
fn rcfile_bombs_across_columns_are_refused_per_row_group() {
    let mut w = RcFileWriter::builder(Vec::new(), 8)
        .with_codec(Some(HadoopCodec::Default))
        .build()
        .unwrap();
    w.write_row(&vec![vec![0u8; 2 * MIB]; 8]).unwrap();
    let bytes = w.finish_into_inner().unwrap().0;
    assert!(bytes.len() < 64 << 10, "{} bytes", bytes.len());
    let limits = |group: usize| {
        Limits::default()
            .with_max_decompressed_bytes(4 * MIB)
            .with_max_row_group_bytes(group)
    };
    // Each column alone is allowed; with room for the group, all of it reads.
    assert_eq!(read_rcfile(&bytes, limits(32 * MIB)).unwrap(), 8);
    let (r, usage) = timed("8 columns of 2 MiB", || {
        read_rcfile(&bytes, limits(8 * MIB))
    });
    let e = r.unwrap_err();
    let (what, requested, limit) = limit_of(&e);
    assert_eq!(what, "row group decoded size", "{e}");
    assert!(
        requested > 16 * MIB as u64 && limit == 8 * MIB as u64,
        "{e}"
    );
    assert_eq!(e.location().row_group, Some(0), "{e}");
    assert!(e.location().offset.is_some(), "{e}");
    assert!(usage.peak_live < MIB, "{usage:?}");
}

fn limits_64() -> Limits {
    Limits::default()
        .with_max_alloc_bytes(64 * MIB)
        .with_max_decompressed_bytes(64 * MIB)
}

/// The first page of `bytes` whose payload is compressed and at least 16 bytes long:
/// `(header offset, compressed size, payload offset)`.
fn first_page(bytes: &[u8]) -> (usize, usize, usize) {
    let s = sketch(bytes, &Limits::default()).unwrap();
    s.data
        .groups
        .iter()
        .flat_map(|g| &g.chunks)
        .flat_map(|c| &c.pages)
        .find(|p| !p.header.is_empty() && p.header.compressed_size >= 16)
        .map(|p| {
            (
                p.offset as usize,
                p.header.compressed_size as usize,
                p.data_offset as usize,
            )
        })
        .unwrap()
}

fn uvarint(v: u32) -> Vec<u8> {
    let mut b = Vec::new();
    colfile::tsfile::format::varint::put_uvarint(&mut b, v);
    b
}

/// `bytes` with the page at `at` declaring `huge` uncompressed bytes. Every offset in the
/// file stays valid: the longer size field is paid for by dropping as many bytes from the end
/// of the payload (and its compressed size), so the reader meets the page header as it is.
fn page_claiming(
    bytes: &[u8],
    (at, compressed, data): (usize, usize, usize),
    huge: u32,
) -> Vec<u8> {
    let mut c = colfile::cursor::Cursor::new(&bytes[at..], 0);
    c.read_uvarint().unwrap();
    let size_len = c.position();
    c.read_uvarint().unwrap();
    let csize_len = c.position() - size_len;
    let new_size = uvarint(huge);
    let grow = new_size.len() - size_len;
    let new_csize = uvarint((compressed - grow) as u32);
    assert_eq!(new_csize.len(), csize_len, "pick another page");
    let mut out = bytes[..at].to_vec();
    out.extend(&new_size);
    out.extend(&new_csize);
    out.extend(&bytes[at + size_len + csize_len..data + compressed - grow]);
    out.extend(&bytes[data + compressed..]);
    assert_eq!(out.len(), bytes.len());
    out
}

fn query_all(bytes: &[u8], limits: Limits) -> colfile::Result<usize> {
    let r = TsFileReader::open_with_limits(bytes, limits)?;
    let mut rows = 0;
    for b in r.query(&Query::all())? {
        rows += b?.len();
    }
    Ok(rows)
}

#[test]
fn tsfile_page_declaring_a_huge_uncompressed_size_is_refused() {
    let dir = common::tsdump::ts_fixtures_dir();
    for name in ["gzip", "lz4", "lzma2", "lzo", "snappy", "zstd"] {
        let bytes = std::fs::read(dir.join(format!("comp_{name}.tsfile"))).unwrap();
        assert!(query_all(&bytes, Limits::default()).unwrap() > 0);
        let page = first_page(&bytes);
        for (huge, limits) in [
            (1u32 << 30, Limits::default()),
            (u32::MAX, Limits::default()),
            (200 << 20, Limits::default()),
            (100 << 20, limits_64()),
        ] {
            let damaged = page_claiming(&bytes, page, huge);
            let context = format!("comp_{name}: page at {} claims {huge}", page.0);
            let (r, usage) = timed(&context, || query_all(&damaged, limits.clone()));
            let e = r.unwrap_err();
            let (what, requested, limit) = limit_of(&e);
            assert!(
                (what.starts_with("decompressed size") || what == "page")
                    && requested == huge as u64
                    && requested > limit,
                "{context}: {e}"
            );
            let at = e.location();
            assert!(at.chunk.is_some() && at.page == Some(0), "{context}: {e}");
            assert!(usage.peak_single < 4 * MIB, "{context}: {usage:?}");
        }
    }
}

/// Issue 17's amplification files (`fixtures/bad`): read as `cat`, `verify` and `recover`
/// read them, with the default limits, each fails with its error while holding under
/// 100 MB at its peak.
#[test]
fn amplification_fixtures_fail_within_100_mb_at_default_limits() {
    use colfile::rcfile::{RowReader, Schema, Serde};
    const MOST: usize = 100 << 20;
    let bad = |name: &str| {
        std::fs::read(format!(
            "{}/fixtures/bad/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    for (name, columns) in [
        ("rcfile/nulled_columns_huge_row_count.rc", 11),
        ("rcfile/zstd_bombs_across_columns.rc", 5),
    ] {
        let bytes = bad(name);
        let (raw, usage) = timed(name, || read_rcfile(&bytes, Limits::default()));
        assert!(
            raw.is_err() && usage.peak_live < MOST,
            "{name}: {raw:?} {usage:?}"
        );
        // Typed rows, as `cat --schema` decodes them.
        let schema: Schema = (0..columns)
            .map(|i| format!("c{i}:string"))
            .collect::<Vec<_>>()
            .join(",")
            .parse()
            .unwrap();
        let (typed, usage) = timed(name, || -> colfile::Result<u64> {
            let mut rows = RowReader::builder(bytes.as_slice(), schema, Serde::binary()).build()?;
            let mut n = 0;
            while rows.next_row()?.is_some() {
                n += 1;
            }
            Ok(n)
        });
        let e = typed.unwrap_err();
        assert!(
            matches!(e.kind(), ErrorKind::LimitExceeded { .. }),
            "{name}: {e}"
        );
        assert!(usage.peak_live < MOST, "{name}: {usage:?}");
    }
    let name = "tsfile/ts2diff_pages_claim_huge_counts.tsfile";
    let bytes = bad(name);
    let (rows, usage) = timed(name, || -> colfile::Result<usize> {
        let r = TsFileReader::open(bytes.as_slice())?;
        let mut n = 0;
        for b in r.query(&Query::all())? {
            n += b?.len();
        }
        Ok(n)
    });
    assert!(rows.is_err(), "{name}: {rows:?}");
    assert!(usage.peak_live < MOST, "{name}: {usage:?}");
    let (_, usage) = timed(name, || {
        colfile::tsfile::verify(bytes.as_slice(), &Default::default())
    });
    assert!(usage.peak_live < MOST, "{name} verify: {usage:?}");
    let (_, usage) = timed(name, || {
        colfile::tsfile::recover(bytes.as_slice(), &mut Vec::new())
    });
    assert!(usage.peak_live < MOST, "{name} recover: {usage:?}");
}
