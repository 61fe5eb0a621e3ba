//! Local files read through `PlannedSource` (the async readers' range planning, for a file
//! on disk): the same rows, batches and errors as reading the file one structure at a time,
//! on every fixture and the real files of other writers, and far fewer reads: counted by a
//! source that counts its positioned reads, so that a return to per-structure reads fails.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use arrow_array::RecordBatch;
use colfile::arrow::TsFileArrowReader;
use colfile::rcfile::RcFileReader;
use colfile::source::{ByteSource, FileSource, PlannedSource};
use colfile::tsfile::{Filter, Query, TsFileReader, Value};
use colfile_testkit as common;

/// A source that counts the reads made of it.
struct Counting<S> {
    inner: S,
    reads: AtomicU64,
}

impl<S: ByteSource> Counting<S> {
    fn new(inner: S) -> Self {
        Counting {
            inner,
            reads: AtomicU64::new(0),
        }
    }
    fn reads(&self) -> u64 {
        self.reads.load(Ordering::Relaxed)
    }
}

impl<S: ByteSource> ByteSource for Counting<S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> colfile::Result<()> {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.inner.read_exact_at(offset, buf)
    }
}

/// A query's batches (debug text) or its error's text, over `src`, planned or not.
fn ts_rows<S: ByteSource>(src: S, q: &Query, planned: bool) -> Result<Vec<String>, String> {
    let r = TsFileReader::open(src).map_err(|e| e.to_string())?;
    let it = r.query(q).map_err(|e| e.to_string())?;
    let items: Vec<_> = if planned {
        it.planned().collect()
    } else {
        it.collect()
    };
    let mut out = Vec::new();
    for b in items {
        out.push(format!("{:?}", b.map_err(|e| e.to_string())?));
    }
    Ok(out)
}

/// The same as Arrow batches.
fn ts_batches<S: ByteSource>(src: S, q: &Query, planned: bool) -> Result<Vec<RecordBatch>, String> {
    let r = TsFileReader::open(src).map_err(|e| e.to_string())?;
    let b = TsFileArrowReader::builder(Arc::new(r)).with_query(q.clone());
    let r = b.build().map_err(|e| e.to_string())?;
    let items: Vec<_> = if planned {
        r.planned().collect()
    } else {
        r.collect()
    };
    items
        .into_iter()
        .map(|b| b.map_err(|e| e.to_string()))
        .collect()
}

fn files_in(dir: &Path, ext: &str) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<_> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    paths.sort();
    paths
}

fn planned(path: &Path) -> PlannedSource<Counting<FileSource>> {
    PlannedSource::new(Counting::new(FileSource::open(path).unwrap()))
}

#[test]
fn every_tsfile_reads_the_same_planned() {
    let mut paths = files_in(&common::repo_root().join("fixtures/tsfile"), "tsfile");
    if let Some(ext) = common::external_dir() {
        paths.extend(files_in(&ext.join("real"), "tsfile"));
    }
    assert!(paths.len() > 30, "fixtures found: {}", paths.len());
    for p in &paths {
        let queries = [Query::all(), Query::all().offset(3).limit(5).batch_size(7)];
        for q in &queries {
            let want = ts_rows(FileSource::open(p).unwrap(), q, false);
            let got = ts_rows(planned(p), q, true);
            assert_eq!(got, want, "{}: {q:?}", p.display());
            let want = ts_batches(FileSource::open(p).unwrap(), q, false);
            let got = ts_batches(planned(p), q, true);
            assert_eq!(got, want, "{} (arrow): {q:?}", p.display());
        }
    }
}

/// Every row group of an RCFile (all columns, then the first alone): its rows and cells,
/// or the error's text.
fn rc_groups<S: ByteSource>(src: S, projection: Option<usize>) -> Result<Vec<String>, String> {
    let mut b = RcFileReader::builder(src);
    if let Some(c) = projection {
        b = b.with_projection([c]);
    }
    let mut r = b.build().map_err(|e| e.to_string())?;
    let cols = r.header().column_count;
    let mut out = Vec::new();
    while let Some(g) = r.next_row_group().map_err(|e| e.to_string())? {
        let cells: Vec<Option<Vec<&[u8]>>> = (0..cols)
            .map(|c| g.column(c).map(|d| d.cells().collect()))
            .collect();
        out.push(format!("{} {cells:?}", g.num_rows()));
    }
    Ok(out)
}

#[test]
fn every_rcfile_reads_the_same_planned() {
    let paths = files_in(&common::fixtures_dir(), "rc");
    assert!(paths.len() >= 36, "fixtures found: {}", paths.len());
    for p in &paths {
        for projection in [None, Some(0)] {
            let want = rc_groups(FileSource::open(p).unwrap(), projection);
            let got = rc_groups(planned(p), projection);
            assert_eq!(got, want, "{}: {projection:?}", p.display());
        }
    }
}

