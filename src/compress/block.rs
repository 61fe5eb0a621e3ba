//! Block algorithms (Snappy, LZ4) that compress one buffer into one self-contained block, and
//! the bare [`Framing::Raw`] codec around a single block. The Hadoop framing around many such
//! blocks is in `hadoop_block.rs`.

use super::stream::{append_or_restore, decompress_into, replace_into, Sink};
use super::{Algorithm, Codec, Framing};
use crate::{Error, Result};

/// One block algorithm, as used by [`RawCodec`] and the Hadoop block framing
/// ([`framed`](super::hadoop_block::framed)).
pub(crate) trait RawBlock: Send + std::fmt::Debug + 'static {
    /// The algorithm.
    const ALGORITHM: Algorithm;
    /// Hadoop's `MAX_INPUT_SIZE` at its default buffer size: the most plain bytes one chunk of
    /// the Hadoop framing covers.
    const HADOOP_MAX_INPUT: usize;
    /// The most bytes `compress_block` can write for `input_len` plain bytes.
    fn max_compressed_len(input_len: usize) -> usize;
    /// The most plain bytes a block of `compressed_len` bytes can decode to.
    fn max_decompressed_len(compressed_len: usize) -> usize;
    /// The plain length a block records in itself, if the format records one (Snappy does).
    fn declared_len(block: &[u8]) -> Result<Option<usize>>;
    /// Compresses `input` into the start of `output` (at least `max_compressed_len` long) and
    /// returns the compressed length.
    fn compress_block(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize>;
    /// Decompresses one whole block into the start of `output` and returns the plain length;
    /// fails if `output` is too short.
    fn decompress_block(&mut self, block: &[u8], output: &mut [u8]) -> Result<usize>;
}

/// Appends the compressed block of `input` to `out` and returns its length.
pub(crate) fn append_block<B: RawBlock>(
    block: &mut B,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<usize> {
    let at = out.len();
    out.resize(at + B::max_compressed_len(input.len()), 0);
    let written = block.compress_block(input, out.get_mut(at..).unwrap_or_default())?;
    out.truncate(at + written);
    Ok(written)
}

/// Decodes one compressed block into the sink, producing at most `limit` bytes, and returns
/// how many it produced. A block that needs more room than `limit` is corrupt (`what` says
/// what the limit is, for the message).
pub(crate) fn decode_block<B: RawBlock>(
    block: &mut B,
    compressed: &[u8],
    sink: &mut Sink<'_>,
    limit: usize,
    what: &str,
) -> Result<usize> {
    let name = B::ALGORITHM.name();
    let room = match B::declared_len(compressed)? {
        Some(declared) if declared > limit => {
            return Err(Error::corrupt(
                name,
                format!("a block declares {declared} bytes, more than the {limit} left in {what}"),
            ));
        }
        Some(declared) if declared > B::max_decompressed_len(compressed.len()) => {
            return Err(Error::corrupt(
                name,
                format!(
                    "a {}-byte block cannot decode to the {declared} bytes it declares",
                    compressed.len()
                ),
            ));
        }
        Some(declared) => declared,
        None => B::max_decompressed_len(compressed.len()).min(limit),
    };
    let output = sink.room(room);
    let produced = block.decompress_block(compressed, output)?;
    sink.commit(produced);
    Ok(produced)
}

/// A single bare block ([`Framing::Raw`]).
#[derive(Debug)]
pub(crate) struct RawCodec<B>(pub(crate) B);

impl<B: RawBlock> Codec for RawCodec<B> {
    fn algorithm(&self) -> Algorithm {
        B::ALGORITHM
    }

    fn framing(&self) -> Framing {
        Framing::Raw
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        append_or_restore(out, |out| append_block(&mut self.0, input, out).map(drop))
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        decompress_into(out, expected_len, RAW_BLOCK, |sink| {
            self.decode(input, sink)
        })
    }

    fn decompress_replace(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<()> {
        replace_into(out, expected_len, RAW_BLOCK, |sink| {
            self.decode(input, sink)
        })
    }
}

/// What a short raw block is, in a [`crate::ErrorKind::Truncated`] error.
const RAW_BLOCK: &str = "decompressed raw block";

impl<B: RawBlock> RawCodec<B> {
    /// Decodes the one block into the sink, which must fill it exactly.
    fn decode(&mut self, input: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        if input.is_empty() {
            return Ok(()); // reported as truncated
        }
        let expected = sink.remaining();
        decode_block(&mut self.0, input, sink, expected, "the expected length").map(drop)
    }
}
