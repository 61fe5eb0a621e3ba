//! TsFiles in a real S3-compatible server (moto's standalone server, started on 127.0.0.1
//! by the test): read through `object_store`'s S3 client with the async reader, they give
//! the batches the synchronous reader gives on the local bytes, files written with huge
//! chunks included (fetched a window at a time); a missing object is a clear error naming it.

use std::sync::Arc;

use colfile::arrow::{AsyncReadOptions, TsFileArrowReader, TsFileRecordBatchStreamBuilder};
use colfile::source::{Counted, ObjectSource};
use colfile::tsfile::{Query, TsFileReader};
use colfile::ErrorKind;
use colfile_testkit as common;
use common::s3::MotoServer;
use futures_util::TryStreamExt;
use object_store::path::Path;
use object_store::ObjectStore;

fn store_of(server: &MotoServer, bucket: &str) -> Arc<dyn ObjectStore> {
    common::s3::s3_store(&server.endpoint(), bucket)
}

fn local(bytes: &[u8], q: &Query) -> Result<Vec<arrow_array::RecordBatch>, String> {
    let reader = TsFileReader::open(bytes.to_vec()).map_err(|e| e.to_string())?;
    let r = TsFileArrowReader::builder(Arc::new(reader))
        .with_query(q.clone())
        .build()
        .map_err(|e| e.to_string())?;
    r.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())
}

async fn remote(
    store: &Arc<dyn ObjectStore>,
    key: &str,
    q: &Query,
) -> Result<(Vec<arrow_array::RecordBatch>, u64), String> {
    let src = ObjectSource::open(Arc::clone(store), Path::from(key))
        .await
        .map_err(|e| e.to_string())?;
    let src = Arc::new(Counted::new(src));
    let b = TsFileRecordBatchStreamBuilder::new(Arc::clone(&src))
        .await
        .map_err(|e| e.to_string())?;
    let s = b
        .with_query(q.clone())
        .build()
        .await
        .map_err(|e| e.to_string())?;
    let batches = s.try_collect().await.map_err(|e| e.to_string())?;
    Ok((batches, src.requests()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fixtures_read_from_s3_as_from_disk() {
    let server = MotoServer::start();
    server.create_bucket("data");
    let store = store_of(&server, "data");
    let dir = common::repo_root().join("fixtures/tsfile");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tsfile"))
        .collect();
    names.sort();
    assert!(names.len() > 30);
    let iot = common::iot::iot_table(200, 300, 60_000);
    let mut files: Vec<(String, Vec<u8>)> = names
        .iter()
        .map(|n| (format!("fixtures/{n}"), std::fs::read(dir.join(n)).unwrap()))
        .collect();
    files.push(("warehouse/region=eu/iot.tsfile".into(), iot));
    for (key, bytes) in &files {
        server.put_object("data", key, bytes);
    }
    for (key, bytes) in &files {
        for q in [Query::all(), Query::all().time_range(0, 500).limit(100)] {
            let want = local(bytes, &q);
            let got = remote(&store, key, &q).await;
            match (got, want) {
                (Ok((got, requests)), Ok(want)) => {
                    assert_eq!(got, want, "{key} {q:?}");
                    assert!(requests <= 8, "{key}: {requests} requests");
                }
                (Err(got), Err(want)) => assert_eq!(got, want, "{key} {q:?}"),
                (got, want) => panic!("{key} {q:?}: s3 {got:?}, local {want:?}"),
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_object_is_an_error_naming_it() {
    let server = MotoServer::start();
    server.create_bucket("data");
    let store = store_of(&server, "data");
    let e = ObjectSource::open(store, Path::from("no/such.tsfile"))
        .await
        .unwrap_err();
    assert!(matches!(e.kind(), ErrorKind::Fetch { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains("data/no/such.tsfile"), "{text}");
    assert!(
        std::error::Error::source(&e).is_some(),
        "the store's error is the source"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_chunks_read_from_s3_a_window_at_a_time() {
    // Chunks of 4.8 MB, over the 4 MiB read whole: through the S3 client their pages are
    // fetched as the scan reaches them, the bytes held stay within the window (2 MiB) and a
    // MiB, and the batches are the local reader's.
    use colfile_testkit::huge::{aligned_file, tree_file};
    let server = MotoServer::start();
    server.create_bucket("data");
    let store = store_of(&server, "data");
    const WINDOW: u64 = 2 << 20;
    for (key, bytes) in [
        ("huge/aligned.tsfile", aligned_file()),
        ("huge/tree.tsfile", tree_file()),
    ] {
        server.put_object("data", key, &bytes);
        let want = local(&bytes, &Query::all()).unwrap();
        let src = ObjectSource::open(Arc::clone(&store), Path::from(key))
            .await
            .unwrap();
        let src = Arc::new(Counted::new(src));
        let opts = AsyncReadOptions {
            window: WINDOW,
            ..AsyncReadOptions::default()
        };
        let b = TsFileRecordBatchStreamBuilder::new_with_options(Arc::clone(&src), opts)
            .await
            .unwrap();
        let cache = Arc::clone(b.reader().source());
        let mut stream = b.build().await.unwrap();
        let (mut got, mut most) = (Vec::new(), 0);
        while let Some(batch) = stream.try_next().await.unwrap() {
            most = most.max(cache.held());
            got.push(batch);
        }
        assert_eq!(got, want, "{key}");
        assert!(most <= WINDOW + (1 << 20), "{key}: held {most} bytes");
        let len = bytes.len() as u64;
        assert!(
            src.bytes() <= len * 5 / 2,
            "{key}: fetched {} of {len} bytes",
            src.bytes()
        );
    }
}