#[test]
fn a_full_tsfile_scan_makes_few_reads() {
    // The shape of the official benchmark file (1,000 devices, one chunk group each), 200
    // rows per device.
    let bytes = common::iot::iot_table(1000, 200, 200_000);
    let len = bytes.len();
    let direct = Counting::new(bytes.clone());
    let want = ts_rows(&direct, &Query::all(), false).unwrap();
    let src = PlannedSource::new(Counting::new(bytes));
    let got = ts_rows(&src, &Query::all(), true).unwrap();
    assert_eq!(got, want);
    // Opening (a few reads of the footer), the index in one, then windows of chunks that
    // double from 256 KiB: a handful of reads per window, never one per structure.
    let reads = src.inner().reads();
    assert!(
        reads <= 20,
        "planned scan of {len} bytes: {reads} reads (per structure: {})",
        direct.reads()
    );
    assert!(direct.reads() > 1000, "{} reads", direct.reads());
}

/// A window plans its devices once and hands the plans to the scan: the plans must stay
/// with their devices when statistics skip devices whole inside a window, when a tag
/// filter leaves devices out, when chunks fall outside the time range, and across windows
/// (several flushes, many devices).
#[test]
fn planned_windows_skip_devices_like_the_direct_scan() {
    let bytes = common::iot::iot_table(1000, 50, 20_000);
    let region = |r: &str| Filter::eq("region", Value::string(r));
    // Device d's `l` lies in [17 000 d, 1 000 (17 d + 1 519) + 49]: statistics skip the
    // devices in the middle whole (about 295-616), between devices that are read.
    let ends =
        Filter::lt("l", Value::Int64(5_000_000)).or(Filter::gt("l", Value::Int64(12_000_000)));
    let queries = [
        Query::all().filter(ends.clone()),
        Query::all()
            .filter(ends.and(region("r2").negate()))
            .time_range(50, 400),
        Query::all().filter(region("r3")),
        Query::all().filter(region("r3").or(region("r7"))),
        Query::all()
            .filter(region("r1").negate())
            .time_range(100, 250),
        Query::all().time_range(0, 30),
        Query::all()
            .filter(region("r5"))
            .offset(7)
            .limit(40)
            .batch_size(9),
    ];
    for q in &queries {
        let want = ts_rows(bytes.clone(), q, false).unwrap();
        assert!(!want.is_empty(), "{q:?}");
        let got = ts_rows(PlannedSource::new(bytes.clone()), q, true).unwrap();
        assert_eq!(got, want, "{q:?}");
        let want = ts_batches(bytes.clone(), q, false).unwrap();
        let got = ts_batches(PlannedSource::new(bytes.clone()), q, true).unwrap();
        assert_eq!(got, want, "(arrow) {q:?}");
    }
}

#[test]
fn a_full_rcfile_scan_makes_one_read_per_row_group() {
    let p = common::fixtures_dir().join("multi_group_text.rc");
    let direct = Counting::new(FileSource::open(&p).unwrap());
    let want = rc_groups(&direct, None).unwrap();
    let src = planned(&p);
    assert_eq!(rc_groups(&src, None).unwrap(), want);
    let groups = want.len() as u64;
    let reads = src.inner().reads();
    assert!(
        reads <= groups + 2,
        "{groups} row groups: {reads} reads (per structure: {})",
        direct.reads()
    );
    assert!(direct.reads() > 4 * groups, "{} reads", direct.reads());
}

#[test]
fn long_rcfile_columns_are_read_on_their_own() {
    use colfile::rcfile::{RowWriter, Schema, Serde, Value};
    // Two columns of about 1 MB per row group: each is read straight into its buffer (one
    // read each), not read ahead with the group.
    let schema: Schema = "a:string,b:string".parse().unwrap();
    let mut w = RowWriter::builder(Vec::new(), schema, Serde::binary())
        .build()
        .unwrap();
    for i in 0..100_000u32 {
        let s = format!("{i:020}");
        w.write(&[Value::string(&s), Value::string(&s)]).unwrap();
    }
    let (bytes, _) = w.finish_into_inner().unwrap();
    let want = rc_groups(bytes.as_slice(), None).unwrap();
    let src = PlannedSource::new(Counting::new(bytes));
    assert_eq!(rc_groups(&src, None).unwrap(), want);
    let groups = want.len() as u64;
    assert!(groups >= 1);
    let reads = src.inner().reads();
    assert!(
        (2 * groups..=3 * groups + 2).contains(&reads),
        "{groups} row groups of two long columns: {reads} reads"
    );
}
