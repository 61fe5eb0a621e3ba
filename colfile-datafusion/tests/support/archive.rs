//! A Hive-partitioned TsFile archive for the tests: `site=…/day=…/*.tsfile` table-model
//! files (table `t`, from `colfile_testkit::iot::iot_table`), one with IoTDB deletions in a
//! `.mods2` beside it.
#![allow(dead_code)]

use std::path::PathBuf;

use colfile::tsfile::mods::{binary, Deletion, DevicePredicate, TablePredicate};

/// Each file: its path below the root, devices, rows per device.
pub const FILES: [(&str, usize, usize); 4] = [
    ("site=a/day=2024-01-01/x.tsfile", 5, 40),
    ("site=a/day=2024-01-02/x.tsfile", 3, 70),
    ("site=b%2Fc/day=2024-01-01/y.tsfile", 4, 30),
    (
        "site=__HIVE_DEFAULT_PARTITION__/day=2024-01-03/z.tsfile",
        2,
        25,
    ),
];

/// The file of [`FILES`] that has deletions: every row of times 100..=300.
pub const DELETED: &str = "site=a/day=2024-01-02/x.tsfile";

/// Writes the archive into a new temporary directory.
pub fn archive(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-tsparts-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for (rel, devices, rows) in FILES {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = colfile_testkit::iot::iot_table(devices, rows, devices * rows / 3 + 1);
        std::fs::write(&path, bytes).unwrap();
    }
    let whole_rows = TablePredicate {
        table: "t".into(),
        device: DevicePredicate::All,
        measurements: Vec::new(),
    };
    let mods = binary::write(&[Deletion::table(whole_rows, 100, 300)]).unwrap();
    std::fs::write(dir.join(format!("{DELETED}.mods2")), mods).unwrap();
    dir
}
