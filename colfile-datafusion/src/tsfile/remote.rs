//! TsFile tables in object stores. Each object is opened once, when the table is made: its
//! head and tail, then its whole index in one request, and the `FILE.mods`/`FILE.mods2`
//! objects listed beside it. The table is planned over those bytes exactly as over a local
//! file; each scan task then streams its devices through a clone of the opened async reader
//! ([`TsFileRecordBatchStreamBuilder`]), which fetches the chunks they need in merged
//! requests, awaited from the task's blocking thread.

use std::collections::HashSet;
use std::sync::Arc;

use arrow_array::RecordBatch;
use colfile::arrow::{AsyncReadOptions, TsFileRecordBatchStreamBuilder};
use colfile::source::ObjectSource;
use colfile::tsfile::mods::Modifications;
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;
use futures::{StreamExt, TryStreamExt};
use object_store::{ObjectStore, ObjectStoreExt};

use super::TsFileOptions;
use crate::counted::CountedSource;
use crate::exec::{drain, TaskMetrics};
use crate::listing::TableFile;
use crate::remote::TableUrl;

/// An object opened for reading: footer and index fetched, deletions loaded.
pub(crate) type Opened = TsFileRecordBatchStreamBuilder<ObjectSource>;

/// How many objects are opened at once when a table is made.
const OPEN_AT_ONCE: usize = 8;

/// The `.tsfile` objects among `listed` (a table location's objects), each opened: its
/// planning reader over the fetched footer and index, and the opened async reader that
/// the scan clones. Deletions come from the `.mods`/`.mods2` objects in `listed` unless
/// [`TsFileOptions::apply_mods`] is off.
pub(super) async fn open_all(
    store: &Arc<dyn ObjectStore>,
    listed: Vec<TableFile>,
    options: &TsFileOptions,
) -> colfile::Result<Vec<(TableFile, Arc<TsFileReader<CountedSource>>, Opened)>> {
    let names: HashSet<String> = listed
        .iter()
        .map(|f| f.path.to_string_lossy().into_owned())
        .collect();
    let mods: Vec<TableFile> = listed
        .iter()
        .filter(|f| {
            let p = f.path.to_string_lossy();
            p.ends_with(".tsfile.mods") || p.ends_with(".tsfile.mods2")
        })
        .cloned()
        .collect();
    let files = listed
        .into_iter()
        .filter(|f| f.path.to_string_lossy().ends_with(".tsfile"));
    futures::stream::iter(files)
        .map(|file| {
            let beside: Vec<TableFile> = match options.apply_mods {
                true => mods_of(&file, &names, &mods),
                false => Vec::new(),
            };
            async move {
                let (reader, opened) = open_one(store, &file, &beside).await?;
                Ok((file, reader, opened))
            }
        })
        .buffered(OPEN_AT_ONCE)
        .try_collect()
        .await
}

/// The modification objects of `file` among those listed.
fn mods_of(file: &TableFile, names: &HashSet<String>, mods: &[TableFile]) -> Vec<TableFile> {
    let base = file.path.to_string_lossy();
    [".mods", ".mods2"]
        .iter()
        .map(|s| format!("{base}{s}"))
        .filter(|n| names.contains(n))
        .filter_map(|n| mods.iter().find(|m| m.path.to_string_lossy() == n).cloned())
        .collect()
}

/// Opens one object on its own (not listed with its table): its `.mods`/`.mods2` objects,
/// when deletions apply, are found by asking the store for them by name.
pub(crate) async fn open_alone(
    store: &Arc<dyn ObjectStore>,
    file: &TableFile,
    options: &TsFileOptions,
) -> colfile::Result<(Arc<TsFileReader<CountedSource>>, Opened)> {
    let deletions = match options.apply_mods {
        true => {
            let path = TableUrl::object_path(file)?;
            Modifications::for_object(store.as_ref(), &path, &Limits::default()).await?
        }
        false => Modifications::default(),
    };
    open_with(store, file, deletions).await
}

/// Opens `file` with the deletions of the listed modification objects `mods`.
async fn open_one(
    store: &Arc<dyn ObjectStore>,
    file: &TableFile,
    mods: &[TableFile],
) -> colfile::Result<(Arc<TsFileReader<CountedSource>>, Opened)> {
    let limits = Limits::default();
    let mut deletions = Modifications::default();
    for m in mods {
        let name = m.path.to_string_lossy();
        let cap = limits.max_alloc_bytes as u64;
        if m.len > cap {
            let e = colfile::Error::limit("modification file size", m.len, cap);
            return Err(e.in_file(name.as_ref()));
        }
        let path = TableUrl::object_path(m)?;
        let fetch = |e: object_store::Error| colfile::Error::invalid(format!("{name}: {e}"));
        let got = store.get(&path).await.map_err(fetch)?;
        let bytes = got.bytes().await.map_err(fetch)?;
        deletions = deletions.union(Modifications::parse(&bytes, &name, &limits)?);
    }
    open_with(store, file, deletions).await
}

/// Opens `file` (footer and index fetched) with `deletions`.
async fn open_with(
    store: &Arc<dyn ObjectStore>,
    file: &TableFile,
    deletions: Modifications,
) -> colfile::Result<(Arc<TsFileReader<CountedSource>>, Opened)> {
    let path = TableUrl::object_path(file)?;
    let name = file.path.display().to_string();
    let object = ObjectSource::with_len(Arc::clone(store), path, file.len).with_name(name);
    let options = AsyncReadOptions {
        modifications: Some(deletions.clone()),
        ..AsyncReadOptions::default()
    };
    let opened = Opened::new_with_options(object, options).await?;
    opened.fetch_index().await?;
    // The planner's reader: the same footer over the bytes just fetched, no request.
    let cache = Arc::clone(opened.reader().source());
    let reader = TsFileReader::builder(CountedSource::Fetched(cache))
        .with_modifications(deletions)
        .build()?;
    Ok((Arc::new(reader), opened))
}

/// One scan task's batches from an object: `query` through a clone of `opened`, each batch
/// awaited on `handle` from this (blocking) thread and handed to `each`.
pub(super) fn run(
    opened: &Opened,
    handle: &tokio::runtime::Handle,
    query: Query,
    batch_size: usize,
    options: &TsFileOptions,
    metrics: &mut TaskMetrics,
    each: impl FnMut(RecordBatch) -> colfile::Result<bool>,
) -> colfile::Result<()> {
    let started = std::time::Instant::now();
    let builder = opened
        .clone()
        .with_query(query)
        .with_batch_size(batch_size)
        .with_time_unit(options.time_unit)
        .with_lossy_utf8(options.lossy_utf8);
    let mut stream = handle.block_on(builder.build())?;
    metrics.decode_time += started.elapsed();
    let mut batches = std::iter::from_fn(|| handle.block_on(stream.next()));
    drain(&mut batches, metrics, each)
}
