//! `verify`: every fixture verifies clean, and each kind of damage gives its own located
//! problem.

use super::*;

/// Columns whose statistics (written by C++ from the values it encoded) disagree with the
/// values Java's SPRINTZ INT64 decoding gives, which we follow (see tests/tsfile_fixtures.rs).
const SPRINTZ_INT64: &[(&str, &str)] = &[("enc_sprintz", "v_int64"), ("tree_encodings", "v_int64")];

#[test]
fn every_fixture_verifies_clean() {
    for name in ts_fixture_names() {
        let r = verify(&fixture(&name)[..], &VerifyOptions::default()).unwrap();
        match SPRINTZ_INT64.iter().find(|(f, _)| *f == name) {
            None => assert!(r.is_ok(), "{name}: {:?}", r.problems),
            Some((_, col)) => {
                assert!(!r.problems.is_empty(), "{name}");
                for p in &r.problems {
                    let stat = matches!(
                        p.check,
                        Check::PageStatistics | Check::ChunkStatistics | Check::SeriesStatistics
                    );
                    assert!(
                        stat && p.measurement.as_deref() == Some(*col),
                        "{name}: {p}"
                    );
                }
            }
        }
    }
    for bytes in [table_file(), tree_file()] {
        let r = verify(&bytes, &VerifyOptions::default()).unwrap();
        assert!(r.is_ok(), "{:?}", r.problems);
    }
}

/// Rewrites the metadata section of `bytes` after `edit` changes the series of each device.
fn rewrite_index(
    bytes: &[u8],
    edit: impl FnOnce(&mut Vec<(DeviceId, Vec<TimeseriesMetadata>)>),
) -> Vec<u8> {
    let meta = FileMetadata::read(bytes, &Limits::default()).unwrap();
    let mut devices: Vec<(DeviceId, Vec<TimeseriesMetadata>)> = meta
        .all_devices(bytes)
        .unwrap()
        .into_iter()
        .map(|d| {
            let s = meta.timeseries(bytes, &d).unwrap();
            (d, s)
        })
        .collect();
    edit(&mut devices);
    let n = devices
        .iter()
        .flat_map(|(_, s)| s)
        .map(|s| s.chunks.len())
        .sum();
    let mut out = bytes[..meta.meta_offset() as usize].to_vec();
    let input = IndexInput {
        devices: &devices,
        schemas: &meta.footer().schemas,
        properties: meta.properties(),
        max_degree: 256,
        bloom_error_rate: 0.05,
        bloom_n: n,
        bloom_hash: TailBytes::Java,
    };
    write_index(&mut out, meta.meta_offset(), &input).unwrap();
    out
}

fn problems(bytes: &[u8]) -> Vec<Problem> {
    verify(bytes, &VerifyOptions::default()).unwrap().problems
}

fn only(bytes: &[u8], check: Check) -> Problem {
    let ps = problems(bytes);
    assert_eq!(ps.len(), 1, "{ps:?}");
    assert_eq!(ps[0].check, check, "{}", ps[0]);
    ps[0].clone()
}

/// Finds the series `device.measurement` in `devices`.
fn series<'a>(
    devices: &'a mut [(DeviceId, Vec<TimeseriesMetadata>)],
    device: &str,
    m: &str,
) -> &'a mut TimeseriesMetadata {
    let (_, s) = devices
        .iter_mut()
        .find(|(d, _)| d.to_string() == device)
        .unwrap();
    s.iter_mut().find(|t| t.measurement_id == m).unwrap()
}

