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
use crate::parallel::map_in_order;
use crate::sink::SyncWrite;
use crate::tsfile::format::schema::{MeasurementSchema, TableSchema};
use crate::tsfile::format::{ColumnCategory, Compression};
use crate::tsfile::{DeviceBatch, TsFileWriter, WriteSummary, WriterOptions};
use crate::{Error, Result};

/// Rows of the devices copied before their chunk groups are written, when writing all held
/// rows at the end (see `write_held`): small enough for the copies to stay in cache and their
/// memory to be reused, large enough that threads start rarely (measured on the 1M-row IoT
/// table from Python: all at once took 20% longer and 88 MB more; 4 Ki rows per slice, 50%
/// longer; 16 Ki to 256 Ki, the same).
const SLICE_ROWS: usize = 1 << 16;

mod columns;
mod pending;
mod target;

use columns::{check_times, key_runs, time_values};
use pending::{encode_key, Held, Pending, Rows};
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
    /// Rows accepted and not yet written.
    pending: Pending,
    /// Bytes of held rows that trigger their writing.
    hold_limit: usize,
    /// Threads that copy held rows.
    threads: usize,
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
        Ok(Self::with_target(writer, Target::Table(table)))
    }

    fn with_target(writer: TsFileWriter<W>, target: Target) -> Self {
        let options = writer.options();
        TsFileArrowWriter {
            hold_limit: options.memory_threshold / 2,
            threads: options.threads.max(1),
            writer,
            target,
            pending: Pending::default(),
        }
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
        let target = Target::Tree {
            aligned,
            measurements,
            registered: HashSet::new(),
        };
        Ok(Self::with_target(TsFileWriter::new(out, options)?, target))
    }

    /// The table written (names lower-cased); `None` for a tree-model writer.
    pub fn table(&self) -> Option<&TableSchema> {
        match &self.target {
            Target::Table(t) => Some(t),
            Target::Tree { .. } => None,
        }
    }

    /// Accepts the rows of `batch`.
    ///
    /// The batch's columns are held (shared, not copied) until half the writer's
    /// [`memory_threshold`](WriterOptions::memory_threshold) of rows is held, or until
    /// [`flush`](Self::flush) or [`finish`](Self::finish): then every device's held rows are
    /// copied once, on [`threads`](WriterOptions::threads) threads, and handed to the TsFile
    /// writer.
    ///
    /// Errors (nothing of the batch is written): [`ErrorKind::Schema`](crate::ErrorKind::Schema)
    /// for a column that is not in the table (or not a measurement), a column given twice,
    /// no `time` (or tree model: `device`) column, or a column of the wrong type;
    /// [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a null time or
    /// device, a device path that does not parse, a DATE outside years 0–9999, or times that
    /// do not increase per device. An I/O or encoding error while writing held rows (which
    /// a batch may trigger) may leave part of them written; the writer then refuses further
    /// calls.
    pub fn write(&mut self, batch: &RecordBatch) -> Result<()> {
        let m = self.target.match_columns(batch)?;
        let times = time_values(m.time.map(|a| a.as_ref()))?;
        self.target.check_values(&m.values)?;
        let keys: Vec<_> = m
            .keys
            .iter()
            .map(|a| a.and_then(|a| a.as_string_opt::<i32>()))
            .collect();
        // Rows of one device usually follow one another: each run of rows with one key is
        // looked up once.
        fn key_at<'a>(a: &Option<&'a StringArray>, row: usize) -> Option<&'a str> {
            a.and_then(|a| a.is_valid(row).then(|| a.value(row)))
        }
        let mut groups: Vec<(usize, Rows)> = Vec::new();
        let mut slot_of: HashMap<usize, usize> = HashMap::new();
        let mut key: Vec<Option<&str>> = Vec::with_capacity(keys.len());
        let mut code = Vec::new();
        for run in key_runs(&keys, batch.num_rows()) {
            key.clear();
            key.extend(keys.iter().map(|a| key_at(a, run.start)));
            encode_key(key.iter().copied(), &mut code);
            let target = &self.target;
            let device = self.pending.device(&code, || {
                let id = target.device_id(&key)?;
                Ok((key.iter().map(|v| v.map(str::to_owned)).collect(), id))
            })?;
            match slot_of.get(&device).and_then(|&g| groups.get_mut(g)) {
                Some((_, rows)) => rows.push_run(run),
                None => {
                    groups.push((device, Rows::Run(run)));
                    slot_of.insert(device, groups.len() - 1);
                }
            }
        }
        let mut accepted = Vec::with_capacity(groups.len());
        for (d, rows) in groups {
            let dev = (self.pending.devices.get(d)).ok_or_else(|| Error::invalid("device"))?;
            let last = check_times(&dev.id, times, &rows, dev.last)?;
            accepted.push((d, rows, last));
        }
        if let Target::Tree {
            aligned,
            measurements,
            registered,
        } = &mut self.target
        {
            for (d, _, _) in &accepted {
                let Some(dev) = self.pending.devices.get(*d) else {
                    continue;
                };
                let path = dev.key.first().cloned().flatten().unwrap_or_default();
                if !registered.contains(&path) {
                    (self.writer).register_device(&path, *aligned, measurements.clone())?;
                    registered.insert(path);
                }
            }
        }
        let held = Held {
            time: m
                .time
                .cloned()
                .ok_or_else(|| Error::schema("no time column"))?,
            values: m.values.iter().map(|a| a.cloned()).collect(),
        };
        self.pending.hold(held, accepted);
        if self.pending.bytes >= self.hold_limit {
            self.write_held(false)?;
        }
        Ok(())
    }

    /// Copies every device's held rows into one batch per device, on the writer's threads,
    /// and writes them. With `complete` (no more rows are coming before the chunk groups are
    /// written) the devices go a slice at a time, each slice's chunk groups written before
    /// the one after next is copied, so that the copies and pages of a slice reuse the memory
    /// of those before; with more than one thread the next slice is copied while one is
    /// encoded.
    fn write_held(&mut self, complete: bool) -> Result<()> {
        if self.pending.held.is_empty() {
            return Ok(());
        }
        let devices: Vec<usize> = (self.pending.devices.iter().enumerate())
            .filter(|(_, d)| !d.parts.is_empty())
            .map(|(i, _)| i)
            .collect();
        let mut slices = vec![devices.as_slice()];
        if complete {
            slices.clear();
            let mut rest = devices.as_slice();
            while !rest.is_empty() {
                let mut rows = 0;
                let take = rest
                    .iter()
                    .position(|&d| {
                        rows += self.pending.devices.get(d).map_or(0, pending::Device::rows);
                        rows >= SLICE_ROWS
                    })
                    .map_or(rest.len(), |i| i + 1)
                    // At least a device per thread, so that every thread has work.
                    .max(self.threads)
                    .min(rest.len());
                let (slice, tail) = rest.split_at(take);
                slices.push(slice);
                rest = tail;
            }
        }
        let (target, pending, threads) = (&self.target, &self.pending, self.threads);
        let writer = &mut self.writer;
        // With more than one thread, the next slice's rows are copied on one more thread
        // while this slice's chunk groups are encoded on the writer's.
        std::thread::scope(|s| -> Result<()> {
            let mut next = slices
                .first()
                .map(|slice| device_batches(target, pending, slice, threads));
            for k in 0..slices.len() {
                let following = slices.get(k + 1).copied();
                let ahead = following
                    .filter(|_| threads > 1)
                    .map(|slice| s.spawn(move || device_batches(target, pending, slice, 1)));
                for b in next.take().unwrap_or_default() {
                    writer.write_batch_owned(b?)?;
                }
                if complete {
                    writer.flush_groups()?;
                }
                next = match ahead.map(|h| h.join()) {
                    Some(Ok(batches)) => Some(batches),
                    Some(Err(_)) => {
                        return Err(Error::invalid("a thread copying device rows panicked"))
                    }
                    None => following.map(|slice| device_batches(target, pending, slice, threads)),
                };
            }
            Ok(())
        })?;
        self.pending.clear();
        Ok(())
    }
}

