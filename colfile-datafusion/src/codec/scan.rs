//! A [`ScanExec`] as data and back: the scan's shared settings (options, the schemas, the
//! filters as datafusion-proto expressions, limits), the files its tasks read (with their
//! partition values) and each partition's tasks (TsFile: devices and a time slice; RCFile:
//! a byte range). Reading it opens the named files again, in this process: local paths, or
//! objects in the stores of the task context's registry. Opened TsFiles are kept for the
//! next plans that name them (a cluster's executor sees the same scan once per task).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use arrow_schema::{DataType, Field, Schema};
use colfile::arrow::BufferPool;
use colfile::tsfile::format::DeviceId;
use datafusion::common::{DataFusionError, Result, Statistics};
use datafusion::execution::TaskContext;
use datafusion::logical_expr::Expr;
use datafusion::physical_plan::ExecutionPlan;

use datafusion::scalar::ScalarValue;
use datafusion_proto::bytes::Serializeable;
use serde::{Deserialize, Serialize};
use tokio::runtime::Handle;

use super::spec::{FileRef, RcOptions, TsOptions};
use super::{block_on, store_for};
use crate::exec::{df_err, FileCounts, ScanExec, ScanTask};
use crate::listing::TableFile;
use crate::partition::typed;
use crate::rcfile::{RcFileOptions, Split};
use crate::remote::is_url;
use crate::tsfile::task::{Devices, TsScan};
use crate::tsfile::{inspect, remote, Model, OpenFile, TsFileOptions, TsFileTable};

/// A scan as data.
#[derive(Serialize, Deserialize, Debug)]
pub(crate) struct ScanSpec {
    /// `TsFileScan` or `RcFileScan`.
    name: String,
    /// The batches' schema.
    out: Schema,
    limit: Option<usize>,
    counts: (usize, usize, usize),
    /// The files the tasks read.
    files: Vec<FileSpec>,
    /// Each partition's tasks.
    partitions: Vec<Vec<TaskSpec>>,
    format: FormatSpec,
}

/// A file and its partition values (name, type, value as text; `None` is NULL).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq, Eq, Hash)]
struct FileSpec {
    file: FileRef,
    values: Vec<(String, DataType, Option<String>)>,
}

#[derive(Serialize, Deserialize, Debug)]
enum FormatSpec {
    /// A scan without tasks (every file pruned).
    Empty,
    TsFile {
        options: TsOptions,
        /// `None`: the table model; else the tree model's path levels.
        levels: Option<usize>,
        file_schema: Schema,
        /// The scan's filters, each as datafusion-proto bytes.
        filters: Vec<Vec<u8>>,
        reader_limit: Option<usize>,
    },
    RcFile {
        options: RcOptions,
        columns: Vec<usize>,
        out_map: Vec<Option<usize>>,
    },
}

#[derive(Serialize, Deserialize, Debug)]
enum TaskSpec {
    TsFile {
        file: usize,
        /// Each device's segments.
        devices: Vec<Vec<Option<String>>>,
        slice: Option<(i64, i64)>,
    },
    RcFile {
        file: usize,
        start: u64,
        end: u64,
    },
}

fn unsupported(what: &str) -> DataFusionError {
    DataFusionError::NotImplemented(format!("{what} cannot be sent to another process yet"))
}

/// The files of a scan, numbered in the order tasks first name them.
#[derive(Default)]
struct Files {
    specs: Vec<FileSpec>,
    index: HashMap<FileSpec, usize>,
}

impl Files {
    fn number(&mut self, spec: FileSpec) -> usize {
        if let Some(&i) = self.index.get(&spec) {
            return i;
        }
        self.specs.push(spec.clone());
        self.index.insert(spec, self.specs.len() - 1);
        self.specs.len() - 1
    }
}

fn value_text(v: &ScalarValue) -> Option<String> {
    (!v.is_null()).then(|| v.to_string())
}

/// `scan` as data; errors for tasks of kinds that cannot be sent (IoTDB data directories).
pub(crate) fn encode(scan: &ScanExec) -> Result<ScanSpec> {
    let mut files = Files::default();
    let mut format = None;
    let mut partitions = Vec::with_capacity(scan.partitions().len());
    for p in scan.partitions() {
        let mut tasks = Vec::with_capacity(p.len());
        for t in p {
            tasks.push(encode_task(t.as_ref(), &mut files, &mut format)?);
        }
        partitions.push(tasks);
    }
    let format = match format {
        Some(f) => f,
        None => FormatSpec::Empty,
    };
    let c = scan.files();
    Ok(ScanSpec {
        name: scan.scan_name().to_owned(),
        out: scan.schema().as_ref().clone(),
        limit: scan.limit(),
        counts: (c.scanned, c.pruned, c.devices_pruned),
        files: files.specs,
        partitions,
        format,
    })
}

