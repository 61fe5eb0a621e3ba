//! [`TsFileReader`]: footer-first reading from any [`ByteSource`], and [`Query`] scans that
//! return rows device by device as [`DeviceBatch`]es (`spec/tsfile.md` §9, §10, §12, §20).
//!
//! Devices are chosen from the index: named devices (or a filter fixing every tag) are
//! asked of the Bloom filter and found by searching the device index; otherwise the device
//! index is walked and devices failing the tag filter are dropped before their series index
//! is read. The scan of each device (`scan.rs` aligned, `merge.rs` tree) skips chunks and
//! pages by their statistics; this module applies offset, limit and batch size and keeps
//! the [`Explain`] report. It is the one place where batches are cut to the batch size (the
//! Arrow reader converts its batches as they come).

use std::collections::VecDeque;
use std::ops::Deref;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::chunk_reader::RawChunk;
use super::explain::{Explain, Reason};
use super::filter::Tri;
use super::metadata::{DeviceIndex, FileMetadata, FileParts, NodeCache};
use super::plan::{check_filter, device_tags, tag_verdict, DevicePlan};
pub use super::query::Query;
use super::rows::{append_rows, split_rows, Window};
use super::scan::DeviceScan;
use crate::source::{ByteSource, FileSource};
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::format::batch::DeviceBatch;
use crate::tsfile::format::index::TimeseriesMetadata;
use crate::tsfile::format::{DeviceId, Encoding};
use crate::tsfile::mods::Modifications;
use crate::{Error, Limits, Result};

/// Reads a TsFile from a byte-range source.
///
/// ```no_run
/// use colfile::source::FileSource;
/// use colfile::tsfile::{Query, TsFileReader};
/// let reader = TsFileReader::open(FileSource::open("weather.tsfile")?)?;
/// for batch in reader.query(&Query::all().table("weather"))? {
///     let batch = batch?;
///     println!("{} rows of {}", batch.len(), batch.device);
/// }
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct TsFileReader<S> {
    pub(super) source: S,
    pub(super) metadata: FileMetadata,
    pub(super) limits: Limits,
    /// IoTDB deletions every query applies (empty: none).
    mods: Modifications,
}

/// What a [`TsFileReader`] is opened with; made by [`TsFileReader::builder`].
#[derive(Debug)]
#[must_use = "a builder does nothing until build() is called"]
pub struct TsFileReaderBuilder<S> {
    source: S,
    limits: Limits,
    mods: Modifications,
    /// Load `<path>.mods` and `<path>.mods2` at build.
    mods_of: Option<PathBuf>,
    apply_mods: bool,
}

impl<S: ByteSource> TsFileReaderBuilder<S> {
    /// Caps on every size and count read from the file (default [`Limits::default`]).
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// IoTDB deletions for every query to apply (added to those of
    /// [`with_mods_of`](Self::with_mods_of)). See [`crate::tsfile::mods`].
    pub fn with_modifications(mut self, mods: Modifications) -> Self {
        self.mods = mods;
        self
    }

    /// Applies the deletions recorded beside the TsFile at `tsfile` (`<tsfile>.mods`,
    /// `<tsfile>.mods2`; none if neither exists), loaded by [`build`](Self::build).
    /// [`TsFileReader::open_path`] does this for you.
    pub fn with_mods_of(mut self, tsfile: impl AsRef<Path>) -> Self {
        self.mods_of = Some(tsfile.as_ref().to_path_buf());
        self
    }

    /// Whether queries apply deletions at all (default true). `false` is the opt-out: every
    /// point stored in the file comes back, as if no `.mods` file existed.
    pub fn with_mods(mut self, apply: bool) -> Self {
        self.apply_mods = apply;
        self
    }

