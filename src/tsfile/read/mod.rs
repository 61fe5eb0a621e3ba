//! The query core: [`TsFileReader`] opens a file footer-first, and a [`Query`] runs over it
//! device by device, skipping what statistics rule out, returning [`DeviceBatch`]es.
//!
//! | file | owns |
//! | --- | --- |
//! | `reader` | [`TsFileReader`], [`QueryIter`], [`QueryStream`]: devices in order, offset, limit, batch size |
//! | `query` | [`Query`]: what a scan returns |
//! | `filter`, `filter_parse` | [`Filter`]: row predicates, their verdicts on statistics, their text form |
//! | `explain` | [`Explain`]: what a query read and what it skipped, and why |
//! | `metadata` | [`FileMetadata`]: the footer and the metadata index tree, walked on demand |
//! | `plan` | one device's scan plan and the verdicts that skip a whole device |
//! | `scan` | the aligned (table-model) device scan |
//! | `merge` | the non-aligned (tree-model) device scan, merging series by time |
//! | `rows` | rows kept by the time range and the filter; cutting a batch in two |
//! | `deletions` | the chunks, pages and points that IoTDB deletions (`.mods`) hide |
//! | `chunk_reader`, `pages` | a chunk's header and pages, read and decompressed |
//! | `points` | how many points a chunk's pages may decode to |
//! | `fetch_plan` | the bytes the next devices' scans read, for the async readers to fetch first and [`PlannedQuery`] to announce to a local file |
//!
//! It builds on [`format`](super::format) and [`encoding`](super::encoding) only; nothing
//! here knows the writer or the tools. `reader` drives `plan` and `scan`, `scan` uses
//! `merge`, and both use `plan`: there is no cycle.
//!
//! [`DeviceBatch`]: super::DeviceBatch

pub mod chunk_reader;
mod deletions;
pub mod explain;
#[cfg(feature = "async")]
pub(crate) mod fetch_plan;
pub mod filter;
pub mod filter_parse;
mod merge;
pub mod metadata;
pub mod pages;
pub(crate) mod plan;
pub(crate) mod points;
pub mod query;
pub mod reader;
pub(crate) mod rows;
mod scan;

pub use explain::Explain;
pub use filter::{CmpOp, Filter};
pub use metadata::{DeviceIndex, FileMetadata};
pub use query::Query;
pub use reader::{QueryIter, QueryStream, TsFileReader, TsFileReaderBuilder};
#[cfg(feature = "async")]
pub use fetch_plan::PlannedQuery;