#[test]
fn verify_locates_each_kind_of_damage() {
    let good = table_file();
    assert!(
        problems(&rewrite_index(&good, |_| {})).is_empty(),
        "rewriting alone damages nothing"
    );
    let dev = "plant.east.u1";

    // A series statistic (the file's series have several chunks: flip the series' own).
    let bad = rewrite_index(&good, |d| series(d, dev, "n").statistics.count += 1);
    let p = only(&bad, Check::SeriesStatistics);
    assert_eq!(
        (p.device.as_deref(), p.measurement.as_deref()),
        (Some(dev), Some("n"))
    );
    assert!(
        p.offset.is_some() && p.message.contains("series statistics differ"),
        "{p}"
    );

    // A chunk statistic in the index.
    let mut chunk_at = 0;
    let bad = rewrite_index(&good, |d| {
        let s = series(d, dev, "kw");
        chunk_at = s.chunks[1].offset_of_chunk_header as u64;
        s.chunks[1].statistics.as_mut().unwrap().end_time += 1;
        s.statistics.end_time = s
            .statistics
            .end_time
            .max(s.chunks[1].statistics.as_ref().unwrap().end_time);
    });
    let p = only(&bad, Check::ChunkStatistics);
    assert_eq!(
        (p.chunk, p.measurement.as_deref()),
        (Some(chunk_at), Some("kw")),
        "{p}"
    );

    // Index order: two measurements swapped.
    let bad = rewrite_index(&good, |d| {
        let (_, s) = d.iter_mut().find(|(x, _)| x.to_string() == dev).unwrap();
        s.swap(1, 2);
    });
    let ps = problems(&bad);
    assert!(
        !ps.is_empty() && ps.iter().all(|p| p.check == Check::IndexOrder),
        "{ps:?}"
    );
    assert_eq!(ps[0].device.as_deref(), Some(dev));

    // A wrong chunk offset: the index points one byte past a chunk, and that chunk is
    // left unindexed.
    let mut wrong = 0;
    let bad = rewrite_index(&good, |d| {
        let c = &mut series(d, dev, "on").chunks[0];
        c.offset_of_chunk_header += 1;
        wrong = c.offset_of_chunk_header as u64;
    });
    let ps = problems(&bad);
    let checks: Vec<Check> = ps.iter().map(|p| p.check).collect();
    assert_eq!(checks, [Check::IndexOffset, Check::Unindexed], "{ps:?}");
    assert_eq!(
        (ps[0].chunk, ps[0].measurement.as_deref()),
        (Some(wrong), Some("on"))
    );
    assert_eq!(ps[1].chunk, Some(wrong - 1));

    // A page statistic in a multi-page chunk's page header: bump its start time.
    let data = scan_data(&good[..], &Limits::default()).unwrap();
    let (chunk, page) = data
        .groups
        .iter()
        .flat_map(|g| &g.chunks)
        .filter(|c| c.header.measurement_id == "n")
        .find_map(|c| c.pages.get(1).map(|p| (c.offset, p.clone())))
        .unwrap();
    let stats_at = page.data_offset as usize - page_stats_len(&page.header);
    let mut bad = good.clone();
    bad[stats_at + 1 + 7] ^= 1; // low byte of start_time (count is one varint byte)
    let p = only(&bad, Check::PageStatistics);
    assert_eq!(
        (p.chunk, p.page, p.measurement.as_deref()),
        (Some(chunk), Some(1), Some("n")),
        "{p}"
    );

    // Bad page bytes in an LZ4 page: it no longer decompresses.
    let (chunk, page) = data
        .groups
        .iter()
        .flat_map(|g| &g.chunks)
        .filter(|c| c.header.compression == Compression::Lz4 && c.header.measurement_id == "kw")
        .find_map(|c| c.pages.get(2).map(|p| (c.offset, p.clone())))
        .unwrap();
    let mut bad = good.clone();
    bad[page.data_offset as usize..page.end() as usize].fill(0xff);
    let ps = problems(&bad);
    assert_eq!(ps[0].check, Check::PageData, "{ps:?}");
    assert_eq!(
        (ps[0].chunk, ps[0].page),
        (Some(chunk), Some(2)),
        "{}",
        ps[0]
    );
    assert!(ps[0].offset.is_some());

    // A Bloom filter that admits nothing of the file.
    let meta = FileMetadata::read(&good[..], &Limits::default()).unwrap();
    let mut footer = meta.footer().clone();
    let mut bloom = colfile::tsfile::format::BloomFilter::new(4096, 5);
    bloom.add("no.such.series");
    footer.bloom = Some(bloom);
    let mut bad = good[..meta.footer_start() as usize].to_vec();
    let start = bad.len();
    footer.write_to(&mut bad).unwrap();
    let l = (bad.len() - start) as u32;
    bad.extend_from_slice(&l.to_be_bytes());
    bad.extend_from_slice(b"TsFile");
    let ps = problems(&bad);
    assert!(
        !ps.is_empty() && ps.iter().all(|p| p.check == Check::BloomFilter),
        "{ps:?}"
    );
    assert!(ps[0].device.is_some() && ps[0].measurement.is_some());

    // A cut file: no footer, and the data section ends early.
    let ps = problems(&good[..good.len() / 2]);
    assert_eq!(
        ps.iter().map(|p| p.check).collect::<Vec<_>>(),
        [Check::Footer, Check::Structure]
    );
    assert!(ps[1].offset.is_some());
}

