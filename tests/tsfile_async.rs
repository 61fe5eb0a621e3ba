//! The async TsFile reader (`TsFileRecordBatchStreamBuilder`) against the synchronous
//! `TsFileArrowReader` on the same bytes: every fixture, the real files of other writers, and
//! a generated many-device file, under queries of every kind and under fetch settings that
//! force many windows and many misses. Both must give the same batches; the requests made
//! are counted.

use std::sync::Arc;

use bytes::Bytes;
use colfile::arrow::{AsyncReadOptions, TsFileArrowReader, TsFileRecordBatchStreamBuilder};
use colfile::source::ranges::RangePlan;
use colfile::source::{Counted, FetchOptions};
use colfile::tsfile::{DeviceId, Filter, Query, TsFileReader};
use colfile_testkit as common;
use futures_util::TryStreamExt;

/// What the synchronous reader returns: the batches, or the error's text.
fn sync_read(
    file: &Bytes,
    q: &Query,
    batch: usize,
) -> Result<Vec<arrow_array::RecordBatch>, String> {
    let reader = TsFileReader::open(file.to_vec()).map_err(|e| e.to_string())?;
    let r = TsFileArrowReader::builder(Arc::new(reader))
        .with_query(q.clone())
        .with_batch_size(batch)
        .build()
        .map_err(|e| e.to_string())?;
    r.collect::<Result<Vec<_>, _>>().map_err(|e| e.to_string())
}

async fn async_read(
    src: &Arc<Counted<Bytes>>,
    q: &Query,
    batch: usize,
    opts: AsyncReadOptions,
) -> Result<Vec<arrow_array::RecordBatch>, String> {
    let b = TsFileRecordBatchStreamBuilder::new_with_options(Arc::clone(src), opts)
        .await
        .map_err(|e| e.to_string())?;
    let s = b
        .with_query(q.clone())
        .with_batch_size(batch)
        .build()
        .await
        .map_err(|e| e.to_string())?;
    s.try_collect().await.map_err(|e| e.to_string())
}

/// Fetch settings that make every step small: a 256-byte tail, 64-byte blocks, no merging,
/// 1 KiB requests, windows of one device.
fn tiny() -> AsyncReadOptions {
    AsyncReadOptions {
        fetch: FetchOptions {
            plan: RangePlan {
                gap: 0,
                max_request: 1024,
            },
            concurrency: 3,
            tail: 256,
            block: 64,
        },
        window: 1,
        max_index_prefetch: 0,
        ..AsyncReadOptions::default()
    }
}

/// Queries for a file: everything, and (for the first table or tree device) a projection,
/// a time range, a filter, offset and limit.
fn queries(file: &Bytes) -> Vec<Query> {
    let mut qs = vec![Query::all(), Query::all().offset(3).limit(5)];
    let Ok(r) = TsFileReader::open(file.to_vec()) else {
        return qs;
    };
    let tables: Vec<String> = r.metadata().tables().map(str::to_owned).collect();
    if let Some(t) = tables.first() {
        let q = Query::all().table(t);
        qs.push(q.clone());
        qs.push(q.clone().time_range(0, 1_000));
        if let Some(s) = r.metadata().table_schema(t) {
            let names: Vec<String> = s.columns.iter().map(|c| c.schema.name.clone()).collect();
            if let Some(last) = names.last() {
                qs.push(q.clone().columns([last.clone()]));
                qs.push(q.clone().filter(Filter::is_not_null(last)));
            }
        }
    }
    if let Ok(devices) = r.devices(&Query::all()) {
        if let Some(d) = devices.get(devices.len() / 2) {
            qs.push(Query::all().device(d.clone()));
        }
    }
    qs
}

async fn same_both_ways(name: &str, file: Bytes) {
    for q in queries(&file) {
        for batch in [3, 1024] {
            let want = sync_read(&file, &q, batch);
            for opts in [AsyncReadOptions::default(), tiny()] {
                let src = Arc::new(Counted::new(file.clone()));
                let got = async_read(&src, &q, batch, opts).await;
                assert_eq!(got, want, "{name}: {q:?}, batch {batch}");
            }
        }
    }
}

