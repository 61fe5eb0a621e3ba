//! Page compression: which [`crate::compress`] codec each TsFile [`Compression`] type stands
//! for (`spec/tsfile.md` §6.4), and [`PageCodecs`], the per-reader/per-writer cache of those
//! codecs.
//!
//! | [`Compression`] | codec |
//! |---|---|
//! | `UNCOMPRESSED` | none: the page is stored as is |
//! | `SNAPPY` | one raw Snappy block ([`Framing::Raw`]) |
//! | `GZIP` | one gzip member ([`Framing::Gzip`]; the writer puts Hadoop's fixed header `1f 8b 08 00 00000000 00 00`, which every gzip reader takes) |
//! | `LZ4` | one raw LZ4 block ([`Framing::Raw`]) |
//! | `ZSTD` | one zstd frame ([`Framing::ZstdFrame`]) that records its content size, which the C++ reader requires; level 3 by default, as C++ writes (Java writes 22) |
//! | `LZMA2` | an .xz container ([`Framing::Xz`]), preset 6, CRC64, as Java and C++ write |
//! | `LZO` | one LZO1X block ([`Framing::Raw`]), as C++ writes with `lzokay` (Java cannot read LZO) |
//! | `SDT`, `PAA`, `PLA` | [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) |
//!
//! Each page is compressed on its own and must decompress to exactly the `uncompressed_size`
//! its header declares; the codecs never produce or allocate more than that.

use crate::compress::{check_plain_len, new_codec, Algorithm, Codec, Framing};
use crate::tsfile::format::Compression;
use crate::{Error, Limits, Result};

/// The algorithm and framing of a compression type: `Ok(None)` for `UNCOMPRESSED`,
/// [`ErrorKind::Unsupported`](crate::ErrorKind::Unsupported) naming the type for the reserved
/// SDT, PAA and PLA.
///
/// ```
/// use colfile::compress::{Algorithm, Framing};
/// use colfile::tsfile::format::Compression;
/// use colfile::tsfile::encoding::compression::page_codec;
///
/// assert_eq!(page_codec(Compression::Lz4)?, Some((Algorithm::Lz4, Framing::Raw)));
/// assert_eq!(page_codec(Compression::Uncompressed)?, None);
/// assert_eq!(page_codec(Compression::Lzo)?, Some((Algorithm::Lzo, Framing::Raw)));
/// assert!(page_codec(Compression::Sdt).unwrap_err().to_string().contains("SDT"));
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn page_codec(compression: Compression) -> Result<Option<(Algorithm, Framing)>> {
    Ok(Some(match compression {
        Compression::Uncompressed => return Ok(None),
        Compression::Snappy => (Algorithm::Snappy, Framing::Raw),
        Compression::Gzip => (Algorithm::Deflate, Framing::Gzip),
        Compression::Lz4 => (Algorithm::Lz4, Framing::Raw),
        Compression::Zstd => (Algorithm::Zstd, Framing::ZstdFrame),
        Compression::Lzma2 => (Algorithm::Lzma2, Framing::Xz),
        Compression::Lzo => (Algorithm::Lzo, Framing::Raw),
        other => {
            return Err(Error::unsupported(format!(
                "TsFile compression {other} is reserved and has no page codec"
            )))
        }
    }))
}

/// The level [`PageCodecs`] compresses ZSTD pages at unless told otherwise: the C++ writer's
/// `ZSTD_compress(level 3)`.
pub const DEFAULT_ZSTD_LEVEL: i32 = 3;

/// One slot per compression code (0–9).
const SLOTS: usize = 10;

/// The page codecs of one reader or writer: one codec per compression type, created when a
/// page first needs it and then reused, so backend state (hash tables, contexts) is kept
/// between pages.
///
/// ```
/// use colfile::tsfile::format::Compression;
/// use colfile::tsfile::encoding::compression::PageCodecs;
///
/// let mut codecs = PageCodecs::new();
/// let page = b"1700000000000,1700000001000,1700000002000,1700000003000";
/// let mut packed = Vec::new();
/// codecs.compress(Compression::Zstd, page, &mut packed)?;
/// assert_eq!(&packed[..4], &[0x28, 0xb5, 0x2f, 0xfd]);
///
/// let mut plain = Vec::new();
/// codecs.decompress(Compression::Zstd, &packed, &mut plain, page.len())?;
/// assert_eq!(plain, page);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct PageCodecs {
    codecs: [Option<Box<dyn Codec>>; SLOTS],
    levels: [Option<i32>; SLOTS],
    limits: Limits,
}

