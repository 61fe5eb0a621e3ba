//! Arrow `RecordBatch` readers and writers for both formats (feature `arrow`).
//!
//! This module owns the mapping between each format's types and Arrow's, and the readers
//! and writers that move whole columns across it. It is built on the crate's own columnar
//! paths ([`crate::rcfile::ColumnBatch`], [`crate::tsfile::DeviceBatch`]): a primitive or string
//! column's decoded vectors become the Arrow array's buffers, without a copy or a
//! per-value allocation (the RCFile reader takes them back for the next row group once the
//! caller has dropped the batch).
//!
//! - RCFile: [`RcFileArrowReader`] (projection, byte-range split, batch size) and
//!   [`RcFileArrowWriter`]; types from a Hive schema ([`hive_schema_to_arrow`],
//!   [`arrow_schema_to_hive`]).
//! - TsFile: [`TsFileArrowReader`] (table or tree devices, projection, time range, tag and
//!   value filters pushed down to the index and statistics, batch size) and
//!   [`TsFileArrowWriter`]; types from a table schema ([`tsfile_table_to_arrow`]).
//!
//! Readers implement [`arrow_array::RecordBatchReader`]: their items are
//! `Result<RecordBatch, ArrowError>`, where a colfile error arrives as
//! [`arrow_schema::ArrowError::ExternalError`] holding the
//! [`crate::Error`] (downcast it to read the location).
//!
//! ```no_run
//! use std::sync::Arc;
//! use colfile::arrow::{RcFileArrowReader, TsFileArrowReader};
//! use colfile::rcfile::Serde;
//! use colfile::source::FileSource;
//! use colfile::tsfile::{Query, TsFileReader};
//!
//! fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // RCFile: schema and serde from the table definition; projection, split, batch size.
//!     let rc = RcFileArrowReader::builder(FileSource::open("t.rc")?, "id:bigint,tags:array<string>".parse()?, Serde::binary())
//!         .with_columns(&["id"])?
//!         .with_split(0..64 << 20)
//!         .with_batch_size(8192)
//!         .build()?;
//!     for batch in rc {
//!         println!("{} rows", batch?.num_rows());
//!     }
//!     // TsFile: the query's table, columns, time range and tag filter are pushed down.
//!     let ts = Arc::new(TsFileReader::open(FileSource::open("weather.tsfile")?)?);
//!     let query = Query::all().table("weather").columns(["city", "temp"]).time_range(0, 1 << 40).tag_eq("city", "oslo");
//!     for batch in TsFileArrowReader::builder(ts).with_query(query).build()? {
//!         println!("{} rows", batch?.num_rows());
//!     }
//!     Ok(())
//! }
//! ```
//!
//! # Hive types
//!
//! | Hive | Arrow | notes |
//! |---|---|---|
//! | `boolean` | `Boolean` | |
//! | `tinyint`, `smallint`, `int`, `bigint` | `Int8`, `Int16`, `Int32`, `Int64` | |
//! | `float`, `double` | `Float32`, `Float64` | |
//! | `string`, `varchar(n)`, `char(n)` | `Utf8` | `char` keeps its padding; bytes that are not UTF-8 are an error (or replaced, see [`RcFileArrowReaderBuilder::with_lossy_utf8`]) |
//! | `binary` | `Binary` | |
//! | `date` | `Date32` | days since 1970-01-01 |
//! | `timestamp` | `Timestamp(Nanosecond, None)` | Hive timestamps are wall-clock time without a zone; outside 1677–2262 is an error |
//! | `decimal(p,s)` | `Decimal128(p, s)` | |
//! | `array<T>` | `List(T)` | item field `item` |
//! | `map<K,V>` | `Map(Struct(key: K not null, value: V))` | entries keep file order, duplicates included |
//! | `struct<a:T,...>` | `Struct(a: T, ...)` | |
//! | `uniontype<T0,...>` | `Union(Dense, [0: T0, ...])` | type id = Hive tag; a NULL union is a NULL in member 0 |
//!
//! Every field carries its Hive type string as field metadata under [`HIVE_TYPE_KEY`], so
//! `varchar(10)`, `char(3)` and `string` survive a round trip through Arrow; without it,
//! `Utf8` becomes `string`. Arrow types without a Hive equivalent (unsigned integers,
//! `Float16`, `Time`, durations, zoned timestamps other than UTC, …) are refused by
//! [`arrow_schema_to_hive`] with an error naming the field.
//!
//! # TsFile types
//!
//! | TsFile | Arrow | notes |
//! |---|---|---|
//! | the time column | `Timestamp(unit, Some("UTC"))` | unit from the reader's options, milliseconds by default (TsFile does not record it) |
//! | `BOOLEAN` | `Boolean` | |
//! | `INT32`, `INT64` | `Int32`, `Int64` | |
//! | `FLOAT`, `DOUBLE` | `Float32`, `Float64` | |
//! | `TEXT`, `STRING` | `Utf8` | not UTF-8: an error, or replaced (lossy option) |
//! | `BLOB`, `OBJECT` | `Binary` | |
//! | `DATE` | `Date32` | stored as `YYYYMMDD`; an impossible date is an error |
//! | `TIMESTAMP` | `Timestamp(unit, Some("UTC"))` | same unit as the time column |
//! | TAG columns | `Utf8` | nullable: a device may lack a tag |
//!
//! Table-model batches have the columns `time`, then the selected TAG and FIELD columns in
//! table order; tree-model batches have `device` (the full path), `time`, then the
//! measurements. Every field carries its TsFile data type and column category as field
//! metadata ([`TSFILE_TYPE_KEY`], [`TSFILE_CATEGORY_KEY`]).

