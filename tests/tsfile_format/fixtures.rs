//! Every fixture's footer and index against `raw.json` (the independent parser) and
//! `meta.jsonl` (the official library's per-series statistics), the Bloom filter bit for bit,
//! and the index writer reproducing each fixture's metadata section byte for byte.

use std::collections::BTreeSet;
use std::path::PathBuf;

use colfile::tsfile::format::{
    BloomFilter, DeviceId, NodeEntries, NodeType, StatValues, Statistics, TailBytes,
    TimeseriesMetadata,
};
use colfile::tsfile::writer::index::{write_index, IndexInput};
use colfile::tsfile::FileMetadata;
use colfile::Limits;
use serde_json::Value as Json;

pub struct Fixture {
    pub name: String,
    pub bytes: Vec<u8>,
    pub raw: Json,
    pub spec: Json,
    pub meta: Vec<Json>,
}

pub fn fixtures() -> Vec<Fixture> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/tsfile");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let n = e.unwrap().file_name().into_string().unwrap();
            n.strip_suffix(".tsfile").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert!(names.len() >= 30, "fixtures missing");
    names
        .into_iter()
        .map(|name| {
            let read =
                |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
            Fixture {
                bytes: std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap(),
                raw: serde_json::from_str(&read("raw.json")).unwrap(),
                spec: serde_json::from_str(&read("spec.json")).unwrap(),
                meta: read("meta.jsonl")
                    .lines()
                    .map(|l| serde_json::from_str(l).unwrap())
                    .collect(),
                name,
            }
        })
        .collect()
}

fn device(segs: &Json) -> DeviceId {
    let v = segs.as_array().unwrap();
    let segments = v
        .iter()
        .map(|s| s.as_str().map(str::to_owned))
        .collect::<Vec<_>>();
    // Read the wire form so trailing nulls stay as stored.
    let mut b = Vec::new();
    colfile::tsfile::format::varint::put_uvarint(&mut b, segments.len() as u32);
    for s in &segments {
        colfile::tsfile::format::varint::put_var_bytes(&mut b, s.as_deref().map(str::as_bytes))
            .unwrap();
    }
    DeviceId::read(&mut colfile::cursor::Cursor::new(&b, 0), 100).unwrap()
}

fn n(j: &Json) -> u64 {
    j.as_u64().unwrap()
}

/// Levels and node types of one table's index, walked through `read_node`.
#[derive(Default)]
struct Shape {
    device_levels: u64,
    measurement_levels_max: u64,
    types: BTreeSet<&'static str>,
}

fn walk(
    m: &FileMetadata,
    src: &[u8],
    range: (u64, u64),
    device_level: bool,
    depth: u64,
    shape: &mut Shape,
) {
    let node = m.read_node(src, range, device_level).unwrap();
    walk_node(m, src, &node, depth, shape);
}

fn walk_node(
    m: &FileMetadata,
    src: &[u8],
    node: &colfile::tsfile::format::MetadataIndexNode,
    depth: u64,
    shape: &mut Shape,
) {
    shape.types.insert(node.node_type.name());
    if node.node_type.is_device_level() {
        shape.device_levels = shape.device_levels.max(depth);
    } else {
        shape.measurement_levels_max = shape.measurement_levels_max.max(depth);
    }
    if node.node_type == NodeType::LeafMeasurement {
        return;
    }
    for i in 0..node.entries.len() {
        let (s, e) = node.child_range(i).unwrap();
        let r = (s as u64, e as u64);
        match node.node_type {
            NodeType::InternalDevice => walk(m, src, r, true, depth + 1, shape),
            NodeType::LeafDevice => walk(m, src, r, false, 1, shape),
            _ => walk(m, src, r, false, depth + 1, shape),
        }
    }
}

