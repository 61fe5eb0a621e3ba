//! [`DatasetRows`]: a [`Query`] over every live TsFile of a [`Dataset`] at once, as IoTDB
//! would answer it (`docs/design/tsfile-v3-and-mods.md` §5.6).
//!
//! Device by device: the files whose `.resource` (or footer) says they may hold the device in
//! the query's time range are read, each with its own deletions applied (never another
//! file's), and their rows are merged by time; at an equal time the row of the higher
//! [`MergePriority`] wins and its null columns are filled from lower ones (IoTDB's
//! `AlignedPriorityMergeReader`; a non-aligned device's missing point is a null, so each of
//! its series is merged on its own, as `PriorityMergeReader` does). The row filter, offset and
//! limit apply to the merged rows: a filter applied per file could let an overwritten value
//! through.
//!
//! A file whose chunks of the device follow each other in time (every sequence file, most
//! unsequence ones) is streamed a batch at a time. One whose chunks overlap (an unsequence
//! file flushed several times) has the device's rows read whole and cut into runs of rising
//! times, later runs winning, since a later flush of a file wins. Memory is therefore about
//! one batch per file holding the device, plus those overlapping files' rows of it.

use std::cell::RefCell;
use std::collections::{BTreeSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use super::priority::{merge_rows, FillNulls, Merge, MergeSource};
use super::{DataFile, Dataset, TimeRange};
use crate::source::FileSource;
use crate::tsfile::format::batch::{Column, DeviceBatch};
use crate::tsfile::format::index::TimeseriesMetadata;
use crate::tsfile::format::{DataType, DeviceId, Value, ValueRef};
use crate::tsfile::read::plan::device_tags;
use crate::tsfile::read::rows::{retain_rows, row_mask, Window};
use crate::tsfile::{Query, QueryStream, TsFileReader};
use crate::{Error, Limits, Result};

/// How a [`Dataset`] is read.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Caps on every size and count read (default [`Limits::default`]).
    pub limits: Limits,
    /// Apply each file's `.mods`/`.mods2` deletions (default `true`).
    pub apply_mods: bool,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            limits: Limits::default(),
            apply_mods: true,
        }
    }
}

impl ReadOptions {
    /// These options with `limits`.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// These options with deletions applied or not.
    pub fn with_mods(mut self, apply: bool) -> Self {
        self.apply_mods = apply;
        self
    }
}

/// What a [`DatasetRows`] did: devices merged, files read and files skipped unopened for a
/// device because their time index ruled it out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DatasetStats {
    /// Devices read.
    pub devices: u64,
    /// (device, file) pairs read.
    pub file_reads: u64,
    /// (device, file) pairs skipped by the files' time indexes.
    pub file_skips: u64,
    /// Files whose chunks of a device overlapped, read whole for that device.
    pub overlapping: u64,
}

/// Rows per merged batch when the query sets no batch size.
const MERGED_BATCH_ROWS: usize = 8192;

type Row = Vec<Option<Value>>;
type SharedReader = Arc<TsFileReader<FileSource>>;
/// The first error a streamed source met (an iterator cannot return it).
type ErrorSlot = Rc<RefCell<Option<Error>>>;

/// The merged rows of a [`Dataset`], device by device (merged as [`Dataset::query`] describes).
pub struct DatasetRows<'a> {
    ds: &'a Dataset,
    query: Query,
    options: ReadOptions,
    readers: Vec<Option<SharedReader>>,
    devices: VecDeque<DeviceId>,
    current: Option<DeviceMerge>,
    window: Window,
    stats: DatasetStats,
}

impl std::fmt::Debug for DatasetRows<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatasetRows")
            .field("devices_left", &self.devices.len())
            .field("stats", &self.stats)
            .finish()
    }
}

/// One device being merged.
struct DeviceMerge {
    template: DeviceBatch,
    /// The tags the filter sees.
    all_tags: Vec<(String, Option<String>)>,
    /// How many of the template's columns the output keeps.
    n_out: usize,
    /// Time-disjoint parts in time order.
    parts: VecDeque<Part>,
    error: ErrorSlot,
}

/// A stretch of a device's time that one file holds alone (its batches pass through), or
/// that several files share (their rows are merged).
enum Part {
    Alone(Box<QueryStream<SharedReader>>, std::path::PathBuf),
    Merged(Box<Merge<Row, Source, FillNulls<Value>>>),
}

