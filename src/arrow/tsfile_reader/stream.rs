//! [`TsFileRecordBatchStream`]: a TsFile query as an async `Stream` of Arrow `RecordBatch`es
//! over an [`AsyncByteSource`] (an object store), like parquet's
//! `ParquetRecordBatchStreamBuilder`. The same plan, filters and batches as
//! [`TsFileArrowReader`]: the synchronous reader runs over the bytes fetched so far, and
//! before it starts a window of devices the stream fetches what their scans read.
//!
//! Requests: one for the file's end (footer, usually the index) and one for its head; the
//! whole index in one more when the query names no device (a full scan needs all of it),
//! otherwise the index nodes the walk reaches; then per window of devices, their chunks'
//! bytes merged into few requests, and the rest of any chunk longer than the first guess.
//!
//! A chunk of over 4 MiB (which the synchronous reader reads a page at a time) is not
//! fetched whole: its window's scan runs on a thread of its own, which asks for each range
//! it reaches and is missing; those asks are fetched with read-ahead, and the oldest of
//! their bytes dropped once they pass the window's size, so that a read of a file written
//! with huge chunks holds about a window, not a chunk.

use std::ops::Range;
use std::sync::Arc;

use arrow_schema::{SchemaRef, TimeUnit};

use super::{TsFileArrowReader, TsFileArrowReaderBuilder};
use crate::arrow::batch_stream::{BatchStream, Item, NextBatch};
use crate::arrow::to_arrow;
use crate::source::demand::{DemandFetch, Event, ScanThread};
use crate::source::{fetch_into, resolve, AsyncByteSource, FetchOptions, FetchedSource};
use crate::tsfile::mods::Modifications;
use crate::tsfile::read::fetch_plan::{
    chunk_extents, next_window, ChunkExtent, MAX_INDEX_PREFETCH, WINDOW,
};
use crate::tsfile::{FileMetadata, Query, TsFileReader};
use crate::{Limits, Result};

/// How an async TsFile read opens and fetches.
#[derive(Clone, Debug)]
pub struct AsyncReadOptions {
    /// Caps on what the file may ask for (as for the synchronous reader).
    pub limits: Limits,
    /// Deletions to apply (IoTDB `.mods`, loaded by the caller; none by default).
    pub modifications: Option<Modifications>,
    /// Requests: how ranges merge, how many at once, the first read of the file's end.
    pub fetch: FetchOptions,
    /// Bytes of chunks fetched ahead of the scan at a time (at least one device's): what
    /// a read holds in memory besides the index and the batches it returns.
    pub window: u64,
    /// The largest index fetched whole for a query that names no device.
    pub max_index_prefetch: u64,
}

impl Default for AsyncReadOptions {
    /// Default limits, no deletions, [`FetchOptions::default`], 16 MiB windows, indexes up
    /// to 64 MiB fetched whole.
    fn default() -> Self {
        AsyncReadOptions {
            limits: Limits::default(),
            modifications: None,
            fetch: FetchOptions::default(),
            window: WINDOW,
            max_index_prefetch: MAX_INDEX_PREFETCH,
        }
    }
}

/// Opens a TsFile over an [`AsyncByteSource`] and sets up a query: the async counterpart
/// of [`TsFileArrowReader::builder`].
///
/// ```
/// # futures_util::FutureExt::now_or_never(async {
/// use bytes::Bytes;
/// use futures_util::TryStreamExt;
/// use colfile::arrow::TsFileRecordBatchStreamBuilder;
/// use colfile::tsfile::Query;
/// let file = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile"))?;
/// let stream = TsFileRecordBatchStreamBuilder::new(Bytes::from(file))
///     .await?
///     .with_query(Query::all().columns(["city", "temp"]))
///     .build()
///     .await?;
/// let batches: Vec<_> = stream.try_collect().await?;
/// assert!(batches.iter().map(|b| b.num_rows()).sum::<usize>() > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap().unwrap();
/// ```
#[derive(Debug)]
pub struct TsFileRecordBatchStreamBuilder<A> {
    source: Arc<A>,
    cache: Arc<FetchedSource>,
    inner: TsFileArrowReaderBuilder<Arc<FetchedSource>>,
    options: AsyncReadOptions,
}

