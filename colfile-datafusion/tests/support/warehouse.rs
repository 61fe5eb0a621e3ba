//! A Hive-partitioned RCFile warehouse for the tests: `dt=…/region=…/part-0.rc` files of
//! known rows, and a damaged file in a partition the tests' filters leave out.
#![allow(dead_code)]

use std::path::PathBuf;

use colfile::rcfile::RcFileWriter;

pub const PARTS: [(&str, &str, i32); 4] = [
    ("2024-01-01", "eu", 10),
    ("2024-01-01", "us%2Fwest", 20),
    ("2024-01-02", "eu", 30),
    ("2024-01-02", "__HIVE_DEFAULT_PARTITION__", 40),
];

/// Writes one text-serde RCFile `id:int,v:string` per partition (ids `base..base+n`), and a
/// damaged file under `dt=2023-12-31/region=eu`.
pub fn warehouse(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-parts-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (dt, region, base) in PARTS {
        let d = dir.join(format!("dt={dt}/region={region}"));
        std::fs::create_dir_all(&d).unwrap();
        let mut w = RcFileWriter::builder(Vec::new(), 2).build().unwrap();
        for i in 0..base / 10 + 2 {
            let id = (base + i).to_string();
            w.write_row(&[id.as_str(), "x"]).unwrap();
        }
        std::fs::write(d.join("part-0.rc"), w.finish_into_inner().unwrap().0).unwrap();
    }
    let bad = dir.join("dt=2023-12-31/region=eu");
    std::fs::create_dir_all(&bad).unwrap();
    std::fs::write(bad.join("part-0.rc"), b"RCF\x01not an rcfile at all").unwrap();
    dir
}
