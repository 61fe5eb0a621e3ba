//! Reading: a TsFile query or an RCFile scan over one file or a directory (local or in an
//! object store) as a [`Batches`] iterator of Arrow record batches, decoded with the GIL
//! released; `read_all` hands the whole result to pyarrow as one table without copying.

use std::sync::{Arc, Mutex};

use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_pyarrow::{IntoPyArrow, PyArrowType};
use arrow_schema::{Schema, SchemaRef};
use colfile::arrow::{
    AsyncReadOptions, RcFileArrowReader, RcFileRecordBatchStreamBuilder, TsFileArrowReader,
    TsFileRecordBatchStreamBuilder,
};
use colfile::rcfile::{Schema as HiveSchema, Serde};
use colfile::source::{FileSource, PlannedSource};
use colfile::tsfile::mods::Modifications;
use colfile::tsfile::{Filter, Query, TsFileReader};
use colfile::{Error, Limits, Result};
use futures_util::StreamExt;
use pyo3::prelude::*;

use crate::errors::{to_py, IntoPy};
use crate::location::{files, runtime, Place};

/// Record batches of one file, errors located in it.
type FileBatches = Box<dyn Iterator<Item = Result<RecordBatch>> + Send>;

/// Opens one file's batches, given the schema every file must have (`None` for the first).
type Open = Box<dyn Fn(&Place) -> Result<(SchemaRef, FileBatches)> + Send + Sync>;

/// The batches of a read, in file order: an iterator whose `schema` is the result's.
#[pyclass(module = "colfile._colfile", name = "Batches")]
pub struct Batches {
    schema: SchemaRef,
    state: Mutex<State>,
}

struct State {
    current: Option<FileBatches>,
    rest: std::vec::IntoIter<Place>,
    open: Open,
    /// Rows still to return (the read's `limit`).
    left: u64,
}

impl State {
    /// The next batch of any file, opening the next file when one ends.
    fn next(&mut self, schema: &SchemaRef) -> Option<Result<RecordBatch>> {
        loop {
            if self.left == 0 {
                return None;
            }
            if let Some(cur) = self.current.as_mut() {
                match cur.next() {
                    Some(Ok(b)) => {
                        let n = (b.num_rows() as u64).min(self.left);
                        self.left -= n;
                        return Some(Ok(if n < b.num_rows() as u64 {
                            b.slice(0, n as usize)
                        } else {
                            b
                        }));
                    }
                    Some(Err(e)) => {
                        self.left = 0;
                        return Some(Err(e));
                    }
                    None => self.current = None,
                }
            }
            let place = self.rest.next()?;
            match (self.open)(&place) {
                Ok((s, batches)) if same_columns(&s, schema) => self.current = Some(batches),
                Ok(_) => {
                    self.left = 0;
                    let msg = format!(
                        "{}: its columns differ from the first file's ({})",
                        place.name(),
                        describe(schema)
                    );
                    return Some(Err(Error::schema(msg)));
                }
                Err(e) => {
                    self.left = 0;
                    return Some(Err(e));
                }
            }
        }
    }
}

fn same_columns(a: &Schema, b: &Schema) -> bool {
    a.fields().len() == b.fields().len()
        && a.fields()
            .iter()
            .zip(b.fields())
            .all(|(x, y)| x.name() == y.name() && x.data_type() == y.data_type())
}

fn describe(s: &Schema) -> String {
    let cols: Vec<String> = s
        .fields()
        .iter()
        .map(|f| format!("{} {}", f.name(), f.data_type()))
        .collect();
    cols.join(", ")
}

impl Batches {
    /// The read of `places`, each opened by `open`, at most `limit` rows.
    fn new(places: Vec<Place>, open: Open, limit: Option<u64>) -> Result<Batches> {
        let mut rest = places.into_iter();
        let first = rest
            .next()
            .ok_or_else(|| Error::invalid("no files to read"))?;
        let (schema, batches) = open(&first)?;
        let state = State {
            current: Some(batches),
            rest,
            open,
            left: limit.unwrap_or(u64::MAX),
        };
        Ok(Batches {
            schema,
            state: Mutex::new(state),
        })
    }

    fn next_batch(&self) -> Option<Result<RecordBatch>> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.next(&self.schema)
    }
}

