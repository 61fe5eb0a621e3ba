//! [`Limits`]: caps on every length and count read from a file, checked before allocating.

/// Caps applied to lengths and counts that a file declares. A file that asks for more gets
/// [`crate::ErrorKind::LimitExceeded`] before anything is allocated. Passed per reader, so a
/// service reading files from many sources can choose per source.
///
/// ```
/// let limits = colfile::Limits::default().with_max_columns(1000);
/// assert_eq!(limits.max_columns, 1000);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Limits {
    /// Largest single buffer (decompressed column, key section, value section, a TsFile
    /// page's decoded timestamps) in bytes. Totals over several buffers have their own
    /// caps: [`Limits::max_row_group_bytes`], [`Limits::max_chunk_points`].
    pub max_alloc_bytes: usize,
    /// Most metadata entries in a header.
    pub max_metadata_entries: usize,
    /// Most columns a file may declare.
    pub max_columns: usize,
    /// Longest string (class name, metadata key or value) in a header.
    pub max_string_len: usize,
    /// Most rows in one row group.
    pub max_rows_per_group: u64,
    /// Deepest nesting of complex values.
    pub max_nesting: usize,
    /// Most bytes one compressed buffer (RCFile key section or column, TsFile page) may
    /// declare that it decompresses to. Checked, together with the most that the codec can
    /// produce from the buffer's compressed length, before the output is allocated, so a
    /// tiny input that declares a huge output (a decompression bomb) is refused at once.
    pub max_decompressed_bytes: usize,
    /// Deepest TsFile metadata index tree (levels below a table root). Cycles in the tree
    /// are [`crate::ErrorKind::Corrupt`] whatever this says; the walks recurse once per
    /// level, so this also bounds their stack use.
    pub max_index_depth: usize,
    /// Most bytes one RCFile row group may cost once read, summed over the group before any
    /// column of it is read: its decompressed key section, plus for each projected column
    /// its decompressed bytes, its cell offsets (4 bytes a row) and the per-row structure
    /// that typed decoding builds (one [`crate::rcfile::Value`], the largest, a row). A
    /// "nulled" column (no cell lengths: every row NULL) costs its offsets and values too,
    /// whatever its size on disk, so a row count of billions in a tiny file is refused
    /// here. The row count itself cannot be bounded by the file's bytes: a run of equal
    /// cell lengths is one VLong whatever its length, and empty cells take no value bytes.
    /// A schema column the file lacks costs its per-row values, checked per column.
    /// This also caps the decompressed total of a row group (several columns each under
    /// [`Limits::max_decompressed_bytes`]).
    pub max_row_group_bytes: usize,
    /// Most points one TsFile chunk may decode to, summed over its pages (a chunk's pages
    /// are decoded together). Each point costs 8 bytes of time and its value. A page also
    /// never decodes to more points than its statistics count, when it has statistics.
    pub max_chunk_points: usize,
    /// Most deletions one IoTDB modification file (`.mods`, `.mods2`) may hold; a longer
    /// line of a text `.mods` file is capped by [`Limits::max_string_len`].
    pub max_mods_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_alloc_bytes: 1 << 30,
            max_metadata_entries: 500_000,
            max_columns: 500_000,
            max_string_len: 1 << 20,
            max_rows_per_group: i32::MAX as u64,
            max_nesting: 64,
            // Real writers decompress to far less: Hive row groups hold 4 MiB, TsFile pages
            // 64 KiB.
            max_decompressed_bytes: 256 << 20,
            // A valid tree of 2^31 entries with fan-out 2 has 31 levels.
            max_index_depth: 40,
            // Hive writes 4 MiB row groups.
            max_row_group_bytes: 1 << 30,
            // 1 GiB of timestamps; writers put 10^4 to 10^6 points in a chunk.
            max_chunk_points: 1 << 27,
            // IoTDB compacts a modification file past 1 MiB; 4M entries is far beyond that.
            max_mods_entries: 1 << 22,
        }
    }
}

impl Limits {
    /// No caps beyond what the format itself allows (int32 lengths).
    pub fn unlimited() -> Self {
        Limits {
            max_alloc_bytes: usize::MAX,
            max_metadata_entries: usize::MAX,
            max_columns: usize::MAX,
            max_string_len: usize::MAX,
            max_rows_per_group: u64::MAX,
            max_nesting: 1 << 16,
            max_decompressed_bytes: usize::MAX,
            // Fan-out is at least 2, so 64-bit offsets cannot address a deeper tree.
            max_index_depth: 64,
            max_row_group_bytes: usize::MAX,
            max_chunk_points: usize::MAX,
            max_mods_entries: usize::MAX,
        }
    }

    /// Sets [`Limits::max_alloc_bytes`].
    pub fn with_max_alloc_bytes(mut self, n: usize) -> Self {
        self.max_alloc_bytes = n;
        self
    }
    /// Sets [`Limits::max_metadata_entries`].
    pub fn with_max_metadata_entries(mut self, n: usize) -> Self {
        self.max_metadata_entries = n;
        self
    }
    /// Sets [`Limits::max_columns`].
    pub fn with_max_columns(mut self, n: usize) -> Self {
        self.max_columns = n;
        self
    }
    /// Sets [`Limits::max_string_len`].
    pub fn with_max_string_len(mut self, n: usize) -> Self {
        self.max_string_len = n;
        self
    }
    /// Sets [`Limits::max_rows_per_group`].
    pub fn with_max_rows_per_group(mut self, n: u64) -> Self {
        self.max_rows_per_group = n;
        self
    }
    /// Sets [`Limits::max_nesting`].
    pub fn with_max_nesting(mut self, n: usize) -> Self {
        self.max_nesting = n;
        self
    }

    /// Sets [`Limits::max_decompressed_bytes`].
    pub fn with_max_decompressed_bytes(mut self, n: usize) -> Self {
        self.max_decompressed_bytes = n;
        self
    }
    /// Sets [`Limits::max_index_depth`].
    pub fn with_max_index_depth(mut self, n: usize) -> Self {
        self.max_index_depth = n;
        self
    }

    /// Sets [`Limits::max_row_group_bytes`].
    pub fn with_max_row_group_bytes(mut self, n: usize) -> Self {
        self.max_row_group_bytes = n;
        self
    }
    /// Sets [`Limits::max_chunk_points`].
    pub fn with_max_chunk_points(mut self, n: usize) -> Self {
        self.max_chunk_points = n;
        self
    }

    /// Sets [`Limits::max_mods_entries`].
    pub fn with_max_mods_entries(mut self, n: usize) -> Self {
        self.max_mods_entries = n;
        self
    }

    /// Checks a declared allocation size.
    pub(crate) fn check_alloc(&self, what: &'static str, n: u64) -> crate::Result<usize> {
        if n > self.max_alloc_bytes as u64 {
            return Err(crate::Error::limit(what, n, self.max_alloc_bytes as u64));
        }
        usize::try_from(n).map_err(|_| crate::Error::limit(what, n, usize::MAX as u64))
    }
}
