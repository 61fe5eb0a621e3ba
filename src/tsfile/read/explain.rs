//! [`Explain`]: what a query read and what it skipped without reading — devices, chunks and
//! pages considered and pruned, each skip counted under the reason that allowed it.

use std::collections::BTreeMap;
use std::fmt;

/// Why something was skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// Its table is not the one asked for.
    Table,
    /// The Bloom filter says the series is not in the file.
    Bloom,
    /// The device index has no such device.
    Index,
    /// The tag values of the device fail the filter.
    Tags,
    /// Its time statistics lie outside the time range.
    Time,
    /// Its value statistics show that no row can pass the filter.
    Values,
    /// The query's limit was reached.
    Limit,
    /// IoTDB deletions (`.mods`) cover all of it.
    Deleted,
}

impl Reason {
    fn label(self) -> &'static str {
        match self {
            Reason::Table => "other table",
            Reason::Bloom => "bloom filter",
            Reason::Index => "not in the device index",
            Reason::Tags => "tag filter",
            Reason::Time => "time statistics",
            Reason::Values => "value statistics",
            Reason::Limit => "limit reached",
            Reason::Deleted => "deleted (.mods)",
        }
    }
}

/// Considered and skipped counts of one level (devices, chunks or pages).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Level {
    /// How many were looked at (from the index or from headers).
    pub considered: u64,
    /// How many of those were skipped, by reason.
    pub skipped: BTreeMap<Reason, u64>,
}

impl Level {
    /// Total skipped.
    pub fn skipped_total(&self) -> u64 {
        self.skipped.values().sum()
    }
    /// Counts one considered item.
    pub(crate) fn consider(&mut self) {
        self.considered += 1;
    }
    /// Counts one skipped item (already counted as considered).
    pub(crate) fn skip(&mut self, why: Reason) {
        *self.skipped.entry(why).or_default() += 1;
    }
}

/// A query's pruning report (see [`QueryIter::explain`](crate::tsfile::QueryIter::explain)).
///
/// An aligned (table-model) device counts a time chunk and the value chunks paired with it
/// as one chunk, and a time page with its value pages as one page; a non-aligned (tree)
/// device counts each series' chunks and pages. Pages are counted in multi-page chunks
/// whose page headers were read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explain {
    /// Devices.
    pub devices: Level,
    /// Chunks of the devices that were read.
    pub chunks: Level,
    /// Pages of multi-page chunks whose headers were read.
    pub pages: Level,
    /// Rows decoded from the pages read.
    pub rows_decoded: u64,
    /// Rows returned (after filters, offset and limit).
    pub rows_returned: u64,
}

impl fmt::Display for Explain {
    /// A few lines: one per level, then the row counts.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (name, l) in [
            ("devices", &self.devices),
            ("chunks", &self.chunks),
            ("pages", &self.pages),
        ] {
            write!(
                f,
                "{name}: {} considered, {} skipped",
                l.considered,
                l.skipped_total()
            )?;
            let why: Vec<String> = l
                .skipped
                .iter()
                .map(|(r, n)| format!("{n} {}", r.label()))
                .collect();
            if !why.is_empty() {
                write!(f, " ({})", why.join(", "))?;
            }
            writeln!(f)?;
        }
        write!(
            f,
            "rows: {} decoded, {} returned",
            self.rows_decoded, self.rows_returned
        )
    }
}
