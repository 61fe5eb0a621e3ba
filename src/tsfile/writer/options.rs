//! [`WriterOptions`] (page, flush and index settings with the reference writers' defaults),
//! [`default_encoding`] and the [`WriteSummary`] that `finish()` returns.

use crate::tsfile::format::{Compression, DataType, Encoding};
use crate::{Error, Result};

/// Settings of a [`TsFileWriter`](super::TsFileWriter). `Default` gives the reference writers'
/// settings: 10 000 points or 64 KiB per page, 128 MiB buffered before a flush, index fan-out
/// 256, Bloom filter error rate 0.05, time column TS_2DIFF + LZ4, ZSTD level 3, Java's TSM
/// role bits.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct WriterOptions {
    /// Most points in one page.
    pub page_max_points: usize,
    /// A page is sealed once its raw values reach this many bytes.
    pub page_max_bytes: usize,
    /// Every chunk group is written once the buffered bytes reach this.
    pub memory_threshold: usize,
    /// Fan-out of the metadata index tree (≥ 2).
    pub max_index_degree: usize,
    /// Bloom filter false-positive rate (clamped to 0.01–0.1 as Java does).
    pub bloom_error_rate: f64,
    /// Encoding of aligned time chunks (TS_2DIFF or PLAIN). Non-aligned pages' time
    /// streams are always TS_2DIFF: their encoding is recorded nowhere and readers assume it.
    pub time_encoding: Encoding,
    /// Compression of aligned time chunks.
    pub time_compression: Compression,
    /// ZSTD level for ZSTD pages.
    pub zstd_level: i32,
    /// Set Java's role bits (0x80 time, 0x40 value) in timeseries metadata types; the C++
    /// writer leaves them clear. Readers ignore them.
    pub role_masks: bool,
    /// File properties written after the three default encryption properties (values are
    /// raw bytes; `None` is a null value).
    pub properties: Vec<(String, Option<Vec<u8>>)>,
    /// Whose choices to follow where the reference writers differ.
    pub profile: Profile,
    /// Threads that encode and compress pages when chunk groups are flushed. The default, 1,
    /// is the caller's thread only: the writer starts no threads unless asked to (with
    /// [`with_threads`](Self::with_threads), e.g. the machine's cores). The bytes written do
    /// not depend on it.
    pub threads: usize,
}

/// Where Java's and C++'s writers make different choices, which to follow
/// (`spec/tsfile.md` §2, §11).
///
/// Most of Java's layout is written in **both** profiles, because the C++ reader takes it
/// too: the TSM role bits (0x80 time column, 0x40 aligned value column; clear
/// [`WriterOptions::role_masks`] for C++'s `0x00`); TS_2DIFF single-value blocks with
/// `min_delta = MAX`; no `0x04` operation-index record; the three encryption properties in
/// Java's `HashMap` order (`encryptLevel`, `encryptKey`, `encryptType`; Java's writer has no
/// user properties, so [`WriterOptions::properties`] follow in the order given, as in §14's
/// file); the Bloom filter sized for the number of chunk metadata entries (§9.2) and hashed
/// with Java's Murmur128; value chunks in column order (non-aligned chunks in registration
/// order) and series in the index by Java `String.compareTo`; an all-null value chunk as a
/// bare header (`data_size 0`) with statistics `count 0, start i64::MAX, end i64::MIN`;
/// 64 KiB pages; lower-cased table and column names.
///
/// Not reproduced in either profile: Java's page-sealing estimate and chunk-group flush
/// checkpoints (§11 "policy choices"; pages and chunk groups may be cut elsewhere for large
/// inputs), the TS_2DIFF stale padding bits (§7.2), and the codec libraries' exact bytes: a
/// GZIP page starts with `1f 8b 08 00 00000000 00 00`, OS byte 0 as JDK 8–15's
/// `GZIPOutputStream` writes (JDK 16+ writes 255, C++'s zlib 3), and its deflate body, like
/// LZ4, SNAPPY and LZMA2 pages, comes from this crate's codecs, not Java's.
#[non_exhaustive]
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Profile {
    /// Files that every reader here reads, the C++ 2.5 reader included: RLE streams are
    /// bit-packed only (C++ misreads run-length runs), BOOLEAN defaults to PLAIN, ZSTD at
    /// level 3 (C++'s default), table schemas in the footer sorted by name.
    #[default]
    Portable,
    /// Java's (IoTDB's) bytes; `spec/tsfile.md` §14's file is written byte for byte:
    ///
    /// * RLE streams (also inside DICTIONARY, SPRINTZ and the FLOAT/DOUBLE wrapper) use
    ///   run-length runs wherever Java's `RleEncoder` does;
    /// * BOOLEAN defaults to RLE ([`default_encoding`](Self::default_encoding));
    /// * [`WriterOptions::with_profile`] sets ZSTD level 22 (`Zstd.maxCompressionLevel()`);
    /// * table schemas in the footer follow Java's `HashMap<String, TableSchema>` iteration
    ///   order over the registration order;
    /// * TIME-category columns are left out of the stored table schemas: Java has no such
    ///   category and its reader fails on one (§1.3); rows are unaffected.
    ///
    /// The C++ 2.5 reader cannot read such files' RLE columns (BOOLEAN ones by default).
    Java,
}

