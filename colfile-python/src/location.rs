//! Where the Python functions read from and write to: a local path (a file, or a directory
//! of files), or a URL (`s3://`, `gs://`, `az://`, `http(s)://`; a "directory" is a
//! prefix) read through `object_store` with credentials and endpoint from the environment,
//! as `object_store`'s builders read them (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, …).
//! `file://` URLs are local paths.

use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use colfile::source::ObjectSource;
use colfile::{Error, ErrorKind, Result};
use futures_util::TryStreamExt;
use object_store::ObjectStore;

/// One file to read.
pub enum Place {
    /// A local file.
    Local(PathBuf),
    /// An object of a store, with its URL (for messages).
    Remote {
        store: Arc<dyn ObjectStore>,
        path: object_store::path::Path,
        url: String,
    },
}

impl Place {
    /// The path or URL, for messages.
    pub fn name(&self) -> String {
        match self {
            Place::Local(p) => p.display().to_string(),
            Place::Remote { url, .. } => url.clone(),
        }
    }

    /// The object opened (its length asked with one HEAD request).
    pub fn object(&self) -> Result<ObjectSource> {
        match self {
            Place::Local(p) => Err(Error::invalid(format!("{}: a local file", p.display()))),
            Place::Remote { store, path, url } => runtime()
                .block_on(ObjectSource::open(store.clone(), path.clone()))
                .map(|o| o.with_name(url.clone())),
        }
    }
}

/// The runtime that drives every remote read of the module (two worker threads; a read
/// blocks the calling thread, which has released the GIL, until its batch is ready).
pub fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("colfile-io")
            .enable_all()
            .build()
            .expect("a Tokio runtime for remote reads")
    })
}

/// The files at `location`: the file itself, or the files of a directory (prefix), in
/// name order. Hidden and bookkeeping files (names starting with `.` or `_`, as Hive and
/// Hadoop write them) are left out, and so are files that `keep` refuses (by name).
pub fn files(location: &str, keep: impl Fn(&str) -> bool) -> Result<Vec<Place>> {
    let local = location.strip_prefix("file://");
    if !colfile::source::is_url(location) || local.is_some() {
        let path = PathBuf::from(local.unwrap_or(location));
        return local_files(&path, &keep);
    }
    let (store, path) = ObjectSource::store_for_url(location)?;
    if !location.ends_with('/') {
        let url = location.to_string();
        return Ok(vec![Place::Remote { store, path, url }]);
    }
    let listed: Vec<_> = runtime()
        .block_on(store.list(Some(&path)).try_collect::<Vec<_>>())
        .map_err(|e| {
            let msg = format!("{location}: cannot list: {e}");
            Error::with_source(ErrorKind::InvalidArgument(msg), e)
        })?;
    let base = location.trim_end_matches('/');
    let prefix = path.as_ref().len();
    let mut places: Vec<Place> = listed
        .into_iter()
        .filter(|m| visible(m.location.filename().unwrap_or("")))
        .filter(|m| keep(m.location.filename().unwrap_or("")))
        .map(|m| {
            let rel = m.location.as_ref().get(prefix..).unwrap_or("");
            let url = format!("{base}/{}", rel.trim_start_matches('/'));
            Place::Remote {
                store: store.clone(),
                path: m.location,
                url,
            }
        })
        .collect();
    places.sort_by_key(Place::name);
    if places.is_empty() {
        return Err(Error::invalid(format!("{location}: no files to read")));
    }
    Ok(places)
}

fn visible(name: &str) -> bool {
    !(name.starts_with('.') || name.starts_with('_') || name.is_empty())
}

fn local_files(path: &Path, keep: &dyn Fn(&str) -> bool) -> Result<Vec<Place>> {
    let meta = std::fs::metadata(path).map_err(|e| Error::from(e).in_file(path))?;
    if !meta.is_dir() {
        return Ok(vec![Place::Local(path.to_path_buf())]);
    }
    let mut out = Vec::new();
    let entries = std::fs::read_dir(path).map_err(|e| Error::from(e).in_file(path))?;
    for entry in entries {
        let entry = entry.map_err(|e| Error::from(e).in_file(path))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().map(|t| t.is_file()).unwrap_or(false);
        if is_file && visible(&name) && keep(&name) {
            out.push(entry.path());
        }
    }
    out.sort();
    if out.is_empty() {
        return Err(Error::invalid(format!(
            "{}: no files to read",
            path.display()
        )));
    }
    Ok(out.into_iter().map(Place::Local).collect())
}
