//! IoTDB deletions applied by the reader: a file with `.mods` (text, with file offsets) and
//! `.mods2` (binary) beside it reads, through `TsFileReader::open_path`, exactly as a
//! point-by-point model of `docs/design/tsfile-v3-and-mods.md` §3.3 says — for non-aligned
//! and aligned devices, multi-chunk and multi-page series, v4 and v3 files. With
//! `with_mods(false)` every stored point comes back; chunks a deletion covers are skipped
//! unread; no statistic of a touched chunk decides a filter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use colfile::tsfile::mods::{binary, text, Deletion, Modifications, PathPattern};
use colfile::tsfile::read::explain::Reason;
use colfile::tsfile::{
    Compression, DataType, Encoding, Filter, MeasurementSchema, Query, TsFileReader, TsFileWriter,
    ValueRef, WriterOptions,
};
use proptest::prelude::*;

#[path = "tsfile_v3/gen.rs"]
mod gen;

const DEVICES: [&str; 2] = ["root.sg.d1", "root.sg.a1"];
const SERIES: [&str; 3] = ["s1", "s2", "s3"];

/// A fresh file path under the system temp dir.
fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-mods-read-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Per device, rows `(time, [s1, s2, s3])`.
type Rows = BTreeMap<String, Vec<(i64, Vec<Option<i64>>)>>;

/// One record per device and time; `flush_every` records make a chunk group, pages hold 3
/// points. `root.sg.a1` is aligned.
fn write_file(records: &[(usize, i64, [Option<i64>; 3])], flush_every: usize) -> Vec<u8> {
    let mut options = WriterOptions::default();
    options.page_max_points = 3;
    let mut w = TsFileWriter::new(Vec::new(), options).unwrap();
    let m = |n: &str| {
        MeasurementSchema::new(
            n,
            DataType::Int64,
            Encoding::Plain,
            Compression::Uncompressed,
        )
    };
    for d in DEVICES {
        w.register_device(d, d.contains(".a"), SERIES.iter().map(|s| m(s)).collect())
            .unwrap();
    }
    for (i, (dev, t, vals)) in records.iter().enumerate() {
        let row: Vec<(&str, ValueRef)> = SERIES
            .iter()
            .zip(vals)
            .filter_map(|(s, v)| v.map(|v| (*s, ValueRef::Int64(v))))
            .collect();
        if !row.is_empty() {
            w.write_record(DEVICES[*dev], *t, &row).unwrap();
        }
        if (i + 1) % flush_every == 0 {
            w.flush().unwrap();
        }
    }
    w.finish_into_inner().unwrap().0
}

/// Every row of every device, columns in `SERIES` order.
fn read_rows<S: colfile::source::ByteSource>(r: &TsFileReader<S>, q: &Query) -> Rows {
    let mut out = Rows::new();
    for b in r.query(q).unwrap() {
        let b = b.unwrap();
        let mut cols: Vec<_> = SERIES
            .iter()
            .map(|s| b.columns.iter().find(|c| c.name == *s).map(|c| c.cursor()))
            .collect();
        let rows = out.entry(b.device.to_string()).or_default();
        for &t in &b.times {
            let vals = cols
                .iter_mut()
                .map(|c| match c.as_mut().map(|c| c.next_value()) {
                    Some(ValueRef::Int64(v)) => Some(v),
                    _ => None,
                })
                .collect();
            rows.push((t, vals));
        }
    }
    out.retain(|_, r| !r.is_empty());
    out
}

/// Each series' chunks: (header offset, first time, last time), from the index.
fn chunks(bytes: &[u8], device: &str) -> BTreeMap<String, Vec<(u64, i64, i64)>> {
    let r = TsFileReader::open(bytes.to_vec()).unwrap();
    let id = r
        .metadata()
        .all_devices(&bytes.to_vec())
        .unwrap()
        .into_iter()
        .find(|d| d.to_string() == device);
    let Some(id) = id else { return BTreeMap::new() };
    let series = r.metadata().timeseries(&bytes.to_vec(), &id).unwrap();
    series
        .into_iter()
        .map(|s| {
            let list = s
                .chunks
                .iter()
                .map(|c| {
                    let st = c.statistics.as_ref().unwrap_or(&s.statistics);
                    (c.offset_of_chunk_header as u64, st.start_time, st.end_time)
                })
                .collect();
            (s.measurement_id, list)
        })
        .collect()
}

