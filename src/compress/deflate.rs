//! DEFLATE in a zlib stream (`DefaultCodec`, `DeflateCodec`) or a gzip member (`GzipCodec`),
//! with flate2's low-level `Compress`/`Decompress` (zlib-rs backend), reused across calls.
//!
//! Gzip members are framed here rather than by the backend so that the header is exactly
//! the one Hadoop's `BuiltInGzipCompressor` writes (`1f 8b 08 00 00000000 00 00`: no flags,
//! MTIME 0, XFL 0, OS 0) and so that the raw inflater can be reset cheaply between members.

use super::pump::{each_member, encode_all, first_room, pump, Step, StreamStep};
use super::stream::{append_or_restore, decompress_into};
use super::{check_level, Algorithm, Codec, Framing};
use crate::{Error, Result};
use flate2::{Compress, Compression, Crc, Decompress, FlushCompress, FlushDecompress, Status};

/// The gzip header Hadoop writes before every member.
pub(crate) const GZIP_HEADER: [u8; 10] = [0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0];

const FHCRC: u8 = 0x02;
const FEXTRA: u8 = 0x04;
const FNAME: u8 = 0x08;
const FCOMMENT: u8 = 0x10;
const FRESERVED: u8 = 0xe0;

/// zlib or gzip; see the module documentation.
pub(crate) struct DeflateCodec {
    gzip: bool,
    level: Compression,
    encoder: Option<Compress>,
    decoder: Option<Decompress>,
    crc: Crc,
}

impl std::fmt::Debug for DeflateCodec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeflateCodec")
            .field("framing", &self.framing())
            .field("level", &self.level.level())
            .finish_non_exhaustive()
    }
}

impl DeflateCodec {
    pub(crate) fn new(gzip: bool, level: Option<i32>) -> Result<Self> {
        let level = check_level("deflate", level, 0..=9, 6)?;
        Ok(DeflateCodec {
            gzip,
            level: Compression::new(level.unsigned_abs()),
            encoder: None,
            decoder: None,
            crc: Crc::new(),
        })
    }

    fn name(&self) -> &'static str {
        if self.gzip {
            "gzip"
        } else {
            "zlib"
        }
    }
}

impl Codec for DeflateCodec {
    fn algorithm(&self) -> Algorithm {
        Algorithm::Deflate
    }

    fn framing(&self) -> Framing {
        if self.gzip {
            Framing::Gzip
        } else {
            Framing::Zlib
        }
    }

    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
        let (gzip, level) = (self.gzip, self.level);
        let encoder = self
            .encoder
            .get_or_insert_with(|| Compress::new(level, !gzip));
        encoder.reset();
        append_or_restore(out, |out| {
            if gzip {
                out.extend_from_slice(&GZIP_HEADER);
            }
            deflate_all(encoder, input, out)?;
            if gzip {
                self.crc.reset();
                self.crc.update(input);
                out.extend_from_slice(&self.crc.sum().to_le_bytes());
                // ISIZE is the length modulo 2^32.
                out.extend_from_slice(&(input.len() as u32).to_le_bytes());
            }
            Ok(())
        })
    }

    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()> {
        let name = self.name();
        let what = if self.gzip {
            "decompressed gzip members"
        } else {
            "decompressed zlib streams"
        };
        let gzip = self.gzip;
        let decoder = self.decoder.get_or_insert_with(|| Decompress::new(!gzip));
        let crc = &mut self.crc;
        decompress_into(out, expected_len, what, |sink| {
            each_member(input, sink, name, |member, sink| {
                if !gzip {
                    decoder.reset(true);
                    return Ok(pump(
                        &mut Inflate(decoder),
                        member,
                        sink,
                        name,
                        first_room(member.len()),
                        |_| {},
                    )?
                    .consumed);
                }
                let header = gzip_header_len(member)?;
                let body = member.get(header..).unwrap_or_default();
                decoder.reset(false);
                crc.reset();
                let pumped = pump(
                    &mut Inflate(decoder),
                    body,
                    sink,
                    name,
                    first_room(body.len()),
                    |b| crc.update(b),
                )?;
                let mut used = header + pumped.consumed;
                if pumped.done {
                    check_gzip_trailer(member, used, crc)?;
                    used += 8;
                }
                Ok(used)
            })
        })
    }
}

/// Runs `encoder` (already reset) over all of `input`, appending to `out`.
fn deflate_all(encoder: &mut Compress, input: &[u8], out: &mut Vec<u8>) -> Result<()> {
    // zlib's deflateBound is a little under n + n/8 + 64 for every level.
    let bound = input.len() + input.len() / 8 + 64;
    encode_all(input, out, bound, |rest, out| {
        let before = encoder.total_in();
        let status = encoder
            .compress_vec(rest, out, FlushCompress::Finish)
            .map_err(|e| Error::codec("deflate", "could not compress: ", e))?;
        let used = usize::try_from(encoder.total_in() - before).unwrap_or(usize::MAX);
        Ok((used, status == Status::StreamEnd))
    })
}

