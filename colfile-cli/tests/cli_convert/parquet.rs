//! Parquet round trips (feature `parquet`): TsFile and RCFile fixtures to Parquet and back,
//! read back with `cat`; Parquet to and from CSV and JSONL; what Parquet cannot hold is
//! refused with a message, not a panic.

use super::fixtures::*;
use colfile::rcfile::HiveType;

fn has_union(t: &HiveType) -> bool {
    match t {
        HiveType::Union(_) => true,
        HiveType::Array(t) => has_union(t),
        HiveType::Map(k, v) => has_union(k) || has_union(v),
        HiveType::Struct(fs) => fs.iter().any(|f| has_union(&f.ty)),
        _ => false,
    }
}

#[test]
fn tsfile_to_parquet_and_back() {
    let dir = tmp("parquet_ts");
    for f in ts_fixtures() {
        let pq = dir.join(format!("{}.parquet", f.name));
        ok(convert(&f.path, &pq, &[]));
        assert_eq!(&std::fs::read(&pq).unwrap()[..4], b"PAR1", "{}", f.name);
        let ts = dir.join(format!("{}.tsfile", f.name));
        ok(convert(&pq, &ts, &strs(&["--table", &f.table])));
        assert_same_rows(&cat(&ts, &[]), &f.rows, &f.name);
    }
}

#[test]
fn rcfile_to_parquet_and_back() {
    let dir = tmp("parquet_rc");
    let mut round_trips = 0;
    for f in rc_fixtures() {
        let pq = dir.join(format!("{}.parquet", f.name));
        let out = convert(&f.path, &pq, &f.args);
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        if f.schema.columns().iter().any(|c| has_union(&c.ty)) {
            assert_eq!(out.status.code(), Some(2), "{}: {err}", f.name);
            assert!(err.contains("union"), "{err}");
            assert!(!pq.exists());
            continue;
        }
        if !out.status.success() {
            // Hive timestamps beyond Arrow's nanosecond range (years 1677-2262).
            assert_eq!(out.status.code(), Some(1), "{}: {err}", f.name);
            assert!(f
                .schema
                .columns()
                .iter()
                .any(|c| c.ty == HiveType::Timestamp));
            assert!(
                err.contains("timestamp") && err.lines().count() == 1,
                "{err}"
            );
            continue;
        }
        let rc = dir.join(format!("{}.rc", f.name));
        let mut args = f.args.clone();
        args.extend(["--sync".into(), SYNC.into()]);
        ok(convert(&pq, &rc, &args));
        assert!(has_sync(&rc), "{}: --sync", f.name);
        assert_same_rows(&cat(&rc, &f.args), &f.rows, &f.name);
        round_trips += 1;
    }
    assert!(
        round_trips >= 15,
        "only {round_trips} fixtures went through Parquet"
    );
}

#[test]
fn tsfile_through_parquet_to_rcfile() {
    // The TsFile time column is an Arrow UTC timestamp, so it becomes a Hive timestamp.
    let f = ts_fixture("basic");
    let dir = tmp("parquet_ts_rc");
    let pq = dir.join("b.parquet");
    ok(convert(&f.path, &pq, &[]));
    let rc = dir.join("b.rc");
    ok(convert(&pq, &rc, &strs(&["--out-serde", "text"])));
    let schema = "time:timestamp,city:string,station:string,temp:double,count:bigint,status:string";
    let back = cat(&rc, &strs(&["--schema", schema, "--serde", "text"]));
    assert_eq!(back.len(), f.rows.len());
    for (b, r) in back.iter().zip(&f.rows) {
        let ms = r["time"].as_i64().unwrap();
        let t = colfile::rcfile::Timestamp::new(
            ms.div_euclid(1000),
            (ms.rem_euclid(1000) * 1_000_000) as u32,
        )
        .unwrap();
        assert_eq!(b["time"], serde_json::Value::from(t.to_string()));
        for k in ["city", "station", "temp", "count", "status"] {
            assert_eq!(b[k], r[k], "{k}");
        }
    }
}

#[test]
fn parquet_to_jsonl_and_csv_is_what_cat_prints() {
    // Parquet keeps each column's Hive type in its field metadata, so the rows come out of
    // Parquet exactly as `cat` prints the RCFile they came from.
    let dir = tmp("parquet_to_text");
    let mut checked = 0;
    for f in rc_fixtures() {
        let pq = dir.join(format!("{}.parquet", f.name));
        if !convert(&f.path, &pq, &f.args).status.success() {
            continue; // unions and out-of-range timestamps: see rcfile_to_parquet_and_back
        }
        let jsonl = dir.join(format!("{}.jsonl", f.name));
        ok(convert(&pq, &jsonl, &[]));
        assert_same_text(&read(&jsonl), &cat_text(&f.path, &f.args), &f.name);
        let csv = dir.join(format!("{}.csv", f.name));
        ok(convert(&pq, &csv, &[]));
        let mut csv_args = f.args.clone();
        csv_args.extend(["--format".into(), "csv".into()]);
        assert_same_text(&read(&csv), &cat_text(&f.path, &csv_args), &f.name);
        checked += 1;
    }
    assert!(
        checked >= 15,
        "only {checked} fixtures went through Parquet"
    );
}