/// The held rows of the devices `devices` (indexes into the pending devices), one batch per
/// device, copied on up to `threads` threads (each taking the next device as it is done).
fn device_batches(
    target: &Target,
    pending: &Pending,
    devices: &[usize],
    threads: usize,
) -> Vec<Result<DeviceBatch>> {
    let (held, all) = (&pending.held, &pending.devices);
    let build = |_: &mut (), d: usize| match all.get(d) {
        Some(dev) => target.device_batch(dev, held),
        None => Err(Error::invalid("pending device vanished")),
    };
    let mut states = vec![(); threads.max(1)];
    map_in_order(devices.to_vec(), &mut states, "device row copying", build)
        .unwrap_or_else(|e| vec![Err(e)])
}

impl<W: Write> TsFileArrowWriter<W> {
    /// Writes every buffered chunk group and flushes the output (see
    /// [`TsFileWriter::flush`]).
    pub fn flush(&mut self) -> Result<()> {
        self.write_held(true)?;
        self.writer.flush()
    }

    /// Writes the index and footer: the file is complete once this returns.
    pub fn finish(mut self) -> Result<WriteSummary> {
        self.write_held(true)?;
        self.writer.finish()
    }

    /// [`finish`](Self::finish), also returning the output.
    pub fn finish_into_inner(mut self) -> Result<(W, WriteSummary)> {
        self.write_held(true)?;
        self.writer.finish_into_inner()
    }
}

impl<W: SyncWrite> TsFileArrowWriter<W> {
    /// [`finish`](Self::finish), then fsyncs the output (see [`TsFileWriter::finish_sync`]).
    pub fn finish_sync(mut self) -> Result<WriteSummary> {
        self.write_held(true)?;
        self.writer.finish_sync()
    }
}
