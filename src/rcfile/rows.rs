//! Typed access on top of the container: [`RowReader`] decodes the cells of selected columns
//! into [`Value`]s with a schema and a serde; [`RowWriter`] encodes rows of values into cells.
//! Columns are matched to the file by position: schema columns past the file's column count
//! read as NULL, file columns past the schema are ignored (Hive's schema evolution rule).

use super::reader::{RcFileReader, RcFileReaderBuilder};
use super::rowgroup::RowGroup;
use super::writer::{RcFileWriter, RcFileWriterBuilder, WriteSummary};
use super::{HadoopCodec, HiveType, Schema, Serde, Value};
use crate::source::ByteSource;
use crate::{Error, Limits, Result};
use std::io::Write;
use std::ops::Range;

impl RowGroup {
    /// Decodes column `col` of this row group as type `ty` with `serde`, appending one value
    /// per row to `out`. A column the file does not have, or a nulled column, gives NULLs.
    pub fn decode_column(
        &self,
        col: usize,
        ty: &HiveType,
        serde: &Serde,
        out: &mut Vec<Value>,
    ) -> Result<()> {
        let rows = self.num_rows();
        let Some(data) = self.cells_to_decode(col)? else {
            out.extend(std::iter::repeat_n(Value::Null, rows));
            return Ok(());
        };
        out.reserve(rows);
        for (row, cell) in data.cells().enumerate() {
            let v = serde.decode(ty, cell).map_err(|e| {
                e.in_section("cell")
                    .at_row(row as u64)
                    .in_column(col)
                    .in_row_group(self.index())
            })?;
            out.push(v);
        }
        Ok(())
    }
}

/// Reads rows of typed values.
///
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::{RowReader, Serde, Value};
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let schema = "id:int,name:string,score:double,flag:boolean".parse()?;
/// let mut rows = RowReader::builder(bytes.as_slice(), schema, Serde::text())
///     .with_columns(&["id"])
///     .build()?;
/// let first = rows.next_row()?.expect("a row").to_vec();
/// assert!(matches!(first[0], Value::Int(_) | Value::Null));
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RowReader<S> {
    reader: RcFileReader<S>,
    schema: Schema,
    serde: Serde,
    selected: Vec<usize>,
    columns: Vec<Vec<Value>>,
    row: usize,
    rows_in_group: usize,
    current: Vec<Value>,
}

/// Configures a [`RowReader`]: which columns, which byte range, which limits.
/// Made by [`RowReader::builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct RowReaderBuilder<S> {
    reader: RcFileReaderBuilder<S>,
    schema: Schema,
    serde: Serde,
    columns: Option<Vec<String>>,
}

impl<S: ByteSource> RowReaderBuilder<S> {
    /// Returns only the columns named in `names`, in that order (all columns in schema order
    /// when not called). An unknown name is an error from [`RowReaderBuilder::build`].
    pub fn with_columns<N: AsRef<str>>(mut self, names: &[N]) -> Self {
        self.columns = Some(names.iter().map(|n| n.as_ref().to_owned()).collect());
        self
    }
    /// Reads only the row groups of this byte range (see
    /// [`RcFileReaderBuilder::with_split`]).
    pub fn with_split(mut self, range: Range<u64>) -> Self {
        self.reader = self.reader.with_split(range);
        self
    }
    /// Caps what the file may ask for (see [`Limits`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.reader = self.reader.with_limits(limits);
        self
    }
    /// Reads the header and returns the reader.
    pub fn build(self) -> Result<RowReader<S>> {
        let selected = match &self.columns {
            Some(names) => self.schema.indices_of(names)?,
            None => (0..self.schema.len()).collect(),
        };
        let reader = self.reader.with_projection(selected.clone()).build()?;
        Ok(RowReader::from_reader(
            reader,
            self.schema,
            self.serde,
            selected,
        ))
    }
}