#[pymethods]
impl Batches {
    /// The schema of every batch, as a `pyarrow.Schema`.
    #[getter]
    fn schema(&self) -> PyArrowType<Schema> {
        PyArrowType(self.schema.as_ref().clone())
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// The next `pyarrow.RecordBatch`, decoded with the GIL released.
    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyArrowType<RecordBatch>>> {
        match py.detach(|| self.next_batch()) {
            None => Ok(None),
            Some(Ok(b)) => Ok(Some(PyArrowType(b))),
            Some(Err(e)) => Err(to_py(py, e)),
        }
    }

    /// Every remaining batch as one `pyarrow.Table` (read with the GIL released; the
    /// column buffers pass to pyarrow as they are).
    fn read_all<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let batches = py
            .detach(|| {
                let mut out = Vec::new();
                while let Some(b) = self.next_batch() {
                    out.push(b?);
                }
                Ok(out)
            })
            .py_err(py)?;
        table(py, self.schema.clone(), batches)
    }
}

/// `batches` as a `pyarrow.Table`, through the Arrow C stream interface: pyarrow imports
/// the buffers, it does not copy them.
pub fn table<'py>(
    py: Python<'py>,
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
) -> PyResult<Bound<'py, PyAny>> {
    let reader: Box<dyn RecordBatchReader + Send> = Box::new(RecordBatchIterator::new(
        batches.into_iter().map(Ok),
        schema,
    ));
    reader.into_pyarrow(py)?.call_method0("read_all")
}

fn arrow_result(
    r: std::result::Result<RecordBatch, arrow_schema::ArrowError>,
) -> Result<RecordBatch> {
    r.map_err(Error::from)
}

/// A remote stream read batch by batch on the module's runtime.
fn blocking<S>(stream: S) -> FileBatches
where
    S: futures_util::Stream<Item = std::result::Result<RecordBatch, arrow_schema::ArrowError>>
        + Send
        + Unpin
        + 'static,
{
    let mut stream = stream;
    Box::new(std::iter::from_fn(move || {
        runtime().block_on(stream.next()).map(arrow_result)
    }))
}

/// What a TsFile read asks for.
#[derive(Clone)]
struct TsRead {
    query: Query,
    batch_size: usize,
    mods: bool,
    /// Read each local file whole on this many threads (1: stream it).
    threads: usize,
}

/// [`open_tsfile_unlocated`], its errors (opening or reading) naming the file.
fn open_tsfile(read: &TsRead, place: &Place) -> Result<(SchemaRef, FileBatches)> {
    let (schema, batches) =
        open_tsfile_unlocated(read, place).map_err(|e| e.in_file(place.name()))?;
    Ok((schema, located(batches, place.name())))
}

fn open_tsfile_unlocated(read: &TsRead, place: &Place) -> Result<(SchemaRef, FileBatches)> {
    match place {
        Place::Local(path) => {
            let source = PlannedSource::new(FileSource::open(path)?);
            let reader = TsFileReader::builder(source)
                .with_mods_of(path)
                .with_mods(read.mods)
                .build()?;
            if read.threads > 1 {
                let (schema, batches) = crate::parallel::read_all(
                    Arc::new(reader),
                    &read.query,
                    read.batch_size,
                    read.threads,
                )?;
                let batches: FileBatches = Box::new(batches.into_iter().map(Ok));
                return Ok((schema, batches));
            }
            let r = TsFileArrowReader::builder(Arc::new(reader))
                .with_query(read.query.clone())
                .with_batch_size(read.batch_size)
                .build()?;
            let schema = r.schema();
            let batches: FileBatches = Box::new(r.planned().map(arrow_result));
            Ok((schema, batches))
        }
        Place::Remote { store, path, .. } => {
            let object = place.object()?;
            let stream = runtime().block_on(async {
                let modifications = match read.mods {
                    true => {
                        let limits = Limits::default();
                        Some(Modifications::for_object(store.as_ref(), path, &limits).await?)
                    }
                    false => None,
                };
                let options = AsyncReadOptions {
                    modifications,
                    ..AsyncReadOptions::default()
                };
                let b = TsFileRecordBatchStreamBuilder::new_with_options(object, options).await?;
                b.with_query(read.query.clone())
                    .with_batch_size(read.batch_size)
                    .build()
                    .await
            })?;
            let schema = stream.schema();
            Ok((schema, blocking(stream)))
        }
    }
}

/// `batches` with their errors naming `file`.
fn located(batches: FileBatches, file: String) -> FileBatches {
    Box::new(batches.map(move |b| b.map_err(|e| e.in_file(&file))))
}

/// The arguments of a TsFile query, in the Python signature's order.
pub struct TsArgs {
    pub table: Option<String>,
    pub columns: Option<Vec<String>>,
    pub start: Option<i64>,
    pub end: Option<i64>,
    pub filter: Option<String>,
    pub tags: Vec<(String, String)>,
    pub limit: Option<u64>,
    pub batch_size: usize,
    pub mods: bool,
    /// Threads that read a local file whole (1: the file is streamed batch by batch).
    pub threads: usize,
}

