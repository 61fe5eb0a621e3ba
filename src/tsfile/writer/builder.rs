//! [`TsFileWriterBuilder`]: the builder entry point of [`TsFileWriter`], in the style of
//! [`RcFileWriter::builder`](crate::rcfile::RcFileWriter::builder).

use std::io::Write;

use super::{TsFileWriter, WriterOptions};
use crate::tsfile::format::schema::{MeasurementSchema, TableSchema};
use crate::Result;

/// What a [`TsFileWriter`] is built from: its output, its [`WriterOptions`] and the tables
/// and tree devices to register before the first row. Made by [`TsFileWriter::builder`].
///
/// ```
/// use colfile::tsfile::{ColumnCategory, DataType, TableColumn, TableSchema, TsFileWriter, Value};
///
/// let schema = TableSchema::new("t", vec![
///     TableColumn::new("id", DataType::String, ColumnCategory::Tag),
///     TableColumn::new("v", DataType::Int64, ColumnCategory::Field),
/// ]);
/// let mut w = TsFileWriter::builder(Vec::new()).with_table(schema).with_threads(2).build()?;
/// w.write_row("t", 1, &[Value::string("a"), Value::Int64(7)])?;
/// let (bytes, summary) = w.finish_into_inner()?;
/// assert_eq!(summary.rows, 1);
/// assert_eq!(&bytes[..6], b"TsFile");
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
#[must_use = "a builder does nothing until build() is called"]
pub struct TsFileWriterBuilder<W: Write> {
    out: W,
    options: WriterOptions,
    tables: Vec<TableSchema>,
    devices: Vec<(String, bool, Vec<MeasurementSchema>)>,
}

impl<W: Write> TsFileWriterBuilder<W> {
    pub(super) fn new(out: W) -> Self {
        TsFileWriterBuilder {
            out,
            options: WriterOptions::default(),
            tables: Vec::new(),
            devices: Vec::new(),
        }
    }

    /// Every writer setting at once (replaces what earlier `with_*` calls set).
    pub fn with_options(mut self, options: WriterOptions) -> Self {
        self.options = options;
        self
    }

    /// Threads that encode and compress pages at each flush (default 1: none started).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.options = self.options.with_threads(threads);
        self
    }

    /// Registers a table-model table (repeatable), as [`TsFileWriter::register_table`].
    pub fn with_table(mut self, schema: TableSchema) -> Self {
        self.tables.push(schema);
        self
    }

    /// Registers a tree-model device (repeatable), as [`TsFileWriter::register_device`].
    pub fn with_device(
        mut self,
        path: impl Into<String>,
        aligned: bool,
        measurements: Vec<MeasurementSchema>,
    ) -> Self {
        self.devices.push((path.into(), aligned, measurements));
        self
    }

    /// Checks the options, writes the file's magic and version and registers the tables
    /// and devices; the first error (a bad option, a rejected schema, an I/O error) is
    /// returned.
    pub fn build(self) -> Result<TsFileWriter<W>> {
        let mut writer = TsFileWriter::new(self.out, self.options)?;
        for table in self.tables {
            writer.register_table(table)?;
        }
        for (path, aligned, measurements) in self.devices {
            writer.register_device(&path, aligned, measurements)?;
        }
        Ok(writer)
    }
}