impl<S: ByteSource> RowReader<S> {
    /// Starts configuring a reader of `source` whose columns have the types of `schema` and
    /// the cell encoding `serde`.
    pub fn builder(source: S, schema: Schema, serde: Serde) -> RowReaderBuilder<S> {
        RowReaderBuilder {
            reader: RcFileReader::builder(source),
            schema,
            serde,
            columns: None,
        }
    }
    /// Reads `source` with `schema` and `serde`, returning the columns named in `columns`
    /// (all, in schema order, when `None`).
    #[deprecated(
        since = "0.2.0",
        note = "use RowReader::builder(source, schema, serde).with_columns(..).build()"
    )]
    pub fn new<N: AsRef<str>>(
        source: S,
        schema: Schema,
        serde: Serde,
        columns: Option<&[N]>,
    ) -> Result<Self> {
        let selected = match columns {
            Some(names) => schema.indices_of(names)?,
            None => (0..schema.len()).collect(),
        };
        let reader = RcFileReader::builder(source)
            .with_projection(selected.clone())
            .build()?;
        Ok(Self::from_reader(reader, schema, serde, selected))
    }
    /// Wraps a configured [`RcFileReader`] (its projection must include `selected`).
    pub fn from_reader(
        reader: RcFileReader<S>,
        schema: Schema,
        serde: Serde,
        selected: Vec<usize>,
    ) -> Self {
        RowReader {
            reader,
            schema,
            serde,
            columns: vec![Vec::new(); selected.len()],
            selected,
            row: 0,
            rows_in_group: 0,
            current: Vec::new(),
        }
    }
    /// The underlying reader.
    pub fn reader(&self) -> &RcFileReader<S> {
        &self.reader
    }
    /// The serde.
    pub fn serde(&self) -> &Serde {
        &self.serde
    }
    /// The schema.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }
    /// Schema indices of the columns returned, in output order.
    pub fn selected(&self) -> &[usize] {
        &self.selected
    }
    /// Decodes the next row group into columns of values: `Ok(false)` at the end.
    pub fn next_group_columns(&mut self) -> Result<bool> {
        let Some(g) = self.reader.next_row_group()? else {
            return Ok(false);
        };
        for (out, &i) in self.columns.iter_mut().zip(&self.selected) {
            out.clear();
            let ty = &(self.schema.columns().get(i))
                .ok_or_else(|| Error::invalid(format!("column {i} is not in the schema")))?
                .ty;
            g.decode_column(i, ty, &self.serde, out)?;
        }
        self.rows_in_group = g.num_rows();
        self.row = 0;
        Ok(true)
    }
    /// Rows in the group decoded by the last [`RowReader::next_group_columns`].
    pub fn rows_in_group(&self) -> usize {
        self.rows_in_group
    }
    /// The columns decoded by the last [`RowReader::next_group_columns`].
    pub fn group_columns(&self) -> &[Vec<Value>] {
        &self.columns
    }
    /// The next row (selected columns in order), or `None` at the end.
    pub fn next_row(&mut self) -> Result<Option<&[Value]>> {
        while self.row >= self.rows_in_group {
            if !self.next_group_columns()? {
                return Ok(None);
            }
        }
        self.current.clear();
        for c in &mut self.columns {
            let v = c
                .get_mut(self.row)
                .map(|v| std::mem::replace(v, Value::Null))
                .unwrap_or(Value::Null);
            self.current.push(v);
        }
        self.row += 1;
        Ok(Some(&self.current))
    }
}

/// Writes rows of typed values, encoding each with the configured serde.
///
/// ```
/// # fn main() -> colfile::Result<()> {
/// use colfile::rcfile::{HadoopCodec, RowWriter, Serde, Value};
/// let schema: colfile::rcfile::Schema = "id:int,tags:array<string>".parse()?;
/// let mut rw = RowWriter::builder(Vec::new(), schema, Serde::binary())
///     .with_codec(Some(HadoopCodec::Default))
///     .build()?;
/// rw.write(&[Value::Int(1), Value::Array(vec![Value::string("a")])])?;
/// let summary = rw.finish()?;
/// assert_eq!(summary.rows, 1);
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct RowWriter<W: Write> {
    writer: RcFileWriter<W>,
    schema: Schema,
    serde: Serde,
    cells: Vec<Vec<u8>>,
}

