//! [`TsFileArrowReader`]: a TsFile [`Query`] as Arrow `RecordBatch`es, one device's rows per
//! batch, built from the reader's [`DeviceBatch`]es column by column.

use std::sync::Arc;

use arrow_array::{ArrayRef, RecordBatch, RecordBatchReader};
use arrow_schema::{ArrowError, SchemaRef, TimeUnit};

use super::{from_arrow, to_arrow, DEFAULT_BATCH_SIZE};
use crate::source::ByteSource;
#[cfg(feature = "async")]
use crate::tsfile::PlannedQuery;
use crate::tsfile::{DeviceBatch, Explain, Query, QueryStream, TsFileReader};
use crate::Result;
use arrays::{column_array, repeated_string, time_array, Opts};
use plan::{OutColumn, Plan};

mod arrays;
mod plan;
#[cfg(feature = "async")]
mod stream;

#[cfg(feature = "async")]
pub use stream::{AsyncReadOptions, TsFileRecordBatchStream, TsFileRecordBatchStreamBuilder};

/// Sets up a [`TsFileArrowReader`]: the query, the batch size, the time unit and how text
/// that is not UTF-8 is treated. Made by [`TsFileArrowReader::builder`].
#[derive(Debug, Clone)]
pub struct TsFileArrowReaderBuilder<S> {
    reader: Arc<TsFileReader<S>>,
    query: Query,
    batch_size: usize,
    unit: TimeUnit,
    lossy: bool,
}

impl<S: ByteSource> TsFileArrowReaderBuilder<S> {
    /// Reads what `query` selects (table, columns, time range, filter, devices, offset and
    /// limit are all pushed down to the plain reader). The default reads the file's only
    /// table, or every tree-model device of a file without table schemas. A query's own
    /// batch size is replaced by [`with_batch_size`](Self::with_batch_size)'s.
    pub fn with_query(mut self, query: Query) -> Self {
        self.query = query;
        self
    }

    /// `n` rows per batch (at least 1; default [`DEFAULT_BATCH_SIZE`]). A batch never holds
    /// the rows of two devices, so the last batch of each device may be shorter; the
    /// others are full (chunks and pages of a device are joined as needed).
    pub fn with_batch_size(mut self, n: usize) -> Self {
        self.batch_size = n.max(1);
        self
    }

    /// How to read the stored 64-bit times of the time column and of TIMESTAMP columns
    /// (TsFile does not record a unit): they are returned unchanged as
    /// `Timestamp(unit, "UTC")`. Default milliseconds, IoTDB's default precision.
    pub fn with_time_unit(mut self, unit: TimeUnit) -> Self {
        self.unit = unit;
        self
    }

    /// Whether TEXT/STRING values that are not UTF-8 are read with U+FFFD replacing the bad
    /// bytes (`true`) or are an error (`false`, the default).
    pub fn with_lossy_utf8(mut self, lossy: bool) -> Self {
        self.lossy = lossy;
        self
    }

    /// The schema of the batches [`build`](Self::build) would return.
    ///
    /// Errors: as [`build`](Self::build), without reading any data.
    pub fn schema(&self) -> Result<SchemaRef> {
        Ok(self.plan()?.schema)
    }

    /// Starts the query.
    ///
    /// Errors: a table that is not in the file; no table named while the file holds several
    /// (the error lists them); a selected column that the table (tree model: every selected
    /// device) lacks; a measurement that has two types in two selected devices; the plain
    /// reader's query errors (a filter naming an unknown column or comparing with a value
    /// of another kind).
    pub fn build(self) -> Result<TsFileArrowReader<S>> {
        let plan = self.plan()?;
        let stream = self.reader.query_shared(&plan.query)?;
        Ok(TsFileArrowReader {
            stream,
            plan,
            unit: self.unit,
            lossy: self.lossy,
            rows: 0,
        })
    }
}