impl Profile {
    /// The encoding this profile's reference writer uses for `data_type` when none is given:
    /// TS_2DIFF for integers, dates and timestamps, GORILLA for floats, PLAIN for strings and
    /// blobs; BOOLEAN PLAIN (portable) or RLE (Java).
    pub fn default_encoding(self, data_type: DataType) -> Encoding {
        match data_type {
            DataType::Int32 | DataType::Int64 | DataType::Date | DataType::Timestamp => {
                Encoding::Ts2Diff
            }
            DataType::Float | DataType::Double => Encoding::Gorilla,
            DataType::Boolean if self == Profile::Java => Encoding::Rle,
            _ => Encoding::Plain,
        }
    }

    /// Whether RLE streams may hold run-length runs.
    pub fn rle_runs(self) -> bool {
        self == Profile::Java
    }

    /// The ZSTD level of this profile's reference writer: 3 (C++'s `ZSTD_CLEVEL_DEFAULT`) or
    /// 22 (Java's `Zstd.maxCompressionLevel()`).
    pub fn zstd_level(self) -> i32 {
        match self {
            Profile::Portable => 3,
            Profile::Java => 22,
        }
    }
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            page_max_points: 10_000,
            page_max_bytes: 64 * 1024,
            memory_threshold: 128 << 20,
            max_index_degree: 256,
            bloom_error_rate: 0.05,
            time_encoding: Encoding::Ts2Diff,
            time_compression: Compression::Lz4,
            zstd_level: Profile::Portable.zstd_level(),
            role_masks: true,
            properties: Vec::new(),
            profile: Profile::Portable,
            threads: 1,
        }
    }
}

