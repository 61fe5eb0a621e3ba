//! The crate's one error type: what went wrong ([`ErrorKind`]) and where ([`Location`]).
//!
//! Every failure on bytes from a file is a [`ErrorKind::Corrupt`], [`ErrorKind::Truncated`] or
//! [`ErrorKind::LimitExceeded`] with the byte offset and, where known, the row group, column and
//! row it happened in. Nothing in this crate panics on file contents.

use std::fmt;

/// Result alias used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong. Matched on by callers and tests; new variants may be added.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An I/O error from the underlying source or sink.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The bytes do not follow the format; the message says which rule was broken.
    #[error("corrupt {format} data: {message}")]
    Corrupt {
        /// Which format was being read (`"rcfile"`, `"tsfile"`, a codec name, …).
        format: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The data ends before a structure that it declares.
    #[error("truncated {what}: needed {needed} bytes, {available} available")]
    Truncated {
        /// The structure being read.
        what: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes that remain.
        available: u64,
    },
    /// A length or count read from the file is above a configured [`crate::Limits`] value.
    #[error("{what} is {requested}, above the limit of {limit}")]
    LimitExceeded {
        /// Which limit.
        what: &'static str,
        /// The value the file asks for.
        requested: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The file names a codec that this crate does not know.
    #[error("unknown compression codec {0:?}")]
    UnknownCodec(String),
    /// The codec is known but its cargo feature was not compiled in.
    #[error("codec {codec} needs the cargo feature `{feature}`, which is disabled")]
    CodecDisabled {
        /// The codec.
        codec: &'static str,
        /// The cargo feature that provides it.
        feature: &'static str,
    },
    /// A codec backend rejected the data.
    #[error("{codec} codec error: {message}")]
    Codec {
        /// The codec.
        codec: &'static str,
        /// The backend's message.
        message: String,
    },
    /// A feature of the format that this crate does not implement.
    #[error("unsupported: {0}")]
    Unsupported(String),
    /// A schema string or schema/value mismatch.
    #[error("schema error: {0}")]
    Schema(String),
    /// A caller-supplied argument or value is invalid (nothing was read from a file).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// Fetching a byte range from a remote object failed, after the store's own retries
    /// (the store's error is the [`source()`](std::error::Error::source)).
    #[error("fetching bytes {start}..{end} of {object} failed: {message}")]
    Fetch {
        /// The object (its URL or path).
        object: String,
        /// First byte asked for.
        start: u64,
        /// One past the last byte asked for.
        end: u64,
        /// What the store said.
        message: String,
    },
    /// A read reached bytes that were not fetched ([`crate::source::FetchedSource`]). The
    /// async readers fetch them and read again; reaching a caller means a reader asked for
    /// bytes its plan did not name.
    #[error("bytes {start}..{end} were not fetched")]
    Unfetched {
        /// First byte not held.
        start: u64,
        /// One past the last byte of the missing run (at most the read's end).
        end: u64,
    },
}

/// Where an error happened. Fields that do not apply are `None`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Location {
    /// The file, when the error comes from reading several (a directory, a dataset).
    pub file: Option<std::path::PathBuf>,
    /// Absolute byte offset in the file (or in the decompressed buffer named by `section`).
    pub offset: Option<u64>,
    /// Row group (RCFile) index, counted from 0 in the file.
    pub row_group: Option<u64>,
    /// Column index, counted from 0.
    pub column: Option<usize>,
    /// Row within the row group.
    pub row: Option<u64>,
    /// A named part of the file, e.g. `"key section"`, `"header"`.
    pub section: Option<&'static str>,
    /// TsFile: the series (`device.measurement`) being read.
    pub series: Option<String>,
    /// TsFile: byte offset of the chunk header (the chunk's marker byte).
    pub chunk: Option<u64>,
    /// TsFile: page index within its chunk, counted from 0.
    pub page: Option<u32>,
}