impl<A: AsyncByteSource + 'static> TsFileRecordBatchStreamBuilder<A> {
    /// Opens `source` with [`AsyncReadOptions::default`].
    pub async fn new(source: A) -> Result<Self> {
        Self::new_with_options(source, AsyncReadOptions::default()).await
    }

    /// Opens `source`: fetches its end and head and reads the footer.
    ///
    /// Errors: as [`TsFileReader::open`]; [`crate::ErrorKind::Fetch`] when a request fails.
    pub async fn new_with_options(source: A, options: AsyncReadOptions) -> Result<Self> {
        let source = Arc::new(source);
        let len = source.len();
        let cache = Arc::new(FetchedSource::new(len));
        let fetch = &options.fetch;
        let ends = vec![0..len.min(4096), len.saturating_sub(fetch.tail)..len];
        fetch_into(&*source, &cache, ends, fetch).await?;
        let open = || {
            let b = TsFileReader::builder(Arc::clone(&cache)).with_limits(options.limits.clone());
            match &options.modifications {
                Some(m) => b.with_modifications(m.clone()),
                None => b,
            }
            .build()
        };
        let reader = resolve(&*source, &cache, fetch, &mut (), |_| open()).await?;
        let inner = TsFileArrowReader::builder(Arc::new(reader));
        Ok(TsFileRecordBatchStreamBuilder {
            source,
            cache,
            inner,
            options,
        })
    }

    /// The file's footer and index (as [`TsFileReader::metadata`]).
    pub fn metadata(&self) -> &FileMetadata {
        self.inner.reader.metadata()
    }

    /// The synchronous reader over the bytes fetched so far: what it reads beyond them
    /// fails with [`crate::ErrorKind::Unfetched`]. After [`fetch_index`](Self::fetch_index)
    /// it answers every question about devices and series without a request.
    pub fn reader(&self) -> &Arc<TsFileReader<Arc<FetchedSource>>> {
        &self.inner.reader
    }

    /// Fetches the whole index (in one request, less what is held already): how a planner
    /// that asks about every device, as a table does, avoids a request per index node.
    ///
    /// Errors: a failed request.
    pub async fn fetch_index(&self) -> Result<()> {
        let meta = self.inner.reader.metadata();
        let index = meta.meta_offset()..meta.file_len();
        fetch_into(
            &*self.source,
            &self.cache,
            std::iter::once(index),
            &self.options.fetch,
        )
        .await
    }

    /// As [`TsFileArrowReaderBuilder::with_query`].
    pub fn with_query(mut self, query: Query) -> Self {
        self.inner = self.inner.with_query(query);
        self
    }

    /// As [`TsFileArrowReaderBuilder::with_batch_size`].
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.inner = self.inner.with_batch_size(n);
        self
    }

    /// As [`TsFileArrowReaderBuilder::with_time_unit`].
    pub fn with_time_unit(mut self, unit: TimeUnit) -> Self {
        self.inner = self.inner.with_time_unit(unit);
        self
    }

    /// As [`TsFileArrowReaderBuilder::with_lossy_utf8`].
    pub fn with_lossy_utf8(mut self, lossy: bool) -> Self {
        self.inner = self.inner.with_lossy_utf8(lossy);
        self
    }

    /// The schema of the batches (fetches the index parts it needs).
    pub async fn schema(&self) -> Result<SchemaRef> {
        let fetch = &self.options.fetch;
        let inner = &self.inner;
        resolve(&*self.source, &self.cache, fetch, &mut (), |_| {
            inner.schema()
        })
        .await
    }

    /// Starts the query: plans it (fetching the index it needs) and returns the stream,
    /// which fetches each window of devices' chunks as it reaches them.
    ///
    /// Errors: as [`TsFileArrowReaderBuilder::build`]; a failed request.
    pub async fn build(self) -> Result<TsFileRecordBatchStream> {
        let TsFileRecordBatchStreamBuilder {
            source,
            cache,
            inner,
            options,
        } = self;
        let meta = inner.reader.metadata();
        let index = meta.meta_offset()..meta.file_len();
        if inner.query.devices.is_none() && index.end - index.start <= options.max_index_prefetch {
            fetch_into(
                &*source,
                &cache,
                std::iter::once(index.clone()),
                &options.fetch,
            )
            .await?;
        }
        let fetch = &options.fetch;
        let build = |_: &mut ()| inner.clone().build();
        let mut reader = resolve(&*source, &cache, fetch, &mut (), build).await?;
        reader.stream.hold(0);
        let schema = Arc::clone(&reader.plan.schema);
        let demand = DemandFetch::new(options.window, MAX_READ_AHEAD, Vec::new());
        let state = State {
            fetcher: Fetcher {
                source,
                cache,
                options,
                index,
                demand,
            },
            scan: Scan::Here(Box::new(reader)),
            done: false,
        };
        Ok(BatchStream::new(schema, state))
    }
}

impl<A> Clone for TsFileRecordBatchStreamBuilder<A> {
    /// A second builder over the same opened file, for another stream (a split of a scan,
    /// say): no request, the footer is not read again, and the bytes fetched so far are
    /// shared; from then on each fetches and drops chunk bytes on its own.
    fn clone(&self) -> Self {
        let cache = Arc::new(self.cache.fork());
        let inner = &self.inner;
        let reader = Arc::new(inner.reader.with_source(Arc::clone(&cache)));
        TsFileRecordBatchStreamBuilder {
            source: Arc::clone(&self.source),
            cache,
            inner: TsFileArrowReaderBuilder {
                reader,
                query: inner.query.clone(),
                batch_size: inner.batch_size,
                unit: inner.unit,
                lossy: inner.lossy,
            },
            options: self.options.clone(),
        }
    }
}

