//! TsFile writer → reader: random tables and tree devices (every type × encoding ×
//! compression this build has, nulls, page and flush cuts, index fan-outs) read back
//! exactly; time-order violations are refused without losing anything; bounded buffering.

use colfile_testkit as common;

use colfile::tsfile::encoding_supports;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{ColumnCategory, Compression, DataType, Encoding};
use colfile::tsfile::{Query, TsFileReader, TsFileWriter, Value, ValueRef, WriterOptions};
use colfile::ErrorKind;
use proptest::prelude::*;
use std::collections::BTreeMap;

use common::tsdump::VALUE_TYPES as TYPES;
const ENCODINGS: [Encoding; 6] = [
    Encoding::Zigzag,
    Encoding::Plain,
    Encoding::Ts2Diff,
    Encoding::Rle,
    Encoding::Gorilla,
    Encoding::Dictionary,
];
const COMPRESSIONS: [Compression; 6] = [
    Compression::Uncompressed,
    Compression::Snappy,
    Compression::Gzip,
    Compression::Lz4,
    Compression::Zstd,
    Compression::Lzma2,
];

/// A value of `t` that `enc` stores exactly: TS_2DIFF and RLE keep FLOAT/DOUBLE at two
/// decimals, so lossy encodings get values with two decimals.
fn arb_value(t: DataType, enc: Encoding) -> BoxedStrategy<Value> {
    common::tsdump::arb_value(t, !matches!(enc, Encoding::Ts2Diff | Encoding::Rle))
}

#[derive(Debug, Clone)]
struct Col {
    t: DataType,
    enc: Encoding,
    comp: Compression,
}

fn arb_col() -> impl Strategy<Value = Col> {
    (0..TYPES.len(), 0..ENCODINGS.len(), 0..COMPRESSIONS.len()).prop_filter_map(
        "encoding must support the type",
        |(t, e, c)| {
            let (t, enc) = (TYPES[t], ENCODINGS[e]);
            encoding_supports(enc, t).then_some(Col {
                t,
                enc,
                comp: COMPRESSIONS[c],
            })
        },
    )
}

type Rows = Vec<(usize, i64, Vec<Value>)>;

/// Columns, then rows as (device index, time, field values); times increase per device.
fn arb_table() -> impl Strategy<Value = (Vec<Col>, Vec<Vec<Option<String>>>, Rows)> {
    (proptest::collection::vec(arb_col(), 1..5), 1usize..4)
        .prop_flat_map(|(cols, ndev)| {
            // Distinct devices: device 0 has a trailing null tag; the others a unique second
            // tag after a random (possibly null) first one.
            let devices =
                proptest::collection::vec(proptest::option::weighted(0.8, "[a-z]{0,3}"), ndev)
                    .prop_map(|firsts| {
                        firsts
                            .into_iter()
                            .enumerate()
                            .map(|(i, f)| match i {
                                0 => vec![Some("only".to_string()), None],
                                _ => vec![f, Some(format!("d{i}"))],
                            })
                            .collect::<Vec<_>>()
                    });
            let row_values: Vec<BoxedStrategy<Value>> =
                cols.iter().map(|c| arb_value(c.t, c.enc)).collect();
            let rows = proptest::collection::vec((0..ndev, 1i64..1000, row_values), 1..300);
            (Just(cols), devices, rows)
        })
        .prop_map(|(cols, devices, rows)| {
            let mut last: BTreeMap<usize, i64> = BTreeMap::new();
            let rows = rows
                .into_iter()
                .map(|(d, step, v)| {
                    let t = last.entry(d).or_insert(-500);
                    *t += step;
                    (d, *t, v)
                })
                .collect();
            (cols, devices, rows)
        })
}

