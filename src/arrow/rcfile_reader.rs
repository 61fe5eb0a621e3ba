//! [`RcFileArrowReader`]: an RCFile (or one byte-range split of it) as Arrow record batches.

use std::ops::Range;
use std::sync::Arc;

use arrow_array::{RecordBatch, RecordBatchOptions, RecordBatchReader};
use arrow_schema::{ArrowError, Schema as ArrowSchema, SchemaRef, TimeUnit};

use super::hive_arrays::{restore, HiveToArrow};
use super::pool::BufferPool;
use super::spare::Spare;
use super::{from_arrow, to_arrow, DEFAULT_BATCH_SIZE};
use crate::rcfile::batch::ColumnBatch;
use crate::rcfile::{RcFileReader, RcFileReaderBuilder, Schema, Serde};
use crate::source::ByteSource;
use crate::{Limits, Result};

#[cfg(feature = "async")]
mod stream;
#[cfg(feature = "async")]
pub use stream::{RcFileRecordBatchStream, RcFileRecordBatchStreamBuilder};

/// Configures an [`RcFileArrowReader`]: the table schema and serde (RCFile stores neither),
/// then projection, split, batch size and how values map.
#[derive(Debug, Clone)]
pub struct RcFileArrowReaderBuilder<S> {
    source: S,
    schema: Schema,
    serde: Serde,
    projection: Option<Vec<usize>>,
    split: Option<Range<u64>>,
    limits: Limits,
    batch_size: usize,
    options: HiveToArrow,
    pool: Option<BufferPool>,
}

impl<S: ByteSource> RcFileArrowReaderBuilder<S> {
    /// Decodes into buffers that earlier readers left in `pool`, and leaves this reader's
    /// there when it is dropped (see [`BufferPool`]). Without a pool nothing outlives the
    /// reader.
    pub fn with_buffer_pool(mut self, pool: BufferPool) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Reads only these columns of `schema` (indices, in the order given; duplicates
    /// and indices past the schema are an error at [`build`](Self::build)). The others are
    /// neither read nor decompressed.
    pub fn with_projection(mut self, columns: impl IntoIterator<Item = usize>) -> Self {
        self.projection = Some(columns.into_iter().collect());
        self
    }
    /// Reads only the columns with these names (matched without regard to case, as Hive does).
    pub fn with_columns<N: AsRef<str>>(mut self, names: &[N]) -> Result<Self> {
        self.projection = Some(self.schema.indices_of(names)?);
        Ok(self)
    }
    /// Reads only the row groups of this byte range (see [`RcFileReaderBuilder::with_split`]).
    pub fn with_split(mut self, range: Range<u64>) -> Self {
        self.split = Some(range);
        self
    }
    /// Caps on what the file may declare.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }
    /// Rows per batch (at least 1; default [`DEFAULT_BATCH_SIZE`]). Batches end at row-group
    /// boundaries, so some are shorter; none is longer.
    pub fn with_batch_size(mut self, rows: usize) -> Self {
        self.batch_size = rows.max(1);
        self
    }
    /// The unit of `timestamp` columns (default nanoseconds, which hold 1677–2262; choose
    /// microseconds for files with dates like `9999-12-31`).
    pub fn with_timestamp_unit(mut self, unit: TimeUnit) -> Self {
        self.options.unit = unit;
        self
    }
    /// Replace bytes that are not UTF-8 in string columns with U+FFFD instead of failing.
    pub fn with_lossy_utf8(mut self, lossy: bool) -> Self {
        self.options.lossy_utf8 = lossy;
        self
    }
    /// The Arrow schema of the batches this builder's reader will return.
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.arrow_schema(&self.selected()?))
    }

    fn selected(&self) -> Result<Vec<usize>> {
        let Some(p) = &self.projection else {
            return Ok((0..self.schema.len()).collect());
        };
        for (i, c) in p.iter().enumerate() {
            if *c >= self.schema.len() || p.get(..i).is_some_and(|b| b.contains(c)) {
                return Err(crate::Error::invalid(format!(
                    "projection {p:?}: column {c} is repeated or not among the schema's {}",
                    self.schema.len()
                )));
            }
        }
        Ok(p.clone())
    }

    fn arrow_schema(&self, selected: &[usize]) -> SchemaRef {
        let fields: Vec<_> = selected
            .iter()
            .filter_map(|&c| self.schema.columns().get(c))
            .map(|c| self.options.field(&c.name, &c.ty))
            .collect();
        Arc::new(ArrowSchema::new(fields))
    }

    /// Reads the header and positions the reader at the split's first row group.
    pub fn build(self) -> Result<RcFileArrowReader<S>> {
        let selected = self.selected()?;
        let arrow = self.arrow_schema(&selected);
        let mut b = RcFileReaderBuilder::new(self.source)
            .with_projection(selected.clone())
            .with_limits(self.limits);
        if let Some(r) = self.split {
            b = b.with_split(r);
        }
        Ok(RcFileArrowReader {
            reader: b.build()?,
            schema: self.schema,
            serde: self.serde,
            columns: match &self.pool {
                Some(pool) => pool.take(selected.len()),
                None => std::iter::repeat_with(ColumnBatch::default)
                    .take(selected.len())
                    .collect(),
            },
            pool: self.pool,
            spares: std::iter::repeat_with(Spare::default)
                .take(selected.len())
                .collect(),
            selected,
            arrow,
            batch_size: self.batch_size,
            options: self.options,
            group: None,
            done: false,
        })
    }
}

