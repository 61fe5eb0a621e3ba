//! `colfile recover`, `verify` and `sketch` on a TsFile cut in half: recover keeps the
//! complete chunk groups, verify passes the result and locates the cut's damage, sketch
//! prints text and JSON; bad arguments exit with 2.

use colfile_testkit::tsdump::ts_fixtures_dir;
use serde_json::Value as Json;
use std::process::Command;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(ts_fixtures_dir().join(format!("{name}.tsfile"))).unwrap()
}

fn colfile(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn cli_recover_sketch_verify() {
    let dir = std::env::temp_dir().join(format!("colfile-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = |n: &str| dir.join(n).to_string_lossy().into_owned();
    let bytes = fixture("multi_chunk");
    std::fs::write(p("cut.tsfile"), &bytes[..bytes.len() / 2]).unwrap();
    let o = colfile(&["recover", &p("cut.tsfile"), &p("fixed.tsfile")]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let line = String::from_utf8(o.stdout).unwrap();
    assert!(
        line.starts_with("recovered ") && line.contains("dropped 1 incomplete chunk group"),
        "{line}"
    );

    let o = colfile(&["verify", &p("fixed.tsfile")]);
    assert!(o.status.success());
    let out = String::from_utf8(o.stdout).unwrap();
    assert_eq!(out.lines().count(), 1);
    assert!(out.contains(": OK: "), "{out}");

    let o = colfile(&["verify", &p("cut.tsfile")]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8(o.stderr).unwrap();
    assert!(err.contains("Footer") && err.contains("byte "), "{err}");

    let o = colfile(&["sketch", &p("fixed.tsfile"), "--format", "json"]);
    assert!(o.status.success());
    let j: Json = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["tail_magic_ok"], true);
    let o = colfile(&["sketch", &p("fixed.tsfile")]);
    assert!(String::from_utf8(o.stdout)
        .unwrap()
        .contains("[TsFileMetadata]"));

    assert_eq!(
        colfile(&["recover", &p("cut.tsfile"), &p("cut.tsfile")])
            .status
            .code(),
        Some(2)
    );
    assert_eq!(
        colfile(&["sketch", &p("cut.tsfile"), "--format", "xml"])
            .status
            .code(),
        Some(2)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
