//! Compression codecs and the containers ("framings") that Hadoop wraps around them.
//!
//! This module owns everything between a plain byte buffer and the compressed bytes that an
//! RCFile key section or column buffer holds on disk (`spec/rcfile.md` §6):
//!
//! | Hadoop class ([`HadoopCodec`]) | [`Algorithm`] | [`Framing`] |
//! |---|---|---|
//! | `DefaultCodec`, `DeflateCodec` | Deflate | [`Framing::Zlib`]: one RFC 1950 stream, level 6 (`78 9C`) |
//! | `GzipCodec` | Deflate | [`Framing::Gzip`]: one RFC 1952 member with Hadoop's fixed header `1f 8b 08 00 00000000 00 00` |
//! | `SnappyCodec` | Snappy | [`Framing::HadoopBlock`] of raw Snappy blocks, 218 422 input bytes per chunk |
//! | `Lz4Codec` | Lz4 | [`Framing::HadoopBlock`] of raw LZ4 blocks, 261 100 input bytes per chunk |
//! | `ZStandardCodec` | Zstd | [`Framing::ZstdFrame`]: one zstd frame, level 3 |
//! | `BZip2Codec` | Bzip2 | [`Framing::Bzip2Stream`]: one standard `BZh9` stream |
//!
//! TsFile pages (`spec/tsfile.md` §6.4) use the bare blocks ([`Framing::Raw`] Snappy, LZ4 and
//! LZO1X, the last in `lzo.rs` without dependencies),
//! gzip members, zstd frames and LZMA2 in an .xz container ([`Framing::Xz`], preset 6, CRC64);
//! `crate::tsfile::encoding::compression` maps its compression types to these codecs.
//!
//! Writers produce exactly the structure Hadoop produces. Readers are liberal, as Hive, Trino and
//! Impala are: concatenated zlib streams, gzip members and zstd frames, skippable zstd frames,
//! gzip header extras, bzip2 streams without their leading `BZ`, empty Hadoop blocks and several
//! chunks per block are all accepted.
//!
//! Decompression is always told how many bytes to produce (the plain length that the file
//! declares). A codec never writes more than that into the output and allocates at most that
//! much: it reserves the capacity (address space only) and then either lets the backend write
//! straight into it (zlib, gzip, zstd and bzip2, when the `Vec` has no excess capacity) or
//! zeroes the buffer only as fast as the decoder fills it, so a tiny input that claims a huge
//! output fails after a little work. A short output is [`ErrorKind::Truncated`]. The stream (or
//! Hadoop chunk) that reaches the declared length must end there, so its checksum is verified
//! and corruption that lengthens the output is caught; whatever follows it (more members, empty
//! Hadoop blocks, padding) is ignored, as every reference reader ignores it.
//!
//! Each backend is behind a cargo feature (`deflate`, `snappy`, `lz4`, `zstd`, `bzip2`, `lzma2`,
//! `lzo`); asking
//! for a codec whose feature is off gives [`ErrorKind::CodecDisabled`].
//!
//! Errors carry no location: the caller knows which file offset, row group and column the
//! compressed buffer came from and adds it; positions inside the compressed buffer are in the
//! message.

use crate::{Error, ErrorKind, Result};

#[cfg(any(feature = "snappy", feature = "lz4", feature = "lzo"))]
mod block;
#[cfg(feature = "bzip2")]
mod bzip2;
#[cfg(feature = "deflate")]
mod deflate;
#[cfg(any(feature = "snappy", feature = "lz4", feature = "lzo"))]
mod hadoop_block;
#[cfg(feature = "lz4")]
mod lz4;
#[cfg(feature = "lzo")]
mod lzo;
#[cfg(any(
    feature = "deflate",
    feature = "zstd",
    feature = "bzip2",
    feature = "lzma2"
))]
mod pump;
#[cfg(feature = "snappy")]
mod snappy;
#[cfg(any(
    feature = "deflate",
    feature = "snappy",
    feature = "lz4",
    feature = "lzo",
    feature = "zstd",
    feature = "bzip2",
    feature = "lzma2"
))]
mod stream;
#[cfg(feature = "lzma2")]
mod xz;
#[cfg(feature = "zstd")]
mod zstd;

