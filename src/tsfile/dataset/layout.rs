//! The shape of an IoTDB data directory (`docs/design/tsfile-v3-and-mods.md` §5.1): the
//! `sequence`/`unsequence` spaces, database, region and time-partition folders, and the
//! `<time>-<version>-<inner>-<cross>.tsfile` names (IoTDB's `TsFileNameGenerator`).

use std::path::{Path, PathBuf};

use crate::{Error, Result};

/// The fields of an IoTDB TsFile name, `<time>-<version>-<inner>-<cross>.tsfile`.
///
/// ```
/// use colfile::tsfile::dataset::TsFileName;
/// let n = TsFileName::parse("1700000000000-12-3-1.tsfile").unwrap();
/// assert_eq!((n.time, n.version, n.inner_compactions, n.cross_compactions), (1700000000000, 12, 3, 1));
/// assert_eq!(TsFileName::parse("data.tsfile"), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TsFileName {
    /// Creation time (wall-clock milliseconds) of the file or of its first compaction source.
    pub time: i64,
    /// The per-partition version counter.
    pub version: i64,
    /// How many inner-space compactions produced the file.
    pub inner_compactions: i64,
    /// How many cross-space compactions produced the file.
    pub cross_compactions: i64,
}

impl TsFileName {
    /// Parses a file name (not a path); `None` unless it is four `-`-separated integers
    /// followed by `.tsfile`.
    pub fn parse(name: &str) -> Option<TsFileName> {
        let stem = name.strip_suffix(".tsfile")?;
        let mut fields = stem.split('-');
        let mut next = || -> Option<i64> {
            let f = fields.next()?;
            if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            f.parse().ok()
        };
        let parsed = TsFileName {
            time: next()?,
            version: next()?,
            inner_compactions: next()?,
            cross_compactions: next()?,
        };
        fields.next().is_none().then_some(parsed)
    }
}

/// The two data spaces of an IoTDB data directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Space {
    /// `sequence/`: per device, later files hold later times.
    Sequence,
    /// `unsequence/`: out-of-order data, which wins over sequence data at equal times.
    Unsequence,
}

impl Space {
    /// The folder name.
    pub fn dir_name(self) -> &'static str {
        match self {
            Space::Sequence => "sequence",
            Space::Unsequence => "unsequence",
        }
    }

    fn from_dir_name(name: &str) -> Option<Space> {
        match name {
            "sequence" => Some(Space::Sequence),
            "unsequence" => Some(Space::Unsequence),
            _ => None,
        }
    }
}

/// Where [`crate::tsfile::dataset::Dataset::open`] found itself: the data directory it walks
/// and the part of it that was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Root {
    /// An IoTDB data directory (holding `sequence/` and/or `unsequence/`), restricted to
    /// the given database, region and partition when those are set.
    Iotdb {
        data: PathBuf,
        database: Option<String>,
        region: Option<String>,
        partition: Option<String>,
    },
    /// A plain folder of `.tsfile` files.
    Plain(PathBuf),
}

fn file_name(p: &Path) -> Option<&str> {
    p.file_name().and_then(|n| n.to_str())
}

/// Decides which level of a data directory `dir` is. A database, region or partition
/// folder is recognised by the `sequence`/`unsequence` folder above it; the walk then covers
/// the same database (region, partition) in both spaces, since a merged read needs both.
pub(crate) fn detect(dir: &Path) -> Result<Root> {
    if !dir.is_dir() {
        return Err(Error::invalid(format!(
            "{} is not a directory",
            dir.display()
        )));
    }
    let has = |s: Space| dir.join(s.dir_name()).is_dir();
    if has(Space::Sequence) || has(Space::Unsequence) {
        return Ok(Root::Iotdb {
            data: dir.to_path_buf(),
            database: None,
            region: None,
            partition: None,
        });
    }
    // Walk up at most three levels looking for the space folder.
    let mut names: Vec<String> = Vec::new();
    let mut cur = dir;
    for _ in 0..3 {
        let (Some(name), Some(parent)) = (file_name(cur), cur.parent()) else {
            break;
        };
        names.push(name.to_owned());
        if let (Some(pname), Some(data)) = (file_name(parent), parent.parent()) {
            if Space::from_dir_name(pname).is_some() {
                names.reverse();
                let mut it = names.into_iter();
                return Ok(Root::Iotdb {
                    data: data.to_path_buf(),
                    database: it.next(),
                    region: it.next(),
                    partition: it.next(),
                });
            }
        }
        cur = parent;
    }
    Ok(Root::Plain(dir.to_path_buf()))
}

/// The sub-folders of `dir`, sorted: numbers by value first, then other names.
pub(crate) fn sub_dirs(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_dir() {
            if let Some(name) = entry.file_name().to_str() {
                out.push((name.to_owned(), entry.path()));
            }
        }
    }
    out.sort_by(|a, b| name_key(&a.0).cmp(&name_key(&b.0)));
    Ok(out)
}

/// Sorts numeric folder names (regions, partitions) by value, before other names.
fn name_key(name: &str) -> (u8, i128, &str) {
    match name.parse::<i128>() {
        Ok(v) => (0, v, name),
        Err(_) => (1, 0, name),
    }
}

/// The regular files directly in `dir`, by name.
pub(crate) fn files(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if entry.file_type()?.is_file() {
            if let Some(name) = entry.file_name().to_str() {
                out.push((name.to_owned(), entry.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// A compaction log: IoTDB's `CompactionLogger` suffixes (`.inner-compaction.log`,
/// `.cross-compaction.log`, `.insertion-compaction.log`, `.settle-compaction.log`, the
/// older `.compaction.log`) and 0.12's `merge.log`.
pub(crate) fn is_compaction_log(name: &str) -> bool {
    name.ends_with("compaction.log") || name == "merge.log"
}

/// Whether a file ends with the TsFile magic, i.e. was sealed with its footer.
pub(crate) fn has_footer(path: &Path) -> Result<bool> {
    use std::io::{Read, Seek, SeekFrom};
    let mut f = std::fs::File::open(path)?;
    let len = f.metadata()?.len();
    // Head magic and version, tail magic.
    if len < 13 {
        return Ok(false);
    }
    f.seek(SeekFrom::End(-6))?;
    let mut tail = [0u8; 6];
    f.read_exact(&mut tail)?;
    Ok(&tail == b"TsFile")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert_eq!(TsFileName::parse("1-2-3.tsfile"), None);
        assert_eq!(TsFileName::parse("1-2-3-4-5.tsfile"), None);
        assert_eq!(TsFileName::parse("1-2--3-4.tsfile"), None);
        assert_eq!(TsFileName::parse("1-2-3-4.tsfile.resource"), None);
        assert_eq!(TsFileName::parse("-1-2-3-4.tsfile"), None);
        assert!(TsFileName::parse("0-0-0-0.tsfile").is_some());
    }

    #[test]
    fn numeric_folders_sort_by_value() {
        let mut v = vec!["10", "9", "x", "-1"];
        v.sort_by(|a, b| name_key(a).cmp(&name_key(b)));
        assert_eq!(v, ["-1", "9", "10", "x"]);
    }
}
