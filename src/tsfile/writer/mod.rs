//! [`TsFileWriter`]: writes table-model and tree-model TsFile v4 files to any `io::Write`,
//! no `Seek` needed (`spec/tsfile.md` §5.7, §10–§12).
//!
//! Rows are buffered per device in open pages; pages are sealed at
//! [`WriterOptions::page_max_points`] or [`WriterOptions::page_max_bytes`]; when everything
//! buffered exceeds [`WriterOptions::memory_threshold`] every device's chunk group is written
//! out (devices in id order, as Java does), so memory stays bounded whatever the file size.
//! Only chunk metadata (offset and statistics per chunk) is kept until
//! [`finish`](TsFileWriter::finish) writes the index, schemas, Bloom filter and footer.
//!
//! # What survives a crash
//!
//! A TsFile is readable only once [`finish`](TsFileWriter::finish) has written its metadata
//! section and footer; before that the output is the head (`TsFile` + version) followed by
//! the chunk groups written so far, each written whole when it is flushed (by
//! [`flush`](TsFileWriter::flush) or when the buffered data reach
//! [`WriterOptions::memory_threshold`]). So:
//!
//! * rows still buffered in open pages exist only in memory; a crash or a dropped writer
//!   loses them;
//! * dropping an unfinished writer writes nothing more and never panics (there is no `Drop`
//!   impl); the output is not a valid TsFile, and [`recover`](crate::tsfile::recover())
//!   rebuilds one from it. Recover keeps every chunk group that is followed by another
//!   record: all but the last one written (the last device's group of the last flush),
//!   which is followed by nothing and dropped too, because a file that ends exactly after
//!   a chunk cannot be told from one that lost the group's remaining chunks (see
//!   [`recover`](crate::tsfile::recover())). A crash in the middle of a flush leaves a cut
//!   chunk group, which recover drops with everything after it;
//! * `Ok` from `flush` or `finish` means the bytes reached the output (for a file: the
//!   operating system), not the disk. With an output that implements
//!   [`SyncWrite`] (a [`File`](std::fs::File), a `BufWriter` around
//!   one), [`flush_sync`](TsFileWriter::flush_sync) and
//!   [`finish_sync`](TsFileWriter::finish_sync) also fsync, after which the bytes survive a
//!   power loss;
//! * every error is returned by the call that met it, never swallowed. After an error while
//!   flushing chunk groups (I/O, encoding) the writer refuses every further call, `finish`
//!   included: its chunk offsets no longer match the output, so no later call reports
//!   success for a file whose index would point at the wrong bytes.
//!
//! ```
//! use colfile::tsfile::format::{ColumnCategory, DataType};
//! use colfile::tsfile::format::schema::{TableColumn, TableSchema};
//! use colfile::tsfile::{TsFileWriter, Value, WriterOptions};
//!
//! let path = std::env::temp_dir().join(format!("colfile-ts-sync-{}.tsfile", std::process::id()));
//! let out = std::io::BufWriter::new(std::fs::File::create(&path)?);
//! let mut w = TsFileWriter::new(out, WriterOptions::default())?;
//! w.register_table(TableSchema::new("t", vec![
//!     TableColumn::new("v", DataType::Int64, ColumnCategory::Field),
//! ]))?;
//! w.write_row("t", 1, &[Value::Int64(7)])?;
//! let summary = w.finish_sync()?; // flushed and fsynced: survives a power loss
//! assert_eq!(std::fs::metadata(&path)?.len(), summary.bytes);
//! # std::fs::remove_file(&path)?;
//! # Ok::<(), colfile::Error>(())
//! ```

mod batch;
mod builder;
mod chunk;
mod flush;
mod group;
#[cfg(feature = "unstable")]
#[cfg_attr(docsrs, doc(cfg(feature = "unstable")))]
pub mod index;
#[cfg(not(feature = "unstable"))]
pub(crate) mod index;
mod java;
mod options;

pub use builder::TsFileWriterBuilder;
pub use options::{cpp_reads, default_encoding, Profile, WriteSummary, WriterOptions};

use std::collections::{BTreeMap, HashMap};
use std::io::Write;

