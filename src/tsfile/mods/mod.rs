//! IoTDB modification files: the deletions recorded next to a TsFile
//! (`docs/design/tsfile-v3-and-mods.md` §3).
//!
//! IoTDB never rewrites a TsFile to delete data: it appends a [`Deletion`] to
//! `<tsfile>.mods` (text, IoTDB 0.12–1.3, [`text`]) or `<tsfile>.mods2` (binary, IoTDB 2.x,
//! [`binary`]) and readers subtract it. [`Modifications::for_tsfile`] loads both (their union;
//! `*.compaction.mods*` files are ignored, their entries are duplicated in the normal file).
//!
//! A point *(device, measurement, t)* in the chunk whose header is at byte *c* is deleted when
//! some deletion
//! 1. matches the series: a tree [`PathPattern`] matches `device nodes ++ [measurement]`
//!    ([`pattern`]), or a [`TablePredicate`] matches the table, the device and the column;
//! 2. covers the time: `start <= t <= end`, both ends inclusive;
//! 3. is older than the chunk (text `.mods` only): `file_offset > c`. Chunks written into an
//!    unsealed file after the deletion was recorded are untouched.
//!
//! An aligned device's time column is the measurement `""`: a deletion that matches it
//! deletes whole rows. Statistics in the TsFile are never adjusted by IoTDB: a reader must
//! not trust a chunk's or page's statistics when [`DeletedRanges::overlaps`] says a deletion
//! touches it.
//!
//! # Applying deletions in a scan
//!
//! Load once per TsFile ([`Modifications::for_tsfile_with`]; skip everything below when
//! [`Modifications::is_empty`]). Per series, take [`Modifications::for_series`] (v4
//! [`DeviceId`]) or [`Modifications::for_tree_series`] (a v3 device path); for an aligned
//! device also take the time column's ranges (measurement `""`). Per chunk, with the offset of
//! its header and its statistics' `[min, max]` time, call [`DeletedRanges::for_chunk`] once:
//! [`TimeRanges::covers`] → skip the chunk; [`TimeRanges::overlaps`] → its statistics no
//! longer hold, so do the same per page (skip covered pages, decode the others and drop each
//! point whose time [`TimeRanges::contains`]); neither → read it as if there were no mods.
//! In an aligned chunk a value column's deleted times become nulls, and the time column's
//! deleted times remove the whole row.
//!
//! ```
//! use colfile::tsfile::mods::{Deletion, Modifications};
//! let mods = Modifications::new(vec![
//!     Deletion::tree("root.sg.d1.*".parse()?, 10, 20).with_file_offset(4096),
//! ]);
//! let ranges = mods.for_tree_series("root.sg.d1", "s1");
//! assert!(ranges.deletes(100, 15)); // a chunk at byte 100, before the deletion was recorded
//! assert!(!ranges.deletes(5000, 15)); // a chunk written after it
//! assert!(ranges.covers(100, 10, 20) && !ranges.covers(100, 10, 21));
//! assert!(ranges.overlaps(100, 0, 10));
//! # Ok::<(), colfile::Error>(())
//! ```

pub mod binary;
#[cfg(feature = "object_store")]
mod object;
pub mod pattern;
mod ranges;
pub mod text;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub use pattern::{split_nodes, PathPattern, PatternNode};
pub use ranges::{DeletedRanges, TimeRanges};

use crate::tsfile::format::DeviceId;
use crate::{Error, Limits, Result};

/// Which series a [`Deletion`] applies to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A tree-model path pattern over `device ++ [measurement]` (text `.mods`, binary type 1).
    Tree(PathPattern),
    /// A table-model predicate (binary type 0).
    Table(TablePredicate),
}

/// Which table-model series a deletion applies to: a table, its devices, its columns.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TablePredicate {
    /// The table: segment 0 of the device id.
    pub table: String,
    /// Which devices of the table.
    pub device: DevicePredicate,
    /// Which columns; empty means every column, the time column (whole rows) included.
    pub measurements: Vec<String>,
}

