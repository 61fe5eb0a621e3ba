//! `colfile convert --timestamp-unit s|ms|us|ns` (feature `parquet`): the timestamp
//! columns of Parquet and Arrow IPC output have the unit asked for, and their values are
//! the default output's, rescaled exactly (finer: multiplied; coarser: divided, rounding
//! down). Read back with the arrow-ipc crate; Parquet through a second convert to IPC,
//! which keeps the Parquet file's Arrow schema.
#![cfg(feature = "parquet")]

use colfile_testkit as common;
#[path = "cli_convert/fixtures.rs"]
mod fixtures;
#[path = "support/run.rs"]
mod run;

use arrow_array::{Array, Int64Array, RecordBatch};
use arrow_schema::{DataType, TimeUnit};
use fixtures::*;
use std::path::Path;

/// The schema's timestamp columns and each one's values (nulls as `None`), from an IPC file
/// or stream.
fn timestamps(p: &Path) -> Vec<(String, TimeUnit, Vec<Option<i64>>)> {
    let f = std::fs::File::open(p).unwrap();
    let batches: Vec<RecordBatch> = if p.extension().is_some_and(|e| e == "arrows") {
        arrow_ipc::reader::StreamReader::try_new(f, None)
            .unwrap()
            .map(Result::unwrap)
            .collect()
    } else {
        arrow_ipc::reader::FileReader::try_new(f, None)
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    let schema = batches[0].schema();
    let mut out = Vec::new();
    for (i, field) in schema.fields().iter().enumerate() {
        let DataType::Timestamp(unit, _) = field.data_type() else {
            continue;
        };
        let mut values = Vec::new();
        for b in &batches {
            let ints = Int64Array::from(
                b.column(i)
                    .to_data()
                    .into_builder()
                    .data_type(DataType::Int64)
                    .build()
                    .unwrap(),
            );
            values.extend(ints.iter());
        }
        out.push((field.name().clone(), *unit, values));
    }
    out
}

fn scaled(values: &[Option<i64>], f: impl Fn(i64) -> i64) -> Vec<Option<i64>> {
    values.iter().map(|v| v.map(&f)).collect()
}

#[test]
fn tsfile_times_take_the_unit_asked_for() {
    // basic: the time column; types_all: the time column and a TIMESTAMP field.
    for (fixture, columns) in [
        ("basic", &["time"][..]),
        ("types_all", &["time", "f_timestamp"]),
    ] {
        tsfile_times_in_each_unit(fixture, columns);
    }
}

fn tsfile_times_in_each_unit(fixture: &str, columns: &[&str]) {
    let f = ts_fixture(fixture);
    let dir = tmp(&format!("unit_ts_{fixture}"));
    let base = dir.join("default.arrow");
    ok(convert(&f.path, &base, &[]));
    let want = timestamps(&base);
    // Today's unit for a TsFile: milliseconds.
    let names: Vec<&str> = want.iter().map(|w| w.0.as_str()).collect();
    assert_eq!(names, columns);
    assert!(want.iter().all(|(_, u, _)| *u == TimeUnit::Millisecond));
    // (unit, multiplier, divisor) from milliseconds.
    let cases = [
        ("ns", TimeUnit::Nanosecond, 1_000_000, 1),
        ("us", TimeUnit::Microsecond, 1000, 1),
        ("ms", TimeUnit::Millisecond, 1, 1),
        ("s", TimeUnit::Second, 1, 1000),
    ];
    for (name, unit, mul, div) in cases {
        // A finer unit cannot hold every millisecond value (types_all has i64::MIN).
        let fits = want
            .iter()
            .flat_map(|w| w.2.iter().flatten())
            .all(|v| v.checked_mul(mul).is_some());
        assert!(fits || fixture == "types_all", "{fixture} {name}");
        for ext in ["arrow", "arrows"] {
            let out = dir.join(format!("t_{name}.{ext}"));
            let o = convert(&f.path, &out, &strs(&["--timestamp-unit", name]));
            if !fits {
                let err = String::from_utf8_lossy(&o.stderr);
                assert_eq!(o.status.code(), Some(1), "{err}");
                assert!(err.contains("does not fit a 64-bit timestamp"), "{err}");
                assert!(!out.exists());
                continue;
            }
            ok(o);
            let got = timestamps(&out);
            assert_eq!(got.len(), want.len(), "{name}");
            for ((gn, gu, gv), (wn, _, wv)) in got.iter().zip(&want) {
                assert_eq!((gn, *gu), (wn, unit), "{name} {ext}");
                assert_eq!(
                    gv,
                    &scaled(wv, |v| (v * mul).div_euclid(div)),
                    "{name} {ext} {gn}"
                );
            }
        }
    }
}

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d`.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * ((m + 9) % 12) + 2) / 5 + d - 1;
    era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468
}

/// `cat`'s `YYYY-MM-DD HH:MM:SS[.fffffffff]` as a count of 10^-`digits` seconds since the
/// epoch (the wall clock read as UTC), rounded down.
fn epoch(text: &str, digits: u32) -> i64 {
    let n = |s: &str| s.parse::<i64>().unwrap();
    let (date, time) = text.split_once(' ').unwrap();
    let d: Vec<i64> = date.split('-').map(n).collect();
    let (hms, frac) = time.split_once('.').unwrap_or((time, ""));
    let t: Vec<i64> = hms.split(':').map(n).collect();
    let secs = days_from_civil(d[0], d[1], d[2]) * 86_400 + t[0] * 3600 + t[1] * 60 + t[2];
    let nanos = n(&format!("{frac:0<9}"));
    secs * 10i64.pow(digits) + nanos / 10i64.pow(9 - digits)
}

#[test]
fn hive_timestamps_take_the_unit_asked_for() {
    // Its timestamps run to 9999-12-31 23:59:59.999999999, past what nanoseconds hold.
    let f = rc_fixture("all_types_text_none");
    let dir = tmp("unit_rc");
    let o = convert(&f.path, &dir.join("default.arrow"), &f.args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("coarser unit"), "{err}");
    let texts: Vec<Option<String>> = cat(&f.path, &f.args)
        .iter()
        .map(|r| r["ts"].as_str().map(String::from))
        .collect();
    assert!(texts
        .iter()
        .any(|t| t.as_deref() == Some("9999-12-31 23:59:59.999999999")));
    for (name, unit, digits) in [
        ("us", TimeUnit::Microsecond, 6),
        ("ms", TimeUnit::Millisecond, 3),
        ("s", TimeUnit::Second, 0),
    ] {
        let out = dir.join(format!("{name}.arrow"));
        let args = [f.args.clone(), strs(&["--timestamp-unit", name])].concat();
        ok(convert(&f.path, &out, &args));
        let got = timestamps(&out);
        assert_eq!(got.len(), 1);
        assert_eq!((got[0].0.as_str(), got[0].1), ("ts", unit));
        let want: Vec<Option<i64>> = texts
            .iter()
            .map(|t| t.as_deref().map(|t| epoch(t, digits)))
            .collect();
        assert_eq!(got[0].2, want, "{name}");
    }
}

#[test]
fn parquet_output_keeps_the_unit() {
    let f = ts_fixture("basic");
    let dir = tmp("unit_pq");
    let base = dir.join("default.arrow");
    ok(convert(&f.path, &base, &[]));
    let want = timestamps(&base);
    let pq = dir.join("t.parquet");
    ok(convert(&f.path, &pq, &strs(&["--timestamp-unit", "us"])));
    let back = dir.join("back.arrows");
    ok(convert(&pq, &back, &[]));
    let got = timestamps(&back);
    assert_eq!(got.len(), want.len());
    for ((gn, gu, gv), (wn, _, wv)) in got.iter().zip(&want) {
        assert_eq!((gn, *gu), (wn, TimeUnit::Microsecond));
        assert_eq!(gv, &scaled(wv, |v| v * 1000), "{gn}");
    }
    // And a Parquet input is rescaled on its way to IPC.
    let ns = dir.join("ns.arrow");
    ok(convert(&pq, &ns, &strs(&["--timestamp-unit", "ns"])));
    for ((_, gu, gv), (_, _, wv)) in timestamps(&ns).iter().zip(&want) {
        assert_eq!(*gu, TimeUnit::Nanosecond);
        assert_eq!(gv, &scaled(wv, |v| v * 1_000_000));
    }
}

#[test]
fn timestamp_unit_is_checked() {
    let f = ts_fixture("basic");
    let dir = tmp("unit_bad");
    for (out, unit, want) in [
        ("t.arrow", "minutes", "s, ms, us or ns"),
        ("t.jsonl", "ms", "Parquet and Arrow output"),
        ("t.rc", "us", "Parquet and Arrow output"),
    ] {
        let o = convert(&f.path, &dir.join(out), &strs(&["--timestamp-unit", unit]));
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{out}: {err}");
        assert!(err.contains(want), "{err}");
        assert!(!dir.join(out).exists());
    }
}