impl Dataset {
    /// Runs `query` over the whole dataset with deletions applied and default limits; see
    /// [`query_with`](Self::query_with).
    pub fn query(&self, query: &Query) -> Result<DatasetRows<'_>> {
        self.query_with(query, ReadOptions::default())
    }

    /// Runs `query` over every live file at once: one device after another (in device
    /// order), each device's rows merged across files as IoTDB does. The query's table,
    /// devices, columns, time range, filter, offset, limit and batch size apply as in
    /// [`TsFileReader::query`].
    ///
    /// ```no_run
    /// use colfile::tsfile::dataset::Dataset;
    /// use colfile::tsfile::Query;
    /// let ds = Dataset::open("data/datanode/data")?;
    /// for batch in ds.query(&Query::all().time_range(0, 1_000))? {
    ///     let batch = batch?;
    ///     println!("{}: {} rows", batch.device, batch.len());
    /// }
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn query_with(&self, query: &Query, options: ReadOptions) -> Result<DatasetRows<'_>> {
        let mut rows = DatasetRows {
            ds: self,
            query: query.clone(),
            options,
            readers: vec![None; self.files.len()],
            devices: VecDeque::new(),
            current: None,
            window: Window::new(query.offset, query.limit),
            stats: DatasetStats::default(),
        };
        rows.devices = rows.list_devices()?.into();
        Ok(rows)
    }
}

impl<'a> DatasetRows<'a> {
    /// What was read and skipped so far.
    pub fn stats(&self) -> DatasetStats {
        self.stats
    }

    fn range(&self) -> TimeRange {
        let (s, e) = self.query.range();
        TimeRange::new(s, e)
    }

    /// The reader of file `i`, opened once.
    fn reader(&mut self, i: usize) -> Result<SharedReader> {
        if let Some(Some(r)) = self.readers.get(i) {
            return Ok(r.clone());
        }
        let file = self.file(i)?;
        let r = TsFileReader::path_builder(&file.path)?
            .with_limits(self.options.limits.clone())
            .with_mods(self.options.apply_mods)
            .build()
            .map_err(|e| e.in_file(&file.path))?;
        let r = Arc::new(r);
        if let Some(slot) = self.readers.get_mut(i) {
            *slot = Some(r.clone());
        }
        Ok(r)
    }

