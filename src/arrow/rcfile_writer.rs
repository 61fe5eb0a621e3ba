//! [`RcFileArrowWriter`]: Arrow record batches into an RCFile.

use std::io::Write;

use arrow_array::{Array, RecordBatch};
use arrow_schema::Schema as ArrowSchema;

use super::hive_types::{arrow_schema_to_hive, field_to_hive};
use super::hive_values::value_into;
use super::rcfile_cells::plain_cells;
use crate::parallel::map_in_order;
use crate::rcfile::encoded::{ColumnCells, EncodedRows};
use crate::rcfile::{
    Field, HadoopCodec, HiveType, RcFileWriter, RcFileWriterBuilder, RowWriter, RowWriterBuilder,
    Schema, Serde, Value, WriteSummary,
};
use crate::{Error, Result};

/// Writes record batches as rows of an RCFile with a given Hive schema and serde.
///
/// Batch columns are matched to schema columns by name (without regard to case, as Hive
/// does); schema columns a batch lacks are written as NULL, batch columns the schema lacks
/// are an error. A batch is converted whole before any of it is written, so a batch that
/// fails leaves the file as it was.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
/// use colfile::arrow::{RcFileArrowReader, RcFileArrowWriter};
/// use colfile::rcfile::{HadoopCodec, Serde};
///
/// let batch = RecordBatch::try_from_iter([
///     ("id", Arc::new(Int64Array::from(vec![1, 2])) as ArrayRef),
///     ("name", Arc::new(StringArray::from(vec![Some("a"), None])) as ArrayRef),
/// ])?;
/// let schema = colfile::arrow::arrow_schema_to_hive(&batch.schema())?;
/// let mut w = RcFileArrowWriter::builder(Vec::new(), schema.clone(), Serde::binary())
///     .with_codec(Some(HadoopCodec::Default))
///     .build()?;
/// w.write(&batch)?;
/// let (file, summary) = w.finish_into_inner()?;
/// assert_eq!(summary.rows, 2);
///
/// let back: Vec<RecordBatch> = RcFileArrowReader::builder(file.as_slice(), schema, Serde::binary())
///     .build()?
///     .collect::<Result<_, _>>()?;
/// assert_eq!(back[0].column(1), batch.column(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct RcFileArrowWriter<W: Write> {
    rows: RowWriter<W>,
    encoder: RcFileArrowEncoder,
}

/// Turns record batches into an RCFile's cells ([`EncodedRows`]) without a writer: the half
/// of [`RcFileArrowWriter`] that can run on other threads. Encode batches on as many
/// threads as there are cores with clones of one encoder, and hand the results in order to
/// [`RcFileArrowWriter::write_encoded`] (or [`RcFileWriter::write_encoded`]): the file is
/// the one [`RcFileArrowWriter::write`] makes of the same batches.
///
/// ```
/// use std::sync::Arc;
/// use arrow_array::{ArrayRef, Int32Array, RecordBatch};
/// use colfile::arrow::RcFileArrowWriter;
/// use colfile::rcfile::Serde;
///
/// let batch = RecordBatch::try_from_iter([("n", Arc::new(Int32Array::from(vec![7, 8])) as ArrayRef)])?;
/// let schema = colfile::arrow::arrow_schema_to_hive(&batch.schema())?;
/// let mut w = RcFileArrowWriter::builder(Vec::new(), schema, Serde::binary()).build()?;
/// let encoder = w.encoder().clone();
/// let cells = std::thread::spawn(move || encoder.encode(&batch)).join().unwrap()?;
/// w.write_encoded(&cells)?;
/// assert_eq!(w.finish()?.rows, 2);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct RcFileArrowEncoder {
    schema: Schema,
    serde: Serde,
    threads: usize,
}

/// Configures an [`RcFileArrowWriter`]: the options of the [`RcFileWriterBuilder`] under it.
/// Made by [`RcFileArrowWriter::builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct RcFileArrowWriterBuilder<W> {
    rows: RowWriterBuilder<W>,
    threads: usize,
}

impl<W: Write> RcFileArrowWriterBuilder<W> {
    /// Compresses the column data with `codec` (`None`, the default: uncompressed).
    pub fn with_codec(self, codec: Option<HadoopCodec>) -> Self {
        let rows = self.rows.with_codec(codec);
        Self { rows, ..self }
    }
    /// Encodes a large batch's columns on up to `threads` threads (at least 1; the default,
    /// 1, starts no thread). The bytes written do not depend on it.
    pub fn with_threads(self, threads: usize) -> Self {
        let threads = threads.max(1);
        Self { threads, ..self }
    }
    /// Any other writer option ([`RcFileWriterBuilder`]: level, row-group size, metadata,
    /// header version, sync marker, validation), applied to the builder under this one.
    pub fn with_writer(
        self,
        configure: impl FnOnce(RcFileWriterBuilder<W>) -> RcFileWriterBuilder<W>,
    ) -> Self {
        let rows = self.rows.with_writer(configure);
        Self { rows, ..self }
    }
    /// Writes the header and returns the writer.
    pub fn build(self) -> Result<RcFileArrowWriter<W>> {
        let rows = self.rows.build()?;
        let encoder = RcFileArrowEncoder::new(rows.schema().clone(), rows.serde().clone())
            .with_threads(self.threads);
        Ok(RcFileArrowWriter { rows, encoder })
    }
}

