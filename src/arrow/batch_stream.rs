//! [`BatchStream`]: what the async readers of both formats return, an async `Stream` of
//! record batches that knows its schema, driven by a reader's own step.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use arrow_array::RecordBatch;
use arrow_schema::{ArrowError, SchemaRef};
use futures_util::stream::BoxStream;
use futures_util::{Stream, StreamExt};

/// One item of a batch stream: as the synchronous readers' items.
pub(crate) type Item = std::result::Result<RecordBatch, ArrowError>;

/// A reader's state that yields the next batch (fetching what it needs first).
pub(crate) trait NextBatch: Send + 'static {
    /// The next batch, or `None` at the end.
    fn next(&mut self) -> impl Future<Output = Option<Item>> + Send;
}

/// Record batches of one schema as an async [`Stream`]; its items are those of the
/// synchronous readers (`Result<RecordBatch, ArrowError>`, a colfile error inside
/// `ArrowError::ExternalError`).
pub struct BatchStream {
    schema: SchemaRef,
    inner: BoxStream<'static, Item>,
}

impl BatchStream {
    /// A stream of what `state` yields.
    pub(crate) fn new(schema: SchemaRef, state: impl NextBatch) -> Self {
        let inner = futures_util::stream::unfold(state, |mut st| async move {
            let item = st.next().await?;
            Some((item, st))
        })
        .boxed();
        BatchStream { schema, inner }
    }

    /// The schema of every batch.
    pub fn schema(&self) -> SchemaRef {
        Arc::clone(&self.schema)
    }
}

impl std::fmt::Debug for BatchStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchStream")
            .field("schema", &self.schema)
            .finish_non_exhaustive()
    }
}

impl Stream for BatchStream {
    type Item = Item;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Item>> {
        self.inner.poll_next_unpin(cx)
    }
}
