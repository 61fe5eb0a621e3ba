//! Where a command reads a file from: a local path, or a URL (`s3://`, `gs://`, `az://`,
//! `abfs://`, `http(s)://`, `file://`) read through `object_store` with its credentials and
//! endpoint from the environment (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_REGION`,
//! `AWS_ALLOW_HTTP`, the `GOOGLE_*` and `AZURE_*` equivalents), as `object_store`'s builders
//! read them. A remote file is read by range requests of at least a megabyte, kept while
//! they are used. A local file is read through a `PlannedSource`: what the readers announce
//! (a TsFile query's window of chunks, an RCFile row group's columns) comes in few large
//! reads.

use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

use colfile::source::{
    AsyncByteSource, ByteSource, FetchedSource, FileSource, ObjectSource, PlannedSource,
};
use colfile::{ErrorKind, Result};

/// The bytes a command reads.
#[derive(Debug)]
pub enum Input {
    /// A local file, read ahead as its readers plan.
    File(PlannedSource<FileSource>),
    /// An object in a store.
    Remote(Remote),
}

/// True when `location` is a URL rather than a path.
pub fn is_url(location: &Path) -> bool {
    colfile::source::is_url(&location.to_string_lossy())
}

impl Input {
    /// Opens the file or object at `location`.
    pub fn open(location: &Path) -> Result<Input> {
        if !is_url(location) {
            return FileSource::open(location).map(|f| Input::File(PlannedSource::new(f)));
        }
        Remote::open(&location.to_string_lossy()).map(Input::Remote)
    }
}

impl ByteSource for Input {
    fn len(&self) -> u64 {
        match self {
            Input::File(f) => f.len(),
            Input::Remote(r) => ByteSource::len(&r.cache),
        }
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        match self {
            Input::File(f) => f.read_exact_at(offset, buf),
            Input::Remote(r) => r.read_exact_at(offset, buf),
        }
    }
    fn will_need(&self, ranges: &[Range<u64>]) {
        // A remote object keeps its own read-ahead.
        if let Input::File(f) = self {
            f.will_need(ranges);
        }
    }
}

/// An object read by blocking on range requests, a megabyte or more at a time.
#[derive(Debug)]
pub struct Remote {
    runtime: Arc<tokio::runtime::Runtime>,
    object: ObjectSource,
    cache: FetchedSource,
}

/// The least a request fetches.
const READ_AHEAD: u64 = 1 << 20;
/// Fetched bytes kept at most before they are dropped.
const KEEP: u64 = 64 << 20;

impl Remote {
    fn open(url: &str) -> Result<Remote> {
        let (store, path) = ObjectSource::store_for_url(url)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()?;
        let object = runtime
            .block_on(ObjectSource::open(store, path))?
            .with_name(url);
        let cache = FetchedSource::new(object.len());
        Ok(Remote {
            runtime: Arc::new(runtime),
            object,
            cache,
        })
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        loop {
            let e = match self.cache.read_exact_at(offset, buf) {
                Err(e) => e,
                ok => return ok,
            };
            let ErrorKind::Unfetched { start, end } = *e.kind() else {
                return Err(e);
            };
            let len = self.object.len();
            let range: Range<u64> = start..end.max(start.saturating_add(READ_AHEAD)).min(len);
            if self.cache.held() + (range.end - range.start) > KEEP {
                self.cache.retain(0..0);
            }
            let bytes = self.runtime.block_on(self.object.fetch(range.clone()))?;
            self.cache.insert(range.start, bytes);
        }
    }
}
