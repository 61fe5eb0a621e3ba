//! Hadoop's block framing (`BlockCompressorStream` / `BlockDecompressorStream`), used by
//! `SnappyCodec` and `Lz4Codec` (`spec/rcfile.md` §6.2):
//!
//! ```text
//! stream := block*
//! block  := Int32 plainLength  chunk*      -- chunks until their plain sizes sum to plainLength
//! chunk  := Int32 compressedLength  byte[compressedLength]   -- one raw block
//! ```
//!
//! The writer emits what Hadoop emits for one `write(buf, 0, n)` and `finish()`:
//! `00 00 00 00` for an empty buffer; one block with one chunk for `n <= MAX_INPUT_SIZE`; else one
//! block header, `ceil(n / MAX_INPUT_SIZE)` chunks and a trailing empty block.
//!
//! The reader takes any sequence of blocks (Hadoop's, aircompressor's one-chunk blocks, empty
//! blocks anywhere), stops as soon as the expected length is produced and rejects a chunk that
//! would decode past its block or past the expected length.

use super::block::{append_block, decode_block, RawBlock, RawCodec};
use super::stream::{append_or_restore, decompress_into, replace_into, Sink};
use super::{Algorithm, Codec, Framing};
use crate::{Error, Result};

/// A boxed codec for `block`, in the Hadoop framing or bare.
pub(crate) fn framed<B: RawBlock>(block: B, hadoop: bool) -> Box<dyn Codec> {
    if hadoop {
        Box::new(HadoopBlockCodec::new(block))
    } else {
        Box::new(RawCodec(block))
    }
}

/// The framing around the block algorithm `B`.
#[derive(Debug)]
pub(crate) struct HadoopBlockCodec<B> {
    block: B,
}

impl<B: RawBlock> HadoopBlockCodec<B> {
    pub(crate) fn new(block: B) -> Self {
        HadoopBlockCodec { block }
    }
}

fn push_len(out: &mut Vec<u8>, len: usize) -> Result<()> {
    let len = i32::try_from(len).map_err(|_| {
        Error::invalid(format!(
            "{len} bytes do not fit the Int32 lengths of the Hadoop block framing"
        ))
    })?;
    out.extend_from_slice(&len.to_be_bytes());
    Ok(())
}

/// Reads the Int32 length at `pos`: `Ok(None)` at the end of the input.
fn read_len(
    input: &[u8],
    pos: usize,
    name: &'static str,
    what: &'static str,
) -> Result<Option<usize>> {
    let Some(rest) = input.get(pos..).filter(|r| !r.is_empty()) else {
        return Ok(None);
    };
    let bytes: [u8; 4] = rest
        .get(..4)
        .and_then(|b| b.try_into().ok())
        .ok_or_else(|| Error::truncated(what, 4, rest.len() as u64))?;
    let len = i32::from_be_bytes(bytes);
    usize::try_from(len).map(Some).map_err(|_| {
        Error::corrupt(
            name,
            format!("negative {what} {len} at byte {pos} of the compressed buffer"),
        )
    })
}

impl<B: RawBlock> Codec for HadoopBlockCodec<B> {
    fn algorithm(&self) -> Algorithm {
        B::ALGORITHM
    }

    fn framing(&self) -> Framing {
        Framing::HadoopBlock
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let chunks = input.len().div_ceil(B::HADOOP_MAX_INPUT);
        out.reserve(B::max_compressed_len(input.len()) + 4 * chunks + 8);
        append_or_restore(out, |out| {
            push_len(out, input.len())?;
            for chunk in input.chunks(B::HADOOP_MAX_INPUT) {
                let at = out.len();
                out.extend_from_slice(&[0; 4]);
                let written = append_block(&mut self.block, chunk, out)?;
                let written = i32::try_from(written)
                    .map_err(|_| Error::invalid("a compressed chunk does not fit an Int32"))?;
                if let Some(len) = out.get_mut(at..at + 4) {
                    len.copy_from_slice(&written.to_be_bytes());
                }
            }
            if input.len() > B::HADOOP_MAX_INPUT {
                // Hadoop resets its compressor after the last chunk, so finish() writes an
                // empty block.
                push_len(out, 0)?;
            }
            Ok(())
        })
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        decompress_into(out, expected_len, STREAM, |sink| self.decode(input, sink))
    }

    fn decompress_replace(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<()> {
        replace_into(out, expected_len, STREAM, |sink| self.decode(input, sink))
    }
}

/// What a short stream is, in a [`crate::ErrorKind::Truncated`] error.
const STREAM: &str = "decompressed hadoop block stream";

impl<B: RawBlock> HadoopBlockCodec<B> {
    /// Decodes blocks into the sink until it is full or the input ends.
    fn decode(&mut self, input: &[u8], sink: &mut Sink<'_>) -> Result<()> {
        let name = B::ALGORITHM.name();
        let mut pos = 0;
        'blocks: while !sink.is_full() {
            let Some(block_len) = read_len(input, pos, name, "block length")? else {
                break;
            };
            pos += 4;
            let mut block_left = block_len;
            while block_left > 0 && !sink.is_full() {
                let Some(chunk_len) = read_len(input, pos, name, "chunk length")? else {
                    break 'blocks;
                };
                pos += 4;
                let chunk = pos
                    .checked_add(chunk_len)
                    .and_then(|end| input.get(pos..end))
                    .ok_or_else(|| {
                        Error::truncated(
                            "hadoop block chunk",
                            chunk_len as u64,
                            input.len().saturating_sub(pos) as u64,
                        )
                    })?;
                let (limit, what) = if block_left <= sink.remaining() {
                    (block_left, "its block")
                } else {
                    (sink.remaining(), "the expected length")
                };
                let produced = decode_block(&mut self.block, chunk, sink, limit, what)?;
                if produced == 0 {
                    return Err(Error::corrupt(
                        name,
                        format!("empty chunk at byte {pos} of the compressed buffer"),
                    ));
                }
                block_left -= produced;
                pos += chunk_len;
            }
        }
        Ok(())
    }
}