/// Configures a [`RowWriter`]: the options of the [`RcFileWriterBuilder`] under it. Made by
/// [`RowWriter::builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct RowWriterBuilder<W> {
    writer: RcFileWriterBuilder<W>,
    schema: Schema,
    serde: Serde,
}

impl<W: Write> RowWriterBuilder<W> {
    /// Compresses the column data with `codec` (`None`, the default: uncompressed).
    pub fn with_codec(mut self, codec: Option<HadoopCodec>) -> Self {
        self.writer = self.writer.with_codec(codec);
        self
    }
    /// Any other writer option ([`RcFileWriterBuilder`]: level, row-group size, metadata,
    /// header version, sync marker, validation), applied to the builder under this one.
    ///
    /// ```
    /// use colfile::rcfile::{RowWriter, Serde};
    /// let schema: colfile::rcfile::Schema = "id:int".parse()?;
    /// let rw = RowWriter::builder(Vec::new(), schema, Serde::text())
    ///     .with_writer(|w| w.with_row_group_rows(1000).with_metadata("owner", "etl"))
    ///     .build()?;
    /// assert_eq!(rw.finish()?.rows, 0);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn with_writer(
        mut self,
        configure: impl FnOnce(RcFileWriterBuilder<W>) -> RcFileWriterBuilder<W>,
    ) -> Self {
        self.writer = configure(self.writer);
        self
    }
    /// Writes the header and returns the writer.
    pub fn build(self) -> Result<RowWriter<W>> {
        Ok(RowWriter::new(
            self.writer.build()?,
            self.schema,
            self.serde,
        ))
    }
}

impl<W: Write> RowWriter<W> {
    /// Starts configuring a writer of rows of `schema` to `sink`, cells encoded with `serde`.
    pub fn builder(sink: W, schema: Schema, serde: Serde) -> RowWriterBuilder<W> {
        RowWriterBuilder {
            writer: RcFileWriter::builder(sink, schema.len()),
            schema,
            serde,
        }
    }
    /// Wraps `writer` (whose column count should equal the schema's).
    pub fn new(writer: RcFileWriter<W>, schema: Schema, serde: Serde) -> Self {
        let cells = vec![Vec::new(); schema.len()];
        RowWriter {
            writer,
            schema,
            serde,
            cells,
        }
    }
    /// Encodes and appends one row (values in schema order; missing trailing values NULL).
    pub fn write(&mut self, row: &[Value]) -> Result<()> {
        self.serde.encode_row(&self.schema, row, &mut self.cells)?;
        self.writer.write_row(&self.cells)
    }
    /// The schema rows are written with.
    pub fn schema(&self) -> &Schema {
        &self.schema
    }
    /// The serde rows are encoded with.
    pub fn serde(&self) -> &Serde {
        &self.serde
    }
    /// The underlying writer.
    pub fn writer(&mut self) -> &mut RcFileWriter<W> {
        &mut self.writer
    }
    /// Finishes the file.
    pub fn finish(self) -> Result<WriteSummary> {
        self.writer.finish()
    }
    /// Finishes the file and returns the sink.
    pub fn finish_into_inner(self) -> Result<(W, WriteSummary)> {
        self.writer.finish_into_inner()
    }
}

impl<W: crate::sink::SyncWrite> RowWriter<W> {
    /// Finishes the file and fsyncs it ([`RcFileWriter::finish_sync`]).
    pub fn finish_sync(self) -> Result<WriteSummary> {
        self.writer.finish_sync()
    }
}