/// Which devices of a table a [`TablePredicate`] applies to (IoTDB's `IDPredicate`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum DevicePredicate {
    /// Every device (kind 0, `NOP`).
    All,
    /// The device equal to this one (kind 1, `FULL_EXACT_MATCH`).
    Exact(DeviceId),
    /// Devices that have a segment `index` (0 = table name, tag *k* = *k*+1) equal to `value`
    /// (kind 2, `SEGMENT_EXACT_MATCH`). A device with fewer segments does not match; a null
    /// `value` (IoTDB never writes one) matches only a stored null segment.
    Segment {
        /// The segment's expected value.
        value: Option<String>,
        /// Which segment.
        index: i32,
    },
    /// Every predicate holds (kind 3, `AND`).
    And(Vec<DevicePredicate>),
}

impl DevicePredicate {
    /// Whether `device` satisfies the predicate.
    pub fn matches(&self, device: &DeviceId) -> bool {
        match self {
            DevicePredicate::All => true,
            DevicePredicate::Exact(d) => d.normalized() == device.normalized(),
            DevicePredicate::Segment { value, index } => {
                let seg = usize::try_from(*index)
                    .ok()
                    .and_then(|i| device.segments().get(i));
                seg.is_some_and(|s| s.as_deref() == value.as_deref())
            }
            DevicePredicate::And(all) => all.iter().all(|p| p.matches(device)),
        }
    }
}

impl TablePredicate {
    /// Whether the predicate matches column `measurement` (`""`: the time column) of `device`.
    pub fn matches(&self, device: &DeviceId, measurement: &str) -> bool {
        device.table_name() == self.table
            && self.device.matches(device)
            && (self.measurements.is_empty() || self.measurements.iter().any(|m| m == measurement))
    }
}

/// One deletion: which series, which times (inclusive), and for text `.mods` entries the
/// file length when it was recorded.
///
/// ```
/// use colfile::tsfile::mods::{Deletion, Target};
/// let d = Deletion::tree("root.sg.d1.s1".parse()?, i64::MIN, 99);
/// assert!(matches!(d.target, Target::Tree(_)));
/// assert_eq!(d.file_offset, None);
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Deletion {
    /// Which series.
    pub target: Target,
    /// First deleted timestamp.
    pub start: i64,
    /// Last deleted timestamp.
    pub end: i64,
    /// Text `.mods` only: the TsFile's length when the deletion was recorded; the deletion
    /// applies only to chunks whose header starts before it. `None` (`.mods2`): every chunk.
    pub file_offset: Option<i64>,
}

impl Deletion {
    /// A tree-model deletion of `[start, end]` with no file offset.
    pub fn tree(pattern: PathPattern, start: i64, end: i64) -> Self {
        Deletion {
            target: Target::Tree(pattern),
            start,
            end,
            file_offset: None,
        }
    }

    /// A table-model deletion of `[start, end]`.
    pub fn table(predicate: TablePredicate, start: i64, end: i64) -> Self {
        Deletion {
            target: Target::Table(predicate),
            start,
            end,
            file_offset: None,
        }
    }

    /// The same deletion limited to chunks that start before `offset`.
    pub fn with_file_offset(mut self, offset: i64) -> Self {
        self.file_offset = Some(offset);
        self
    }

    /// Whether the deletion applies to a chunk whose header is at `chunk_offset` (rule D3).
    pub fn applies_to_chunk(&self, chunk_offset: u64) -> bool {
        self.file_offset
            .is_none_or(|o| i128::from(o) > i128::from(chunk_offset))
    }
}

/// The deletions of one TsFile, grouped by target so that each distinct pattern or predicate
/// is matched once per series however many time ranges it deletes.
///
/// ```
/// use colfile::tsfile::mods::Modifications;
/// let none = Modifications::for_tsfile("/no/such/file.tsfile")?;
/// assert!(none.is_empty());
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Modifications {
    deletions: Vec<Deletion>,
    /// Distinct targets and, for each, its spans.
    groups: Vec<(Target, Vec<Span>)>,
}

/// `(start, end, file_offset)` of one deletion.
type Span = (i64, i64, Option<i64>);