    /// Reads and checks the footer (and loads the modification files).
    ///
    /// Errors: as [`TsFileReader::open`]; a damaged modification file, located in it.
    pub fn build(self) -> Result<TsFileReader<S>> {
        let mut reader = TsFileReader::open_with_limits(self.source, self.limits)?;
        if self.apply_mods {
            let mut mods = self.mods;
            if let Some(path) = &self.mods_of {
                let beside = Modifications::for_tsfile_with(path, &reader.limits)?;
                mods = mods.union(beside);
            }
            reader.mods = mods;
        }
        Ok(reader)
    }
}

impl TsFileReader<FileSource> {
    /// Opens the TsFile at `path` and applies IoTDB's deletions recorded beside it
    /// (`<path>.mods`, `<path>.mods2`): deleted points never come back from a query. For the
    /// stored points as written, use [`path_builder`](Self::path_builder) with
    /// [`with_mods(false)`](TsFileReaderBuilder::with_mods).
    ///
    /// ```
    /// use colfile::tsfile::{Query, TsFileReader};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
    /// let reader = TsFileReader::open_path(path)?;
    /// assert!(reader.modifications().is_empty()); // no basic.tsfile.mods
    /// let raw = TsFileReader::path_builder(path)?.with_mods(false).build()?;
    /// assert_eq!(raw.metadata().version(), reader.metadata().version());
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn open_path(path: impl AsRef<Path>) -> Result<Self> {
        Self::path_builder(path)?.build()
    }

    /// A [`TsFileReaderBuilder`] over the file at `path` that loads its modification files.
    pub fn path_builder(path: impl AsRef<Path>) -> Result<TsFileReaderBuilder<FileSource>> {
        let path = path.as_ref();
        Ok(TsFileReader::builder(FileSource::open(path)?).with_mods_of(path))
    }
}