use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::format::value::{check_type, ValueRef};
use chunk::{ColumnCodec, PageWork};
use group::{Group, PageLimits};

use crate::sink::SyncWrite;
use crate::tsfile::encoding::EncodeOptions;
use crate::tsfile::format::device::java_str_cmp;
use crate::tsfile::format::headers::{TIME_COLUMN_MASK, VALUE_COLUMN_MASK};
use crate::tsfile::format::index::{ChunkMetadata, TimeseriesMetadata};
use crate::tsfile::format::schema::{MeasurementSchema, TableColumn, TableSchema};
use crate::tsfile::format::{ColumnCategory, DataType, DeviceId};
use crate::{Error, Result};

const MAGIC: &[u8; 6] = b"TsFile";

/// Where a registered table's columns go.
#[derive(Debug)]
struct TableInfo {
    schema: TableSchema,
    /// Schema positions of the TAG columns, in order.
    tags: Vec<usize>,
    /// Schema positions of the FIELD columns, in order.
    fields: Vec<usize>,
    codecs: Vec<(String, ColumnCodec)>,
    /// How many tables were registered before this one.
    registered: usize,
}

/// A registered tree-model device.
#[derive(Debug)]
struct TreeDevice {
    id: DeviceId,
    aligned: bool,
    measurements: Vec<MeasurementSchema>,
}

/// The footer's view of one series: its chunks so far.
#[derive(Debug)]
struct SeriesMeta {
    name: String,
    data_type: DataType,
    mask: u8,
    chunks: Vec<ChunkMetadata>,
}

/// Everything kept per device.
#[derive(Debug)]
struct DeviceState {
    group: Group,
    last_time: Option<i64>,
    /// Time column (aligned only) then one entry per column of the group.
    time_meta: Option<SeriesMeta>,
    series: Vec<SeriesMeta>,
}

/// Writes a TsFile.
///
/// ```
/// use colfile::tsfile::format::{ColumnCategory, DataType};
/// use colfile::tsfile::format::schema::{TableColumn, TableSchema};
/// use colfile::tsfile::{TsFileWriter, Value, WriterOptions};
///
/// let schema = TableSchema::new("weather", vec![
///     TableColumn::new("city", DataType::String, ColumnCategory::Tag),
///     TableColumn::new("temp", DataType::Double, ColumnCategory::Field),
/// ]);
/// let mut w = TsFileWriter::new(Vec::new(), WriterOptions::default())?;
/// w.register_table(schema)?;
/// w.write_row("weather", 1000, &[Value::string("paris"), Value::Double(12.5)])?;
/// w.write_row("weather", 2000, &[Value::string("paris"), Value::Null])?;
/// let (bytes, summary) = w.finish_into_inner()?;
/// assert_eq!(&bytes[..7], b"TsFile\x04");
/// assert_eq!(summary.rows, 2);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct TsFileWriter<W: Write> {
    out: W,
    pos: u64,
    options: WriterOptions,
    tables: BTreeMap<String, TableInfo>,
    tree: HashMap<String, TreeDevice>,
    devices: BTreeMap<DeviceId, DeviceState>,
    work: PageWork,
    rows: u64,
    rows_since_check: u64,
    /// Rows between two looks at the buffered size (adapted after each look, as Java does).
    check_every: u64,
    /// Bytes buffered at the last look: the rows since then grew it by the difference.
    held_at_check: usize,
    chunk_groups: u64,
    /// Set when a flush failed: the output no longer matches the chunk metadata.
    poisoned: bool,
    /// The device of the last table row (see [`write_row_refs`](Self::write_row_refs)).
    last_table_device: Option<DeviceId>,
}

impl<W: Write> TsFileWriter<W> {
    /// A [`TsFileWriterBuilder`] writing to `out`: options, tables and devices, then
    /// [`build`](TsFileWriterBuilder::build).
    pub fn builder(out: W) -> TsFileWriterBuilder<W> {
        TsFileWriterBuilder::new(out)
    }

    /// The options the writer was made with.
    pub fn options(&self) -> &WriterOptions {
        &self.options
    }