fn fixture_files() -> Vec<(String, Bytes)> {
    let mut out = Vec::new();
    let mut dirs = vec![common::repo_root().join("fixtures/tsfile")];
    if let Some(ext) = common::external_dir() {
        dirs.push(ext.join("real"));
    }
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<_> = entries.flatten().map(|e| e.path()).collect();
        paths.sort();
        for p in paths {
            if p.extension().is_some_and(|x| x == "tsfile") {
                let bytes = std::fs::read(&p).unwrap();
                out.push((p.display().to_string(), Bytes::from(bytes)));
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_fixture_reads_the_same_async_as_sync() {
    let files = fixture_files();
    assert!(files.len() > 30, "fixtures found: {}", files.len());
    for (name, file) in files {
        same_both_ways(&name, file).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_devices_many_windows() {
    let file = Bytes::from(common::iot::iot_table(60, 300, 5_000));
    same_both_ways("iot 60x300", file).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_few_and_one_device_reads_little() {
    // The shape of the official benchmark file (1,000 devices, one chunk group each), with
    // 200 rows per device instead of 1,000 to keep the test short: the fixed costs (the
    // file's head and tail, the index) weigh 5 times more here than on the 12.9 MB file
    // that the request bench reads (interop/s3bench.sh).
    let file = Bytes::from(common::iot::iot_table(1000, 200, 200_000));
    let len = file.len() as u64;
    // A full scan: tail and head, the index, then the chunks in a few large requests.
    let src = Arc::new(Counted::new(file.clone()));
    let opts = AsyncReadOptions::default();
    let all = async_read(&src, &Query::all(), 8192, opts.clone())
        .await
        .unwrap();
    let rows: usize = all.iter().map(|b| b.num_rows()).sum();
    assert_eq!(rows, 200_000);
    let reqs = src.requests();
    assert!(reqs <= 8, "full scan of {len} bytes took {reqs} requests");
    assert!(
        src.bytes() <= len + (64 << 10),
        "read {} of {len}",
        src.bytes()
    );
    // One device: its index entries and its chunks.
    let segs = ["t", "r7", "dev00457"].map(|s| Some(s.to_owned()));
    let device = DeviceId::new(segs.to_vec()).unwrap();
    let src = Arc::new(Counted::new(file.clone()));
    let one = async_read(&src, &Query::all().device(device), 8192, opts)
        .await
        .unwrap();
    assert_eq!(one.iter().map(|b| b.num_rows()).sum::<usize>(), 200);
    let share = src.bytes() as f64 / len as f64;
    assert!(
        share < 0.05,
        "one device read {} of {len} bytes",
        src.bytes()
    );
    assert!(
        src.requests() <= 6,
        "one device: {} requests",
        src.requests()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chunks_longer_than_the_first_guess() {
    // 4 devices, chunk groups of 5,000 rows: chunks of tens of KiB, so the exact extents
    // (read from the chunk headers) must be fetched after the first guess.
    let file = Bytes::from(common::iot::iot_table(4, 10_000, 20_000));
    same_both_ways("iot 4x10000", file).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clones_share_the_open_and_stream_independently() {
    // A table's planner opens a file once, fetches its index and hands a clone to each
    // split: the clones must make no request for the footer or index, and two streams
    // running at once (each dropping its own chunks after a window) must each give what
    // the synchronous reader gives.
    let file = Bytes::from(common::iot::iot_table(40, 300, 12_000));
    let src = Arc::new(Counted::new(file.clone()));
    let opts = AsyncReadOptions {
        window: 1,
        ..AsyncReadOptions::default()
    };
    let opened = TsFileRecordBatchStreamBuilder::new_with_options(Arc::clone(&src), opts)
        .await
        .unwrap();
    opened.fetch_index().await.unwrap();
    let devices = opened.reader().devices(&Query::all()).unwrap();
    assert_eq!(devices.len(), 40);
    let after_open = src.requests();
    let (first, second) = devices.split_at(17);
    let query = |ds: &[DeviceId]| ds.iter().fold(Query::all(), |q, d| q.device(d.clone()));
    let build = |ds: &[DeviceId]| {
        opened
            .clone()
            .with_query(query(ds))
            .with_batch_size(100)
            .build()
    };
    let (a, b) = futures_util::try_join!(build(first), build(second)).unwrap();
    // Planning both splits read only what the open fetched.
    assert_eq!(src.requests(), after_open);
    let (a, b) =
        futures_util::try_join!(a.try_collect::<Vec<_>>(), b.try_collect::<Vec<_>>()).unwrap();
    assert_eq!(a, sync_read(&file, &query(first), 100).unwrap());
    assert_eq!(b, sync_read(&file, &query(second), 100).unwrap());
    // Chunk bytes only, in at most a couple of requests per one-device window.
    let chunk_requests = src.requests() - after_open;
    assert!(chunk_requests <= 2 * 40, "{chunk_requests} requests");
}

/// Reads `file` async with `window`-byte windows, checking after every batch that the bytes
/// held stay under `most`; returns the batches and the bytes fetched.
async fn read_huge(file: &Bytes, window: u64, most: u64) -> (Vec<arrow_array::RecordBatch>, u64) {
    let src = Arc::new(Counted::new(file.clone()));
    let opts = AsyncReadOptions {
        window,
        ..AsyncReadOptions::default()
    };
    let b = TsFileRecordBatchStreamBuilder::new_with_options(Arc::clone(&src), opts)
        .await
        .unwrap();
    let cache = Arc::clone(b.reader().source());
    let mut stream = b.with_batch_size(4096).build().await.unwrap();
    let mut batches = Vec::new();
    while let Some(batch) = stream.try_next().await.unwrap() {
        let held = cache.held();
        assert!(
            held <= most,
            "{held} bytes held after {} batches",
            batches.len()
        );
        batches.push(batch);
    }
    (batches, src.bytes())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn huge_chunks_are_fetched_a_window_at_a_time() {
    // Each chunk holds 4.8 MB (over the 4 MiB read whole): the async read must give the
    // synchronous reader's batches while holding about a window (1 MiB here, and then
    // 4 MiB), not a chunk.
    use colfile_testkit::huge::{aligned_file, tree_file};
    for (name, file) in [("aligned", aligned_file()), ("tree", tree_file())] {
        let file = Bytes::from(file);
        let want = sync_read(&file, &Query::all(), 4096).unwrap();
        let len = file.len() as u64;
        for window in [1 << 20, 4 << 20, 32 << 20] {
            let (got, fetched) = read_huge(&file, window, window + (1 << 20)).await;
            assert_eq!(got, want, "{name}, window {window}");
            // A window that holds the file fetches it once; else page headers are
            // located first, then payloads read, and pieces of the chunks read side by
            // side can be dropped before they are used up.
            let most = if window > len {
                len + len / 50
            } else {
                len * 5 / 2
            };
            assert!(
                fetched <= most,
                "{name}, window {window}: {fetched} of {len} bytes"
            );
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_dropped_while_its_scan_waits_ends_cleanly() {
    // The scan of a huge chunk runs on a thread that waits for its bytes: dropping the
    // stream after its first batch must not hang or panic, and a new read still works.
    use colfile_testkit::huge::aligned_file;
    let file = Bytes::from(aligned_file());
    let src = Arc::new(Counted::new(file.clone()));
    let b = TsFileRecordBatchStreamBuilder::new(Arc::clone(&src))
        .await
        .unwrap();
    let mut stream = b.with_batch_size(1000).build().await.unwrap();
    let first = stream.try_next().await.unwrap().unwrap();
    assert_eq!(first.num_rows(), 1000);
    drop(stream);
    let want = sync_read(&file, &Query::all().limit(10), 1000).unwrap();
    let got = async_read(
        &src,
        &Query::all().limit(10),
        1000,
        AsyncReadOptions::default(),
    )
    .await;
    assert_eq!(got.unwrap(), want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_damaged_page_of_a_huge_chunk_is_the_same_located_error() {
    // A page header in the middle of a huge chunk, overwritten: the scan that asks for its
    // pages must stop where the synchronous one does, with the same error and location.
    use colfile::tsfile::tools::layout::scan_data;
    use colfile_testkit::huge::aligned_file;
    let mut file = aligned_file();
    let layout = scan_data(&file, &colfile::Limits::default()).unwrap();
    let chunk = &layout.groups[0].chunks[1];
    let page = &chunk.pages[chunk.pages.len() / 2];
    let at = page.offset as usize;
    file[at..at + 5].copy_from_slice(&[0xff; 5]);
    let file = Bytes::from(file);
    let want = sync_read(&file, &Query::all(), 4096).unwrap_err();
    let named = format!("chunk at byte {}, page {}", chunk.offset, page.index);
    assert!(want.contains(&named), "{want}");
    for window in [1 << 20, 16 << 20] {
        let src = Arc::new(Counted::new(file.clone()));
        let opts = AsyncReadOptions {
            window,
            ..AsyncReadOptions::default()
        };
        let got = async_read(&src, &Query::all(), 4096, opts)
            .await
            .unwrap_err();
        assert_eq!(got, want, "window {window}");
    }
}
