//! Tables in object stores: locations given as URLs (`s3://bucket/warehouse/t/`, `gs://…`,
//! `az://…`, `http(s)://…`, `file:///…`), their objects listed through the store that
//! DataFusion's object-store registry holds for the URL, and read by the library's async
//! readers, which plan and merge their range requests.
//!
//! `colfile-sql` builds the store for a URL from the standard environment
//! ([`store_from_env`]) and registers it; a program registers its own with
//! `SessionContext::register_object_store`.

use std::path::PathBuf;
use std::sync::Arc;

use datafusion::execution::object_store::ObjectStoreUrl;
use datafusion::execution::runtime_env::RuntimeEnv;
use futures::TryStreamExt;
use object_store::path::Path as ObjectPath;
use object_store::ObjectStore;

use crate::listing::TableFile;
use colfile::Error;

pub use colfile::source::is_url;

/// A parsed table URL: the store's URL (`scheme://authority`) and the prefix inside it.
#[derive(Clone, Debug)]
pub struct TableUrl {
    /// The whole location as given.
    pub location: String,
    /// `scheme://authority`, the key of the store in the registry.
    pub store: ObjectStoreUrl,
    /// The path inside the store.
    pub prefix: ObjectPath,
}

impl TableUrl {
    /// Parses `location`.
    pub fn parse(location: &str) -> colfile::Result<Self> {
        let url = url::Url::parse(location)
            .map_err(|e| Error::invalid(format!("{location}: not a URL: {e}")))?;
        let store = ObjectStoreUrl::parse(&url[..url::Position::BeforePath])
            .map_err(|e| Error::invalid(format!("{location}: {e}")))?;
        let prefix = ObjectPath::from_url_path(url.path())
            .map_err(|e| Error::invalid(format!("{location}: {e}")))?;
        Ok(TableUrl {
            location: location.to_owned(),
            store,
            prefix,
        })
    }

    /// The registry's store for this URL.
    pub fn store_in(&self, env: &RuntimeEnv) -> colfile::Result<Arc<dyn ObjectStore>> {
        env.object_store(&self.store).map_err(|e| {
            Error::invalid(format!(
                "{}: no object store for {} ({e})",
                self.location,
                self.store.as_str()
            ))
        })
    }

    /// The URL of the object at `path` of the same store.
    fn url_of(&self, path: &ObjectPath) -> String {
        format!("{}{}", self.store.as_str(), path)
    }

    /// The table's files: the object itself, or every object below the prefix whose name
    /// ends with `extension` (when given), skipping names that start with `.` or `_` at any
    /// level, in path order. Each file's `path` is its URL.
    pub async fn list(
        &self,
        store: &dyn ObjectStore,
        extension: Option<&str>,
    ) -> colfile::Result<Vec<TableFile>> {
        let fail = |e: object_store::Error| Error::invalid(format!("{}: {e}", self.location));
        let mut out = Vec::new();
        let objects: Vec<_> = store
            .list(Some(&self.prefix))
            .try_collect()
            .await
            .map_err(fail)?;
        for o in objects {
            let rel: Vec<_> = o
                .location
                .prefix_match(&self.prefix)
                .into_iter()
                .flatten()
                .collect();
            let hidden = rel
                .iter()
                .any(|p| p.as_ref().starts_with('.') || p.as_ref().starts_with('_'));
            let named = extension.is_none_or(|x| o.location.as_ref().ends_with(x));
            if !hidden && named {
                out.push(TableFile {
                    path: PathBuf::from(self.url_of(&o.location)),
                    len: o.size,
                });
            }
        }
        if out.is_empty() {
            // Not a prefix: the object itself.
            if let Ok(meta) = object_store::ObjectStoreExt::head(store, &self.prefix).await {
                out.push(TableFile {
                    path: PathBuf::from(self.location.clone()),
                    len: meta.size,
                });
            }
        }
        if out.is_empty() {
            return Err(Error::invalid(format!(
                "no table files at {:?}",
                self.location
            )));
        }
        out.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(out)
    }

    /// The path inside the store of a file this table listed: what follows
    /// `scheme://authority/` in its URL, taken as the store's own (already encoded) path,
    /// so that a key holding `%2F`, as Hive escapes a `/` in a partition value, stays one
    /// segment.
    pub fn object_path(file: &TableFile) -> colfile::Result<ObjectPath> {
        let text = file.path.to_string_lossy();
        let after = text.find("://").map(|i| i + 3);
        let rest = after
            .and_then(|i| text.get(i..))
            .and_then(|t| t.split_once('/'));
        let Some((_, path)) = rest else {
            return Err(Error::invalid(format!("{text}: not an object URL")));
        };
        ObjectPath::parse(path).map_err(|e| Error::invalid(format!("{text}: {e}")))
    }
}

/// The store for `location` built from the standard environment (`AWS_ENDPOINT_URL`,
/// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ALLOW_HTTP`, and the
/// `GOOGLE_*`/`AZURE_*` equivalents), as `object_store`'s builders read them.
#[cfg(feature = "cli")]
pub fn store_from_env(location: &str) -> colfile::Result<Arc<dyn ObjectStore>> {
    colfile::source::ObjectSource::store_for_url(location).map(|(store, _)| store)
}