    /// Starts a file: writes the magic and version.
    pub fn new(mut out: W, options: WriterOptions) -> Result<Self> {
        options.validate()?;
        out.write_all(MAGIC)?;
        out.write_all(&[4])?;
        let mut codecs = PageCodecs::new();
        codecs.set_level(
            crate::tsfile::format::Compression::Zstd,
            Some(options.zstd_level),
        )?;
        Ok(TsFileWriter {
            out,
            pos: 7,
            options,
            tables: BTreeMap::new(),
            tree: HashMap::new(),
            devices: BTreeMap::new(),
            work: PageWork::new(codecs),
            rows: 0,
            rows_since_check: 0,
            check_every: 128,
            held_at_check: 0,
            chunk_groups: 0,
            poisoned: false,
            last_table_device: None,
        })
    }

    fn check(&self) -> Result<()> {
        if self.poisoned {
            return Err(Error::invalid(
                "an earlier flush failed; the writer cannot continue",
            ));
        }
        Ok(())
    }

    /// The codec of an aligned time chunk, or (`aligned` false) of the time streams of
    /// non-aligned pages. Those are always TS_2DIFF: no file records their encoding and every
    /// reader assumes TS_2DIFF (`spec/tsfile.md` §5.3), so another one would be unreadable.
    fn time_codec(&self, aligned: bool) -> ColumnCodec {
        ColumnCodec {
            data_type: DataType::Int64,
            encoding: if aligned {
                self.options.time_encoding
            } else {
                crate::tsfile::format::Encoding::Ts2Diff
            },
            compression: self.options.time_compression,
            options: EncodeOptions::default(),
        }
    }

    fn column_codec(&self, m: &MeasurementSchema) -> Result<ColumnCodec> {
        if !crate::tsfile::encoding::supports(m.encoding, m.data_type) {
            return Err(Error::unsupported(format!(
                "column {}: {} encoding of {} is not supported by this build",
                m.name, m.encoding, m.data_type
            )));
        }
        crate::tsfile::encoding::compression::page_codec(m.compression)
            .map_err(|e| Error::unsupported(format!("column {}: {e}", m.name)))?;
        let mut options = EncodeOptions::default().with_rle_runs(self.options.profile.rle_runs());
        if let Some(v) = m.property("max_point_number") {
            options.max_point_number = v.parse().map_err(|_| {
                Error::invalid(format!("column {}: max_point_number {v:?}", m.name))
            })?;
        }
        Ok(ColumnCodec {
            data_type: m.data_type,
            encoding: m.encoding,
            compression: m.compression,
            options,
        })
    }

    /// Registers a table (names are lower-cased, as the reference writers do). Rows for it
    /// are written with [`write_row`](Self::write_row).
    ///
    /// Errors: a table of that name is already registered; a TAG column that is not
    /// STRING/TEXT; an encoding that cannot encode its column's type.
    pub fn register_table(&mut self, schema: TableSchema) -> Result<()> {
        let schema = schema.lower_cased();
        if self.tables.contains_key(&schema.name) {
            return Err(Error::invalid(format!(
                "table {} is already registered",
                schema.name
            )));
        }
        let (mut tags, mut fields, mut codecs) = (Vec::new(), Vec::new(), Vec::new());
        for (i, c) in schema.columns.iter().enumerate() {
            match c.category {
                ColumnCategory::Tag => {
                    if !matches!(c.schema.data_type, DataType::String | DataType::Text) {
                        return Err(Error::schema(format!(
                            "tag column {} must be STRING or TEXT, not {}",
                            c.schema.name, c.schema.data_type
                        )));
                    }
                    tags.push(i);
                }
                ColumnCategory::Field => {
                    fields.push(i);
                    codecs.push((c.schema.name.clone(), self.column_codec(&c.schema)?));
                }
                _ => {}
            }
        }
        let name = schema.name.clone();
        let registered = self.tables.len();
        self.tables.insert(
            name,
            TableInfo {
                schema,
                tags,
                fields,
                codecs,
                registered,
            },
        );
        Ok(())
    }

