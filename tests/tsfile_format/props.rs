//! Property tests: every metadata structure reads back what it wrote, and reading consumes
//! exactly the bytes written.

use colfile::cursor::Cursor;
use colfile::tsfile::format::{
    ChunkHeader, ChunkKind, Compression, DataType, Encoding, Marker, NumStats, PageHeader,
    StatValues, Statistics,
};
use proptest::prelude::*;

fn bytes() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(any::<u8>(), 0..12)
}

/// Java writes NaN in canonical form, so compare through the wire.
fn num<T: Arbitrary + Copy, S: Arbitrary + Copy>() -> impl Strategy<Value = NumStats<T, S>> {
    (any::<T>(), any::<T>(), any::<T>(), any::<T>(), any::<S>()).prop_map(
        |(min, max, first, last, sum)| NumStats {
            min,
            max,
            first,
            last,
            sum,
        },
    )
}

/// A data type with its statistics values.
pub fn typed_values() -> impl Strategy<Value = (DataType, StatValues)> {
    prop_oneof![
        (any::<bool>(), any::<bool>(), any::<i64>()).prop_map(|(first, last, sum)| (
            DataType::Boolean,
            StatValues::Boolean { first, last, sum }
        )),
        num::<i32, i64>().prop_map(|n| (DataType::Int32, StatValues::Int32(n))),
        num::<i32, i64>().prop_map(|n| (DataType::Date, StatValues::Int32(n))),
        num::<i64, f64>().prop_map(|n| (DataType::Int64, StatValues::Int64(n))),
        num::<i64, f64>().prop_map(|n| (DataType::Timestamp, StatValues::Int64(n))),
        num::<f32, f64>().prop_map(|n| (DataType::Float, StatValues::Float(n))),
        num::<f64, f64>().prop_map(|n| (DataType::Double, StatValues::Double(n))),
        (bytes(), bytes())
            .prop_map(|(first, last)| (DataType::Text, StatValues::Text { first, last })),
        (bytes(), bytes(), bytes(), bytes()).prop_map(|(first, last, min, max)| (
            DataType::String,
            StatValues::String {
                first,
                last,
                min,
                max
            }
        )),
        Just((DataType::Blob, StatValues::None)),
        Just((DataType::Object, StatValues::None)),
        Just((DataType::Vector, StatValues::None)),
    ]
}

/// Statistics of a data type.
pub fn statistics() -> impl Strategy<Value = (DataType, Statistics)> {
    (typed_values(), any::<u32>(), any::<i64>(), any::<i64>()).prop_map(
        |((t, values), count, start_time, end_time)| {
            (
                t,
                Statistics {
                    count,
                    start_time,
                    end_time,
                    values,
                },
            )
        },
    )
}

