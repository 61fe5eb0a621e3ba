//! IoTDB modification files (`colfile::tsfile::mods`): both writers and parsers round-trip,
//! pattern matching agrees with a backtracking reference matcher, the per-chunk queries agree
//! with a brute-force check of every deletion, `for_tsfile` finds the right files, and a
//! corpus of damaged files each fails with its own located error.

use colfile::tsfile::mods::{
    binary, text, Deletion, DevicePredicate, Modifications, PathPattern, TablePredicate, Target,
};
use colfile::tsfile::DeviceId;
use colfile::{ErrorKind, Limits};
use proptest::prelude::*;

/// The fuzz target's body (parse, write back, parse again, match), run here on mutated files.
#[path = "../fuzz/src/tsfile_mods.rs"]
mod fuzz_body;

/// Pattern tokens: quoted ones are literal, `**` any run of nodes, `*`-nodes one node.
const TOKENS: &[&str] = &["a", "b", "ab", "*", "a*", "*b", "**", "`a.b`", "`*`"];
/// Path nodes (unquoted); `""` is an aligned device's time column.
const NODES: &[&str] = &["a", "b", "ab", "ba", "a.b", "*", ""];

/// The reference: recursion over the tokens, a `**` trying every split.
fn ref_match(tokens: &[&str], path: &[&str]) -> bool {
    match tokens.split_first() {
        None => path.is_empty(),
        Some((&"**", rest)) => (1..=path.len()).any(|k| ref_match(rest, &path[k..])),
        Some((tok, rest)) => match path.split_first() {
            Some((node, tail)) => ref_node(tok, node) && ref_match(rest, tail),
            None => false,
        },
    }
}

fn ref_node(tok: &str, node: &str) -> bool {
    if let Some(inner) = tok.strip_prefix('`').and_then(|t| t.strip_suffix('`')) {
        return inner == node;
    }
    let p: Vec<char> = tok.chars().collect();
    let t: Vec<char> = node.chars().collect();
    ref_glob(&p, &t)
}

fn ref_glob(p: &[char], t: &[char]) -> bool {
    match p.split_first() {
        None => t.is_empty(),
        Some(('*', rest)) => ref_glob(rest, t) || (!t.is_empty() && ref_glob(p, &t[1..])),
        Some((c, rest)) => t.first() == Some(c) && ref_glob(rest, &t[1..]),
    }
}

fn pattern(tokens: &[&str]) -> PathPattern {
    tokens
        .join(".")
        .parse()
        .expect("a generated pattern parses")
}

fn tree_deletion() -> impl Strategy<Value = Deletion> {
    (
        prop::collection::vec(prop::sample::select(TOKENS), 1..5),
        -5i64..60,
        0i64..30,
        prop::option::of(0i64..200),
    )
        .prop_map(|(tokens, start, len, off)| Deletion {
            target: Target::Tree(pattern(&tokens)),
            start,
            end: start + len,
            file_offset: off,
        })
}

fn opt_name() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(&["t", "a", "b", "x,y", ""][..]).prop_map(String::from))
}

fn device_predicate() -> impl Strategy<Value = DevicePredicate> {
    let leaf = prop_oneof![
        Just(DevicePredicate::All),
        (opt_name(), -1i32..4).prop_map(|(value, index)| DevicePredicate::Segment { value, index }),
        prop::collection::vec(opt_name(), 0..3).prop_map(|tags| {
            let mut segs = vec![Some("t".to_string())];
            segs.extend(tags);
            DevicePredicate::Exact(DeviceId::new(segs).unwrap())
        }),
    ];
    leaf.prop_recursive(2, 8, 3, |inner| {
        prop::collection::vec(inner, 0..3).prop_map(DevicePredicate::And)
    })
}