    /// Registers a tree-model device (a dotted path such as `root.sg1.d1`) and its
    /// measurements, aligned or not. Registering again adds measurements (non-aligned
    /// devices only once data has been written).
    pub fn register_device(
        &mut self,
        path: &str,
        aligned: bool,
        measurements: Vec<MeasurementSchema>,
    ) -> Result<()> {
        let id = DeviceId::from_tree_path(path)?;
        for m in &measurements {
            self.column_codec(m)?;
        }
        let time = self.time_codec(false);
        let codecs: Vec<ColumnCodec> = measurements
            .iter()
            .map(|m| self.column_codec(m))
            .collect::<Result<_>>()?;
        let entry = self
            .tree
            .entry(path.to_owned())
            .or_insert_with(|| TreeDevice {
                id: id.clone(),
                aligned,
                measurements: Vec::new(),
            });
        if entry.aligned != aligned {
            return Err(Error::invalid(format!(
                "device {path} is already registered as {}aligned",
                if entry.aligned { "" } else { "non-" }
            )));
        }
        for (m, codec) in measurements.into_iter().zip(codecs) {
            if entry.measurements.iter().any(|x| x.name == m.name) {
                return Err(Error::invalid(format!(
                    "{path}.{} is already registered",
                    m.name
                )));
            }
            if let Some(state) = self.devices.get_mut(&id) {
                if aligned {
                    return Err(Error::invalid(format!(
                        "aligned device {path}: measurements must be registered before data"
                    )));
                }
                state.group.add_series(&m.name, time.clone(), codec)?;
                state.series.push(SeriesMeta {
                    name: m.name.clone(),
                    data_type: m.data_type,
                    mask: 0,
                    chunks: Vec::new(),
                });
            }
            entry.measurements.push(m);
        }
        Ok(())
    }

    /// Writes one table row: `values` holds one value per schema column (TAG, FIELD and
    /// ATTRIBUTE columns, in schema order; TIME-category columns are skipped — `time` is
    /// the row's time). Time must increase per device.
    ///
    /// Errors leave the writer usable and lose nothing already accepted: an unknown table,
    /// a wrong number or type of values, or a time not after the device's last one. The
    /// exception is an error of the chunk-group flush a row may trigger (I/O, encoding):
    /// the writer then refuses further calls (see the
    /// [module docs](self#what-survives-a-crash)).
    pub fn write_row(
        &mut self,
        table: &str,
        time: i64,
        values: &[crate::tsfile::format::Value],
    ) -> Result<()> {
        let refs: Vec<ValueRef<'_>> = values.iter().map(|v| v.as_ref()).collect();
        self.write_row_refs(table, time, &refs)
    }

