//! TsFile v3 (IoTDB 0.12–1.3): the real v3 files in `../shared/fixtures/external/real/` read
//! as their writers' own tests say, malformed v3 files fail with a located `Corrupt`, and
//! pre-v3 files fail with an `Unsupported` naming their version.

use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::{BloomFilter, Compression, DataType, DeviceId, Encoding, StatValues};
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::tools::verify::{verify, VerifyOptions};
use colfile::tsfile::{
    FileMetadata, Query, TsFileReader, TsFileWriter, Value, ValueRef, WriterOptions,
};
use colfile::{ErrorKind, Limits};
use colfile_testkit as common;
use proptest::prelude::*;

#[path = "tsfile_v3/gen.rs"]
mod gen;

/// A real file, or `None` when the shared folder is absent (the test then checks nothing).
fn real(name: &str) -> Option<Vec<u8>> {
    let p = common::external_dir()?.join("real").join(name);
    Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
}

/// One row: (device, time, [(column, value)]).
type Row = (String, i64, Vec<(String, Value)>);

/// Every row of every device.
fn rows(bytes: &[u8]) -> Vec<Row> {
    let r = TsFileReader::open(bytes.to_vec()).unwrap();
    let mut out = Vec::new();
    for b in r.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let vals = b
                .columns
                .iter()
                .zip(cursors.iter_mut())
                .map(|(c, k)| (c.name.clone(), k.next_value().to_owned()))
                .collect();
            out.push((b.device.to_string(), t, vals));
        }
    }
    out
}

fn rebuilt_bloom(stored: &BloomFilter, keys: &[&str]) -> BloomFilter {
    let mut b = BloomFilter::new(stored.bit_count(), stored.hash_count());
    for k in keys {
        b.add(k);
    }
    b
}

/// Java's bloom bytes drop trailing zero bytes; compare bit for bit.
fn same_bits(a: &[u8], b: &[u8]) -> bool {
    let n = a.len().max(b.len());
    (0..n).all(|i| a.get(i).copied().unwrap_or(0) == b.get(i).copied().unwrap_or(0))
}

