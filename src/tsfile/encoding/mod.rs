//! How values become page bytes and back: the TsFile value encodings (`spec/tsfile.md` §7),
//! one file each, bit-exact with the Java and C++ implementations; the page payload layouts
//! ([`page`]); and page compression ([`compression`]). A page's value stream is encoded in
//! one call from a [`Values`] run and decoded in one call into one; every stream is
//! self-contained (encoders reset per page).
//!
//! This issue's set: PLAIN, TS_2DIFF (integers, and FLOAT/DOUBLE through Java's
//! `FloatEncoder` wrapper), RLE (integers, BOOLEAN, and the FLOAT/DOUBLE wrapper), GORILLA
//! and DICTIONARY. Others give [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported).
//!
//! | file | owns |
//! | --- | --- |
//! | `bits` | MSB-first bit writer/reader and fixed-width unpacking |
//! | `word` | the `i32`/`i64` widths the integer encodings are generic over |
//! | `plain` | PLAIN |
//! | `ts2diff` | TS_2DIFF for integers |
//! | `rle` | RLE for integers and BOOLEAN |
//! | `float_wrapper` | FLOAT/DOUBLE under TS_2DIFF and RLE |
//! | `gorilla` | GORILLA v2 |
//! | `framing` | the sentinel-ended framing CHIMP and GORILLA_V1 share with GORILLA |
//! | `chimp` | CHIMP |
//! | `gorilla_v1` | GORILLA_V1 (FLOAT, DOUBLE; Java only) |
//! | `dictionary` | DICTIONARY |
//! | `camel` | CAMEL (DOUBLE) |
//! | `regular` | REGULAR (Java's legacy arithmetic-sequence encoding) |
//! | `fire` | the FIRE predictor and residual mapping under SPRINTZ |
//! | `sprintz` | SPRINTZ |
//! | `rlbe` | RLBE |
//!
//! Bytes written equal Java's, except that TS_2DIFF padding bits are always zero (Java may
//! leave stale bits there; readers ignore them).

mod bits;
mod camel;
mod chimp;
pub mod compression;
mod dictionary;
mod fire;
mod float_wrapper;
mod framing;
mod gorilla;
mod gorilla_v1;
pub mod page;
mod plain;
mod regular;
mod rlbe;
mod rle;
mod sprintz;
mod ts2diff;
mod word;
mod zigzag;

use crate::tsfile::format::values::Values;
use crate::tsfile::format::{DataType, Encoding, Physical};
use crate::{Error, Result};
use framing::Mode;

/// Parameters that change how values are encoded.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// `max_point_number`: decimal places kept by the FLOAT/DOUBLE TS_2DIFF and RLE wrapper
    /// (Java's `floatPrecision`, default 2).
    pub max_point_number: i32,
    /// RLE (and the DICTIONARY index stream) may use run-length runs, as Java's encoder
    /// does (`true`, the default: Java's bytes exactly). `false` writes bit-packed runs only,
    /// as the C++ writer does: the C++ 2.5 reader misreads run-length runs.
    pub rle_runs: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            max_point_number: 2,
            rle_runs: true,
        }
    }
}

impl EncodeOptions {
    /// Sets [`rle_runs`](Self::rle_runs).
    pub fn with_rle_runs(mut self, runs: bool) -> Self {
        self.rle_runs = runs;
        self
    }
    /// Sets [`max_point_number`](Self::max_point_number).
    #[cfg(feature = "unstable")]
    pub fn with_max_point_number(mut self, n: i32) -> Self {
        self.max_point_number = n;
        self
    }
}

