//! Reading a whole IoTDB data directory (`Dataset::query`): generated directories of
//! sequence and unsequence files with overlapping data and their own `.mods`, read as one
//! dataset and compared with a model of IoTDB's rules (`docs/design/tsfile-v3-and-mods.md`
//! §5) built from each file read alone; `.resource` ranges skipping files; and files whose
//! own chunks overlap (several flushes of an unsequence file), where the later chunk wins.

use std::collections::BTreeMap;
use std::path::Path;

use colfile::tsfile::dataset::{Dataset, ReadOptions};
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::{DeviceId, Filter, Query, TsFileReader, Value, ValueRef};
use colfile::Limits;
use proptest::prelude::*;

use colfile_testkit::iotdb::*;

/// Per device, time → [s1, s2].
type Table = BTreeMap<String, BTreeMap<i64, Vec<Option<i64>>>>;

fn int(v: ValueRef<'_>) -> Option<i64> {
    match v {
        ValueRef::Int64(x) => Some(x),
        _ => None,
    }
}

/// Adds the rows of `batches` to `out` (columns found by name).
fn collect(
    out: &mut Table,
    batches: impl Iterator<Item = colfile::Result<colfile::tsfile::DeviceBatch>>,
) {
    for b in batches {
        let b = b.unwrap();
        let mut cols: Vec<_> = ["s1", "s2"]
            .iter()
            .map(|n| b.columns.iter().find(|c| c.name == *n).map(|c| c.cursor()))
            .collect();
        let dev = out.entry(b.device.to_string()).or_default();
        for &t in &b.times {
            let row = cols
                .iter_mut()
                .map(|c| c.as_mut().and_then(|c| int(c.next_value())))
                .collect();
            assert!(
                dev.insert(t, row).is_none(),
                "time {t} twice for {}",
                b.device
            );
        }
    }
}

/// The model: each file read alone (its deletions applied), then per device, time and
/// column the value of the highest-priority file that has one.
fn model(ds: &Dataset) -> Table {
    let mut ranked: Vec<_> = ds.files.iter().collect();
    ranked.sort_by_key(|f| f.priority(0));
    let mut out = Table::new();
    for f in ranked {
        let mut one = Table::new();
        let r = TsFileReader::open_path(&f.path).unwrap();
        collect(&mut one, r.query(&Query::all()).unwrap());
        for (dev, rows) in one {
            let merged = out.entry(dev).or_default();
            for (t, row) in rows {
                let slot = merged.entry(t).or_insert_with(|| vec![None, None]);
                for (s, v) in slot.iter_mut().zip(row) {
                    if v.is_some() {
                        *s = v;
                    }
                }
            }
        }
    }
    out
}

fn read(ds: &Dataset, q: &Query) -> Table {
    let mut out = Table::new();
    collect(&mut out, ds.query(q).unwrap());
    out
}

type FileSpec = (
    bool,
    Vec<(usize, i64, Option<i64>, Option<i64>)>,
    Option<(usize, i64, i64)>,
);

const DEVICES: [&str; 2] = ["root.sg.d1", "root.sg.a1"];
const PATTERNS: [&str; 3] = ["root.sg.d1.s1", "root.sg.a1.*", "root.sg.*.s2"];

fn file_spec() -> impl Strategy<Value = FileSpec> {
    let row = (
        0usize..2,
        0i64..30,
        prop::option::of(-9i64..9),
        prop::option::of(-9i64..9),
    );
    (
        any::<bool>(),
        prop::collection::vec(row, 1..12),
        prop::option::of((0..PATTERNS.len(), 0i64..30, 0i64..10)),
    )
}

