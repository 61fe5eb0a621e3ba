//! The async RCFile reader (`RcFileRecordBatchStreamBuilder`) against the synchronous
//! `RcFileArrowReader` on the same bytes: every Hive fixture, whole and in splits, with
//! projections, under default fetch settings and settings that make every step a miss; and
//! the bytes a one-column projection reads.

use std::sync::Arc;

use arrow_schema::TimeUnit;
use bytes::Bytes;
use colfile::arrow::{RcFileArrowReader, RcFileRecordBatchStreamBuilder};
use colfile::rcfile::{RcFileWriter, Schema, Serde};
use colfile::source::ranges::RangePlan;
use colfile::source::{Counted, FetchOptions};
use colfile_testkit::*;
use futures_util::TryStreamExt;
use serde_json::Value as Json;

type Batches = Result<Vec<arrow_array::RecordBatch>, String>;

fn serde_of(dump: &Json) -> Serde {
    let name = dump["serde"].as_str().unwrap();
    let calendar = (name == "binary").then_some("hybrid");
    Serde::from_options(name, &serde_props(dump), None, calendar).unwrap()
}

#[derive(Clone)]
struct Read {
    columns: Option<Vec<usize>>,
    split: Option<std::ops::Range<u64>>,
    batch: usize,
}

fn sync_read(file: &Bytes, schema: &Schema, serde: &Serde, r: &Read) -> Batches {
    let mut b = RcFileArrowReader::builder(file.to_vec(), schema.clone(), serde.clone())
        .with_batch_size(r.batch)
        .with_timestamp_unit(TimeUnit::Microsecond);
    if let Some(c) = &r.columns {
        b = b.with_projection(c.clone());
    }
    if let Some(s) = &r.split {
        b = b.with_split(s.clone());
    }
    let reader = b.build().map_err(|e| e.to_string())?;
    reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| e.to_string())
}

async fn async_read(
    src: &Arc<Counted<Bytes>>,
    schema: &Schema,
    serde: &Serde,
    r: &Read,
    fetch: FetchOptions,
) -> Batches {
    let mut b = RcFileRecordBatchStreamBuilder::new(Arc::clone(src), schema.clone(), serde.clone())
        .with_batch_size(r.batch)
        .with_timestamp_unit(TimeUnit::Microsecond)
        .with_fetch_options(fetch);
    if let Some(c) = &r.columns {
        b = b.with_projection(c.clone());
    }
    if let Some(s) = &r.split {
        b = b.with_split(s.clone());
    }
    let s = b.build().await.map_err(|e| e.to_string())?;
    s.try_collect().await.map_err(|e| e.to_string())
}

fn tiny() -> FetchOptions {
    FetchOptions {
        plan: RangePlan {
            gap: 0,
            max_request: 700,
        },
        concurrency: 2,
        tail: 40,
        block: 16,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_reads_the_same_async_as_sync() {
    let mut checked = 0;
    for f in fixtures() {
        if !f.dump["serde"].is_string() || f.dump["serde"] == "raw" {
            continue;
        }
        let schema: Schema = schema_text(&f.dump).parse().unwrap();
        let serde = serde_of(&f.dump);
        let file = Bytes::from(std::fs::read(&f.rc).unwrap());
        let len = file.len() as u64;
        let n = schema.len();
        let mut reads = vec![];
        for columns in [None, Some(vec![0]), Some(vec![n - 1, 0])] {
            for split in [None, Some(0..len / 2), Some(len / 2..len)] {
                reads.push(Read {
                    columns: columns.clone(),
                    split,
                    batch: 7,
                });
            }
        }
        for r in &reads {
            let want = sync_read(&file, &schema, &serde, r);
            for fetch in [FetchOptions::default(), tiny()] {
                let src = Arc::new(Counted::new(file.clone()));
                let got = async_read(&src, &schema, &serde, r, fetch).await;
                assert_eq!(got, want, "{} {:?} {:?}", f.name, r.columns, r.split);
            }
        }
        checked += 1;
    }
    assert!(checked >= 30, "{checked}");
}

/// A text-serde file of 10 string columns and `groups` row groups of about 1 MiB.
fn ten_columns(groups: usize) -> Vec<u8> {
    let mut w = RcFileWriter::builder(Vec::new(), 10)
        .with_row_group_bytes(1 << 20)
        .build()
        .unwrap();
    let mut row = 0u64;
    while w.bytes_written() < (groups as u64) << 20 {
        let cells: Vec<String> = (0..10)
            .map(|c| format!("{c}:{:x}", row * 2654435761))
            .collect();
        w.write_row(&cells).unwrap();
        row += 1;
    }
    w.finish_into_inner().unwrap().0
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_column_of_ten_reads_a_tenth_of_the_bytes() {
    let file = Bytes::from(ten_columns(6));
    let len = file.len() as u64;
    let schema: Schema = (0..10)
        .map(|c| format!("c{c}:string"))
        .collect::<Vec<_>>()
        .join(",")
        .parse()
        .unwrap();
    let serde = Serde::text();
    let r = Read {
        columns: Some(vec![3]),
        split: None,
        batch: 4096,
    };
    let want = sync_read(&file, &schema, &serde, &r);
    let src = Arc::new(Counted::new(file.clone()));
    let got = async_read(&src, &schema, &serde, &r, FetchOptions::default()).await;
    assert_eq!(got, want);
    let share = src.bytes() as f64 / len as f64;
    assert!(share < 0.15, "read {} of {len} bytes", src.bytes());
    // Every column: one request per row group and the head, about.
    let all = Read { columns: None, ..r };
    let src = Arc::new(Counted::new(file.clone()));
    let got = async_read(&src, &schema, &serde, &all, FetchOptions::default()).await;
    assert_eq!(got, sync_read(&file, &schema, &serde, &all));
    assert!(src.requests() <= 10, "{} requests", src.requests());
    assert!(src.bytes() <= len + (64 << 10), "{} of {len}", src.bytes());
}