/// A compression algorithm, independent of the container around its output.
#[non_exhaustive]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// DEFLATE (RFC 1951), inside a zlib or gzip container.
    Deflate,
    /// Snappy raw blocks.
    Snappy,
    /// LZ4 raw blocks (the block format, not the LZ4 frame format).
    Lz4,
    /// Zstandard.
    Zstd,
    /// bzip2.
    Bzip2,
    /// LZMA2 (the LZMA variant of the .xz format), inside an .xz container.
    Lzma2,
    /// LZO1X raw blocks (TsFile's LZO; not Hadoop's LZO codecs, which are other formats).
    Lzo,
}

impl Algorithm {
    /// Lower-case name, as used in error messages and by the cargo feature of the same name
    /// (`deflate`, `snappy`, `lz4`, `zstd`, `bzip2`, `lzma2`, `lzo`).
    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Deflate => "deflate",
            Algorithm::Snappy => "snappy",
            Algorithm::Lz4 => "lz4",
            Algorithm::Zstd => "zstd",
            Algorithm::Bzip2 => "bzip2",
            Algorithm::Lzma2 => "lzma2",
            Algorithm::Lzo => "lzo",
        }
    }

    /// The most plain bytes that `compressed_len` bytes of this algorithm can decode to, in
    /// any framing (headers, lengths and trailers only add compressed bytes). Each bound is
    /// the densest element of the format: a DEFLATE 258-byte match in 2 bits (1032:1), a
    /// 3-byte Snappy copy of 64 bytes, a 255-byte LZ4 or LZO length byte, a 4-byte zstd RLE
    /// block of 128 KiB, a bzip2 block (at least 16 bytes) of 900 000 run-length pairs of
    /// 259 bytes, and a 6-byte LZMA2 chunk of 2 MiB.
    ///
    /// ```
    /// use colfile::compress::Algorithm;
    /// assert_eq!(Algorithm::Deflate.max_plain_len(10), 10_578);
    /// assert!(Algorithm::Zstd.max_plain_len(4) >= 128 << 10);
    /// ```
    pub fn max_plain_len(self, compressed_len: usize) -> u64 {
        let (per_byte, extra) = match self {
            Algorithm::Deflate => (1032, 258),
            Algorithm::Snappy => (22, 0),
            Algorithm::Lz4 | Algorithm::Lzo => (255, 16),
            Algorithm::Zstd => (32 << 10, 0),
            Algorithm::Bzip2 => (900_000 / 5 * 259 / 16 + 1, 0),
            Algorithm::Lzma2 => ((2 << 20) / 6 + 1, 0),
        };
        (compressed_len as u64)
            .saturating_mul(per_byte)
            .saturating_add(extra)
    }
}

/// Checks the plain length that a file declares for `compressed_len` bytes of `algorithm`
/// before anything is allocated for it, and returns it as a `usize`.
///
/// Errors: [`ErrorKind::LimitExceeded`] when `declared` is above
/// [`Limits::max_decompressed_bytes`](crate::Limits::max_decompressed_bytes) (`what` is
/// `"decompressed size"`), above what `algorithm` can produce from `compressed_len` bytes
/// ([`Algorithm::max_plain_len`]; `what` is `"decompressed size for the compressed length"`)
/// or above [`Limits::max_alloc_bytes`](crate::Limits::max_alloc_bytes).
///
/// ```
/// use colfile::compress::{check_plain_len, Algorithm};
/// use colfile::{ErrorKind, Limits};
/// let limits = Limits::default();
/// assert_eq!(check_plain_len(Algorithm::Lz4, 100, 20_000, &limits)?, 20_000);
/// // 100 bytes of LZ4 cannot hold 1 MB: a bomb, refused before allocating.
/// let e = check_plain_len(Algorithm::Lz4, 100, 1 << 20, &limits).unwrap_err();
/// assert!(matches!(e.kind(), ErrorKind::LimitExceeded { limit: 25_516, .. }));
/// # Ok::<(), colfile::Error>(())
/// ```
pub fn check_plain_len(
    algorithm: Algorithm,
    compressed_len: usize,
    declared: u64,
    limits: &crate::Limits,
) -> Result<usize> {
    let cap = limits.max_decompressed_bytes as u64;
    if declared > cap {
        return Err(Error::limit("decompressed size", declared, cap));
    }
    let most = algorithm.max_plain_len(compressed_len);
    if declared > most {
        return Err(Error::limit(
            "decompressed size for the compressed length",
            declared,
            most,
        ));
    }
    limits.check_alloc("decompressed size", declared)
}