    fn file(&self, i: usize) -> Result<&'a DataFile> {
        let ds: &'a Dataset = self.ds;
        ds.files
            .get(i)
            .ok_or_else(|| Error::invalid("no such file in the dataset"))
    }

    /// Every device the query selects, from the time indexes where they list devices and
    /// from the footers otherwise.
    fn list_devices(&mut self) -> Result<Vec<DeviceId>> {
        let mut all = BTreeSet::new();
        let range = self.range();
        for i in 0..self.ds.files.len() {
            let file = self.file(i)?;
            match &file.ranges {
                Some(r) if !r.devices.is_empty() => all.extend(
                    r.devices
                        .iter()
                        .filter(|(_, t)| t.overlaps(&range))
                        .map(|(d, _)| d.normalized()),
                ),
                _ => {
                    let r = self.reader(i)?;
                    let found = r.metadata().all_devices(r.source())?;
                    all.extend(found.iter().map(DeviceId::normalized));
                }
            }
        }
        let q = &self.query;
        let wanted = |d: &DeviceId| {
            q.table
                .as_deref()
                .is_none_or(|t| d.table_name().eq_ignore_ascii_case(t))
                && q.devices
                    .as_ref()
                    .is_none_or(|ds| ds.iter().any(|x| x.normalized() == *d))
        };
        Ok(all.into_iter().filter(wanted).collect())
    }

    /// Starts merging `device`: the files that may hold it, their columns, their sources.
    fn start(&mut self, device: DeviceId) -> Result<Option<DeviceMerge>> {
        let range = self.range();
        let mut kept = Vec::new();
        for (i, f) in self.ds.files.iter().enumerate() {
            if f.may_contain(Some(&device), range) {
                kept.push(i);
            } else {
                self.stats.file_skips += 1;
            }
        }
        // The device's series in each kept file.
        let mut series: Vec<(usize, SharedReader, Vec<TimeseriesMetadata>)> = Vec::new();
        for i in kept {
            let r = self.reader(i)?;
            let path = &self.file(i)?.path;
            let ts = r
                .metadata()
                .timeseries(r.source(), &device)
                .map_err(|e| e.in_file(path))?;
            if !ts.is_empty() {
                series.push((i, r, ts));
            }
        }
        let Some((_, first, _)) = series.first() else {
            return Ok(None);
        };
        self.stats.devices += 1;
        let (columns, n_out) = self.columns(&series)?;
        let schema = first.metadata().table_schema(device.table_name());
        let all_tags = device_tags(schema, &device);
        let mut tags = all_tags.clone();
        if let Some(cols) = &self.query.columns {
            tags.retain(|(n, _)| cols.contains(n));
        }
        let template = DeviceBatch {
            table: device.table_name().to_owned(),
            device: device.clone(),
            tags,
            times: Vec::new(),
            columns: columns
                .iter()
                .map(|(n, t)| Column::new(n, *t))
                .collect::<Result<_>>()?,
        };
        let names: Vec<String> = columns.into_iter().map(|(n, _)| n).collect();
        let error: ErrorSlot = Rc::default();
        let mut parts = VecDeque::new();
        for cluster in overlapping(series) {
            if let [(i, reader, ts)] = cluster.as_slice() {
                if in_time_order(ts) {
                    self.stats.file_reads += 1;
                    let file = self.file(*i)?;
                    let q = self.file_query(&device, &names, range);
                    let stream = reader.query_shared(&q).map_err(|e| e.in_file(&file.path))?;
                    parts.push_back(Part::Alone(Box::new(stream), file.path.clone()));
                    continue;
                }
            }
            let mut sources = Vec::new();
            for (i, reader, ts) in cluster {
                self.stats.file_reads += 1;
                let file = self.file(i)?;
                let q = self.file_query(&device, &names, range);
                let stream = reader.query_shared(&q).map_err(|e| e.in_file(&file.path))?;
                let rows = FileRows {
                    stream,
                    names: names.clone(),
                    rows: VecDeque::new(),
                    error: error.clone(),
                    path: file.path.clone(),
                };
                if in_time_order(&ts) {
                    let stream = Source::Stream(Box::new(rows));
                    sources.push(MergeSource::new(file.priority(0), stream));
                    continue;
                }
                self.stats.overlapping += 1;
                let all: Vec<(i64, Row)> = rows.collect();
                if let Some(e) = error.borrow_mut().take() {
                    return Err(e);
                }
                for (k, run) in rising_runs(all).into_iter().enumerate() {
                    let run = Source::Buffered(run.into_iter());
                    sources.push(MergeSource::new(file.priority(k as u64), run));
                }
            }
            parts.push_back(Part::Merged(Box::new(merge_rows(sources))));
        }
        Ok(Some(DeviceMerge {
            template,
            all_tags,
            n_out,
            parts,
            error,
        }))
    }

    /// What one file is asked for the device: the merge's columns, the time range.
    fn file_query(&self, device: &DeviceId, names: &[String], range: TimeRange) -> Query {
        let mut q = Query::all()
            .device(device.clone())
            .columns(names.iter().cloned());
        if self.query.has_range() {
            q = q.time_range(range.start, range.end);
        }
        if let Some(n) = self.query.batch_size {
            q = q.batch_size(n);
        }
        q
    }

    /// The columns the device's merge reads: the selected ones (in the query's order, else by
    /// name), then those only the filter needs; and how many of them are selected.
    fn columns(
        &self,
        series: &[(usize, SharedReader, Vec<TimeseriesMetadata>)],
    ) -> Result<(Vec<(String, DataType)>, usize)> {
        let mut all: Vec<(String, DataType)> = Vec::new();
        for (_, _, ts) in series {
            for s in ts {
                if s.measurement_id.is_empty() || s.data_type == DataType::Vector {
                    continue;
                }
                match all.iter().find(|(n, _)| *n == s.measurement_id) {
                    Some((n, t)) if *t != s.data_type => {
                        return Err(Error::schema(format!(
                            "series {n} is {t:?} in one file and {:?} in another",
                            s.data_type
                        )))
                    }
                    Some(_) => {}
                    None => all.push((s.measurement_id.clone(), s.data_type)),
                }
            }
        }
        all.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out: Vec<(String, DataType)> = match &self.query.columns {
            Some(cols) => cols
                .iter()
                .filter_map(|c| all.iter().find(|(n, _)| n == c).cloned())
                .collect(),
            None => all.clone(),
        };
        let n_out = out.len();
        if let Some(f) = &self.query.filter {
            for c in f.columns() {
                if !out.iter().any(|(n, _)| n == c) {
                    out.extend(all.iter().find(|(n, _)| n == c).cloned());
                }
            }
        }
        Ok((out, n_out))
    }

    /// The next batch of the current device, filtered; `None` when it has no more.
    fn next_of_current(&mut self) -> Option<Result<DeviceBatch>> {
        let cur = self.current.as_mut()?;
        let size = self.query.batch_size.unwrap_or(MERGED_BATCH_ROWS);
        loop {
            let mut batch = match cur.parts.front_mut()? {
                Part::Alone(stream, path) => match stream.next() {
                    None => {
                        cur.parts.pop_front();
                        continue;
                    }
                    Some(Err(e)) => return Some(Err(e.in_file(path))),
                    Some(Ok(b)) => conform(b, &cur.template),
                },
                Part::Merged(merge) => {
                    let mut batch = cur.template.clone();
                    for (t, row) in merge.by_ref().take(size) {
                        batch.times.push(t);
                        let cols = batch.columns.iter_mut();
                        for (col, v) in cols.zip(row.into_iter().chain(std::iter::repeat(None))) {
                            let v = v.unwrap_or(Value::Null);
                            if let Err(e) = push(col, v.as_ref()) {
                                return Some(Err(e));
                            }
                        }
                    }
                    if let Some(e) = cur.error.borrow_mut().take() {
                        return Some(Err(e));
                    }
                    if batch.times.is_empty() {
                        cur.parts.pop_front();
                        continue;
                    }
                    batch
                }
            };
            if self.query.filter.is_some() {
                let all = (i64::MIN, i64::MAX);
                let keep = row_mask(&batch, all, self.query.filter.as_ref(), &cur.all_tags);
                if let Err(e) = retain_rows(&mut batch, &keep) {
                    return Some(Err(e));
                }
            }
            batch.columns.truncate(cur.n_out);
            if !batch.times.is_empty() {
                return Some(Ok(batch));
            }
        }
    }
}