/// One compression code's codec, created on first use.
type CodecSlot = Option<Box<dyn Codec>>;

impl Default for PageCodecs {
    fn default() -> Self {
        Self::new()
    }
}

impl PageCodecs {
    /// Codecs at the default levels: GZIP 6, ZSTD [`DEFAULT_ZSTD_LEVEL`], LZMA2 preset 6;
    /// decompression bounded by the default [`Limits`].
    pub fn new() -> Self {
        Self::with_limits(&Limits::default())
    }

    /// Like [`new`](Self::new), with decompressed page sizes checked against `limits`
    /// (see [`check_plain_len`]).
    pub fn with_limits(limits: &Limits) -> Self {
        let mut levels = [None; SLOTS];
        if let Some(zstd) = levels.get_mut(usize::from(Compression::Zstd.code())) {
            *zstd = Some(DEFAULT_ZSTD_LEVEL);
        }
        PageCodecs {
            codecs: Default::default(),
            levels,
            limits: limits.clone(),
        }
    }

    /// Sets the level that pages of `compression` are written at (`None` = the codec's
    /// default; see [`crate::compress::new_codec`] for the ranges: GZIP 0–9, ZSTD up to 22,
    /// LZMA2 0–9).
    ///
    /// Errors: [`ErrorKind::InvalidArgument`](crate::ErrorKind::InvalidArgument) for a level
    /// out of range or for a type without levels (UNCOMPRESSED, SNAPPY, LZ4), and those of
    /// [`page_codec`].
    pub fn set_level(&mut self, compression: Compression, level: Option<i32>) -> Result<()> {
        let Some((algorithm, framing)) = page_codec(compression)? else {
            return match level {
                None => Ok(()),
                Some(_) => Err(Error::invalid("UNCOMPRESSED has no compression levels")),
            };
        };
        let codec = new_codec(algorithm, framing, level)?;
        let (codec_slot, level_slot) = self.slots(compression)?;
        *codec_slot = Some(codec);
        *level_slot = level;
        Ok(())
    }

    /// The codec and level slots of `compression` (there is one per compression code).
    fn slots(&mut self, compression: Compression) -> Result<(&mut CodecSlot, &mut Option<i32>)> {
        let i = usize::from(compression.code());
        match (self.codecs.get_mut(i), self.levels.get_mut(i)) {
            (Some(codec), Some(level)) => Ok((codec, level)),
            _ => Err(Error::unsupported(format!(
                "compression {}",
                compression.name()
            ))),
        }
    }

    /// The codec for `compression`, created on first use; `None` for UNCOMPRESSED.
    fn codec(&mut self, compression: Compression) -> Result<Option<&mut dyn Codec>> {
        let Some((algorithm, framing)) = page_codec(compression)? else {
            return Ok(None);
        };
        let (codec_slot, level) = self.slots(compression)?;
        let codec = match codec_slot {
            Some(codec) => codec,
            empty => empty.insert(new_codec(algorithm, framing, *level)?),
        };
        Ok(Some(codec.as_mut()))
    }

    /// Appends the compressed page of `input` to `out` (UNCOMPRESSED appends `input` as is).
    /// On error `out` is left as it was.
    ///
    /// Errors: those of [`page_codec`], [`ErrorKind::CodecDisabled`](crate::ErrorKind::CodecDisabled)
    /// when the codec's cargo feature is off, and the codec's own.
    pub fn compress(
        &mut self,
        compression: Compression,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<()> {
        match self.codec(compression)? {
            Some(codec) => codec.compress(input, out),
            None => {
                out.extend_from_slice(input);
                Ok(())
            }
        }
    }

    /// Decompresses one page and appends exactly `expected_len` (its header's
    /// `uncompressed_size`) bytes to `out`, with the guarantees of
    /// [`Codec::decompress`]. An UNCOMPRESSED page must be exactly `expected_len` bytes long:
    /// a shorter one is [`ErrorKind::Truncated`](crate::ErrorKind::Truncated), a longer one
    /// [`ErrorKind::Corrupt`](crate::ErrorKind::Corrupt). On error `out` is left as it was.
    ///
    /// Errors: as for [`compress`](Self::compress), plus those above, and
    /// [`ErrorKind::LimitExceeded`](crate::ErrorKind::LimitExceeded) from [`check_plain_len`]
    /// for a compressed page that declares more than the limits or its codec allow (checked
    /// before anything is allocated).
    pub fn decompress(
        &mut self,
        compression: Compression,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<()> {
        let limits = self.limits.clone();
        match self.codec(compression)? {
            Some(codec) => {
                let n =
                    check_plain_len(codec.algorithm(), input.len(), expected_len as u64, &limits)?;
                codec.decompress(input, out, n)
            }
            None if input.len() < expected_len => Err(Error::truncated(
                "uncompressed page",
                expected_len as u64,
                input.len() as u64,
            )),
            None if input.len() > expected_len => Err(Error::corrupt(
                "tsfile",
                format!(
                    "an uncompressed page of {} bytes declares {expected_len}",
                    input.len()
                ),
            )),
            None => {
                out.extend_from_slice(input);
                Ok(())
            }
        }
    }
}

#[cfg(all(
    test,
    feature = "deflate",
    feature = "snappy",
    feature = "lz4",
    feature = "zstd",
    feature = "lzma2",
    feature = "lzo"
))]
mod tests {
    use super::*;
    use crate::ErrorKind;

