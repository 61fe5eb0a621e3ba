//! Hive RCFile: [`RcFileReader`] (row groups, with projection and byte-range splits) and
//! [`RcFileWriter`], typed rows on top of them ([`RowReader`], [`RowWriter`]), the Hive type
//! and value model ([`Schema`], [`HiveType`], [`Value`]) and the two cell encodings
//! ([`Serde`]). Everything a program needs next to the reader and writer is re-exported here.
//!
//! The building blocks under them, the Hadoop encodings (`hadoop`: VInt/VLong and `Text`;
//! `java_float`: Java's float text), the header's parser and constants (`header`) and the
//! columnar decode buffers (`batch`), are public modules only with the `unstable` feature:
//! the `colfile` command, the fuzz targets and the tests use them, and they may change in
//! any release.
//!
//! See the crate README and `../shared/spec/rcfile.md` for the byte layout.

#[cfg(feature = "json")]
pub mod json;
pub mod schema;
pub mod serde;
pub mod value;

pub use schema::{Field, HiveType, Schema};
pub use serde::Serde;
pub use value::{Date, Decimal, Timestamp, Value};
unstable_mod!(batch);
unstable_mod!(hadoop);
unstable_mod!(header);
unstable_mod!(java_float);
pub(crate) mod encoded;
mod lengths;
pub mod reader;
mod rowgroup;
pub mod rows;
pub mod writer;

pub use batch::{BatchValues, ColumnBatch};
pub use encoded::EncodedRows;
pub use header::{Header, HeaderVersion};
pub use reader::{RcFileReader, RcFileReaderBuilder};
pub use rowgroup::{ColumnData, ColumnLayout, RowGroup};
pub use rows::{RowReader, RowReaderBuilder, RowWriter, RowWriterBuilder};
pub use writer::{RcFileWriter, RcFileWriterBuilder, WriteSummary};

/// The codec a writer compresses with ([`RcFileWriterBuilder::with_codec`]) and a
/// [`Header`] names.
pub use crate::compress::HadoopCodec;

/// The old name of [`RcFileReader`], kept for one release. The four old names still work:
///
/// ```
/// #![allow(deprecated)]
/// use colfile::rcfile::{Reader, ReaderBuilder, Writer, WriterBuilder};
/// let b: WriterBuilder<Vec<u8>> = Writer::builder(Vec::new(), 1);
/// let mut w = b.build()?;
/// w.write_row(&[b"x"])?;
/// let (file, _) = w.finish_into_inner()?;
/// let r: Reader<&[u8]> = ReaderBuilder::new(file.as_slice()).build()?;
/// assert_eq!(r.header().column_count, 1);
/// # Ok::<(), colfile::Error>(())
/// ```
#[deprecated(since = "0.2.0", note = "renamed to RcFileReader")]
pub type Reader<S> = RcFileReader<S>;
/// The old name of [`RcFileReaderBuilder`], kept for one release.
#[deprecated(since = "0.2.0", note = "renamed to RcFileReaderBuilder")]
pub type ReaderBuilder<S> = RcFileReaderBuilder<S>;
/// The old name of [`RcFileWriter`], kept for one release.
#[deprecated(since = "0.2.0", note = "renamed to RcFileWriter")]
pub type Writer<W> = RcFileWriter<W>;
/// The old name of [`RcFileWriterBuilder`], kept for one release.
#[deprecated(since = "0.2.0", note = "renamed to RcFileWriterBuilder")]
pub type WriterBuilder<W> = RcFileWriterBuilder<W>;