/// The model: is `(device, measurement, t)` in the chunk at `offset` deleted?
fn deleted(dels: &[Deletion], device: &str, m: &str, offset: u64, t: i64) -> bool {
    let mut nodes: Vec<String> = device.split('.').map(String::from).collect();
    nodes.push(m.to_string());
    dels.iter().any(|d| {
        let colfile::tsfile::mods::Target::Tree(p) = &d.target else {
            return false;
        };
        p.matches_nodes(&nodes)
            && d.start <= t
            && t <= d.end
            && d.file_offset.is_none_or(|o| o > offset as i64)
    })
}

/// What a reader applying `dels` must return, from the raw rows and the chunk layout.
fn expected(raw: &Rows, bytes: &[u8], dels: &[Deletion]) -> Rows {
    let mut out = Rows::new();
    for (dev, rows) in raw {
        let layout = chunks(bytes, dev);
        let containing = |m: &str, t: i64| {
            let list = layout.get(m)?;
            list.iter().position(|&(_, a, b)| a <= t && t <= b)
        };
        let aligned = layout.contains_key("");
        let mut kept = Vec::new();
        for (t, vals) in rows {
            let t = *t;
            if aligned {
                let i = containing("", t).expect("a row's time is in a time chunk");
                let off = |m: &str| layout.get(m).and_then(|l| l.get(i)).map(|c| c.0);
                if deleted(dels, dev, "", off("").unwrap(), t) {
                    continue;
                }
                let values: Vec<&String> = layout.keys().filter(|k| !k.is_empty()).collect();
                let every = values.iter().all(|m| match off(m) {
                    Some(o) => deleted(dels, dev, m, o, t),
                    None => true,
                });
                if !values.is_empty() && every {
                    continue;
                }
                let vals = SERIES
                    .iter()
                    .zip(vals)
                    .map(|(m, v)| {
                        v.filter(|_| !off(m).is_some_and(|o| deleted(dels, dev, m, o, t)))
                    })
                    .collect();
                kept.push((t, vals));
            } else {
                let vals: Vec<Option<i64>> = SERIES
                    .iter()
                    .zip(vals)
                    .map(|(m, v)| {
                        v.filter(|_| {
                            let i = containing(m, t).expect("a point is in a chunk");
                            !deleted(dels, dev, m, layout[*m][i].0, t)
                        })
                    })
                    .collect();
                if vals.iter().any(Option::is_some) {
                    kept.push((t, vals));
                }
            }
        }
        if !kept.is_empty() {
            out.insert(dev.clone(), kept);
        }
    }
    out
}

/// Writes `bytes` with `.mods` (deletions with offsets) and `.mods2` (the others) beside it.
fn put(name: &str, bytes: &[u8], dels: &[Deletion]) -> PathBuf {
    let path = temp(name);
    std::fs::write(&path, bytes).unwrap();
    let (with, without): (Vec<Deletion>, Vec<Deletion>) =
        dels.iter().cloned().partition(|d| d.file_offset.is_some());
    let side = |ext: &str| PathBuf::from(format!("{}{ext}", path.display()));
    let _ = std::fs::remove_file(side(".mods"));
    let _ = std::fs::remove_file(side(".mods2"));
    if !with.is_empty() {
        std::fs::write(side(".mods"), text::write(&with).unwrap()).unwrap();
    }
    if !without.is_empty() {
        std::fs::write(side(".mods2"), binary::write(&without).unwrap()).unwrap();
    }
    path
}

fn cleanup(path: &Path) {
    for ext in ["", ".mods", ".mods2"] {
        let _ = std::fs::remove_file(format!("{}{ext}", path.display()));
    }
}

