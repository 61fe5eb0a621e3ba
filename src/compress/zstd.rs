//! Zstandard frames (`ZStandardCodec`) through `zstd-safe`'s streaming API, with one
//! compression and one decompression context reused across calls.
//!
//! The writer emits one frame per call (with its content size). The reader takes any number
//! of frames, skippable frames included, and stops at the expected length.

use super::pump::{each_member, encode_all, first_room, pump, Step, StreamStep};
use super::stream::{append_or_restore, decompress_into};
use super::{check_level, Algorithm, Codec, Framing};
use crate::{Error, ErrorKind, Result};
use zstd::zstd_safe::{self, zstd_sys::ZSTD_EndDirective, CCtx, CParameter, DCtx};
use zstd_safe::{InBuffer, OutBuffer, ResetDirective};

/// Hadoop's `io.compression.codec.zstd.level` default.
const DEFAULT_LEVEL: i32 = 3;

/// zstd; see the module documentation.
pub(crate) struct ZstdCodec {
    level: i32,
    compressor: Option<CCtx<'static>>,
    decompressor: Option<DCtx<'static>>,
}

impl std::fmt::Debug for ZstdCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZstdCodec")
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}

/// zstd reports a bare error code; its name becomes the message of the
/// [`std::io::Error`] that `source()` returns (the `zstd` crate's own mapping does the same).
fn codec_error(what: &str, code: zstd_safe::ErrorCode) -> Error {
    let cause = std::io::Error::other(zstd_safe::get_error_name(code));
    Error::codec("zstd", what, cause)
}

fn no_memory() -> Error {
    Error::new(ErrorKind::Codec {
        codec: "zstd",
        message: "could not allocate a context".to_owned(),
    })
}

impl ZstdCodec {
    pub(crate) fn new(level: Option<i32>) -> Result<Self> {
        let range = zstd_safe::min_c_level()..=zstd_safe::max_c_level();
        Ok(ZstdCodec {
            level: check_level("zstd", level, range, DEFAULT_LEVEL)?,
            compressor: None,
            decompressor: None,
        })
    }
}

impl Codec for ZstdCodec {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Zstd
    }

    fn framing(&self) -> Framing {
        Framing::ZstdFrame
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let cctx = match &mut self.compressor {
            Some(cctx) => cctx,
            empty => {
                let mut cctx = CCtx::try_create().ok_or_else(no_memory)?;
                cctx.set_parameter(CParameter::CompressionLevel(self.level))
                    .map_err(|c| codec_error("level: ", c))?;
                empty.insert(cctx)
            }
        };
        cctx.reset(ResetDirective::SessionOnly)
            .map_err(|c| codec_error("reset: ", c))?;
        let bound = zstd_safe::compress_bound(input.len());
        append_or_restore(out, |out| {
            encode_all(input, out, bound, |rest, out| {
                let mut source = InBuffer::around(rest);
                let pos = out.len();
                let left = cctx
                    .compress_stream2(
                        &mut OutBuffer::around_pos(out, pos),
                        &mut source,
                        ZSTD_EndDirective::ZSTD_e_end,
                    )
                    .map_err(|c| codec_error("could not compress: ", c))?;
                Ok((source.pos(), left == 0))
            })
        })
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        if expected_len == 0 {
            return Ok(());
        }
        let dctx = match &mut self.decompressor {
            Some(dctx) => dctx,
            empty => empty.insert(DCtx::try_create().ok_or_else(no_memory)?),
        };
        // Also clears the error state a corrupt frame leaves behind.
        dctx.reset(ResetDirective::SessionOnly)
            .map_err(|c| codec_error("reset: ", c))?;
        decompress_into(out, expected_len, "decompressed zstd frames", |sink| {
            each_member(input, sink, "zstd", |frame, sink| {
                let room = frame_room(frame, sink.remaining())?;
                Ok(pump(&mut Unzstd(dctx), frame, sink, "zstd", room, |_| {})?.consumed)
            })
        })
    }
}

/// The first output room for the frame at the start of `data`, when `remaining` plain bytes are
/// still wanted. A frame that declares its content size gets room for all of it at once, which
/// lets zstd decode it in one pass straight into the output; a declared size above `remaining`
/// is corrupt. The room never exceeds what the frame's compressed size can possibly hold (an
/// RLE block turns 4 bytes into at most 128 KiB), so a tiny frame that declares a huge size
/// fails after little work.
fn frame_room(data: &[u8], remaining: usize) -> Result<usize> {
    let declared = match zstd_safe::get_frame_content_size(data) {
        Ok(Some(n)) => n,
        // Unknown size, a skippable frame, or a header zstd rejects (reported when decoding).
        Ok(None) | Err(_) => return Ok(first_room(data.len())),
    };
    if declared > remaining as u64 {
        return Err(Error::corrupt(
            "zstd",
            format!("a frame declares {declared} plain bytes, more than the {remaining} expected"),
        ));
    }
    let densest = data.len().saturating_mul(1 << 15).saturating_add(1 << 17);
    Ok(usize::try_from(declared)
        .unwrap_or(usize::MAX)
        .min(densest)
        .max(1))
}

/// The decompression context as a [`StreamStep`]; a step is done at the end of each frame.
struct Unzstd<'a, 'b>(&'a mut DCtx<'b>);

impl Unzstd<'_, '_> {
    fn run<C: zstd_safe::WriteBuf + ?Sized>(
        &mut self,
        input: &[u8],
        mut sink: OutBuffer<'_, C>,
    ) -> Result<Step> {
        let start = sink.pos();
        let mut source = InBuffer::around(input);
        let hint = self
            .0
            .decompress_stream(&mut sink, &mut source)
            .map_err(|c| codec_error("", c))?;
        Ok(Step {
            consumed: source.pos(),
            produced: sink.pos() - start,
            done: hint == 0,
        })
    }
}

impl StreamStep for Unzstd<'_, '_> {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step> {
        self.run(input, OutBuffer::around(output))
    }

    fn step_vec(&mut self, input: &[u8], output: &mut Vec<u8>) -> Option<Result<Step>> {
        let len = output.len();
        Some(self.run(input, OutBuffer::around_pos(output, len)))
    }
}
