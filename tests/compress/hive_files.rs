//! Real files written by Hive 2.3: their column bytes decompress.

use super::*;

fn be_i32(data: &[u8], at: usize) -> usize {
    i32::from_be_bytes(data[at..at + 4].try_into().expect("4 bytes")) as usize
}

/// Decompresses every key section and column buffer of the compressed fixtures and compares
/// them with the oracle's dump of the cells.
#[test]
fn hive_fixtures_decompress() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/fixtures/rcfile");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no fixtures at {}; skipped", dir.display());
        return;
    };
    let mut checked = 0;
    for entry in entries {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_owned();
        let Some(stem) = name.strip_suffix(".raw.json") else {
            continue;
        };
        let dump: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("read")).expect("json");
        let Some(class) = dump["header"]["codec"].as_str() else {
            continue;
        };
        let file = std::fs::read(dir.join(format!("{stem}.rc"))).expect("rc file");
        let hadoop = HadoopCodec::from_class_name(class).expect("known codec");
        let mut codec = hadoop.codec().expect("codec");
        for group in dump["row_groups"].as_array().expect("groups") {
            let mut pos = group["offset"].as_u64().expect("offset") as usize;
            if group["sync_before"].as_bool() == Some(true) {
                pos += 20;
            }
            let key_len = be_i32(&file, pos + 4);
            let packed_key_len = be_i32(&file, pos + 8);
            assert_eq!(
                key_len as u64,
                group["key_length"].as_u64().expect("key length")
            );
            pos += 12;
            let key = decompress(codec.as_mut(), &file[pos..pos + packed_key_len], key_len)
                .unwrap_or_else(|e| panic!("{stem}: key section: {e}"));
            assert_eq!(key.len(), key_len);
            pos += packed_key_len;
            for (c, column) in group["columns"]
                .as_array()
                .expect("columns")
                .iter()
                .enumerate()
            {
                let on_disk = column["length"].as_u64().expect("length") as usize;
                let plain_len = column["uncompressed_length"].as_u64().expect("plain") as usize;
                let buffer = &file[pos..pos + on_disk];
                pos += on_disk;
                let plain = decompress(codec.as_mut(), buffer, plain_len)
                    .unwrap_or_else(|e| panic!("{stem}: column {c}: {e}"));
                let cells: Vec<u8> = column["cells"]
                    .as_array()
                    .expect("cells")
                    .iter()
                    .flat_map(|cell| hex(cell.as_str().expect("hex cell")))
                    .collect();
                assert!(plain == cells, "{stem}: column {c} differs");
                match hadoop {
                    HadoopCodec::Gzip => {
                        assert_eq!(&buffer[..10], &[0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0])
                    }
                    HadoopCodec::Default => assert_eq!(&buffer[..2], &[0x78, 0x9c]),
                    HadoopCodec::BZip2 => assert_eq!(&buffer[..4], b"BZh9"),
                    HadoopCodec::Snappy | HadoopCodec::Lz4 if plain_len == 0 => {
                        assert_eq!(buffer, &[0, 0, 0, 0]);
                    }
                    HadoopCodec::Snappy | HadoopCodec::Lz4 => {
                        assert_eq!(&buffer[..4], &be32(plain_len));
                    }
                    _ => {}
                }
                // Our writer's output of the same bytes reads back.
                check_round_trip(codec.as_mut(), &plain);
                checked += 1;
            }
            assert_eq!(pos as u64, group["end"].as_u64().expect("end"), "{stem}");
        }
    }
    eprintln!("checked {checked} compressed columns");
}
