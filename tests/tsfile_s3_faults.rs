//! Faults between the object store and the async reader: TsFiles in moto, read through
//! `colfile_testkit::fault::FaultProxy`, which breaks chosen range GETs (5xx answers,
//! connections dropped mid-body, short bodies, bodies cut with consistent framing, corrupt
//! bytes). A fault is either retried by `object_store` (its `RetryConfig`, set short here)
//! and the batches equal the local synchronous read, or the read fails with
//! `ErrorKind::Fetch` naming the object and the byte range; never a short, successful read.

use std::sync::Arc;
use std::time::{Duration, Instant};

use arrow_array::RecordBatch;
use colfile::arrow::{TsFileArrowReader, TsFileRecordBatchStreamBuilder};
use colfile::source::ObjectSource;
use colfile::tsfile::{Query, TsFileReader};
use colfile::ErrorKind;
use colfile_testkit as common;
use common::fault::{Fault, FaultPlan, FaultProxy};
use common::s3::MotoServer;
use futures_util::TryStreamExt;
use object_store::path::Path;
use object_store::ObjectStore;

const BUCKET: &str = "data";
const IOT: &str = "warehouse/iot.tsfile";
const BASIC: &str = "fixtures/basic.tsfile";

/// A moto server holding the two test files, and their bytes.
fn seeded() -> (MotoServer, Vec<(&'static str, Vec<u8>)>) {
    let server = MotoServer::start();
    server.create_bucket(BUCKET);
    let basic = std::fs::read(common::repo_root().join("fixtures/tsfile/basic.tsfile")).unwrap();
    let files = vec![
        (IOT, common::iot::iot_table(50, 400, 10_000)),
        (BASIC, basic),
    ];
    for (key, bytes) in &files {
        server.put_object(BUCKET, key, bytes);
    }
    (server, files)
}

/// An S3 client through `proxy`, with retries short enough for tests.
fn store(proxy: &FaultProxy) -> Arc<dyn ObjectStore> {
    common::s3::s3_store(&proxy.endpoint(), BUCKET)
}

fn local(bytes: &[u8]) -> Vec<RecordBatch> {
    let reader = TsFileReader::open(bytes.to_vec()).unwrap();
    let r = TsFileArrowReader::builder(Arc::new(reader))
        .with_query(Query::all())
        .build()
        .unwrap();
    r.collect::<Result<Vec<_>, _>>().unwrap()
}

/// The async read of `key`; a stream error is unwrapped back to the `colfile::Error`.
async fn remote(
    store: &Arc<dyn ObjectStore>,
    key: &str,
) -> Result<Vec<RecordBatch>, colfile::Error> {
    let src = ObjectSource::open(Arc::clone(store), Path::from(key)).await?;
    let b = TsFileRecordBatchStreamBuilder::new(src).await?;
    let s = b.with_query(Query::all()).build().await?;
    s.try_collect().await.map_err(|e| match e {
        arrow_schema::ArrowError::ExternalError(e) => match e.downcast::<colfile::Error>() {
            Ok(e) => *e,
            Err(e) => panic!("a stream error that is no colfile::Error: {e}"),
        },
        e => panic!("a stream error that is no colfile::Error: {e}"),
    })
}

/// Reads `key` through a new proxy with `plan`; the result, the proxy's counts, the time.
async fn read_with(
    server: &MotoServer,
    key: &str,
    plan: FaultPlan,
) -> (
    Result<Vec<RecordBatch>, colfile::Error>,
    common::fault::Requests,
    Duration,
) {
    let proxy = FaultProxy::start(&server.endpoint(), plan);
    let store = store(&proxy);
    let t = Instant::now();
    let got = remote(&store, key).await;
    (got, proxy.requests(), t.elapsed())
}

/// `e` is a fetch error naming `key` and a non-empty byte range, in its fields and text.
fn assert_fetch_error(e: &colfile::Error, key: &str) -> String {
    let text = e.to_string();
    match e.kind() {
        ErrorKind::Fetch {
            object, start, end, ..
        } => {
            assert_eq!(object, &format!("AmazonS3({BUCKET})/{key}"), "{text}");
            assert!(start < end, "{text}");
            assert!(
                text.contains(&format!("bytes {start}..{end} of ")),
                "{text}"
            );
            assert!(text.contains(key), "{text}");
        }
        other => panic!("expected ErrorKind::Fetch, got {other:?}: {text}"),
    }
    text
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transient_5xx_answers_are_retried() {
    let (server, files) = seeded();
    for (key, bytes) in &files {
        let plan =
            FaultPlan::nth_range_gets(vec![(1, Fault::Status(503)), (2, Fault::Status(500))]);
        let (got, counts, _) = read_with(&server, key, plan).await;
        let got = got.unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(got, local(bytes), "{key}");
        assert_eq!(counts.faults, 2, "{key}: {counts:?}");
        assert!(counts.range_gets >= 3, "{key}: {counts:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dropped_and_short_bodies_are_retried() {
    // object_store resumes a body that ends early with a ranged GET for the rest (if the
    // answer had an ETag, as S3's do), so both faults are retried and the read succeeds.
    let (server, files) = seeded();
    for (key, bytes) in &files {
        let plan = FaultPlan::nth_range_gets(vec![(1, Fault::DropMidBody), (2, Fault::ShortBody)]);
        let (got, counts, _) = read_with(&server, key, plan).await;
        let got = got.unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(got, local(bytes), "{key}");
        assert_eq!(counts.faults, 2, "{key}: {counts:?}");
        assert!(counts.range_gets >= 3, "{key}: {counts:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_503_on_every_range_get_fails_naming_the_range() {
    let (server, _files) = seeded();
    let (got, counts, took) =
        read_with(&server, IOT, FaultPlan::every_range_get(Fault::Status(503))).await;
    let e = got.expect_err("every range GET failed, yet the read succeeded");
    let text = assert_fetch_error(&e, IOT);
    assert!(text.contains("503"), "{text}");
    // The first request and its 3 retries, at least.
    assert!(counts.range_gets >= 4, "{counts:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_short_body_on_every_range_get_fails_naming_the_range() {
    let (server, _files) = seeded();
    let (got, counts, took) =
        read_with(&server, IOT, FaultPlan::every_range_get(Fault::ShortBody)).await;
    let e = got.expect_err("every body was short, yet the read succeeded");
    assert_fetch_error(&e, IOT);
    assert!(counts.range_gets >= 4, "{counts:?}");
    assert!(took < Duration::from_secs(20), "{took:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_with_consistent_framing_is_caught_by_the_length_check() {
    // The answer says Content-Length is half the range: the HTTP framing is whole, so
    // object_store hands back the short bytes as a success; colfile's own check of the
    // returned length against the requested one is what makes it an error.
    let (server, _files) = seeded();
    let (got, counts, _) =
        read_with(&server, IOT, FaultPlan::every_range_get(Fault::Truncate)).await;
    let e = got.expect_err("every body was cut, yet the read succeeded");
    let text = assert_fetch_error(&e, IOT);
    assert!(text.contains("the store returned "), "{text}");
    assert_eq!(counts.faults, counts.range_gets, "{counts:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn corrupt_bytes_are_detected_not_read_as_rows() {
    let (server, files) = seeded();
    for (key, _) in &files {
        let (got, _, _) = read_with(&server, key, FaultPlan::every_range_get(Fault::Corrupt)).await;
        assert!(
            got.is_err(),
            "{key}: corrupt bytes read as {:?}",
            got.map(|b| b.len())
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_proxy_without_faults_changes_nothing_and_stops_on_drop() {
    let (server, files) = seeded();
    let proxy = FaultProxy::start(&server.endpoint(), FaultPlan::pass());
    let endpoint = proxy.endpoint();
    let store = store(&proxy);
    for (key, bytes) in &files {
        assert_eq!(remote(&store, key).await.unwrap(), local(bytes), "{key}");
    }
    let counts = proxy.requests();
    assert_eq!(counts.faults, 0, "{counts:?}");
    // One HEAD per file and at least one range GET each.
    assert!(
        counts.range_gets >= 2 && counts.total > counts.range_gets,
        "{counts:?}"
    );
    drop(proxy);
    let addr = endpoint.trim_start_matches("http://");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "the proxy still listens after drop"
    );
}
