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
