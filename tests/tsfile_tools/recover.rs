//! `recover`: files cut at every chunk-group boundary and at random bytes recover exactly
//! the rows of their complete chunk groups; complete files recover to the same rows; the
//! official library reads recovered files.

use super::*;
use std::process::Command;

/// Each chunk group of a complete file: its device, time range, and the offset of the marker
/// after it (the group survives a cut only if that marker does).
fn groups_of(bytes: &[u8]) -> Vec<(String, i64, i64, u64)> {
    let meta = FileMetadata::read(bytes, &Limits::default()).unwrap();
    let mut stats = BTreeMap::new();
    for d in meta.all_devices(bytes).unwrap() {
        for s in meta.timeseries(bytes, &d).unwrap() {
            for (i, c) in s.chunks.iter().enumerate() {
                let st = s.chunk_statistics(i).unwrap();
                stats.insert(
                    c.offset_of_chunk_header as u64,
                    (st.count, st.start_time, st.end_time),
                );
            }
        }
    }
    let data = scan_data(bytes, &Limits::default()).unwrap();
    data.groups
        .iter()
        .map(|g| {
            let (mut lo, mut hi) = (i64::MAX, i64::MIN);
            for c in &g.chunks {
                if let Some(&(n, s, e)) = stats.get(&c.offset) {
                    if n > 0 {
                        (lo, hi) = (lo.min(s), hi.max(e));
                    }
                }
            }
            (key(&g.device), lo, hi, g.end.unwrap())
        })
        .collect()
}