impl<S: ByteSource> TsFileReader<S> {
    /// The parts the query layers read the file through.
    pub(crate) fn parts(&self) -> FileParts<'_, S> {
        FileParts {
            source: &self.source,
            metadata: &self.metadata,
            limits: &self.limits,
            mods: &self.mods,
        }
    }

    /// A [`TsFileReaderBuilder`] for `source`, in the style of
    /// [`RcFileReader::builder`](crate::rcfile::RcFileReader::builder): set the limits, then
    /// [`build`](TsFileReaderBuilder::build) reads the footer.
    ///
    /// ```
    /// use colfile::tsfile::{TsFileReader, TsFileWriter};
    /// use colfile::Limits;
    /// let (bytes, _) = TsFileWriter::builder(Vec::new()).build()?.finish_into_inner()?;
    /// let reader = TsFileReader::builder(bytes).with_limits(Limits::default()).build()?;
    /// assert_eq!(reader.metadata().tables().count(), 0);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn builder(source: S) -> TsFileReaderBuilder<S> {
        TsFileReaderBuilder {
            source,
            limits: Limits::default(),
            mods: Modifications::default(),
            mods_of: None,
            apply_mods: true,
        }
    }

    /// Opens `source` with default [`Limits`]: reads and checks the footer.
    pub fn open(source: S) -> Result<Self> {
        Self::open_with_limits(source, Limits::default())
    }

    /// Opens `source` with `limits` on every size and count read from it.
    pub fn open_with_limits(source: S, limits: Limits) -> Result<Self> {
        let metadata = FileMetadata::read(&source, &limits)?;
        Ok(TsFileReader {
            source,
            metadata,
            limits,
            mods: Modifications::default(),
        })
    }

    /// The same opened file read through `source` (which must hold the same bytes): the
    /// footer is not read again.
    #[cfg(feature = "async")]
    pub(crate) fn with_source<T>(&self, source: T) -> TsFileReader<T> {
        TsFileReader {
            source,
            metadata: self.metadata.clone(),
            limits: self.limits.clone(),
            mods: self.mods.clone(),
        }
    }

    /// The deletions that queries apply (empty unless set through the builder or
    /// [`open_path`](TsFileReader::open_path)).
    pub fn modifications(&self) -> &Modifications {
        &self.mods
    }

    /// The footer: tables, schemas, properties, and the index to devices and series.
    pub fn metadata(&self) -> &FileMetadata {
        &self.metadata
    }

    /// The source.
    pub fn source(&self) -> &S {
        &self.source
    }

    /// The encoding and compression of a series, from its first chunk's header (the footer
    /// does not record them).
    pub fn series_codec(
        &self,
        series: &TimeseriesMetadata,
    ) -> Result<(Encoding, crate::tsfile::format::Compression)> {
        let first = series.chunks.first().ok_or_else(|| {
            Error::corrupt(
                "tsfile",
                format!("series {:?} has no chunk", series.measurement_id),
            )
        })?;
        let chunk = RawChunk::read_header(
            &self.source,
            first.offset_of_chunk_header as u64,
            &self.limits,
        )?;
        Ok((chunk.encoding, chunk.compression))
    }

    /// Devices in file order (tables by name, devices in id order) that `query` selects by
    /// table, device and tag filter (statistics are not consulted).
    pub fn devices(&self, query: &Query) -> Result<Vec<DeviceId>> {
        let mut ex = Explain::default();
        Ok(self
            .device_entries(query, &mut ex)?
            .into_iter()
            .map(|e| e.device)
            .collect())
    }

    /// Splits `query` into at most `parts` queries over disjoint runs of its devices in file
    /// order, balanced by count, for reading on several threads: read one after another
    /// they give `query`'s rows in its order. A query with an offset or a limit, or with
    /// fewer devices than two, stays whole (one part).
    ///
    /// ```
    /// use colfile::tsfile::{Query, TsFileReader};
    /// let path = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile");
    /// let reader = TsFileReader::open(colfile::source::FileSource::open(path)?)?;
    /// let parts = reader.split_query(&Query::all(), 2)?;
    /// let rows = |q: &Query| -> colfile::Result<usize> {
    ///     reader.query(q)?.map(|b| b.map(|b| b.len())).sum()
    /// };
    /// let split: usize = parts.iter().map(rows).sum::<colfile::Result<usize>>()?;
    /// assert_eq!(split, rows(&Query::all())?);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn split_query(&self, query: &Query, parts: usize) -> Result<Vec<Query>> {
        if parts < 2 || query.offset > 0 || query.limit.is_some() {
            return Ok(vec![query.clone()]);
        }
        let devices = self.devices(query)?;
        if devices.len() < 2 {
            return Ok(vec![query.clone()]);
        }
        let per = devices.len().div_ceil(parts);
        Ok(devices
            .chunks(per)
            .map(|run| {
                let mut q = query.clone();
                q.devices = Some(run.to_vec());
                q
            })
            .collect())
    }

    /// [`devices`](Self::devices) with where each device's series index starts.
    fn device_entries(&self, q: &Query, ex: &mut Explain) -> Result<Vec<DeviceIndex>> {
        let mut out = Vec::new();
        let v3 = self.metadata.version() == crate::tsfile::format::v3::VERSION_V3;
        for table in self.metadata.tables() {
            if q.table.as_deref().is_some_and(|t| t != table) {
                continue;
            }
            let schema = self.metadata.table_schema(table);
            let fixed = schema.and_then(|s| q.fixed_device(s));
            let named = q.devices.as_deref();
            let wanted: Option<Vec<&DeviceId>> = match (named, &fixed) {
                (Some(d), _) => Some(
                    d.iter()
                        // A v3 file has one root (named "") for every device.
                        .filter(|d| v3 || d.table_name() == table)
                        .collect(),
                ),
                (None, Some(f)) => Some(vec![f]),
                (None, None) => None,
            };
            let entries = match wanted {
                Some(ds) => self.find_devices(&ds, q, schema, ex)?,
                None => {
                    let all = self.metadata.device_entries(&self.source, table)?;
                    ex.devices.considered += all.len() as u64;
                    all
                }
            };
            for e in entries {
                let tags = device_tags(schema, &e.device);
                if q.filter
                    .as_ref()
                    .is_some_and(|f| tag_verdict(f, &tags) == Tri::No)
                {
                    ex.devices.skip(Reason::Tags);
                    continue;
                }
                out.push(e);
            }
        }
        Ok(out)
    }

    /// Named devices, each asked of the Bloom filter (any selected column, or the aligned
    /// time column) and then searched for in the device index (each index node parsed once
    /// for all of them).
    fn find_devices(
        &self,
        devices: &[&DeviceId],
        q: &Query,
        schema: Option<&crate::tsfile::format::TableSchema>,
        ex: &mut Explain,
    ) -> Result<Vec<DeviceIndex>> {
        let mut out = Vec::new();
        let mut nodes = NodeCache::default();
        for &d in devices {
            ex.devices.consider();
            if let Some(b) = &self.metadata.footer().bloom {
                // A table device is aligned: its time column ("") is always there. A tree
                // device may be non-aligned, with no time series of its own, so it is only
                // asked about the measurements the query names (if it names any).
                let mut names: Vec<&str> = Vec::new();
                if schema.is_some() {
                    names.push("");
                }
                match (&q.columns, schema) {
                    (Some(c), _) => names.extend(c.iter().map(String::as_str)),
                    (None, Some(s)) => {
                        names.extend(s.columns.iter().map(|c| c.schema.name.as_str()))
                    }
                    (None, None) => {}
                }
                if !names.is_empty() && !names.iter().any(|m| b.may_contain(&format!("{d}.{m}"))) {
                    ex.devices.skip(Reason::Bloom);
                    continue;
                }
            }
            match self.metadata.find_device_in(&self.source, d, &mut nodes)? {
                Some(range) => out.push(DeviceIndex {
                    device: d.clone(),
                    measurement_root: range,
                }),
                None => ex.devices.skip(Reason::Index),
            }
        }
        Ok(out)
    }

    /// Runs `query`: one or more batches per device, devices in index order.
    ///
    /// Errors: a table that is not in the file; a filter naming a column the table lacks,
    /// or comparing a column with a value of another kind.
    pub fn query(&self, query: &Query) -> Result<QueryIter<'_, S>> {
        self.check_query(query)?;
        Self::start(self, query)
    }

    /// The table and filter checks of [`query`](Self::query).
    fn check_query(&self, query: &Query) -> Result<()> {
        if let Some(t) = &query.table {
            let Some(schema) = self.metadata.table_schema(t) else {
                if !self.metadata.tables().any(|x| x == t) {
                    return Err(Error::invalid(format!("no table {t} in this file")));
                }
                return Ok(());
            };
            check_filter(query, schema)?;
        }
        Ok(())
    }

    /// [`query`](Self::query) on a shared reader: the iterator owns its `Arc`, so it can
    /// outlive the caller's borrow (move it to another thread, keep it in a struct, hand it
    /// to an async stream).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use colfile::tsfile::{Query, TsFileReader};
    /// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/tsfile/basic.tsfile"))?;
    /// let reader = Arc::new(TsFileReader::open(bytes)?);
    /// let rows = std::thread::spawn(move || -> colfile::Result<usize> {
    ///     let mut n = 0;
    ///     for b in reader.query_shared(&Query::all())? {
    ///         n += b?.len();
    ///     }
    ///     Ok(n)
    /// });
    /// assert!(rows.join().unwrap()? > 0);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn query_shared(self: &Arc<Self>, query: &Query) -> Result<QueryStream<Arc<Self>>> {
        self.check_query(query)?;
        Self::start(Arc::clone(self), query)
    }

    fn start<R: Deref<Target = Self>>(reader: R, query: &Query) -> Result<QueryStream<R>> {
        let mut explain = Explain::default();
        let devices = reader.device_entries(query, &mut explain)?.into();
        let codecs = PageCodecs::with_limits(&reader.limits);
        Ok(QueryStream {
            reader,
            query: query.clone(),
            devices,
            current: None,
            codecs,
            pending: VecDeque::new(),
            window: Window::new(query.offset, query.limit),
            explain,
            horizon: None,
            blocked: false,
            prepared: VecDeque::new(),
        })
    }

    /// Runs `query` to the end and returns its pruning report.
    pub fn explain(&self, query: &Query) -> Result<Explain> {
        let mut it = self.query(query)?;
        for b in &mut it {
            b?;
        }
        Ok(it.explain)
    }
}

