//! Drivers for the streaming backends (zlib/gzip, zstd, bzip2, xz): [`pump`] runs one stream into a
//! [`Sink`], [`each_member`] loops over concatenated streams, and [`encode_all`] runs an encoder
//! to the end of its stream.

use super::stream::Sink;
use crate::{Error, Result};

/// What one call into a streaming backend did.
pub(crate) struct Step {
    /// Input bytes consumed.
    pub(crate) consumed: usize,
    /// Output bytes written at the start of the output slice.
    pub(crate) produced: usize,
    /// The stream (zlib stream, gzip member body, bzip2 stream, zstd frame) is complete.
    pub(crate) done: bool,
}

/// A streaming decompressor that reads some input and writes some output per call.
pub(crate) trait StreamStep {
    /// One call into the backend, writing at the start of `output`.
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step>;
    /// One call into the backend, writing into the spare capacity of `output` (never beyond it,
    /// never reallocating) and growing its length by what it wrote. Saves zeroing the output.
    /// `None` (without doing anything) for a backend that can only write into initialised
    /// memory: [`pump`] then zeroes a room and calls [`step`](Self::step).
    fn step_vec(&mut self, _input: &[u8], _output: &mut Vec<u8>) -> Option<Result<Step>> {
        None
    }
}

/// A first output room for a stream of `input_len` compressed bytes: enough for typical
/// ratios, small for a tiny input that claims a huge output.
pub(crate) fn first_room(input_len: usize) -> usize {
    input_len.saturating_mul(4).max(64 << 10)
}

/// How [`pump`] ended.
pub(crate) struct Pumped {
    /// Input bytes consumed.
    pub(crate) consumed: usize,
    /// The stream completed; `false` means that the input ran out before the sink was full.
    #[cfg_attr(not(feature = "deflate"), allow(dead_code))] // only gzip reads a trailer
    pub(crate) done: bool,
}

/// Feeds `input` to `decoder` until its stream ends, the sink is full or the input runs out.
/// The first output room is `first_room` bytes (see [`first_room`]); later ones double with
/// what has been produced. `seen` is shown every produced piece (for checksums). A decoder that stops making progress
/// while input remains is reported as corrupt `format` data.
///
/// A stream must end exactly where the sink fills up: the decoder then gets one more call with
/// no output room, in which it reads the stream's trailer and verifies its checksum. A stream
/// that goes on past the expected length is corrupt; this catches corruption that lengthens
/// the output, which a checksum alone would only catch after decoding the excess. (No writer
/// emits such streams: Hive, Trino and Impala all compress exactly the declared bytes.)
pub(crate) fn pump(
    decoder: &mut dyn StreamStep,
    input: &[u8],
    sink: &mut Sink<'_>,
    format: &'static str,
    first_room: usize,
    mut seen: impl FnMut(&[u8]),
) -> Result<Pumped> {
    let mut consumed = 0;
    loop {
        let probing = sink.is_full();
        let rest = input.get(consumed..).unwrap_or_default();
        let mut stepped = None;
        if let Some(vec) = sink.exact_spare().filter(|_| !probing) {
            let before = vec.len();
            if let Some(step) = decoder.step_vec(rest, vec) {
                let fresh = vec.get(before..).unwrap_or_default();
                seen(fresh);
                stepped = Some((step?, fresh.len()));
            }
        }
        let (step, produced) = match stepped {
            Some(done) => done,
            None => {
                let room = if probing {
                    &mut [][..]
                } else {
                    sink.stream_room(first_room)
                };
                let step = decoder.step(rest, room)?;
                let produced = step.produced.min(room.len());
                seen(room.get(..produced).unwrap_or_default());
                (step, produced)
            }
        };
        sink.commit(produced);
        consumed += step.consumed.min(rest.len());
        if step.done {
            return Ok(Pumped {
                consumed,
                done: true,
            });
        }
        if probing {
            if consumed >= input.len() {
                // All the data is there but the stream's end (trailer, checksum) is not.
                return Err(Error::truncated(
                    "end of the compressed stream",
                    consumed as u64 + 1,
                    consumed as u64,
                ));
            }
            return Err(Error::corrupt(
                format,
                format!(
                    "the stream holds more than the declared {} plain bytes",
                    sink.expected()
                ),
            ));
        }
        if step.consumed == 0 && produced == 0 {
            if consumed < input.len() {
                return Err(Error::corrupt(
                    format,
                    format!("the decoder stopped at byte {consumed} of the stream"),
                ));
            }
            return Ok(Pumped {
                consumed,
                done: false,
            });
        }
    }
}

/// Decodes concatenated streams from `input` until the sink is full or the input ends.
/// `member` decodes one stream from the start of its argument and returns the bytes it used.
pub(crate) fn each_member(
    input: &[u8],
    sink: &mut Sink<'_>,
    format: &'static str,
    mut member: impl FnMut(&[u8], &mut Sink<'_>) -> Result<usize>,
) -> Result<()> {
    let mut pos = 0;
    while !sink.is_full() {
        let Some(rest) = input.get(pos..).filter(|r| !r.is_empty()) else {
            break;
        };
        let used = member(rest, sink)?;
        if used == 0 {
            return Err(Error::corrupt(
                format,
                format!("undecodable data at byte {pos} of the compressed buffer"),
            ));
        }
        pos += used;
    }
    Ok(())
}

/// Runs an encoder that writes into the spare capacity of `out` until it finishes its stream.
/// `step(rest, out)` is given the input not consumed yet and returns how much of it it consumed
/// and whether the stream is finished. `bound` is the expected compressed size, reserved first.
#[cfg(any(feature = "deflate", feature = "zstd", feature = "bzip2"))]
pub(crate) fn encode_all(
    input: &[u8],
    out: &mut Vec<u8>,
    bound: usize,
    mut step: impl FnMut(&[u8], &mut Vec<u8>) -> Result<(usize, bool)>,
) -> Result<()> {
    out.reserve(bound);
    let mut consumed = 0;
    loop {
        if out.len() == out.capacity() {
            out.reserve(input.len() / 8 + 1024);
        }
        let rest = input.get(consumed..).unwrap_or_default();
        let (used, finished) = step(rest, out)?;
        if finished {
            return Ok(());
        }
        consumed += used;
    }
}
