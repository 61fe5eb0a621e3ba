//! A whole TsFile query read on several threads: the devices it selects are cut into
//! consecutive groups, each group is read by its own query on its own thread (sharing the
//! opened file and its index), and the groups' batches are joined in file order, so the
//! result is the one the single query gives. Small batches (a device's rows) are joined
//! into batches of about `batch_size` rows on the reading threads, so that pyarrow imports
//! few large batches. Where a group's columns would differ from the whole query's (tree
//! model devices with different measurements), the query is read as one group.

use std::sync::Arc;

use arrow_array::RecordBatch;
use arrow_schema::SchemaRef;
use colfile::arrow::{TsFileArrowReader, TsFileArrowReaderBuilder};
use colfile::source::ByteSource;
use colfile::tsfile::{Query, TsFileReader};
use colfile::{Error, Result};

/// Every batch of `query` over `reader`, read by up to `threads` threads.
pub fn read_all<S: ByteSource + Send + Sync + 'static>(
    reader: Arc<TsFileReader<S>>,
    query: &Query,
    batch_size: usize,
    threads: usize,
) -> Result<(SchemaRef, Vec<RecordBatch>)> {
    let schema = builder(&reader, query.clone(), batch_size).schema()?;
    let devices = reader.devices(query)?;
    let per = devices.len().div_ceil(threads.max(1)).max(1);
    let mut groups: Vec<Query> = if threads <= 1 || devices.len() < 2 {
        vec![query.clone()]
    } else {
        devices
            .chunks(per)
            .map(|c| c.iter().fold(query.clone(), |q, d| q.device(d.clone())))
            .collect()
    };
    // A group must give the whole query's columns (in the tree model a group's columns are
    // its devices' measurements): otherwise the query is read as one group.
    for q in &groups {
        if builder(&reader, q.clone(), batch_size).schema()? != schema {
            groups = vec![query.clone()];
            break;
        }
    }
    let parts: Vec<Result<Vec<RecordBatch>>> = std::thread::scope(|s| {
        let handles: Vec<_> = groups
            .into_iter()
            .map(|q| {
                let reader = reader.clone();
                let schema = schema.clone();
                s.spawn(move || group(reader, q, schema, batch_size))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::invalid("a reading thread panicked")))
            })
            .collect()
    });
    let mut out = Vec::new();
    for p in parts {
        out.extend(p?);
    }
    Ok((schema, out))
}

/// The Arrow reader of `query` over `reader`.
fn builder<S: ByteSource>(
    reader: &Arc<TsFileReader<S>>,
    query: Query,
    batch_size: usize,
) -> TsFileArrowReaderBuilder<S> {
    TsFileArrowReader::builder(reader.clone())
        .with_query(query)
        .with_batch_size(batch_size)
}

/// One group's batches, joined up to `batch_size` rows.
fn group<S: ByteSource + Send + Sync + 'static>(
    reader: Arc<TsFileReader<S>>,
    query: Query,
    schema: SchemaRef,
    batch_size: usize,
) -> Result<Vec<RecordBatch>> {
    let r = builder(&reader, query, batch_size).build()?;
    let mut out = Vec::new();
    let mut pending: Vec<RecordBatch> = Vec::new();
    let mut rows = 0;
    for b in r.planned() {
        let b = b.map_err(Error::from)?;
        rows += b.num_rows();
        pending.push(b);
        if rows >= batch_size {
            out.push(join(&schema, &mut pending)?);
            rows = 0;
        }
    }
    if !pending.is_empty() {
        out.push(join(&schema, &mut pending)?);
    }
    Ok(out)
}

fn join(schema: &SchemaRef, pending: &mut Vec<RecordBatch>) -> Result<RecordBatch> {
    let b = match pending.len() {
        1 => pending.pop().ok_or_else(|| Error::invalid("no batch"))?,
        _ => arrow_select::concat::concat_batches(schema, pending.iter()).map_err(Error::from)?,
    };
    pending.clear();
    Ok(b)
}
