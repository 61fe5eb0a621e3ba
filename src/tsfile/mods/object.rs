//! IoTDB deletions kept beside a TsFile in an object store: the `FILE.mods` and
//! `FILE.mods2` objects, fetched whole when they exist.

use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};

use super::Modifications;
use crate::{Error, ErrorKind, Limits, Result};

impl Modifications {
    /// The deletions of the `FILE.mods` (text) and `FILE.mods2` (binary) objects beside the
    /// TsFile object `tsfile` of `store`, as [`for_tsfile_with`](Self::for_tsfile_with) reads
    /// them beside a local file: none when neither exists. One HEAD request per name, and a
    /// GET for each that exists.
    ///
    /// Errors: [`ErrorKind::Fetch`] naming the object when the store fails (other than "not
    /// found"); [`ErrorKind::LimitExceeded`] for an object larger than
    /// [`Limits::max_alloc_bytes`]; a damaged modification file, located in it.
    ///
    /// ```
    /// # futures_util::FutureExt::now_or_never(async {
    /// use object_store::{memory::InMemory, path::Path, ObjectStoreExt};
    /// use colfile::tsfile::mods::Modifications;
    /// use colfile::Limits;
    /// let store = InMemory::new();
    /// let tsfile = Path::from("data/1-1-0-0.tsfile");
    /// let limits = Limits::default();
    /// assert!(Modifications::for_object(&store, &tsfile, &limits).await?.is_empty());
    /// let mods = Path::from("data/1-1-0-0.tsfile.mods");
    /// store.put(&mods, b"DELETION,root.sg.d1.s1,9,1,2\n".to_vec().into()).await.unwrap();
    /// let m = Modifications::for_object(&store, &tsfile, &limits).await?;
    /// assert_eq!(m.deletions().len(), 1);
    /// # Ok::<(), colfile::Error>(())
    /// # }).unwrap().unwrap();
    /// ```
    pub async fn for_object(
        store: &dyn ObjectStore,
        tsfile: &Path,
        limits: &Limits,
    ) -> Result<Self> {
        let mut all = Modifications::default();
        for suffix in [".mods", ".mods2"] {
            let path = Path::from(format!("{tsfile}{suffix}"));
            let name = format!("{store}/{path}");
            let fetch = |e: object_store::Error| {
                let kind = ErrorKind::Fetch {
                    object: name.clone(),
                    start: 0,
                    end: 0,
                    message: e.to_string(),
                };
                Error::with_source(kind, e)
            };
            let size = match store.head(&path).await {
                Ok(meta) => meta.size,
                Err(object_store::Error::NotFound { .. }) => continue,
                Err(e) => return Err(fetch(e)),
            };
            let cap = limits.max_alloc_bytes as u64;
            if size > cap {
                let e = Error::limit("modification file size", size, cap);
                return Err(e.in_file(&name));
            }
            let got = store.get(&path).await.map_err(fetch)?;
            let bytes = got.bytes().await.map_err(fetch)?;
            all = all.union(Modifications::parse(&bytes, &name, limits)?);
        }
        Ok(all)
    }
}
