//! One scan task of a [`TsFileTable`](super::TsFileTable): some devices of one file, in
//! one slice of their time, read through the file's synchronous reader (local) or a clone of
//! its opened async reader (an object), each batch conformed to the table's columns. The
//! task holds what its query is made from (the scan's filters, projection and limit), not
//! the query itself, so that it can be sent to another machine and made again there.

use std::sync::Arc;
use std::time::Instant;

use arrow_array::{new_null_array, Array, ArrayRef, RecordBatch, RecordBatchOptions, StringArray};
use arrow_schema::SchemaRef;
use colfile::arrow::TsFileArrowReader;
use colfile::tsfile::format::DeviceId;
use colfile::tsfile::Query;
use datafusion::logical_expr::Expr;
use datafusion::scalar::ScalarValue;
use tokio::runtime::Handle;

use super::{base_query, fields_pushed, remote, tree, Model, OpenFile, TsFileOptions, TIME};
use crate::counted::bytes_read;
use crate::exec::{drain, ScanTask, TaskMetrics};
use crate::filter::Pushdown;

/// What every task of one scan shares: how the table reads, and what the query asks.
#[derive(Debug)]
pub(crate) struct TsScan {
    pub options: TsFileOptions,
    pub model: Model,
    /// The files' columns (the table's, less partition columns): what filters are pushed
    /// against.
    pub file_schema: SchemaRef,
    /// The batches' schema (the projection's).
    pub out: SchemaRef,
    /// The scan's filters, as DataFusion gave them.
    pub filters: Vec<Expr>,
    /// The row limit each reader may stop at (only when there are no filters).
    pub reader_limit: Option<usize>,
    /// The runtime that objects' requests run on, when any file is remote.
    pub handle: Option<Handle>,
}

impl TsScan {
    /// The query one file answers (its devices are added per task). Table model: the
    /// table, the projected columns this file has, the time range, and the pushed filter
    /// when this file has every column it names. Tree model: the time range, and every
    /// measurement, since a non-aligned device's rows are the times of all its series. With
    /// the reader's limit, when the scan has one.
    pub fn file_query(&self, f: &OpenFile) -> Query {
        let (out, push) = (&self.out, self.push());
        let mut q = match self.model {
            Model::Tree { .. } => Query::all(),
            Model::Table => {
                let has = |name: &str| {
                    f.schema
                        .fields()
                        .iter()
                        .any(|c| c.name().eq_ignore_ascii_case(name))
                };
                let columns: Vec<String> = out
                    .fields()
                    .iter()
                    .map(|c| c.name().clone())
                    .filter(|n| !n.eq_ignore_ascii_case(TIME) && has(n))
                    .collect();
                let mut q = base_query(&self.options).columns(columns);
                if let Some(filter) = &push.filter {
                    if filter.columns().iter().all(|c| has(c)) {
                        q = q.filter(filter.clone());
                    }
                }
                q
            }
        };
        if push.start.is_some() || push.end.is_some() {
            q = q.time_range(push.start.unwrap_or(i64::MIN), push.end.unwrap_or(i64::MAX));
        }
        if let Some(n) = self.reader_limit {
            q = q.limit(n as u64);
        }
        q
    }

    /// What of the scan's filters goes to each file's reader.
    pub fn push(&self) -> Pushdown {
        let (unit, fields) = (
            self.options.time_unit,
            fields_pushed(&self.options, self.model),
        );
        Pushdown::from_filters(&self.filters, &self.file_schema, TIME, unit, fields)
    }
}

/// Some devices of one file, in one slice of their time.
#[derive(Debug)]
pub(crate) struct Devices {
    pub scan: Arc<TsScan>,
    pub file: Arc<OpenFile>,
    pub devices: Vec<DeviceId>,
    /// This task's slice of time (`start..=end`, already within the query's range), when
    /// the devices' time is cut between several tasks.
    pub slice: Option<(i64, i64)>,
}

impl ScanTask for Devices {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let (scan, file) = (&self.scan, &self.file);
        let mut q = scan.file_query(file);
        for d in &self.devices {
            q = q.device(d.clone());
        }
        if let Some((start, end)) = self.slice {
            q = q.time_range(start, end);
        }
        let out = |b: RecordBatch| conform(&b, &scan.out, scan.model, &file.values);
        if let (Some(opened), Some(handle)) = (&file.remote, &scan.handle) {
            let o = &scan.options;
            return remote::run(opened, handle, q, batch_size, o, metrics, |b| {
                Ok(emit(out(b)?))
            });
        }
        let bytes = bytes_read();
        let started = Instant::now();
        let mut reader = TsFileArrowReader::builder(file.reader.clone())
            .with_query(q)
            .with_batch_size(batch_size)
            .with_time_unit(scan.options.time_unit)
            .with_lossy_utf8(scan.options.lossy_utf8)
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

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn describe(&self) -> String {
        let slice = match self.slice {
            Some((start, end)) => format!(", time {start}..={end}"),
            None => String::new(),
        };
        format!(
            "{} ({} devices{slice})",
            self.file.file.path.display(),
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
