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

use std::ops::Range;
use std::sync::Arc;

use arrow_schema::{SchemaRef, TimeUnit};

use super::{TsFileArrowReader, TsFileArrowReaderBuilder};
use crate::arrow::batch_stream::{BatchStream, Item, NextBatch};
use crate::arrow::to_arrow;
use crate::source::{fetch_into, resolve, AsyncByteSource, FetchOptions, FetchedSource};
use crate::tsfile::mods::Modifications;
use crate::tsfile::read::fetch_plan::{chunk_extents, next_window, MAX_INDEX_PREFETCH, WINDOW};
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
        let state = State {
            source,
            cache,
            reader,
            options,
            index,
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

/// The stream's state between batches.
struct State<A> {
    source: Arc<A>,
    cache: Arc<FetchedSource>,
    reader: TsFileArrowReader<Arc<FetchedSource>>,
    options: AsyncReadOptions,
    /// The index and footer, kept while chunk bytes come and go.
    index: Range<u64>,
    done: bool,
}

impl<A: AsyncByteSource + 'static> NextBatch for State<A> {
    /// The next batch: from the devices already fetched, else after fetching the next
    /// window of them.
    async fn next(&mut self) -> Option<Item> {
        loop {
            if self.done {
                return None;
            }
            if let Some(item) = self.reader.next() {
                self.done = item.is_err();
                return Some(item);
            }
            if !self.reader.stream.blocked() {
                return None;
            }
            if let Err(e) = self.fetch_window().await {
                self.done = true;
                return Some(Err(to_arrow(e)));
            }
        }
    }
}

impl<A: AsyncByteSource> State<A> {
    /// Drops the chunks of the devices read, then fetches those the next window reads.
    async fn fetch_window(&mut self) -> Result<()> {
        let (src, cache, fetch) = (&*self.source, &*self.cache, &self.options.fetch);
        cache.retain(self.index.clone());
        let stream = &mut self.reader.stream;
        let budget = self.options.window;
        let w = resolve(src, cache, fetch, stream, |s| next_window(s, budget)).await?;
        fetch_into(src, cache, w.guess, fetch).await?;
        let chunks = &w.chunks;
        let exact = resolve(src, cache, fetch, stream, |s| {
            chunk_extents(s, chunks, false)
        })
        .await?;
        fetch_into(src, cache, exact, fetch).await?;
        self.reader.stream.allow(w.devices, w.plans);
        Ok(())
    }
}