impl Iterator for DatasetRows<'_> {
    type Item = Result<DeviceBatch>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.window.full() {
                return None;
            }
            match self.next_of_current() {
                Some(Ok(b)) => match self.window.cut(b) {
                    Ok(Some(b)) => return Some(Ok(b)),
                    Ok(None) => continue,
                    Err(e) => return Some(Err(e)),
                },
                Some(Err(e)) => {
                    self.current = None;
                    self.devices.clear();
                    return Some(Err(e));
                }
                None => {}
            }
            let device = self.devices.pop_front()?;
            match self.start(device) {
                Ok(m) => self.current = m,
                Err(e) => {
                    self.devices.clear();
                    return Some(Err(e));
                }
            }
        }
    }
}

/// A file's batch with the merge's columns in its order (a column the file lacks all null)
/// and the template's tags.
fn conform(mut b: DeviceBatch, template: &DeviceBatch) -> DeviceBatch {
    let n = b.times.len();
    let mut columns = Vec::with_capacity(template.columns.len());
    for t in &template.columns {
        match b.columns.iter().position(|c| c.name == t.name) {
            Some(i) => columns.push(b.columns.swap_remove(i)),
            None => {
                let mut c = t.clone();
                c.present = vec![false; n];
                columns.push(c);
            }
        }
    }
    b.columns = columns;
    b.tags = template.tags.clone();
    b
}

/// A file holding the device: its index in the dataset, its reader, the device's series.
type Held<T> = (usize, T, Vec<TimeseriesMetadata>);