/// The container around an algorithm's output.
#[non_exhaustive]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Framing {
    /// One bare block of the algorithm, nothing around it (Snappy raw, LZ4 block).
    Raw,
    /// A zlib stream (RFC 1950): 2-byte header, DEFLATE data, Adler-32.
    Zlib,
    /// A gzip member (RFC 1952): header, DEFLATE data, CRC-32 and size.
    Gzip,
    /// Hadoop's `BlockCompressorStream` layout: blocks of `Int32 plainLength` followed by chunks of
    /// `Int32 compressedLength` and one raw block each (all big-endian).
    HadoopBlock,
    /// One or more zstd frames.
    ZstdFrame,
    /// A standard bzip2 stream (`BZh` + level digit, blocks, end-of-stream marker).
    Bzip2Stream,
    /// An .xz stream: the header `fd 37 7a 58 5a 00`, blocks, an index and a footer.
    Xz,
}

/// A compressor and decompressor for one algorithm in one framing.
///
/// A `Codec` keeps its backend state (hash tables, windows, contexts) between calls, so one
/// value should be reused for all the buffers of a file. Every call is independent: each
/// `compress` writes one complete stream and each `decompress` reads one.
///
/// ```
/// use colfile::compress::HadoopCodec;
///
/// let mut codec = HadoopCodec::from_class_name("org.apache.hadoop.io.compress.DefaultCodec")?
///     .codec()?;
/// let column = b"one,two,three,one,two,three,one,two,three";
/// let mut packed = Vec::new();
/// codec.compress(column, &mut packed)?;
/// assert_eq!(&packed[..2], &[0x78, 0x9c]); // a zlib stream at level 6
///
/// let mut plain = Vec::new();
/// codec.decompress(&packed, &mut plain, column.len())?;
/// assert_eq!(plain, column);
///
/// // A declared length that the stream cannot fill is an error, not a short buffer.
/// assert!(codec.decompress(&packed, &mut Vec::new(), column.len() + 1).is_err());
/// # Ok::<(), colfile::Error>(())
/// ```
pub trait Codec: Send + std::fmt::Debug {
    /// The algorithm.
    fn algorithm(&self) -> Algorithm;
    /// The container around the algorithm's output.
    fn framing(&self) -> Framing;
    /// Appends ONE complete, independent compressed stream of `input` to `out` (never clears
    /// `out`). On error `out` is left as it was.
    fn compress(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<()>;
    /// Decompresses `input` and appends exactly `expected_len` bytes to `out`.
    ///
    /// `expected_len` is the plain size that the file declares; the caller has already checked
    /// it against its [`Limits`](crate::Limits). Nothing beyond `expected_len` is produced or
    /// allocated: a stream (or Hadoop chunk) that would decode to more is rejected as
    /// [`ErrorKind::Corrupt`] without decoding the excess, while input after the stream that
    /// completes `expected_len` is ignored, as the reference readers ignore it. Input that
    /// decodes to less is [`ErrorKind::Truncated`] or [`ErrorKind::Corrupt`]. When
    /// `expected_len` is 0 the input is not looked at. On error `out` is left as it was.
    ///
    /// Speed: when `out`'s spare capacity is no more than `expected_len` (a new `Vec`, or one
    /// made with `Vec::with_capacity(out.len() + expected_len)`), zlib, gzip, zstd and bzip2
    /// write straight into it; otherwise the output window is zeroed first (about 20 µs per
    /// MiB), as it always is for Snappy, LZ4 and xz.
    fn decompress(&mut self, input: &[u8], out: &mut Vec<u8>, expected_len: usize) -> Result<()>;

    /// Like [`decompress`](Self::decompress), but the `expected_len` bytes replace the contents
    /// of `out`, and on error `out` is left empty.
    ///
    /// Speed: this is the call for a reader that reuses one `Vec` per column. Snappy and LZ4
    /// decode over the bytes `out` already holds instead of zeroing them again first, so a
    /// reused buffer is zeroed only where it grows; the other codecs clear `out` and decompress
    /// into it.
    fn decompress_replace(
        &mut self,
        input: &[u8],
        out: &mut Vec<u8>,
        expected_len: usize,
    ) -> Result<()> {
        out.clear();
        self.decompress(input, out, expected_len)
    }
}

/// The Hadoop `CompressionCodec` classes that RCFile headers name.
///
/// ```
/// use colfile::compress::{Algorithm, Framing, HadoopCodec};
///
/// let codec = HadoopCodec::from_class_name("org.apache.hadoop.io.compress.SnappyCodec")?;
/// assert_eq!(codec, HadoopCodec::Snappy);
/// assert_eq!(codec.short_name(), "snappy");
/// assert_eq!((codec.algorithm(), codec.framing()), (Algorithm::Snappy, Framing::HadoopBlock));
/// assert_eq!(HadoopCodec::from_short_name("zstd")?.class_name(),
///            "org.apache.hadoop.io.compress.ZStandardCodec");
///
/// let err = HadoopCodec::from_class_name("com.example.MyCodec").unwrap_err();
/// assert!(err.to_string().contains("com.example.MyCodec"));
/// # Ok::<(), colfile::Error>(())
/// ```
#[non_exhaustive]
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum HadoopCodec {
    /// `org.apache.hadoop.io.compress.DefaultCodec`: zlib. Hive's default, and what writers should use
    /// for zlib.
    Default,
    /// `org.apache.hadoop.io.compress.DeflateCodec`: a subclass of `DefaultCodec`, same zlib streams.
    /// Read it, but don't write it: Trino does not know this class.
    Deflate,
    /// `org.apache.hadoop.io.compress.GzipCodec`: gzip members.
    Gzip,
    /// `org.apache.hadoop.io.compress.SnappyCodec`: Hadoop block framing of raw Snappy.
    Snappy,
    /// `org.apache.hadoop.io.compress.Lz4Codec`: Hadoop block framing of raw LZ4.
    Lz4,
    /// `org.apache.hadoop.io.compress.ZStandardCodec`: zstd frames.
    ZStandard,
    /// `org.apache.hadoop.io.compress.BZip2Codec`: bzip2 streams.
    BZip2,
}

/// LZO codec classes (GPL `hadoop-lzo`), which this crate knows of but does not implement.
const LZO_CLASSES: [&str; 3] = [
    "org.apache.hadoop.io.compress.LzoCodec",
    "com.hadoop.compression.lzo.LzoCodec",
    "com.hadoop.compression.lzo.LzopCodec",
];

impl HadoopCodec {
    /// Every codec, in a fixed order.
    pub const ALL: [HadoopCodec; 7] = [
        HadoopCodec::Default,
        HadoopCodec::Deflate,
        HadoopCodec::Gzip,
        HadoopCodec::Snappy,
        HadoopCodec::Lz4,
        HadoopCodec::ZStandard,
        HadoopCodec::BZip2,
    ];

