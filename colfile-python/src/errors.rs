//! colfile errors as Python exceptions: each [`ErrorKind`] maps to a class of
//! `colfile.errors` (all subclasses of `ColfileError`, and of the built-in exception a
//! Python user would catch: `ValueError`, `OSError`, `NotImplementedError`), and the
//! error's location (file, offset, row group, column, row, series, chunk, page, section)
//! becomes attributes of the exception.

use colfile::{Error, ErrorKind};
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;

/// The `colfile.errors` class for a kind of error.
fn class_of(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Io(_) | ErrorKind::Fetch { .. } => "ColfileIOError",
        ErrorKind::Corrupt { .. }
        | ErrorKind::Truncated { .. }
        | ErrorKind::Codec { .. }
        | ErrorKind::UnknownCodec(_) => "CorruptFileError",
        ErrorKind::LimitExceeded { .. } => "LimitExceededError",
        ErrorKind::CodecDisabled { .. } | ErrorKind::Unsupported(_) => "UnsupportedError",
        ErrorKind::Schema(_) => "SchemaError",
        ErrorKind::InvalidArgument(_) => "InvalidArgumentError",
        _ => "ColfileError",
    }
}

/// A short name of the kind, the exception's `kind` attribute.
fn kind_name(kind: &ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Io(_) => "io",
        ErrorKind::Fetch { .. } => "fetch",
        ErrorKind::Corrupt { .. } => "corrupt",
        ErrorKind::Truncated { .. } => "truncated",
        ErrorKind::Codec { .. } => "codec",
        ErrorKind::UnknownCodec(_) => "unknown_codec",
        ErrorKind::LimitExceeded { .. } => "limit_exceeded",
        ErrorKind::CodecDisabled { .. } => "codec_disabled",
        ErrorKind::Unsupported(_) => "unsupported",
        ErrorKind::Schema(_) => "schema",
        ErrorKind::InvalidArgument(_) => "invalid_argument",
        _ => "other",
    }
}

/// `e` as an instance of its `colfile.errors` class, located.
pub fn to_py(py: Python<'_>, e: Error) -> PyErr {
    match located(py, &e) {
        Ok(err) => err,
        // The errors module itself failed to load: still say what went wrong.
        Err(_) => PyRuntimeError::new_err(e.to_string()),
    }
}

fn located(py: Python<'_>, e: &Error) -> PyResult<PyErr> {
    let module = py.import("colfile.errors")?;
    let class = module.getattr(class_of(e.kind()))?;
    let errno = match e.kind() {
        ErrorKind::Io(io) => io.raw_os_error(),
        _ => None,
    };
    let exc = class.call1((e.to_string(), errno))?;
    let loc = e.location();
    exc.setattr("kind", kind_name(e.kind()))?;
    exc.setattr("file", loc.file.as_ref().map(|p| p.display().to_string()))?;
    exc.setattr("offset", loc.offset)?;
    exc.setattr("row_group", loc.row_group)?;
    exc.setattr("column", loc.column)?;
    exc.setattr("row", loc.row)?;
    exc.setattr("section", loc.section)?;
    exc.setattr("series", loc.series.clone())?;
    exc.setattr("chunk", loc.chunk)?;
    exc.setattr("page", loc.page)?;
    let cause = std::error::Error::source(e).map(|c| c.to_string());
    exc.setattr("cause", cause)?;
    Ok(PyErr::from_value(exc))
}

/// Converts colfile results inside a Python call.
pub trait IntoPy<T> {
    /// The value, or the error as its Python exception.
    fn py_err(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> IntoPy<T> for colfile::Result<T> {
    fn py_err(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|e| to_py(py, e))
    }
}