/// Iterator over a query's batches, borrowing its reader ([`TsFileReader::query`]).
pub type QueryIter<'r, S> = QueryStream<&'r TsFileReader<S>>;

/// Iterator over a query's batches; [`explain`](Self::explain) says what it has skipped.
/// `R` is how it holds the reader: a borrow ([`QueryIter`]) or an `Arc`
/// ([`TsFileReader::query_shared`]).
#[derive(Debug)]
pub struct QueryStream<R> {
    reader: R,
    query: Query,
    devices: VecDeque<DeviceIndex>,
    current: Option<DeviceScan>,
    codecs: PageCodecs,
    /// Read ahead of the batch last returned, offset and limit applied: rows cut off at the
    /// batch size, the next device's rows, or the error that ended a batch early.
    pending: VecDeque<Result<DeviceBatch>>,
    /// The offset and limit: rows still to skip, rows taken for the result (returned or
    /// pending).
    window: Window,
    explain: Explain,
    /// How many more devices may be started (`None`: all): an async reader raises it as it
    /// fetches their bytes ([`super::fetch_plan`]).
    horizon: Option<usize>,
    /// The last `None` came from the horizon, not from the end.
    blocked: bool,
    /// Plans a fetch window already made for the next devices (by their measurement root),
    /// so that they are not planned a second time when they start.
    prepared: VecDeque<((u64, u64), DevicePlan)>,
}

