//! bzip2 streams (`BZip2Codec`) with the `bzip2` crate (pure-Rust libbz2-rs-sys backend).
//!
//! The writer emits a full standard stream (`BZh9`, blocks, end-of-stream marker and combined
//! CRC), as Hadoop's `BZip2CompressionOutputStream` and libbz2 do. The reader accepts a stream
//! with or without the leading `BZ` (Hadoop's reader strips it, so some writers may leave it
//! out), and several concatenated streams.
//!
//! libbz2 has no way to reset a stream, so each call creates its backend state afresh.

use super::pump::{each_member, encode_all, first_room, pump, Step, StreamStep};
use super::stream::{append_or_restore, decompress_into};
use super::{check_level, Algorithm, Codec, Framing};
use crate::{Error, ErrorKind, Result};
use bzip2::{Action, Compress, Compression, Decompress, Status};

/// Hadoop's pure-Java writer always uses 900 kB blocks (`BZh9`).
const DEFAULT_LEVEL: i32 = 9;
/// libbz2's default work factor (`bzip2.compress.workfactor` in Hadoop's native path).
const WORK_FACTOR: u32 = 30;
const MAGIC: &[u8; 2] = b"BZ";

/// bzip2; see the module documentation.
#[derive(Debug)]
pub(crate) struct Bzip2Codec {
    level: u32,
}

fn codec_error(message: String) -> Error {
    Error::new(ErrorKind::Codec {
        codec: "bzip2",
        message,
    })
}

impl Bzip2Codec {
    pub(crate) fn new(level: Option<i32>) -> Result<Self> {
        let level = check_level("bzip2", level, 1..=9, DEFAULT_LEVEL)?;
        Ok(Bzip2Codec {
            level: level.unsigned_abs(),
        })
    }
}

impl Codec for Bzip2Codec {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Bzip2
    }

    fn framing(&self) -> Framing {
        Framing::Bzip2Stream
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let mut encoder = Compress::new(Compression::new(self.level), WORK_FACTOR);
        let bound = input.len() + input.len() / 64 + 1024;
        append_or_restore(out, |out| {
            encode_all(input, out, bound, |rest, out| {
                let before = encoder.total_in();
                let status = encoder
                    .compress_vec(rest, out, Action::Finish)
                    .map_err(|e| Error::codec("bzip2", "could not compress: ", e))?;
                let used = usize::try_from(encoder.total_in() - before).unwrap_or(usize::MAX);
                Ok((used, status == Status::StreamEnd))
            })
        })
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        decompress_into(out, expected_len, "decompressed bzip2 stream", |sink| {
            each_member(input, sink, "bzip2", |stream, sink| {
                let mut decoder = Decompress::new(false);
                if !stream.starts_with(MAGIC) {
                    // Hadoop-style stream without its "BZ": give the decoder the magic first.
                    decoder
                        .decompress(MAGIC, &mut [])
                        .map_err(|e| Error::codec("bzip2", "", e))?;
                }
                Ok(pump(
                    &mut Unbzip(decoder),
                    stream,
                    sink,
                    "bzip2",
                    first_room(stream.len()),
                    |_| {},
                )?
                .consumed)
            })
        })
    }
}

/// The bzip2 decoder as a [`StreamStep`].
struct Unbzip(Decompress);

impl Unbzip {
    fn run(
        &mut self,
        call: impl FnOnce(&mut Decompress) -> Result<Status, bzip2::Error>,
    ) -> Result<Step> {
        let (in_before, out_before) = (self.0.total_in(), self.0.total_out());
        let status = call(&mut self.0).map_err(|e| Error::codec("bzip2", "", e))?;
        if status == Status::MemNeeded {
            return Err(codec_error("out of memory".to_owned()));
        }
        Ok(Step {
            consumed: usize::try_from(self.0.total_in() - in_before).unwrap_or(usize::MAX),
            produced: usize::try_from(self.0.total_out() - out_before).unwrap_or(usize::MAX),
            done: status == Status::StreamEnd,
        })
    }
}

impl StreamStep for Unbzip {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step> {
        self.run(|d| d.decompress(input, output))
    }

    fn step_vec(&mut self, input: &[u8], output: &mut Vec<u8>) -> Option<Result<Step>> {
        Some(self.run(|d| d.decompress_vec(input, output)))
    }
}
