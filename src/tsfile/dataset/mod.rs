//! IoTDB data directories: finding the live TsFiles, their `.resource` time indexes and
//! deletion files, and the rule that decides which copy of a point wins when files overlap
//! (`docs/design/tsfile-v3-and-mods.md` §4, §5).
//!
//! [`Dataset::open`] walks a directory and lists its [`DataFile`]s in a fixed order;
//! [`Dataset::files_for`] keeps those whose time index says they may hold a device in a
//! time range; [`MergePriority`], [`merge_points`] and [`merge_rows`] resolve equal
//! timestamps across files; [`Dataset::query`] reads the whole directory as IoTDB would
//! answer: per device, the files its time index allows, each with its own `.mods`/`.mods2`
//! deletions applied, merged by that priority ([`DatasetRows`]).
//!
//! ```no_run
//! use colfile::tsfile::dataset::Dataset;
//! use colfile::tsfile::Query;
//! let ds = Dataset::open("backup/data/datanode/data")?;
//! let rows: usize = ds.query(&Query::all())?.map(|b| b.map(|b| b.len())).sum::<colfile::Result<_>>()?;
//! println!("{rows} rows in {} files", ds.files.len());
//! # Ok::<(), colfile::Error>(())
//! ```
//!
//! Which files are live (the rules, as decided here):
//!
//! * only `*.tsfile` files count; temporary and compaction outputs (`.tsfile.target`,
//!   `.inner`, `.cross`, `.temp`, …) and unknown files are listed in [`Notice::Ignored`];
//! * a TsFile with a `.resource` is sealed and live;
//! * a TsFile without `.resource` is live when it ends with the TsFile magic (its footer was
//!   written, so its ranges can be read from it: [`Notice::NoResource`]); otherwise it is
//!   unsealed (being written, or a crash left it) and skipped with [`Notice::Unsealed`];
//! * a `.resource` that cannot be parsed does not hide its TsFile: the file is kept without
//!   ranges and the error is in [`Notice::BadResource`];
//! * a partition folder holding a compaction log is in the middle of a compaction (IoTDB
//!   recovers it at start-up): none of its files are listed, and [`Notice::Compacting`] names
//!   it and its logs.

mod layout;
mod priority;
mod query;
mod resource;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use layout::{Space, TsFileName};
pub use priority::{
    merge_points, merge_rows, FillNulls, KeepWinner, Merge, MergePriority, MergeSource,
};
pub use query::{DatasetRows, DatasetStats, ReadOptions};
pub use resource::{Resource, TimeIndexKind, TimeRange};

use crate::source::FileSource;
use crate::tsfile::format::DeviceId;
use crate::tsfile::FileMetadata;
use crate::{Error, Limits, Result};
use layout::Root;

/// The time ranges of one TsFile: per device where known, and for the whole file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileRanges {
    /// Each device's range (for a file-level index, every device gets the file range).
    pub devices: BTreeMap<DeviceId, TimeRange>,
    /// The whole file's range; `None` when the file holds no device.
    pub file_range: Option<TimeRange>,
}

impl FileRanges {
    /// The ranges a parsed `.resource` gives.
    pub fn from_resource(r: &Resource) -> FileRanges {
        FileRanges {
            devices: r.devices.clone(),
            file_range: r.file_range,
        }
    }

    /// The ranges recomputed from a TsFile's footer: each device's smallest and largest
    /// timestamp over its series' statistics.
    pub fn from_tsfile(path: &Path, limits: &Limits) -> Result<FileRanges> {
        let src = FileSource::open(path)?;
        let meta = FileMetadata::read(&src, limits)?;
        let mut devices = BTreeMap::new();
        for d in meta.all_devices(&src)? {
            let mut range: Option<TimeRange> = None;
            for ts in meta.timeseries(&src, &d)? {
                let s = &ts.statistics;
                if s.start_time <= s.end_time {
                    let r = TimeRange::new(s.start_time, s.end_time);
                    range = Some(range.map_or(r, |x| x.union(&r)));
                }
            }
            if let Some(r) = range {
                devices.insert(d, r);
            }
        }
        let file_range = devices.values().copied().reduce(|a, b| a.union(&b));
        Ok(FileRanges {
            devices,
            file_range,
        })
    }

    /// The ranges from the `.resource` at `resource` when there is one and it parses, else
    /// from `fallback` (typically `|| FileRanges::from_tsfile(tsfile, limits)`). The
    /// resource's error, if any, is returned beside the ranges so the caller can report it.
    pub fn from_resource_or(
        resource: Option<&Path>,
        limits: &Limits,
        fallback: impl FnOnce() -> Result<FileRanges>,
    ) -> Result<(FileRanges, Option<Error>)> {
        match resource.map(|p| Resource::open(p, limits)) {
            Some(Ok(r)) => Ok((Self::from_resource(&r), None)),
            Some(Err(e)) => Ok((fallback()?, Some(e))),
            None => Ok((fallback()?, None)),
        }
    }

