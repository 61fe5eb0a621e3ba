//! Building IoTDB data directories in tests: TsFiles of `(time, s1, s2)` INT64 rows
//! (devices under `root.sg.a*` aligned) and a test-side `.resource` writer for the byte
//! layout of `docs/design/tsfile-v3-and-mods.md` §4 (time index types 1 and 3).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use colfile::tsfile::{
    Compression, DataType, DeviceId, Encoding, MeasurementSchema, TsFileWriter, ValueRef,
    WriterOptions,
};

pub const SEQ: &str = "sequence/root.sg/1/0";
pub const UNSEQ: &str = "unsequence/root.sg/1/0";

/// A fresh empty folder under the system temp dir.
pub fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-dataset-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Points of one file: device path → (time, s1, s2) rows; `None` is null.
pub type Rows = BTreeMap<&'static str, Vec<(i64, Option<i64>, Option<i64>)>>;

pub fn rows(device: &'static str, points: &[(i64, Option<i64>, Option<i64>)]) -> Rows {
    BTreeMap::from([(device, points.to_vec())])
}

/// Writes `rows` as a tree-model TsFile (devices under `root.sg.a*` aligned).
pub fn write_tsfile(path: &Path, rows: &Rows) {
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    let m = |n: &str| {
        MeasurementSchema::new(
            n,
            DataType::Int64,
            Encoding::Plain,
            Compression::Uncompressed,
        )
    };
    for (dev, points) in rows {
        w.register_device(dev, dev.starts_with("root.sg.a"), vec![m("s1"), m("s2")])
            .unwrap();
        for (t, a, b) in points {
            let mut vals = Vec::new();
            if let Some(a) = a {
                vals.push(("s1", ValueRef::Int64(*a)));
            }
            if let Some(b) = b {
                vals.push(("s2", ValueRef::Int64(*b)));
            }
            w.write_record(dev, *t, &vals).unwrap();
        }
    }
    let bytes = w.finish_into_inner().unwrap().0;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// The test-side `.resource` writer: version 1, time index `kind` (1 or 3), devices listed
/// in reverse order of their range index (as a hash map would), plan indexes, and a 1.x tail.
pub fn resource_bytes(kind: u8, rows: &Rows) -> Vec<u8> {
    let mut b = vec![1u8, kind];
    b.extend((rows.len() as i32).to_be_bytes());
    for points in rows.values() {
        let start = points.iter().map(|p| p.0).min().unwrap();
        let end = points.iter().map(|p| p.0).max().unwrap();
        b.extend(start.to_be_bytes());
        b.extend(end.to_be_bytes());
    }
    for (i, dev) in rows.keys().enumerate().rev() {
        if kind == 3 {
            DeviceId::from_tree_path(dev)
                .unwrap()
                .write_to(&mut b)
                .unwrap();
        } else {
            b.extend((dev.len() as i32).to_be_bytes());
            b.extend(dev.as_bytes());
        }
        b.extend((i as i32).to_be_bytes());
    }
    b.extend(9i64.to_be_bytes());
    b.extend(1i64.to_be_bytes());
    b.extend((-1i32).to_be_bytes());
    b
}

/// Writes a TsFile and, when `kind` is set, its `.resource`.
pub fn put(dir: &Path, rel: &str, rows: &Rows, kind: Option<u8>) -> PathBuf {
    let path = dir.join(rel);
    write_tsfile(&path, rows);
    if let Some(k) = kind {
        std::fs::write(
            format!("{}.resource", path.display()),
            resource_bytes(k, rows),
        )
        .unwrap();
    }
    path
}
