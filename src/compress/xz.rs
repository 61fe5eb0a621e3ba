//! LZMA2 in an .xz container ([`Framing::Xz`]: stream header `fd 37 7a 58 5a 00`, blocks,
//! index, footer), as TsFile's `LZMA2` pages hold it, with `lzma-rust2` (a port of XZ for
//! Java).
//!
//! The writer emits one stream with one block and a CRC64 check, at preset 6 unless told
//! otherwise: what XZ for Java's `XZOutputStream(new LZMA2Options())` and liblzma's
//! `lzma_easy_buffer_encode(LZMA_PRESET_DEFAULT, LZMA_CHECK_CRC64)` write (the bytes may differ
//! with library versions; the structure does not). The reader takes any check type, several
//! blocks, and concatenated streams with the stream padding (multiples of four zero bytes)
//! that the .xz format allows between them; it stops at the expected length and ignores what
//! follows the stream that completes it, like every other codec here.
//!
//! The decoder's dictionary grows with the decoded data rather than being allocated at the
//! size the block header declares, so a tiny stream claiming a 4 GiB dictionary costs nothing.
//! `lzma-rust2` has no way to reset its encoder or decoder, so each call builds its state
//! afresh (as liblzma's buffer functions and XZ for Java do).

use super::pump::{each_member, first_room, pump, Step, StreamStep};
use super::stream::{append_or_restore, decompress_into};
use super::{check_level, Algorithm, Codec, Framing};
use crate::{Error, Result};
use lzma_rust2::{Action, CheckType, Status, XzOptions, XzStream, XzWriter};
use std::io::Write;

/// `LZMA2Options()` in XZ for Java and `LZMA_PRESET_DEFAULT` in liblzma.
const DEFAULT_PRESET: i32 = 6;

/// LZMA2 in .xz; see the module documentation.
#[derive(Debug)]
pub(crate) struct XzCodec {
    preset: u32,
}

impl XzCodec {
    pub(crate) fn new(level: Option<i32>) -> Result<Self> {
        let preset = check_level("lzma2", level, 0..=9, DEFAULT_PRESET)?;
        Ok(XzCodec {
            preset: preset.unsigned_abs(),
        })
    }
}

impl Codec for XzCodec {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Lzma2
    }

    fn framing(&self) -> Framing {
        Framing::Xz
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let mut options = XzOptions::with_preset(self.preset);
        options.set_check_sum_type(CheckType::Crc64);
        let failed = |e: std::io::Error| Error::codec("lzma2", "could not compress: ", e);
        append_or_restore(out, |out| {
            // LZMA2 stores incompressible data in uncompressed chunks: a little over n.
            out.reserve(input.len() + input.len() / 64 + 64);
            let mut writer = XzWriter::new(out, options).map_err(failed)?;
            writer.write_all(input).map_err(failed)?;
            writer.finish().map_err(failed)?;
            Ok(())
        })
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        decompress_into(out, expected_len, "decompressed xz stream", |sink| {
            each_member(input, sink, "xz", |stream, sink| {
                let padding = stream_padding(stream);
                if padding > 0 {
                    return Ok(padding);
                }
                let mut decoder = Unxz(XzStream::new(false));
                let room = first_room(stream.len());
                Ok(pump(&mut decoder, stream, sink, "xz", room, |_| {})?.consumed)
            })
        })
    }
}

/// The length of the stream padding (a multiple of four zero bytes) at the start of `data`.
fn stream_padding(data: &[u8]) -> usize {
    let zeros = data.iter().take_while(|&&b| b == 0).count();
    zeros - zeros % 4
}

/// One .xz stream's decoder as a [`StreamStep`]; a step is done at the end of the stream
/// (after its index and footer are checked).
struct Unxz(XzStream);

impl StreamStep for Unxz {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step> {
        let result = self
            .0
            .process(input, output, Action::Run)
            .map_err(|e| Error::codec("lzma2", "", e))?;
        Ok(Step {
            consumed: result.bytes_consumed,
            produced: result.bytes_produced,
            done: result.status == Status::StreamEnd,
        })
    }
}