/// The rows of `full` in the chunk groups that a file cut to `len` bytes keeps.
fn expected_rows(full: &Rows, groups: &[(String, i64, i64, u64)], len: u64) -> Rows {
    full.iter()
        .filter(|((dev, t), _)| {
            groups
                .iter()
                .any(|(d, lo, hi, end)| d == dev && (lo..=hi).contains(&t) && *end < len)
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

fn recovered(cut: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    recover(cut, &mut out).unwrap_or_else(|e| panic!("recover {} bytes: {e}", cut.len()));
    out
}

/// Cuts `bytes` at every chunk-group boundary (just before and just after each group's
/// marker) and at random bytes; each recovery must verify clean and hold exactly the rows of
/// the complete groups before the cut.
fn check_cuts(name: &str, bytes: &[u8], random: usize, every: usize) {
    let full = rows_of(bytes.to_vec());
    let groups = groups_of(bytes);
    let mut cuts: Vec<u64> = Vec::new();
    for (_, _, _, end) in groups.iter().step_by(every) {
        cuts.extend([end - 1, *end, end + 1]);
    }
    let data = scan_data(bytes, &Limits::default()).unwrap();
    cuts.extend(
        data.groups
            .iter()
            .step_by(every)
            .flat_map(|g| [g.offset, g.offset + 1]),
    );
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ bytes.len() as u64;
    for _ in 0..random {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        cuts.push(7 + (seed >> 33) % (bytes.len() as u64 - 7));
    }
    cuts.push(bytes.len() as u64);
    for len in cuts {
        let cut = &bytes[..len as usize];
        let out = recovered(cut);
        let report = verify(&out, &VerifyOptions::default()).unwrap();
        assert!(report.is_ok(), "{name} cut at {len}: {:?}", report.problems);
        let want = expected_rows(&full, &groups, len);
        let got = rows_of(out);
        assert_eq!(got.len(), want.len(), "{name} cut at {len}: row count");
        assert!(got == want, "{name} cut at {len}: rows differ");
    }
}

#[test]
fn recover_our_files_cut_everywhere() {
    check_cuts("table_file", &table_file(), 40, 1);
    check_cuts("tree_file", &tree_file(), 40, 1);
}

#[test]
fn recover_fixtures_cut_everywhere() {
    for name in [
        "basic",
        "multi_chunk",
        "multi_table",
        "tags_nulls",
        "tree_basic",
        "nulls",
        "default_multipage",
    ] {
        check_cuts(name, &fixture(name), 15, 1);
    }
    check_cuts("many_devices", &fixture("many_devices"), 5, 37);
}

#[test]
fn complete_files_recover_to_the_same_rows_and_schemas() {
    for name in ts_fixture_names() {
        if name == "enc_sprintz" || name == "tree_encodings" {
            continue; // statistics there disagree with Java's reading (see below)
        }
        let bytes = fixture(&name);
        let mut out = Vec::new();
        let s = recover(&bytes[..], &mut out).unwrap();
        assert!(
            s.footer_kept && s.stop.is_none() && s.dropped_chunk_groups == 0,
            "{name}: {s:?}"
        );
        let before = FileMetadata::read(&bytes, &Limits::default()).unwrap();
        let after = FileMetadata::read(&out, &Limits::default()).unwrap();
        assert_eq!(before.footer().schemas, after.footer().schemas, "{name}");
        assert_eq!(rows_of(out), rows_of(bytes), "{name}");
    }
}

#[test]
fn inferred_schema_names_tags_by_position_and_keeps_field_codecs() {
    let bytes = table_file();
    let cut = &bytes[..bytes.len() - 20];
    let mut out = Vec::new();
    let s = recover(cut, &mut out).unwrap();
    assert!(!s.footer_kept);
    assert_eq!(s.inferred_tables, ["meter", "plant"]);
    let m = FileMetadata::read(&out, &Limits::default()).unwrap();
    let plant = m.table_schema("plant").unwrap();
    let cols: Vec<(&str, ColumnCategory, Encoding, Compression)> = plant
        .columns
        .iter()
        .map(|c| {
            (
                c.schema.name.as_str(),
                c.category,
                c.schema.encoding,
                c.schema.compression,
            )
        })
        .collect();
    assert_eq!(
        &cols[..2],
        &[
            (
                "tag1",
                ColumnCategory::Tag,
                Encoding::Plain,
                Compression::Lz4
            ),
            (
                "tag2",
                ColumnCategory::Tag,
                Encoding::Plain,
                Compression::Lz4
            )
        ]
    );
    assert!(cols.contains(&(
        "kw",
        ColumnCategory::Field,
        Encoding::Gorilla,
        Compression::Lz4
    )));
    assert!(cols.contains(&(
        "n",
        ColumnCategory::Field,
        Encoding::Ts2Diff,
        Compression::Uncompressed
    )));
    assert!(
        !cols.iter().any(|c| c.0 == "note"),
        "ATTRIBUTE columns cannot be recovered"
    );
    // Schemas given by the caller win over inference.
    let opts = RecoverOptions {
        schemas: (FileMetadata::read(&bytes, &Limits::default())
            .unwrap()
            .footer())
        .schemas
        .clone(),
        ..RecoverOptions::default()
    };
    let mut out2 = Vec::new();
    let s = recover_with(cut, &mut out2, &opts).unwrap();
    assert!(s.inferred_tables.is_empty());
    let m2 = FileMetadata::read(&out2, &Limits::default()).unwrap();
    assert_eq!(
        m2.table_schema("plant").unwrap().columns[0].schema.name,
        "region"
    );
}

#[test]
fn recovery_rejects_what_is_not_a_tsfile() {
    assert!(recover(&b"PAR1xxxxxxxxxxxx"[..], &mut Vec::new()).is_err());
    // Only the head survives: an empty but valid file.
    let bytes = fixture("basic");
    let out = recovered(&bytes[..7]);
    assert!(rows_of(out.clone()).is_empty());
    assert!(verify(&out, &VerifyOptions::default()).unwrap().is_ok());
}

#[test]
fn the_official_library_reads_recovered_files() {
    let oracle = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/oracles/tsfile/tsoracle.py");
    let ok = oracle.exists()
        && Command::new("python3")
            .args(["-c", "import tsfile"])
            .output()
            .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipped: the official TsFile library (python3 tsfile) is not available");
        return;
    }
    let dir = std::env::temp_dir().join(format!("colfile-recover-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let basic = fixture("basic");
    for (name, cut) in [
        ("table", table_file()[..900].to_vec()),
        ("basic", basic[..200].to_vec()),
        ("tree", tree_file()[..700].to_vec()),
    ] {
        let out = recovered(&cut);
        assert!(
            !rows_of(out.clone()).is_empty(),
            "{name}: nothing recovered"
        );
        let path = dir.join(format!("{name}.tsfile"));
        std::fs::write(&path, &out).unwrap();
        let o = Command::new("python3")
            .arg(&oracle)
            .arg("dump")
            .arg(&path)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let theirs = parse_lines(&String::from_utf8(o.stdout).unwrap());
        let ours = parse_lines(&crate::common::tsdump::our_dump(out).unwrap());
        let diffs = compare_dumps(&theirs, &ours, false);
        assert!(diffs.is_empty(), "{name}: {diffs:?}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Whatever the damage, what `recover` writes passes `verify`: bytes changed (two ways) or
/// the file cut, at offsets spread over several fixtures. Page statistics are copied with
/// their pages, so those that disagree with their data must not be kept.
#[test]
fn every_recovered_file_verifies_clean() {
    let (mut tried, mut recovered) = (0, 0);
    for name in ["basic", "default_multipage", "comp_uncompressed", "nulls"] {
        let bytes = fixture(name);
        let step = (bytes.len() / 150).max(1);
        for at in (6..bytes.len()).step_by(step) {
            let mut xored = bytes.clone();
            xored[at] ^= 0x55;
            let mut zeroed = bytes.clone();
            zeroed[at] = if bytes[at] == 0 { 0x80 } else { 0 };
            for (how, damaged) in [
                ("xor", xored),
                ("zero", zeroed),
                ("cut", bytes[..at].to_vec()),
            ] {
                tried += 1;
                let mut out = Vec::new();
                if recover_with(&damaged[..], &mut out, &RecoverOptions::default()).is_err() {
                    continue;
                }
                recovered += 1;
                let report = verify(&out[..], &VerifyOptions::default()).unwrap();
                assert!(
                    report.is_ok(),
                    "{name}, {how} at {at}: {:?}",
                    report.problems.first().map(|p| p.to_string())
                );
            }
        }
    }
    assert!(recovered > tried / 2, "{recovered} of {tried} recovered");
}
