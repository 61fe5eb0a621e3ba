//! [`RcFileRecordBatchStream`]: an RCFile (or a split of it) as an async `Stream` of Arrow
//! `RecordBatch`es over an [`AsyncByteSource`]. The same batches as [`RcFileArrowReader`]:
//! the synchronous reader runs over the bytes fetched so far.
//!
//! Requests: one for the file's head (header and the first row group's key section); then
//! per row group, once its key section is read, one round of its projected columns together
//! with the head of the next group (guessed from this group's key section). A projection of
//! one column of ten reads that column and the key sections, not the rest.

use std::sync::Arc;

use arrow_schema::{SchemaRef, TimeUnit};

use super::{RcFileArrowReader, RcFileArrowReaderBuilder};
use crate::arrow::batch_stream::{BatchStream, Item, NextBatch};
use crate::arrow::to_arrow;
use crate::rcfile::reader::head_ranges;
use crate::rcfile::{Schema, Serde};
use crate::source::{fetch_into, resolve, AsyncByteSource, FetchOptions, FetchedSource};
use crate::{ErrorKind, Limits, Result};

/// Sets up an async RCFile read: the counterpart of [`RcFileArrowReader::builder`].
///
/// ```
/// # futures_util::FutureExt::now_or_never(async {
/// use bytes::Bytes;
/// use futures_util::TryStreamExt;
/// use colfile::arrow::RcFileRecordBatchStreamBuilder;
/// use colfile::rcfile::Serde;
/// let file = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let schema = "id:int,same:string,grp:bigint,txt:string".parse()?;
/// let stream = RcFileRecordBatchStreamBuilder::new(Bytes::from(file), schema, Serde::text())
///     .with_columns(&["id"])?
///     .build()
///     .await?;
/// let batches: Vec<_> = stream.try_collect().await?;
/// assert!(batches.iter().all(|b| b.num_columns() == 1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap().unwrap();
/// ```
#[derive(Debug)]
pub struct RcFileRecordBatchStreamBuilder<A> {
    source: Arc<A>,
    cache: Arc<FetchedSource>,
    inner: RcFileArrowReaderBuilder<Arc<FetchedSource>>,
    fetch: FetchOptions,
}

impl<A: AsyncByteSource + 'static> RcFileRecordBatchStreamBuilder<A> {
    /// Reads `source` as `schema` with `serde` (all columns, the whole file). Nothing is
    /// fetched until [`build`](Self::build).
    pub fn new(source: A, schema: Schema, serde: Serde) -> Self {
        let cache = Arc::new(FetchedSource::new(source.len()));
        let inner = RcFileArrowReader::builder(Arc::clone(&cache), schema, serde);
        RcFileRecordBatchStreamBuilder {
            source: Arc::new(source),
            cache,
            inner,
            fetch: FetchOptions::default(),
        }
    }

    /// As [`RcFileArrowReaderBuilder::with_projection`].
    pub fn with_projection(mut self, columns: impl IntoIterator<Item = usize>) -> Self {
        self.inner = self.inner.with_projection(columns);
        self
    }

    /// As [`RcFileArrowReaderBuilder::with_columns`].
    pub fn with_columns<N: AsRef<str>>(mut self, names: &[N]) -> Result<Self> {
        self.inner = self.inner.with_columns(names)?;
        Ok(self)
    }

    /// As [`RcFileArrowReaderBuilder::with_split`].
    pub fn with_split(mut self, range: std::ops::Range<u64>) -> Self {
        self.inner = self.inner.with_split(range);
        self
    }

    /// As [`RcFileArrowReaderBuilder::with_limits`].
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.inner = self.inner.with_limits(limits);
        self
    }

    /// As [`RcFileArrowReaderBuilder::with_batch_size`].
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.inner = self.inner.with_batch_size(rows);
        self
    }

    /// As [`RcFileArrowReaderBuilder::with_timestamp_unit`].
    pub fn with_timestamp_unit(mut self, unit: TimeUnit) -> Self {
        self.inner = self.inner.with_timestamp_unit(unit);
        self
    }

    /// As [`RcFileArrowReaderBuilder::with_lossy_utf8`].
    pub fn with_lossy_utf8(mut self, lossy: bool) -> Self {
        self.inner = self.inner.with_lossy_utf8(lossy);
        self
    }

    /// How requests are made ([`FetchOptions::default`]; its `tail` is how much of the
    /// first row group's start is fetched with the header).
    pub fn with_fetch_options(mut self, fetch: FetchOptions) -> Self {
        self.fetch = fetch;
        self
    }

    /// The schema of the batches (no request).
    pub fn schema(&self) -> Result<SchemaRef> {
        self.inner.schema()
    }

    /// Fetches the file's head, reads its header and returns the stream.
    ///
    /// Errors: as [`RcFileArrowReaderBuilder::build`]; a failed request.
    pub async fn build(self) -> Result<RcFileRecordBatchStream> {
        let RcFileRecordBatchStreamBuilder {
            source,
            cache,
            inner,
            fetch,
        } = self;
        let head = head_ranges(inner.split.as_ref(), source.len(), fetch.block, fetch.tail);
        fetch_into(&*source, &cache, head, &fetch).await?;
        let build = |_: &mut ()| inner.clone().build();
        let reader = resolve(&*source, &cache, &fetch, &mut (), build).await?;
        let schema = Arc::clone(&reader.arrow);
        let state = State {
            source,
            cache,
            reader,
            fetch,
            done: false,
        };
        Ok(BatchStream::new(schema, state))
    }
}

/// An RCFile's batches as an async `Stream`; made by
/// [`RcFileRecordBatchStreamBuilder::build`]. Items and batches are those of
/// [`RcFileArrowReader`].
pub type RcFileRecordBatchStream = BatchStream;

struct State<A> {
    source: Arc<A>,
    cache: Arc<FetchedSource>,
    reader: RcFileArrowReader<Arc<FetchedSource>>,
    fetch: FetchOptions,
    done: bool,
}

impl<A: AsyncByteSource + 'static> NextBatch for State<A> {
    async fn next(&mut self) -> Option<Item> {
        loop {
            if self.done {
                return None;
            }
            let e = match self.reader.next_item()? {
                Ok(b) => return Some(Ok(b)),
                Err(e) => e,
            };
            let ErrorKind::Unfetched { start, end } = *e.kind() else {
                self.done = true;
                return Some(Err(to_arrow(e)));
            };
            // Each round fetches bytes that were missing, so the loop ends.
            let len = self.source.len();
            let missing = start..end.max(start.saturating_add(self.fetch.block)).min(len);
            let rows = &self.reader.reader;
            let want: Vec<_> = std::iter::once(missing)
                .chain(rows.pending_ranges().into_iter().flatten())
                .collect();
            self.cache.retain(rows.position()..len);
            if let Err(e) = fetch_into(&*self.source, &self.cache, want, &self.fetch).await {
                self.done = true;
                return Some(Err(to_arrow(e)));
            }
        }
    }
}