/// A TsFile query's batches as an async `Stream`; made by
/// [`TsFileRecordBatchStreamBuilder::build`]. Items and batches are those of
/// [`TsFileArrowReader`].
pub type TsFileRecordBatchStream = BatchStream;

type Reader = TsFileArrowReader<Arc<FetchedSource>>;

/// The stream's state between batches.
struct State<A> {
    fetcher: Fetcher<A>,
    scan: Scan,
    done: bool,
}

/// Where the scan runs.
enum Scan {
    /// Here, between awaits: every byte it reads was fetched before its window started.
    Here(Box<Reader>),
    /// On a thread of its own, for a window with chunks too large to fetch whole: it asks
    /// for their pages' bytes as it reaches them.
    Away(ScanThread<Item, Box<Reader>>),
    /// Neither (only while moving between the two).
    Moving,
}

/// What fetches: the source, its cache and the fetch settings.
struct Fetcher<A> {
    source: Arc<A>,
    cache: Arc<FetchedSource>,
    options: AsyncReadOptions,
    /// The index and footer, kept while chunk bytes come and go.
    index: Range<u64>,
    /// The asks of a scan away, within the window's bytes.
    demand: DemandFetch,
}

impl<A: AsyncByteSource + 'static> NextBatch for State<A> {
    /// The next batch: from the devices already fetched, else after fetching the next
    /// window of them; a window with chunks over 4 MiB is scanned on a
    /// thread that asks for their pages as it goes.
    async fn next(&mut self) -> Option<Item> {
        loop {
            if self.done {
                return None;
            }
            match &mut self.scan {
                Scan::Here(reader) => {
                    if let Some(item) = reader.next() {
                        self.done = item.is_err();
                        return Some(item);
                    }
                    if !reader.stream.blocked() {
                        return None;
                    }
                    match self.fetcher.fetch_window(reader).await {
                        Err(e) => {
                            self.done = true;
                            return Some(Err(to_arrow(e)));
                        }
                        Ok(true) => self.send_away(),
                        Ok(false) => {}
                    }
                }
                Scan::Away(thread) => match thread.next().await {
                    Event::Item(item) => {
                        self.done = item.is_err();
                        return Some(item);
                    }
                    Event::Need(range) => {
                        let f = &mut self.fetcher;
                        let (src, cache, fetch) = (&*f.source, &*f.cache, &f.options.fetch);
                        let fetched = f.demand.serve(src, cache, fetch, range).await;
                        thread.answer(fetched);
                    }
                    Event::Done(reader) => self.scan = Scan::Here(reader),
                },
                Scan::Moving => return None,
            }
        }
    }
}

impl<A> State<A> {
    /// Moves the scan to a thread of its own for the window just allowed.
    fn send_away(&mut self) {
        let Scan::Here(reader) = std::mem::replace(&mut self.scan, Scan::Moving) else {
            return;
        };
        let mut failed = false;
        let cache = Arc::clone(&self.fetcher.cache);
        let thread = ScanThread::spawn(cache, reader, move |r: &mut Box<Reader>| {
            if failed {
                return None;
            }
            let item = r.next()?;
            failed = item.is_err();
            Some(item)
        });
        self.scan = Scan::Away(thread);
    }
}

impl<A: AsyncByteSource> Fetcher<A> {
    /// Drops the chunks of the devices read, then fetches those the next window reads;
    /// whether the window has chunks too large to fetch whole (only their first bytes are).
    async fn fetch_window(&mut self, reader: &mut Reader) -> Result<bool> {
        let (src, cache, fetch) = (&*self.source, &*self.cache, &self.options.fetch);
        cache.retain(self.index.clone());
        let stream = &mut reader.stream;
        let budget = self.options.window;
        let w = resolve(src, cache, fetch, stream, |s| next_window(s, budget)).await?;
        fetch_into(src, cache, w.guess, fetch).await?;
        let chunks = &w.chunks;
        let extents = resolve(src, cache, fetch, stream, |s| chunk_extents(s, chunks)).await?;
        let planned = extents.iter().map(ChunkExtent::planned);
        fetch_into(src, cache, planned, fetch).await?;
        let large: Vec<Range<u64>> = extents
            .into_iter()
            .filter(|e| e.paged.is_some())
            .map(|e| e.whole)
            .collect();
        reader.stream.allow(w.devices, w.plans);
        // Each large chunk is read at its own place: read ahead a share of the window each.
        let share = (budget / (large.len() as u64 + 1)).clamp(MIN_READ_AHEAD, MAX_READ_AHEAD);
        let threaded = !large.is_empty();
        self.demand = DemandFetch::new(budget, share, large);
        Ok(threaded)
    }
}

/// Bytes of a large chunk fetched at once by a scan that asks for its pages: the most, and
/// the least however many large chunks share the window.
const MAX_READ_AHEAD: u64 = 4 << 20;
const MIN_READ_AHEAD: u64 = 64 << 10;