/// Whether `encoding` can encode and decode `data_type` here.
///
/// PLAIN: every type but UNKNOWN. TS_2DIFF, RLE and GORILLA: INT32, DATE, INT64,
/// TIMESTAMP, VECTOR (time), FLOAT and DOUBLE; RLE also BOOLEAN. DICTIONARY: TEXT, STRING
/// and BLOB. ZIGZAG: INT32, DATE, INT64 and TIMESTAMP. CAMEL: DOUBLE. REGULAR: INT32,
/// DATE, INT64, TIMESTAMP and VECTOR (time; Java's time writer may use it). CHIMP: INT32, DATE,
/// INT64, TIMESTAMP, FLOAT and DOUBLE. GORILLA_V1: FLOAT and DOUBLE. SPRINTZ and RLBE:
/// INT32, DATE, INT64, TIMESTAMP, FLOAT and DOUBLE.
///
/// ```
/// use colfile::tsfile::format::{DataType, Encoding};
/// use colfile::tsfile::encoding::supports;
/// assert!(supports(Encoding::Rle, DataType::Boolean));
/// assert!(!supports(Encoding::Gorilla, DataType::Text));
/// ```
pub fn supports(encoding: Encoding, data_type: DataType) -> bool {
    use DataType as T;
    let numeric = matches!(
        data_type,
        T::Int32 | T::Date | T::Int64 | T::Timestamp | T::Vector | T::Float | T::Double
    );
    match encoding {
        Encoding::Plain => data_type.physical().is_ok(),
        Encoding::Ts2Diff | Encoding::Gorilla => numeric,
        Encoding::Rle => numeric || data_type == T::Boolean,
        Encoding::Dictionary => matches!(data_type, T::Text | T::String | T::Blob),
        Encoding::Zigzag => matches!(data_type, T::Int32 | T::Date | T::Int64 | T::Timestamp),
        Encoding::Chimp => numeric && data_type != T::Vector,
        Encoding::GorillaV1 => matches!(data_type, T::Float | T::Double),
        Encoding::Camel => data_type == T::Double,
        Encoding::Regular => numeric && !matches!(data_type, T::Float | T::Double),
        Encoding::Sprintz | Encoding::Rlbe => numeric && data_type != T::Vector,
        _ => false,
    }
}

fn check(encoding: Encoding, data_type: DataType, values: &Values, verb: &str) -> Result<()> {
    if !supports(encoding, data_type) {
        return Err(Error::unsupported(format!(
            "{encoding} {verb} of {data_type}"
        )));
    }
    let physical = data_type.physical()?;
    if values.physical() != physical {
        return Err(Error::invalid(format!(
            "{data_type} values must be {physical:?}, not {:?}",
            values.physical()
        )));
    }
    Ok(())
}

/// The error for a stream that holds more than the caller's `max` values.
fn limit_exceeded(encoding: &str, max: usize) -> Error {
    Error::corrupt(
        "tsfile",
        format!("{encoding} stream holds more than the {max} values expected"),
    )
}

/// True for the error of [`limit_exceeded`]: the stream held more values than the caller's
/// `max` (which the caller may know to be a limit, or a count the stream broke).
pub(crate) fn is_overflow(e: &Error) -> bool {
    matches!(e.kind(), crate::ErrorKind::Corrupt { message, .. } if message.ends_with(" values expected"))
}

/// GORILLA's and CHIMP's end-of-page sentinel for a physical type.
fn sentinel(physical: Physical) -> u64 {
    match physical {
        Physical::Int32 => 0x8000_0000,
        Physical::Float => 0x7fc0_0000,
        Physical::Double => 0x7ff8_0000_0000_0000,
        _ => 0x8000_0000_0000_0000,
    }
}

