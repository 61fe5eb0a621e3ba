//! # colfile
//!
//! Pure-Rust readers and writers for columnar file formats, byte-compatible with their
//! reference implementations:
//!
//! - [`rcfile`]: Hive RCFile (`RCF1` and legacy `SEQ6` headers), every Hadoop codec, the text
//!   `ColumnarSerDe` and binary `LazyBinaryColumnarSerDe` cell encodings for every Hive type,
//!   column projection and byte-range splits.
//! - [`tsfile`]: Apache TsFile v4 (TsFile 2.x), table and tree models.
//!
//! Shared layers: [`cursor`] (bounds-checked reading of bytes), [`compress`] (codecs and their framings),
//! [`source`] (byte-range inputs), [`sink`] (outputs that can be fsynced), [`Limits`] (caps
//! on what a file may ask for) and one [`Error`] type that says what went wrong and where.
//!
//! Nothing in this crate panics on the contents of a file: corrupt or hostile input gives an
//! [`Error`] naming the byte offset, row group and column.
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
pub mod json_text;
mod limits;
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