/// Bytes of a page header's statistics: everything between the two size varints and the payload.
fn page_stats_len(h: &colfile::tsfile::format::PageHeader) -> usize {
    let mut b = Vec::new();
    h.statistics.as_ref().unwrap().write_to(&mut b).unwrap();
    b.len()
}

/// Every single-byte corruption of a small file, and every truncation: the tools report
/// problems or errors but never panic, and whatever `recover` writes verifies clean.
#[test]
fn damaged_bytes_never_panic() {
    let good = fixture("basic");
    let mut inputs: Vec<Vec<u8>> = (7..good.len())
        .step_by(2)
        .map(|n| good[..n].to_vec())
        .collect();
    for i in 0..good.len() {
        for x in [0x01u8, 0xff] {
            let mut b = good.clone();
            b[i] ^= x;
            inputs.push(b);
        }
    }
    for b in inputs {
        let r = verify(&b, &VerifyOptions::default()).unwrap();
        let _ = r.summary();
        if let Ok(s) = sketch(&b[..], &Limits::default()) {
            let _ = (s.to_text(), s.to_json());
        }
        let mut out = Vec::new();
        if recover(&b[..], &mut out).is_ok() {
            let r = verify(&out, &VerifyOptions::default()).unwrap();
            assert!(r.is_ok(), "{:?}", r.problems);
        }
    }
}

/// A table-model file of our writer with index fan-out 4: 260 devices of 20 fields (21
/// series with the time column), so both levels have internal nodes (several levels of
/// INTERNAL_DEVICE; each device an INTERNAL_MEASUREMENT root over 2 LEAF_MEASUREMENT nodes).
fn deep_index_file() -> Vec<u8> {
    let mut opts = WriterOptions::default();
    opts.max_index_degree = 4;
    let mut w = TsFileWriter::new(Vec::new(), opts).unwrap();
    let mut cols = vec![TableColumn::new(
        "dev",
        DataType::String,
        ColumnCategory::Tag,
    )];
    cols.extend(
        (0..20)
            .map(|m| TableColumn::new(&format!("m{m:02}"), DataType::Int64, ColumnCategory::Field)),
    );
    w.register_table(TableSchema::new("deep", cols)).unwrap();
    for d in 0..260i64 {
        let mut row = vec![Value::string(&format!("dev{d:03}"))];
        row.extend((0..20).map(|m| Value::Int64(d * 100 + m)));
        w.write_row("deep", d, &row).unwrap();
    }
    w.finish_into_inner().unwrap().0
}

/// Replaces the key `old` of the index entry at byte `at` by `new` (same length).
fn alter_key(bytes: &[u8], at: u64, old: &str, new: &str) -> Vec<u8> {
    assert_eq!(old.len(), new.len());
    let at = at as usize;
    let window = &bytes[at..at + 32];
    let k = window
        .windows(old.len())
        .position(|w| w == old.as_bytes())
        .unwrap_or_else(|| panic!("{old:?} not at byte {at}"));
    let mut out = bytes.to_vec();
    out[at + k..at + k + new.len()].copy_from_slice(new.as_bytes());
    out
}

