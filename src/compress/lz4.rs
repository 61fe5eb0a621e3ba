//! LZ4 raw blocks (the block format, no LZ4 frame) with `lz4_flex`'s safe block API; the
//! encoder's hash tables are reused across calls.

use super::block::RawBlock;
use super::Algorithm;
use crate::{Error, Result};
use lz4_flex::block::{
    compress_into_with_table, decompress_into, get_maximum_output_size, CompressTable,
    DecompressError,
};

/// LZ4 as a [`RawBlock`].
///
/// `lz4_flex` hashes with a 16-bit table below 64 KiB of input and with a 32-bit one (and
/// another hash) above, and a table once grown stays grown: one table for each size keeps a
/// block's bytes a function of its input alone, whatever this encoder compressed before
/// (so that writers compressing on several threads write the same bytes).
#[derive(Default)]
pub(crate) struct Lz4Block {
    small: CompressTable,
    large: Option<CompressTable>,
}

impl std::fmt::Debug for Lz4Block {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lz4Block")
    }
}

impl RawBlock for Lz4Block {
    const ALGORITHM: Algorithm = Algorithm::Lz4;
    /// `io.compression.codec.lz4.buffersize` (262 144) minus Hadoop's overhead
    /// `262_144 / 255 + 16`.
    const HADOOP_MAX_INPUT: usize = 262_144 - (262_144 / 255 + 16);

    fn max_compressed_len(input_len: usize) -> usize {
        get_maximum_output_size(input_len)
    }

    fn max_decompressed_len(compressed_len: usize) -> usize {
        // Each extra match-length byte adds at most 255 plain bytes; nothing is denser.
        compressed_len.saturating_mul(255).saturating_add(16)
    }

    fn declared_len(_block: &[u8]) -> Result<Option<usize>> {
        Ok(None)
    }

    fn compress_block(&mut self, input: &[u8], output: &mut [u8]) -> Result<usize> {
        let table = if input.len() < usize::from(u16::MAX) {
            &mut self.small
        } else {
            self.large.get_or_insert_with(CompressTable::default)
        };
        compress_into_with_table(input, output, table)
            .map_err(|e| Error::codec("lz4", "could not compress: ", e))
    }

    fn decompress_block(&mut self, block: &[u8], output: &mut [u8]) -> Result<usize> {
        decompress_into(block, output).map_err(|e| match e {
            DecompressError::OutputTooSmall { actual, .. } => Error::corrupt(
                "lz4",
                format!("a block decodes to more than the {actual} bytes left for it"),
            ),
            e => Error::codec("lz4", "", e),
        })
    }
}