const PATTERNS: [&str; 12] = [
    "root.sg.d1.s1",
    "root.sg.a1.s*", // every value column, not the time column
    "root.sg.a1.s3",
    "root.sg.a1.s1",
    "root.sg.a1.s2",
    "root.sg.*.s2",
    "root.sg.a1.*",
    "root.sg.d*.s3",
    "root.**",
    "root.sg.a1.**",
    "root.sg.d1.**.s1",
    "root.sg.x.*",
];

fn records() -> impl Strategy<Value = Vec<(usize, i64, [Option<i64>; 3])>> {
    let vals = prop::array::uniform3(prop::option::weighted(0.8, -50i64..50));
    (1usize..60).prop_flat_map(move |n| {
        prop::collection::vec((0usize..2, vals.clone()), n).prop_map(|v| {
            v.into_iter()
                .enumerate()
                .map(|(i, (d, x))| (d, i as i64 * 2, x))
                .collect()
        })
    })
}

fn deletions() -> impl Strategy<Value = Vec<(usize, i64, i64, Option<u8>)>> {
    let one = (
        0..PATTERNS.len(),
        -5i64..125,
        0i64..60,
        prop::option::of(0u8..=100),
    );
    prop::collection::vec(one.prop_map(|(p, s, len, off)| (p, s, s + len, off)), 0..5)
}

