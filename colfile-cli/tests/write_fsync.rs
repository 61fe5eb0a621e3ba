//! `colfile write --fsync` writes the same bytes as without, leaves no temporary file and
//! fails with exit 1 when the target directory does not exist.

use std::process::Command;

fn colfile<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
        .args(args)
        .output()
        .unwrap()
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cli_write_fsync_writes_the_same_file() {
    let dir = std::env::temp_dir().join(format!("colfile-fsync-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join("in.jsonl");
    std::fs::write(&input, "[1, \"a\"]\n[2, \"bb\"]\n[3, null]\n").unwrap();
    let ts_input = dir.join("ts.jsonl");
    std::fs::write(&ts_input, "[1, \"x\", 1.5]\n[2, \"y\", null]\n").unwrap();
    let path = |name: &str| dir.join(name).display().to_string();
    let rc = |out: &str| {
        let mut a = strings(&["write", out, "--schema", "id:int,name:string"]);
        a.extend(strings(&[
            "--serde",
            "text",
            "--input",
            input.to_str().unwrap(),
        ]));
        a.extend(strings(&["--sync", "000102030405060708090a0b0c0d0e0f"]));
        a
    };
    let ts = |out: &str| {
        let mut a = strings(&["write", out, "--format", "tsfile", "--table", "t"]);
        a.extend(strings(&["--schema", "dev:STRING:TAG,v:DOUBLE:FIELD"]));
        a.extend(strings(&["--input", ts_input.to_str().unwrap()]));
        a
    };
    let cases = [
        (
            path("a.rc"),
            path("b.rc"),
            3,
            &rc as &dyn Fn(&str) -> Vec<String>,
        ),
        (path("a.tsfile"), path("b.tsfile"), 2, &ts),
    ];
    for (plain, synced, rows, args) in cases {
        let o = colfile(&args(&plain));
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let mut with = args(&synced);
        with.push("--fsync".into());
        let o2 = colfile(&with);
        assert!(
            o2.status.success(),
            "{}",
            String::from_utf8_lossy(&o2.stderr)
        );
        assert_eq!(o.stdout, o2.stdout, "same summary line");
        let (a, b) = (
            std::fs::read(&plain).unwrap(),
            std::fs::read(&synced).unwrap(),
        );
        assert_eq!(a, b, "--fsync changes no byte");
        let cat = colfile(&["cat", &synced]);
        assert!(
            cat.status.success(),
            "{}",
            String::from_utf8_lossy(&cat.stderr)
        );
        assert_eq!(String::from_utf8_lossy(&cat.stdout).lines().count(), rows);
    }
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains("colfile-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    // A directory that does not exist: exit 1, one line on stderr.
    let mut bad = rc(&dir.join("missing").join("x.rc").display().to_string());
    bad.push("--fsync".into());
    let o = colfile(&bad);
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