    /// [`write_row`](Self::write_row) over borrowed values.
    pub fn write_row_refs(
        &mut self,
        table: &str,
        time: i64,
        values: &[ValueRef<'_>],
    ) -> Result<()> {
        // Table names are kept lowercased; most are given so, and need no copy.
        let key: std::borrow::Cow<'_, str> = if table
            .bytes()
            .any(|b| b.is_ascii_uppercase() || !b.is_ascii())
        {
            std::borrow::Cow::Owned(table.to_lowercase())
        } else {
            std::borrow::Cow::Borrowed(table)
        };
        let info = self
            .tables
            .get(key.as_ref())
            .ok_or_else(|| Error::invalid(format!("table {table} is not registered")))?;
        let is_data = |c: &&TableColumn| c.category != ColumnCategory::Time;
        let data_columns = info.schema.columns.iter().filter(is_data).count();
        if values.len() != data_columns {
            return Err(Error::schema(format!(
                "table {key}: {} values for {} columns",
                values.len(),
                data_columns
            )));
        }
        let mut by_column = vec![ValueRef::Null; info.schema.columns.len()];
        let slots = info.schema.columns.iter().zip(by_column.iter_mut());
        let data_slots = slots.filter(|(c, _)| is_data(c));
        for ((c, slot), v) in data_slots.zip(values) {
            check_type(c.schema.data_type, *v).map_err(|e| {
                Error::schema(format!("table {key}, column {}: {e}", c.schema.name))
            })?;
            *slot = *v;
        }
        // `info.tags` and `info.fields` index `info.schema.columns`, as registered.
        let column = |i: usize| by_column.get(i).copied().unwrap_or(ValueRef::Null);
        let tag = |i: &usize| match column(*i) {
            ValueRef::Binary(b) => Some(b),
            _ => None,
        };
        // Rows mostly come a device at a time: the last row's device is reused while the
        // tags stay the same, so that no id is built or compared in the map.
        let (device, known) = match self.last_table_device.take() {
            Some(d) if d.is_table_device(&key, info.tags.iter().map(tag)) => (d, true),
            _ => {
                let mut tags = Vec::with_capacity(info.tags.len());
                for b in info.tags.iter().map(tag) {
                    let text = b.map(|b| {
                        std::str::from_utf8(b).map_err(|_| {
                            Error::schema(format!("table {key}: tag value is not UTF-8"))
                        })
                    });
                    tags.push(text.transpose()?);
                }
                (DeviceId::from_table(&key, tags)?, false)
            }
        };
        let fields: Vec<ValueRef<'_>> = info.fields.iter().map(|&i| column(i)).collect();
        // The last row's device has its state already (devices are never dropped).
        if !known {
            self.check()?;
            self.ensure_device(&device, |w| {
                let codecs = match w.tables.get(key.as_ref()) {
                    Some(info) => &info.codecs,
                    None => return Err(Error::invalid(format!("table {key} vanished"))),
                };
                Ok(new_state(
                    Group::aligned(w.time_codec(true), codecs)?,
                    codecs,
                    true,
                    w.options.role_masks,
                ))
            })?;
        }
        let r = self.push(&device, time, &fields);
        self.last_table_device = Some(device);
        r
    }

    /// Writes one tree-model record: `values` pairs measurement names of a registered device
    /// with values (absent measurements are null).
    pub fn write_record(
        &mut self,
        path: &str,
        time: i64,
        values: &[(&str, ValueRef<'_>)],
    ) -> Result<()> {
        let dev = self
            .tree
            .get(path)
            .ok_or_else(|| Error::invalid(format!("device {path} is not registered")))?;
        let mut row = vec![ValueRef::Null; dev.measurements.len()];
        for (name, v) in values {
            let (m, slot) = dev
                .measurements
                .iter()
                .zip(row.iter_mut())
                .find(|(m, _)| m.name == *name)
                .ok_or_else(|| Error::invalid(format!("{path}.{name} is not registered")))?;
            check_type(m.data_type, *v)
                .map_err(|e| Error::schema(format!("{path}.{name}: {e}")))?;
            *slot = *v;
        }
        let (id, aligned) = (dev.id.clone(), dev.aligned);
        let codecs: Vec<(String, ColumnCodec)> = dev
            .measurements
            .iter()
            .map(|m| Ok((m.name.clone(), self.column_codec(m)?)))
            .collect::<Result<_>>()?;
        self.check()?;
        self.ensure_device(&id, |w| {
            let group = if aligned {
                Group::aligned(w.time_codec(true), &codecs)?
            } else {
                Group::non_aligned(w.time_codec(false), &codecs)?
            };
            Ok(new_state(group, &codecs, aligned, w.options.role_masks))
        })?;
        self.push(&id, time, &row)
    }

    /// Creates the device's state with `make` the first time it is seen.
    fn ensure_device(
        &mut self,
        device: &DeviceId,
        make: impl FnOnce(&Self) -> Result<DeviceState>,
    ) -> Result<()> {
        if !self.devices.contains_key(device) {
            let state = make(self)?;
            self.devices.insert(device.clone(), state);
        }
        Ok(())
    }

    fn page_limits(&self) -> PageLimits {
        PageLimits {
            max_points: self.options.page_max_points,
            max_bytes: self.options.page_max_bytes,
        }
    }

    fn check_memory(&mut self) -> Result<()> {
        if self.rows_since_check >= self.check_every {
            let held: usize = self.work.mem_size()
                + self
                    .devices
                    .values()
                    .map(|d| d.group.mem_size())
                    .sum::<usize>();
            // Look again after about as many rows as would fill the rest of the budget (at
            // least 128, at most 64 Ki rows between looks).
            // Bytes per row from what the rows since the last look added (the whole buffer
            // over these rows alone would overstate it more with every look).
            let rows = self.rows_since_check;
            let added = held.saturating_sub(self.held_at_check) as u64;
            let per_row = (added / rows.max(1)).max(1);
            let room = (self.options.memory_threshold as u64).saturating_sub(held as u64);
            self.check_every = (room / per_row / 2).clamp(128, 1 << 16);
            self.rows_since_check = 0;
            self.held_at_check = held;
            if held >= self.options.memory_threshold {
                self.flush_groups()?;
                self.held_at_check = 0;
            }
        }
        Ok(())
    }

    fn push(&mut self, device: &DeviceId, time: i64, row: &[ValueRef<'_>]) -> Result<()> {
        self.check()?;
        let limits = self.page_limits();
        let state = self
            .devices
            .get_mut(device)
            .ok_or_else(|| Error::invalid("device vanished"))?;
        if let Some(last) = state.last_time {
            if time <= last {
                return Err(Error::invalid(format!(
                    "device {device}: time {time} is not after the last time written, {last}"
                )));
            }
        }
        state.group.push_row(time, row, limits, &mut self.work)?;
        state.last_time = Some(time);
        self.rows += 1;
        self.rows_since_check += 1;
        self.check_memory()
    }

    /// Writes every buffered chunk group now (devices in id order) and flushes the output.
    /// After an error the writer refuses further calls: part of a chunk group may have
    /// reached the output.
    pub fn flush(&mut self) -> Result<()> {
        self.flush_groups()?;
        if let Err(e) = self.out.flush() {
            self.poisoned = true;
            return Err(e.into());
        }
        Ok(())
    }

    /// Writes every buffered chunk group; any error poisons the writer.
    pub(crate) fn flush_groups(&mut self) -> Result<()> {
        self.check()?;
        let r = self.write_groups();
        if r.is_err() {
            self.poisoned = true;
        }
        r
    }

    fn write_groups(&mut self) -> Result<()> {
        let TsFileWriter {
            out,
            pos,
            options,
            devices,
            work,
            chunk_groups,
            ..
        } = self;
        let (groups, mut metas): (Vec<_>, Vec<_>) = devices
            .iter_mut()
            .map(|(id, d)| ((id, &mut d.group), (&mut d.time_meta, &mut d.series)))
            .unzip();
        let emit = |i: usize, group: &mut flush::EncodedGroup| -> Result<()> {
            let (time_meta, series) = metas
                .get_mut(i)
                .ok_or_else(|| Error::invalid("chunk group of an unknown device"))?;
            for c in group.chunks.drain(..) {
                let meta = match c.column {
                    None => time_meta.as_mut(),
                    Some(i) => series.get_mut(i),
                };
                if let Some(m) = meta {
                    m.chunks.push(ChunkMetadata {
                        offset_of_chunk_header: (*pos + c.offset) as i64,
                        statistics: Some(c.statistics),
                    });
                }
            }
            out.write_all(&group.bytes)?;
            *pos += group.bytes.len() as u64;
            *chunk_groups += 1;
            Ok(())
        };
        flush::encode_groups(
            groups,
            options.threads.max(1),
            options.zstd_level,
            work,
            emit,
        )
    }

    /// Flushes, writes the metadata section and footer, and returns the summary. The
    /// writer's output is complete and valid once this returns.
    pub fn finish(self) -> Result<WriteSummary> {
        self.finish_into_inner().map(|(_, s)| s)
    }

    /// [`finish`](Self::finish), also returning the output.
    pub fn finish_into_inner(mut self) -> Result<(W, WriteSummary)> {
        self.flush_groups()?;
        let mut devices: Vec<(DeviceId, Vec<TimeseriesMetadata>)> = Vec::new();
        let mut chunk_count = 0usize;
        for (id, state) in std::mem::take(&mut self.devices) {
            let mut list = Vec::new();
            if let Some(t) = state.time_meta {
                if !t.chunks.is_empty() {
                    chunk_count += t.chunks.len();
                    list.push(series_metadata(t)?);
                }
            }
            let mut series: Vec<SeriesMeta> = state
                .series
                .into_iter()
                .filter(|s| !s.chunks.is_empty())
                .collect();
            series.sort_by(|a, b| java_str_cmp(&a.name, &b.name));
            for s in series {
                chunk_count += s.chunks.len();
                list.push(series_metadata(s)?);
            }
            if !list.is_empty() {
                devices.push((id, list));
            }
        }
        let schemas = footer_schemas(self.tables, self.options.profile);
        let footer = index::write_metadata(
            &mut self.out,
            self.pos,
            &devices,
            &schemas,
            &self.options.properties,
            self.options.max_index_degree,
            self.options.bloom_error_rate,
            chunk_count,
        )?;
        self.out.flush()?;
        let summary = WriteSummary {
            rows: self.rows,
            devices: devices.len() as u64,
            series: devices.iter().map(|(_, l)| l.len() as u64).sum(),
            chunk_groups: self.chunk_groups,
            chunks: chunk_count as u64,
            bytes: footer.file_len,
        };
        Ok((self.out, summary))
    }
}

impl<W: SyncWrite> TsFileWriter<W> {
    /// [`flush`](Self::flush), then fsyncs the output ([`SyncWrite::sync_all`]): the chunk
    /// groups written so far survive a power loss once this returns `Ok` (to be read back
    /// through [`recover`](crate::tsfile::recover()) if the file is never finished). A failed
    /// fsync makes the writer refuse further calls (the kernel may have dropped the
    /// unsynced pages).
    pub fn flush_sync(&mut self) -> Result<()> {
        self.flush()?;
        if let Err(e) = self.out.sync_all() {
            self.poisoned = true;
            return Err(e.into());
        }
        Ok(())
    }

    /// [`finish`](Self::finish), then fsyncs the output: the file survives a power loss
    /// once this returns `Ok`. Write, flush and fsync errors are all returned.
    pub fn finish_sync(self) -> Result<WriteSummary> {
        let (mut out, summary) = self.finish_into_inner()?;
        out.sync_all()?;
        Ok(summary)
    }
}

fn new_state(
    group: Group,
    codecs: &[(String, ColumnCodec)],
    aligned: bool,
    masks: bool,
) -> DeviceState {
    DeviceState {
        group,
        last_time: None,
        time_meta: aligned.then(|| SeriesMeta {
            name: String::new(),
            data_type: DataType::Vector,
            mask: if masks { TIME_COLUMN_MASK } else { 0 },
            chunks: Vec::new(),
        }),
        series: codecs
            .iter()
            .map(|(n, c)| SeriesMeta {
                name: n.clone(),
                data_type: c.data_type,
                mask: if aligned && masks {
                    VALUE_COLUMN_MASK
                } else {
                    0
                },
                chunks: Vec::new(),
            })
            .collect(),
    }
}

/// The table schemas in footer order: by name ([`Profile::Portable`]) or in Java's
/// `HashMap` order over the registration order and without TIME-category columns
/// ([`Profile::Java`]).
fn footer_schemas(tables: BTreeMap<String, TableInfo>, profile: Profile) -> Vec<TableSchema> {
    let mut tables: Vec<TableInfo> = tables.into_values().collect();
    if profile != Profile::Java {
        return tables.into_iter().map(|t| t.schema).collect();
    }
    tables.sort_by_key(|t| t.registered);
    let names: Vec<&str> = tables.iter().map(|t| t.schema.name.as_str()).collect();
    let order = java::hash_map_order(&names);
    let mut slots: Vec<Option<TableInfo>> = tables.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|i| slots.get_mut(i).and_then(Option::take))
        .map(|t| {
            let mut schema = t.schema;
            schema
                .columns
                .retain(|c| c.category != ColumnCategory::Time);
            schema
        })
        .collect()
}

/// A series' footer entry (see [`index::series_metadata`]).
fn series_metadata(s: SeriesMeta) -> Result<TimeseriesMetadata> {
    index::series_metadata(s.name, s.data_type, s.mask, s.chunks)
}
