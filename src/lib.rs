//! # colfile
//!
//! Pure-Rust readers and writers for columnar file formats, byte-compatible with their
//! reference implementations:
//!
//! - [`rcfile`]: Hive RCFile (`RCF1` and legacy `SEQ6` headers), every Hadoop codec, the text
//!   `ColumnarSerDe` and binary `LazyBinaryColumnarSerDe` cell encodings for every Hive type,
//!   column projection and byte-range splits.
//! - [`tsfile`]: Apache TsFile v4 (TsFile 2.x) and v3 (IoTDB 0.12–1.3, read), table and tree
//!   models, and IoTDB's side files (`.mods` deletions, `.resource` time indexes).
//!
//! # Which API for what
//!
//! | you are writing | use | |
//! |---|---|---|
//! | a service that reads or writes records | the row APIs | RCFile: [`rcfile::RowReader`], [`rcfile::RowWriter`] (typed [`rcfile::Value`]s); TsFile: [`tsfile::TsFileReader`] (queries by table, columns, time range) and [`tsfile::TsFileWriter`] |
//! | analytics on columns | the Arrow readers and writers (feature `arrow`) | `colfile::arrow`: `RcFileArrowReader`, `RcFileArrowWriter`, `TsFileArrowReader`, `TsFileArrowWriter`, each `RecordBatch`es in or out |
//! | SQL over a directory of files | the `colfile-datafusion` crate | tables for DataFusion, and the `colfile-sql` command |
//! | shell work: inspect, convert, verify, repair | the `colfile` command (`colfile-cli` crate) | `colfile cat`, `colfile convert`, `colfile verify`, … |
//!
//! Every reader and writer is made the same way: `Type::builder(input, …)`, options named
//! `with_…`, then `.build()`. Readers take any [`source::ByteSource`] (a byte slice, a
//! `Vec<u8>`, a [`source::FileSource`], or your own range reader); writers take any
//! [`std::io::Write`] (no `Seek`), and [`sink::SyncWrite`] sinks can also be fsynced.
//! [`Limits`] caps what a file may ask for, and one [`Error`] type says what went wrong and
//! where ([`Location`]); its [`source()`](std::error::Error::source) is the underlying I/O
//! or codec error. Nothing in this crate panics on the contents of a file.
//!
//! # Examples
//!
//! An RCFile's typed rows: write a file in memory, then read two of its columns back.
//!
//! ```
//! use colfile::rcfile::{HadoopCodec, RowReader, RowWriter, Schema, Serde, Value};
//!
//! let schema: Schema = "id:bigint,name:string,tags:array<string>".parse()?;
//! let mut w = RowWriter::builder(Vec::new(), schema.clone(), Serde::binary())
//!     .with_codec(Some(HadoopCodec::Default))
//!     .build()?;
//! w.write(&[Value::BigInt(1), Value::string("ada"), Value::Array(vec![Value::string("x")])])?;
//! w.write(&[Value::BigInt(2), Value::Null, Value::Array(vec![])])?;
//! let (file, summary) = w.finish_into_inner()?;
//! assert_eq!(summary.rows, 2);
//!
//! // Only the projected columns are read and decompressed.
//! let mut rows = RowReader::builder(file.as_slice(), schema, Serde::binary())
//!     .with_columns(&["name", "id"])
//!     .build()?;
//! assert_eq!(rows.next_row()?, Some(&[Value::string("ada"), Value::BigInt(1)][..]));
//! assert_eq!(rows.next_row()?, Some(&[Value::Null, Value::BigInt(2)][..]));
//! assert_eq!(rows.next_row()?, None);
//! # Ok::<(), colfile::Error>(())
//! ```
//!
//! A TsFile table: write rows of two devices, then query one column over a time range.
//!
//! ```
//! use colfile::tsfile::{ColumnCategory, DataType, Query, TableColumn, TableSchema};
//! use colfile::tsfile::{TsFileReader, TsFileWriter, Value};
//!
//! let table = TableSchema::new("weather", vec![
//!     TableColumn::new("city", DataType::String, ColumnCategory::Tag),
//!     TableColumn::new("temp", DataType::Double, ColumnCategory::Field),
//! ]);
//! let mut w = TsFileWriter::builder(Vec::new()).with_table(table).build()?;
//! for (t, city, temp) in [(1, "oslo", -3.5), (2, "oslo", -4.0), (1, "rome", 14.0)] {
//!     w.write_row("weather", t, &[Value::string(city), Value::Double(temp)])?;
//! }
//! let (file, summary) = w.finish_into_inner()?;
//! assert_eq!(summary.rows, 3);
//!
//! let r = TsFileReader::builder(file).build()?;
//! let query = Query::all().table("weather").columns(["temp"]).time_range(2, i64::MAX);
//! let mut rows = 0;
//! for batch in r.query(&query)? {
//!     rows += batch?.len();
//! }
//! assert_eq!(rows, 1); // oslo at time 2
//! # Ok::<(), colfile::Error>(())
//! ```
//!
//! Arrow record batches from an RCFile on disk (feature `arrow`), with a `BufferPool`
//! that lets the readers of one job reuse each other's decode buffers.
//!
//! ```
//! # #[cfg(feature = "arrow")]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use colfile::arrow::{BufferPool, RcFileArrowReader};
//! use colfile::rcfile::{RowWriter, Schema, Serde, Value};
//! use colfile::source::FileSource;
//!
//! let path = std::env::temp_dir().join(format!("colfile-root-doc-{}.rc", std::process::id()));
//! let schema: Schema = "id:int,name:string".parse()?;
//! let mut w = RowWriter::builder(std::fs::File::create(&path)?, schema.clone(), Serde::text())
//!     .build()?;
//! for i in 0..1000 {
//!     w.write(&[Value::Int(i), Value::string(format!("n{i}"))])?;
//! }
//! w.finish_sync()?;
//!
//! let pool = BufferPool::new();
//! let reader = RcFileArrowReader::builder(FileSource::open(&path)?, schema, Serde::text())
//!     .with_columns(&["id"])?
//!     .with_batch_size(256)
//!     .with_buffer_pool(pool.clone())
//!     .build()?;
//! let mut rows = 0;
//! for batch in reader {
//!     let batch = batch?;
//!     assert!(batch.num_rows() <= 256);
//!     rows += batch.num_rows();
//! }
//! assert_eq!(rows, 1000);
//! # std::fs::remove_file(&path)?;
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "arrow"))]
//! # fn main() {}
//! ```
//!
//! # Cargo features
//!
//! | feature | default | what it adds |
//! |---|---|---|
//! | `deflate`, `snappy`, `lz4`, `zstd`, `bzip2`, `lzma2`, `lzo` | yes | one codec each; a file that needs a codec compiled out gets [`ErrorKind::CodecDisabled`] naming the feature |
//! | `arrow` | no | `colfile::arrow`: `RecordBatch` readers and writers for both formats, on the Arrow sub-crates DataFusion uses |
//! | `json` | no | JSON dumps and inputs (`rcfile::json`; with `unstable`, `tsfile::tools::{json, dump, meta_json, sketch}`), what the `colfile` command prints; turns on `serde_json`'s `arbitrary_precision` and `preserve_order` for your whole build |
//! | `unstable` | no | the building blocks under the readers and writers (RCFile's `hadoop`, `java_float`, `header`, `batch` modules, …) as public modules, for the command, the fuzz targets and the tests: no SemVer promise, they may change in any release |
//!
//! The shared layers: [`cursor`] (bounds-checked reading of bytes), [`compress`] (codecs and
//! their framings), [`source`] (byte-range inputs), [`sink`] (outputs that can be fsynced).
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]
// Library code never unwraps, indexes out of bounds or panics on its own: bad input is an
// Error. (Unit tests may unwrap and index.)
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

