//! Parquet round trips (feature `parquet`): TsFile and RCFile fixtures to Parquet and back,
//! read back with `cat`; what Parquet cannot hold is refused with a message, not a panic.

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
        ok(convert(&pq, &rc, &f.args));
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
fn parquet_and_text_formats_are_refused() {
    let f = ts_fixture("basic");
    let dir = tmp("parquet_text");
    let pq = dir.join("b.parquet");
    ok(convert(&f.path, &pq, &[]));
    for out in ["b.csv", "b.jsonl"] {
        let o = convert(&pq, &dir.join(out), &[]);
        assert_eq!(o.status.code(), Some(2), "{out}");
        assert!(!dir.join(out).exists());
    }
    let o = convert(&pq, &dir.join("x.parquet"), &strs(&["--codec", "brotli"]));
    assert_eq!(o.status.code(), Some(2));
    // A Parquet file cut short is bad data.
    let bytes = std::fs::read(&pq).unwrap();
    let cut = dir.join("cut.parquet");
    std::fs::write(&cut, &bytes[..bytes.len() - 10]).unwrap();
    let o = convert(&cut, &dir.join("c.tsfile"), &[]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(String::from_utf8_lossy(&o.stderr).lines().count(), 1);
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
