//! Requests and bytes of async TsFile reads from a real S3-compatible server (moto's
//! standalone server on 127.0.0.1), against the targets of the object-store work: a full
//! scan of the 12.9 MB official benchmark file in at most 8 GETs, and a one-device query on
//! its 1,000 devices reading under 2% of its bytes.
//!
//! `cargo bench --bench tsfile_requests -- FILE` reads FILE (make the official one with
//! `python3 ../shared/oracles/tsfile/tsoracle.py benchwrite 1e6 --keep --out F`); without an
//! argument it generates a file of the same shape with colfile's writer. Prints one line per
//! query and exits non-zero when a target is missed. Counts, not times: the server is local.

use std::sync::Arc;

use colfile::arrow::TsFileRecordBatchStreamBuilder;
use colfile::source::{Counted, ObjectSource};
use colfile::tsfile::{Query, TsFileReader};
use colfile_testkit::s3::MotoServer;
use futures_util::TryStreamExt;
use object_store::path::Path;
use object_store::ObjectStore;

async fn run(store: &Arc<dyn ObjectStore>, q: &Query) -> (usize, u64, u64) {
    let src = ObjectSource::open(Arc::clone(store), Path::from("bench.tsfile"))
        .await
        .expect("open");
    let src = Arc::new(Counted::new(src));
    let stream = TsFileRecordBatchStreamBuilder::new(Arc::clone(&src))
        .await
        .expect("footer")
        .with_query(q.clone())
        .build()
        .await
        .expect("plan");
    let batches: Vec<_> = stream.try_collect().await.expect("read");
    let rows = batches.iter().map(|b| b.num_rows()).sum();
    (rows, src.requests(), src.bytes())
}

fn main() {
    let arg = std::env::args().skip(1).find(|a| !a.starts_with('-'));
    let (name, bytes) = match arg {
        Some(p) => (p.clone(), std::fs::read(&p).expect("read the file")),
        None => (
            "generated 1000 devices x 1000 rows".to_owned(),
            colfile_testkit::iot::iot_table(1000, 1000, 1_000_000),
        ),
    };
    let len = bytes.len() as u64;
    let reader = TsFileReader::open(bytes.clone()).expect("a TsFile");
    let devices = reader.devices(&Query::all()).expect("devices");
    let one = devices.get(devices.len() / 2).expect("a device").clone();
    let server = MotoServer::start();
    server.create_bucket("bench");
    server.put_object("bench", "bench.tsfile", &bytes);
    let store = colfile_testkit::s3::s3_store(&server.endpoint(), "bench");
    let rt = tokio::runtime::Runtime::new().expect("runtime");
    println!("file: {name}, {len} bytes, {} devices", devices.len());
    let mut missed = false;
    let (rows, reqs, read) = rt.block_on(run(&store, &Query::all()));
    let ok = reqs <= 8;
    missed |= !ok;
    println!(
        "full scan:  {rows} rows, {reqs} GETs (target <= 8: {}), {read} bytes ({:.1}% of the file)",
        if ok { "met" } else { "MISSED" },
        read as f64 * 100.0 / len as f64
    );
    let (rows, reqs, read) = rt.block_on(run(&store, &Query::all().device(one.clone())));
    let share = read as f64 * 100.0 / len as f64;
    let ok = share < 2.0;
    missed |= !ok;
    println!(
        "one device: {one}: {rows} rows, {reqs} GETs, {read} bytes = {share:.2}% of the file (target < 2%: {})",
        if ok { "met" } else { "MISSED" }
    );
    if missed {
        std::process::exit(1);
    }
}