    /// Whether the file may hold `device` (any device when `None`) at a time in `range`.
    /// A device absent from the ranges is definitely not in the file.
    pub fn may_contain(&self, device: Option<&DeviceId>, range: TimeRange) -> bool {
        match device {
            Some(d) => self.devices.get(d).is_some_and(|r| r.overlaps(&range)),
            None => self.file_range.is_some_and(|r| r.overlaps(&range)),
        }
    }
}

/// One live TsFile of a data directory.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct DataFile {
    /// The TsFile.
    pub path: PathBuf,
    /// Its space (a plain folder's files are all [`Space::Sequence`]).
    pub space: Space,
    /// The database folder (`""` in a plain folder).
    pub database: String,
    /// The region (data region / virtual storage group) folder (`""` in a plain folder).
    pub region: String,
    /// The time-partition folder (`""` in a plain folder).
    pub partition: String,
    /// The parsed file name, when it follows IoTDB's pattern.
    pub name: Option<TsFileName>,
    /// The version used for priority: the name's, else (plain folders) the file's position
    /// in name order.
    pub version: i64,
    /// `<file>.resource`, when present.
    pub resource: Option<PathBuf>,
    /// `<file>.mods` (IoTDB 1.x deletions), when present.
    pub mods: Option<PathBuf>,
    /// `<file>.mods2` (IoTDB 2.x deletions), when present.
    pub mods2: Option<PathBuf>,
    /// The time ranges from the `.resource`; `None` when it is missing or unreadable (then
    /// [`FileRanges::from_tsfile`] gives them).
    pub ranges: Option<FileRanges>,
}

impl DataFile {
    /// The merge priority of a chunk of this file whose header is at `chunk_offset`.
    pub fn priority(&self, chunk_offset: u64) -> MergePriority {
        MergePriority {
            unsequence: self.space == Space::Unsequence,
            version: self.version,
            file_time: self.name.map_or(0, |n| n.time),
            chunk_offset,
        }
    }

    /// Whether the file may hold `device` (any when `None`) in `range`; `true` when the file
    /// has no ranges.
    pub fn may_contain(&self, device: Option<&DeviceId>, range: TimeRange) -> bool {
        self.ranges
            .as_ref()
            .is_none_or(|r| r.may_contain(device, range))
    }
}

/// Something the walk met and did not list as an ordinary live file.
#[derive(Debug)]
#[non_exhaustive]
pub enum Notice {
    /// A TsFile without `.resource` but with its footer: listed, without ranges.
    NoResource(PathBuf),
    /// A `.resource` that could not be read (the TsFile is listed, without ranges).
    BadResource(PathBuf, Error),
    /// A TsFile without `.resource` or footer (being written, or left by a crash): skipped.
    Unsealed(PathBuf),
    /// A partition folder with compaction logs: none of its files are listed.
    Compacting {
        /// The partition folder.
        partition: PathBuf,
        /// Its compaction logs.
        logs: Vec<PathBuf>,
    },
    /// A file that is not part of the data (temporary or compaction output, unknown name).
    Ignored(PathBuf),
}

/// The live TsFiles of an IoTDB data directory or of a plain folder of TsFiles.
#[derive(Debug)]
#[non_exhaustive]
pub struct Dataset {
    /// The files, ordered by space (sequence first), database, region, partition, then
    /// name time, version and file name.
    pub files: Vec<DataFile>,
    /// What was skipped or degraded, in walk order.
    pub notices: Vec<Notice>,
}

impl Dataset {
    /// Whether `dir` is laid out as IoTDB writes data: it holds `sequence/` or
    /// `unsequence/`, or it is a database, region or time-partition folder inside one.
    pub fn is_iotdb_dir(dir: impl AsRef<Path>) -> bool {
        matches!(layout::detect(dir.as_ref()), Ok(Root::Iotdb { .. }))
    }

    /// Walks `dir` with default [`Limits`]; see [`Dataset::open_with_limits`].
    pub fn open(dir: impl AsRef<Path>) -> Result<Dataset> {
        Self::open_with_limits(dir, &Limits::default())
    }

