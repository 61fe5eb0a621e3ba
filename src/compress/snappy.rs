//! Snappy raw blocks (the "raw" format: a varint plain length, then elements; not the Snappy
//! framing format) with the `snap` crate, encoder and decoder reused across calls.

use super::block::RawBlock;
use super::Algorithm;
use crate::{Error, Result};

/// Snappy as a [`RawBlock`].
#[derive(Debug)]
pub(crate) struct SnappyBlock {
    encoder: snap::raw::Encoder,
    decoder: snap::raw::Decoder,
}

impl Default for SnappyBlock {
    fn default() -> Self {
        SnappyBlock {
            encoder: snap::raw::Encoder::new(),
            decoder: snap::raw::Decoder::new(),
        }
    }
}

fn codec_error(e: snap::Error) -> Error {
    Error::codec("snappy", "", e)
}

impl RawBlock for SnappyBlock {
    const ALGORITHM: Algorithm = Algorithm::Snappy;
    /// `io.compression.codec.snappy.buffersize` (262 144) minus Hadoop's overhead
    /// `262_144 / 6 + 32`.
    const HADOOP_MAX_INPUT: usize = 262_144 - (262_144 / 6 + 32);

    fn max_compressed_len(input_len: usize) -> usize {
        snap::raw::max_compress_len(input_len)
    }

    fn max_decompressed_len(compressed_len: usize) -> usize {
        // The densest element is a 3-byte copy of 64 bytes.
        compressed_len.saturating_mul(22)
    }

    fn declared_len(block: &[u8]) -> Result<Option<usize>> {
        snap::raw::decompress_len(block)
            .map(Some)
            .map_err(codec_error)
    }

    fn compress_block(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        self.encoder.compress(input, output).map_err(codec_error)
    }

    fn decompress_block(&mut self, block: &[u8], output: &mut [u8]) -> Result<usize> {
        self.decoder.decompress(block, output).map_err(codec_error)
    }
}