#[test]
fn verify_checks_every_index_entry_key() {
    use colfile::tsfile::format::{NodeEntries, NodeType};
    use colfile::tsfile::tools::layout::index_layout;

    let good = deep_index_file();
    assert!(problems(&good).is_empty(), "{:?}", problems(&good));
    let meta = FileMetadata::read(&good[..], &Limits::default()).unwrap();
    let index = index_layout(&good[..], &meta).unwrap();
    assert_eq!(index.series.len(), 260 * 21);
    let stored = |t: NodeType| {
        (index.nodes.iter())
            .filter(move |n| n.node.node_type == t && n.range.is_some())
            .map(|n| (n.range.unwrap().0, &n.node))
    };
    let depth = index.nodes.iter().map(|n| n.depth).max().unwrap();
    assert!(
        depth >= 5,
        "device and measurement levels both internal: {depth}"
    );
    assert!(stored(NodeType::InternalDevice).count() > 1);

    // A device-level key: the second entry of a stored INTERNAL_DEVICE node, moved down by
    // one device (order is kept, but the child starts with the old key).
    let (at, node) = stored(NodeType::InternalDevice).next().unwrap();
    let NodeEntries::Device(v) = &node.entries else {
        unreachable!()
    };
    let entry_at = node.entry_offsets(at)[1];
    let old = v[1].device.segment(1).unwrap().to_owned();
    let n: u32 = old[3..].parse().unwrap();
    let new = format!("dev{:03}", n - 1);
    let bad = alter_key(&good, entry_at, &old, &new);
    let p = only(&bad, Check::IndexOrder);
    assert_eq!(p.offset, Some(entry_at), "{p}");
    assert_eq!(p.device.as_deref(), Some(format!("deep.{new}").as_str()));
    let want = format!(
        "entry 1 (device deep.{new}) of the INTERNAL_DEVICE node at byte {at} of table deep: \
         the child node at byte "
    );
    assert!(
        p.message.starts_with(&want)
            && p.message
                .ends_with(&format!("starts with device deep.{old}")),
        "{p}"
    );

    // A measurement-level key of an INTERNAL_MEASUREMENT node: entries "" and "m15".
    let (at, node) = stored(NodeType::InternalMeasurement).next().unwrap();
    let NodeEntries::Measurement(v) = &node.entries else {
        unreachable!()
    };
    assert_eq!(v[1].measurement, "m15");
    let entry_at = node.entry_offsets(at)[1];
    let p = only(&alter_key(&good, entry_at, "m15", "m14"), Check::IndexOrder);
    assert_eq!(
        (p.offset, p.device.as_deref()),
        (Some(entry_at), Some("deep.dev000")),
        "{p}"
    );
    assert!(
        p.message
            .contains("entry 1 (\"m14\") of the INTERNAL_MEASUREMENT node")
            && p.message.ends_with("starts with \"m15\""),
        "{p}"
    );

    // A LEAF_MEASUREMENT key: entries "", "m03", "m07", "m11" each start a run of 4 series.
    let (at, node) = stored(NodeType::LeafMeasurement).next().unwrap();
    let entry_at = node.entry_offsets(at)[2];
    let p = only(&alter_key(&good, entry_at, "m07", "m06"), Check::IndexOrder);
    assert_eq!(
        (p.offset, p.measurement.as_deref()),
        (Some(entry_at), Some("m07")),
        "{p}"
    );
    assert!(
        p.message
            .contains("entry 2 (\"m06\") of the LEAF_MEASUREMENT node at byte")
            && p.message.contains("TimeseriesMetadata run it points at"),
        "{p}"
    );

    // Keys out of order within a node: "m03" -> "m12", after "m11".
    let entry_at = node.entry_offsets(at)[1];
    let ps = problems(&alter_key(&good, entry_at, "m03", "m12"));
    assert!(
        ps.iter().any(|p| p.check == Check::IndexOrder
            && p.offset == Some(node.entry_offsets(at)[2])
            && p.message
                .contains("is not after the entry before it (\"m12\")")),
        "{ps:?}"
    );

    // Child offsets that do not increase: entry 1 of a node pointing at entry 0's child.
    let (at, node) = stored(NodeType::InternalDevice).next().unwrap();
    let offsets = node.entry_offsets(at);
    let off_at = offsets[2] as usize - 8; // entry 1's offset is the 8 bytes before entry 2
    let mut bad = good.clone();
    bad[off_at..off_at + 8].copy_from_slice(&node.entries.offset(0).unwrap().to_be_bytes());
    let p = only(&bad, Check::IndexOffset);
    assert_eq!(p.offset, Some(at), "{p}");
    assert!(
        p.message.contains(&format!(
            "entry 0 of the INTERNAL_DEVICE node at byte {at} of table deep: child offset"
        )) && p.message.contains("is not before the next entry's offset"),
        "{p}"
    );
}