impl<S: ByteSource, R: Deref<Target = TsFileReader<S>>> QueryStream<R> {
    /// What the query has considered and skipped so far (all of it once the iterator is
    /// exhausted).
    pub fn explain(&self) -> &Explain {
        &self.explain
    }

    /// Starts no device beyond the `n` next ones until [`allow`](Self::allow) lets it:
    /// the iterator then ends early, with [`blocked`](Self::blocked) true.
    #[cfg(feature = "async")]
    pub(crate) fn hold(&mut self, n: usize) {
        self.horizon = Some(n);
    }

    /// Lets `n` more devices start, with the plans a fetch window made for them.
    #[cfg(feature = "async")]
    pub(crate) fn allow(&mut self, n: usize, plans: super::plan::Prepared) {
        self.horizon = self.horizon.map(|h| h.saturating_add(n));
        self.blocked = false;
        self.prepared.extend(plans.0);
    }

    /// Whether the last `None` was the horizon ([`hold`](Self::hold)), not the end.
    #[cfg(feature = "async")]
    pub(crate) fn blocked(&self) -> bool {
        self.blocked
    }

    /// The devices not yet allowed to start, in the order they will be read.
    #[cfg(feature = "async")]
    pub(crate) fn held_back(&self) -> impl Iterator<Item = &DeviceIndex> {
        self.devices.iter().skip(self.horizon.unwrap_or(usize::MAX))
    }

    /// The reader's parts and the query, for planning what the next devices read.
    #[cfg(feature = "async")]
    pub(crate) fn reader_and_query(&self) -> (FileParts<'_, S>, &Query) {
        (self.reader.parts(), &self.query)
    }