fn table_deletion() -> impl Strategy<Value = Deletion> {
    (
        prop::sample::select(&["t", "u"][..]),
        device_predicate(),
        prop::collection::vec(prop::sample::select(&["s1", "s2", ""][..]), 0..3),
        any::<i64>(),
        any::<i64>(),
    )
        .prop_map(|(table, device, ms, start, end)| {
            let p = TablePredicate {
                table: table.into(),
                device,
                measurements: ms.into_iter().map(String::from).collect(),
            };
            Deletion::table(p, start, end)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn patterns_match_like_the_reference(
        tokens in prop::collection::vec(prop::sample::select(TOKENS), 1..6),
        path in prop::collection::vec(prop::sample::select(NODES), 0..7),
    ) {
        let p = pattern(&tokens);
        prop_assert_eq!(p.matches_nodes(&path), ref_match(&tokens, &path), "{} {:?}", p, path);
    }

    #[test]
    fn text_round_trips(mut dels in prop::collection::vec(tree_deletion(), 0..20)) {
        for d in &mut dels {
            d.file_offset.get_or_insert(i64::MAX);
        }
        let bytes = text::write(&dels).unwrap();
        prop_assert_eq!(&text::parse(&bytes, "x.mods", &Limits::default()).unwrap(), &dels);
        // Windows line ends read the same.
        let crlf = String::from_utf8(bytes).unwrap().replace('\n', "\r\n");
        prop_assert_eq!(&text::parse(crlf.as_bytes(), "x.mods", &Limits::default()).unwrap(), &dels);
    }

    #[test]
    fn binary_round_trips_and_torn_tails_drop_one_entry(
        dels in prop::collection::vec(prop_oneof![tree_deletion(), table_deletion()], 0..12),
        cut in any::<prop::sample::Index>(),
    ) {
        let dels: Vec<Deletion> = dels.into_iter().map(|d| Deletion { file_offset: None, ..d }).collect();
        let bytes = binary::write(&dels).unwrap();
        prop_assert_eq!(&binary::parse(&bytes, "x.mods2", &Limits::default()).unwrap(), &dels);
        if !bytes.is_empty() {
            let at = cut.index(bytes.len());
            let got = binary::parse(&bytes[..at], "x.mods2", &Limits::default()).unwrap();
            prop_assert!(dels.starts_with(&got) && got.len() + 1 >= dels.len().min(got.len() + 1));
        }
    }

    #[test]
    fn mutated_files_never_panic(
        dels in prop::collection::vec(prop_oneof![tree_deletion(), table_deletion()], 1..6),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        as_text in any::<bool>(),
    ) {
        let mut file = if as_text {
            let tree: Vec<Deletion> = dels
                .into_iter()
                .filter(|d| matches!(d.target, Target::Tree(_)))
                .collect();
            [&[0u8][..], &text::write(&tree).unwrap()].concat()
        } else {
            [&[1u8][..], &binary::write(&dels).unwrap()].concat()
        };
        for (at, byte) in flips {
            if file.len() > 1 {
                let i = 1 + at.index(file.len() - 1);
                file[i] = byte;
            }
        }
        fuzz_body::run(&file);
    }

    #[test]
    fn chunk_queries_agree_with_every_deletion(
        dels in prop::collection::vec(tree_deletion(), 0..12),
        device in prop::collection::vec(prop::sample::select(&NODES[..4]), 1..4),
        measurement in prop::sample::select(NODES),
        chunk in 0u64..220,
        t in -10i64..100,
        span in 0i64..8,
    ) {
        let mods = Modifications::new(dels.clone());
        let ranges = mods.for_tree_series(&device.join("."), measurement);
        let mut path = device.clone();
        path.push(measurement);
        let hit = |t: i64| dels.iter().any(|d| {
            let Target::Tree(p) = &d.target else { return false };
            p.matches_nodes(&path) && d.applies_to_chunk(chunk) && d.start <= t && t <= d.end
        });
        prop_assert_eq!(ranges.deletes(chunk, t), hit(t));
        let times = t..=t + span;
        prop_assert_eq!(ranges.covers(chunk, t, t + span), times.clone().all(hit));
        prop_assert_eq!(ranges.overlaps(chunk, t, t + span), times.clone().any(hit));
        let merged = ranges.for_chunk(chunk);
        prop_assert_eq!(merged.contains(t), hit(t));
    }
}

#[test]
fn table_devices_and_the_time_column() {
    let pred = TablePredicate {
        table: "t".into(),
        device: DevicePredicate::Segment {
            value: Some("d1".into()),
            index: 1,
        },
        measurements: vec![],
    };
    let mods = Modifications::new(vec![
        Deletion::table(pred, 0, 9),
        Deletion::tree("root.sg.d1.s1".parse().unwrap(), 100, 200),
    ]);
    let d1 = DeviceId::from_table("t", [Some("d1")]).unwrap();
    let d2 = DeviceId::from_table("t", [Some("d2")]).unwrap();
    // An empty column list deletes whole rows: the time column too.
    assert!(mods.for_series(&d1, "").deletes(0, 5));
    assert!(mods.for_series(&d1, "s9").deletes(0, 5));
    assert!(mods.for_series(&d2, "").is_empty());
    // A tree pattern naming one column leaves the time column alone.
    let tree = DeviceId::from_tree_path("root.sg.d1").unwrap();
    assert!(mods.for_series(&tree, "s1").deletes(0, 150));
    assert!(mods.for_series(&tree, "").is_empty());
}

#[test]
fn for_tsfile_takes_the_union_and_skips_compaction_files() {
    let dir = std::env::temp_dir().join(format!("colfile-mods-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let tsfile = dir.join("1-1-0-0.tsfile");
    assert!(Modifications::for_tsfile(&tsfile).unwrap().is_empty());
    let old = Deletion::tree("root.sg.d1.s1".parse().unwrap(), 0, 10).with_file_offset(50);
    let new = Deletion::tree("root.sg.**".parse().unwrap(), 20, 30);
    let compaction = Deletion::tree("root.**".parse().unwrap(), 0, 1000);
    let file = |suffix: &str| dir.join(format!("1-1-0-0.tsfile{suffix}"));
    std::fs::write(
        file(".mods"),
        text::write(std::slice::from_ref(&old)).unwrap(),
    )
    .unwrap();
    std::fs::write(
        file(".mods2"),
        binary::write(std::slice::from_ref(&new)).unwrap(),
    )
    .unwrap();
    let c = text::write(std::slice::from_ref(&compaction)).unwrap();
    std::fs::write(file(".compaction.mods"), &c).unwrap();
    let mods = Modifications::for_tsfile(&tsfile).unwrap();
    assert_eq!(mods.deletions(), [old.clone(), new.clone()]);
    let one = Modifications::load(file(".mods2"), &Limits::default()).unwrap();
    assert_eq!(one.deletions(), [new]);
    assert!(Modifications::load(file(".nothing"), &Limits::default()).is_err());
    let small = Limits::default().with_max_alloc_bytes(4);
    let e = Modifications::for_tsfile_with(&tsfile, &small).unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Expected failure of one damaged input.
enum Want {
    Corrupt(&'static str),
    Limit(&'static str),
}

fn entry(kind: u8, body: &[u8]) -> Vec<u8> {
    let mut v = vec![kind];
    v.extend_from_slice(&1i64.to_be_bytes());
    v.extend_from_slice(&2i64.to_be_bytes());
    v.extend_from_slice(body);
    v
}

/// Damaged `.mods` lines, each after one good line: name, line, message.
const BAD_LINES: &[(&str, &[u8], &str)] = &[
    (
        "unknown_type",
        b"UPDATE,root.a,1,2,3\n",
        "line 2: unknown modification type \"UPDATE\"",
    ),
    ("too_few_fields", b"DELETION,root.a,1\n", "line 2: 3 fields"),
    (
        "bad_start",
        b"DELETION,root.a,1,two,3\n",
        "start time \"two\"",
    ),
    ("bad_end", b"DELETION,root.a,1,2,3x\r\n", "end time \"3x\""),
    (
        "bad_version",
        b"DELETION,root.a,v1,3\n",
        "line 2: version \"v1\"",
    ),
    (
        "empty_node",
        b"DELETION,root..s,1,2,3\n",
        "\"root..s\" is not a valid path pattern",
    ),
    (
        "open_quote",
        b"DELETION,root.`a,1,2,3\n",
        "not a valid path pattern",
    ),
    ("blank_line", b"\nDELETION,root.a,1,2,3\n", "line 2"),
    (
        "not_utf8",
        b"DELETION,root.\xff,1,2,3\n",
        "line 2: not UTF-8",
    ),
];

/// Damaged `.mods2` entries, each after one good entry: name, type, body, message, offset of
/// the damage from the entry's start.
const BAD_ENTRIES: &[(&str, u8, &[u8], &str, u64)] = &[
    (
        "unknown_type",
        2,
        b"",
        "entry 2 (at byte 24): unknown modification type 2",
        0,
    ),
    (
        "negative_length",
        1,
        b"\x03",
        "negative path pattern length",
        17,
    ),
    ("null_pattern", 1, b"\x01", "path pattern is null", 17),
    (
        "bad_pattern",
        1,
        b"\x08a..b",
        "\"a..b\" is not a valid path pattern",
        17,
    ),
    (
        "pattern_not_utf8",
        1,
        b"\x02\xfe",
        "path pattern is not UTF-8",
        17,
    ),
    (
        "unknown_predicate",
        0,
        b"\x02t\x07",
        "unknown device predicate kind 7",
        19,
    ),
    (
        "negative_count",
        0,
        b"\x02t\x00\x01",
        "negative measurement count -1",
        20,
    ),
    ("null_table", 0, b"\x01\x00\x00", "table name is null", 17),
];

/// Damaged `.mods` and `.mods2` inputs: each fails with its kind, a message naming the file
/// and what is wrong, at the byte where the bad line or field starts.
fn corpus() -> Vec<(String, Vec<u8>, Want, u64)> {
    let good_text = b"DELETION,root.sg.d1.s1,9,1,2\n".to_vec();
    let good = entry(1, b"\x0croot.a");
    let (g, b) = (good_text.len() as u64, good.len() as u64);
    let mut all = Vec::new();
    for (name, line, msg) in BAD_LINES {
        let bytes = [&good_text[..], line].concat();
        all.push((format!("{name}.mods"), bytes, Want::Corrupt(msg), g));
    }
    for (name, kind, body, msg, at) in BAD_ENTRIES {
        let bytes = [good.clone(), entry(*kind, body)].concat();
        all.push((format!("{name}.mods2"), bytes, Want::Corrupt(msg), b + at));
    }
    let deep = [&b"\x02t"[..], &[3, 2].repeat(70), &[0; 8]].concat();
    let huge = b"\x02t\x00\xfe\xff\xff\xff\x07";
    all.push((
        "deep.mods2".into(),
        entry(0, &deep),
        Want::Limit("device predicate nesting"),
        19 + 2 * 65,
    ));
    all.push((
        "huge.mods2".into(),
        entry(0, huge),
        Want::Limit("measurement count"),
        20,
    ));
    all
}

#[test]
fn damaged_files_fail_with_their_own_located_error() {
    for (name, bytes, want, offset) in corpus() {
        let limits = Limits::default();
        let got = if name.ends_with(".mods2") {
            binary::parse(&bytes, "x", &limits)
        } else {
            text::parse(&bytes, "x", &limits)
        };
        let e = got.expect_err(&name);
        let msg = e.to_string();
        match (want, e.kind()) {
            (Want::Corrupt(text), ErrorKind::Corrupt { .. }) => {
                assert!(msg.contains(text), "{name}: {msg}")
            }
            (Want::Limit(what), ErrorKind::LimitExceeded { what: w, .. }) => {
                assert_eq!(*w, what, "{name}: {msg}")
            }
            _ => panic!("{name}: unexpected {msg}"),
        }
        assert_eq!(e.location().offset, Some(offset), "{name}: {msg}");
        let file = e.location().file.as_deref();
        assert_eq!(
            file,
            Some(std::path::Path::new("x")),
            "{name}: every error names the file"
        );
    }
}

#[test]
fn torn_tails_are_ignored() {
    let l = Limits::default();
    let t = text::parse(b"DELETION,root.a,1,2,3\nDELETION,root.b,1,2", "x", &l).unwrap();
    assert_eq!(t.len(), 2, "a final line that parses is kept");
    let t = text::parse(b"DELETION,root.a,1,2,3\nDELETION,root.b,1,", "x", &l).unwrap();
    assert_eq!(t.len(), 1);
    let full = entry(1, b"\x0croot.a");
    for cut in 1..full.len() {
        let got = binary::parse(&[full.clone(), full[..cut].to_vec()].concat(), "x", &l);
        assert_eq!(got.unwrap().len(), 1, "cut at {cut}");
    }
}

#[test]
fn the_fuzz_seeds_are_what_they_say() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/tsfile_mods");
    let seed = |name: &str| std::fs::read(dir.join(name)).unwrap()[1..].to_vec();
    let l = Limits::default();
    assert_eq!(text::parse(&seed("text"), "x", &l).unwrap().len(), 2);
    assert!(text::parse(&seed("text_bad"), "x", &l).is_err());
    assert_eq!(
        binary::parse(&seed("binary_tree"), "x", &l).unwrap().len(),
        1
    );
    let table = binary::parse(&seed("binary_table"), "x", &l).unwrap();
    let dev = DeviceId::from_table("t", [Some("a")]).unwrap();
    assert!(Modifications::new(table)
        .for_series(&dev, "s1")
        .deletes(0, 2));
    assert!(binary::parse(&seed("binary_bad"), "x", &l).is_err());
}
