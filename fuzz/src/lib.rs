//! The bodies of the fuzz targets, one module per target, each a `run(data)` that must never
//! panic on any input. The `fuzz_targets/*.rs` binaries are one-line wrappers around them, and
//! the main crate's `tests/fuzz_corpus.rs` includes this file to replay the committed corpus
//! through exactly the same code on the stable toolchain.

pub mod codecs;
pub mod json_rows;
pub mod rcfile_read;
pub mod rcfile_roundtrip;
pub mod serde_cells;
pub mod tsfile_encodings;
pub mod tsfile_filter;
pub mod tsfile_mods;
pub mod tsfile_read;
pub mod tsfile_resource;
pub mod tsfile_roundtrip;
pub mod tsfile_tools;
pub mod tsfile_v3_read;

/// A target body: takes any bytes, panics only on a bug.
pub type Body = fn(&[u8]);

/// Every target: its name (the directory under `fuzz/corpus/`) and its body.
pub const TARGETS: &[(&str, Body)] = &[
    ("codecs", codecs::run),
    ("json_rows", json_rows::run),
    ("rcfile_read", rcfile_read::run),
    ("rcfile_roundtrip", rcfile_roundtrip::run),
    ("serde_cells", serde_cells::run),
    ("tsfile_encodings", tsfile_encodings::run),
    ("tsfile_filter", tsfile_filter::run),
    ("tsfile_mods", tsfile_mods::run),
    ("tsfile_read", tsfile_read::run),
    ("tsfile_resource", tsfile_resource::run),
    ("tsfile_roundtrip", tsfile_roundtrip::run),
    ("tsfile_tools", tsfile_tools::run),
    ("tsfile_v3_read", tsfile_v3_read::run),
];

/// Hive types that the RCFile targets decode cells as: every primitive and nested shapes.
pub const HIVE_TYPES: &[&str] = &[
    "boolean",
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "float",
    "double",
    "string",
    "varchar(5)",
    "char(3)",
    "binary",
    "date",
    "timestamp",
    "decimal(38,10)",
    "decimal(5,2)",
    "array<int>",
    "map<string,array<decimal(10,2)>>",
    "struct<a:int,b:struct<c:string,d:array<timestamp>>>",
    "uniontype<int,string,array<double>>",
    "map<int,map<string,boolean>>",
];
