//! The data TsFile holds, and how it lies on disk (`spec/tsfile.md` §3–§10): primitive
//! encodings ([`varint`]), identifiers ([`types`]), device ids ([`device`]), statistics,
//! chunk and page headers, timeseries metadata, the metadata index tree, table schemas, the
//! footer and the Bloom filter. Each type parses itself from a
//! [`Cursor`](crate::cursor::Cursor) and serialises into a `Vec<u8>`; nothing here does I/O.
//!
//! Also here, because both the reader and the writer are built on them: decoded values
//! ([`Values`] runs, single [`Value`]s and [`ValueRef`]s) and the rows of one device
//! ([`DeviceBatch`]).
pub mod batch;
pub mod bloom;
pub mod device;
pub mod footer;
pub mod headers;
pub mod index;
pub mod schema;
pub mod statistics;
pub mod types;
pub mod v3;
pub mod value;
pub mod values;
pub mod varint;

pub use batch::{Column, ColumnCursor, DeviceBatch};
pub use bloom::{BloomFilter, TailBytes};
pub use device::DeviceId;
pub use footer::{TsFileMetadata, MAGIC, VERSION};
pub use headers::{ChunkHeader, ChunkKind, Marker, PageHeader};
pub use index::{
    ChunkMetadata, DeviceEntry, MeasurementEntry, MetadataIndexNode, NodeEntries, NodeType,
    TimeseriesMetadata,
};
pub use schema::{MeasurementSchema, TableColumn, TableSchema};
pub use statistics::{NumStats, StatValues, Statistics};
pub use types::{ColumnCategory, Compression, DataType, Encoding, Physical};
pub use value::{Value, ValueRef};
pub use values::{BinaryValues, Values};
