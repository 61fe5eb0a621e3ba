//! Shared primitive codecs: bounds-checked reading of byte slices ([`Cursor`]) and the Hadoop
//! `WritableUtils` encodings ([`hadoop`]: zero-compressed VInt/VLong, `Text`, big-endian
//! int32) that RCFile is built from, and [`tsfile`]: TsFile's varints, strings, identifiers and
//! metadata structures.

pub mod cursor;
pub mod hadoop;
pub mod java_float;
pub mod tsfile;

pub use cursor::Cursor;
