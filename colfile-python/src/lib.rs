//! `colfile._colfile`, the native half of the `colfile` Python package: Hive RCFile and
//! Apache TsFile read into Arrow record batches and written from them by the colfile crate,
//! with the GIL released while bytes are decoded or encoded. The Python half
//! (`python/colfile`) gives the public functions their signatures and documentation.
#![forbid(unsafe_code)]

use std::collections::HashMap;
use std::path::PathBuf;

use arrow_array::ffi_stream::ArrowArrayStreamReader;
use arrow_pyarrow::PyArrowType;
use arrow_schema::TimeUnit;
use colfile::rcfile::Serde;
use pyo3::prelude::*;

mod errors;
mod location;
mod parallel;
mod read;
mod write;

use errors::IntoPy;
use read::{Batches, RcArgs, TsArgs};

/// The serde `name` (`binary`, `text`, or a Hive class name) with its Hive serde properties
/// (text) or timestamp zone and calendar (binary).
fn serde_of(
    name: &str,
    properties: Option<HashMap<String, String>>,
    time_zone: Option<&str>,
    calendar: Option<&str>,
) -> colfile::Result<Serde> {
    let mut props: Vec<(String, String)> = properties.unwrap_or_default().into_iter().collect();
    props.sort();
    let name = match name.to_ascii_lowercase().as_str() {
        short @ ("binary" | "text") => short.to_string(),
        _ => name.to_string(),
    };
    Serde::from_options(&name, &props, time_zone, calendar)
}

/// The batches of a TsFile query over a file, a directory of `.tsfile` files or a URL.
#[pyfunction]
#[pyo3(signature = (location, table=None, columns=None, start=None, end=None, filter=None,
                    tags=Vec::new(), limit=None, batch_size=65536, mods=true, threads=1))]
#[allow(clippy::too_many_arguments)]
fn tsfile_batches(
    py: Python<'_>,
    location: String,
    table: Option<String>,
    columns: Option<Vec<String>>,
    start: Option<i64>,
    end: Option<i64>,
    filter: Option<String>,
    tags: Vec<(String, String)>,
    limit: Option<u64>,
    batch_size: usize,
    mods: bool,
    threads: usize,
) -> PyResult<Batches> {
    let args = TsArgs {
        table,
        columns,
        start,
        end,
        filter,
        tags,
        limit,
        batch_size,
        mods,
        threads,
    };
    py.detach(|| read::tsfile_batches(&location, args))
        .py_err(py)
}

/// The batches of an RCFile scan over a file, a directory or a URL.
#[pyfunction]
#[pyo3(signature = (location, schema, serde="binary", columns=None, limit=None, batch_size=65536,
                    timestamp_unit="ns", serde_properties=None, time_zone=None, calendar=None))]
#[allow(clippy::too_many_arguments)]
fn rcfile_batches(
    py: Python<'_>,
    location: String,
    schema: &str,
    serde: &str,
    columns: Option<Vec<String>>,
    limit: Option<u64>,
    batch_size: usize,
    timestamp_unit: &str,
    serde_properties: Option<HashMap<String, String>>,
    time_zone: Option<&str>,
    calendar: Option<&str>,
) -> PyResult<Batches> {
    let unit = match timestamp_unit {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        other => {
            let msg = format!("timestamp_unit {other:?}: s, ms, us or ns");
            return Err(colfile::Error::invalid(msg)).py_err(py);
        }
    };
    let schema = schema.parse().py_err(py)?;
    let serde = serde_of(serde, serde_properties, time_zone, calendar).py_err(py)?;
    let args = RcArgs {
        schema,
        serde,
        columns,
        limit,
        batch_size: batch_size.max(1),
        unit,
    };
    py.detach(|| read::rcfile_batches(&location, args))
        .py_err(py)
}

/// Writes an Arrow stream into a new TsFile; returns what was written.
#[pyfunction]
#[pyo3(signature = (path, data, table=None, tags=Vec::new(), time_column="time",
                    encodings=HashMap::new(), compression=None, aligned=false, threads=1))]
#[allow(clippy::too_many_arguments)]
fn write_tsfile(
    py: Python<'_>,
    path: PathBuf,
    data: PyArrowType<ArrowArrayStreamReader>,
    table: Option<String>,
    tags: Vec<String>,
    time_column: &str,
    encodings: HashMap<String, String>,
    compression: Option<String>,
    aligned: bool,
    threads: usize,
) -> PyResult<HashMap<&'static str, u64>> {
    let w = write::TsWrite {
        table,
        tags,
        time_column: time_column.to_string(),
        encodings: encodings
            .into_iter()
            .map(|(k, v)| (k.to_lowercase(), v))
            .collect(),
        compression,
        aligned,
        threads: threads.max(1),
    };
    let summary = py.detach(|| write::write_tsfile(&path, data.0, w));
    summary.map(|s| s.into_iter().collect()).py_err(py)
}

/// Writes an Arrow stream into a new RCFile; returns what was written.
#[pyfunction]
#[pyo3(signature = (path, data, schema=None, serde="binary", codec=None, serde_properties=None,
                    time_zone=None, calendar=None, threads=1))]
#[allow(clippy::too_many_arguments)]
fn write_rcfile(
    py: Python<'_>,
    path: PathBuf,
    data: PyArrowType<ArrowArrayStreamReader>,
    schema: Option<&str>,
    serde: &str,
    codec: Option<String>,
    serde_properties: Option<HashMap<String, String>>,
    time_zone: Option<&str>,
    calendar: Option<&str>,
    threads: usize,
) -> PyResult<HashMap<&'static str, u64>> {
    let w = write::RcWrite {
        schema: schema.map(str::parse).transpose().py_err(py)?,
        serde: serde_of(serde, serde_properties, time_zone, calendar).py_err(py)?,
        codec,
        threads: threads.max(1),
    };
    let summary = py.detach(|| write::write_rcfile(&path, data.0, w));
    summary.map(|s| s.into_iter().collect()).py_err(py)
}

/// The tables of a TsFile (of the first file of a directory), in the file's order.
#[pyfunction]
fn tsfile_tables(py: Python<'_>, location: String) -> PyResult<Vec<String>> {
    py.detach(|| read::tsfile_tables(&location)).py_err(py)
}

#[pymodule]
fn _colfile(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Batches>()?;
    m.add_function(wrap_pyfunction!(tsfile_batches, m)?)?;
    m.add_function(wrap_pyfunction!(rcfile_batches, m)?)?;
    m.add_function(wrap_pyfunction!(tsfile_tables, m)?)?;
    m.add_function(wrap_pyfunction!(write_tsfile, m)?)?;
    m.add_function(wrap_pyfunction!(write_rcfile, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
