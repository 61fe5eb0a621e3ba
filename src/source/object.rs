//! [`ObjectSource`]: an object in any [`object_store::ObjectStore`] (S3, GCS, Azure, HTTP,
//! local files, memory) as an [`AsyncByteSource`]. Each fetch is one ranged GET; the store's
//! own retry settings decide how failures are retried before one becomes an error.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;
use object_store::path::Path;
use object_store::{GetOptions, GetRange, ObjectStore, ObjectStoreExt};

use super::remote::{fetch_error, AsyncByteSource};
use crate::{Error, ErrorKind, Result};

/// One object of a store, read by ranged GETs.
///
/// ```
/// # futures_util::FutureExt::now_or_never(async {
/// use std::sync::Arc;
/// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
/// use colfile::source::{AsyncByteSource, ObjectSource};
/// let store = Arc::new(InMemory::new());
/// let path = Path::from("dir/a.bin");
/// store.put(&path, b"0123456789".to_vec().into()).await.unwrap();
/// let src = ObjectSource::open(store, path).await?;
/// assert_eq!(src.len(), 10);
/// assert_eq!(&src.fetch(3..6).await?[..], b"345");
/// # Ok::<(), colfile::Error>(())
/// # }).unwrap().unwrap();
/// ```
#[derive(Clone)]
pub struct ObjectSource {
    store: Arc<dyn ObjectStore>,
    path: Path,
    len: u64,
    name: String,
}

impl fmt::Debug for ObjectSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ObjectSource")
            .field("object", &self.name)
            .field("len", &self.len)
            .finish()
    }
}

impl ObjectSource {
    /// Opens `path` in `store`, asking the store for its length (one HEAD request).
    ///
    /// Errors: [`ErrorKind::Fetch`] when the store cannot say (no such object, no access).
    pub async fn open(store: Arc<dyn ObjectStore>, path: Path) -> Result<Self> {
        let name = object_name(store.as_ref(), &path);
        let meta = store.as_ref().head(&path).await.map_err(|e| {
            let msg = e.to_string();
            let kind = ErrorKind::Fetch {
                object: name.clone(),
                start: 0,
                end: 0,
                message: format!("no length for the object: {msg}"),
            };
            Error::with_source(kind, e)
        })?;
        Ok(Self::with_len(store, path, meta.size))
    }

    /// `path` in `store` when its length is known (from a listing): no request.
    pub fn with_len(store: Arc<dyn ObjectStore>, path: Path, len: u64) -> Self {
        let name = object_name(store.as_ref(), &path);
        ObjectSource {
            store,
            path,
            len,
            name,
        }
    }

    /// The store and object path a URL names (`s3://bucket/key`, `gs://…`, `az://…`,
    /// `http(s)://…`), configured from the environment as `object_store`'s builders read it
    /// (`AWS_ENDPOINT_URL`, `AWS_ACCESS_KEY_ID`, `AWS_ALLOW_HTTP`, the `GOOGLE_*` and
    /// `AZURE_*` equivalents). Each scheme needs its `object_store` feature (`aws`, `gcp`,
    /// `azure`, `http`), which is the application's to turn on.
    ///
    /// Errors: [`ErrorKind::InvalidArgument`] naming the URL, for one that does not parse or
    /// names a store this build cannot reach.
    ///
    /// ```
    /// use colfile::source::ObjectSource;
    /// // No request is made: the store is only configured.
    /// let (_, path) = ObjectSource::store_for_url("s3://warehouse/t/dt=1/part-0.rc")?;
    /// assert_eq!(path.as_ref(), "t/dt=1/part-0.rc");
    /// assert!(ObjectSource::store_for_url("not a url").is_err());
    /// # Ok::<(), colfile::Error>(())
    /// ```
    pub fn store_for_url(url: &str) -> Result<(Arc<dyn ObjectStore>, Path)> {
        let parsed =
            url::Url::parse(url).map_err(|e| Error::invalid(format!("{url}: not a URL: {e}")))?;
        let (store, path) =
            object_store::parse_url_opts(&parsed, std::env::vars()).map_err(|e| {
                let msg = format!("{url}: cannot reach the store: {e}");
                Error::with_source(ErrorKind::InvalidArgument(msg), e)
            })?;
        Ok((Arc::from(store), path))
    }

    /// Names the object `name` in errors (e.g. the `s3://bucket/key` URL it was opened by),
    /// instead of the store's own name for itself followed by the path.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self
    }

    /// The object's path in its store.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// `STORE/path`, as the store names itself (`AmazonS3(bucket)/key`, `LocalFileSystem(/)/p`).
fn object_name(store: &dyn ObjectStore, path: &Path) -> String {
    format!("{store}/{path}")
}

impl AsyncByteSource for ObjectSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn name(&self) -> String {
        self.name.clone()
    }

    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        async move {
            if range.start > range.end || range.end > self.len {
                return Err(fetch_error(self, &range, "range outside the object"));
            }
            if range.start == range.end {
                return Ok(Bytes::new());
            }
            let options = GetOptions {
                range: Some(GetRange::Bounded(range.clone())),
                ..GetOptions::default()
            };
            let got = async {
                self.store
                    .get_opts(&self.path, options)
                    .await?
                    .bytes()
                    .await
            };
            got.await.map_err(|e| {
                let msg = e.to_string();
                let kind = ErrorKind::Fetch {
                    object: self.name.clone(),
                    start: range.start,
                    end: range.end,
                    message: msg,
                };
                Error::with_source(kind, e).at_offset(range.start)
            })
        }
        .boxed()
    }
}
