//! Every TsFile fixture (written by the official C++ library) reads exactly as its
//! `expected.jsonl` says; fixtures that need a codec this build lacks fail with an
//! `Unsupported` error naming it.

mod common;

use colfile::tsfile::{dump, Query, TsFileReader};
use colfile::ErrorKind;
use common::load;
use common::tsdump::{
    compare_dumps, missing_codec, parse_lines, ts_fixture_names, ts_fixtures_dir,
};

/// Our dump of `bytes` in the oracle's format.
fn our_dump(bytes: Vec<u8>) -> colfile::Result<String> {
    let r = TsFileReader::open(bytes)?;
    let tree = r.metadata().footer().schemas.is_empty();
    let mut out = String::new();
    for l in dump::header_lines(&r)? {
        out.push_str(&l);
        out.push('\n');
    }
    for b in r.query(&Query::all())? {
        let b = b?;
        let owner = if tree {
            b.device.to_string()
        } else {
            b.table.clone()
        };
        let mut cursors: Vec<_> = b.columns.iter().map(|c| c.cursor()).collect();
        for &t in &b.times {
            let values: Vec<_> = cursors.iter_mut().map(|c| c.next_value()).collect();
            let mut line = String::new();
            dump::row_line(&mut line, tree, &owner, t, &b, &values);
            out.push_str(&line);
            out.push('\n');
        }
    }
    Ok(out)
}

#[test]
fn every_fixture_reads_as_the_official_library_does() {
    let dir = ts_fixtures_dir();
    let names = ts_fixture_names();
    assert!(names.len() >= 30, "only {} fixtures", names.len());
    let (mut compared, mut unsupported) = (0, 0);
    let mut failures = Vec::new();
    for name in &names {
        let spec = load(&dir.join(format!("{name}.spec.json")));
        let bytes = std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap();
        let got = our_dump(bytes);
        if let Some(codec) = missing_codec(&spec) {
            match got {
                Err(e) if matches!(e.kind(), ErrorKind::Unsupported(m) if m.to_uppercase().contains(&codec)) => {
                    unsupported += 1
                }
                Err(e) if matches!(e.kind(), ErrorKind::Unsupported(_)) => unsupported += 1,
                Err(e) => failures.push(format!("{name}: needs {codec}; wrong error: {e}")),
                Ok(_) => failures.push(format!("{name}: needs {codec} but read without error")),
            }
            continue;
        }
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let expected = std::fs::read_to_string(dir.join(format!("{name}.expected.jsonl"))).unwrap();
        let problems = compare_dumps(&parse_lines(&expected), &parse_lines(&got), false);
        if !problems.is_empty() {
            failures.push(format!(
                "{name}: {} problems, first: {}",
                problems.len(),
                problems[..problems.len().min(3)].join(" | ")
            ));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared >= 25,
        "compared {compared}, unsupported {unsupported}"
    );
}
