//! `sketch`: offsets agree with the oracle's `.raw.json` structure of every fixture.

use super::*;

#[test]
fn sketch_offsets_agree_with_the_oracle_structure() {
    let chunk_keys = [
        "offset",
        "marker",
        "kind",
        "one_page",
        "measurement",
        "data_size",
        "type",
        "compression",
        "encoding",
        "pages",
    ];
    for name in ts_fixture_names() {
        let raw = load(&ts_fixtures_dir().join(format!("{name}.raw.json")));
        let s = sketch(&fixture(&name)[..], &Limits::default())
            .unwrap()
            .to_json();
        for k in [
            "file_size",
            "separator_offset",
            "meta_start",
            "meta_size",
            "version_byte",
            "tail_magic_ok",
        ] {
            assert_eq!(s[k], raw[k], "{name}: {k}");
        }
        let (ours, theirs) = (
            s["chunk_groups"].as_array().unwrap(),
            raw["chunk_groups"].as_array().unwrap(),
        );
        assert_eq!(ours.len(), theirs.len(), "{name}: chunk groups");
        for (g, h) in ours.iter().zip(theirs) {
            assert_eq!(
                (&g["offset"], &g["device"]),
                (&h["offset"], &h["device"]),
                "{name}"
            );
            let (cs, ds) = (
                g["chunks"].as_array().unwrap(),
                h["chunks"].as_array().unwrap(),
            );
            assert_eq!(
                cs.len(),
                ds.len(),
                "{name}: chunks of group at {}",
                g["offset"]
            );
            for (c, d) in cs.iter().zip(ds) {
                for k in chunk_keys {
                    assert_eq!(c[k], d[k], "{name}: chunk at {}: {k}", c["offset"]);
                }
            }
        }
        for k in ["index_roots", "meta_offset", "bloom_filter"] {
            assert_eq!(s["meta"][k], raw["meta"][k], "{name}: meta.{k}");
        }
        // Every TimeseriesMetadata lies between the separator and the footer, in order.
        let series = s["index"]["series"].as_array().unwrap();
        assert_eq!(
            series.len() as u64,
            raw["index"]
                .as_object()
                .unwrap()
                .values()
                .map(|t| t["series"].as_u64().unwrap())
                .sum::<u64>(),
            "{name}"
        );
        assert_eq!(
            series[0]["offset"],
            raw["separator_offset"].as_u64().unwrap() + 1,
            "{name}"
        );
    }
}

#[test]
fn sketch_text_and_cut_files() {
    let bytes = fixture("basic");
    let text = sketch(&bytes[..], &Limits::default()).unwrap().to_text();
    for want in [
        "                  28|\t[Chunk] measurement \"\", marker 0x85",
        "                 333|\t[marker] 2",
        "                 850|\t[TsFileMetadata] 309 bytes",
        "                1169|\tEND of TsFile",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let cut = sketch(&bytes[..200], &Limits::default()).unwrap();
    assert!(cut.metadata.is_none());
    let j = cut.to_json();
    assert_eq!(j["chunk_groups"][1]["complete"], false);
    assert_eq!(j["stop"]["offset"], 180);
    assert!(cut.to_text().contains("is incomplete"));
}