#[test]
fn java_v3_file_reads_as_javas_compatibility_test_says() {
    let Some(bytes) = real("tsfile_java_v3TsFile.tsfile") else {
        return;
    };
    let m = FileMetadata::read(&bytes, &Limits::default()).unwrap();
    assert_eq!(m.version(), 3);
    assert_eq!(m.meta_offset(), 100);
    let devices: Vec<String> = m
        .all_devices(&bytes)
        .unwrap()
        .iter()
        .map(|d| d.to_string())
        .collect();
    assert_eq!(devices, ["d1", "d2"]);

    // apache/tsfile CompatibilityTest: one row at 10000, s1 = 5.0f, s2 = 5; s3 absent.
    let got = rows(&bytes);
    assert_eq!(got.len(), 1, "{got:?}");
    let (dev, t, vals) = &got[0];
    assert_eq!((dev.as_str(), *t), ("d1", 10000));
    assert_eq!(
        vals,
        &[
            ("s1".to_string(), Value::Float(5.0)),
            ("s2".to_string(), Value::Int32(5))
        ]
    );
    let r = TsFileReader::open(bytes.clone()).unwrap();
    let q = Query::all()
        .device(DeviceId::from_tree_path("d1").unwrap())
        .columns(["s1", "s2", "s3"]);
    let n: usize = r.query(&q).unwrap().map(|b| b.unwrap().len()).sum();
    assert_eq!(n, 1);
    // d2 (a value chunk with no pages and no time chunk) has no rows and is no error.
    let q = Query::all().device(DeviceId::from_tree_path("d2").unwrap());
    let n: usize = r.query(&q).unwrap().map(|b| b.unwrap().len()).sum();
    assert_eq!(n, 0);

    let d1 = &m.all_devices(&bytes).unwrap()[0];
    let series = m.timeseries(&bytes, d1).unwrap();
    let types: Vec<_> = series
        .iter()
        .map(|s| (s.measurement_id.as_str(), s.data_type))
        .collect();
    assert_eq!(types, [("s1", DataType::Float), ("s2", DataType::Int32)]);
    let s1 = &series[0].statistics;
    assert_eq!((s1.count, s1.start_time, s1.end_time), (1, 10000, 10000));
    match &s1.values {
        StatValues::Float(n) => {
            assert_eq!(
                (n.min, n.max, n.first, n.last, n.sum),
                (5.0, 5.0, 5.0, 5.0, 5.0)
            )
        }
        v => panic!("{v:?}"),
    }
    match &series[1].statistics.values {
        StatValues::Int32(n) => assert_eq!((n.min, n.max, n.first, n.last, n.sum), (5, 5, 5, 5, 5)),
        v => panic!("{v:?}"),
    }
    let d2 = &m.all_devices(&bytes).unwrap()[1];
    let s = m.find_timeseries(&bytes, d2, "s1").unwrap().unwrap();
    assert_eq!((s.timeseries_type, s.data_type), (0x40, DataType::Text));
    assert_eq!(
        (
            s.statistics.count,
            s.statistics.start_time,
            s.statistics.end_time
        ),
        (0, i64::MAX, i64::MIN)
    );

    let data = scan_data(&bytes, &Limits::default()).unwrap();
    assert!(data.stop.is_none());
    assert_eq!(data.version, 3);
    assert_eq!(data.groups.len(), 2);
    assert_eq!(data.groups.iter().map(|g| g.chunks.len()).sum::<usize>(), 3);
    assert_eq!(data.separator, Some(100));

    let bloom = m.footer().bloom.as_ref().unwrap();
    assert!(bloom.may_contain("d1.s1") && bloom.may_contain("d2.s1"));
    let keys = ["d1.s1", "d1.s2", "d2.s1"];
    assert!(same_bits(
        rebuilt_bloom(bloom, &keys).bytes(),
        bloom.bytes()
    ));

    let report = verify(&bytes, &VerifyOptions::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
}

#[test]
fn cpp_v3_file_has_16_rows_and_consistent_statistics() {
    let Some(bytes) = real("tsfile_cpp_smoke_test.write_record.dat.tsfile") else {
        return;
    };
    let got = rows(&bytes);
    assert_eq!(got.len(), 16);
    for (i, (dev, t, vals)) in got.iter().enumerate() {
        assert_eq!(dev, "root.db001.dev001");
        assert_eq!(*t, i as i64 + 1);
        let want: Vec<(String, Value)> = (1..=3)
            .map(|k| (format!("m00{k}"), Value::Int32(100 * k + *t as i32)))
            .collect();
        assert_eq!(vals, &want);
    }
    let m = FileMetadata::read(&bytes, &Limits::default()).unwrap();
    assert_eq!(m.version(), 3);
    let d = DeviceId::from_tree_path("root.db001.dev001").unwrap();
    for (k, sum) in [(1, 1736), (2, 3336), (3, 4936)] {
        let s = m
            .find_timeseries(&bytes, &d, &format!("m00{k}"))
            .unwrap()
            .unwrap();
        assert_eq!(
            (
                s.statistics.count,
                s.statistics.start_time,
                s.statistics.end_time
            ),
            (16, 1, 16)
        );
        match &s.statistics.values {
            StatValues::Int32(n) => assert_eq!(n.sum, sum),
            v => panic!("{v:?}"),
        }
    }
    let data = scan_data(&bytes, &Limits::default()).unwrap();
    assert!(data.stop.is_none());
    assert_eq!(data.operation_ranges.len(), 1);
    assert_eq!(data.operation_ranges[0].offset, 971);
    assert_eq!(data.separator, Some(988));
    let bloom = m.footer().bloom.as_ref().unwrap();
    let keys = [
        "root.db001.dev001.m001",
        "root.db001.dev001.m002",
        "root.db001.dev001.m003",
    ];
    assert!(same_bits(
        rebuilt_bloom(bloom, &keys).bytes(),
        bloom.bytes()
    ));
    let report = verify(&bytes, &VerifyOptions::default()).unwrap();
    assert!(report.is_ok(), "{:?}", report.problems);
    assert_eq!(report.pages, 12);
}

/// The offset an error names, and that it is `Corrupt`.
fn corrupt_at(e: &colfile::Error) -> u64 {
    assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }), "{e}");
    e.location()
        .offset
        .unwrap_or_else(|| panic!("no offset in {e}"))
}