fn check_stat(f: &str, what: &str, s: &Statistics, j: &Json) {
    let ctx = format!("{f} {what}");
    assert_eq!(s.count as u64, n(&j["row_count"]), "{ctx} count");
    assert_eq!(
        s.start_time,
        j["start_time"].as_i64().unwrap(),
        "{ctx} start"
    );
    assert_eq!(s.end_time, j["end_time"].as_i64().unwrap(), "{ctx} end");
    let float = |k: &str| -> Option<f64> {
        let v = j.get(k)?;
        Some(match v.as_str() {
            Some("NaN") => f64::NAN,
            Some("Infinity") => f64::INFINITY,
            Some("-Infinity") => f64::NEG_INFINITY,
            _ => v.as_f64().unwrap(),
        })
    };
    let same = |a: f64, k: &str| {
        if let Some(b) = float(k) {
            assert!(
                a == b || (a.is_nan() && b.is_nan()),
                "{ctx} {k}: {a} vs {b}"
            );
        }
    };
    let int = |a: i64, k: &str| {
        if let Some(b) = j.get(k) {
            assert_eq!(a, b.as_i64().unwrap(), "{ctx} {k}");
        }
    };
    let text = |a: &[u8], k: &str| {
        if let Some(b) = j.get(k).and_then(Json::as_str) {
            assert_eq!(String::from_utf8_lossy(a), b, "{ctx} {k}");
        }
    };
    match &s.values {
        StatValues::Boolean { first, last, sum } => {
            assert_eq!(Some(*first), j["first_bool"].as_bool(), "{ctx}");
            assert_eq!(Some(*last), j["last_bool"].as_bool(), "{ctx}");
            same(*sum as f64, "sum");
        }
        StatValues::Int32(v) => {
            for (a, k) in [
                (v.min, "min_int64"),
                (v.max, "max_int64"),
                (v.first, "first_int64"),
                (v.last, "last_int64"),
            ] {
                int(a as i64, k);
            }
            same(v.sum as f64, "sum");
        }
        StatValues::Int64(v) => {
            for (a, k) in [
                (v.min, "min_int64"),
                (v.max, "max_int64"),
                (v.first, "first_int64"),
                (v.last, "last_int64"),
            ] {
                int(a, k);
            }
            same(v.sum, "sum");
        }
        StatValues::Float(v) => {
            for (a, k) in [
                (v.min, "min_float64"),
                (v.max, "max_float64"),
                (v.first, "first_float64"),
                (v.last, "last_float64"),
            ] {
                same(a as f64, k);
            }
            same(v.sum, "sum");
        }
        StatValues::Double(v) => {
            for (a, k) in [
                (v.min, "min_float64"),
                (v.max, "max_float64"),
                (v.first, "first_float64"),
                (v.last, "last_float64"),
                (v.sum, "sum"),
            ] {
                same(a, k);
            }
        }
        StatValues::Text { first, last } => {
            text(first, "str_first");
            text(last, "str_last");
        }
        StatValues::String {
            first,
            last,
            min,
            max,
        } => {
            text(first, "str_first");
            text(last, "str_last");
            text(min, "str_min");
            text(max, "str_max");
        }
        StatValues::None => {}
    }
}

