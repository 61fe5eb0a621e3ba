//! IoTDB data directories (`colfile::tsfile::dataset`): the walk, the `.resource` reader, the
//! skipping by time and the merge priority, on directories built here. No real IoTDB
//! directory is in the fixtures, so the `.resource` files are written by a test-side writer
//! from the byte layout in `docs/design/tsfile-v3-and-mods.md` §4 (types 1 and 3).

use std::path::{Path, PathBuf};

use colfile::tsfile::dataset::{
    merge_points, merge_rows, Dataset, FileRanges, MergeSource, Notice, Resource, Space,
    TimeIndexKind, TimeRange, TsFileName,
};
use colfile::tsfile::{DeviceId, Query, TsFileReader, ValueRef};
use colfile::{ErrorKind, Limits};

use colfile_testkit::iotdb::*;

/// The `(time, s1, s2)` rows of `device` in a TsFile.
fn read(path: &Path, device: &str) -> Vec<(i64, Vec<Option<i64>>)> {
    let r = TsFileReader::open(std::fs::read(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for b in r.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        if b.device.to_string() != device {
            continue;
        }
        let mut cols: Vec<_> = b
            .columns
            .iter()
            .map(|c| (c.name.clone(), c.cursor()))
            .collect();
        cols.sort_by(|a, b| a.0.cmp(&b.0));
        for t in &b.times {
            let row = cols
                .iter_mut()
                .map(|(_, c)| match c.next_value() {
                    ValueRef::Int64(v) => Some(v),
                    _ => None,
                })
                .collect();
            out.push((*t, row));
        }
    }
    out
}

/// A directory: two sequence files, two unsequence files overlapping them.
fn iotdb_dir(name: &str) -> PathBuf {
    let dir = temp(name);
    let d = "root.sg.d1";
    put(
        &dir,
        &format!("{SEQ}/1000-1-0-0.tsfile"),
        &rows(d, &[(1, Some(10), None), (2, Some(20), None)]),
        Some(1),
    );
    put(
        &dir,
        &format!("{SEQ}/2000-2-0-0.tsfile"),
        &rows(d, &[(5, Some(50), None), (6, Some(60), None)]),
        Some(3),
    );
    put(
        &dir,
        &format!("{UNSEQ}/1500-3-0-0.tsfile"),
        &rows(d, &[(2, Some(-2), None), (5, Some(-5), None)]),
        Some(3),
    );
    put(
        &dir,
        &format!("{UNSEQ}/1600-4-1-0.tsfile"),
        &rows(d, &[(5, Some(-55), None)]),
        Some(1),
    );
    std::fs::write(dir.join(format!("{SEQ}/2000-2-0-0.tsfile.mods")), b"").unwrap();
    std::fs::write(dir.join(format!("{UNSEQ}/1500-3-0-0.tsfile.mods2")), b"").unwrap();
    // Temporary and compaction outputs.
    std::fs::write(dir.join(format!("{SEQ}/3000-5-1-0.tsfile.target")), b"x").unwrap();
    std::fs::write(dir.join(format!("{SEQ}/3000-6-1-0.inner")), b"x").unwrap();
    std::fs::write(
        dir.join(format!("{SEQ}/1000-1-0-0.tsfile.resource.temp")),
        b"x",
    )
    .unwrap();
    dir
}

fn names(ds: &Dataset) -> Vec<(Space, String)> {
    ds.files
        .iter()
        .map(|f| {
            (
                f.space,
                f.path.file_name().unwrap().to_string_lossy().into_owned(),
            )
        })
        .collect()
}

#[test]
fn an_iotdb_directory_lists_live_files_in_order_with_their_side_files() {
    let dir = iotdb_dir("layout");
    let ds = Dataset::open(&dir).unwrap();
    assert_eq!(
        names(&ds),
        [
            (Space::Sequence, "1000-1-0-0.tsfile".to_string()),
            (Space::Sequence, "2000-2-0-0.tsfile".to_string()),
            (Space::Unsequence, "1500-3-0-0.tsfile".to_string()),
            (Space::Unsequence, "1600-4-1-0.tsfile".to_string()),
        ]
    );
    let f = &ds.files[3];
    assert_eq!(
        (f.database.as_str(), f.region.as_str(), f.partition.as_str()),
        ("root.sg", "1", "0")
    );
    assert_eq!(f.name, TsFileName::parse("1600-4-1-0.tsfile"));
    assert_eq!(f.name.unwrap().inner_compactions, 1);
    assert!(ds.files[1].mods.is_some() && ds.files[1].mods2.is_none());
    assert!(ds.files[2].mods2.is_some() && ds.files[2].mods.is_none());
    assert!(ds
        .files
        .iter()
        .all(|f| f.resource.is_some() && f.ranges.is_some()));
    let ignored: Vec<String> = ds
        .notices
        .iter()
        .map(|n| match n {
            Notice::Ignored(p) => p.file_name().unwrap().to_string_lossy().into_owned(),
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(
        ignored,
        [
            "1000-1-0-0.tsfile.resource.temp",
            "3000-5-1-0.tsfile.target",
            "3000-6-1-0.inner"
        ]
    );
    // Opening at the database, region or partition level covers both spaces.
    for sub in ["sequence/root.sg", "unsequence/root.sg/1", SEQ] {
        assert_eq!(
            names(&Dataset::open(dir.join(sub)).unwrap()),
            names(&ds),
            "{sub}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn merged_points_follow_the_priority_unsequence_then_version() {
    let dir = iotdb_dir("merge");
    let ds = Dataset::open(&dir).unwrap();
    let device = "root.sg.d1";
    let sources = ds.files.iter().map(|f| {
        let pts: Vec<_> = read(&f.path, device)
            .into_iter()
            .map(|(t, r)| (t, r[0]))
            .collect();
        MergeSource::new(f.priority(0), pts)
    });
    let got: Vec<_> = merge_points(sources).collect();
    // t=2: unsequence beats sequence; t=5: of the two unsequence files, version 4 wins.
    assert_eq!(
        got,
        [(1, Some(10)), (2, Some(-2)), (5, Some(-55)), (6, Some(60))]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn same_version_falls_back_to_the_file_time_then_the_chunk_offset() {
    let dir = temp("same-version");
    let d = "root.sg.d1";
    put(
        &dir,
        &format!("{UNSEQ}/200-7-0-0.tsfile"),
        &rows(d, &[(1, Some(2), None)]),
        Some(1),
    );
    put(
        &dir,
        &format!("{UNSEQ}/100-7-0-0.tsfile"),
        &rows(d, &[(1, Some(1), None)]),
        Some(1),
    );
    let ds = Dataset::open(&dir).unwrap();
    assert_eq!(ds.files[0].name.unwrap().time, 100);
    let merged: Vec<_> = merge_points(ds.files.iter().map(|f| {
        let pts: Vec<_> = read(&f.path, d)
            .into_iter()
            .map(|(t, r)| (t, r[0]))
            .collect();
        MergeSource::new(f.priority(0), pts)
    }))
    .collect();
    assert_eq!(merged, [(1, Some(2))]);
    assert!(ds.files[0].priority(100) > ds.files[0].priority(99));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn aligned_rows_fill_nulls_from_lower_priorities() {
    let dir = temp("aligned");
    let d = "root.sg.a1";
    put(
        &dir,
        &format!("{SEQ}/1-1-0-0.tsfile"),
        &rows(d, &[(1, Some(1), Some(1)), (2, Some(2), Some(2))]),
        Some(3),
    );
    put(
        &dir,
        &format!("{UNSEQ}/2-2-0-0.tsfile"),
        &rows(d, &[(1, None, Some(100))]),
        Some(3),
    );
    let ds = Dataset::open(&dir).unwrap();
    let merged: Vec<_> = merge_rows(
        ds.files
            .iter()
            .map(|f| MergeSource::new(f.priority(0), read(&f.path, d))),
    )
    .collect();
    assert_eq!(
        merged,
        [(1, vec![Some(1), Some(100)]), (2, vec![Some(2), Some(2)])]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn resource_ranges_skip_files_per_device() {
    let dir = temp("skip");
    let mut two = rows("root.sg.d1", &[(10, Some(1), None), (20, Some(1), None)]);
    two.insert(
        "root.sg.d2",
        vec![(100, Some(1), None), (200, Some(1), None)],
    );
    put(&dir, &format!("{SEQ}/1-1-0-0.tsfile"), &two, Some(1));
    put(
        &dir,
        &format!("{SEQ}/2-2-0-0.tsfile"),
        &rows("root.sg.d2", &[(300, Some(1), None)]),
        Some(3),
    );
    let ds = Dataset::open(&dir).unwrap();
    let d1 = DeviceId::from_tree_path("root.sg.d1").unwrap();
    let d2 = DeviceId::from_tree_path("root.sg.d2").unwrap();
    let hits = |d: Option<&DeviceId>, a, b| ds.files_for(d, TimeRange::new(a, b)).len();
    assert_eq!(hits(Some(&d1), 0, 1000), 1);
    assert_eq!(hits(Some(&d1), 21, 1000), 0);
    assert_eq!(hits(Some(&d2), 150, 250), 1);
    assert_eq!(hits(Some(&d2), 150, 300), 2);
    assert_eq!(hits(None, 201, 299), 0);
    assert_eq!(hits(None, 21, 99), 1); // the file range covers the gap between devices
    assert_eq!(hits(None, 0, i64::MAX), 2);
    // Type 3 ids and type 1 paths give the same device.
    let r = Resource::open(ds.files[1].resource.as_ref().unwrap(), &Limits::default()).unwrap();
    assert_eq!(r.kind, TimeIndexKind::DeviceIds);
    assert_eq!(r.devices.get(&d2), Some(&TimeRange::new(300, 300)));
    assert_eq!(r.plan_indexes, Some((9, 1)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_file_without_resource_is_read_from_its_footer_or_skipped_if_unsealed() {
    let dir = temp("no-resource");
    let d = rows("root.sg.d1", &[(7, Some(1), None), (9, Some(1), None)]);
    let sealed = put(&dir, &format!("{SEQ}/1-1-0-0.tsfile"), &d, None);
    let open = put(&dir, &format!("{SEQ}/2-2-0-0.tsfile"), &d, None);
    let bytes = std::fs::read(&open).unwrap();
    std::fs::write(&open, &bytes[..bytes.len() / 2]).unwrap();
    let ds = Dataset::open(&dir).unwrap();
    assert_eq!(ds.files.len(), 1);
    assert_eq!(ds.files[0].path, sealed);
    assert!(ds.files[0].ranges.is_none());
    assert!(
        matches!(&ds.notices[..], [Notice::NoResource(a), Notice::Unsealed(b)] if *a == sealed && *b == open)
    );
    // Without ranges the file is always a candidate; the footer gives them.
    assert_eq!(ds.files_for(None, TimeRange::new(100, 200)).len(), 1);
    let limits = Limits::default();
    let (ranges, err) =
        FileRanges::from_resource_or(None, &limits, || FileRanges::from_tsfile(&sealed, &limits))
            .unwrap();
    assert!(err.is_none());
    assert_eq!(ranges.file_range, Some(TimeRange::new(7, 9)));
    assert!(!ranges.may_contain(None, TimeRange::new(100, 200)));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_partition_with_a_compaction_log_is_reported_not_read() {
    let dir = iotdb_dir("compacting");
    let log = dir.join(format!("{UNSEQ}/1500-3-0-0.inner-compaction.log"));
    std::fs::write(&log, b"source ...").unwrap();
    let ds = Dataset::open(&dir).unwrap();
    assert!(ds.files.iter().all(|f| f.space == Space::Sequence));
    assert!(ds.notices.iter().any(
        |n| matches!(n, Notice::Compacting { logs, .. } if logs == std::slice::from_ref(&log))
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A damaged input, and a test of the error it must give.
type Case = (&'static str, Vec<u8>, fn(&ErrorKind) -> bool);

/// The damaged `.resource` files: each gives its own error, and through the walk the TsFile
/// stays listed (without ranges) with the error as a notice.
#[test]
fn corrupt_resources_give_specific_errors_and_do_not_hide_data() {
    let good = resource_bytes(1, &rows("root.sg.d1", &[(1, None, None)]));
    let mut huge = good.clone();
    huge[2..6].copy_from_slice(&i32::MAX.to_be_bytes());
    let mut bad_type = good.clone();
    bad_type[1] = 7;
    let mut bad_index = good.clone();
    let at = good.len() - 24;
    bad_index[at..at + 4].copy_from_slice(&5i32.to_be_bytes());
    let cases: [Case; 5] = [
        ("truncated", good[..20].to_vec(), |k| {
            matches!(k, ErrorKind::Truncated { .. })
        }),
        ("empty", Vec::new(), |k| {
            matches!(k, ErrorKind::Truncated { .. })
        }),
        ("huge count", huge, |k| {
            matches!(k, ErrorKind::LimitExceeded { .. })
        }),
        (
            "bad type",
            bad_type,
            |k| matches!(k, ErrorKind::Unsupported(m) if m.contains("type 7")),
        ),
        (
            "bad index",
            bad_index,
            |k| matches!(k, ErrorKind::Corrupt { message, .. } if message.contains("index 5")),
        ),
    ];
    for (what, bytes, expect) in cases {
        let e = Resource::parse(&bytes, "x.tsfile.resource", &Limits::default()).unwrap_err();
        assert!(expect(e.kind()), "{what}: {e}");
        assert!(e.location().offset.is_some(), "{what}: {e}");
        let dir = temp(&format!("corrupt-{}", what.replace(' ', "-")));
        let p = put(
            &dir,
            "f/1-1-0-0.tsfile",
            &rows("root.sg.d1", &[(1, Some(1), None)]),
            None,
        );
        std::fs::write(format!("{}.resource", p.display()), &bytes).unwrap();
        let ds = Dataset::open(dir.join("f")).unwrap();
        assert_eq!(ds.files.len(), 1, "{what}");
        assert!(
            matches!(&ds.notices[..], [Notice::BadResource(_, e)] if expect(e.kind())),
            "{what}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_plain_folder_is_one_sequence_space_versioned_by_name_or_order() {
    let dir = temp("plain");
    let d = rows("root.sg.d1", &[(1, Some(1), None)]);
    put(&dir, "b.tsfile", &d, None);
    put(&dir, "a.tsfile", &d, None);
    let ds = Dataset::open(&dir).unwrap();
    let v: Vec<_> = ds
        .files
        .iter()
        .map(|f| (f.space, f.version, f.database.clone()))
        .collect();
    assert_eq!(
        v,
        [
            (Space::Sequence, 0, String::new()),
            (Space::Sequence, 1, String::new())
        ]
    );
    assert!(ds.files[0].path.ends_with("a.tsfile"));
    assert!(ds.files[1].priority(0) > ds.files[0].priority(0));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The hand-written seeds of the `tsfile_resource` fuzz target are valid resources.
#[test]
fn the_fuzz_seeds_parse() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/tsfile_resource");
    for (name, kind, devices) in [
        ("type0", TimeIndexKind::FileLevel, 1),
        ("type1", TimeIndexKind::DevicePaths, 2),
        ("type3", TimeIndexKind::DeviceIds, 1),
    ] {
        let r = Resource::open(&dir.join(name), &Limits::default()).unwrap();
        assert_eq!((r.kind, r.devices.len()), (kind, devices), "{name}");
    }
}

proptest::proptest! {
    /// Damaging any byte of a valid resource, or cutting it anywhere, never panics, and every
    /// error says where it happened.
    #[test]
    fn damaged_resources_fail_with_a_location(
        kind in proptest::sample::select(vec![1u8, 3]),
        at in 0usize..200,
        byte in proptest::prelude::any::<u8>(),
        cut in 0usize..200,
    ) {
        let mut two = rows("root.sg.d1", &[(1, None, None), (5, None, None)]);
        two.insert("root.sg.d2", vec![(3, None, None)]);
        let mut b = resource_bytes(kind, &two);
        let n = b.len();
        b[at % n] = byte;
        b.truncate(cut.max(1));
        if let Err(e) = Resource::parse(&b, "p.resource", &Limits::default()) {
            proptest::prop_assert!(e.location().offset.is_some(), "{}", e);
        }
    }
}