impl Modifications {
    /// A set from deletions in file order.
    pub fn new(deletions: Vec<Deletion>) -> Self {
        let mut index: HashMap<&Target, usize> = HashMap::new();
        let mut groups: Vec<(Target, Vec<Span>)> = Vec::new();
        for d in &deletions {
            let span = (d.start, d.end, d.file_offset);
            match index.get(&d.target).and_then(|&g| groups.get_mut(g)) {
                Some(group) => group.1.push(span),
                None => {
                    index.insert(&d.target, groups.len());
                    groups.push((d.target.clone(), vec![span]));
                }
            }
        }
        Modifications { deletions, groups }
    }

    /// Loads the modification files of the TsFile at `tsfile`: `<tsfile>.mods` and
    /// `<tsfile>.mods2`, the union when both exist. A missing file means no deletions.
    /// Under default [`Limits`].
    pub fn for_tsfile(tsfile: impl AsRef<Path>) -> Result<Self> {
        Self::for_tsfile_with(tsfile, &Limits::default())
    }

    /// [`for_tsfile`](Self::for_tsfile) under `limits` (the file size is capped by
    /// [`Limits::max_alloc_bytes`], the entry count by [`Limits::max_mods_entries`]).
    pub fn for_tsfile_with(tsfile: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let mut all = Vec::new();
        for suffix in [".mods", ".mods2"] {
            let mut name = tsfile.as_ref().as_os_str().to_owned();
            name.push(suffix);
            if let Some(found) = load_file(&PathBuf::from(name), limits, true)? {
                all.extend(found);
            }
        }
        Ok(Self::new(all))
    }

    /// Loads one modification file, text or binary by its name (`.mods2` is binary, anything
    /// else text). Unlike [`for_tsfile`](Self::for_tsfile) a missing file is an error.
    pub fn load(path: impl AsRef<Path>, limits: &Limits) -> Result<Self> {
        let found = load_file(path.as_ref(), limits, false)?;
        Ok(Self::new(found.unwrap_or_default()))
    }

    /// The deletions of one modification file already in memory (fetched from an object
    /// store, say): binary when `name` ends with `.mods2`, else text. `name` is what errors
    /// give as the file.
    ///
    /// ```
    /// use colfile::tsfile::mods::Modifications;
    /// use colfile::Limits;
    /// let m = Modifications::parse(b"DELETION,root.sg.d1.s1,9,1,2\n", "a.tsfile.mods", &Limits::default())?;
    /// assert_eq!(m.deletions().len(), 1);
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn parse(bytes: &[u8], name: &str, limits: &Limits) -> Result<Self> {
        limits.check_alloc("modification file size", bytes.len() as u64)?;
        parse_named(bytes, name, limits).map(Self::new)
    }

    /// Both sets of deletions: `self`'s, then `other`'s.
    pub fn union(self, other: Modifications) -> Self {
        if other.is_empty() {
            return self;
        }
        let mut all = self.deletions;
        all.extend(other.deletions);
        Self::new(all)
    }

    /// The deletions, in file order (text file first).
    pub fn deletions(&self) -> &[Deletion] {
        &self.deletions
    }

    /// True when there are no deletions.
    pub fn is_empty(&self) -> bool {
        self.deletions.is_empty()
    }

    /// The time ranges deleted from column `measurement` (`""`: the time column of an
    /// aligned device, i.e. whole rows) of `device`. Tree patterns match the device's dotted
    /// path; table predicates its segments.
    pub fn for_series(&self, device: &DeviceId, measurement: &str) -> DeletedRanges {
        let mut nodes = device.path_nodes();
        for n in &mut nodes {
            // `path_nodes` keeps back-quotes; patterns compare unquoted nodes.
            if let Ok(mut split) = split_nodes(n) {
                if split.len() == 1 {
                    *n = split.remove(0);
                }
            }
        }
        nodes.push(measurement.to_owned());
        self.collect(|t| match t {
            Target::Tree(p) => p.matches_nodes(&nodes),
            Target::Table(p) => p.matches(device, measurement),
        })
    }

    /// The time ranges deleted from `measurement` of the tree device written as the dotted
    /// path `device` (`root.sg.d1`, what a TsFile v3 stores). Table predicates are tried on
    /// the device id that the path makes (`DeviceId::from_tree_path`).
    pub fn for_tree_series(&self, device: &str, measurement: &str) -> DeletedRanges {
        let Ok(mut nodes) = split_nodes(device) else {
            return DeletedRanges::default();
        };
        nodes.push(measurement.to_owned());
        let id = DeviceId::from_tree_path(device).ok();
        self.collect(|t| match t {
            Target::Tree(p) => p.matches_nodes(&nodes),
            Target::Table(p) => id.as_ref().is_some_and(|d| p.matches(d, measurement)),
        })
    }