    /// The codec that a header's class name names, e.g.
    /// `org.apache.hadoop.io.compress.GzipCodec`. The match is exact (Java class names are
    /// case-sensitive).
    ///
    /// Errors: the LZO classes (`org.apache.hadoop.io.compress.LzoCodec`,
    /// `com.hadoop.compression.lzo.LzoCodec`, `com.hadoop.compression.lzo.LzopCodec`) give
    /// [`ErrorKind::Unsupported`] naming the class; any other class gives
    /// [`ErrorKind::UnknownCodec`] with the class name.
    pub fn from_class_name(name: &str) -> Result<HadoopCodec> {
        if let Some(codec) = Self::ALL.into_iter().find(|c| c.class_name() == name) {
            Ok(codec)
        } else if LZO_CLASSES.contains(&name) {
            Err(Error::unsupported(format!(
                "compression codec {name}: LZO is not implemented"
            )))
        } else {
            Err(Error::new(ErrorKind::UnknownCodec(name.to_owned())))
        }
    }

    /// The fully qualified Java class name, e.g. `org.apache.hadoop.io.compress.DefaultCodec`.
    pub fn class_name(self) -> &'static str {
        match self {
            HadoopCodec::Default => "org.apache.hadoop.io.compress.DefaultCodec",
            HadoopCodec::Deflate => "org.apache.hadoop.io.compress.DeflateCodec",
            HadoopCodec::Gzip => "org.apache.hadoop.io.compress.GzipCodec",
            HadoopCodec::Snappy => "org.apache.hadoop.io.compress.SnappyCodec",
            HadoopCodec::Lz4 => "org.apache.hadoop.io.compress.Lz4Codec",
            HadoopCodec::ZStandard => "org.apache.hadoop.io.compress.ZStandardCodec",
            HadoopCodec::BZip2 => "org.apache.hadoop.io.compress.BZip2Codec",
        }
    }