    fn page_data() -> Vec<u8> {
        (0..4000u32)
            .flat_map(|i| (1_700_000_000_000u64 + u64::from(i % 37) * 1000).to_be_bytes())
            .collect()
    }

    const SUPPORTED: [Compression; 7] = [
        Compression::Uncompressed,
        Compression::Snappy,
        Compression::Gzip,
        Compression::Lz4,
        Compression::Zstd,
        Compression::Lzma2,
        Compression::Lzo,
    ];

    #[test]
    fn every_supported_type_round_trips_and_reuses_its_codec() {
        let mut codecs = PageCodecs::new();
        let data = page_data();
        for compression in SUPPORTED {
            for piece in [&data[..], b"", &data[..7]] {
                let mut packed = b"x".to_vec();
                codecs.compress(compression, piece, &mut packed).unwrap();
                let mut plain = b"y".to_vec();
                codecs
                    .decompress(compression, &packed[1..], &mut plain, piece.len())
                    .unwrap_or_else(|e| panic!("{compression}: {e}"));
                assert_eq!(&plain[1..], piece, "{compression}");
                if compression != Compression::Uncompressed && !piece.is_empty() {
                    let err = codecs
                        .decompress(compression, &packed[1..], &mut plain, piece.len() + 1)
                        .unwrap_err();
                    assert!(
                        matches!(
                            err.kind(),
                            ErrorKind::Truncated { .. } | ErrorKind::Corrupt { .. }
                        ),
                        "{compression}: {err}"
                    );
                }
            }
        }
        let cached = codecs.codecs.iter().filter(|c| c.is_some()).count();
        assert_eq!(cached, 6);
    }

    #[test]
    fn first_bytes_are_what_the_references_write() {
        let mut codecs = PageCodecs::new();
        let data = page_data();
        let mut packed = Vec::new();
        codecs
            .compress(Compression::Gzip, &data, &mut packed)
            .unwrap();
        assert_eq!(&packed[..4], &[0x1f, 0x8b, 0x08, 0x00]);
        packed.clear();
        codecs
            .compress(Compression::Lzma2, &data, &mut packed)
            .unwrap();
        assert_eq!(
            &packed[..8],
            &[0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 0x00, 0x04]
        );
        packed.clear();
        codecs
            .compress(Compression::Snappy, &data, &mut packed)
            .unwrap();
        // The varint plain length 32 000.
        assert_eq!(&packed[..3], &[0x80, 0xfa, 0x01]);
    }

    /// The C++ reader (`ZSTD_getFrameContentSize`) refuses frames without a content size.
    #[test]
    fn zstd_pages_record_their_content_size() {
        use zstd::zstd_safe::get_frame_content_size;
        for level in [None, Some(1), Some(19), Some(22)] {
            let mut codecs = PageCodecs::new();
            codecs.set_level(Compression::Zstd, level).unwrap();
            for data in [page_data(), Vec::new(), vec![7; 300_000]] {
                let mut packed = Vec::new();
                codecs
                    .compress(Compression::Zstd, &data, &mut packed)
                    .unwrap();
                assert_eq!(
                    get_frame_content_size(&packed).ok(),
                    Some(Some(data.len() as u64)),
                    "level {level:?}, {} bytes",
                    data.len()
                );
            }
        }
    }

