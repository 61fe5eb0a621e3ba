//! The RCFile container against Hive 2.3's own files: every header field, every row group's
//! structure and every cell's bytes must match the oracle's dumps, and re-writing the cells
//! with the same options must reproduce Hive's bytes exactly (uncompressed files) or the
//! same structure (compressed files, whose codec bytes may differ).

use colfile_testkit as common;

use colfile::compress::HadoopCodec;
use colfile::rcfile::{HeaderVersion, RcFileReader, RcFileWriter};
use common::*;

fn check_structure(f: &Fixture, bytes: &[u8]) {
    let h = &f.dump["header"];
    let mut r = RcFileReader::new(bytes).unwrap_or_else(|e| panic!("{}: {e}", f.name));
    let hd = r.header().clone();
    let magic = std::str::from_utf8(&hd.magic[..3]).unwrap();
    assert_eq!(magic, h["magic"], "{}: magic", f.name);
    assert_eq!(
        hd.magic[3] as u64,
        h["version"].as_u64().unwrap(),
        "{}",
        f.name
    );
    assert_eq!(
        hd.codec.is_some(),
        h["compressed"].as_bool().unwrap(),
        "{}",
        f.name
    );
    assert_eq!(hd.codec_class.as_deref(), h["codec"].as_str(), "{}", f.name);
    let meta: Vec<(String, String)> = h["metadata"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
        .collect();
    let mut ours = hd.metadata.clone();
    ours.sort();
    let mut theirs = meta.clone();
    theirs.sort();
    assert_eq!(ours, theirs, "{}: metadata", f.name);
    assert_eq!(
        hd.column_count as u64,
        h["column_count"].as_u64().unwrap(),
        "{}",
        f.name
    );
    assert_eq!(
        hd.length,
        h["header_length"].as_u64().unwrap(),
        "{}",
        f.name
    );
    assert_eq!(hex(&hd.sync), h["sync"], "{}", f.name);
    let groups = f.dump["row_groups"].as_array().unwrap();
    let raw_groups = f
        .raw
        .as_ref()
        .map(|r| r["row_groups"].as_array().unwrap().clone());
    let mut i = 0;
    while let Some(g) = r
        .next_row_group()
        .unwrap_or_else(|e| panic!("{}: {e}", f.name))
    {
        let d = &groups[i];
        let ctx = format!("{} group {i}", f.name);
        assert_eq!(g.byte_range().start, d["offset"].as_u64().unwrap(), "{ctx}");
        assert_eq!(g.byte_range().end, d["end"].as_u64().unwrap(), "{ctx}");
        assert_eq!(
            g.sync_before(),
            d["sync_before"].as_bool().unwrap(),
            "{ctx}"
        );
        assert_eq!(g.num_rows() as u64, d["rows"].as_u64().unwrap(), "{ctx}");
        assert_eq!(
            g.record_length() as u64,
            d["record_length"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            g.key_length() as u64,
            d["key_length"].as_u64().unwrap(),
            "{ctx}"
        );
        assert_eq!(
            g.compressed_key_length() as u64,
            d["compressed_key_length"].as_u64().unwrap(),
            "{ctx}"
        );
        for (c, dc) in d["columns"].as_array().unwrap().iter().enumerate() {
            let l = &g.layout()[c];
            assert_eq!(
                l.on_disk_len,
                dc["length"].as_u64().unwrap(),
                "{ctx} col {c}"
            );
            assert_eq!(
                l.plain_len,
                dc["uncompressed_length"].as_u64().unwrap(),
                "{ctx} col {c}"
            );
            assert_eq!(
                hex(g.cell_lengths_buffer(c).unwrap()),
                dc["cell_lengths_hex"],
                "{ctx} col {c}"
            );
            if let Some(rg) = &raw_groups {
                let cells: Vec<String> = g.column(c).unwrap().cells().map(hex).collect();
                let want: Vec<String> = rg[i]["columns"][c]["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_str().unwrap().to_string())
                    .collect();
                assert_eq!(cells, want, "{ctx} col {c} cells");
            }
        }
        i += 1;
    }
    assert_eq!(i, groups.len(), "{}: row group count", f.name);
    assert_eq!(i as u64, h["row_group_count"].as_u64().unwrap());
}

#[test]
fn every_fixture_matches_hive_structure_and_cells() {
    for f in fixtures() {
        let bytes = std::fs::read(&f.rc).unwrap();
        check_structure(&f, &bytes);
        // The same through a file source (positioned reads instead of a slice).
        let src = colfile::source::FileSource::open(&f.rc).unwrap();
        let mut r = RcFileReader::new(src).unwrap();
        let mut rows = 0;
        while let Some(g) = r.next_row_group().unwrap() {
            rows += g.num_rows() as u64;
        }
        assert_eq!(
            rows,
            f.dump["header"]["row_count"].as_u64().unwrap(),
            "{}",
            f.name
        );
    }
}

#[test]
fn impala_seq6_file_reads() {
    let Some(dir) = external_dir() else { return };
    let f = Fixture {
        name: "impala_oldrcfile".into(),
        rc: dir.join("impala_oldrcfile.rc"),
        dump: load(&dir.join("impala_oldrcfile.json")),
        raw: None,
        spec: None,
    };
    let bytes = std::fs::read(&f.rc).unwrap();
    check_structure(&f, &bytes);
    let mut r = RcFileReader::new(bytes.as_slice()).unwrap();
    assert_eq!(r.header().version, HeaderVersion::Seq6);
    let g = r.next_row_group().unwrap().unwrap();
    let keys: Vec<&[u8]> = g.column(0).unwrap().cells().collect();
    assert_eq!(keys, [&b"1"[..], b"3", b"4", b"5", b"10"]);
}

/// Rewrites a fixture's raw cells with the writer and the fixture's options.
fn rewrite_cells(f: &Fixture) -> Vec<u8> {
    let h = &f.dump["header"];
    let raw = f.raw.as_ref().unwrap();
    let spec = f.spec.as_ref();
    let cols = h["column_count"].as_u64().unwrap() as usize;
    let codec = h["codec"]
        .as_str()
        .map(|c| HadoopCodec::from_class_name(c).unwrap());
    let mut sync = [0u8; 16];
    sync.copy_from_slice(&unhex(h["sync"].as_str().unwrap()));
    let mut b = RcFileWriter::builder(Vec::new(), cols)
        .with_codec(codec)
        .with_sync(sync)
        .with_validation(true);
    if h["magic"] == "SEQ" {
        b = b.with_version(HeaderVersion::Seq6);
    }
    if let Some(n) = spec.and_then(|s| s["row_group_rows"].as_u64()) {
        b = b.with_row_group_rows(n as usize);
    }
    if let Some(n) = spec.and_then(|s| s["row_group_bytes"].as_u64()) {
        b = b.with_row_group_bytes(n as usize);
    }
    for (k, v) in h["metadata"].as_object().unwrap() {
        b = b.with_metadata(k.clone(), v.as_str().unwrap());
    }
    let mut w = b.build().unwrap();
    for g in raw["row_groups"].as_array().unwrap() {
        let columns: Vec<Vec<Vec<u8>>> = g["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                c["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| unhex(x.as_str().unwrap()))
                    .collect()
            })
            .collect();
        let rows = g["rows"].as_u64().unwrap() as usize;
        for r in 0..rows {
            let row: Vec<&[u8]> = columns.iter().map(|c| c[r].as_slice()).collect();
            w.write_row(&row).unwrap();
        }
    }
    w.finish_into_inner().unwrap().0
}

#[test]
fn writer_reproduces_hive_bytes_and_structure() {
    let mut identical = 0;
    for f in fixtures() {
        if f.raw.is_none() || f.name.starts_with("spark_") {
            continue; // Spark's files use random syncs and its own row-group cuts
        }
        let ours = rewrite_cells(&f);
        let theirs = std::fs::read(&f.rc).unwrap();
        if f.dump["header"]["codec"].is_null() {
            assert!(
                ours == theirs,
                "{}: rewritten file differs from Hive's ({} vs {} bytes)",
                f.name,
                ours.len(),
                theirs.len()
            );
            identical += 1;
        } else {
            // Compressed bytes depend on the compressor; the structure and the cells must not.
            check_structure_loose(&f, &ours);
        }
    }
    assert!(identical >= 15, "only {identical} byte-identical rewrites");
}

/// Structure check for compressed rewrites: rows per group, plain lengths, cell-length
/// buffers and cells must match; on-disk sizes and offsets may not.
fn check_structure_loose(f: &Fixture, bytes: &[u8]) {
    let mut r = RcFileReader::new(bytes).unwrap();
    let groups = f.dump["row_groups"].as_array().unwrap();
    let raw_groups = f.raw.as_ref().unwrap()["row_groups"].as_array().unwrap();
    let mut i = 0;
    while let Some(g) = r.next_row_group().unwrap() {
        let d = &groups[i];
        assert_eq!(
            g.num_rows() as u64,
            d["rows"].as_u64().unwrap(),
            "{} group {i}",
            f.name
        );
        for (c, dc) in d["columns"].as_array().unwrap().iter().enumerate() {
            assert_eq!(
                g.layout()[c].plain_len,
                dc["uncompressed_length"].as_u64().unwrap()
            );
            assert_eq!(
                hex(g.cell_lengths_buffer(c).unwrap()),
                dc["cell_lengths_hex"]
            );
            let cells: Vec<String> = g.column(c).unwrap().cells().map(hex).collect();
            let want: Vec<&str> = raw_groups[i]["columns"][c]["cells"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap())
                .collect();
            assert_eq!(cells, want, "{} group {i} col {c}", f.name);
        }
        i += 1;
    }
    assert_eq!(i, groups.len(), "{}", f.name);
}

/// Row groups' columns compressed on several threads (each with its own codec) give the
/// bytes one thread gives, for every codec, in row groups above and below the size where
/// threads start.
#[test]
fn compressing_on_threads_writes_the_same_bytes() {
    // Six columns of 1 MiB-ish row groups, then a small last group.
    let rows: Vec<Vec<Vec<u8>>> = (0..40_000u32)
        .map(|i| {
            (0..6u32)
                .map(|c| {
                    let n = (i * 7 + c * 13) % 23;
                    format!("{c}:{i}:{}", "x".repeat(n as usize)).into_bytes()
                })
                .collect()
        })
        .collect();
    for codec in HadoopCodec::ALL {
        let write = |threads: usize| {
            let mut w = RcFileWriter::builder(Vec::new(), 6)
                .with_codec(Some(codec))
                .with_sync([3; 16])
                .with_row_group_bytes(1 << 20)
                .with_threads(threads)
                .build()
                .unwrap();
            for r in &rows {
                w.write_row(r).unwrap();
            }
            w.finish_into_inner().unwrap().0
        };
        let one = write(1);
        assert_eq!(write(2), one, "{codec:?}, 2 threads");
        assert_eq!(write(7), one, "{codec:?}, 7 threads");
        let mut r = RcFileReader::new(one.as_slice()).unwrap();
        let mut n = 0;
        while let Some(g) = r.next_row_group().unwrap() {
            n += g.num_rows();
        }
        assert_eq!(n, rows.len(), "{codec:?}");
    }
}
