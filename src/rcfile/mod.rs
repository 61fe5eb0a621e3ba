//! Hive RCFile: header ([`header`]), row groups and their key sections, streaming reader with
//! projection and splits, writer, the Hive type and value model, the two cell encodings
//! ([`serde`], a folder each), and the Hadoop encodings they are built from ([`hadoop`]:
//! VInt/VLong and `Text`; [`java_float`]: Java's float text).
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
pub mod batch;
pub mod hadoop;
pub mod header;
pub mod java_float;
mod lengths;
pub mod reader;
pub mod rowgroup;
pub mod rows;
pub mod writer;

pub use batch::{BatchValues, ColumnBatch};
pub use header::{Header, HeaderVersion};
pub use reader::{RcFileReader, RcFileReaderBuilder};
pub use rowgroup::{ColumnData, ColumnLayout, RowGroup};
pub use rows::{RowReader, RowReaderBuilder, RowWriter, RowWriterBuilder};
pub use writer::{RcFileWriter, RcFileWriterBuilder, WriteSummary};

/// The codec a writer compresses with ([`RcFileWriterBuilder::with_codec`]) and a
/// [`Header`] names.
pub use crate::compress::HadoopCodec;

/// The old name of [`RcFileReader`], kept for one release.
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
