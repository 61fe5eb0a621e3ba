//! One scan task of a [`TsFileTable`](super::TsFileTable): some devices of one file, in
//! one slice of their time, read through the file's synchronous reader (local) or a clone of
//! its opened async reader (an object), each batch conformed to the table's columns.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::SchemaRef;
use colfile::arrow::TsFileArrowReader;
use colfile::tsfile::format::DeviceId;
use colfile::tsfile::{Query, TsFileReader};
use datafusion::scalar::ScalarValue;

use super::{remote, tree, Model, TsFileOptions};
use crate::counted::{bytes_read, CountedSource};
use crate::exec::{drain, ScanTask, TaskMetrics};
use crate::listing::TableFile;

/// Some devices of one file, in one slice of their time.
#[derive(Debug)]
pub(super) struct Devices {
    pub file: TableFile,
    pub reader: Arc<TsFileReader<CountedSource>>,
    /// The file's query (columns, filter, time range, limit); the devices are added.
    pub query: Query,
    pub devices: Vec<DeviceId>,
    /// This task's slice of time (`start..=end`, already within the query's range), when
    /// the devices' time is cut between several tasks.
    pub slice: Option<(i64, i64)>,
    /// The batches' schema (the projection's).
    pub out: SchemaRef,
    pub options: TsFileOptions,
    pub model: Model,
    /// The file's partition values.
    pub values: Arc<[(String, ScalarValue)]>,
    /// The opened object, and the runtime its requests run on, when the file is remote.
    pub remote: Option<(remote::Opened, tokio::runtime::Handle)>,
}

impl ScanTask for Devices {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let mut q = self.query.clone();
        for d in &self.devices {
            q = q.device(d.clone());
        }
        if let Some((start, end)) = self.slice {
            q = q.time_range(start, end);
        }
        let out = |b: RecordBatch| conform(&b, &self.out, self.model, &self.values);
        if let Some((opened, handle)) = &self.remote {
            let o = &self.options;
            return remote::run(opened, handle, q, batch_size, o, metrics, |b| {
                Ok(emit(out(b)?))
            });
        }
        let bytes = bytes_read();
        let started = Instant::now();
        let mut reader = TsFileArrowReader::builder(self.reader.clone())
            .with_query(q)
            .with_batch_size(batch_size)
            .with_time_unit(self.options.time_unit)
            .with_lossy_utf8(self.options.lossy_utf8)
            .build()?;
        metrics.decode_time += started.elapsed();
        let result = drain(&mut reader, metrics, |b| Ok(emit(out(b)?)));
        let ex = reader.explain();
        for (name, level) in [
            ("devices", &ex.devices),
            ("chunks", &ex.chunks),
            ("pages", &ex.pages),
        ] {
            let skipped = level.skipped_total();
            metrics.prune(name, level.considered.saturating_sub(skipped), skipped);
        }
        metrics.count("rows_decoded", ex.rows_decoded);
        metrics.count("bytes_read", bytes_read() - bytes);
        result
    }

    fn describe(&self) -> String {
        let slice = match self.slice {
            Some((start, end)) => format!(", time {start}..={end}"),
            None => String::new(),
        };
        format!(
            "{} ({} devices{slice})",
            self.file.path.display(),
            self.devices.len()
        )
    }
}

/// A file's batch in the table's column order: NULL columns for what the file lacks,
/// (tree model) the path columns of the batch's one device, and the file's partition values.
pub(super) fn conform(
    b: &RecordBatch,
    out: &SchemaRef,
    model: Model,
    values: &[(String, ScalarValue)],
) -> colfile::Result<RecordBatch> {
    let src = b.schema();
    let rows = b.num_rows();
    let device = match model {
        Model::Tree { .. } if rows > 0 => src
            .index_of(tree::DEVICE)
            .ok()
            .and_then(|i| b.column(i).as_any().downcast_ref::<StringArray>())
            .map(|a| a.value(0).to_owned()),
        _ => None,
    };
    let nodes = device
        .as_deref()
        .and_then(|d| DeviceId::from_tree_path(d).ok())
        .map(|d| d.path_nodes())
        .unwrap_or_default();
    let columns: Vec<ArrayRef> = out
        .fields()
        .iter()
        .map(|f| {
            if let (Model::Tree { levels }, Some(d)) = (model, &device) {
                if tree::is_path_column(f.name(), levels) {
                    return Ok(tree::repeated(
                        tree::path_value(f.name(), d, &nodes).as_deref(),
                        rows,
                    ));
                }
            }
            if let Some((_, v)) = values.iter().find(|(n, _)| n == f.name()) {
                return v
                    .to_array_of_size(rows)
                    .map_err(|e| colfile::Error::invalid(e.to_string()));
            }
            let at = src.index_of(f.name()).ok().or_else(|| {
                src.fields()
                    .iter()
                    .position(|s| s.name().eq_ignore_ascii_case(f.name()))
            });
            Ok(match at {
                Some(i) => b.column(i).clone(),
                None => new_null_array(f.data_type(), rows),
            })
        })
        .collect::<colfile::Result<_>>()?;
    let options = RecordBatchOptions::new().with_row_count(Some(rows));
    RecordBatch::try_new_with_options(out.clone(), columns, &options).map_err(colfile::Error::from)
}
