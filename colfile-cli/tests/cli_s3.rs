//! `colfile cat/scan/meta/schema/head/count/convert` on `s3://` URLs, against a real
//! S3-compatible server (moto, started by the test): the output is the output for the local
//! copy, credentials and endpoint come from the standard `AWS_*` variables, and a missing
//! object is an error naming the URL.

#[path = "support/run.rs"]
mod run;

use std::process::{Command, Output};

use colfile_testkit::s3::MotoServer;
use run::stdout;

fn colfile_env(server: &MotoServer, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_colfile"));
    cmd.args(args);
    for (k, v) in server.env() {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn fixture(rel: &str) -> String {
    colfile_testkit::repo_root().join(rel).display().to_string()
}

/// `text` without the `"seconds":…` that `scan` reports.
fn timeless(text: &str) -> String {
    let mut out = String::new();
    for line in text.lines() {
        match line.find(",\"seconds\":") {
            Some(i) => {
                let rest = &line[i + 1..];
                let end = rest.find([',', '}']).unwrap_or(rest.len());
                out.push_str(&line[..i]);
                out.push_str(&rest[end..]);
            }
            None => out.push_str(line),
        }
        out.push('\n');
    }
    out
}

#[test]
fn urls_read_as_local_files() {
    let server = MotoServer::start();
    server.create_bucket("data");
    let ts = fixture("fixtures/tsfile/basic.tsfile");
    let rc = fixture("fixtures/rcfile/multi_group_text.rc");
    server.put_object("data", "t/basic.tsfile", &std::fs::read(&ts).unwrap());
    server.put_object(
        "data",
        "w/dt=2024-01-01/part-0.rc",
        &std::fs::read(&rc).unwrap(),
    );
    let ts_url = "s3://data/t/basic.tsfile";
    let rc_url = "s3://data/w/dt=2024-01-01/part-0.rc";
    let rc_args = [
        "--schema",
        "id:int,same:string,grp:bigint,txt:string",
        "--serde",
        "text",
    ];
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec!["cat", ts_url], vec!["cat", &ts]),
        (
            vec!["cat", ts_url, "--limit", "3"],
            vec!["cat", &ts, "--limit", "3"],
        ),
        (vec!["meta", ts_url], vec!["meta", &ts]),
        (vec!["schema", ts_url], vec!["schema", &ts]),
        (vec!["scan", ts_url], vec!["scan", &ts]),
        (vec!["count", ts_url], vec!["count", &ts]),
        (
            [&["cat", rc_url][..], &rc_args[..]].concat(),
            [&["cat", &rc][..], &rc_args[..]].concat(),
        ),
        (vec!["meta", rc_url], vec!["meta", &rc]),
        (
            [&["scan", rc_url][..], &rc_args[..]].concat(),
            [&["scan", &rc][..], &rc_args[..]].concat(),
        ),
    ];
    for (remote, local) in cases {
        let want = timeless(&stdout(&colfile_env(&server, &local)));
        let got = timeless(&stdout(&colfile_env(&server, &remote)));
        // `meta` names the file it read; the rest must be the same.
        let got = got.replace(ts_url, &ts).replace(rc_url, &rc);
        assert_eq!(got, want, "{remote:?}");
        assert!(!want.is_empty(), "{local:?}");
    }
}

#[test]
fn a_missing_object_names_the_url() {
    let server = MotoServer::start();
    server.create_bucket("data");
    let o = colfile_env(&server, &["cat", "s3://data/nope.tsfile"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("s3://data/nope.tsfile"), "{err}");
    // A URL the stores do not know is refused as such, before any request.
    let o = colfile_env(&server, &["cat", "ftp://host/x.tsfile"]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("ftp://host/x.tsfile"), "{err}");
}