/// Appends the encoded stream of all of `values` (of `data_type`) to `out`.
///
/// Errors: [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) for a pair that
/// [`supports`] refuses; [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument)
/// when `values` is not of `data_type`'s physical type, or for GORILLA when an INT32/DATE or
/// INT64/TIMESTAMP value equals the type's end-of-page sentinel (`i32::MIN`, `i64::MIN`);
/// nothing is appended then. GORILLA FLOAT/DOUBLE store the canonical NaN (the sentinel's
/// bits `0x7fc00000` / `0x7ff8000000000000`) as the quiet NaN with payload 1, so NaN reads
/// back as NaN (not bit-identical to that NaN; Java's writer would end the page there);
/// CHIMP does the same. GORILLA_V1 stores every NaN as the canonical one, as Java does.
///
/// ```
/// use colfile::tsfile::format::{DataType, Encoding};
/// use colfile::tsfile::encoding::{encode, EncodeOptions};
/// use colfile::tsfile::Values;
/// let mut out = Vec::new();
/// let v = Values::Boolean(vec![false, true, false, true, false, true, false, true, false, true]);
/// encode(Encoding::Rle, DataType::Boolean, &v, &EncodeOptions::default(), &mut out)?;
/// assert_eq!(out, [0x05, 0x01, 0x05, 0x02, 0x55, 0x40]);
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn encode(
    encoding: Encoding,
    data_type: DataType,
    values: &Values,
    options: &EncodeOptions,
    out: &mut Vec<u8>,
) -> Result<()> {
    check(encoding, data_type, values, "encoding")?;
    let mpn = options.max_point_number;
    let runs = options.rle_runs;
    let s = sentinel(values.physical());
    match (encoding, values) {
        (Encoding::Plain, v) => plain::encode(v, out)?,
        (Encoding::Dictionary, Values::Binary(v)) => dictionary::encode(v, runs, out)?,
        (Encoding::Ts2Diff, Values::Int32(v)) => ts2diff::encode(v, out),
        (Encoding::Ts2Diff, Values::Int64(v)) => ts2diff::encode(v, out),
        (Encoding::Zigzag, Values::Int32(v)) => zigzag::encode(v, out)?,
        (Encoding::Zigzag, Values::Int64(v)) => zigzag::encode(v, out)?,
        (Encoding::Camel, Values::Double(v)) => camel::encode(v, out)?,
        (Encoding::Regular, Values::Int32(v)) => regular::encode(v, out),
        (Encoding::Regular, Values::Int64(v)) => regular::encode(v, out),
        (Encoding::Sprintz, v) => sprintz::encode(v, runs, out)?,
        (Encoding::Rlbe, v) => rlbe::encode(v, out)?,
        (Encoding::Chimp, Values::Int32(v)) => {
            chimp::encode::<32>(v.iter().map(|&x| x as u32 as u64), s, out)
        }
        (Encoding::Chimp, Values::Int64(v)) => {
            chimp::encode::<64>(v.iter().map(|&x| x as u64), s, out)
        }
        (Encoding::Chimp, Values::Float(v)) => chimp::encode::<32>(
            v.iter().map(|&x| framing::nan_safe(x.to_bits() as u64, s)),
            s,
            out,
        ),
        (Encoding::Chimp, Values::Double(v)) => {
            chimp::encode::<64>(v.iter().map(|&x| framing::nan_safe(x.to_bits(), s)), s, out)
        }
        (Encoding::GorillaV1, Values::Float(v)) => {
            gorilla_v1::encode::<32>(v.iter().map(|&x| x.to_bits() as u64), out)
        }
        (Encoding::GorillaV1, Values::Double(v)) => {
            gorilla_v1::encode::<64>(v.iter().map(|&x| x.to_bits()), out)
        }
        (Encoding::Rle, Values::Int32(v)) => rle::encode(v, runs, out),
        (Encoding::Rle, Values::Int64(v)) => rle::encode(v, runs, out),
        (Encoding::Rle, Values::Boolean(v)) => {
            rle::encode(&v.iter().map(|&b| b as i32).collect::<Vec<_>>(), runs, out)
        }
        (_, Values::Float(v)) if encoding != Encoding::Gorilla => {
            float_wrapper::encode(encoding, v, mpn, runs, out)?
        }
        (_, Values::Double(v)) if encoding != Encoding::Gorilla => {
            float_wrapper::encode(encoding, v, mpn, runs, out)?
        }
        (_, Values::Int32(v)) => gorilla::encode::<32>(v.iter().map(|&x| x as u32 as u64), s, out)?,
        (_, Values::Int64(v)) => gorilla::encode::<64>(v.iter().map(|&x| x as u64), s, out)?,
        // The canonical NaN is the end sentinel: stored as another quiet NaN.
        (_, Values::Float(v)) => gorilla::encode::<32>(
            v.iter().map(|&x| framing::nan_safe(x.to_bits() as u64, s)),
            s,
            out,
        )?,
        (_, Values::Double(v)) => {
            gorilla::encode::<64>(v.iter().map(|&x| framing::nan_safe(x.to_bits(), s)), s, out)?
        }
        _ => {
            return Err(Error::unsupported(format!(
                "{encoding} encoding of {data_type}"
            )))
        }
    }
    Ok(())
}