/// The flate2 inflater as a [`StreamStep`].
struct Inflate<'a>(&'a mut Decompress);

impl Inflate<'_> {
    fn run(
        &mut self,
        call: impl FnOnce(&mut Decompress) -> Result<Status, flate2::DecompressError>,
    ) -> Result<Step> {
        let (in_before, out_before) = (self.0.total_in(), self.0.total_out());
        let status = call(self.0).map_err(|e| Error::codec("deflate", "", e))?;
        Ok(Step {
            consumed: usize::try_from(self.0.total_in() - in_before).unwrap_or(usize::MAX),
            produced: usize::try_from(self.0.total_out() - out_before).unwrap_or(usize::MAX),
            done: status == Status::StreamEnd,
        })
    }
}

impl StreamStep for Inflate<'_> {
    fn step(&mut self, input: &[u8], output: &mut [u8]) -> Result<Step> {
        self.run(|d| d.decompress(input, output, FlushDecompress::None))
    }

    fn step_vec(&mut self, input: &[u8], output: &mut Vec<u8>) -> Option<Result<Step>> {
        Some(self.run(|d| d.decompress_vec(input, output, FlushDecompress::None)))
    }
}

/// The length of the gzip member header at the start of `data`, with every optional field.
fn gzip_header_len(data: &[u8]) -> Result<usize> {
    let truncated =
        |needed: usize| Error::truncated("gzip header", needed as u64, data.len() as u64);
    let fixed: [u8; 10] = array_at(data, 0).ok_or_else(|| truncated(10))?;
    if [fixed[0], fixed[1]] != [GZIP_HEADER[0], GZIP_HEADER[1]] {
        return Err(Error::corrupt(
            "gzip",
            format!(
                "bad magic {:02x} {:02x}, expected 1f 8b",
                fixed[0], fixed[1]
            ),
        ));
    }
    if fixed[2] != 8 {
        return Err(Error::corrupt(
            "gzip",
            format!("compression method {}, expected 8 (deflate)", fixed[2]),
        ));
    }
    let flags = fixed[3];
    if flags & FRESERVED != 0 {
        return Err(Error::corrupt(
            "gzip",
            format!("reserved header flags set in {flags:#04x}"),
        ));
    }
    let mut pos = 10;
    if flags & FEXTRA != 0 {
        let xlen = array_at(data, pos).ok_or_else(|| truncated(pos + 2))?;
        pos += 2 + usize::from(u16::from_le_bytes(xlen));
        if pos > data.len() {
            return Err(truncated(pos));
        }
    }
    for flag in [FNAME, FCOMMENT] {
        if flags & flag != 0 {
            let rest = data.get(pos..).unwrap_or_default();
            let nul = rest
                .iter()
                .position(|&b| b == 0)
                .ok_or_else(|| truncated(data.len() + 1))?;
            pos += nul + 1;
        }
    }
    if flags & FHCRC != 0 {
        let stored = array_at(data, pos).ok_or_else(|| truncated(pos + 2))?;
        let stored = u16::from_le_bytes(stored);
        let mut crc = Crc::new();
        crc.update(data.get(..pos).unwrap_or(data));
        if crc.sum() as u16 != stored {
            return Err(Error::corrupt("gzip", "header checksum (FHCRC) mismatch"));
        }
        pos += 2;
    }
    Ok(pos)
}

/// The `N` bytes at `data[at..at + N]`, if they are all there.
fn array_at<const N: usize>(data: &[u8], at: usize) -> Option<[u8; N]> {
    data.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// Checks the CRC-32 and ISIZE at `member[at..at + 8]` against what `crc` saw.
fn check_gzip_trailer(member: &[u8], at: usize, crc: &Crc) -> Result<()> {
    let trailer: [u8; 8] = array_at(member, at).ok_or_else(|| {
        Error::truncated("gzip trailer", 8, member.len().saturating_sub(at) as u64)
    })?;
    let stored_crc = u32::from_le_bytes([trailer[0], trailer[1], trailer[2], trailer[3]]);
    let stored_size = u32::from_le_bytes([trailer[4], trailer[5], trailer[6], trailer[7]]);
    for (what, stored, actual) in [
        ("CRC-32", stored_crc, crc.sum()),
        ("ISIZE", stored_size, crc.amount()),
    ] {
        if stored != actual {
            return Err(Error::corrupt(
                "gzip",
                format!(
                    "{what} mismatch: the trailer says {stored:#010x}, the data has {actual:#010x}"
                ),
            ));
        }
    }
    Ok(())
}
