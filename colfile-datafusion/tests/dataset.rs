//! An IoTDB data directory in SQL: `colfile-sql` and `CREATE EXTERNAL TABLE` over a folder
//! holding `sequence/` and `unsequence/` answer from the merged dataset, row for row what
//! the library's `Dataset::query` returns; `merge 'false'` / `--no-merge` read the files one
//! by one.

#[path = "support/sql_bin.rs"]
mod sql_bin;

use std::path::{Path, PathBuf};

use arrow_array::cast::AsArray;
use arrow_array::types::Int64Type;
use arrow_array::RecordBatch;
use colfile::tsfile::dataset::Dataset;
use colfile::tsfile::format::schema::MeasurementSchema;
use colfile::tsfile::format::{Compression, DataType, Encoding};
use colfile::tsfile::{Query, TsFileWriter, ValueRef, WriterOptions};
use colfile_datafusion::{register_tsfile, TsFileOptions};
use datafusion::prelude::SessionContext;

/// Writes `(device, time, s1)` rows as a tree-model TsFile at `dir/rel`.
fn put(dir: &Path, rel: &str, rows: &[(&str, i64, i64)]) {
    let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default()).unwrap();
    let mut devices: Vec<&str> = rows.iter().map(|r| r.0).collect();
    devices.sort();
    devices.dedup();
    for d in &devices {
        let m = MeasurementSchema::new(
            "s1",
            DataType::Int64,
            Encoding::Plain,
            Compression::Uncompressed,
        );
        w.register_device(d, false, vec![m]).unwrap();
    }
    for (d, t, v) in rows {
        w.write_record(d, *t, &[("s1", ValueRef::Int64(*v))])
            .unwrap();
    }
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, w.finish_into_inner().unwrap().0).unwrap();
}

/// Sequence files 1 and 2, unsequence file 3 overwriting d1 at t=2 and adding t=3.
fn data_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colfile-df-dataset-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    put(
        &dir,
        "sequence/root.sg/0/0/1-1-0-0.tsfile",
        &[
            ("root.sg.d1", 1, 10),
            ("root.sg.d1", 2, 20),
            ("root.sg.d2", 1, 100),
        ],
    );
    put(
        &dir,
        "sequence/root.sg/0/0/2-2-0-0.tsfile",
        &[("root.sg.d1", 5, 50)],
    );
    put(
        &dir,
        "unsequence/root.sg/0/0/3-3-0-0.tsfile",
        &[("root.sg.d1", 2, -20), ("root.sg.d1", 3, -30)],
    );
    dir
}

/// (device, time, s1) of the library's merged reading.
fn library(dir: &Path) -> Vec<(String, i64, i64)> {
    let ds = Dataset::open(dir).unwrap();
    let mut out = Vec::new();
    for b in ds.query(&Query::all()).unwrap() {
        let b = b.unwrap();
        let mut c = b.columns[0].cursor();
        for &t in &b.times {
            let ValueRef::Int64(v) = c.next_value() else {
                panic!("null")
            };
            out.push((b.device.to_string(), t, v));
        }
    }
    out
}

fn triples(batches: &[RecordBatch]) -> Vec<(String, i64, i64)> {
    let mut out = Vec::new();
    for b in batches {
        let (d, t, v) = (
            b.column(0).as_string::<i32>(),
            b.column(1).as_primitive::<Int64Type>(),
            b.column(2).as_primitive::<Int64Type>(),
        );
        for i in 0..b.num_rows() {
            out.push((d.value(i).to_string(), t.value(i), v.value(i)));
        }
    }
    out
}

#[tokio::test]
async fn sql_over_a_data_directory_is_the_merged_dataset() {
    let dir = data_dir("sql");
    let want = library(&dir);
    assert_eq!(want.len(), 5, "{want:?}");
    assert!(want.contains(&("root.sg.d1".into(), 2, -20)));
    let ctx = SessionContext::new();
    register_tsfile(&ctx, "t", dir.to_str().unwrap(), TsFileOptions::default()).unwrap();
    let q = "SELECT device, CAST(time AS BIGINT) AS t, s1 FROM t ORDER BY device, t";
    let got = ctx.sql(q).await.unwrap().collect().await.unwrap();
    assert_eq!(triples(&got), want);
    let n = ctx
        .sql("SELECT count(*) FROM t WHERE level2 = 'd1'")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(n[0].column(0).as_primitive::<Int64Type>().value(0), 4);
    // merge off: every file's rows, t=2 of d1 twice.
    let ctx = SessionContext::new();
    let files = TsFileOptions {
        merge: false,
        ..TsFileOptions::default()
    };
    register_tsfile(&ctx, "t", dir.to_str().unwrap(), files).unwrap();
    let n = ctx
        .sql("SELECT count(*) FROM t")
        .await
        .unwrap()
        .collect()
        .await
        .unwrap();
    assert_eq!(n[0].column(0).as_primitive::<Int64Type>().value(0), 6);
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn colfile_sql_merges_unless_no_merge() {
    let dir = data_dir("cli");
    let query = format!("t={}", dir.display());
    let run = |extra: &[&str]| sql_bin::csv(&["SELECT count(*) AS n FROM t", &query], extra);
    assert_eq!(run(&[]), "n\n5\n");
    assert_eq!(run(&["--no-merge"]), "n\n6\n");
    let ddl = format!(
        "CREATE EXTERNAL TABLE u STORED AS TSFILE LOCATION '{}'; SELECT count(*) AS n FROM u",
        dir.display()
    );
    assert_eq!(sql_bin::csv(&[ddl.as_str()], &[]), "n\n5\n");
    std::fs::remove_dir_all(dir).unwrap();
}