#[test]
fn footers_and_indexes_match_the_independent_parser() {
    for f in fixtures() {
        let name = f.name.as_str();
        let src = f.bytes.as_slice();
        let m =
            FileMetadata::read(src, &Limits::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let raw = &f.raw;
        let meta = &raw["meta"];
        assert_eq!(m.meta_offset(), n(&meta["meta_offset"]), "{name}");
        assert_eq!(m.meta_offset(), n(&raw["separator_offset"]), "{name}");
        assert_eq!(m.footer_start(), n(&raw["meta_start"]), "{name}");
        assert_eq!(
            m.file_len() - m.footer_start() - 10,
            n(&raw["meta_size"]),
            "{name}"
        );
        // Tables and their inline roots.
        let roots = meta["index_roots"].as_object().unwrap();
        assert_eq!(
            m.tables().collect::<Vec<_>>(),
            roots.keys().map(String::as_str).collect::<Vec<_>>(),
            "{name}"
        );
        for (t, root) in &m.footer().table_roots {
            let r = &roots[t];
            assert_eq!(root.node_type.name(), r["type"], "{name} {t}");
            assert_eq!(root.node_type.code() as u64, n(&r["raw_type"]));
            assert_eq!(root.end_offset as u64, n(&r["end_offset"]));
            let NodeEntries::Device(es) = &root.entries else {
                panic!()
            };
            let want = r["entries"].as_array().unwrap();
            assert_eq!(es.len(), want.len(), "{name} {t}");
            for (e, w) in es.iter().zip(want) {
                assert_eq!(e.device, device(&w[0]), "{name} {t}");
                assert_eq!(e.offset as u64, n(&w[1]));
            }
        }
        // Schemas.
        let schemas = meta["table_schemas"].as_object().unwrap();
        assert_eq!(m.footer().schemas.len(), schemas.len(), "{name}");
        for (t, cols) in schemas {
            let s = m
                .table_schema(t)
                .unwrap_or_else(|| panic!("{name}: no schema {t}"));
            let cols = cols.as_array().unwrap();
            assert_eq!(s.columns.len(), cols.len(), "{name} {t}");
            for (c, w) in s.columns.iter().zip(cols) {
                assert_eq!(c.schema.name, w["name"].as_str().unwrap(), "{name} {t}");
                assert_eq!(c.schema.data_type.name(), w["type"]);
                assert_eq!(c.schema.encoding.name(), w["encoding"]);
                assert_eq!(c.schema.compression.name(), w["compression"]);
                assert_eq!(
                    c.category.name(),
                    w["category"],
                    "{name} {t} {}",
                    c.schema.name
                );
            }
        }
        // Bloom filter sizes.
        let bloom = m.footer().bloom.as_ref().unwrap();
        assert_eq!(
            bloom.bytes().len() as u64,
            n(&meta["bloom_filter"]["bytes"]),
            "{name}"
        );
        assert_eq!(
            bloom.bit_count() as u64,
            n(&meta["bloom_filter"]["size"]),
            "{name}"
        );
        assert_eq!(
            bloom.hash_count() as u64,
            n(&meta["bloom_filter"]["hash_functions"]),
            "{name}"
        );
        // Properties (as a map: the C++ order is unordered_map's).
        let props = meta["properties"].as_object().unwrap();
        assert_eq!(m.properties().len(), props.len(), "{name}");
        for (k, v) in m.properties() {
            let want = &props[k];
            match v {
                None => assert!(want.is_null(), "{name} {k}"),
                Some(b) => {
                    if let Ok(s) = std::str::from_utf8(b) {
                        assert_eq!(want.as_str(), Some(s), "{name} {k}");
                    }
                }
            }
        }
        // Devices, series and the shape of each table's index.
        for (t, idx) in raw["index"].as_object().unwrap() {
            let devices = m.devices(src, t).unwrap();
            assert_eq!(devices.len() as u64, n(&idx["device_count"]), "{name} {t}");
            let listed = idx["devices"].as_array().unwrap();
            let cut = listed
                .iter()
                .position(|d| d.is_string())
                .unwrap_or(listed.len());
            for (d, w) in devices.iter().zip(&listed[..cut]) {
                assert_eq!(*d, device(w), "{name}");
            }
            for (d, w) in devices
                .iter()
                .rev()
                .zip(listed[cut..].iter().rev().take_while(|d| !d.is_string()))
            {
                assert_eq!(*d, device(w), "{name}");
            }
            let (mut series, mut refs, mut max_chunks) = (0u64, 0u64, 0u64);
            for d in &devices {
                let all = m.timeseries(src, d).unwrap();
                series += all.len() as u64;
                for s in &all {
                    refs += s.chunks.len() as u64;
                    max_chunks = max_chunks.max(s.chunks.len() as u64);
                    assert_eq!(s.is_multi_chunk(), s.chunks.len() > 1, "{name}");
                    let found = m.find_timeseries(src, d, &s.measurement_id).unwrap();
                    let bytes = |t: &TimeseriesMetadata| {
                        let mut b = Vec::new();
                        t.write_to(&mut b).unwrap();
                        b
                    };
                    assert_eq!(
                        found.as_ref().map(bytes),
                        Some(bytes(s)),
                        "{name} {d}.{}",
                        s.measurement_id
                    );
                }
                assert!(m
                    .find_timeseries(src, d, "no_such_measurement")
                    .unwrap()
                    .is_none());
            }
            assert_eq!(series, n(&idx["series"]), "{name} {t}");
            assert_eq!(refs, n(&idx["total_chunk_refs"]), "{name} {t}");
            assert_eq!(max_chunks, n(&idx["max_chunks_per_series"]), "{name} {t}");
            let mut shape = Shape::default();
            let root = m.footer().table_roots.iter().find(|(x, _)| x == t).unwrap();
            walk_node(&m, src, &root.1, 1, &mut shape);
            assert_eq!(shape.device_levels, n(&idx["device_levels"]), "{name} {t}");
            assert_eq!(
                shape.measurement_levels_max,
                n(&idx["measurement_levels_max"]),
                "{name} {t}"
            );
            let want: BTreeSet<&str> = idx["node_types_seen"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert_eq!(shape.types, want, "{name} {t}");
        }
    }
}

#[test]
fn series_statistics_match_the_official_library() {
    let mut checked = 0;
    for f in fixtures() {
        let src = f.bytes.as_slice();
        let m = FileMetadata::read(src, &Limits::default()).unwrap();
        for line in &f.meta {
            let d = device(&line["segments"]);
            let meas = line["measurement"].as_str().unwrap();
            let s = m
                .find_timeseries(src, &d, meas)
                .unwrap()
                .unwrap_or_else(|| panic!("{}: {d}.{meas} not found", f.name));
            assert_eq!(s.data_type.name(), line["type"], "{} {d}.{meas}", f.name);
            assert_eq!(
                s.chunks.len() as u64,
                n(&line["chunks"]),
                "{} {d}.{meas}",
                f.name
            );
            check_stat(
                &f.name,
                &format!("{d}.{meas}"),
                &s.statistics,
                &line["stat"],
            );
            checked += 1;
        }
    }
    assert!(checked > 2000);
}

/// Every series of a file, devices in index order.
fn all_series(m: &FileMetadata, src: &[u8]) -> Vec<(DeviceId, Vec<TimeseriesMetadata>)> {
    let devices = m.all_devices(src).unwrap();
    devices
        .into_iter()
        .map(|d| {
            let s = m.timeseries(src, &d).unwrap();
            (d, s)
        })
        .collect()
}

#[test]
fn bloom_filters_rebuild_bit_for_bit() {
    for f in fixtures() {
        let src = f.bytes.as_slice();
        let m = FileMetadata::read(src, &Limits::default()).unwrap();
        let stored = m.footer().bloom.as_ref().unwrap();
        // The fixtures come from the C++ writer, which hashes tail bytes unsigned.
        let mut b = BloomFilter::new(stored.bit_count(), stored.hash_count());
        let mut java = b.clone();
        let mut ascii = true;
        let (mut n_series, mut multi) = (0, false);
        for (d, series) in all_series(&m, src) {
            for s in series {
                multi |= s.chunks.len() > 1;
                let key = format!("{d}.{}", s.measurement_id);
                b.add_hashed(&key, TailBytes::Cpp);
                java.add(&key);
                ascii &= key.is_ascii();
                assert!(stored.may_contain(&key), "{}: {key}", f.name);
                n_series += 1;
            }
        }
        assert_eq!(b.bytes(), stored.bytes(), "{}", f.name);
        assert_eq!(ascii, java == b, "{}", f.name);
        // C++ sizes by distinct consecutive names, Java by chunk count: close to n series.
        let m_for_series = BloomFilter::with_capacity(n_series, 0.05).bit_count();
        assert!(
            multi || m_for_series.abs_diff(stored.bit_count()) <= 16,
            "{}",
            f.name
        );
    }
}

#[test]
fn index_writer_reproduces_every_metadata_section() {
    let mut deep = false;
    for f in fixtures() {
        let src = f.bytes.as_slice();
        let m = FileMetadata::read(src, &Limits::default()).unwrap();
        let devices = all_series(&m, src);
        let degree = f.spec["config"]["max_index_degree"].as_u64().unwrap_or(256) as usize;
        deep |= degree == 4;
        let bits = m.footer().bloom.as_ref().unwrap().bit_count();
        let bloom_n = (0..1 << 20)
            .find(|&n| BloomFilter::with_capacity(n, 0.05).bit_count() == bits)
            .unwrap();
        let mut out = Vec::new();
        let summary = write_index(
            &mut out,
            m.meta_offset(),
            &IndexInput {
                devices: &devices,
                schemas: &m.footer().schemas,
                properties: m.properties(),
                max_degree: degree,
                bloom_error_rate: 0.05,
                bloom_n: bloom_n as usize,
                bloom_hash: TailBytes::Cpp,
            },
        )
        .unwrap();
        let original = &src[m.meta_offset() as usize..];
        assert!(
            out == original,
            "{}: metadata section differs (first at byte {:?})",
            f.name,
            out.iter()
                .zip(original)
                .position(|(a, b)| a != b)
                .map(|p| p as u64 + m.meta_offset())
        );
        assert_eq!(summary.file_len, m.file_len());
        assert_eq!(summary.footer_offset, m.footer_start());
    }
    assert!(deep);
}