/// Writes the files of `specs` with `.resource` and `.mods`.
fn build(dir: &Path, specs: &[FileSpec]) {
    for (k, (unseq, points, del)) in specs.iter().enumerate() {
        let mut rows = Rows::new();
        for &(d, t, a, b) in points {
            let v = rows.entry(DEVICES[d]).or_default();
            if !v.iter().any(|p| p.0 == t) && (a.is_some() || b.is_some()) {
                v.push((t, a, b));
            }
        }
        for v in rows.values_mut() {
            v.sort_by_key(|p| p.0);
        }
        rows.retain(|_, v| !v.is_empty());
        if rows.is_empty() {
            continue;
        }
        let space = if *unseq { UNSEQ } else { SEQ };
        // Versions out of step with the names' times and the listing order, so that only
        // the priority rule (not the order files are found in) can pick the winner.
        let version = (k * 7) % 11 + 1;
        let rel = format!("{space}/{}-{version}-0-0.tsfile", 200 - k);
        let path = put(dir, &rel, &rows, Some(if k % 2 == 0 { 1 } else { 3 }));
        if let Some((p, s, len)) = del {
            let line = format!("DELETION,{},{},{s},{}\n", PATTERNS[*p], i64::MAX, s + len);
            std::fs::write(format!("{}.mods", path.display()), line).unwrap();
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn a_directory_reads_as_the_priority_rules_say(
        specs in prop::collection::vec(file_spec(), 1..6),
        start in 0i64..30,
    ) {
        let dir = temp("query-prop");
        build(&dir, &specs);
        let ds = Dataset::open(&dir).unwrap();
        let want = model(&ds);
        prop_assert_eq!(read(&ds, &Query::all()), want.clone());
        // A time range and a filter apply to the merged rows.
        let q = Query::all()
            .time_range(start, start + 10)
            .filter(Filter::gt("s1", Value::Int64(0)));
        let mut filtered = want.clone();
        for rows in filtered.values_mut() {
            rows.retain(|t, r| (start..=start + 10).contains(t) && r[0].is_some_and(|v| v > 0));
        }
        filtered.retain(|_, r| !r.is_empty());
        prop_assert_eq!(read(&ds, &q), filtered);
        // Without deletions: every file's stored points.
        let raw = ds.query_with(&Query::all(), ReadOptions::default().with_mods(false)).unwrap();
        let mut got = Table::new();
        collect(&mut got, raw);
        let stored: usize = got.values().map(BTreeMap::len).sum();
        prop_assert!(stored >= want.values().map(BTreeMap::len).sum::<usize>());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn resource_ranges_skip_files_and_offset_limit_apply_after_the_merge() {
    let dir = temp("query-skip");
    let d = "root.sg.d1";
    put(
        &dir,
        &format!("{SEQ}/1-1-0-0.tsfile"),
        &rows(d, &[(1, Some(1), None), (2, Some(2), None)]),
        Some(1),
    );
    put(
        &dir,
        &format!("{SEQ}/2-2-0-0.tsfile"),
        &rows(d, &[(10, Some(10), None), (11, Some(11), None)]),
        Some(3),
    );
    put(
        &dir,
        &format!("{UNSEQ}/3-3-0-0.tsfile"),
        &rows(d, &[(2, Some(-2), None)]),
        Some(1),
    );
    let ds = Dataset::open(&dir).unwrap();
    let mut it = ds.query(&Query::all().time_range(10, 20)).unwrap();
    let b = it.next().unwrap().unwrap();
    assert_eq!(b.times, [10, 11]);
    assert!(it.next().is_none());
    let st = it.stats();
    assert_eq!((st.file_reads, st.file_skips), (1, 2), "{st:?}");
    let got: Vec<i64> = ds
        .query(&Query::all().offset(1).limit(2))
        .unwrap()
        .flat_map(|b| b.unwrap().times)
        .collect();
    assert_eq!(got, [2, 10]);
    let q = Query::all()
        .device(DeviceId::from_tree_path(d).unwrap())
        .columns(["s1"]);
    let mut t = Table::new();
    collect(&mut t, ds.query(&q).unwrap());
    assert_eq!(t[d][&2], [Some(-2), None]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// One file holding the chunk groups of `a` and then those of `b` (as two flushes of the
/// same devices), its index rebuilt by `recover`.
fn two_flushes(a: &[u8], b: &[u8]) -> Vec<u8> {
    let body = |f: &[u8]| {
        let sep = scan_data(f, &Limits::default()).unwrap().separator.unwrap() as usize;
        f[7..sep].to_vec()
    };
    let mut data = a[..7].to_vec();
    data.extend(body(a));
    data.extend(body(b));
    data.push(0x02);
    let mut out = Vec::new();
    colfile::tsfile::recover(data.as_slice(), &mut out).unwrap();
    out
}

#[test]
fn a_files_own_overlapping_chunks_keep_the_later_flush() {
    let dir = temp("query-overlap");
    let first = |d| {
        rows(
            d,
            &[
                (1, Some(1), Some(1)),
                (3, Some(3), Some(3)),
                (5, Some(5), None),
            ],
        )
    };
    let second = |d| {
        rows(
            d,
            &[
                (2, Some(20), None),
                (3, Some(30), None),
                (6, Some(60), None),
            ],
        )
    };
    let mut bytes = Vec::new();
    for (tag, d) in [("n", "root.sg.d1"), ("a", "root.sg.a1")] {
        let pa = put(&dir, &format!("src/{tag}1.tsfile"), &first(d), None);
        let pb = put(&dir, &format!("src/{tag}2.tsfile"), &second(d), None);
        bytes.push(two_flushes(
            &std::fs::read(pa).unwrap(),
            &std::fs::read(pb).unwrap(),
        ));
    }
    let want = |row3: Vec<Option<i64>>| {
        BTreeMap::from([
            (1, vec![Some(1), Some(1)]),
            (2, vec![Some(20), None]),
            (3, row3),
            (5, vec![Some(5), None]),
            (6, vec![Some(60), None]),
        ])
    };
    // Non-aligned, one file read alone: series merged per point, the later chunk winning.
    let alone = dir.join("alone.tsfile");
    std::fs::write(&alone, &bytes[0]).unwrap();
    let mut t = Table::new();
    collect(
        &mut t,
        TsFileReader::open_path(&alone)
            .unwrap()
            .query(&Query::all())
            .unwrap(),
    );
    assert_eq!(t["root.sg.d1"], want(vec![Some(30), Some(3)]));
    // Both as one unsequence file of a data directory: aligned rows too, null-filled from
    // the earlier flush.
    let part = dir.join(UNSEQ);
    std::fs::create_dir_all(&part).unwrap();
    std::fs::write(part.join("5-5-0-0.tsfile"), &bytes[0]).unwrap();
    std::fs::write(part.join("6-6-0-0.tsfile"), &bytes[1]).unwrap();
    let ds = Dataset::open(&dir).unwrap();
    let mut rows = ds.query(&Query::all()).unwrap();
    let mut t = Table::new();
    collect(&mut t, &mut rows);
    assert_eq!(t["root.sg.d1"], want(vec![Some(30), Some(3)]));
    assert_eq!(t["root.sg.a1"], want(vec![Some(30), Some(3)]));
    assert_eq!(
        rows.stats().overlapping,
        1,
        "only the aligned file is read whole"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