/// Decodes the whole stream `input` (of `data_type`), appending its values to `out`, which
/// must be of `data_type`'s physical type. At most `max_values` values are produced: a stream
/// that holds more is [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt) (callers pass the
/// count they expect, or a limit, so memory stays bounded). Errors carry the byte offset
/// within `input`.
///
/// GORILLA streams end at the sentinel, as in Java, except that a sentinel followed by more
/// than the final byte's bits is taken as a data value (the C++ writer stores such values);
/// when the count is known, [`decode_exact`] reads it the way the C++ reader does. CHIMP
/// ends the same way (there a sentinel followed by more than 8 bits is always data);
/// GORILLA_V1 ends at a NaN with fewer than 8 bits after it.
pub fn decode(
    encoding: Encoding,
    data_type: DataType,
    input: &[u8],
    max_values: usize,
    out: &mut Values,
) -> Result<()> {
    decode_mode(encoding, data_type, input, Mode::UpTo(max_values), out)
}

/// Like [`decode`], but the stream must hold exactly `count` values (an aligned value page's
/// set bitmap bits, or a non-aligned page's timestamps); fewer or more is
/// [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt). For GORILLA this is count-driven like
/// the C++ reader: values equal to the sentinel are kept as data.
pub fn decode_exact(
    encoding: Encoding,
    data_type: DataType,
    input: &[u8],
    count: usize,
    out: &mut Values,
) -> Result<()> {
    let before = out.len();
    decode_mode(encoding, data_type, input, Mode::Exact(count), out)?;
    let got = out.len() - before;
    if got != count {
        return Err(Error::corrupt(
            "tsfile",
            format!("{encoding} stream holds {got} values, {count} expected"),
        )
        .at_offset(0));
    }
    Ok(())
}

