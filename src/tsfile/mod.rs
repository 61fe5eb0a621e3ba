//! Apache TsFile v4 (TsFile 2.x) and v3 (IoTDB 0.12–1.3, read only): readers and writers for
//! the table and tree models (`spec/tsfile.md`), and IoTDB's side files.
//!
//! Everything a user needs is re-exported here: [`TsFileReader`] runs a [`Query`] and returns
//! [`DeviceBatch`]es; [`TsFileWriter`] writes rows or batches under [`WriterOptions`]; the
//! schema types ([`TableSchema`], [`TableColumn`], [`MeasurementSchema`]), the values
//! ([`Value`], [`ValueRef`], [`Values`]), [`recover`](recover()) and [`verify`](verify()).
//!
//! The code lives in folders by job. Imports go one way, down this list: `encoding` builds on
//! `format`; `read` and `writer` on both, neither knowing the other; `tools` on all of them.
//!
//! | folder | owns | public |
//! | --- | --- | --- |
//! | [`format`](mod@format) | the data on disk (headers, statistics, index, schemas, footer) and decoded values | yes |
//! | `encoding` | value encodings, page payload layouts, page compression | with `unstable` |
//! | `read` | the query core: reader, query, filter, plans, device scans, chunk and page reading | with `unstable` |
//! | [`writer`] | the writer; `writer::index` writes the metadata section | yes (`index` with `unstable`) |
//! | `tools` | verify, recover, the layout scan and the JSON the `colfile` command prints | with `unstable` |
//!
//! The folders marked `unstable` are public only with the crate's `unstable` feature: they are
//! the building blocks of the `colfile` command, the tests and the fuzz targets, and may change
//! in any release. The old flat paths (`colfile::tsfile::reader`, `colfile::tsfile::column`,
//! …) still work, deprecated, until the next release:
//!
//! ```
//! #![allow(deprecated)]
//! use colfile::tsfile::column::Values;
//! use colfile::tsfile::reader::TsFileReader;
//! let _open = TsFileReader::<Vec<u8>>::open;
//! assert_eq!(Values::Int64(vec![1]), colfile::tsfile::Values::Int64(vec![1]));
//! ```

pub mod dataset;
pub mod format;
pub mod mods;
unstable_mod!(encoding);
unstable_mod!(read);
pub mod writer;
unstable_mod!(tools);

pub use dataset::{DataFile, Dataset, MergePriority};
/// Whether an encoding can encode a data type: what the writer accepts for a column (the
/// same function as `encoding::supports`, which is public only with `unstable`).
pub use encoding::supports as encoding_supports;
pub use format::schema::{MeasurementSchema, TableColumn, TableSchema};
pub use format::{
    BinaryValues, Column, ColumnCategory, ColumnCursor, Compression, DataType, DeviceBatch,
    DeviceId, Encoding, Statistics, Value, ValueRef, Values,
};
pub use mods::{DeletedRanges, Deletion, Modifications};
#[cfg(feature = "async")]
pub use read::PlannedQuery;
pub use read::{
    CmpOp, DeviceIndex, Explain, FileMetadata, Filter, Query, QueryIter, QueryStream, TsFileReader,
    TsFileReaderBuilder,
};
pub use tools::recover::{recover, recover_with, RecoverOptions, RecoverySummary};
pub use tools::tree_copy::{copy_tree, copy_tree_with, TreeCopyOptions, TreeCopySummary};
pub use tools::verify::{verify, Check, Problem, VerifyOptions, VerifyReport};
pub use writer::{
    default_encoding, Profile, TsFileWriter, TsFileWriterBuilder, WriteSummary, WriterOptions,
};

/// Declares the old flat module `$old` as a deprecated alias of `$new`, for one release.
macro_rules! moved {
    ($(#[$cfg:meta])* $old:ident => $new:path, $note:literal) => {
        #[doc = concat!("Moved: ", $note, ". This old path is kept for one release.")]
        #[deprecated(since = "0.2.0", note = $note)]
        $(#[$cfg])*
        pub mod $old {
            pub use $new::*;
        }
    };
}

moved!(batch => crate::tsfile::format::batch, "use colfile::tsfile::{DeviceBatch, Column, ColumnCursor}");
moved!(column => crate::tsfile::format::values, "use colfile::tsfile::{Values, BinaryValues}");
moved!(value => crate::tsfile::format::value, "use colfile::tsfile::{Value, ValueRef} (helpers: colfile::tsfile::format::value)");
moved!(reader => crate::tsfile::read::reader, "use colfile::tsfile::{TsFileReader, Query, QueryIter, QueryStream}");
moved!(query => crate::tsfile::read::query, "use colfile::tsfile::Query");
moved!(filter => crate::tsfile::read::filter, "use colfile::tsfile::{Filter, CmpOp}");
moved!(explain => crate::tsfile::read::explain, "use colfile::tsfile::Explain");
moved!(metadata => crate::tsfile::read::metadata, "use colfile::tsfile::FileMetadata");
moved!(chunk_reader => crate::tsfile::read::chunk_reader, "use colfile::tsfile::read::chunk_reader (feature `unstable`)");
moved!(pages => crate::tsfile::read::pages, "use colfile::tsfile::read::pages (feature `unstable`)");
moved!(compression => crate::tsfile::encoding::compression, "use colfile::tsfile::encoding::compression (feature `unstable`)");
moved!(page => crate::tsfile::encoding::page, "use colfile::tsfile::encoding::page (feature `unstable`)");
moved!(index_writer => crate::tsfile::writer::index, "use colfile::tsfile::writer::index (feature `unstable`)");
moved!(layout => crate::tsfile::tools::layout, "use colfile::tsfile::tools::layout (feature `unstable`)");
moved!(recompute => crate::tsfile::tools::recompute, "use colfile::tsfile::tools::recompute (feature `unstable`)");
moved!(#[cfg(feature = "json")] dump => crate::tsfile::tools::dump, "use colfile::tsfile::tools::dump (features `json`, `unstable`)");
moved!(#[cfg(feature = "json")] json => crate::tsfile::tools::json, "use colfile::tsfile::tools::json (features `json`, `unstable`)");
moved!(#[cfg(feature = "json")] meta_json => crate::tsfile::tools::meta_json, "use colfile::tsfile::tools::meta_json (features `json`, `unstable`)");
moved!(#[cfg(feature = "json")] sketch => crate::tsfile::tools::sketch, "use colfile::tsfile::tools::sketch (features `json`, `unstable`)");

// `recover` and `verify` were modules before they were re-exported here as functions. Their
// old module paths (`colfile::tsfile::verify::VerifyOptions`) stay, hidden but not deprecated:
// a deprecated module would warn on every `use colfile::tsfile::verify;`, which imports the
// function and the module of the same name together.

/// The items of [`recover`](recover()), under their old module path.
#[doc(hidden)]
pub mod recover {
    pub use crate::tsfile::tools::recover::{
        recover, recover_with, RecoverOptions, RecoverySummary,
    };
}

/// The items of [`verify`](verify()), under their old module path.
#[doc(hidden)]
pub mod verify {
    pub use crate::tsfile::tools::verify::{verify, Check, Problem, VerifyOptions, VerifyReport};
}