/// Record batches of an RCFile: each row group's projected columns are decoded a batch of
/// rows at a time into [`ColumnBatch`]es and turned into Arrow arrays.
///
/// Primitive and string columns move into the arrays without a copy. Once the caller has
/// dropped a batch, the reader takes its buffers back for the next one (a batch still held
/// keeps its own). A dropped reader leaves its decode buffers in the
/// [`BufferPool`] it was given, if any, for the next reader
/// ([`RcFileArrowReaderBuilder::with_buffer_pool`]).
///
/// ```
/// use colfile::arrow::RcFileArrowReader;
/// use colfile::rcfile::Serde;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let schema = "id:int,same:string,grp:bigint,txt:string".parse()?;
/// let reader = RcFileArrowReader::builder(bytes.as_slice(), schema, Serde::text())
///     .with_columns(&["id"])?
///     .with_batch_size(100)
///     .build()?;
/// let mut rows = 0;
/// for batch in reader {
///     let batch = batch?;
///     assert!(batch.num_rows() <= 100);
///     assert_eq!(batch.schema().field(0).name(), "id");
///     rows += batch.num_rows();
/// }
/// assert!(rows > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RcFileArrowReader<S> {
    reader: RcFileReader<S>,
    schema: Schema,
    serde: Serde,
    selected: Vec<usize>,
    columns: Vec<ColumnBatch>,
    /// Per projected column, the buffers its arrays borrowed from `columns`.
    spares: Vec<Spare>,
    arrow: SchemaRef,
    batch_size: usize,
    options: HiveToArrow,
    /// The current row group's row count, and how many of its rows were returned.
    group: Option<(usize, usize)>,
    done: bool,
    /// Where the decode buffers go when the reader is dropped.
    pool: Option<BufferPool>,
}

impl<S: ByteSource> RcFileArrowReader<S> {
    /// Reads `source` (all columns, the whole file) as `schema` with `serde`.
    pub fn builder(source: S, schema: Schema, serde: Serde) -> RcFileArrowReaderBuilder<S> {
        RcFileArrowReaderBuilder {
            source,
            schema,
            serde,
            projection: None,
            split: None,
            limits: Limits::default(),
            batch_size: DEFAULT_BATCH_SIZE,
            options: HiveToArrow {
                unit: TimeUnit::Nanosecond,
                lossy_utf8: false,
            },
            pool: None,
        }
    }

    /// The underlying row-group reader (header, position).
    pub fn reader(&self) -> &RcFileReader<S> {
        &self.reader
    }

    /// Rows `rows` of the current row group's projected columns as one batch: decoded a
    /// batch at a time, a group's values are never all held at once.
    fn decode_rows(&mut self, rows: Range<usize>) -> Result<RecordBatch> {
        let group = self.reader.last_row_group();
        let mut arrays = Vec::with_capacity(self.selected.len());
        let columns = self.columns.iter_mut().zip(&mut self.spares);
        for (&c, (out, spare)) in self.selected.iter().zip(columns) {
            let Some(col) = self.schema.columns().get(c) else {
                continue;
            };
            restore(out, spare, true);
            group.decode_batch_rows(c, rows.clone(), &col.ty, &self.serde, out)?;
            let array = self.options.column(out, &col.ty, spare);
            spare.next_round();
            let array = array.map_err(|e| {
                e.in_column(c)
                    .in_row_group(group.index())
                    .in_section("arrow conversion")
            })?;
            arrays.push(array);
        }
        let options = RecordBatchOptions::new().with_row_count(Some(rows.len()));
        let batch = RecordBatch::try_new_with_options(self.arrow.clone(), arrays, &options);
        batch.map_err(from_arrow)
    }
}

impl<S> Drop for RcFileArrowReader<S> {
    /// Takes back what the caller no longer holds and leaves the decode buffers in the pool,
    /// if the reader has one.
    fn drop(&mut self) {
        let Some(pool) = self.pool.take() else {
            return;
        };
        self.group = None;
        for (batch, spare) in self.columns.iter_mut().zip(&mut self.spares) {
            restore(batch, spare, false);
        }
        pool.give_back(std::mem::take(&mut self.columns));
    }
}

impl<S: ByteSource> Iterator for RcFileArrowReader<S> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_item().map(|r| r.map_err(to_arrow))
    }
}

impl<S: ByteSource> RcFileArrowReader<S> {
    /// The next batch. An [`Unfetched`](crate::ErrorKind::Unfetched) error does not end the
    /// reader: the async reader fetches the bytes and asks again.
    fn next_item(&mut self) -> Option<Result<RecordBatch>> {
        loop {
            if let Some((rows, done)) = self.group {
                if done < rows {
                    let end = rows.min(done + self.batch_size);
                    self.group = Some((rows, end));
                    let batch = self.decode_rows(done..end);
                    if batch.is_err() {
                        (self.group, self.done) = (None, true);
                    }
                    return Some(batch);
                }
                self.group = None;
            }
            if self.done {
                return None;
            }
            match self.reader.next_row_group() {
                Ok(Some(g)) => self.group = Some((g.num_rows(), 0)),
                Ok(None) => {
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = !matches!(e.kind(), crate::ErrorKind::Unfetched { .. });
                    return Some(Err(e));
                }
            }
        }
    }
}

impl<S: ByteSource> RecordBatchReader for RcFileArrowReader<S> {
    fn schema(&self) -> SchemaRef {
        self.arrow.clone()
    }
}