    #[test]
    fn levels_are_checked_and_used() {
        let mut codecs = PageCodecs::new();
        let data = page_data();
        let mut fast = Vec::new();
        codecs.set_level(Compression::Lzma2, Some(0)).unwrap();
        codecs
            .compress(Compression::Lzma2, &data, &mut fast)
            .unwrap();
        // Preset 0's dictionary (256 KiB) in the block header, instead of preset 6's 8 MiB.
        assert_eq!(fast[16], 0x0c);
        codecs.set_level(Compression::Zstd, Some(-3)).unwrap();
        codecs.set_level(Compression::Gzip, None).unwrap();
        codecs.set_level(Compression::Uncompressed, None).unwrap();
        for (compression, level) in [
            (Compression::Gzip, 10),
            (Compression::Zstd, 23),
            (Compression::Lzma2, -1),
            (Compression::Snappy, 1),
            (Compression::Lz4, 1),
            (Compression::Uncompressed, 1),
        ] {
            let err = codecs.set_level(compression, Some(level)).unwrap_err();
            assert!(
                matches!(err.kind(), ErrorKind::InvalidArgument(_)),
                "{compression} {level}: {err}"
            );
        }
    }

    #[test]
    fn unsupported_types_are_named() {
        let mut codecs = PageCodecs::new();
        for compression in [Compression::Sdt, Compression::Paa, Compression::Pla] {
            for err in [
                codecs
                    .compress(compression, b"abc", &mut Vec::new())
                    .unwrap_err(),
                codecs
                    .decompress(compression, b"abc", &mut Vec::new(), 3)
                    .unwrap_err(),
                codecs.set_level(compression, None).unwrap_err(),
            ] {
                assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
                assert!(err.to_string().contains(compression.name()), "{err}");
            }
        }
        assert_eq!(
            Compression::ALL.len(),
            SLOTS,
            "one slot per compression code"
        );
    }

    #[test]
    fn uncompressed_pages_must_have_the_declared_length() {
        let mut codecs = PageCodecs::new();
        let mut out = b"keep".to_vec();
        let err = codecs
            .decompress(Compression::Uncompressed, b"abc", &mut out, 4)
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Truncated { .. }), "{err}");
        let err = codecs
            .decompress(Compression::Uncompressed, b"abcde", &mut out, 4)
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }), "{err}");
        assert_eq!(out, b"keep");
        codecs
            .decompress(Compression::Uncompressed, b"abcd", &mut out, 4)
            .unwrap();
        assert_eq!(out, b"keepabcd");
    }

    /// One real page of each fixture written by the C++ 2.5 writer: (offset of the page
    /// data, compressed size, uncompressed size) from the Python oracle (`tsraw.py --pages`),
    /// and the CRC-32 of the plain page where Python could decode it (zlib, lzma).
    #[test]
    fn pages_written_by_cpp_decompress() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tsfile");
        let mut codecs = PageCodecs::new();
        for (name, compression, offset, compressed, plain_len, crc32, magic) in [
            (
                "snappy",
                Compression::Snappy,
                7790,
                544,
                2932,
                None,
                &[0xf4, 0x16][..],
            ),
            (
                "gzip",
                Compression::Gzip,
                16827,
                329,
                3709,
                Some(0xfa97_ce2c),
                &[0x1f, 0x8b],
            ),
            ("lz4", Compression::Lz4, 16020, 376, 3188, None, &[]),
            (
                "zstd",
                Compression::Zstd,
                16344,
                328,
                3709,
                None,
                &[0x28, 0xb5, 0x2f, 0xfd],
            ),
            (
                "lzma2",
                Compression::Lzma2,
                8722,
                324,
                2966,
                Some(0x1877_c34e),
                &[0xfd, 0x37],
            ),
        ] {
            let file = std::fs::read(dir.join(format!("comp_{name}.tsfile"))).unwrap();
            let page = &file[offset..offset + compressed];
            assert!(page.starts_with(magic), "{name}");
            let mut plain = Vec::new();
            codecs
                .decompress(compression, page, &mut plain, plain_len)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(plain.len(), plain_len, "{name}");
            if let Some(crc32) = crc32 {
                let mut crc = flate2::Crc::new();
                crc.update(&plain);
                assert_eq!(crc.sum(), crc32, "{name}");
            }
            assert!(codecs
                .decompress(compression, page, &mut Vec::new(), plain_len + 1)
                .is_err());
            assert!(codecs
                .decompress(compression, page, &mut Vec::new(), plain_len - 1)
                .is_err());
        }
    }
}
