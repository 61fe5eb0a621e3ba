//! Hive RCFile: header ([`header`]), row groups and their key sections, streaming reader with
//! projection and splits, writer, the Hive type and value model, and the two cell encodings
//! ([`serde`]).
//!
//! See the crate README and `../shared/spec/rcfile.md` for the byte layout.

pub mod json;
pub mod schema;
pub mod serde;
pub mod value;

pub use schema::{Field, HiveType, Schema};
pub use serde::Serde;
pub use value::{Date, Decimal, Timestamp, Value};
pub mod batch;
pub mod header;
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