#[cfg(feature = "async")]
mod batch_stream;
mod hive_arrays;
mod hive_rows;
mod hive_types;
mod hive_values;
mod pool;
mod rcfile_cells;
mod rcfile_reader;
mod rcfile_writer;
mod spare;
mod tsfile_reader;
mod tsfile_types;
mod tsfile_writer;

#[cfg(feature = "async")]
pub use batch_stream::BatchStream;
pub use hive_rows::{arrow_row_to_hive, hive_rows_to_arrow};
pub use hive_types::{
    arrow_schema_to_hive, hive_schema_to_arrow, hive_type_to_arrow, HIVE_TYPE_KEY,
};
#[allow(deprecated)]
pub use pool::release_parked_buffers;
pub use pool::{BufferPool, DEFAULT_POOL_BYTES};
pub use rcfile_reader::{RcFileArrowReader, RcFileArrowReaderBuilder};
#[cfg(feature = "async")]
pub use rcfile_reader::{RcFileRecordBatchStream, RcFileRecordBatchStreamBuilder};
pub use rcfile_writer::{RcFileArrowEncoder, RcFileArrowWriter, RcFileArrowWriterBuilder};
pub use tsfile_reader::{tree_batch_to_arrow, TsFileArrowReader, TsFileArrowReaderBuilder};
#[cfg(feature = "async")]
pub use tsfile_reader::{
    AsyncReadOptions, TsFileRecordBatchStream, TsFileRecordBatchStreamBuilder,
};
pub use tsfile_types::{
    arrow_schema_to_tsfile, tsfile_table_to_arrow, tsfile_time_field, TSFILE_CATEGORY_KEY,
    TSFILE_TYPE_KEY,
};
pub use tsfile_writer::{TsFileArrowWriter, TsFileArrowWriterBuilder};

use crate::Error;
use arrow_schema::ArrowError;

/// The batch size readers use unless told otherwise (rows per `RecordBatch`).
pub const DEFAULT_BATCH_SIZE: usize = 8192;

/// A colfile error as an Arrow error (kept whole inside `ExternalError`).
pub(crate) fn to_arrow(e: Error) -> ArrowError {
    ArrowError::ExternalError(Box::new(e))
}

/// An Arrow error as a colfile error: an `ExternalError` that holds a colfile error (as the
/// Arrow readers here return theirs) gives that error back, with its kind and location;
/// anything else is [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument).
///
/// ```
/// use arrow_schema::ArrowError;
/// let e = colfile::Error::corrupt("rcfile", "bad").at_offset(7);
/// let back = colfile::Error::from(ArrowError::ExternalError(Box::new(e)));
/// assert_eq!(back.location().offset, Some(7));
/// ```
impl From<ArrowError> for Error {
    fn from(e: ArrowError) -> Self {
        from_arrow(e)
    }
}

/// An [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) naming `cause`, which
/// [`source()`](std::error::Error::source) returns.
fn caused_by(cause: Box<dyn std::error::Error + Send + Sync>) -> Error {
    let kind = crate::ErrorKind::InvalidArgument(format!("arrow: {cause}"));
    Error::with_source(kind, cause)
}

/// An Arrow error met while building arrays or reading batches to write, as a colfile error.
/// An `ExternalError` that holds a colfile error gives that error back.
pub(crate) fn from_arrow(e: ArrowError) -> Error {
    match e {
        ArrowError::ExternalError(inner) => match inner.downcast::<Error>() {
            Ok(e) => *e,
            Err(other) => caused_by(other),
        },
        other => caused_by(Box::new(other)),
    }
}
