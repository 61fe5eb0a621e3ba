//! Apache TsFile v4 (TsFile 2.x): readers and writers for the table and tree models
//! (`spec/tsfile.md`). The on-disk structures are in [`format`](mod@format); this module
//! owns the value encodings ([`encoding`]), the decoded value runs ([`column`](mod@column)), and — built on
//! them — page and chunk decoding, the reader and the writer.

pub mod batch;
pub mod chunk_reader;
pub mod column;
pub mod compression;
#[cfg(feature = "json")]
pub mod dump;
pub mod encoding;
pub mod explain;
pub mod filter;
pub mod filter_parse;
pub mod format;
pub mod index_writer;
#[cfg(feature = "json")]
pub mod json;
pub mod layout;
mod merge;
#[cfg(feature = "json")]
pub mod meta_json;
pub mod metadata;
pub mod page;
pub mod pages;
mod plan;
mod points;
pub mod query;
pub mod reader;
pub mod recompute;
pub mod recover;
mod rows;
mod scan;
#[cfg(feature = "json")]
pub mod sketch;
pub mod value;
pub mod verify;
pub mod writer;

pub use batch::{Column, ColumnCursor, DeviceBatch};
pub use column::{BinaryValues, Values};
pub use explain::Explain;
pub use filter::{CmpOp, Filter};
pub use reader::{Query, QueryIter, QueryStream, TsFileReader};
pub use recover::{recover, RecoverySummary};
pub use value::{Value, ValueRef};
pub use writer::{TsFileWriter, WriteSummary, WriterOptions};