/// Reads a TsFile as Arrow `RecordBatch`es: an [`Iterator`] of
/// `Result<RecordBatch, ArrowError>` and an [`arrow_array::RecordBatchReader`].
///
/// Table-model batches have the columns `time`, then the selected TAG and FIELD columns in
/// table order; tree-model batches `device`, `time`, then the measurements of the selected
/// devices (null where a device lacks one). Each batch holds rows of one device, in time
/// order. A colfile error arrives as `ArrowError::ExternalError` holding the
/// [`crate::Error`].
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{cast::AsArray, types::Float64Type, RecordBatchReader};
/// use colfile::arrow::TsFileArrowReader;
/// use colfile::tsfile::{Query, TsFileReader};
///
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
/// let file = Arc::new(TsFileReader::open(std::fs::read(path)?)?);
/// let reader = TsFileArrowReader::builder(file)
///     .with_query(Query::all().columns(["city", "temp"]).tag_eq("city", "beijing"))
///     .with_batch_size(1024)
///     .build()?;
/// let names: Vec<String> = reader.schema().fields().iter().map(|f| f.name().clone()).collect();
/// assert_eq!(names, ["time", "city", "temp"]);
/// let mut rows = 0;
/// for batch in reader {
///     let batch = batch?;
///     assert!(batch.column(1).as_string::<i32>().iter().all(|c| c == Some("beijing")));
///     rows += batch.column(2).as_primitive::<Float64Type>().len();
/// }
/// assert!(rows > 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TsFileArrowReader<S> {
    stream: QueryStream<Arc<TsFileReader<S>>>,
    plan: Plan,
    unit: TimeUnit,
    lossy: bool,
    /// Rows returned so far (for error locations).
    rows: u64,
}

impl<S: ByteSource> TsFileArrowReader<S> {
    /// A builder reading `reader` (by default: the file's only table, or its tree devices).
    pub fn builder(reader: Arc<TsFileReader<S>>) -> TsFileArrowReaderBuilder<S> {
        TsFileArrowReaderBuilder {
            reader,
            query: Query::all(),
            batch_size: DEFAULT_BATCH_SIZE,
            unit: TimeUnit::Millisecond,
            lossy: false,
        }
    }

    /// Opens `source` (reads its footer) and returns a builder over it: the counterpart of
    /// [`RcFileArrowReader::builder`](super::RcFileArrowReader::builder), which takes a
    /// source too. [`builder`](Self::builder) takes a reader already open, to share one
    /// footer between several scans of the file.
    ///
    /// ```
    /// use colfile::arrow::TsFileArrowReader;
    /// use colfile::tsfile::{ColumnCategory, DataType, TableColumn, TableSchema, TsFileWriter, Value};
    /// let schema = TableSchema::new("t", vec![TableColumn::new("v", DataType::Int32, ColumnCategory::Field)]);
    /// let mut w = TsFileWriter::builder(Vec::new()).with_table(schema).build()?;
    /// w.write_row("t", 5, &[Value::Int32(1)])?;
    /// let (bytes, _) = w.finish_into_inner()?;
    /// let rows: usize = TsFileArrowReader::open(bytes)?.build()?.map(|b| b.map(|b| b.num_rows()).unwrap_or(0)).sum();
    /// assert_eq!(rows, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn open(source: S) -> crate::Result<TsFileArrowReaderBuilder<S>> {
        Ok(Self::builder(Arc::new(TsFileReader::open(source)?)))
    }

    /// What the query has considered and skipped so far (devices, chunks, pages and why),
    /// complete once the reader is exhausted.
    pub fn explain(&self) -> &Explain {
        self.stream.explain()
    }

    /// The query as it is run (table and batch size filled in).
    pub fn query(&self) -> &Query {
        &self.plan.query
    }

    fn convert(&self, batch: DeviceBatch) -> Result<RecordBatch> {
        convert(&self.plan, self.unit, self.lossy, self.rows, batch)
    }
}