/// The files holding a device grouped into clusters whose time ranges (over the device's
/// series) overlap, in time order: a file alone in its cluster has those times to itself.
/// A file whose range is unknown joins every other file in one cluster.
fn overlapping<T>(
    files: Vec<(usize, T, Vec<TimeseriesMetadata>)>,
) -> Vec<Vec<(usize, T, Vec<TimeseriesMetadata>)>> {
    let span = |ts: &[TimeseriesMetadata]| {
        let kept = ts.iter().map(|s| &s.statistics).filter(|st| st.count > 0);
        kept.fold(None, |acc: Option<(i64, i64)>, st| {
            let (a, b) = acc.unwrap_or((st.start_time, st.end_time));
            Some((a.min(st.start_time), b.max(st.end_time)))
        })
    };
    let mut ranged: Vec<((i64, i64), Held<T>)> = files
        .into_iter()
        .map(|f| (span(&f.2).unwrap_or((i64::MIN, i64::MAX)), f))
        .collect();
    ranged.sort_by_key(|(r, f)| (*r, f.0));
    let mut out: Vec<Vec<Held<T>>> = Vec::new();
    let mut end = i64::MIN;
    for ((a, b), f) in ranged {
        match out.last_mut() {
            Some(cluster) if a <= end => {
                cluster.push(f);
                end = end.max(b);
            }
            _ => {
                out.push(vec![f]);
                end = b;
            }
        }
    }
    // Within a cluster the merge orders by priority; keep the files in dataset order.
    for c in &mut out {
        c.sort_by_key(|f| f.0);
    }
    out
}

/// Appends `v` (null or a value of the column's type) to `col`.
fn push(col: &mut Column, v: ValueRef<'_>) -> Result<()> {
    let null = matches!(v, ValueRef::Null);
    col.present.push(!null);
    if !null {
        col.values.push(v)?;
    }
    Ok(())
}

/// Whether the file's rows of the device come out in time order, each time once: always
/// for a non-aligned device (the reader merges its series' chunks by time, the later chunk
/// winning), and for an aligned one when its time chunks (in file order) follow each other.
fn in_time_order(series: &[TimeseriesMetadata]) -> bool {
    let time = series.iter().find(|s| s.data_type == DataType::Vector);
    time.is_none_or(|s| {
        if s.chunks.len() < 2 {
            return true;
        }
        let mut last: Option<i64> = None;
        for c in &s.chunks {
            let Some(st) = &c.statistics else {
                return false;
            };
            if st.count == 0 {
                continue;
            }
            if last.is_some_and(|l| st.start_time <= l) {
                return false;
            }
            last = Some(st.end_time);
        }
        true
    })
}

/// Cuts rows into runs of strictly rising times.
fn rising_runs(rows: Vec<(i64, Row)>) -> Vec<Vec<(i64, Row)>> {
    let mut runs: Vec<Vec<(i64, Row)>> = Vec::new();
    for (t, r) in rows {
        match runs.last_mut() {
            Some(run) if run.last().is_some_and(|(p, _)| *p < t) => run.push((t, r)),
            _ => runs.push(vec![(t, r)]),
        }
    }
    runs
}

/// A file's rows of one device as merge items, the columns in the merge's order.
struct FileRows {
    stream: QueryStream<SharedReader>,
    names: Vec<String>,
    rows: VecDeque<(i64, Row)>,
    error: ErrorSlot,
    path: std::path::PathBuf,
}

impl Iterator for FileRows {
    type Item = (i64, Row);

    fn next(&mut self) -> Option<(i64, Row)> {
        while self.rows.is_empty() {
            let batch = match self.stream.next()? {
                Ok(b) => b,
                Err(e) => {
                    let mut slot = self.error.borrow_mut();
                    slot.get_or_insert(e.in_file(&self.path));
                    return None;
                }
            };
            let mut cursors: Vec<_> = self
                .names
                .iter()
                .map(|n| {
                    batch
                        .columns
                        .iter()
                        .find(|c| c.name == *n)
                        .map(Column::cursor)
                })
                .collect();
            for &t in &batch.times {
                let row = cursors
                    .iter_mut()
                    .map(|c| {
                        let v = c.as_mut().map_or(ValueRef::Null, |c| c.next_value());
                        (!matches!(v, ValueRef::Null)).then(|| v.to_owned())
                    })
                    .collect();
                self.rows.push_back((t, row));
            }
        }
        self.rows.pop_front()
    }
}

/// A merge source: streamed from a file, or one run of a file read whole.
enum Source {
    Stream(Box<FileRows>),
    Buffered(std::vec::IntoIter<(i64, Row)>),
}

impl Iterator for Source {
    type Item = (i64, Row);

    fn next(&mut self) -> Option<(i64, Row)> {
        match self {
            Source::Stream(s) => s.next(),
            Source::Buffered(b) => b.next(),
        }
    }
}