fn make(spec: &[(usize, i64, i64, Option<u8>)], file_len: usize) -> Vec<Deletion> {
    spec.iter()
        .map(|&(p, s, e, off)| {
            let pattern: PathPattern = PATTERNS[p].parse().unwrap();
            let d = Deletion::tree(pattern, s, e);
            match off {
                Some(pct) => d.with_file_offset((file_len * pct as usize / 100) as i64),
                None => d,
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn reads_apply_deletions_point_by_point(
        recs in records(),
        flush_every in 1usize..20,
        spec in deletions(),
        v3 in any::<bool>(),
    ) {
        let mut bytes = write_file(&recs, flush_every);
        if v3 {
            bytes = gen::to_v3(&bytes);
        }
        let dels = make(&spec, bytes.len());
        let path = put(&format!("p{}.tsfile", u8::from(v3)), &bytes, &dels);
        let raw_reader = TsFileReader::path_builder(&path).unwrap().with_mods(false).build().unwrap();
        prop_assert!(raw_reader.modifications().is_empty());
        let raw = read_rows(&raw_reader, &Query::all());
        let reader = TsFileReader::open_path(&path).unwrap();
        prop_assert_eq!(reader.modifications().deletions().len(), dels.len());
        let want = expected(&raw, &bytes, &dels);
        prop_assert_eq!(read_rows(&reader, &Query::all()), want.clone());
        // A time range and a projection go through the same deletions.
        let q = Query::all().time_range(20, 80).columns(["s2", "s1"]);
        let mut windowed = want.clone();
        for rows in windowed.values_mut() {
            rows.retain(|(t, _)| (20..=80).contains(t));
        }
        let got = read_rows(&reader, &q);
        for (dev, rows) in &got {
            let want_rows = &windowed[dev];
            let is_aligned = dev.contains(".a");
            // Non-aligned rows exist only where a projected series has a point.
            let want_rows: Vec<_> = want_rows
                .iter()
                .filter(|(_, v)| is_aligned || v[0].is_some() || v[1].is_some())
                .map(|(t, v)| (*t, vec![v[0], v[1], None]))
                .collect();
            prop_assert_eq!(rows, &want_rows, "{}", dev);
        }
        cleanup(&path);
    }
}

#[test]
fn a_covered_chunk_is_skipped_and_statistics_do_not_decide_filters() {
    // 20 aligned rows, 4 chunk groups of 5.
    let recs: Vec<_> = (0..20)
        .map(|t| (1usize, t, [Some(t), Some(-t), None]))
        .collect();
    let bytes = write_file(&recs, 5);
    let dels = vec![
        Deletion::tree("root.sg.a1.*".parse().unwrap(), 0, 4), // chunk 0: whole rows
        Deletion::tree("root.sg.a1.s1".parse().unwrap(), 10, 11),
    ];
    let path = put("covered.tsfile", &bytes, &dels);
    let reader = TsFileReader::open_path(&path).unwrap();
    let ex = reader.explain(&Query::all()).unwrap();
    assert_eq!(ex.chunks.skipped.get(&Reason::Deleted), Some(&1), "{ex}");
    let rows = read_rows(&reader, &Query::all());
    let a1 = &rows["root.sg.a1"];
    assert_eq!(a1.len(), 15);
    assert_eq!(a1[0].0, 5);
    // s1 IS NULL: the chunk's statistics say s1 has no nulls, yet 10 and 11 lost theirs.
    let q = Query::all().filter(Filter::is_null("s1"));
    let nulls = read_rows(&reader, &q);
    let times: Vec<i64> = nulls["root.sg.a1"].iter().map(|r| r.0).collect();
    assert_eq!(times, [10, 11]);
    // Opting out brings every point back.
    let raw = TsFileReader::path_builder(&path)
        .unwrap()
        .with_mods(false)
        .build()
        .unwrap();
    assert_eq!(read_rows(&raw, &Query::all())["root.sg.a1"].len(), 20);
    // Deletions given directly are applied too, for any source.
    let given = TsFileReader::builder(bytes.clone())
        .with_modifications(Modifications::new(dels.clone()))
        .build()
        .unwrap();
    assert_eq!(read_rows(&given, &Query::all()), rows);
    cleanup(&path);
}

#[test]
fn a_damaged_mods_file_fails_the_open_with_its_name() {
    let bytes = write_file(&[(0, 1, [Some(1), None, None])], 1);
    let path = put("damaged.tsfile", &bytes, &[]);
    std::fs::write(
        format!("{}.mods", path.display()),
        b"DELETION,root.sg.d1.s1,x\nMORE\n",
    )
    .unwrap();
    let err = TsFileReader::open_path(&path).unwrap_err().to_string();
    assert!(err.contains("damaged.tsfile.mods"), "{err}");
    // The opt-out does not even read it.
    assert!(TsFileReader::path_builder(&path)
        .unwrap()
        .with_mods(false)
        .build()
        .is_ok());
    cleanup(&path);
}

/// The Arrow reader over a reader opened with its deletions returns the same rows as the
/// plain reader, nulls where values were deleted.
#[cfg(feature = "arrow")]
#[test]
fn arrow_batches_apply_the_readers_deletions() {
    use std::sync::Arc;
    let recs: Vec<_> = (0..12)
        .map(|t| (t as usize % 2, t, [Some(t), Some(t * 10), None]))
        .collect();
    let bytes = write_file(&recs, 4);
    let dels = vec![
        Deletion::tree("root.sg.d1.s1".parse().unwrap(), 2, 6),
        Deletion::tree("root.sg.a1.s2".parse().unwrap(), 0, 5),
        Deletion::tree("root.sg.a1.*".parse().unwrap(), 9, 9),
    ];
    let path = put("arrow.tsfile", &bytes, &dels);
    let reader = Arc::new(TsFileReader::open_path(&path).unwrap());
    let plain = read_rows(&reader, &Query::all());
    let arrow = colfile::arrow::TsFileArrowReader::builder(reader.clone())
        .build()
        .unwrap();
    let mut rows = 0;
    let mut nulls = 0;
    for b in arrow {
        let b = b.unwrap();
        rows += b.num_rows();
        for name in ["s1", "s2"] {
            nulls += b
                .column_by_name(name)
                .map_or(b.num_rows(), |c| c.null_count());
        }
    }
    let want_rows: usize = plain.values().map(Vec::len).sum();
    let want_nulls: usize = plain
        .values()
        .flatten()
        .map(|(_, v)| v[..2].iter().filter(|x| x.is_none()).count())
        .sum();
    assert_eq!((rows, nulls), (want_rows, want_nulls));
    // d1 keeps its 6 rows (s2 stays where s1 goes); a1 loses its row at 9 (`*` matches the
    // time column) and keeps 5.
    assert_eq!(want_rows, 11);
    assert_eq!(want_nulls, 3 + 3, "d1.s1 at 2, 4, 6; a1.s2 at 1, 3, 5");
    cleanup(&path);
}
