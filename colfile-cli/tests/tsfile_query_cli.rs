//! `colfile cat` on TsFiles: results equal the official library's for the same query (goldens
//! in fixtures/tsfile/queries, written by its gen.py through the official reader), and
//! `--offset`/`--limit`/`--explain` cut and report as documented.

use colfile_testkit::tsdump::{canon, parse_lines, ts_fixtures_dir};
use serde_json::Value as Json;
use std::process::Command;

// ---------------------------------------------------------------------------------------
// Against the official library

fn sorted_rows(text: &str) -> Vec<String> {
    let mut v: Vec<String> = parse_lines(text)
        .iter()
        .filter(|l| l["kind"] == "row")
        .map(canon)
        .collect();
    v.sort();
    v
}

/// `colfile cat --format dump` with the case's options.
fn cat_case(case: &Json) -> String {
    let file = ts_fixtures_dir().join(format!("{}.tsfile", case["file"].as_str().unwrap()));
    let mut args: Vec<String> = vec![
        "cat".into(),
        file.to_string_lossy().into_owned(),
        "--format".into(),
        "dump".into(),
        "--table".into(),
        case["table"].as_str().unwrap().into(),
    ];
    for k in ["columns", "where"] {
        if let Some(v) = case.get(k).and_then(Json::as_str) {
            args.extend([format!("--{k}"), v.to_owned()]);
        }
    }
    for k in ["start", "end"] {
        if let Some(v) = case.get(k).and_then(Json::as_i64) {
            args.extend([format!("--{k}"), v.to_string()]);
        }
    }
    for t in case["tags"].as_array().into_iter().flatten() {
        args.extend(["--tag".into(), t.as_str().unwrap().to_owned()]);
    }
    let out = Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(&args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn cat_queries_equal_the_official_reader() {
    let dir = ts_fixtures_dir().join("queries");
    let cases: Vec<Json> =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cases.json")).unwrap()).unwrap();
    assert!(cases.len() >= 20);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.jsonl"))).unwrap();
        let ours = cat_case(case);
        let (e, o) = (sorted_rows(&expected), sorted_rows(&ours));
        assert_eq!(e.len(), o.len(), "{name}: row count");
        assert_eq!(e, o, "{name}");
    }
}

#[test]
fn cat_offset_limit_and_explain() {
    let file = ts_fixtures_dir().join("multi_chunk.tsfile");
    let cat = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_colfile"))
            .arg("cat")
            .arg(&file)
            .args(["--table", "mc", "--columns", "dev,v"])
            .args(extra)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<String> = stdout.lines().map(str::to_owned).collect();
        (lines, String::from_utf8(out.stderr).unwrap())
    };
    let (all, _) = cat(&[]);
    assert_eq!(all.len(), 3000);
    assert_eq!(all[0], r#"{"table":"mc","time":0,"dev":"a","v":7}"#);
    let (cut, report) = cat(&["--offset", "995", "--limit", "10", "--explain"]);
    assert_eq!(cut, all[995..1005]);
    assert!(report.contains("devices: 3 considered"), "{report}");
    assert!(
        report.contains("rows:") && report.contains("10 returned"),
        "{report}"
    );
    let (some, report) = cat(&[
        "--where",
        "v between 1990 and 5000 and dev != 'a'",
        "--explain",
    ]);
    let want: Vec<&String> = all
        .iter()
        .filter(|l| {
            let j: Json = serde_json::from_str(l).unwrap();
            let v = j["v"].as_i64();
            j["dev"] != "a" && v.is_some_and(|v| (1990..=5000).contains(&v))
        })
        .collect();
    assert_eq!(some.iter().collect::<Vec<_>>(), want);
    assert!(!want.is_empty());
    assert!(report.contains("1 tag filter"), "{report}");
    assert!(report.contains("value statistics"), "{report}");
}