    fn collect(&self, mut hit: impl FnMut(&Target) -> bool) -> DeletedRanges {
        let spans = self
            .groups
            .iter()
            .filter(|(t, _)| hit(t))
            .flat_map(|(_, s)| s.iter().copied());
        DeletedRanges::from_spans(spans)
    }
}

/// Appends `d` unless `out` already holds [`Limits::max_mods_entries`] entries; `at` is the
/// entry's byte offset for the error.
fn push_limited(out: &mut Vec<Deletion>, d: Deletion, limits: &Limits, at: u64) -> Result<()> {
    if out.len() >= limits.max_mods_entries {
        let max = limits.max_mods_entries as u64;
        return Err(Error::limit("modification entries", max + 1, max).at_offset(at));
    }
    out.push(d);
    Ok(())
}

/// Reads and parses one file; `Ok(None)` when it is missing and `missing_ok`.
fn load_file(path: &Path, limits: &Limits, missing_ok: bool) -> Result<Option<Vec<Deletion>>> {
    let name = path.display().to_string();
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if missing_ok && e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(Error::with_source(crate::ErrorKind::Io(e), name)),
    };
    limits.check_alloc("modification file size", meta.len())?;
    let bytes = std::fs::read(path)?;
    parse_named(&bytes, &name, limits).map(Some)
}

/// The deletions in `bytes`, binary when `name` ends with `.mods2`, else text.
fn parse_named(bytes: &[u8], name: &str, limits: &Limits) -> Result<Vec<Deletion>> {
    if name.ends_with(".mods2") {
        binary::parse(bytes, name, limits)
    } else {
        text::parse(bytes, name, limits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_share_a_target() {
        let p: PathPattern = "root.sg.d1.s1".parse().unwrap();
        let mods = Modifications::new(vec![
            Deletion::tree(p.clone(), 1, 2),
            Deletion::tree(p.clone(), 5, 6).with_file_offset(10),
            Deletion::tree("root.x.*".parse().unwrap(), 0, 100),
        ]);
        assert_eq!(mods.groups.len(), 2);
        let r = mods.for_tree_series("root.sg.d1", "s1");
        assert!(r.deletes(0, 1) && r.deletes(9, 6) && !r.deletes(10, 6) && !r.deletes(0, 3));
        let dev = DeviceId::from_tree_path("root.sg.d1").unwrap();
        assert_eq!(mods.for_series(&dev, "s1"), r);
    }

    #[test]
    fn table_predicates() {
        let dev = DeviceId::from_table("t", [Some("a"), None, Some("c")]).unwrap();
        let pred = |device, measurements: &[&str]| TablePredicate {
            table: "t".into(),
            device,
            measurements: measurements.iter().map(|s| s.to_string()).collect(),
        };
        let seg = |value: Option<&str>, index| DevicePredicate::Segment {
            value: value.map(String::from),
            index,
        };
        assert!(pred(DevicePredicate::All, &[]).matches(&dev, ""));
        assert!(pred(seg(Some("a"), 1), &["s"]).matches(&dev, "s"));
        assert!(!pred(seg(Some("a"), 1), &["s"]).matches(&dev, ""));
        assert!(pred(seg(None, 2), &[]).matches(&dev, "x"));
        assert!(!pred(seg(None, 9), &[]).matches(&dev, "x"));
        assert!(!pred(seg(None, -1), &[]).matches(&dev, "x"));
        let and = DevicePredicate::And(vec![seg(Some("a"), 1), seg(Some("c"), 3)]);
        assert!(pred(and, &[]).matches(&dev, "x"));
        assert!(pred(DevicePredicate::Exact(dev.clone()), &[]).matches(&dev, "x"));
        let other = DeviceId::from_table("u", [Some("a")]).unwrap();
        assert!(!pred(DevicePredicate::All, &[]).matches(&other, "x"));
    }
}