impl Location {
    fn is_empty(&self) -> bool {
        *self == Location::default()
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(p) = &self.file {
            parts.push(format!("file {}", p.display()));
        }
        if let Some(s) = self.section {
            parts.push(format!("in {s}"));
        }
        if let Some(o) = self.offset {
            parts.push(format!("at byte {o}"));
        }
        if let Some(g) = self.row_group {
            parts.push(format!("row group {g}"));
        }
        if let Some(c) = self.column {
            parts.push(format!("column {c}"));
        }
        if let Some(r) = self.row {
            parts.push(format!("row {r}"));
        }
        if let Some(s) = &self.series {
            parts.push(format!("series {s}"));
        }
        if let Some(c) = self.chunk {
            parts.push(format!("chunk at byte {c}"));
        }
        if let Some(p) = self.page {
            parts.push(format!("page {p}"));
        }
        f.write_str(&parts.join(", "))
    }
}

/// The error type of every fallible operation in this crate.
///
/// ```
/// use colfile::{Error, ErrorKind};
/// let e = Error::corrupt("rcfile", "bad magic").at_offset(0);
/// assert!(matches!(e.kind(), ErrorKind::Corrupt { .. }));
/// assert_eq!(e.location().offset, Some(0));
/// assert_eq!(e.to_string(), "corrupt rcfile data: bad magic (at byte 0)");
/// ```
///
/// [`source()`](std::error::Error::source) reaches the cause: the underlying
/// [`std::io::Error`] of an I/O failure, or the codec library's own error when a compressed
/// stream is rejected ([`ErrorKind::Codec`]), so callers can ask it for what it was:
///
/// ```
/// use std::error::Error as _;
/// let e = colfile::source::FileSource::open("/no/such/file").unwrap_err();
/// let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).unwrap();
/// assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
/// ```
#[derive(Debug)]
pub struct Error {
    inner: Box<Inner>,
}

/// A cause carried next to the kind (the codec library's error, an I/O error met while
/// reading a structure that is reported as truncated, …).
type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

#[derive(Debug)]
struct Inner {
    kind: ErrorKind,
    location: Location,
    /// What caused it, when that is another error than the kind's own [`ErrorKind::Io`].
    cause: Option<Cause>,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.inner.kind)?;
        if !self.inner.location.is_empty() {
            write!(f, " ({})", self.inner.location)?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match (&self.inner.kind, &self.inner.cause) {
            (ErrorKind::Io(e), _) => Some(e),
            (_, Some(cause)) => Some(cause.as_ref()),
            (_, None) => None,
        }
    }
}

