//! `colfile mods`: the deletions of `fixtures/mods/` as JSON lines, a TsFile without
//! modification files prints nothing, a damaged file fails with its location.

use serde_json::Value as Json;
use std::process::Command;

fn colfile(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .current_dir(colfile_testkit::repo_root())
        .output()
        .unwrap()
}

fn lines(o: &std::process::Output) -> Vec<Json> {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8(o.stdout.clone()).unwrap();
    text.lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn prints_both_files_of_a_tsfile() {
    let all = lines(&colfile(&["mods", "fixtures/mods/deletions.tsfile"]));
    assert_eq!(all.len(), 3);
    assert_eq!(
        all[0],
        serde_json::json!({"kind": "tree", "pattern": "root.sg.d1.s1", "start": 100, "end": 300, "file_offset": 1024})
    );
    assert_eq!(all[1]["pattern"], "root.sg.`a,b`.**");
    let table = &all[2];
    assert_eq!(
        (&table["kind"], &table["table"]),
        (&"table".into(), &"t".into())
    );
    assert_eq!(table["columns"], serde_json::json!(["s1"]));
    let and = &table["devices"]["and"];
    assert_eq!(
        and[0],
        serde_json::json!({"segment": {"index": 1, "value": "a"}})
    );
    assert_eq!(and[1], serde_json::json!({"exact": ["t", "a"]}));
    assert!(table.get("file_offset").is_none());

    let one = lines(&colfile(&["mods", "fixtures/mods/deletions.tsfile.mods"]));
    assert_eq!(one, all[..2]);
    assert!(lines(&colfile(&["mods", "fixtures/tsfile/basic.tsfile"])).is_empty());
}

#[test]
fn damaged_and_missing_files_fail() {
    let dir = std::env::temp_dir().join(format!("colfile-mods-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("x.tsfile.mods");
    std::fs::write(&bad, "DELETION,root.a,1,2,3\nDELETION,root.a,x,y,3\n").unwrap();
    let o = colfile(&["mods", bad.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 2") && err.contains("at byte 22"),
        "{err}"
    );
    let o = colfile(&["mods", dir.join("none.mods2").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(colfile(&["mods"]).status.code(), Some(2));
    assert_eq!(colfile(&["mods", "a", "b"]).status.code(), Some(2));
    let _ = std::fs::remove_dir_all(&dir);
}