impl WriterOptions {
    /// Sets [`page_max_points`](Self::page_max_points).
    pub fn with_page_max_points(mut self, n: usize) -> Self {
        self.page_max_points = n;
        self
    }
    /// Sets [`page_max_bytes`](Self::page_max_bytes).
    pub fn with_page_max_bytes(mut self, n: usize) -> Self {
        self.page_max_bytes = n;
        self
    }
    /// Sets [`memory_threshold`](Self::memory_threshold).
    pub fn with_memory_threshold(mut self, n: usize) -> Self {
        self.memory_threshold = n;
        self
    }
    /// Sets [`max_index_degree`](Self::max_index_degree).
    pub fn with_max_index_degree(mut self, n: usize) -> Self {
        self.max_index_degree = n;
        self
    }
    /// Sets the time column's encoding and compression.
    pub fn with_time_codec(mut self, encoding: Encoding, compression: Compression) -> Self {
        self.time_encoding = encoding;
        self.time_compression = compression;
        self
    }
    /// Sets [`threads`](Self::threads) (at least 1): with `n > 1`, flushing a chunk group
    /// encodes and compresses its columns' pages on up to `n` scoped threads.
    pub fn with_threads(mut self, n: usize) -> Self {
        self.threads = n.max(1);
        self
    }
    /// Sets [`profile`](Self::profile) and the profile's [`zstd_level`](Self::zstd_level)
    /// (set the level afterwards to override it).
    pub fn with_profile(mut self, profile: Profile) -> Self {
        self.profile = profile;
        self.zstd_level = profile.zstd_level();
        self
    }
    /// Adds a file property.
    pub fn with_property(mut self, key: &str, value: Option<&[u8]>) -> Self {
        self.properties
            .push((key.to_owned(), value.map(<[u8]>::to_vec)));
        self
    }

    pub(crate) fn validate(&self) -> Result<()> {
        if self.page_max_points == 0 || self.max_index_degree < 2 {
            return Err(Error::invalid(
                "page_max_points must be ≥ 1 and max_index_degree ≥ 2",
            ));
        }
        if !matches!(self.time_encoding, Encoding::Ts2Diff | Encoding::Plain) {
            return Err(Error::invalid(format!(
                "time encoding {} (TS_2DIFF or PLAIN only: readers assume them)",
                self.time_encoding
            )));
        }
        Ok(())
    }
}

/// [`Profile::Portable`]'s default encoding for `data_type` (the C++ writer's defaults).
pub fn default_encoding(data_type: DataType) -> Encoding {
    Profile::Portable.default_encoding(data_type)
}

/// Whether the official C++ 2.5 library (PyPI `tsfile` 2.5.0, the reference behind the
/// Python API) handles `encoding` for a tree-model column of `data_type`: the cases its
/// writer accepts and reads back equal in the oracle's probe
/// (`shared/oracles/tsfile/probe_results.json`). Java reads every encoding of v4; the C++
/// reader fails on the others (FLOAT with RLE, for one, ends in "Out of memory").
///
/// ```
/// use colfile::tsfile::writer::cpp_reads;
/// use colfile::tsfile::{DataType, Encoding};
/// assert!(cpp_reads(Encoding::Gorilla, DataType::Float));
/// assert!(!cpp_reads(Encoding::Rle, DataType::Float));
/// assert!(!cpp_reads(Encoding::Rle, DataType::Boolean));
/// ```
pub fn cpp_reads(encoding: Encoding, data_type: DataType) -> bool {
    use DataType as T;
    use Encoding as E;
    match data_type {
        T::Boolean => encoding == E::Plain,
        T::Int32 | T::Int64 => matches!(
            encoding,
            E::Plain
                | E::Rle
                | E::Ts2Diff
                | E::Gorilla
                | E::Zigzag
                | E::Chimp
                | E::Sprintz
                | E::Rlbe
        ),
        T::Date | T::Timestamp => matches!(
            encoding,
            E::Plain | E::Rle | E::Ts2Diff | E::Gorilla | E::Chimp | E::Rlbe
        ),
        T::Float | T::Double => matches!(
            encoding,
            E::Plain | E::Ts2Diff | E::Gorilla | E::Chimp | E::Rlbe
        ),
        T::Text | T::String => matches!(encoding, E::Plain | E::Dictionary),
        _ => encoding == E::Plain,
    }
}

/// What [`TsFileWriter::finish`](super::TsFileWriter::finish) reports.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct WriteSummary {
    /// Rows (table model) or records (tree model) accepted.
    pub rows: u64,
    /// Devices with data.
    pub devices: u64,
    /// Series in the index (time columns included).
    pub series: u64,
    /// Chunk groups written.
    pub chunk_groups: u64,
    /// Chunks written.
    pub chunks: u64,
    /// Length of the file.
    pub bytes: u64,
}