impl Error {
    /// An error of `kind` with no location yet.
    pub fn new(kind: ErrorKind) -> Self {
        Error {
            inner: Box::new(Inner {
                kind,
                location: Location::default(),
                cause: None,
            }),
        }
    }
    /// An error of `kind` caused by `cause`, which
    /// [`source()`](std::error::Error::source) returns (an [`ErrorKind::Io`] returns its own
    /// I/O error instead).
    ///
    /// ```
    /// use std::error::Error as _;
    /// use colfile::{Error, ErrorKind};
    /// let cause = std::io::Error::new(std::io::ErrorKind::Other, "disk on fire");
    /// let e = Error::with_source(ErrorKind::Unsupported("reading".into()), cause);
    /// let io = e.source().and_then(|s| s.downcast_ref::<std::io::Error>()).unwrap();
    /// assert_eq!(io.to_string(), "disk on fire");
    /// ```
    pub fn with_source(
        kind: ErrorKind,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync + 'static>>,
    ) -> Self {
        let mut e = Self::new(kind);
        e.inner.cause = Some(cause.into());
        e
    }
    /// Shorthand for [`ErrorKind::Codec`] caused by the codec library's error `cause`: the
    /// message is `context` followed by the cause's text, and
    /// [`source()`](std::error::Error::source) returns the cause.
    pub fn codec<E>(codec: &'static str, context: &str, cause: E) -> Self
    where
        E: std::error::Error + Send + Sync + 'static,
    {
        let message = format!("{context}{cause}");
        Self::with_source(ErrorKind::Codec { codec, message }, cause)
    }
    /// Shorthand for [`ErrorKind::Corrupt`].
    pub fn corrupt(format: &'static str, message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Corrupt {
            format,
            message: message.into(),
        })
    }
    /// Shorthand for [`ErrorKind::Truncated`].
    pub fn truncated(what: &'static str, needed: u64, available: u64) -> Self {
        Self::new(ErrorKind::Truncated {
            what,
            needed,
            available,
        })
    }
    /// Shorthand for [`ErrorKind::LimitExceeded`].
    pub fn limit(what: &'static str, requested: u64, limit: u64) -> Self {
        Self::new(ErrorKind::LimitExceeded {
            what,
            requested,
            limit,
        })
    }
    /// Shorthand for [`ErrorKind::InvalidArgument`].
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::InvalidArgument(message.into()))
    }
    /// Shorthand for [`ErrorKind::Schema`].
    pub fn schema(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Schema(message.into()))
    }
    /// Shorthand for [`ErrorKind::Unsupported`].
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorKind::Unsupported(message.into()))
    }
    /// What went wrong.
    pub fn kind(&self) -> &ErrorKind {
        &self.inner.kind
    }
    /// Where it went wrong.
    pub fn location(&self) -> &Location {
        &self.inner.location
    }
    /// Sets the byte offset unless one is already set (the innermost offset wins).
    pub fn at_offset(mut self, offset: u64) -> Self {
        self.inner.location.offset.get_or_insert(offset);
        self
    }
    /// Sets the row group unless already set.
    pub fn in_row_group(mut self, index: u64) -> Self {
        self.inner.location.row_group.get_or_insert(index);
        self
    }
    /// Sets the column unless already set.
    pub fn in_column(mut self, index: usize) -> Self {
        self.inner.location.column.get_or_insert(index);
        self
    }
    /// Sets the row unless already set.
    pub fn at_row(mut self, row: u64) -> Self {
        self.inner.location.row.get_or_insert(row);
        self
    }
    /// Sets the TsFile series (`device.measurement`) unless already set.
    pub fn in_series(mut self, series: impl FnOnce() -> String) -> Self {
        if self.inner.location.series.is_none() {
            self.inner.location.series = Some(series());
        }
        self
    }
    /// Sets the file unless already set.
    ///
    /// ```
    /// let e = colfile::Error::corrupt("tsfile", "bad magic").at_offset(0).in_file("a.tsfile");
    /// assert_eq!(e.location().file.as_deref(), Some(std::path::Path::new("a.tsfile")));
    /// assert!(e.to_string().contains("file a.tsfile, at byte 0"));
    /// ```
    pub fn in_file(mut self, path: impl AsRef<std::path::Path>) -> Self {
        let f = &mut self.inner.location.file;
        if f.is_none() {
            *f = Some(path.as_ref().to_path_buf());
        }
        self
    }
    /// Sets the TsFile chunk (offset of its header) unless already set.
    pub fn in_chunk(mut self, header_offset: u64) -> Self {
        self.inner.location.chunk.get_or_insert(header_offset);
        self
    }
    /// Sets the TsFile page index unless already set.
    pub fn in_page(mut self, index: u32) -> Self {
        self.inner.location.page.get_or_insert(index);
        self
    }
    /// Re-bases an offset counted from the start of a part of a buffer to the buffer's
    /// start, `base` being where the part begins: adds `base` to the offset, or sets it to
    /// `base` when there is none.
    pub(crate) fn within(mut self, base: u64) -> Self {
        let o = &mut self.inner.location.offset;
        *o = Some(o.map_or(base, |o| o.saturating_add(base)));
        self
    }
    /// Sets the section name unless already set.
    pub fn in_section(mut self, section: &'static str) -> Self {
        self.inner.location.section.get_or_insert(section);
        self
    }
}