#[test]
fn malformed_v3_files_are_corrupt_with_an_offset() {
    for name in [
        "tsfile-rust_1653988688846-1-0-0.tsfile",
        "tsfile_writer_table_test_fZ4ty23IIo.v3.tsfile",
    ] {
        let Some(bytes) = real(name) else { return };
        let e = FileMetadata::read(&bytes, &Limits::default()).unwrap_err();
        corrupt_at(&e);
        let e = TsFileReader::open(bytes.clone()).unwrap_err();
        corrupt_at(&e);
        let data = scan_data(&bytes, &Limits::default()).unwrap();
        let stop = data
            .stop
            .unwrap_or_else(|| panic!("{name}: scan found no error"));
        corrupt_at(&stop.error);
        let report = verify(&bytes, &VerifyOptions::default()).unwrap();
        assert!(!report.is_ok(), "{name}");
    }
}

#[test]
fn pre_v3_files_are_unsupported_naming_their_version() {
    for (name, version) in [
        ("old_iotdb_v0.7.0_writeTestOutputData.ksn.tsfile", "v0.7.0"),
        ("old_thulab_tsfile_test.ts.tsfile", "v0.0.1"),
    ] {
        let Some(bytes) = real(name) else { return };
        for e in [
            FileMetadata::read(&bytes, &Limits::default()).unwrap_err(),
            scan_data(&bytes, &Limits::default()).unwrap_err(),
        ] {
            assert!(matches!(e.kind(), ErrorKind::Unsupported(_)), "{e}");
            let msg = e.to_string();
            assert!(msg.contains(version) && msg.contains("before v3"), "{msg}");
        }
    }
}

#[test]
fn v1_v2_and_unknown_version_bytes_are_unsupported() {
    for (head, want) in [
        (&b"TsFile000001"[..], "TsFile v1 (IoTDB 0.9)"),
        (b"TsFile000002", "TsFile v2 (IoTDB 0.10"),
        (b"TsFile\x05", "version byte 5"),
        (b"TsFile\x02", "version byte 2"),
    ] {
        let mut bytes = head.to_vec();
        bytes.resize(64, 0);
        let e = FileMetadata::read(&bytes, &Limits::default()).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::Unsupported(_)), "{e}");
        assert!(e.to_string().contains(want), "{e}");
        assert_eq!(e.location().offset, Some(6));
    }
}

#[test]
fn recover_keeps_a_v3_file_v3_with_its_rows() {
    for name in [
        "tsfile_java_v3TsFile.tsfile",
        "tsfile_cpp_smoke_test.write_record.dat.tsfile",
    ] {
        let Some(bytes) = real(name) else { return };
        let m = FileMetadata::read(&bytes, &Limits::default()).unwrap();
        // Cut the whole metadata section off, as a crash before the footer would.
        let cut = &bytes[..m.meta_offset() as usize];
        let mut out = Vec::new();
        colfile::tsfile::recover(cut, &mut out).unwrap();
        let again = FileMetadata::read(&out, &Limits::default()).unwrap();
        assert_eq!(again.version(), 3, "{name}");
        assert_eq!(rows(&out), rows(&bytes), "{name}");
        let report = verify(&out, &VerifyOptions::default()).unwrap();
        assert!(report.is_ok(), "{name}: {:?}", report.problems);
    }
}

const TYPES: [DataType; 10] = common::tsdump::VALUE_TYPES;
const ENCODINGS: [Encoding; 6] = [
    Encoding::Plain,
    Encoding::Ts2Diff,
    Encoding::Rle,
    Encoding::Gorilla,
    Encoding::Dictionary,
    Encoding::Zigzag,
];
const COMPRESSIONS: [Compression; 5] = [
    Compression::Uncompressed,
    Compression::Snappy,
    Compression::Gzip,
    Compression::Lz4,
    Compression::Zstd,
];

/// A value of `t` kept exactly by every encoding (two decimals for floats).
fn arb_value(t: DataType) -> BoxedStrategy<Value> {
    common::tsdump::arb_value(t, false)
}

/// One measurement: type, encoding, compression.
fn arb_col() -> impl Strategy<Value = (DataType, Encoding, Compression)> {
    (0..TYPES.len(), 0..ENCODINGS.len(), 0..COMPRESSIONS.len()).prop_filter_map(
        "encoding must support the type",
        |(t, e, c)| {
            let (t, e) = (TYPES[t], ENCODINGS[e]);
            colfile::tsfile::encoding_supports(e, t).then_some((t, e, COMPRESSIONS[c]))
        },
    )
}