    /// The next batch of some device, before offset, limit and batch size.
    fn next_raw(&mut self) -> Option<Result<DeviceBatch>> {
        loop {
            if let Some(scan) = &mut self.current {
                let r = scan.next_batch(
                    &self.reader.parts(),
                    &self.query,
                    &mut self.codecs,
                    &mut self.explain,
                );
                match r {
                    Ok(Some(b)) => return Some(Ok(b)),
                    Ok(None) => self.current = None,
                    Err(e) => {
                        self.current = None;
                        self.devices.clear();
                        self.prepared.clear();
                        return Some(Err(e));
                    }
                }
            }
            if self.horizon == Some(0) && !self.devices.is_empty() {
                self.blocked = true;
                return None;
            }
            let device = self.devices.pop_front()?;
            if let Some(h) = &mut self.horizon {
                *h -= 1;
            }
            // A device the window skipped whole has no plan: it is planned (and skipped) now.
            let made = self.prepared.front().is_some_and(|(root, plan)| {
                *root == device.measurement_root && plan.device == device.device
            });
            let plan = match made.then(|| self.prepared.pop_front()).flatten() {
                Some((_, plan)) => Ok(plan),
                None => DevicePlan::new(&self.reader.parts(), &device, &self.query),
            };
            match plan {
                Ok(plan) => match plan.skip_reason(&self.query) {
                    Some(why) => self.explain.devices.skip(why),
                    None => self.current = Some(DeviceScan::new(plan)),
                },
                Err(e) => {
                    self.devices.clear();
                    self.prepared.clear();
                    return Some(Err(e));
                }
            }
        }
    }

    /// Applies the offset and the limit to a batch; `None` when nothing of it is left.
    fn cut(&mut self, b: DeviceBatch) -> Result<Option<DeviceBatch>> {
        self.window.cut(b)
    }

    fn limit_reached(&self) -> bool {
        self.window.full()
    }

    /// The next non-empty batch after offset and limit: what was read ahead, else the scans'.
    fn next_cut(&mut self) -> Option<Result<DeviceBatch>> {
        if let Some(r) = self.pending.pop_front() {
            return Some(r);
        }
        loop {
            if self.limit_reached() {
                if self.current.take().is_some() || !self.devices.is_empty() {
                    let left = self.devices.len() as u64;
                    self.devices.clear();
                    self.prepared.clear();
                    for _ in 0..left {
                        self.explain.devices.skip(Reason::Limit);
                    }
                }
                return None;
            }
            match self.next_raw()? {
                Ok(b) => match self.cut(b) {
                    Ok(Some(b)) => return Some(Ok(b)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(e)),
                },
                Err(e) => return Some(Err(e)),
            }
        }
    }

    /// Makes `b` `n` rows long: what is beyond is cut off (returned next), and while it is
    /// shorter the device's next batches are joined to it. It stays shorter only where the
    /// device's rows (or the query's) end, or where an error comes next.
    fn fill(&mut self, b: &mut DeviceBatch, n: usize) -> Result<()> {
        loop {
            if b.len() >= n {
                if b.len() > n {
                    let rest = split_rows(b, n)?;
                    self.pending.push_front(Ok(rest));
                }
                return Ok(());
            }
            let mut next = match self.next_cut() {
                None => return Ok(()),
                Some(Ok(next)) if same_series(b, &next) => next,
                Some(other) => {
                    self.pending.push_front(other);
                    return Ok(());
                }
            };
            let room = n - b.len();
            if next.len() > room {
                let rest = split_rows(&mut next, room)?;
                self.pending.push_front(Ok(rest));
            }
            append_rows(b, &next)?;
        }
    }
}

/// Whether `b` can be joined to `a`: the same device with the same columns.
fn same_series(a: &DeviceBatch, b: &DeviceBatch) -> bool {
    a.device == b.device
        && a.columns.len() == b.columns.len()
        && a.columns
            .iter()
            .zip(&b.columns)
            .all(|(x, y)| x.name == y.name && x.data_type == y.data_type)
}

impl<S: ByteSource, R: Deref<Target = TsFileReader<S>>> Iterator for QueryStream<R> {
    type Item = Result<DeviceBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        let mut b = match self.next_cut()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        if let Some(n) = self.query.batch_size {
            if let Err(e) = self.fill(&mut b, n) {
                return Some(Err(e));
            }
        }
        self.explain.rows_returned += b.len() as u64;
        Some(Ok(b))
    }
}