/// Declares module `$name` public with the `unstable` feature (marked so in the docs) and
/// crate-private without it: the building blocks that the command, the fuzz targets and the
/// tests use, with no SemVer promise.
macro_rules! unstable_mod {
    ($name:ident) => {
        #[cfg(feature = "unstable")]
        #[cfg_attr(docsrs, doc(cfg(feature = "unstable")))]
        pub mod $name;
        #[cfg(not(feature = "unstable"))]
        pub(crate) mod $name;
    };
}

#[cfg(feature = "arrow")]
pub mod arrow;
pub mod compress;
pub mod cursor;
mod error;
#[cfg(feature = "json")]
pub mod json_scan;
#[cfg(feature = "json")]
pub mod json_text;
mod limits;
mod parallel;
pub mod rcfile;
pub mod sink;
pub mod source;
pub mod tsfile;

pub use error::{Error, ErrorKind, Location, Result};
pub use limits::Limits;

/// The README's Rust examples, compiled by `cargo test` so they stay true.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

/// The old home of the on-disk structures, kept for one release: TsFile's are in
/// [`tsfile::format`], RCFile's Hadoop encodings in `rcfile::hadoop` and
/// `rcfile::java_float` (with the `unstable` feature, as `format::hadoop` and
/// `format::java_float` are), the byte cursor in [`cursor`].
///
/// ```
/// #![allow(deprecated)]
/// use colfile::format::tsfile::DataType;
/// use colfile::format::Cursor;
/// assert_eq!(DataType::Int64, colfile::tsfile::format::DataType::Int64);
/// assert_eq!(Cursor::new(&[7], 0).read_u8().unwrap(), 7);
/// ```
#[deprecated(
    since = "0.2.0",
    note = "use colfile::tsfile::format, colfile::rcfile::{hadoop, java_float} and colfile::cursor"
)]
pub mod format {
    pub use crate::cursor::{self, Cursor};
    #[cfg(feature = "unstable")]
    pub use crate::rcfile::{hadoop, java_float};
    pub use crate::tsfile::format as tsfile;
}
