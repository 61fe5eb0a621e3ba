//! The one-byte identifiers of TsFile: data types, encodings, compressions and column
//! categories (`spec/tsfile.md` §6, §8.4).

use crate::{Error, Result};

macro_rules! byte_enum {
    (
        $(#[$meta:meta])* $name:ident, $what:literal {
            $( $(#[$vmeta:meta])* $variant:ident = $code:literal $label:literal, )*
        }
    ) => {
        $(#[$meta])*
        #[non_exhaustive]
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
        }

        impl $name {
            /// Every value, in code order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The byte that stands for this value in a file.
            pub fn code(self) -> u8 {
                match self { $($name::$variant => $code),* }
            }

            /// The value for a byte from a file; an unknown byte is a `Corrupt` error.
            pub fn from_code(code: u8) -> Result<Self> {
                match code {
                    $($code => Ok($name::$variant),)*
                    _ => Err(Error::corrupt("tsfile", format!(concat!("unknown ", $what, " code {}"), code))),
                }
            }

            /// The upper-case name used by TsFile's Java and C++ APIs, e.g. `TS_2DIFF`.
            pub fn name(self) -> &'static str {
                match self { $($name::$variant => $label),* }
            }

            /// The value for a name, in any letter case.
            pub fn from_name(name: &str) -> Result<Self> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|v| v.name().eq_ignore_ascii_case(name))
                    .ok_or_else(|| Error::invalid(format!(concat!("unknown ", $what, " {:?}"), name)))
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

byte_enum! {
    /// `TSDataType`: the type of a series.
    ///
    /// ```
    /// use colfile::tsfile::format::DataType;
    /// assert_eq!(DataType::from_code(9)?, DataType::Date);
    /// assert_eq!(DataType::from_name("timestamp")?.code(), 8);
    /// assert!(DataType::from_code(13).is_err());
    /// # Ok::<(), colfile::Error>(())
    /// ```
    DataType, "data type" {
        /// One byte, true or false.
        Boolean = 0 "BOOLEAN",
        /// Signed 32-bit integer.
        Int32 = 1 "INT32",
        /// Signed 64-bit integer.
        Int64 = 2 "INT64",
        /// IEEE binary32.
        Float = 3 "FLOAT",
        /// IEEE binary64.
        Double = 4 "DOUBLE",
        /// Byte string (statistics: first and last only).
        Text = 5 "TEXT",
        /// The aligned time column's marker type (time chunks and their series only).
        Vector = 6 "VECTOR",
        /// A sentinel that is never decodable.
        Unknown = 7 "UNKNOWN",
        /// INT64 physically; the unit is defined outside the file.
        Timestamp = 8 "TIMESTAMP",
        /// INT32 physically, as decimal `YYYYMMDD`.
        Date = 9 "DATE",
        /// Opaque bytes, no value statistics.
        Blob = 10 "BLOB",
        /// UTF-8 bytes, with min/max statistics.
        String = 11 "STRING",
        /// Opaque bytes (newest Java only); treated like BLOB.
        Object = 12 "OBJECT",
    }
}

/// How a data type is held in memory: the physical representation of its values.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Physical {
    /// `bool`.
    Boolean,
    /// `i32` (INT32, DATE).
    Int32,
    /// `i64` (INT64, TIMESTAMP, VECTOR time).
    Int64,
    /// `f32`.
    Float,
    /// `f64`.
    Double,
    /// Byte strings (TEXT, STRING, BLOB, OBJECT).
    Binary,
}

impl DataType {
    /// The physical representation, or an `Unsupported` error for `UNKNOWN`.
    pub fn physical(self) -> Result<Physical> {
        Ok(match self {
            DataType::Boolean => Physical::Boolean,
            DataType::Int32 | DataType::Date => Physical::Int32,
            DataType::Int64 | DataType::Timestamp | DataType::Vector => Physical::Int64,
            DataType::Float => Physical::Float,
            DataType::Double => Physical::Double,
            DataType::Text | DataType::String | DataType::Blob | DataType::Object => {
                Physical::Binary
            }
            DataType::Unknown => {
                return Err(Error::unsupported("values of data type UNKNOWN"));
            }
        })
    }
}

byte_enum! {
    /// `TSEncoding`: how a page's values are encoded.
    Encoding, "encoding" {
        /// Values one after another (VarInt for INT32/DATE, big-endian otherwise).
        Plain = 0 "PLAIN",
        /// A first-appearance dictionary plus RLE indexes (TEXT, STRING).
        Dictionary = 1 "DICTIONARY",
        /// Hybrid run-length / bit-packing.
        Rle = 2 "RLE",
        /// Reserved, never implemented.
        Diff = 3 "DIFF",
        /// Delta-of-delta with a per-block minimum, bit-packed.
        Ts2Diff = 4 "TS_2DIFF",
        /// Encoder only in Java; never produced.
        Bitmap = 5 "BITMAP",
        /// Legacy Gorilla (Java only).
        GorillaV1 = 6 "GORILLA_V1",
        /// Legacy arithmetic-sequence encoding (Java only).
        Regular = 7 "REGULAR",
        /// Gorilla V2 XOR encoding.
        Gorilla = 8 "GORILLA",
        /// Zigzag LEB128.
        Zigzag = 9 "ZIGZAG",
        /// Deprecated.
        Freq = 10 "FREQ",
        /// Chimp128.
        Chimp = 11 "CHIMP",
        /// Sprintz with the FIRE predictor.
        Sprintz = 12 "SPRINTZ",
        /// Run-length of bit lengths with Fibonacci codes.
        Rlbe = 13 "RLBE",
        /// CAMEL (DOUBLE only).
        Camel = 14 "CAMEL",
    }
}

byte_enum! {
    /// `CompressionType`: how each page payload is compressed.
    Compression, "compression" {
        /// Stored as is.
        Uncompressed = 0 "UNCOMPRESSED",
        /// One raw Snappy block.
        Snappy = 1 "SNAPPY",
        /// One gzip member.
        Gzip = 2 "GZIP",
        /// An LZO1X block (C++ only; not implemented here).
        Lzo = 3 "LZO",
        /// Reserved (lossy).
        Sdt = 4 "SDT",
        /// Reserved.
        Paa = 5 "PAA",
        /// Reserved.
        Pla = 6 "PLA",
        /// One raw LZ4 block.
        Lz4 = 7 "LZ4",
        /// One Zstandard frame.
        Zstd = 8 "ZSTD",
        /// An .xz container holding LZMA2.
        Lzma2 = 9 "LZMA2",
    }
}

byte_enum! {
    /// The role of a column in a table schema.
    ColumnCategory, "column category" {
        /// Part of the device id.
        Tag = 0 "TAG",
        /// A measured value, stored as a value chunk.
        Field = 1 "FIELD",
        /// Schema only; no values are stored.
        Attribute = 2 "ATTRIBUTE",
        /// Names the time column (C++ and Python writers only).
        Time = 3 "TIME",
    }
}

impl ColumnCategory {
    /// The category for the `int32` stored in a table schema.
    pub fn from_i32(code: i32) -> Result<Self> {
        u8::try_from(code)
            .map_err(|_| Error::corrupt("tsfile", format!("unknown column category code {code}")))
            .and_then(Self::from_code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_and_names_round_trip() {
        for &t in DataType::ALL {
            assert_eq!(DataType::from_code(t.code()).unwrap(), t);
            assert_eq!(DataType::from_name(&t.name().to_lowercase()).unwrap(), t);
        }
        for &e in Encoding::ALL {
            assert_eq!(Encoding::from_code(e.code()).unwrap(), e);
        }
        assert_eq!(Encoding::from_name("ts_2diff").unwrap().code(), 4);
        assert_eq!(Compression::from_code(9).unwrap(), Compression::Lzma2);
        assert_eq!(ColumnCategory::from_i32(3).unwrap(), ColumnCategory::Time);
        assert!(ColumnCategory::from_i32(-1).is_err());
        assert!(Compression::from_code(10).is_err());
    }
}
