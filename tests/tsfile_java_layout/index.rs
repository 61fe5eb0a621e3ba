//! §9 (Bloom filter sizing, Java's `n`) and §10 (the index tree, checked against the
//! spec's worked example with fan-out 4).

use super::java;
use colfile::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use colfile::tsfile::format::{
    BloomFilter, ColumnCategory, Compression, DataType, DeviceId, Encoding, MetadataIndexNode,
    NodeEntries, NodeType,
};
use colfile::tsfile::{TsFileReader, TsFileWriter, Value};

#[test]
fn bloom_sizing_follows_section_9_2() {
    // m = max(256, (int)(-n·ln p / ln²2) + 1), k = min(8, (int)(-ln p / ln 2) + 1), p clamped
    // to 0.01..0.10: e.g. n = 42, p = 0.05 → 261.88… → 262; n = 100, p = 0.01 → 958.5… → 959.
    let cases = [
        (0, 0.05, 256, 5),
        (1, 0.05, 256, 5),
        (41, 0.05, 256, 5),
        (42, 0.05, 262, 5),
        (100, 0.05, 624, 5),
        (1000, 0.05, 6236, 5),
        (100, 0.5, 480, 4),
        (100, 0.001, 959, 7),
    ];
    for (n, p, m, k) in cases {
        let f = BloomFilter::with_capacity(n, p);
        assert_eq!((f.bit_count(), f.hash_count()), (m, k), "n = {n}, p = {p}");
    }
}

#[test]
fn bloom_n_counts_chunk_metadata() {
    // One device, one FIELD, 21 chunk groups: 2 series but 42 chunk metadata. Java's n is
    // the latter (§9.2): m = 262, where 2 series alone would give the minimum 256.
    let schema = TableSchema::new(
        "t",
        vec![TableColumn::new(
            "v",
            DataType::Int64,
            ColumnCategory::Field,
        )],
    );
    let mut w = TsFileWriter::new(Vec::new(), java()).unwrap();
    w.register_table(schema).unwrap();
    for i in 0..21 {
        w.write_row("t", i, &[Value::Int64(i)]).unwrap();
        w.flush().unwrap();
    }
    let (bytes, summary) = w.finish_into_inner().unwrap();
    assert_eq!((summary.series, summary.chunks), (2, 42));
    let r = TsFileReader::open(bytes).unwrap();
    let bloom = r.metadata().footer().bloom.clone().unwrap();
    assert_eq!((bloom.bit_count(), bloom.hash_count()), (262, 5));
    assert!(bloom.bytes().len() <= 33);
    for key in ["t.", "t.v"] {
        assert!(bloom.may_contain(key), "{key}");
    }
}

/// A node's type, end offset and entries as (key, offset).
fn shape(n: &MetadataIndexNode) -> (NodeType, i64, Vec<(String, i64)>) {
    let entries = match &n.entries {
        NodeEntries::Device(v) => v.iter().map(|e| (e.device.to_string(), e.offset)).collect(),
        NodeEntries::Measurement(v) => v
            .iter()
            .map(|e| (e.measurement.clone(), e.offset))
            .collect(),
    };
    (n.node_type, n.end_offset, entries)
}

#[test]
fn index_tree_matches_section_10_example() {
    // §10's example: 6 devices × 20 INT64 series, fan-out 4; every series one chunk of a few
    // points, so every TimeseriesMetadata is 73 bytes as in the example's file. The index
    // region is then the example's, shifted by where our data section ends (the example's
    // separator is at 5514: its first TSM is at 5515).
    let names: Vec<String> = (0..20).map(|i| format!("s{i:03}")).collect();
    let mut w = TsFileWriter::new(Vec::new(), java().with_max_index_degree(4)).unwrap();
    for d in 0..6 {
        let path = format!("root.sg.d{d:03}");
        let ms = names
            .iter()
            .map(|n| {
                MeasurementSchema::new(n, DataType::Int64, Encoding::Ts2Diff, Compression::Lz4)
            })
            .collect();
        w.register_device(&path, false, ms).unwrap();
        for t in 0..3 {
            let values: Vec<(&str, Value)> = names
                .iter()
                .map(|n| (n.as_str(), Value::Int64(t)))
                .collect();
            let refs: Vec<_> = values.iter().map(|(n, v)| (*n, v.as_ref())).collect();
            w.write_record(&path, t, &refs).unwrap();
        }
    }
    let bytes = w.finish_into_inner().unwrap().0;
    let r = TsFileReader::open(bytes.clone()).unwrap();
    let m = r.metadata();
    let shift = m.meta_offset() as i64 - 5514;
    let at = |spec: i64| spec + shift;
    let keyed = |list: &[(&str, i64)]| -> Vec<(String, i64)> {
        list.iter().map(|&(k, o)| (k.to_string(), at(o))).collect()
    };
    let node = |start: i64, end: i64, device_level: bool| {
        let range = (at(start) as u64, at(end) as u64);
        shape(&m.read_node(&bytes[..], range, device_level).unwrap())
    };
    let d = |i: usize| format!("root.sg.d{i:03}");

    assert_eq!(m.footer_start() as i64, at(15153), "meta_pos = 15153");
    let root = m.footer().table_root("root.sg").unwrap();
    assert_eq!(
        shape(root),
        (
            NodeType::InternalDevice,
            at(15153),
            keyed(&[(&d(0), 15001), (&d(4), 15099)])
        )
    );
    let leaf_devices = [
        (
            15001,
            15099,
            14929,
            &[(d(0), 14785), (d(1), 14821), (d(2), 14857), (d(3), 14893)][..],
        ),
        (15099, 15153, 15001, &[(d(4), 14929), (d(5), 14965)][..]),
    ];
    for (start, end, end_offset, entries) in leaf_devices {
        let entries: Vec<(&str, i64)> = entries.iter().map(|(k, o)| (k.as_str(), *o)).collect();
        assert_eq!(
            node(start, end, true),
            (NodeType::LeafDevice, at(end_offset), keyed(&entries))
        );
    }
    // d000's measurement root and its two leaves, each leaf entry covering 4 TSMs.
    assert_eq!(
        node(14785, 14821, false),
        (
            NodeType::InternalMeasurement,
            at(7060),
            keyed(&[("s000", 6975), ("s016", 7037)])
        )
    );
    assert_eq!(
        node(6975, 7037, false),
        (
            NodeType::LeafMeasurement,
            at(6683),
            keyed(&[
                ("s000", 5515),
                ("s004", 5807),
                ("s008", 6099),
                ("s012", 6391)
            ])
        )
    );
    assert_eq!(
        node(7037, 7060, false),
        (
            NodeType::LeafMeasurement,
            at(6975),
            keyed(&[("s016", 6683)])
        )
    );
    // And every series is found through that tree.
    for i in 0..6 {
        let id = DeviceId::from_tree_path(&d(i)).unwrap();
        let series = m.timeseries(&bytes[..], &id).unwrap();
        let got: Vec<&str> = series.iter().map(|s| s.measurement_id.as_str()).collect();
        assert_eq!(got, names);
    }
}
