//! An IoTDB data directory as one table: its live TsFiles' devices, each read through
//! [`Dataset::query`] so that overlapping files merge as IoTDB merges them (unsequence over
//! sequence, then the higher version; `.resource` ranges skip files; each file's `.mods`
//! applied unless [`TsFileOptions::apply_mods`](super::TsFileOptions) is off).
//!
//! The table's columns are those of a tree-model table over the same files. Its statistics
//! are never exact (files overlap), and a scan runs in parallel over groups of devices, the
//! time range pushed into every file's read. Table-model data directories (IoTDB 2.x table
//! databases) are refused: their merge is not implemented.

use std::sync::Arc;

use arrow_schema::SchemaRef;
use colfile::arrow::tree_batch_to_arrow;
use colfile::tsfile::dataset::{Dataset, ReadOptions};
use colfile::tsfile::format::DeviceId;
use colfile::tsfile::Query;
use datafusion::catalog::Session;
use datafusion::common::Result;

use super::tree::DeviceFilter;
use super::{conform, Model, TsFileOptions, TsFileTable};
use crate::exec::{ScanTask, TaskMetrics};
use crate::listing::TableFile;

/// The table over the data directory at `dir`.
pub(super) fn table(dir: &std::path::Path, options: TsFileOptions) -> colfile::Result<TsFileTable> {
    let ds = Dataset::open(dir)?;
    let files: Vec<TableFile> = ds
        .files
        .iter()
        .map(|f| {
            let len = std::fs::metadata(&f.path)?.len();
            Ok(TableFile {
                path: f.path.clone(),
                len,
            })
        })
        .collect::<colfile::Result<_>>()?;
    if files.is_empty() {
        return Err(colfile::Error::invalid(format!(
            "no live TsFile in the IoTDB data directory {}",
            dir.display()
        )));
    }
    let mut t = TsFileTable::with_files(files, options)?;
    if t.model == Model::Table {
        return Err(colfile::Error::new(colfile::ErrorKind::Unsupported(
            format!(
                "{}: merging a table-model IoTDB data directory; set the option merge to false \
             to read its files one by one",
                dir.display()
            ),
        )));
    }
    t.statistics = t.statistics.clone().to_inexact();
    t.dataset = Some(Arc::new(ds));
    Ok(t)
}

/// The scan tasks: the devices the filters allow, in about `parts` groups.
pub(super) fn tasks(
    t: &TsFileTable,
    ds: &Arc<Dataset>,
    state: &dyn Session,
    device_filter: &DeviceFilter,
    out: &SchemaRef,
    (start, end): (Option<i64>, Option<i64>),
    parts: usize,
) -> Result<Vec<(u64, Arc<dyn ScanTask>)>> {
    let mut devices: Vec<DeviceId> = t
        .files
        .iter()
        .flat_map(|f| f.devices.iter().map(DeviceId::normalized))
        .collect();
    devices.sort();
    devices.dedup();
    if let Model::Tree { levels } = t.model {
        devices = device_filter.keep(state, devices, levels)?;
    }
    let mut query = Query::all();
    if start.is_some() || end.is_some() {
        query = query.time_range(start.unwrap_or(i64::MIN), end.unwrap_or(i64::MAX));
    }
    let per = devices.len().div_ceil(parts.max(1)).max(1);
    Ok(devices
        .chunks(per)
        .map(|chunk| {
            let task = DatasetDevices {
                ds: ds.clone(),
                devices: chunk.to_vec(),
                query: query.clone(),
                out: out.clone(),
                options: t.options.clone(),
                model: t.model,
            };
            (chunk.len() as u64, Arc::new(task) as Arc<dyn ScanTask>)
        })
        .collect())
}

/// Some devices of the dataset, merged across its files.
#[derive(Debug)]
struct DatasetDevices {
    ds: Arc<Dataset>,
    devices: Vec<DeviceId>,
    query: Query,
    out: SchemaRef,
    options: TsFileOptions,
    model: Model,
}

impl ScanTask for DatasetDevices {
    fn run(
        &self,
        batch_size: usize,
        emit: &mut dyn FnMut(arrow_array::RecordBatch) -> bool,
        metrics: &mut TaskMetrics,
    ) -> colfile::Result<()> {
        let mut q = self.query.clone().batch_size(batch_size);
        for d in &self.devices {
            q = q.device(d.clone());
        }
        let options = ReadOptions::default().with_mods(self.options.apply_mods);
        let mut rows = self.ds.query_with(&q, options)?;
        let mut decoded = 0u64;
        let result = (|| {
            for b in &mut rows {
                let started = std::time::Instant::now();
                let b = b?;
                decoded += b.len() as u64;
                let rb = tree_batch_to_arrow(b, self.options.time_unit, self.options.lossy_utf8)?;
                metrics.decode_time += started.elapsed();
                if !emit(conform(&rb, &self.out, self.model, &[])?) {
                    break;
                }
            }
            Ok(())
        })();
        let st = rows.stats();
        metrics.count("rows_decoded", decoded);
        metrics.prune("files", st.file_reads, st.file_skips);
        result
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn describe(&self) -> String {
        format!("IoTDB dataset ({} devices)", self.devices.len())
    }
}