impl<W: Write> RcFileArrowWriter<W> {
    /// Starts configuring a writer to `sink` of rows of `schema` (see
    /// [`arrow_schema_to_hive`] to derive it from an Arrow schema) encoded with `serde`.
    pub fn builder(sink: W, schema: Schema, serde: Serde) -> RcFileArrowWriterBuilder<W> {
        let rows = RowWriter::builder(sink, schema, serde);
        RcFileArrowWriterBuilder { rows, threads: 1 }
    }

    /// Writes through `writer` (configured with codec, row-group size, …; its column count
    /// should be the schema's) rows of `schema` encoded with `serde`.
    pub fn new(writer: RcFileWriter<W>, schema: Schema, serde: Serde) -> Self {
        RcFileArrowWriter {
            encoder: RcFileArrowEncoder::new(schema.clone(), serde.clone()),
            rows: RowWriter::new(writer, schema, serde),
        }
    }

    /// Like [`new`](Self::new), with the Hive schema derived from an Arrow schema
    /// ([`arrow_schema_to_hive`]).
    pub fn try_from_arrow(
        writer: RcFileWriter<W>,
        schema: &ArrowSchema,
        serde: Serde,
    ) -> Result<Self> {
        Ok(Self::new(writer, arrow_schema_to_hive(schema)?, serde))
    }

    /// The Hive schema rows are written with.
    pub fn schema(&self) -> &Schema {
        &self.encoder.schema
    }

    /// Appends every row of `batch`.
    ///
    /// Errors: a batch column the schema does not have, or of a type that cannot be written
    /// as its Hive column (a string as an `int`, say); nothing of the batch is written then.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let encoded = self.encoder.encode(batch)?;
        self.write_encoded(&encoded)
    }

    /// The encoder [`write`](Self::write) uses, to clone for encoding on other threads.
    pub fn encoder(&self) -> &RcFileArrowEncoder {
        &self.encoder
    }

    /// Appends rows an [`RcFileArrowEncoder`] of this writer's schema and serde made
    /// ([`RcFileWriter::write_encoded`]).
    pub fn write_encoded(&mut self, rows: &EncodedRows) -> Result<()> {
        self.rows.writer().write_encoded(rows)
    }

    /// The underlying RCFile writer (row-group flushes, bytes written).
    pub fn writer(&mut self) -> &mut RcFileWriter<W> {
        self.rows.writer()
    }

    /// Finishes the file ([`RcFileWriter::finish`]).
    pub fn finish(self) -> Result<WriteSummary> {
        self.rows.finish()
    }

    /// Finishes the file and returns the sink.
    pub fn finish_into_inner(self) -> Result<(W, WriteSummary)> {
        self.rows.finish_into_inner()
    }
}

impl RcFileArrowEncoder {
    /// An encoder of batches into rows of `schema` encoded with `serde`, on the calling
    /// thread.
    pub fn new(schema: Schema, serde: Serde) -> Self {
        RcFileArrowEncoder {
            schema,
            serde,
            threads: 1,
        }
    }

    /// Encodes a large batch's columns on up to `threads` threads (at least 1; the default,
    /// 1, starts no thread). The cells do not depend on it.
    pub fn with_threads(self, threads: usize) -> Self {
        let threads = threads.max(1);
        Self { threads, ..self }
    }

    /// The Hive schema rows are encoded for.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }

    /// The rows of `batch` as cells, ready for [`RcFileWriter::write_encoded`].
    ///
    /// Errors: as [`RcFileArrowWriter::write`]'s.
    pub fn encode(&self, batch: &RecordBatch) -> Result<EncodedRows> {
        let mut rows = EncodedRows::new(0);
        self.encode_into(batch, &mut rows)?;
        Ok(rows)
    }

    /// [`encode`](Self::encode) into `into`, replacing what it held and reusing its buffers
    /// (hand the rows back after writing them, and a pipeline allocates once). On an error
    /// `into` is left empty.
    pub fn encode_into(&self, batch: &RecordBatch, into: &mut EncodedRows) -> Result<()> {
        let mut columns = std::mem::replace(into, EncodedRows::new(0)).into_columns();
        let sources = self.match_columns(batch)?;
        let rows = batch.num_rows();
        columns.resize_with(sources.len(), ColumnCells::default);
        self.encode_columns(&sources, rows, &mut columns)?;
        *into = EncodedRows::from_columns(columns, rows);
        Ok(())
    }