#[test]
fn jsonl_and_csv_to_parquet_and_back() {
    let dir = tmp("text_to_parquet");
    let jsonl = dir.join("in.jsonl");
    let rows = concat!(
        r#"{"id":1,"name":"a","v":1.5,"tags":["x","y"],"m":[["k",true]]}"#,
        "\n",
        r#"{"id":2,"name":null,"v":-2.25,"tags":[],"m":[]}"#,
        "\n",
        r#"{"id":3,"name":"c\"q, é","v":null,"tags":null,"m":null}"#,
        "\n",
    );
    std::fs::write(&jsonl, rows).unwrap();
    let schema = "id:bigint,name:string,v:double,tags:array<string>,m:map<string,boolean>";
    let pq = dir.join("out.parquet");
    ok(convert(&jsonl, &pq, &strs(&["--schema", schema])));
    assert_eq!(&std::fs::read(&pq).unwrap()[..4], b"PAR1");
    let back = dir.join("back.jsonl");
    ok(convert(&pq, &back, &[]));
    assert_same_text(&read(&back), rows, "jsonl through parquet");
    let out = run(&strs(&["convert", path_str(&pq), "-", "--to", "jsonl"]));
    ok_ref(&out);
    assert_same_text(
        &String::from_utf8_lossy(&out.stdout),
        rows,
        "parquet to stdout",
    );
    // More rows than one Arrow batch, from CSV, back to CSV.
    let csv = dir.join("in.csv");
    let mut text = String::from("n,s\n");
    for i in 0..20_000 {
        text.push_str(&format!(
            "{i},{}\n",
            if i % 3 == 0 {
                String::new()
            } else {
                format!("s{i}")
            }
        ));
    }
    std::fs::write(&csv, &text).unwrap();
    let pq = dir.join("csv.parquet");
    ok(convert(&csv, &pq, &strs(&["--schema", "n:int,s:string"])));
    let back = dir.join("back.csv");
    ok(convert(&pq, &back, &[]));
    assert_same_text(&read(&back), &text, "csv through parquet");
    // Without types there is no Parquet schema.
    let o = convert(&csv, &dir.join("untyped.parquet"), &[]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--schema"));
    assert!(!dir.join("untyped.parquet").exists());
    // A row that does not fit its type names the row.
    std::fs::write(&jsonl, "{\"id\":1}\n{\"id\":\"x\"}\n").unwrap();
    let o = convert(
        &jsonl,
        &dir.join("bad.parquet"),
        &strs(&["--schema", "id:bigint"]),
    );
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("line 2") && err.lines().count() == 1, "{err}");
    assert!(!dir.join("bad.parquet").exists());
}

#[test]
fn bad_parquet_options_and_files() {
    let f = ts_fixture("basic");
    let dir = tmp("parquet_bad");
    let pq = dir.join("b.parquet");
    ok(convert(&f.path, &pq, &[]));
    let o = convert(&pq, &dir.join("x.parquet"), &strs(&["--codec", "brotli"]));
    assert_eq!(o.status.code(), Some(2));
    // A Parquet file cut short is bad data.
    let bytes = std::fs::read(&pq).unwrap();
    let cut = dir.join("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    for out in ["c.tsfile", "c.jsonl"] {
        let o = convert(&cut, &dir.join(out), &[]);
        assert_eq!(o.status.code(), Some(1), "{out}");
        assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
    }
    // Inputs cut short, their batches read on a thread of their own: the failure is still
    // one line naming the input, and no output is left.
    let rc = rc_fixture("all_types_binary_none");
    let ts = ts_fixture("basic");
    for (input, args) in [(&rc.path, rc.args.clone()), (&ts.path, vec![])] {
        let bytes = std::fs::read(input).unwrap();
        let cut = dir.join(format!(
            "cut_{}",
            input.file_name().unwrap().to_string_lossy()
        ));
        std::fs::write(&cut, &bytes[..bytes.len() / 2]).unwrap();
        for out in ["c.parquet", "c.arrow", "c.rc"] {
            let o = convert(&cut, &dir.join(out), &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{out}: {err}");
            assert_eq!(err.lines().count(), 1, "{err}");
            assert!(err.contains(path_str(&cut)), "{err}");
            assert!(!dir.join(out).exists(), "{out}");
        }
    }
}

#[test]
fn parquet_progress_on_stderr() {
    let f = ts_fixture("basic");
    let dir = tmp("parquet_progress");
    let o = convert(&f.path, &dir.join("b.parquet"), &strs(&["--progress"]));
    ok_ref(&o);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.lines()
            .last()
            .unwrap()
            .starts_with(&format!("converted {} rows in ", f.rows.len())),
        "{err}"
    );
}
