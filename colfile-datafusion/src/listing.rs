//! Where a table's files are: one file, a directory (walked recursively, skipping the hidden
//! and bookkeeping files Hadoop tools leave: names starting with `.` or `_`), or a glob
//! pattern such as `warehouse/t/*/part-*` (`*`, `?`, `[...]`, and `**` for any depth).

use std::path::{Path, PathBuf};

use colfile::Error;

/// One file of a table and its length in bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableFile {
    /// Where it is.
    pub path: PathBuf,
    /// Its length when listed.
    pub len: u64,
}

/// How a table's files were named when it was made: what the same table is made from
/// again in another process.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    /// A file, directory, glob or URL.
    Location(String),
    /// Exactly these files.
    Files(Vec<TableFile>),
}

/// The files at `location`, sorted by path. In a directory, only files whose name ends with
/// `extension` (when given) are taken; a file named directly or matched by a glob is always
/// taken. Errors: nothing there, or nothing that matches.
pub fn list_files(location: &str, extension: Option<&str>) -> colfile::Result<Vec<TableFile>> {
    let path = Path::new(location);
    let mut out = Vec::new();
    if has_glob(location) {
        let paths = glob::glob(location)
            .map_err(|e| Error::invalid(format!("bad glob pattern {location:?}: {e}")))?;
        for p in paths {
            let p = p.map_err(|e| Error::from(std::io::Error::from(e)))?;
            if p.is_file() && !hidden(&p) {
                out.push(file(p)?);
            }
        }
    } else if path.is_dir() {
        walk(path, extension, &mut out)?;
    } else {
        out.push(file(path.to_path_buf())?);
    }
    if out.is_empty() {
        return Err(Error::invalid(format!("no table files at {location:?}")));
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

/// The directory below which a location's `name=value/` levels are partitions: the
/// location itself when it is a directory, else the directory part before any glob
/// character, else the file's own directory.
pub fn partition_root(location: &str) -> PathBuf {
    let path = Path::new(location);
    if path.is_dir() {
        return path.to_path_buf();
    }
    let cut = location
        .find(['*', '?', '['])
        .map_or(location, |i| &location[..i]);
    let base = Path::new(cut);
    match (cut.ends_with('/'), base.parent()) {
        (true, _) => base.to_path_buf(),
        (false, Some(p)) => p.to_path_buf(),
        (false, None) => PathBuf::new(),
    }
}

fn walk(dir: &Path, extension: Option<&str>, out: &mut Vec<TableFile>) -> colfile::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let p = entry?.path();
        if hidden(&p) {
            continue;
        }
        if p.is_dir() {
            walk(&p, extension, out)?;
        } else if extension.is_none_or(|x| p.to_string_lossy().ends_with(x)) {
            out.push(file(p)?);
        }
    }
    Ok(())
}

fn file(path: PathBuf) -> colfile::Result<TableFile> {
    let len = std::fs::metadata(&path)
        .map_err(|e| Error::invalid(format!("{}: {e}", path.display())))?
        .len();
    Ok(TableFile { path, len })
}

fn hidden(p: &Path) -> bool {
    p.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.starts_with('.') || n.starts_with('_'))
}

fn has_glob(s: &str) -> bool {
    s.contains(['*', '?', '['])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_globs_and_hidden_files() {
        let dir = std::env::temp_dir().join(format!("colfile-listing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("p=1")).unwrap();
        for name in [
            "a.tsfile",
            "p=1/b.tsfile",
            "_SUCCESS",
            ".a.crc",
            "notes.txt",
        ] {
            std::fs::write(dir.join(name), b"x").unwrap();
        }
        let names = |v: Vec<TableFile>| -> Vec<String> {
            v.into_iter()
                .map(|f| {
                    f.path
                        .strip_prefix(&dir)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned()
                })
                .collect()
        };
        let d = dir.to_str().unwrap();
        assert_eq!(
            names(list_files(d, Some(".tsfile")).unwrap()),
            ["a.tsfile", "p=1/b.tsfile"]
        );
        assert_eq!(
            names(list_files(d, None).unwrap()),
            ["a.tsfile", "notes.txt", "p=1/b.tsfile"]
        );
        assert_eq!(
            names(list_files(&format!("{d}/**/*.tsfile"), None).unwrap()),
            ["a.tsfile", "p=1/b.tsfile"]
        );
        assert!(list_files(&format!("{d}/*.none"), None).is_err());
        assert!(list_files(&format!("{d}/missing"), None).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