fn encode_task(
    t: &dyn ScanTask,
    files: &mut Files,
    format: &mut Option<FormatSpec>,
) -> Result<TaskSpec> {
    if let Some(d) = t.as_any().downcast_ref::<Devices>() {
        let s = &d.scan;
        if format.is_none() {
            let filters = s
                .filters
                .iter()
                .map(|e| e.to_bytes().map(|b| b.to_vec()))
                .collect::<Result<_>>()?;
            *format = Some(FormatSpec::TsFile {
                options: TsOptions::from(&s.options),
                levels: match s.model {
                    Model::Table => None,
                    Model::Tree { levels } => Some(levels),
                },
                file_schema: s.file_schema.as_ref().clone(),
                filters,
                reader_limit: s.reader_limit,
            });
        }
        let values = d
            .file
            .values
            .iter()
            .map(|(n, v)| (n.clone(), v.data_type(), value_text(v)))
            .collect();
        let file = files.number(FileSpec {
            file: FileRef::from(&d.file.file),
            values,
        });
        let devices = d.devices.iter().map(|x| x.segments().to_vec()).collect();
        return Ok(TaskSpec::TsFile {
            file,
            devices,
            slice: d.slice,
        });
    }
    if let Some(s) = t.as_any().downcast_ref::<Split>() {
        if format.is_none() {
            *format = Some(FormatSpec::RcFile {
                options: RcOptions::try_from(&s.options).map_err(df_err)?,
                columns: s.columns.as_ref().clone(),
                out_map: s.out.as_ref().clone(),
            });
        }
        // Partition values are found by position: their names do not matter here.
        let values = s
            .values
            .iter()
            .enumerate()
            .map(|(j, v)| (format!("p{j}"), v.data_type(), value_text(v)))
            .collect();
        let file = files.number(FileSpec {
            file: FileRef::from(&s.file),
            values,
        });
        return Ok(TaskSpec::RcFile {
            file,
            start: s.range.start,
            end: s.range.end,
        });
    }
    Err(unsupported(&t.describe()))
}

/// Opened TsFiles by what they were opened as, most recent last (at most [`KEPT`]).
static OPENED: Mutex<Vec<(String, Arc<OpenFile>)>> = Mutex::new(Vec::new());
const KEPT: usize = 256;

/// `file` opened for a table read with `options`, from [`OPENED`] when it was before (a
/// local file only while its modification time is the same).
fn open_tsfile(
    file: &FileSpec,
    options: &TsFileOptions,
    ctx: &TaskContext,
) -> Result<Arc<OpenFile>> {
    let table = TableFile::from(&file.file);
    let stamp = match is_url(&file.file.path) {
        true => None,
        false => std::fs::metadata(&table.path)
            .and_then(|m| m.modified())
            .ok(),
    };
    let key = serde_json::to_string(&(file, TsOptions::from(options), stamp))
        .map_err(|e| DataFusionError::Internal(e.to_string()))?;
    {
        let kept = OPENED.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, f)) = kept.iter().find(|(k, _)| *k == key) {
            return Ok(f.clone());
        }
    }
    let values: Arc<[(String, ScalarValue)]> = file
        .values
        .iter()
        .map(|(n, t, v)| {
            Ok((
                n.clone(),
                typed(v.clone(), &Field::new(n, t.clone(), true))?,
            ))
        })
        .collect::<colfile::Result<Vec<_>>>()
        .map_err(df_err)?
        .into();
    let candidate = if is_url(&file.file.path) {
        let store = store_for(&file.file.path, ctx)?;
        let (reader, opened) =
            block_on(remote::open_alone(&store, &table, options)).map_err(df_err)?;
        (table, reader, Some(opened), values)
    } else {
        let reader = TsFileTable::open_local(&table, options).map_err(df_err)?;
        (table, reader, None, values)
    };
    let path = file.file.path.clone();
    let opened = inspect(candidate, options)
        .map_err(df_err)?
        .ok_or_else(|| DataFusionError::Execution(format!("{path}: no devices of the table")))?;
    let opened = Arc::new(opened);
    let mut kept = OPENED.lock().unwrap_or_else(|e| e.into_inner());
    if kept.len() >= KEPT {
        kept.remove(0);
    }
    kept.push((key, opened.clone()));
    Ok(opened)
}