/// Serialises, parses back, and checks that exactly the written bytes were consumed.
pub fn round_trip<T>(
    write: impl Fn(&mut Vec<u8>),
    read: impl Fn(&mut Cursor<'_>) -> colfile::Result<T>,
) -> (Vec<u8>, T) {
    let mut b = Vec::new();
    write(&mut b);
    let mut c = Cursor::new(&b, 0);
    let v = read(&mut c).unwrap();
    assert!(c.is_empty(), "{} bytes left", c.remaining());
    (b, v)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn statistics_round_trip((t, s) in statistics()) {
        let (b, back) = round_trip(|o| s.write_to(o).unwrap(), |c| Statistics::read(c, t));
        let mut b2 = Vec::new();
        back.write_to(&mut b2).unwrap();
        prop_assert_eq!(b, b2);
    }

    #[test]
    fn statistics_prefix_is_an_error((t, s) in statistics(), cut in 0usize..64) {
        let mut b = Vec::new();
        s.write_to(&mut b).unwrap();
        if cut < b.len() {
            prop_assert!(Statistics::read(&mut Cursor::new(&b[..cut], 0), t).is_err());
        }
    }

    #[test]
    fn chunk_header_round_trip(
        kind in prop_oneof![Just(ChunkKind::NonAligned), Just(ChunkKind::Time), Just(ChunkKind::Value)],
        multi in any::<bool>(), name in "\\PC{0,8}", data_size in any::<u32>(),
        t in proptest::sample::select(DataType::ALL), comp in proptest::sample::select(Compression::ALL),
        enc in proptest::sample::select(Encoding::ALL),
    ) {
        let h = ChunkHeader { marker: Marker::chunk(kind, multi), measurement_id: name, data_size,
            data_type: t, compression: comp, encoding: enc };
        let (_, back) = round_trip(|o| h.write_to(o).unwrap(), |c| ChunkHeader::read(c, 64));
        prop_assert_eq!(&back, &h);
        prop_assert_eq!(back.marker.is_multi_page(), multi);
        prop_assert_eq!(back.marker.chunk_kind(), Some(kind));
    }

    #[test]
    fn page_header_round_trip((t, s) in statistics(), u in 1u32.., comp in any::<u32>(), with in any::<bool>()) {
        let h = PageHeader { uncompressed_size: u, compressed_size: comp, statistics: with.then_some(s) };
        let (b, back) = round_trip(|o| h.write_to(o).unwrap(), |c| PageHeader::read(c, t, with));
        let mut b2 = Vec::new();
        back.write_to(&mut b2).unwrap();
        prop_assert_eq!(b, b2);
    }
}

#[test]
fn markers_classify() {
    for &m in Marker::ALL {
        assert_eq!(Marker::from_code(m.code()).unwrap(), m);
        if let Some(k) = m.chunk_kind() {
            assert_eq!(Marker::chunk(k, m.is_multi_page()), m);
            let mask = m.code() & 0xc0;
            let want = match mask {
                0x80 => ChunkKind::Time,
                0x40 => ChunkKind::Value,
                _ => ChunkKind::NonAligned,
            };
            assert_eq!(k, want);
        }
    }
    assert!(!Marker::Separator.is_chunk());
    assert!(ChunkHeader::read(&mut Cursor::new(&[0x02, 0x00], 0), 8).is_err());
}

#[test]
fn empty_page_is_one_byte() {
    let h = PageHeader::read(&mut Cursor::new(&[0x00, 0xff], 0), DataType::Int64, true).unwrap();
    assert!(h.is_empty() && h.statistics.is_none());
}

#[test]
fn accumulation_follows_java() {
    use colfile::tsfile::{BinaryValues, Values};
    // A leading NaN sticks in min and max; later NaNs never replace a number.
    let mut s = Statistics::new(DataType::Double);
    s.update_values(&[1, 2, 3], &Values::Double(vec![f64::NAN, 1.0, 2.0]))
        .unwrap();
    let StatValues::Double(n) = &s.values else {
        panic!()
    };
    assert!(n.min.is_nan() && n.max.is_nan() && n.last == 2.0 && n.sum.is_nan());
    let mut s = Statistics::new(DataType::Float);
    s.update_values(&[1, 2, 3], &Values::Float(vec![1.5, f32::NAN, -2.0]))
        .unwrap();
    let StatValues::Float(n) = &s.values else {
        panic!()
    };
    assert_eq!((n.min, n.max, n.first, n.last), (-2.0, 1.5, 1.5, -2.0));
    assert!(n.sum.is_nan());
    // INT64 sums accumulate in f64, in value order.
    let mut s = Statistics::new(DataType::Int64);
    s.update_values(&[1, 2, 3], &Values::Int64(vec![i64::MAX, 1, -1]))
        .unwrap();
    let StatValues::Int64(n) = &s.values else {
        panic!()
    };
    assert_eq!(n.sum, (i64::MAX as f64 + 1.0) - 1.0);
    // STRING min/max in unsigned byte order.
    let mut s = Statistics::new(DataType::String);
    let v: BinaryValues = [&b"b"[..], &[0xff][..], &b"a"[..]].into_iter().collect();
    s.update_values(&[5, 6, 7], &Values::Binary(v)).unwrap();
    assert_eq!(
        s.values,
        StatValues::String {
            first: b"b".to_vec(),
            last: b"a".to_vec(),
            min: b"a".to_vec(),
            max: vec![0xff]
        }
    );
    // Merge: first from the earlier, last from the later, counts add.
    let mut a = Statistics::new(DataType::Int32);
    a.update_values(&[10, 11], &Values::Int32(vec![3, 4]))
        .unwrap();
    let mut b = Statistics::new(DataType::Int32);
    b.update_values(&[1, 2], &Values::Int32(vec![9, -9]))
        .unwrap();
    a.merge(&b).unwrap();
    assert_eq!((a.count, a.start_time, a.end_time), (4, 1, 11));
    assert_eq!(
        a.values,
        StatValues::Int32(NumStats {
            min: -9,
            max: 9,
            first: 9,
            last: 4,
            sum: 7
        })
    );
    assert!(a.merge(&Statistics::new(DataType::Text)).is_err());
    a.merge(&Statistics::new(DataType::Int32)).unwrap();
    assert_eq!(a.count, 4);
    // Time statistics.
    let mut t = Statistics::new(DataType::Vector);
    t.update_times(&[5, 9]);
    assert_eq!(
        (t.count, t.start_time, t.end_time, &t.values),
        (2, 5, 9, &StatValues::None)
    );
    assert!(t.update_values(&[1], &Values::Int32(vec![])).is_err());
}

mod structures {
    use super::*;
    use colfile::tsfile::format::{
        BloomFilter, ChunkMetadata, ColumnCategory, DeviceEntry, DeviceId, MeasurementEntry,
        MeasurementSchema, MetadataIndexNode, NodeEntries, NodeType, TableColumn, TableSchema,
        TimeseriesMetadata, TsFileMetadata,
    };
    use colfile::Limits;

    fn name() -> impl Strategy<Value = String> {
        "\\PC{0,6}"
    }

    fn device() -> impl Strategy<Value = DeviceId> {
        (
            name(),
            proptest::collection::vec(proptest::option::of(name()), 0..4),
        )
            .prop_map(|(t, tags)| DeviceId::from_table(&t, tags).unwrap())
    }

    fn tsm() -> impl Strategy<Value = TimeseriesMetadata> {
        (statistics(), name(), 1usize..4, any::<u8>(), any::<i64>()).prop_map(
            |((t, s), measurement_id, chunks, mask, off)| {
                let multi = chunks > 1;
                TimeseriesMetadata {
                    timeseries_type: (multi as u8) | (mask & 0xc0),
                    measurement_id,
                    data_type: t,
                    chunks: (0..chunks)
                        .map(|i| ChunkMetadata {
                            offset_of_chunk_header: off.wrapping_add(i as i64),
                            statistics: multi.then(|| s.clone()),
                        })
                        .collect(),
                    statistics: s,
                }
            },
        )
    }

    fn node(device_level: bool) -> impl Strategy<Value = MetadataIndexNode> {
        let types = if device_level {
            vec![NodeType::InternalDevice, NodeType::LeafDevice]
        } else {
            vec![NodeType::InternalMeasurement, NodeType::LeafMeasurement]
        };
        (
            proptest::collection::vec((device(), name(), any::<i64>()), 1..5),
            any::<i64>(),
            proptest::sample::select(types),
        )
            .prop_map(move |(es, end_offset, node_type)| MetadataIndexNode {
                entries: if device_level {
                    NodeEntries::Device(
                        es.into_iter()
                            .map(|(device, _, offset)| DeviceEntry { device, offset })
                            .collect(),
                    )
                } else {
                    NodeEntries::Measurement(
                        es.into_iter()
                            .map(|(_, measurement, offset)| MeasurementEntry {
                                measurement,
                                offset,
                            })
                            .collect(),
                    )
                },
                end_offset,
                node_type,
            })
    }

    fn schema() -> impl Strategy<Value = TableSchema> {
        let col = (
            name(),
            proptest::sample::select(DataType::ALL),
            proptest::sample::select(Encoding::ALL),
            proptest::sample::select(Compression::ALL),
            proptest::collection::vec((name(), name()), 0..2),
            proptest::sample::select(ColumnCategory::ALL),
        )
            .prop_map(
                |(name, data_type, encoding, compression, props, category)| TableColumn {
                    schema: MeasurementSchema {
                        name,
                        data_type,
                        encoding,
                        compression,
                        props,
                    },
                    category,
                },
            );
        (name(), proptest::collection::vec(col, 0..4))
            .prop_map(|(name, columns)| TableSchema { name, columns })
    }

    fn footer() -> impl Strategy<Value = TsFileMetadata> {
        (
            proptest::collection::vec((name(), node(true)), 0..3),
            proptest::collection::vec(schema(), 0..3),
            any::<i64>(),
            proptest::collection::vec(name(), 0..5),
            proptest::collection::vec(
                (
                    name(),
                    proptest::option::of(proptest::collection::vec(any::<u8>(), 0..5)),
                ),
                0..4,
            ),
        )
            .prop_map(|(table_roots, schemas, meta_offset, keys, properties)| {
                let mut b = BloomFilter::with_capacity(keys.len() as u32, 0.05);
                keys.iter().for_each(|k| b.add(k));
                TsFileMetadata {
                    table_roots,
                    schemas,
                    meta_offset,
                    bloom: (!b.bytes().is_empty()).then_some(b),
                    properties,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]

        #[test]
        fn timeseries_metadata(t in tsm()) {
            let (_, back) = round_trip(|o| t.write_to(o).unwrap(), |c| TimeseriesMetadata::read(c, &Limits::default()));
            let (mut a, mut b) = (Vec::new(), Vec::new());
            t.write_to(&mut a).unwrap();
            back.write_to(&mut b).unwrap();
            prop_assert_eq!(a, b);
        }

        #[test]
        fn index_nodes(d in node(true), m in node(false)) {
            let (_, back) = round_trip(|o| d.write_to(o).unwrap(), |c| MetadataIndexNode::read_device_level(c, &Limits::default()));
            prop_assert_eq!(&back, &d);
            let (_, back) = round_trip(|o| m.write_to(o).unwrap(), |c| MetadataIndexNode::read_measurement_level(c, &Limits::default()));
            prop_assert_eq!(&back, &m);
            // The other level's format is rejected by the type byte, or fails to parse.
            let mut b = Vec::new();
            m.write_to(&mut b).unwrap();
            prop_assert!(MetadataIndexNode::read_device_level(&mut Cursor::new(&b, 0), &Limits::default()).is_err());
        }

        #[test]
        fn table_schemas(s in schema()) {
            let (_, back) = round_trip(|o| s.write_to(o).unwrap(), |c| TableSchema::read(c, &Limits::default()));
            prop_assert_eq!(back, s);
        }

        #[test]
        fn footers(f in footer()) {
            let (_, back) = round_trip(|o| f.write_to(o).unwrap(), |c| TsFileMetadata::read(c, &Limits::default()));
            prop_assert_eq!(back, f);
        }

        #[test]
        fn device_ids(d in device()) {
            let (_, back) = round_trip(|o| d.write_to(o).unwrap(), |c| DeviceId::read(c, 16));
            prop_assert_eq!(back, d);
        }

        #[test]
        fn bloom_has_no_false_negatives(keys in proptest::collection::vec("\\PC{0,40}", 1..50)) {
            let mut b = BloomFilter::with_capacity(keys.len() as u32, 0.05);
            keys.iter().for_each(|k| b.add(k));
            prop_assert!(keys.iter().all(|k| b.may_contain(k)));
        }
    }
}

proptest! {
    /// UVarInt, zigzag VarInt, VarStr/VarBinary (null included) and String32/Binary32 read
    /// back what was written, consume exactly its bytes, and a cut anywhere is an error.
    #[test]
    fn primitives_round_trip(
        u in any::<u32>(),
        i in any::<i32>(),
        s in proptest::option::of(proptest::collection::vec(any::<u8>(), 0..300)),
        b in proptest::collection::vec(any::<u8>(), 0..300),
    ) {
        use colfile::tsfile::format::varint::{put_bytes32, put_uvarint, put_var_bytes, put_varint, uvarint_len};
        let mut out = Vec::new();
        put_uvarint(&mut out, u);
        prop_assert_eq!(out.len(), uvarint_len(u));
        put_varint(&mut out, i);
        put_var_bytes(&mut out, s.as_deref()).unwrap();
        put_bytes32(&mut out, &b).unwrap();
        let mut c = Cursor::new(&out, 0);
        prop_assert_eq!(c.read_uvarint().unwrap(), u);
        prop_assert_eq!(c.read_varint().unwrap(), i);
        prop_assert_eq!(c.read_var_bytes("s").unwrap(), s.as_deref());
        prop_assert_eq!(c.read_bytes32("b").unwrap(), Some(&b[..]));
        prop_assert!(c.is_empty());
        for cut in 0..out.len() {
            let mut c = Cursor::new(&out[..cut], 0);
            let all = c.read_uvarint().and_then(|_| c.read_varint()).and_then(|_| c.read_var_bytes("s").map(drop)).and_then(|_| c.read_bytes32("b").map(drop));
            prop_assert!(all.is_err(), "cut at {}", cut);
        }
    }
}

proptest! {
    /// STRING min and max over any byte strings (short ones, shared prefixes, zero bytes,
    /// several batches) equal the plain byte-wise minimum and maximum.
    #[test]
    fn string_min_max_is_bytewise(
        batches in prop::collection::vec(
            prop::collection::vec(
                prop::collection::vec(prop::sample::select(vec![0u8, 1, b'a', b'b', 0xff]), 0..11),
                1..20,
            ),
            1..4,
        )
    ) {
        use colfile::tsfile::{BinaryValues, Values};
        let mut s = Statistics::new(DataType::String);
        let mut t = 0i64;
        for b in &batches {
            let times: Vec<i64> = (0..b.len() as i64).map(|i| t + i).collect();
            t += b.len() as i64;
            let v: BinaryValues = b.iter().map(Vec::as_slice).collect();
            s.update_values(&times, &Values::Binary(v)).unwrap();
        }
        let all: Vec<&Vec<u8>> = batches.iter().flatten().collect();
        let StatValues::String { min, max, .. } = &s.values else { panic!() };
        prop_assert_eq!(min, *all.iter().min().unwrap());
        prop_assert_eq!(max, *all.iter().max().unwrap());
    }
}