    /// The codec for a command-line name: `deflate` (= [`HadoopCodec::Default`]), `gzip`,
    /// `snappy`, `lz4`, `zstd` or `bzip2`, in any letter case. Anything else gives
    /// [`ErrorKind::UnknownCodec`].
    pub fn from_short_name(s: &str) -> Result<HadoopCodec> {
        // `Default` comes before `Deflate` in `ALL`, so "deflate" finds `Default`.
        Self::ALL
            .into_iter()
            .find(|c| c.short_name().eq_ignore_ascii_case(s))
            .ok_or_else(|| Error::new(ErrorKind::UnknownCodec(s.to_owned())))
    }

    /// The command-line name. Both zlib classes are `deflate`, which
    /// [`from_short_name`](Self::from_short_name) maps back to [`HadoopCodec::Default`].
    pub fn short_name(self) -> &'static str {
        match self {
            HadoopCodec::Default | HadoopCodec::Deflate => "deflate",
            HadoopCodec::Gzip => "gzip",
            HadoopCodec::Snappy => "snappy",
            HadoopCodec::Lz4 => "lz4",
            HadoopCodec::ZStandard => "zstd",
            HadoopCodec::BZip2 => "bzip2",
        }
    }

    /// The algorithm.
    pub fn algorithm(self) -> Algorithm {
        match self {
            HadoopCodec::Default | HadoopCodec::Deflate | HadoopCodec::Gzip => Algorithm::Deflate,
            HadoopCodec::Snappy => Algorithm::Snappy,
            HadoopCodec::Lz4 => Algorithm::Lz4,
            HadoopCodec::ZStandard => Algorithm::Zstd,
            HadoopCodec::BZip2 => Algorithm::Bzip2,
        }
    }

    /// The framing Hadoop puts around the algorithm.
    pub fn framing(self) -> Framing {
        match self {
            HadoopCodec::Default | HadoopCodec::Deflate => Framing::Zlib,
            HadoopCodec::Gzip => Framing::Gzip,
            HadoopCodec::Snappy | HadoopCodec::Lz4 => Framing::HadoopBlock,
            HadoopCodec::ZStandard => Framing::ZstdFrame,
            HadoopCodec::BZip2 => Framing::Bzip2Stream,
        }
    }

    /// A codec at Hadoop's default level (zlib and gzip 6, zstd 3, bzip2 9).
    ///
    /// Errors: [`ErrorKind::CodecDisabled`] when the codec's cargo feature is off.
    pub fn codec(self) -> Result<Box<dyn Codec>> {
        self.codec_with_level(None)
    }

    /// A codec at `level`, or the default level for `None`. Levels: zlib and gzip 0–9, zstd
    /// from its negative fast levels to 22, bzip2 1–9 (the block size in 100 kB; Hadoop uses
    /// 9). Snappy and LZ4 have no levels.
    ///
    /// Errors: [`ErrorKind::InvalidArgument`] for a level outside those ranges,
    /// [`ErrorKind::CodecDisabled`] when the codec's cargo feature is off.
    pub fn codec_with_level(self, level: Option<i32>) -> Result<Box<dyn Codec>> {
        new_codec(self.algorithm(), self.framing(), level)
    }
}