fn decode_mode(
    encoding: Encoding,
    data_type: DataType,
    input: &[u8],
    mode: Mode,
    out: &mut Values,
) -> Result<()> {
    check(encoding, data_type, out, "decoding")?;
    let (Mode::UpTo(max) | Mode::Exact(max)) = mode;
    let s = sentinel(out.physical());
    match (encoding, out) {
        (Encoding::Plain, out) => plain::decode(input, max, out),
        (Encoding::Dictionary, Values::Binary(out)) => dictionary::decode(input, max, out),
        (Encoding::Ts2Diff, Values::Int32(out)) => ts2diff::decode(input, 0, max, out),
        (Encoding::Ts2Diff, Values::Int64(out)) => ts2diff::decode(input, 0, max, out),
        (Encoding::Zigzag, Values::Int32(out)) => zigzag::decode(input, 0, max, out),
        (Encoding::Zigzag, Values::Int64(out)) => zigzag::decode(input, 0, max, out),
        (Encoding::Camel, Values::Double(out)) => camel::decode(input, 0, max, out),
        (Encoding::Regular, Values::Int32(out)) => regular::decode(input, 0, max, out),
        (Encoding::Regular, Values::Int64(out)) => regular::decode(input, 0, max, out),
        (Encoding::Sprintz, out) => sprintz::decode(input, max, out),
        (Encoding::Rlbe, out) => rlbe::decode(input, max, out),
        (Encoding::Rle, Values::Int32(out)) => rle::decode(input, 0, max, out),
        (Encoding::Rle, Values::Int64(out)) => rle::decode(input, 0, max, out),
        (Encoding::Rle, Values::Boolean(out)) => {
            let mut ints: Vec<i32> = Vec::new();
            rle::decode(input, 0, max, &mut ints)?;
            out.extend(ints.iter().map(|&v| v != 0));
            Ok(())
        }
        (Encoding::Chimp, Values::Int32(out)) => {
            chimp::decode::<_, 32>(input, 0, mode, s, |b| b as u32 as i32, out)
        }
        (Encoding::Chimp, Values::Int64(out)) => {
            chimp::decode::<_, 64>(input, 0, mode, s, |b| b as i64, out)
        }
        (Encoding::Chimp, Values::Float(out)) => {
            chimp::decode::<_, 32>(input, 0, mode, s, |b| f32::from_bits(b as u32), out)
        }
        (Encoding::Chimp, Values::Double(out)) => {
            chimp::decode::<_, 64>(input, 0, mode, s, f64::from_bits, out)
        }
        (Encoding::GorillaV1, Values::Float(out)) => {
            gorilla_v1::decode::<_, 32>(input, 0, mode, |b| f32::from_bits(b as u32), out)
        }
        (Encoding::GorillaV1, Values::Double(out)) => {
            gorilla_v1::decode::<_, 64>(input, 0, mode, f64::from_bits, out)
        }
        (Encoding::Gorilla, Values::Int32(out)) => {
            gorilla::decode::<_, 32>(input, 0, mode, s, |b| b as u32 as i32, out)
        }
        (Encoding::Gorilla, Values::Int64(out)) => {
            gorilla::decode::<_, 64>(input, 0, mode, s, |b| b as i64, out)
        }
        (Encoding::Gorilla, Values::Float(out)) => {
            gorilla::decode::<_, 32>(input, 0, mode, s, |b| f32::from_bits(b as u32), out)
        }
        (Encoding::Gorilla, Values::Double(out)) => {
            gorilla::decode::<_, 64>(input, 0, mode, s, f64::from_bits, out)
        }
        (_, Values::Float(out)) => float_wrapper::decode(encoding, input, max, out),
        (_, Values::Double(out)) => float_wrapper::decode(encoding, input, max, out),
        _ => Err(Error::unsupported(format!(
            "{encoding} decoding of {data_type}"
        ))),
    }
}

/// Typed fast path: appends the TS_2DIFF stream of INT64/TIMESTAMP/time values held in a
/// plain slice (same bytes as [`encode`]), for page writers that keep a `Vec<i64>`.
pub fn encode_ts2diff_i64(values: &[i64], out: &mut Vec<u8>) {
    ts2diff::encode(values, out)
}

/// Typed fast path: decodes a TS_2DIFF INT64/TIMESTAMP/time stream straight into `out`
/// (same rules as [`decode`]), for page readers that keep a plain `Vec<i64>`.
pub fn decode_ts2diff_i64(input: &[u8], max_values: usize, out: &mut Vec<i64>) -> Result<()> {
    ts2diff::decode(input, 0, max_values, out)
}

/// Typed fast path: decodes a GORILLA DOUBLE stream straight into `out` (same rules as
/// [`decode`]).
#[cfg(feature = "unstable")]
pub fn decode_gorilla_f64(input: &[u8], max_values: usize, out: &mut Vec<f64>) -> Result<()> {
    let s = sentinel(Physical::Double);
    gorilla::decode::<_, 64>(input, 0, Mode::UpTo(max_values), s, f64::from_bits, out)
}
