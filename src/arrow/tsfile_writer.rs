//! [`TsFileArrowWriter`]: Arrow `RecordBatch`es into one table of a TsFile (or into
//! tree-model devices), through the column-wise [`TsFileWriter::write_batch`] path: each
//! batch is split by device (its TAG values, or its `device` column) and every device's rows
//! go to the writer as one [`DeviceBatch`](crate::tsfile::DeviceBatch).

use std::collections::{HashMap, HashSet};
use std::io::Write;

use arrow_array::cast::AsArray;
use arrow_array::{Array, RecordBatch, StringArray};
use arrow_schema::Schema;

use super::tsfile_types::{arrow_field_to_tsfile, arrow_schema_to_tsfile_with, DEVICE_COLUMN};
use crate::sink::SyncWrite;
use crate::tsfile::format::schema::{MeasurementSchema, TableSchema};
use crate::tsfile::format::{ColumnCategory, Compression, DeviceId};
use crate::tsfile::{TsFileWriter, WriteSummary, WriterOptions};
use crate::{Error, Result};

mod columns;
mod target;

use columns::{check_times, time_values};
use target::Target;

/// Writes Arrow `RecordBatch`es as the rows of one TsFile table
/// ([`try_new`](Self::try_new), [`try_new_from_arrow`](Self::try_new_from_arrow)) or of
/// tree-model devices ([`try_new_tree`](Self::try_new_tree)).
///
/// Batch columns are matched by name, without regard to case: `time` (a timestamp of any
/// unit, or `Int64`; stored as is, no nulls) and the table's TAG and FIELD columns, of the
/// types in the [mapping](super#tsfile-types) (a TIMESTAMP column takes a timestamp of any
/// unit). Times and timestamps are stored as their 64-bit values, never rescaled: the unit is
/// the reader's to know. A table column missing from a batch is null in its rows; a batch column that is
/// not in the table is an error. Rows may mix devices in any order; each device's times must
/// increase, from batch to batch too. A batch that fails is not written at all.
///
/// ```
/// use std::sync::Arc;
/// use colfile::arrow::{TsFileArrowReader, TsFileArrowWriter};
/// use colfile::tsfile::{TsFileReader, WriterOptions};
///
/// // Copy basic.tsfile's table through Arrow.
/// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
/// let source = Arc::new(TsFileReader::open(std::fs::read(path)?)?);
/// let schema = source.metadata().table_schema("weather").unwrap().clone();
/// let mut writer = TsFileArrowWriter::try_new(Vec::new(), schema, WriterOptions::default())?;
/// let mut rows = 0;
/// for batch in TsFileArrowReader::builder(source).build()? {
///     let batch = batch?;
///     rows += batch.num_rows();
///     writer.write(&batch)?;
/// }
/// let (bytes, summary) = writer.finish_into_inner()?;
/// assert_eq!(summary.rows as usize, rows);
///
/// let copy = Arc::new(TsFileReader::open(bytes)?);
/// let back: usize = TsFileArrowReader::builder(copy)
///     .build()?
///     .map(|b| b.map(|b| b.num_rows()))
///     .sum::<Result<usize, _>>()?;
/// assert_eq!(back, rows);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TsFileArrowWriter<W: Write> {
    writer: TsFileWriter<W>,
    target: Target,
    /// Each device's last time written.
    last: HashMap<DeviceId, i64>,
}

/// Configures a [`TsFileArrowWriter`] of one table. Made by [`TsFileArrowWriter::builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until .build() is called"]
pub struct TsFileArrowWriterBuilder<W> {
    out: W,
    table: TableSchema,
    options: WriterOptions,
}

impl<W: Write> TsFileArrowWriterBuilder<W> {
    /// The writer's options (page and group sizes, encodings profile, …; the defaults
    /// otherwise).
    pub fn with_options(mut self, options: WriterOptions) -> Self {
        self.options = options;
        self
    }
    /// Writes the file head and registers the table (see
    /// [`TsFileArrowWriter::try_new`] for the errors).
    pub fn build(self) -> Result<TsFileArrowWriter<W>> {
        TsFileArrowWriter::try_new(self.out, self.table, self.options)
    }
}