/// A codec for any supported pair of algorithm and framing, at `level` (`None` = default).
///
/// Besides the Hadoop pairs of [`HadoopCodec`], this gives the bare blocks that other formats
/// use: Snappy, LZ4 and LZO with [`Framing::Raw`] (one raw block; decompression needs the block to
/// decode to exactly the expected length), Deflate with [`Framing::Gzip`] and LZMA2 with
/// [`Framing::Xz`] (levels 0–9, the xz presets; default 6).
///
/// Errors: [`ErrorKind::Unsupported`] for a pair that no format uses (e.g. zstd in Hadoop
/// block framing), plus those of [`HadoopCodec::codec_with_level`].
pub fn new_codec(
    algorithm: Algorithm,
    framing: Framing,
    level: Option<i32>,
) -> Result<Box<dyn Codec>> {
    let unsupported = || {
        Err(Error::unsupported(format!(
            "{} compression in {framing:?} framing",
            algorithm.name()
        )))
    };
    match algorithm {
        Algorithm::Deflate => {
            if !matches!(framing, Framing::Zlib | Framing::Gzip) {
                return unsupported();
            }
            #[cfg(feature = "deflate")]
            return Ok(Box::new(deflate::DeflateCodec::new(
                framing == Framing::Gzip,
                level,
            )?));
        }
        Algorithm::Snappy | Algorithm::Lz4 => {
            if !matches!(framing, Framing::Raw | Framing::HadoopBlock) {
                return unsupported();
            }
            if level.is_some() {
                return Err(Error::invalid(format!(
                    "{} has no compression levels",
                    algorithm.name()
                )));
            }
            let hadoop = framing == Framing::HadoopBlock;
            #[cfg(feature = "snappy")]
            if algorithm == Algorithm::Snappy {
                return Ok(hadoop_block::framed(snappy::SnappyBlock::default(), hadoop));
            }
            #[cfg(feature = "lz4")]
            if algorithm == Algorithm::Lz4 {
                return Ok(hadoop_block::framed(lz4::Lz4Block::default(), hadoop));
            }
            let _ = hadoop;
        }
        Algorithm::Zstd => {
            if framing != Framing::ZstdFrame {
                return unsupported();
            }
            #[cfg(feature = "zstd")]
            return Ok(Box::new(zstd::ZstdCodec::new(level)?));
        }
        Algorithm::Bzip2 => {
            if framing != Framing::Bzip2Stream {
                return unsupported();
            }
            #[cfg(feature = "bzip2")]
            return Ok(Box::new(bzip2::Bzip2Codec::new(level)?));
        }
        Algorithm::Lzma2 => {
            if framing != Framing::Xz {
                return unsupported();
            }
            #[cfg(feature = "lzma2")]
            return Ok(Box::new(xz::XzCodec::new(level)?));
        }
        Algorithm::Lzo => {
            if framing != Framing::Raw {
                return unsupported();
            }
            if level.is_some() {
                return Err(Error::invalid("lzo has no compression levels"));
            }
            #[cfg(feature = "lzo")]
            return Ok(hadoop_block::framed(lzo::LzoBlock::default(), false));
        }
    }
    #[allow(unreachable_code)]
    Err(Error::new(ErrorKind::CodecDisabled {
        codec: algorithm.name(),
        feature: algorithm.name(),
    }))
}