    /// Each schema column's cells for `rows` rows of `sources` into `columns` (one a source),
    /// column by column (one loop over an array's values, no row of values), the columns
    /// taken one at a time by the threads when the batch is large enough to pay for them.
    /// The first failing column's error, in column order.
    fn encode_columns(
        &self,
        sources: &[Source],
        rows: usize,
        columns: &mut [ColumnCells],
    ) -> Result<()> {
        let serde = &self.serde;
        let jobs: Vec<Job<'_>> = (sources.iter())
            .map(Option::as_deref)
            .zip(self.schema.columns())
            .zip(columns.iter_mut())
            .map(|((src, col), cells)| (src, col, cells))
            .collect();
        // Threads only for a batch large enough to pay for them.
        let threads = if rows * jobs.len() < PARALLEL_CELLS {
            1
        } else {
            self.threads
        };
        let encoded = map_in_order(
            jobs,
            &mut vec![(); threads],
            "column-encoding",
            |_, (src, col, cells)| encode_cells(src, col, serde, rows, cells),
        )?;
        // The first failing column's error.
        encoded.into_iter().collect()
    }

    /// For each schema column, the batch column that feeds it (or none).
    fn match_columns(&self, batch: &RecordBatch) -> Result<Vec<Source>> {
        let mut sources = vec![None; self.schema.len()];
        let batch_schema = batch.schema();
        for (field, array) in batch_schema.fields().iter().zip(batch.columns()) {
            let Some(i) = self.schema.index_of(field.name()) else {
                return Err(Error::schema(format!(
                    "batch column {:?} is not in the schema ({})",
                    field.name(),
                    self.schema
                )));
            };
            let (Some(slot), Some(col)) = (sources.get_mut(i), self.schema.columns().get(i)) else {
                continue;
            };
            let source = field_to_hive(field)?;
            if !writable(&col.ty, &source) {
                return Err(Error::schema(format!(
                    "batch column {:?} of Arrow type {} cannot be written as Hive {}",
                    field.name(),
                    field.data_type(),
                    col.ty
                )));
            }
            *slot = Some(array.clone());
        }
        Ok(sources)
    }
}

impl<W: crate::sink::SyncWrite> RcFileArrowWriter<W> {
    /// Finishes the file and fsyncs it ([`RcFileWriter::finish_sync`]).
    pub fn finish_sync(self) -> Result<WriteSummary> {
        self.rows.finish_sync()
    }
}

/// One column to encode: its source array (if any), its schema column and its cells.
type Job<'a> = (Option<&'a dyn Array>, &'a Field, &'a mut ColumnCells);

/// The batch column that feeds a schema column, if any.
type Source = Option<std::sync::Arc<dyn Array>>;

/// Cells in a batch below which its columns are encoded on the caller's thread only.
const PARALLEL_CELLS: usize = 1 << 15;

/// The cells of `rows` values of column `col` from `array` (all NULL without one), in `c`
/// (cleared first, its room kept).
fn encode_cells(
    array: Option<&dyn Array>,
    col: &Field,
    serde: &Serde,
    rows: usize,
    c: &mut ColumnCells,
) -> Result<()> {
    c.bytes.clear();
    c.ends.clear();
    if array.is_some_and(|a| plain_cells(a, &col.ty, serde, rows, c)) {
        return Ok(());
    }
    c.ends.reserve(rows);
    let mut value = Value::Null;
    for r in 0..rows {
        if let Some(a) = array {
            let at_row = |e: Error| e.at_row(r as u64).in_section("record batch");
            value_into(a, r, &col.ty, &mut value).map_err(at_row)?;
            c.push(serde, col, &value).map_err(at_row)?;
        } else {
            c.push(serde, col, &Value::Null)?;
        }
    }
    Ok(())
}

/// Whether values of Hive type `source` (what an Arrow field maps to) can be written as
/// `target`: string-like types into each other, decimals of any precision (rounded, NULL
/// when they do not fit, as Hive does), nested types member by member.
fn writable(target: &HiveType, source: &HiveType) -> bool {
    use HiveType as H;
    match (target, source) {
        (t, s) if t.is_string_like() && s.is_string_like() => true,
        (H::Binary, s) => s.is_string_like() || *s == H::Binary,
        (t, H::Binary) => t.is_string_like(),
        (H::Decimal { .. }, H::Decimal { .. }) => true,
        (H::Array(t), H::Array(s)) => writable(t, s),
        (H::Map(tk, tv), H::Map(sk, sv)) => writable(tk, sk) && writable(tv, sv),
        (H::Struct(t), H::Struct(s)) => {
            t.len() == s.len() && t.iter().zip(s).all(|(a, b)| writable(&a.ty, &b.ty))
        }
        (H::Union(t), H::Union(s)) => {
            t.len() == s.len() && t.iter().zip(s).all(|(a, b)| writable(a, b))
        }
        (t, s) => t == s,
    }
}
