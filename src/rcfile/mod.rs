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
pub use reader::{Reader, ReaderBuilder};
pub use rowgroup::{ColumnData, ColumnLayout, RowGroup};
pub use rows::{RowReader, RowWriter};
pub use writer::{WriteSummary, Writer, WriterBuilder};