fn ts_query(a: &TsArgs) -> Result<Query> {
    let mut q = Query::all();
    if let Some(t) = &a.table {
        q = q.table(t);
    }
    if let Some(c) = &a.columns {
        q = q.columns(c.iter().cloned());
    }
    if a.start.is_some() || a.end.is_some() {
        q = q.time_range(a.start.unwrap_or(i64::MIN), a.end.unwrap_or(i64::MAX));
    }
    for (col, value) in &a.tags {
        q = q.tag_eq(col, value);
    }
    if let Some(f) = &a.filter {
        q = q.filter(f.parse::<Filter>()?);
    }
    if let Some(n) = a.limit {
        q = q.limit(n);
    }
    Ok(q)
}

/// The batches of a TsFile query over `location`.
pub fn tsfile_batches(location: &str, a: TsArgs) -> Result<Batches> {
    let read = TsRead {
        query: ts_query(&a)?,
        batch_size: a.batch_size.max(1),
        mods: a.mods,
        // A limit is met by stopping early: only a whole read is worth the threads.
        threads: if a.limit.is_some() {
            1
        } else {
            a.threads.max(1)
        },
    };
    let places = files(location, |name| name.ends_with(".tsfile"))?;
    Batches::new(places, Box::new(move |p| open_tsfile(&read, p)), a.limit)
}

/// The arguments of an RCFile scan.
pub struct RcArgs {
    pub schema: HiveSchema,
    pub serde: Serde,
    pub columns: Option<Vec<String>>,
    pub limit: Option<u64>,
    pub batch_size: usize,
    /// The unit of timestamp columns.
    pub unit: arrow_schema::TimeUnit,
}

/// [`open_rcfile_unlocated`], its errors (opening or reading) naming the file.
fn open_rcfile(a: &RcArgs, place: &Place) -> Result<(SchemaRef, FileBatches)> {
    let (schema, batches) = open_rcfile_unlocated(a, place).map_err(|e| e.in_file(place.name()))?;
    Ok((schema, located(batches, place.name())))
}

fn open_rcfile_unlocated(a: &RcArgs, place: &Place) -> Result<(SchemaRef, FileBatches)> {
    let columns = a.columns.as_deref();
    match place {
        Place::Local(path) => {
            let source = PlannedSource::new(FileSource::open(path)?);
            let mut b = RcFileArrowReader::builder(source, a.schema.clone(), a.serde.clone())
                .with_batch_size(a.batch_size)
                .with_timestamp_unit(a.unit);
            if let Some(c) = columns {
                b = b.with_columns(c)?;
            }
            let r = b.build()?;
            let schema = r.schema();
            let batches: FileBatches = Box::new(r.map(arrow_result));
            Ok((schema, batches))
        }
        Place::Remote { .. } => {
            let object = place.object()?;
            let mut b =
                RcFileRecordBatchStreamBuilder::new(object, a.schema.clone(), a.serde.clone())
                    .with_batch_size(a.batch_size)
                    .with_timestamp_unit(a.unit);
            if let Some(c) = columns {
                b = b.with_columns(c)?;
            }
            let stream = runtime().block_on(b.build())?;
            let schema = stream.schema();
            Ok((schema, blocking(stream)))
        }
    }
}

/// The batches of an RCFile scan over `location`.
pub fn rcfile_batches(location: &str, a: RcArgs) -> Result<Batches> {
    let places = files(location, |_| true)?;
    let limit = a.limit;
    Batches::new(places, Box::new(move |p| open_rcfile(&a, p)), limit)
}

/// The tables of the first TsFile at `location`, in the file's order (none: a tree-model
/// file).
pub fn tsfile_tables(location: &str) -> Result<Vec<String>> {
    let places = files(location, |name| name.ends_with(".tsfile"))?;
    let first = places
        .first()
        .ok_or_else(|| Error::invalid("no files to read"))?;
    let names = |md: &colfile::tsfile::FileMetadata| md.tables().map(String::from).collect();
    let read = || -> Result<Vec<String>> {
        match first {
            Place::Local(path) => {
                let reader = TsFileReader::open(FileSource::open(path)?)?;
                Ok(names(reader.metadata()))
            }
            Place::Remote { .. } => {
                let object = first.object()?;
                let b = runtime().block_on(TsFileRecordBatchStreamBuilder::new(object))?;
                Ok(names(b.metadata()))
            }
        }
    };
    read().map_err(|e| e.in_file(first.name()))
}