/// A device: aligned or not, its columns, and rows (strictly increasing times).
type Dev = (
    bool,
    Vec<(DataType, Encoding, Compression)>,
    Vec<(i64, Vec<Value>)>,
);

fn arb_device() -> impl Strategy<Value = Dev> {
    (any::<bool>(), proptest::collection::vec(arb_col(), 1..4)).prop_flat_map(|(al, cols)| {
        let row = cols.iter().map(|c| arb_value(c.0)).collect::<Vec<_>>();
        let rows = proptest::collection::vec((1i64..1000, row), 0..40);
        (Just(al), Just(cols), rows).prop_map(|(al, cols, rows)| {
            let mut t = 0;
            let rows = rows
                .into_iter()
                .map(|(d, v)| {
                    t += d;
                    (t, v)
                })
                .collect();
            (al, cols, rows)
        })
    })
}

/// Writes `devices` (named `root.sg.d{i}`) with our v4 writer.
fn write_v4(devices: &[Dev], page_points: usize) -> Vec<u8> {
    let opts = WriterOptions::default().with_page_max_points(page_points);
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    for (i, (aligned, cols, rows)) in devices.iter().enumerate() {
        let path = format!("root.sg.d{i}");
        let ms = cols
            .iter()
            .enumerate()
            .map(|(j, (t, e, c))| MeasurementSchema::new(&format!("s{j}"), *t, *e, *c))
            .collect();
        w.register_device(&path, *aligned, ms).unwrap();
        for (t, vals) in rows {
            let rec: Vec<(String, ValueRef<'_>)> = vals
                .iter()
                .enumerate()
                .filter(|(_, v)| !matches!(v, Value::Null))
                .map(|(j, v)| (format!("s{j}"), v.as_ref()))
                .collect();
            let rec: Vec<(&str, ValueRef<'_>)> =
                rec.iter().map(|(n, v)| (n.as_str(), *v)).collect();
            w.write_record(&path, *t, &rec).unwrap();
        }
    }
    w.finish_into_inner().unwrap().0
}

/// The rows `devices` should read back as: a non-aligned device stores no all-null row (an
/// aligned one keeps its time).
fn expected(devices: &[Dev]) -> Vec<Row> {
    let mut out = Vec::new();
    for (i, (aligned, _, rows)) in devices.iter().enumerate() {
        for (t, vals) in rows {
            if !aligned && vals.iter().all(|v| matches!(v, Value::Null)) {
                continue;
            }
            let named = vals
                .iter()
                .enumerate()
                .map(|(j, v)| (format!("s{j}"), v.clone()))
                .collect();
            out.push((format!("root.sg.d{i}"), *t, named));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn generated_v3_files_read_back_exactly(
        devices in proptest::collection::vec(arb_device(), 1..4),
        page_points in 2usize..20,
    ) {
        let v4 = write_v4(&devices, page_points);
        let v3 = gen::to_v3(&v4);
        let m = FileMetadata::read(&v3, &Limits::default()).unwrap();
        prop_assert_eq!(m.version(), 3);
        let got = rows(&v3);
        prop_assert_eq!(&got, &rows(&v4));
        let want = expected(&devices);
        prop_assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(&want) {
            prop_assert_eq!((&g.0, g.1), (&w.0, w.1));
            for (name, v) in &w.2 {
                let have = g.2.iter().find(|(n, _)| n == name).map(|(_, v)| v);
                prop_assert_eq!(have.unwrap_or(&Value::Null), v);
            }
        }
        let report = verify(&v3, &VerifyOptions::default()).unwrap();
        prop_assert!(report.is_ok(), "{:?}", report.problems);

        // v3 -> v4 (what `colfile convert` does): same rows; the same codecs, but encodings
        // the C++ reader cannot read take the portable default unless kept.
        let converted = to_v4(&v3, false);
        prop_assert_eq!(&rows(&converted), &got);
        prop_assert_eq!(codecs(&converted), portable(codecs(&v3)));
        let kept = to_v4(&v3, true);
        prop_assert_eq!(&rows(&kept), &got);
        prop_assert_eq!(codecs(&kept), codecs(&v3));
    }
}

/// `bytes` (v3 or v4, tree model) copied into a new v4 file by `copy_tree_with`, keeping
/// every encoding or not.
fn to_v4(bytes: &[u8], keep_encodings: bool) -> Vec<u8> {
    let r = TsFileReader::open(bytes.to_vec()).unwrap();
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    let options = colfile::tsfile::TreeCopyOptions::default().with_keep_encodings(keep_encodings);
    let sum = colfile::tsfile::copy_tree_with(&r, &mut w, options).unwrap();
    let changed = portable(codecs(bytes)) != codecs(bytes);
    // Series without a value (an aligned column that is null in every row) are re-encoded
    // too, but `codecs` lists only series with rows.
    let with_rows: Vec<String> = codecs(bytes)
        .into_iter()
        .map(|(d, m, ..)| format!("{d}.{m}"))
        .collect();
    let reencoded: Vec<_> = sum
        .reencoded
        .iter()
        .filter(|(path, ..)| with_rows.contains(path))
        .collect();
    assert_eq!(
        !reencoded.is_empty(),
        changed && !keep_encodings,
        "{:?}",
        sum.reencoded
    );
    let out = w.finish_into_inner().unwrap().0;
    assert_eq!(
        FileMetadata::read(&out, &Limits::default())
            .unwrap()
            .version(),
        4
    );
    out
}

/// `codecs` with each encoding the C++ 2.5 reader cannot read replaced by the portable
/// default for its type (what a default `copy_tree` writes).
fn portable(
    codecs: Vec<(String, String, DataType, Encoding, Compression)>,
) -> Vec<(String, String, DataType, Encoding, Compression)> {
    use colfile::tsfile::writer::{cpp_reads, default_encoding};
    codecs
        .into_iter()
        .map(|(d, m, t, e, c)| {
            let e = if cpp_reads(e, t) {
                e
            } else {
                default_encoding(t)
            };
            (d, m, t, e, c)
        })
        .collect()
}

/// Every series with rows: (device, measurement, type, encoding, compression).
fn codecs(bytes: &[u8]) -> Vec<(String, String, DataType, Encoding, Compression)> {
    let r = TsFileReader::open(bytes.to_vec()).unwrap();
    let m = r.metadata();
    let mut out = Vec::new();
    for d in m.all_devices(r.source()).unwrap() {
        for s in m.timeseries(r.source(), &d).unwrap() {
            if s.statistics.count == 0 || s.data_type == DataType::Vector {
                continue;
            }
            let (e, c) = r.series_codec(&s).unwrap();
            out.push((d.to_string(), s.measurement_id.clone(), s.data_type, e, c));
        }
    }
    out
}

#[test]
fn real_v3_files_convert_to_v4_with_the_same_rows() {
    for name in [
        "tsfile_java_v3TsFile.tsfile",
        "tsfile_cpp_smoke_test.write_record.dat.tsfile",
    ] {
        let Some(bytes) = real(name) else { return };
        let v4 = to_v4(&bytes, false);
        assert_eq!(rows(&v4), rows(&bytes), "{name}");
        assert_eq!(codecs(&v4), portable(codecs(&bytes)), "{name}");
        let kept = to_v4(&bytes, true);
        assert_eq!(rows(&kept), rows(&bytes), "{name}");
        assert_eq!(codecs(&kept), codecs(&bytes), "{name}");
        let report = verify(&v4, &VerifyOptions::default()).unwrap();
        assert!(report.is_ok(), "{name}: {:?}", report.problems);
    }
}

/// The Java v3 file with `f` applied, opened: the error and its offset.
fn open_damaged(f: impl Fn(&mut Vec<u8>)) -> Option<colfile::Error> {
    let mut b = real("tsfile_java_v3TsFile.tsfile")?;
    f(&mut b);
    Some(FileMetadata::read(&b, &Limits::default()).unwrap_err())
}

#[test]
fn damaged_v3_footers_fail_where_the_damage_is() {
    // The footer starts at 292: root (2 entries: "d1"@250, "d2"@271, end 292, LEAF_DEVICE),
    // meta_offset (324..332) = 100, Bloom (332: 32 bytes, 256 bits, 5 hashes).
    let Some(e) = open_damaged(|b| b.truncate(370)) else {
        return;
    };
    assert!(e.to_string().contains("bad tail magic"), "{e}");
    assert_eq!(e.location().offset, Some(364));

    let located = |e: &colfile::Error, at: u64, what: &str| {
        assert_eq!(e.location().offset, Some(at), "{e}");
        assert!(e.to_string().contains(what), "{e}");
    };
    // A device key longer than the footer (length 8191).
    let e = open_damaged(|b| {
        b[293] = 0xfe;
        b[294] = 0x7f;
    })
    .unwrap();
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    assert!(
        e.location()
            .offset
            .is_some_and(|o| (293..=295).contains(&o)),
        "{e}"
    );
    // A device key of length -1 (null), as a v4 segment count 1 would read.
    let e = open_damaged(|b| b[293] = 0x01).unwrap();
    located(&e, 293, "v3 device id is null");
    // meta_offset not at the separator.
    let e = open_damaged(|b| b[331] = 99).unwrap();
    located(&e, 99, "not the separator");
    // meta_offset outside the data section.
    let e = open_damaged(|b| b[324] = 0x40).unwrap();
    located(&e, 292, "meta_offset");
    // Bloom bytes past the end.
    let e = open_damaged(|b| b[332] = 0x7f).unwrap();
    assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
    located(&e, 333, "bloom filter bits");
    // Bytes after the Bloom filter.
    let e = open_damaged(|b| {
        let n = b.len();
        b.insert(n - 10, 0);
        let l = u32::from_be_bytes(b[n - 9..n - 5].try_into().unwrap()) + 1;
        b[n - 9..n - 5].copy_from_slice(&l.to_be_bytes());
    })
    .unwrap();
    located(&e, 368, "left over after the v3 file metadata");
}

/// Writes the seeds of the `tsfile_v3_read` fuzz target (`fuzz/corpus/tsfile_v3_read/`):
/// small generated v3 files, their bare data sections and a file without devices. Run by
/// hand: `cargo test --test tsfile_v3 -- --ignored write_fuzz_seeds`.
#[test]
#[ignore]
fn write_fuzz_seeds() {
    let dir = common::repo_root().join("fuzz/corpus/tsfile_v3_read");
    std::fs::create_dir_all(&dir).unwrap();
    let cols = |ts: &[DataType]| {
        ts.iter()
            .map(|&t| (t, Encoding::Plain, Compression::Uncompressed))
            .collect::<Vec<_>>()
    };
    let rows = |n: i64, k: usize| -> Vec<(i64, Vec<Value>)> {
        (1..=n)
            .map(|t| {
                (
                    t,
                    (0..k)
                        .map(|j| Value::Int32(t as i32 * 10 + j as i32))
                        .collect(),
                )
            })
            .collect()
    };
    let text = |n: i64| -> Vec<(i64, Vec<Value>)> {
        (1..=n)
            .map(|t| {
                (
                    t,
                    vec![
                        Value::Int64(t),
                        Value::string("ab"),
                        Value::Boolean(t % 2 == 0),
                    ],
                )
            })
            .collect()
    };
    let mixed = [DataType::Int64, DataType::Text, DataType::Boolean];
    let sets: [(&str, Vec<Dev>); 4] = [
        (
            "gen-nonaligned",
            vec![(false, cols(&[DataType::Int32; 2]), rows(5, 2))],
        ),
        (
            "gen-aligned",
            vec![(true, cols(&[DataType::Int32; 2]), rows(5, 2))],
        ),
        (
            "gen-two-devices",
            vec![
                (false, cols(&mixed), text(4)),
                (true, cols(&mixed), text(3)),
            ],
        ),
        ("gen-empty", vec![(false, cols(&[DataType::Int32]), vec![])]),
    ];
    for (name, devices) in sets {
        let v4 = write_v4(&devices, 3);
        std::fs::write(dir.join(name), gen::to_v3(&v4)).unwrap();
        std::fs::write(dir.join(format!("{name}-data")), gen::v3_data_section(&v4)).unwrap();
    }
}

#[test]
fn freq_encoding_is_unsupported_naming_the_series() {
    let Some(mut bytes) = real("tsfile_java_v3TsFile.tsfile") else {
        return;
    };
    // d1.s2's chunk header at 51: 05, "s2", size 29, INT32, SNAPPY, then the encoding byte.
    assert_eq!(bytes[58], 2);
    bytes[58] = 10; // FREQ (IoTDB 1.0–1.1, lossy)
    let r = TsFileReader::open(bytes).unwrap();
    let e = r
        .query(&Query::all())
        .unwrap()
        .find_map(|b| b.err())
        .expect("FREQ must fail");
    assert!(matches!(e.kind(), ErrorKind::Unsupported(_)), "{e}");
    let text = format!("{e} {:?}", e.location());
    assert!(text.contains("FREQ") && text.contains("s2"), "{text}");
}

/// Rows per second reading the same data as v3 and as v4 (best of 5 runs each). Run by
/// hand, in release: `cargo test --release --test tsfile_v3 -- --ignored measure --nocapture`
/// (BENCHMARKS.md records the result).
#[test]
#[ignore]
fn measure_v3_vs_v4_read_speed() {
    let n = 400_000i64;
    let cols = vec![
        (DataType::Int64, Encoding::Ts2Diff, Compression::Lz4),
        (DataType::Double, Encoding::Gorilla, Compression::Lz4),
        (DataType::Int32, Encoding::Rle, Compression::Snappy),
        (DataType::Text, Encoding::Plain, Compression::Lz4),
    ];
    let rows: Vec<(i64, Vec<Value>)> = (0..n)
        .map(|t| {
            let v = vec![
                Value::Int64(t * 7),
                Value::Double(t as f64 / 8.0),
                Value::Int32((t % 1000) as i32),
                Value::string(&format!("v{}", t % 97)),
            ];
            (t * 1000 + 1, v)
        })
        .collect();
    let devices: Vec<Dev> = vec![(true, cols.clone(), rows.clone()), (false, cols, rows)];
    let v4 = write_v4(&devices, 10_000);
    let v3 = gen::to_v3(&v4);
    let time_read = |bytes: &[u8]| {
        let mut best = f64::MAX;
        let mut count = 0;
        for _ in 0..5 {
            let start = std::time::Instant::now();
            let r = TsFileReader::open(bytes).unwrap();
            count = 0;
            for b in r.query(&Query::all()).unwrap() {
                count += b.unwrap().len();
            }
            best = best.min(start.elapsed().as_secs_f64());
        }
        (count, best)
    };
    for _ in 0..2 {
        let (c4, t4) = time_read(&v4);
        let (c3, t3) = time_read(&v3);
        assert_eq!(c3, c4);
        println!(
            "rows {c4}: v4 {:.0} rows/s ({} bytes), v3 {:.0} rows/s ({} bytes), v3/v4 {:.3}",
            c4 as f64 / t4,
            v4.len(),
            c3 as f64 / t3,
            v3.len(),
            t4 / t3
        );
    }
}

#[test]
fn v3_series_of_types_v3_never_had_are_corrupt() {
    let Some(good) = real("tsfile_java_v3TsFile.tsfile") else {
        return;
    };
    // d1.s1's TimeseriesMetadata: type byte, VarStr "s1", data type FLOAT (3).
    let at = good
        .windows(4)
        .position(|w| w == [0x04, b's', b'1', 3])
        .expect("d1.s1's series metadata");
    let fail = |code: u8| {
        let mut bytes = good.clone();
        bytes[at + 3] = code;
        let r = TsFileReader::open(bytes).unwrap();
        let e = r.query(&Query::all()).unwrap().find_map(|b| b.err());
        e.expect("a type v3 never had must fail")
    };
    // OBJECT (12) parses (as BLOB-like bytes) and is refused as not v3.
    let e = fail(12);
    assert_eq!(corrupt_at(&e), at as u64 - 1, "{e}");
    assert!(
        e.to_string()
            .contains("Object (code 12) does not exist in TsFile v3"),
        "{e}"
    );
    // UNKNOWN (7) has no statistics layout: its statistics fail first, where they start.
    let e = fail(7);
    assert_eq!(corrupt_at(&e), at as u64 + 5, "{e}");
    assert!(
        e.to_string().contains("statistics of data type UNKNOWN"),
        "{e}"
    );
}