/// One tree-model [`DeviceBatch`] as an Arrow `RecordBatch`: `device`, `time`, then the
/// batch's columns in its order, typed as [`TsFileArrowReader`] types them (for readers of
/// batches that do not come from one file, such as
/// [`Dataset::query`](crate::tsfile::dataset::Dataset::query)).
///
/// ```
/// use colfile::arrow::tree_batch_to_arrow;
/// use colfile::tsfile::{Column, DataType, DeviceBatch, DeviceId, Values};
/// let batch = DeviceBatch {
///     table: "root.sg".into(),
///     device: DeviceId::from_tree_path("root.sg.d1")?,
///     tags: vec![],
///     times: vec![1, 2],
///     columns: vec![Column { values: Values::Int64(vec![7]), present: vec![false, true], ..Column::new("s1", DataType::Int64)? }],
/// };
/// let rb = tree_batch_to_arrow(batch, arrow_schema::TimeUnit::Millisecond, false)?;
/// assert_eq!((rb.num_rows(), rb.num_columns()), (2, 3));
/// assert_eq!(rb.column(2).null_count(), 1);
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn tree_batch_to_arrow(batch: DeviceBatch, unit: TimeUnit, lossy: bool) -> Result<RecordBatch> {
    let measurements: Vec<(String, crate::tsfile::DataType)> = batch
        .columns
        .iter()
        .map(|c| (c.name.clone(), c.data_type))
        .collect();
    let plan = Plan {
        query: Query::all(),
        schema: super::tsfile_types::tree_to_arrow(&measurements, unit)?,
        tree: true,
        columns: measurements
            .into_iter()
            .map(|(n, t)| OutColumn::Field(n, t))
            .collect(),
    };
    convert(&plan, unit, lossy, 0, batch)
}

/// `batch` in `plan`'s schema; `first_row` counts the rows before it (for error locations).
fn convert(
    plan: &Plan,
    unit: TimeUnit,
    lossy: bool,
    first_row: u64,
    batch: DeviceBatch,
) -> Result<RecordBatch> {
    let DeviceBatch {
        device,
        tags,
        times,
        columns,
        ..
    } = batch;
    let n = times.len();
    let mut arrays: Vec<ArrayRef> = Vec::with_capacity(plan.columns.len() + 2);
    if plan.tree {
        arrays.push(repeated_string(Some(&device.to_string()), n)?);
    }
    arrays.push(time_array(unit, times, None)?);
    let mut columns: Vec<Option<crate::tsfile::Column>> = columns.into_iter().map(Some).collect();
    for out in &plan.columns {
        match out {
            OutColumn::Tag(name) => {
                let v = tags
                    .iter()
                    .find(|(t, _)| t == name)
                    .and_then(|(_, v)| v.as_deref());
                arrays.push(repeated_string(v, n)?);
            }
            OutColumn::Field(name, data_type) => {
                let col = columns
                    .iter_mut()
                    .find(|c| c.as_ref().is_some_and(|c| c.name == *name))
                    .and_then(Option::take);
                let array = match col {
                    Some(c) => {
                        let opts = Opts {
                            unit,
                            lossy,
                            first_row,
                        };
                        column_array(c, *data_type, n, &opts)
                            .map_err(|e| e.in_series(|| format!("{device}.{name}")))?
                    }
                    None => {
                        let t = super::tsfile_types::tsfile_type_to_arrow(*data_type, unit)?;
                        arrow_array::new_null_array(&t, n)
                    }
                };
                arrays.push(array);
            }
        }
    }
    RecordBatch::try_new(Arc::clone(&plan.schema), arrays).map_err(from_arrow)
}

impl<S: ByteSource> Iterator for TsFileArrowReader<S> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        // The stream cuts and joins its batches to the batch size (the query carries it).
        let batch = match self.stream.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(to_arrow(e))),
        };
        let n = batch.len() as u64;
        let r = self.convert(batch).map_err(to_arrow);
        self.rows += n;
        Some(r)
    }
}

impl<S: ByteSource> RecordBatchReader for TsFileArrowReader<S> {
    fn schema(&self) -> SchemaRef {
        Arc::clone(&self.plan.schema)
    }
}

#[cfg(feature = "async")]
impl<S: ByteSource> TsFileArrowReader<S> {
    /// This reader a window of devices at a time ([`PlannedQuery`]): the same batches, in
    /// few large reads when the file's source is a
    /// [`PlannedSource`](crate::source::PlannedSource).
    pub fn planned(self) -> PlannedQuery<Self> {
        PlannedQuery::start(self, |r| &mut r.stream)
    }
}

#[cfg(feature = "async")]
impl<S: ByteSource> Iterator for PlannedQuery<TsFileArrowReader<S>> {
    type Item = std::result::Result<RecordBatch, ArrowError>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_planned(|r| &mut r.stream)
    }
}

#[cfg(feature = "async")]
impl<S: ByteSource> RecordBatchReader for PlannedQuery<TsFileArrowReader<S>> {
    fn schema(&self) -> SchemaRef {
        self.get_ref().schema()
    }
}