impl From<ErrorKind> for Error {
    fn from(kind: ErrorKind) -> Self {
        Error::new(kind)
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Error::new(ErrorKind::Io(e))
    }
}

impl From<Error> for std::io::Error {
    fn from(e: Error) -> Self {
        let kind = match e.kind() {
            ErrorKind::Io(io) => io.kind(),
            ErrorKind::Unsupported(_) | ErrorKind::CodecDisabled { .. } => {
                std::io::ErrorKind::Unsupported
            }
            ErrorKind::InvalidArgument(_) | ErrorKind::Schema(_) => {
                std::io::ErrorKind::InvalidInput
            }
            ErrorKind::Truncated { .. } => std::io::ErrorKind::UnexpectedEof,
            ErrorKind::Fetch { .. } => std::io::ErrorKind::Other,
            _ => std::io::ErrorKind::InvalidData,
        };
        std::io::Error::new(kind, e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::error::Error as _;

    #[test]
    fn source_reaches_the_io_error() {
        let e = crate::source::FileSource::open("/no/such/colfile/file").unwrap_err();
        let io = e.source().unwrap().downcast_ref::<std::io::Error>();
        assert_eq!(io.unwrap().kind(), std::io::ErrorKind::NotFound);

        // A file that shrank under the reader: Truncated, caused by the EOF the OS reported.
        use crate::source::ByteSource;
        let path = std::env::temp_dir().join(format!("colfile-err-src-{}", std::process::id()));
        std::fs::write(&path, [1u8; 64]).unwrap();
        let source = crate::source::FileSource::open(&path).unwrap();
        std::fs::write(&path, [1u8; 8]).unwrap();
        let e = source.read_exact_at(0, &mut [0; 32]).unwrap_err();
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(e.kind(), ErrorKind::Truncated { .. }), "{e}");
        let io = e.source().unwrap().downcast_ref::<std::io::Error>();
        assert_eq!(io.unwrap().kind(), std::io::ErrorKind::UnexpectedEof);
    }

    #[test]
    fn a_value_that_does_not_fit_its_column_keeps_the_encoders_error() {
        use crate::rcfile::{RowWriter, Serde, Value};
        let schema = "id:int".parse().unwrap();
        let mut w = RowWriter::builder(Vec::new(), schema, Serde::binary())
            .build()
            .unwrap();
        let e = w.write(&[Value::string("x")]).unwrap_err();
        assert!(matches!(e.kind(), ErrorKind::InvalidArgument(_)), "{e}");
        let cause = e.source().unwrap().downcast_ref::<Error>().unwrap();
        assert!(e.to_string().contains(&cause.to_string()), "{e}");
    }

    #[test]
    fn an_error_without_a_cause_has_no_source() {
        assert!(Error::corrupt("rcfile", "bad").source().is_none());
    }

    #[cfg(feature = "deflate")]
    #[test]
    fn source_reaches_the_codec_error_of_a_corrupt_stream() {
        let mut codec = crate::compress::HadoopCodec::Default.codec().unwrap();
        // A zlib header, then a block of the reserved type 3.
        let mut out = Vec::new();
        let e = codec.decompress(&[0x78, 0x9c, 0xff, 0xff, 0xff], &mut out, 10);
        let e = e.unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Codec {
                    codec: "deflate",
                    ..
                }
            ),
            "{e}"
        );
        let cause = e.source().unwrap();
        assert!(cause.downcast_ref::<flate2::DecompressError>().is_some());
    }

    #[cfg(feature = "snappy")]
    #[test]
    fn source_reaches_snappys_error() {
        use crate::compress::{new_codec, Algorithm, Framing};
        let mut codec = new_codec(Algorithm::Snappy, Framing::Raw, None).unwrap();
        // Declares 10 bytes, then a copy from before the start.
        let e = codec.decompress(&[10, 0x01, 0x05], &mut Vec::new(), 10);
        let e = e.unwrap_err();
        let cause = e.source().unwrap();
        assert!(cause.downcast_ref::<snap::Error>().is_some(), "{e}");
    }
}