/// The scan `spec` describes, its files opened in this process.
pub(crate) fn decode(spec: ScanSpec, ctx: &TaskContext) -> Result<Arc<dyn ExecutionPlan>> {
    let out = Arc::new(spec.out);
    let (name, partitions) = match spec.format {
        FormatSpec::Empty => match spec.name.as_str() {
            "RcFileScan" => ("RcFileScan", Vec::new()),
            _ => ("TsFileScan", Vec::new()),
        },
        FormatSpec::TsFile {
            options,
            levels,
            file_schema,
            filters,
            reader_limit,
        } => {
            let options = TsFileOptions::from(options);
            let filters = filters
                .iter()
                .map(|b| Expr::from_bytes_with_ctx(b, ctx))
                .collect::<Result<Vec<_>>>()?;
            let remote = spec.files.iter().any(|f| is_url(&f.file.path));
            let handle = match remote {
                true => Some(Handle::try_current().map_err(|e| {
                    DataFusionError::Execution(format!("objects need a Tokio runtime: {e}"))
                })?),
                false => None,
            };
            let scan = Arc::new(TsScan {
                options,
                model: levels.map_or(Model::Table, |levels| Model::Tree { levels }),
                file_schema: Arc::new(file_schema),
                out: out.clone(),
                filters,
                reader_limit,
                handle,
            });
            let mut opened = vec![None; spec.files.len()];
            let partitions = map_tasks(spec.partitions, |t| {
                let TaskSpec::TsFile {
                    file,
                    devices,
                    slice,
                } = t
                else {
                    return Err(DataFusionError::Internal(
                        "an RCFile task in a TsFile scan".into(),
                    ));
                };
                let f = match opened.get(file).cloned().flatten() {
                    Some(f) => f,
                    None => {
                        let fs = spec.files.get(file).ok_or_else(|| bad("file number"))?;
                        let f = open_tsfile(fs, &scan.options, ctx)?;
                        if let Some(slot) = opened.get_mut(file) {
                            *slot = Some(f.clone());
                        }
                        f
                    }
                };
                let devices = devices
                    .into_iter()
                    .map(DeviceId::new)
                    .collect::<colfile::Result<Vec<_>>>()
                    .map_err(df_err)?;
                Ok(Arc::new(Devices {
                    scan: scan.clone(),
                    file: f,
                    devices,
                    slice,
                }) as Arc<dyn ScanTask>)
            })?;
            ("TsFileScan", partitions)
        }
        FormatSpec::RcFile {
            options,
            columns,
            out_map,
        } => {
            let options = RcFileOptions::try_from(options).map_err(df_err)?;
            let (columns, out_map, pool) =
                (Arc::new(columns), Arc::new(out_map), BufferPool::new());
            let partitions = map_tasks(spec.partitions, |t| {
                let TaskSpec::RcFile { file, start, end } = t else {
                    return Err(DataFusionError::Internal(
                        "a TsFile task in an RCFile scan".into(),
                    ));
                };
                let fs = spec.files.get(file).ok_or_else(|| bad("file number"))?;
                let values = fs
                    .values
                    .iter()
                    .map(|(n, t, v)| typed(v.clone(), &Field::new(n, t.clone(), true)))
                    .collect::<colfile::Result<Vec<_>>>()
                    .map_err(df_err)?;
                let remote = match is_url(&fs.file.path) {
                    true => Some((store_for(&fs.file.path, ctx)?, current_handle()?)),
                    false => None,
                };
                Ok(Arc::new(Split {
                    file: TableFile::from(&fs.file),
                    range: start..end,
                    columns: columns.clone(),
                    options: options.clone(),
                    pool: pool.clone(),
                    schema: out.clone(),
                    out: out_map.clone(),
                    values,
                    remote,
                }) as Arc<dyn ScanTask>)
            })?;
            ("RcFileScan", partitions)
        }
    };
    let (scanned, pruned, devices_pruned) = spec.counts;
    let counts = FileCounts {
        scanned,
        pruned,
        devices_pruned,
    };
    let stats = Statistics::new_unknown(&out);
    Ok(Arc::new(ScanExec::new(
        name, out, partitions, stats, spec.limit, counts,
    )))
}

fn bad(what: &str) -> DataFusionError {
    DataFusionError::Internal(format!("a colfile scan with a bad {what}"))
}

fn current_handle() -> Result<Handle> {
    Handle::try_current()
        .map_err(|e| DataFusionError::Execution(format!("objects need a Tokio runtime: {e}")))
}

fn map_tasks(
    partitions: Vec<Vec<TaskSpec>>,
    mut f: impl FnMut(TaskSpec) -> Result<Arc<dyn ScanTask>>,
) -> Result<Vec<Vec<Arc<dyn ScanTask>>>> {
    partitions
        .into_iter()
        .map(|p| p.into_iter().map(&mut f).collect())
        .collect()
}