fn same_value(a: ValueRef<'_>, b: ValueRef<'_>) -> bool {
    match (a, b) {
        (ValueRef::Float(x), ValueRef::Float(y)) => x.to_bits() == y.to_bits(),
        (ValueRef::Double(x), ValueRef::Double(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// Every row the reader returns, keyed by (device id text, time).
fn read_all(bytes: Vec<u8>) -> BTreeMap<(String, i64), Vec<Value>> {
    let r = TsFileReader::open(bytes).expect("open");
    let mut out = BTreeMap::new();
    for b in r.query(&Query::all()).expect("query") {
        let b = b.expect("batch");
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let row: Vec<Value> = cursors
                .iter_mut()
                .map(|c| c.next_value().to_owned())
                .collect();
            assert!(
                out.insert((b.device.to_string(), t), row).is_none(),
                "duplicate row"
            );
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn random_tables_read_back_exactly(
        (cols, devices, rows) in arb_table(),
        page_points in prop_oneof![Just(3usize), Just(17), Just(10_000)],
        degree in prop_oneof![Just(2usize), Just(3), Just(256)],
        flush_every in prop_oneof![Just(0usize), Just(7), Just(50)],
        role_masks in any::<bool>(),
    ) {
        let mut columns = vec![
            TableColumn::new("region", DataType::String, ColumnCategory::Tag),
            TableColumn::new("dev", DataType::String, ColumnCategory::Tag),
        ];
        for (i, c) in cols.iter().enumerate() {
            columns.push(TableColumn::new(&format!("F{i}"), c.t, ColumnCategory::Field).with_codec(c.enc, c.comp));
        }
        let mut options = WriterOptions::default()
            .with_page_max_points(page_points)
            .with_max_index_degree(degree);
        options.role_masks = role_masks;
        let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
        w.register_table(TableSchema::new("T", columns)).unwrap();
        let mut expected = BTreeMap::new();
        for (n, (d, t, values)) in rows.iter().enumerate() {
            let tags = &devices[*d];
            let mut row: Vec<Value> = tags
                .iter()
                .map(|t| t.as_deref().map_or(Value::Null, Value::string))
                .collect();
            row.extend(values.iter().cloned());
            w.write_row("t", *t, &row).unwrap();
            if flush_every > 0 && n % flush_every == flush_every - 1 {
                w.flush().unwrap();
            }
            let id = colfile::tsfile::format::DeviceId::from_table("t", tags.clone()).unwrap();
            expected.insert((id.to_string(), *t), values.clone());
        }
        let (bytes, summary) = w.finish_into_inner().unwrap();
        prop_assert_eq!(summary.rows, rows.len() as u64);
        prop_assert_eq!(summary.bytes, bytes.len() as u64);
        let got = read_all(bytes);
        // Rows where every field is null are not stored, as in the reference writers.
        for ((dev, t), want) in &expected {
            match got.get(&(dev.clone(), *t)) {
                Some(row) => {
                    for (a, b) in want.iter().zip(row) {
                        prop_assert!(same_value(a.as_ref(), b.as_ref()), "{dev}@{t}: wrote {a:?} read {b:?}");
                    }
                }
                None => prop_assert!(want.iter().all(Value::is_null), "{dev}@{t} missing"),
            }
        }
        prop_assert!(got.len() <= expected.len());
    }
}

#[test]
fn tree_devices_aligned_and_not_read_back() {
    let mut w =
        TsFileWriter::new(Vec::new(), WriterOptions::default().with_page_max_points(4)).unwrap();
    let ms = |names: &[(&str, DataType)]| -> Vec<MeasurementSchema> {
        names
            .iter()
            .map(|(n, t)| {
                MeasurementSchema::new(
                    n,
                    *t,
                    colfile::tsfile::writer::default_encoding(*t),
                    Compression::Lz4,
                )
            })
            .collect()
    };
    w.register_device(
        "root.sg1.d1",
        false,
        ms(&[("s1", DataType::Int64), ("s2", DataType::Double)]),
    )
    .unwrap();
    w.register_device(
        "root.sg1.d2",
        true,
        ms(&[("a", DataType::Boolean), ("b", DataType::Text)]),
    )
    .unwrap();
    for t in 0..30i64 {
        let mut rec = vec![("s1", ValueRef::Int64(t * 3))];
        if t % 3 == 0 {
            rec.push(("s2", ValueRef::Double(t as f64 / 4.0)));
        }
        w.write_record("root.sg1.d1", t, &rec).unwrap();
        w.write_record("root.sg1.d2", t * 10, &[("b", ValueRef::Binary(b"x"))])
            .unwrap();
        if t == 12 {
            w.flush().unwrap();
        }
    }
    // A measurement registered after data, for a non-aligned device.
    w.register_device("root.sg1.d1", false, ms(&[("s3", DataType::Int32)]))
        .unwrap();
    w.write_record("root.sg1.d1", 100, &[("s3", ValueRef::Int32(7))])
        .unwrap();
    let bytes = w.finish_into_inner().unwrap().0;
    let got = read_all(bytes);
    assert_eq!(got.len(), 31 + 30);
    assert_eq!(
        got[&("root.sg1.d1".to_string(), 3)][..2],
        [Value::Int64(9), Value::Double(0.75)]
    );
    assert_eq!(got[&("root.sg1.d1".to_string(), 4)][1], Value::Null);
    assert_eq!(
        got[&("root.sg1.d1".to_string(), 100)],
        [Value::Null, Value::Null, Value::Int32(7)]
    );
    assert_eq!(
        got[&("root.sg1.d2".to_string(), 50)],
        [Value::Null, Value::string("x")]
    );
}

#[test]
fn out_of_order_time_is_refused_and_loses_nothing() {
    let schema = TableSchema::new(
        "t",
        vec![
            TableColumn::new("tag", DataType::String, ColumnCategory::Tag),
            TableColumn::new("v", DataType::Int64, ColumnCategory::Field)
                .with_codec(Encoding::Ts2Diff, Compression::Lz4),
        ],
    );
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    w.register_table(schema).unwrap();
    let row = |tag: &str, v: i64| [Value::string(tag), Value::Int64(v)];
    w.write_row("t", 10, &row("a", 1)).unwrap();
    w.write_row("t", 20, &row("a", 2)).unwrap();
    for bad in [20, 5] {
        let e = w.write_row("t", bad, &row("a", 99)).unwrap_err();
        assert!(e.to_string().contains("not after"), "{e}");
    }
    // Other devices, and later times of the same device, still go in.
    w.write_row("t", 5, &row("b", 3)).unwrap();
    w.write_row("t", 30, &row("a", 4)).unwrap();
    // A wrongly typed value is refused too, and the writer stays usable.
    let e = w
        .write_row("t", 40, &[Value::string("a"), Value::Double(1.0)])
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Schema(_)), "{e}");
    let e = w.write_row("nope", 40, &row("a", 1)).unwrap_err();
    assert!(e.to_string().contains("not registered"), "{e}");
    let got = read_all(w.finish_into_inner().unwrap().0);
    let keys: Vec<_> = got.keys().cloned().collect();
    assert_eq!(
        keys,
        [
            ("t.a".to_string(), 10),
            ("t.a".to_string(), 20),
            ("t.a".to_string(), 30),
            ("t.b".to_string(), 5)
        ]
    );
}

/// GORILLA ends a page with the type's sentinel (INT32/INT64 minimum, canonical NaN). Like
/// the C++ writer, minimum integers are stored as data (count-driven readers, ours and
/// C++'s, read them back); canonical NaN is stored as another quiet NaN so that Java's
/// sentinel-driven reader does not stop early either.
#[test]
fn gorilla_sentinel_values_read_back() {
    let schema = TableSchema::new(
        "t",
        vec![
            TableColumn::new("i", DataType::Int32, ColumnCategory::Field)
                .with_codec(Encoding::Gorilla, Compression::Uncompressed),
            TableColumn::new("f", DataType::Float, ColumnCategory::Field)
                .with_codec(Encoding::Gorilla, Compression::Uncompressed),
        ],
    );
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    w.register_table(schema).unwrap();
    w.write_row("t", 1, &[Value::Int32(1), Value::Float(f32::NAN)])
        .unwrap();
    w.write_row("t", 2, &[Value::Int32(i32::MIN), Value::Float(1.0)])
        .unwrap();
    w.write_row("t", 3, &[Value::Int32(i32::MIN), Value::Float(f32::NAN)])
        .unwrap();
    let got = read_all(w.finish_into_inner().unwrap().0);
    assert_eq!(got.len(), 3);
    assert!(matches!(got[&("t".to_string(), 1)][1], Value::Float(x) if x.is_nan()));
    assert_eq!(
        got[&("t".to_string(), 2)],
        [Value::Int32(i32::MIN), Value::Float(1.0)]
    );
    assert_eq!(got[&("t".to_string(), 3)][0], Value::Int32(i32::MIN));
}

#[test]
fn a_small_memory_threshold_flushes_chunk_groups_as_it_goes() {
    let schema = TableSchema::new(
        "m",
        vec![
            TableColumn::new("d", DataType::String, ColumnCategory::Tag),
            TableColumn::new("v", DataType::Double, ColumnCategory::Field)
                .with_codec(Encoding::Gorilla, Compression::Lz4),
        ],
    );
    let mut w = TsFileWriter::new(
        Vec::new(),
        WriterOptions::default().with_memory_threshold(64 << 10),
    )
    .unwrap();
    w.register_table(schema).unwrap();
    for t in 0..200_000i64 {
        w.write_row(
            "m",
            t,
            &[
                Value::string(if t % 2 == 0 { "x" } else { "y" }),
                Value::Double(t as f64),
            ],
        )
        .unwrap();
    }
    let (bytes, s) = w.finish_into_inner().unwrap();
    assert!(s.chunk_groups > 10, "{s:?}");
    let got = read_all(bytes);
    assert_eq!(got.len(), 200_000);
    assert_eq!(
        got[&("m.y".to_string(), 199_999)],
        [Value::Double(199_999.0)]
    );
}

/// Pages are encoded on several threads at flush time; the bytes must not depend on it.
#[test]
fn output_does_not_depend_on_the_thread_count() {
    let write = |threads: usize| {
        let schema = TableSchema::new(
            "t",
            vec![
                TableColumn::new("d", DataType::String, ColumnCategory::Tag),
                TableColumn::new("v", DataType::Double, ColumnCategory::Field)
                    .with_codec(Encoding::Gorilla, Compression::Zstd),
                TableColumn::new("s", DataType::Text, ColumnCategory::Field)
                    .with_codec(Encoding::Dictionary, Compression::Lz4),
            ],
        );
        let mut w = TsFileWriter::new(
            Vec::new(),
            WriterOptions::default()
                .with_threads(threads)
                .with_page_max_points(100),
        )
        .unwrap();
        w.register_table(schema).unwrap();
        for t in 0..5000i64 {
            let d = format!("dev{}", t % 37);
            let row = [
                Value::string(&d),
                Value::Double((t as f64).sin()),
                Value::string(if t % 3 == 0 { "a" } else { "bb" }),
            ];
            w.write_row("t", t, &row).unwrap();
        }
        w.finish_into_inner().unwrap().0
    };
    let one = write(1);
    assert_eq!(one, write(2));
    assert_eq!(one, write(5));
}