impl<W: Write> TsFileArrowWriter<W> {
    /// Starts configuring a writer to `out` of the rows of `table` (see
    /// [`arrow_schema_to_tsfile`](super::arrow_schema_to_tsfile) to derive it from an Arrow
    /// schema).
    ///
    /// ```
    /// use colfile::arrow::TsFileArrowWriter;
    /// use colfile::tsfile::WriterOptions;
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
    /// let source = colfile::tsfile::TsFileReader::open(std::fs::read(path)?)?;
    /// let table = source.metadata().table_schema("weather").unwrap().clone();
    /// let w = TsFileArrowWriter::builder(Vec::new(), table)
    ///     .with_options(WriterOptions::default())
    ///     .build()?;
    /// assert_eq!(w.finish()?.rows, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn builder(out: W, table: TableSchema) -> TsFileArrowWriterBuilder<W> {
        TsFileArrowWriterBuilder {
            out,
            table,
            options: WriterOptions::default(),
        }
    }

    /// Starts a file on `out` holding `table` (registered at once; names are lower-cased).
    ///
    /// Errors: invalid `options`; a TAG column that is not STRING/TEXT; an encoding that
    /// cannot encode its column's type; an I/O error writing the file head.
    pub fn try_new(out: W, table: TableSchema, options: WriterOptions) -> Result<Self> {
        let table = table.lower_cased();
        let mut writer = TsFileWriter::new(out, options)?;
        writer.register_table(table.clone())?;
        Ok(TsFileArrowWriter {
            writer,
            target: Target::Table(table),
            last: HashMap::new(),
        })
    }

    /// [`try_new`](Self::try_new) with the table `table_name` described by an Arrow schema
    /// (see [`arrow_schema_to_tsfile`](super::arrow_schema_to_tsfile); encodings are
    /// `options.profile`'s defaults).
    ///
    /// Errors: those of [`try_new`](Self::try_new), and an Arrow field with no TsFile type.
    pub fn try_new_from_arrow(
        out: W,
        table_name: &str,
        schema: &Schema,
        options: WriterOptions,
    ) -> Result<Self> {
        let table = arrow_schema_to_tsfile_with(table_name, schema, options.profile)?;
        Self::try_new(out, table, options)
    }

    /// Starts a tree-model file: batches have a `device` column (Utf8, the device path such
    /// as `root.sg1.d1`, no nulls), `time`, and measurement columns, whose names (kept as
    /// they are; matched exactly) and types come from `schema` as in
    /// [`arrow_schema_to_tsfile`](super::arrow_schema_to_tsfile). Every device is registered
    /// with all the measurements, `aligned` or not, when it first appears.
    ///
    /// Errors: invalid `options`; a field without a TsFile type, or with category TAG; an
    /// I/O error writing the file head.
    pub fn try_new_tree(
        out: W,
        schema: &Schema,
        aligned: bool,
        options: WriterOptions,
    ) -> Result<Self> {
        let mut measurements = Vec::new();
        for f in schema.fields() {
            if f.name().eq_ignore_ascii_case(DEVICE_COLUMN) {
                continue;
            }
            match arrow_field_to_tsfile(f)? {
                None => {}
                Some((dt, ColumnCategory::Field)) => {
                    let enc = options.profile.default_encoding(dt);
                    measurements.push(MeasurementSchema::new(f.name(), dt, enc, Compression::Lz4));
                }
                Some(_) => {
                    return Err(Error::schema(format!(
                        "field {}: tree-model columns are measurements, not TAG columns",
                        f.name()
                    )))
                }
            }
        }
        Ok(TsFileArrowWriter {
            writer: TsFileWriter::new(out, options)?,
            target: Target::Tree {
                aligned,
                measurements,
                registered: HashSet::new(),
            },
            last: HashMap::new(),
        })
    }

    /// The table written (names lower-cased); `None` for a tree-model writer.
    pub fn table(&self) -> Option<&TableSchema> {
        match &self.target {
            Target::Table(t) => Some(t),
            Target::Tree { .. } => None,
        }
    }

    /// Writes the rows of `batch`.
    ///
    /// Errors (nothing of the batch is written): [`ErrorKind::Schema`](crate::ErrorKind::Schema)
    /// for a column that is not in the table (or not a measurement), a column given twice,
    /// no `time` (or tree model: `device`) column, or a column of the wrong type;
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a null time or
    /// device, a device path that does not parse, a DATE outside years 0–9999, or times that
    /// do not increase per device. An I/O or encoding error of a chunk-group flush the batch
    /// triggers may leave part of it written; the writer then refuses further calls.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let m = self.target.match_columns(batch)?;
        let times = time_values(m.time)?;
        let keys: Vec<_> = m
            .keys
            .iter()
            .map(|a| a.and_then(|a| a.as_string_opt::<i32>()))
            .collect();
        // Rows of one device usually follow one another: a row whose key equals the key
        // held (the row before's) joins that row's group without a lookup, and a lookup
        // reuses the one key buffer (a key is copied only for a new device).
        fn key_at<'a>(a: &Option<&'a StringArray>, row: usize) -> Option<&'a str> {
            a.and_then(|a| a.is_valid(row).then(|| a.value(row)))
        }
        let mut groups: Vec<(Vec<Option<&str>>, Vec<usize>)> = Vec::new();
        let mut index: HashMap<Vec<Option<&str>>, usize> = HashMap::new();
        let mut key: Vec<Option<&str>> = Vec::with_capacity(keys.len());
        let mut current = 0;
        for row in 0..batch.num_rows() {
            let same = row > 0 && keys.iter().zip(&key).all(|(a, k)| key_at(a, row) == *k);
            if !same {
                key.clear();
                key.extend(keys.iter().map(|a| key_at(a, row)));
                current = match index.get(&key) {
                    Some(&g) => g,
                    None => {
                        groups.push((key.clone(), Vec::new()));
                        index.insert(key.clone(), groups.len() - 1);
                        groups.len() - 1
                    }
                };
            }
            if let Some((_, rows)) = groups.get_mut(current) {
                rows.push(row);
            }
        }
        let mut batches = Vec::with_capacity(groups.len());
        for (key, rows) in &groups {
            let b = self.target.device_batch(key, rows, times, &m.values)?;
            check_times(&b.device, &b.times, self.last.get(&b.device).copied())?;
            batches.push(b);
        }
        if let Target::Tree {
            aligned,
            measurements,
            registered,
        } = &mut self.target
        {
            for (key, _) in &groups {
                let path = key.first().copied().flatten().unwrap_or_default();
                if !registered.contains(path) {
                    self.writer
                        .register_device(path, *aligned, measurements.clone())?;
                    registered.insert(path.to_owned());
                }
            }
        }
        for b in batches {
            let (device, last) = (b.device.clone(), b.times.last().copied());
            self.writer.write_batch_owned(b)?;
            if let Some(t) = last {
                self.last.insert(device, t);
            }
        }
        Ok(())
    }

    /// Writes every buffered chunk group and flushes the output (see
    /// [`TsFileWriter::flush`]).
    pub fn flush(&mut self) -> Result<()> {
        self.writer.flush()
    }

    /// Writes the index and footer: the file is complete once this returns.
    pub fn finish(self) -> Result<WriteSummary> {
        self.writer.finish()
    }

    /// [`finish`](Self::finish), also returning the output.
    pub fn finish_into_inner(self) -> Result<(W, WriteSummary)> {
        self.writer.finish_into_inner()
    }
}

impl<W: SyncWrite> TsFileArrowWriter<W> {
    /// [`finish`](Self::finish), then fsyncs the output (see [`TsFileWriter::finish_sync`]).
    pub fn finish_sync(self) -> Result<WriteSummary> {
        self.writer.finish_sync()
    }
}