    /// Walks `dir`: an IoTDB data folder (holding `sequence/`, `unsequence/`), or a
    /// database, region or time-partition folder inside one (then that database, region or
    /// partition in both spaces), or any folder of `.tsfile` files (read as one sequence
    /// space; versions from the names when they follow IoTDB's pattern, else name order).
    pub fn open_with_limits(dir: impl AsRef<Path>, limits: &Limits) -> Result<Dataset> {
        let mut ds = Dataset {
            files: Vec::new(),
            notices: Vec::new(),
        };
        match layout::detect(dir.as_ref())? {
            Root::Plain(dir) => ds.scan_partition(&dir, Space::Sequence, ["", "", ""], limits)?,
            Root::Iotdb {
                data,
                database,
                region,
                partition,
            } => {
                let want = |w: &Option<String>, n: &str| w.as_deref().is_none_or(|w| w == n);
                for space in [Space::Sequence, Space::Unsequence] {
                    let sdir = data.join(space.dir_name());
                    if !sdir.is_dir() {
                        continue;
                    }
                    for (db, dbdir) in layout::sub_dirs(&sdir)? {
                        if !want(&database, &db) {
                            continue;
                        }
                        for (rg, rgdir) in layout::sub_dirs(&dbdir)? {
                            if !want(&region, &rg) {
                                continue;
                            }
                            for (pt, ptdir) in layout::sub_dirs(&rgdir)? {
                                if want(&partition, &pt) {
                                    ds.scan_partition(&ptdir, space, [&db, &rg, &pt], limits)?;
                                }
                            }
                        }
                    }
                }
            }
        }
        Ok(ds)
    }

    fn scan_partition(
        &mut self,
        dir: &Path,
        space: Space,
        [database, region, partition]: [&str; 3],
        limits: &Limits,
    ) -> Result<()> {
        let entries = layout::files(dir)?;
        let logs: Vec<PathBuf> = entries
            .iter()
            .filter(|(n, _)| layout::is_compaction_log(n))
            .map(|(_, p)| p.clone())
            .collect();
        if !logs.is_empty() {
            self.notices.push(Notice::Compacting {
                partition: dir.to_path_buf(),
                logs,
            });
            return Ok(());
        }
        let names: std::collections::BTreeSet<&str> =
            entries.iter().map(|(n, _)| n.as_str()).collect();
        let side = |n: &str, suffix: &str| {
            let s = format!("{n}{suffix}");
            names.contains(s.as_str()).then(|| dir.join(s))
        };
        let mut found = Vec::new();
        for (name, path) in &entries {
            if !name.ends_with(".tsfile") {
                let known = [".tsfile.resource", ".tsfile.mods", ".tsfile.mods2"];
                let tsfile_side = known
                    .iter()
                    .find_map(|k| name.strip_suffix(k))
                    .is_some_and(|stem| names.contains(format!("{stem}.tsfile").as_str()));
                // `.compaction.mods*` duplicate the normal mods file (design note §3.4).
                if !tsfile_side {
                    self.notices.push(Notice::Ignored(path.clone()));
                }
                continue;
            }
            let resource = side(name, ".resource");
            let ranges = match &resource {
                Some(r) => match Resource::open(r, limits) {
                    Ok(res) => Some(FileRanges::from_resource(&res)),
                    Err(e) => {
                        self.notices.push(Notice::BadResource(r.clone(), e));
                        None
                    }
                },
                None if layout::has_footer(path)? => {
                    self.notices.push(Notice::NoResource(path.clone()));
                    None
                }
                None => {
                    self.notices.push(Notice::Unsealed(path.clone()));
                    continue;
                }
            };
            let parsed = TsFileName::parse(name);
            found.push(DataFile {
                path: path.clone(),
                space,
                database: database.to_owned(),
                region: region.to_owned(),
                partition: partition.to_owned(),
                name: parsed,
                version: parsed.map_or(0, |n| n.version),
                resource,
                mods: side(name, ".mods"),
                mods2: side(name, ".mods2"),
                ranges,
            });
        }
        found.sort_by(|a, b| {
            let key = |f: &DataFile| (f.name.map(|n| (n.time, n.version)), f.path.clone());
            key(a).cmp(&key(b))
        });
        // Files without an IoTDB name take their position as version (plain folders).
        if found.iter().any(|f| f.name.is_none()) {
            for (i, f) in found.iter_mut().enumerate() {
                if f.name.is_none() {
                    f.version = i as i64;
                }
            }
        }
        self.files.extend(found);
        Ok(())
    }

    /// The files that may hold `device` (any device when `None`) at a time in `range`, in
    /// [`Dataset::files`] order. Files without ranges are always kept (the caller reads their
    /// footer or [`FileRanges::from_tsfile`]).
    ///
    /// ```no_run
    /// use colfile::tsfile::dataset::{Dataset, TimeRange};
    /// use colfile::tsfile::DeviceId;
    /// let ds = Dataset::open("data/datanode/data")?;
    /// let d = DeviceId::from_tree_path("root.sg.d1")?;
    /// for f in ds.files_for(Some(&d), TimeRange::new(0, 1000)) {
    ///     println!("{} {:?}", f.path.display(), f.priority(0));
    /// }
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn files_for(&self, device: Option<&DeviceId>, range: TimeRange) -> Vec<&DataFile> {
        self.files
            .iter()
            .filter(|f| f.may_contain(device, range))
            .collect()
    }
}