/// Checks a caller's level against `range`, or takes `default` for `None`.
#[cfg(any(
    feature = "deflate",
    feature = "zstd",
    feature = "bzip2",
    feature = "lzma2"
))]
fn check_level(
    name: &str,
    level: Option<i32>,
    range: std::ops::RangeInclusive<i32>,
    default: i32,
) -> Result<i32> {
    match level {
        None => Ok(default),
        Some(l) if range.contains(&l) => Ok(l),
        Some(l) => Err(Error::invalid(format!(
            "{name} level {l} is outside {}..={}",
            range.start(),
            range.end()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every Hadoop codec's pair, then the other pairs the formats use.
    fn every_pair() -> impl Iterator<Item = (Algorithm, Framing)> {
        let hadoop = HadoopCodec::ALL.map(|c| (c.algorithm(), c.framing()));
        let others = [
            (Algorithm::Snappy, Framing::Raw),
            (Algorithm::Lz4, Framing::Raw),
            (Algorithm::Deflate, Framing::Gzip),
            (Algorithm::Lzma2, Framing::Xz),
            (Algorithm::Lzo, Framing::Raw),
        ];
        hadoop.into_iter().chain(others)
    }

    #[test]
    fn codecs_follow_their_features() {
        for (algorithm, framing) in every_pair() {
            let enabled = match algorithm {
                Algorithm::Deflate => cfg!(feature = "deflate"),
                Algorithm::Snappy => cfg!(feature = "snappy"),
                Algorithm::Lz4 => cfg!(feature = "lz4"),
                Algorithm::Zstd => cfg!(feature = "zstd"),
                Algorithm::Bzip2 => cfg!(feature = "bzip2"),
                Algorithm::Lzma2 => cfg!(feature = "lzma2"),
                Algorithm::Lzo => cfg!(feature = "lzo"),
            };
            match new_codec(algorithm, framing, None) {
                Ok(c) => {
                    assert!(enabled, "{algorithm:?}");
                    assert_eq!((c.algorithm(), c.framing()), (algorithm, framing));
                }
                Err(e) => {
                    assert!(!enabled, "{algorithm:?}: {e}");
                    let name = algorithm.name();
                    assert!(
                        matches!(e.kind(), ErrorKind::CodecDisabled { codec, feature }
                            if *codec == name && *feature == name),
                        "{e}"
                    );
                }
            }
        }
    }

    /// A codec's output is a function of its input alone: what the same codec object
    /// compressed before (a large input, say, that grows an encoder's tables) changes
    /// nothing, so that several codec objects on several threads write the same bytes.
    #[test]
    fn compressing_does_not_depend_on_what_came_before() {
        // Words drawn by a linear congruential generator: matches of many lengths.
        let words = |n: usize, seed: u64| {
            let mut x = seed;
            let mut out = Vec::new();
            while out.len() < n {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let w = [
                    "alpha ", "beta ", "gamma7 ", "d ", "epsilon_", "zeta, ", "eta:",
                ];
                out.extend_from_slice(w[(x >> 60) as usize % w.len()].as_bytes());
                out.push((x >> 33) as u8);
            }
            out
        };
        let (small, large) = (words(12_000, 1), words(900_000, 2));
        for (algorithm, framing) in every_pair() {
            let Ok(mut used) = new_codec(algorithm, framing, None) else {
                continue; // feature off
            };
            let mut fresh = new_codec(algorithm, framing, None).unwrap();
            let (mut a, mut b, mut scratch) = (Vec::new(), Vec::new(), Vec::new());
            used.compress(&large, &mut scratch).unwrap();
            used.compress(&small, &mut a).unwrap();
            fresh.compress(&small, &mut b).unwrap();
            assert_eq!(a, b, "{algorithm:?} {framing:?}");
        }
    }

    #[test]
    fn unsupported_pairs_are_refused_whatever_the_features() {
        for (algorithm, framing) in [
            (Algorithm::Zstd, Framing::HadoopBlock),
            (Algorithm::Deflate, Framing::Raw),
            (Algorithm::Snappy, Framing::Gzip),
            (Algorithm::Bzip2, Framing::Zlib),
            (Algorithm::Lzma2, Framing::Raw),
            (Algorithm::Zstd, Framing::Xz),
            (Algorithm::Lzo, Framing::HadoopBlock),
        ] {
            let err = new_codec(algorithm, framing, None).unwrap_err();
            assert!(matches!(err.kind(), ErrorKind::Unsupported(_)), "{err}");
        }
    }
}
