//! Plans that travel: datafusion-proto extension codecs for colfile's tables
//! ([`ColfileLogicalCodec`]: a [`TsFileTable`] or [`RcFileTable`] in a logical plan) and
//! scans ([`ColfilePhysicalCodec`]: a [`ScanExec`] with its files, splits, filters and
//! limits), so that a distributed engine such as Ballista can send them to other processes.
//! The process that reads a plan opens the files again: local paths (shared storage on one
//! machine) or objects in the stores of its runtime's registry.
//!
//! A colfile node is written as `colfile1` and a JSON description; every other node goes
//! to the inner codec (DataFusion's default, or Ballista's own), so the codecs wrap
//! whatever codec a program already uses.
//!
//! ```
//! use std::sync::Arc;
//! use colfile_datafusion::codec::ColfilePhysicalCodec;
//! use colfile_datafusion::{register_tsfile, TsFileOptions};
//! use datafusion_proto::bytes::{
//!     physical_plan_from_bytes_with_extension_codec, physical_plan_to_bytes_with_extension_codec,
//! };
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! let ctx = datafusion::prelude::SessionContext::new();
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/tsfile/basic.tsfile");
//! register_tsfile(&ctx, "weather", file, TsFileOptions::default())?;
//! let plan = ctx.sql("SELECT count(*) FROM weather").await?.create_physical_plan().await?;
//! let codec = ColfilePhysicalCodec::default();
//! let bytes = physical_plan_to_bytes_with_extension_codec(plan, &codec)?;
//! // Elsewhere: a new session reads the plan, opening the file again.
//! let other = datafusion::prelude::SessionContext::new();
//! let plan = physical_plan_from_bytes_with_extension_codec(&bytes, &other.task_ctx(), &codec)?;
//! let batches = datafusion::physical_plan::collect(plan, other.task_ctx()).await?;
//! assert_eq!(batches[0].num_rows(), 1);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

use std::future::Future;
use std::sync::Arc;

use arrow_schema::SchemaRef;
use datafusion::catalog::TableProvider;
use datafusion::common::{DataFusionError, Result, TableReference};
use datafusion::datasource::file_format::FileFormatFactory;
use datafusion::execution::TaskContext;
use datafusion::logical_expr::{AggregateUDF, Extension, LogicalPlan, ScalarUDF, WindowUDF};
use datafusion::physical_plan::ExecutionPlan;
use datafusion_proto::logical_plan::{DefaultLogicalExtensionCodec, LogicalExtensionCodec};
use datafusion_proto::physical_plan::{
    DefaultPhysicalExtensionCodec, PhysicalExtensionCodec, PhysicalProtoConverterExtension,
};
use object_store::ObjectStore;
use tokio::runtime::{Handle, RuntimeFlavor};

use crate::exec::{df_err, ScanExec};
use crate::listing::{Origin, TableFile};
use crate::rcfile::{RcFileOptions, RcFileTable};
use crate::remote::{is_url, TableUrl};
use crate::tsfile::{TsFileOptions, TsFileTable};
use spec::{OriginSpec, TableSpec};

mod distributed;
mod scan;
mod spec;

pub use distributed::{DistributeScans, TaskListScanExec};

/// A physical plan node of colfile's.
#[derive(serde::Serialize, serde::Deserialize)]
enum PhysicalNode {
    /// A [`ScanExec`].
    Scan(scan::ScanSpec),
    /// A [`TaskListScanExec`]: the scan; its partition numbers are its child.
    TaskList(scan::ScanSpec),
}

/// The user-defined functions, which both codecs leave to their inner codec.
macro_rules! delegate_functions {
    () => {
        fn try_decode_udf(&self, name: &str, buf: &[u8]) -> Result<Arc<ScalarUDF>> {
            self.inner.try_decode_udf(name, buf)
        }

        fn try_encode_udf(&self, node: &ScalarUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udf(node, buf)
        }

        fn try_decode_udaf(&self, name: &str, buf: &[u8]) -> Result<Arc<AggregateUDF>> {
            self.inner.try_decode_udaf(name, buf)
        }

        fn try_encode_udaf(&self, node: &AggregateUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udaf(node, buf)
        }

        fn try_decode_udwf(&self, name: &str, buf: &[u8]) -> Result<Arc<WindowUDF>> {
            self.inner.try_decode_udwf(name, buf)
        }

        fn try_encode_udwf(&self, node: &WindowUDF, buf: &mut Vec<u8>) -> Result<()> {
            self.inner.try_encode_udwf(node, buf)
        }
    };
}

/// What starts every node these codecs write.
const MAGIC: &[u8] = b"colfile1";

fn to_json<T: serde::Serialize>(v: &T, buf: &mut Vec<u8>) -> Result<()> {
    buf.extend_from_slice(MAGIC);
    serde_json::to_writer(buf, v).map_err(|e| DataFusionError::Internal(e.to_string()))
}

fn from_json<T: serde::de::DeserializeOwned>(json: &[u8]) -> Result<T> {
    serde_json::from_slice(json).map_err(|e| {
        DataFusionError::Internal(format!("a colfile plan node that does not read: {e}"))
    })
}

/// Runs `f` to completion from synchronous code, on the current Tokio runtime when there is
/// a multi-threaded one (codecs are called from async code), else on a runtime of its own.
fn block_on<F>(f: F) -> F::Output
where
    F: Future + Send,
    F::Output: Send,
{
    match Handle::try_current() {
        Ok(h) if h.runtime_flavor() == RuntimeFlavor::MultiThread => {
            tokio::task::block_in_place(|| h.block_on(f))
        }
        _ => std::thread::scope(|s| {
            s.spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map(|rt| rt.block_on(f))
            })
            .join()
        })
        .unwrap_or_else(|p| std::panic::resume_unwind(p))
        .unwrap_or_else(|e| panic!("cannot start a Tokio runtime: {e}")),
    }
}

/// The store of the registry in `ctx` for the object at `url`.
fn store_for(url: &str, ctx: &TaskContext) -> Result<Arc<dyn ObjectStore>> {
    let url = TableUrl::parse(url).map_err(df_err)?;
    url.store_in(&ctx.runtime_env()).map_err(df_err)
}

/// Encodes colfile's tables in logical plans; everything else goes to the inner codec.
#[derive(Debug)]
pub struct ColfileLogicalCodec {
    inner: Arc<dyn LogicalExtensionCodec>,
}

impl ColfileLogicalCodec {
    /// colfile's tables, and `inner` for the rest (Ballista's codec on a cluster).
    pub fn new(inner: Arc<dyn LogicalExtensionCodec>) -> Self {
        ColfileLogicalCodec { inner }
    }
}

impl Default for ColfileLogicalCodec {
    /// Over DataFusion's default codec.
    fn default() -> Self {
        Self::new(Arc::new(DefaultLogicalExtensionCodec {}))
    }
}

fn table_spec(node: &dyn TableProvider) -> Result<Option<TableSpec>> {
    let any = node as &dyn std::any::Any;
    if let Some(t) = any.downcast_ref::<TsFileTable>() {
        return Ok(Some(TableSpec::TsFile {
            origin: OriginSpec::from(&t.origin),
            options: (&t.options).into(),
        }));
    }
    match any.downcast_ref::<RcFileTable>() {
        Some(t) => Ok(Some(TableSpec::RcFile {
            origin: OriginSpec::from(&t.origin),
            options: (&t.options).try_into().map_err(df_err)?,
        })),
        None => Ok(None),
    }
}

/// The table `spec` describes, made again in this process.
fn open_table(spec: TableSpec, ctx: &TaskContext) -> Result<Arc<dyn TableProvider>> {
    let origin = |o: OriginSpec| match o {
        OriginSpec::Location(l) => Origin::Location(l),
        OriginSpec::Files(f) => Origin::Files(f.iter().map(TableFile::from).collect()),
    };
    Ok(match spec {
        TableSpec::TsFile { origin: o, options } => {
            let options = TsFileOptions::from(options);
            let t = match origin(o) {
                Origin::Location(l) if is_url(&l) => {
                    let store = store_for(&l, ctx)?;
                    block_on(TsFileTable::try_new_remote(&l, store, options))
                }
                Origin::Location(l) => TsFileTable::try_new(&l, options),
                Origin::Files(f) => TsFileTable::with_files(f, options),
            };
            Arc::new(t.map_err(df_err)?)
        }
        TableSpec::RcFile { origin: o, options } => {
            let options = RcFileOptions::try_from(options).map_err(df_err)?;
            let t = match origin(o) {
                Origin::Location(l) if is_url(&l) => {
                    let store = store_for(&l, ctx)?;
                    block_on(RcFileTable::try_new_remote(&l, store, options))
                }
                Origin::Location(l) => RcFileTable::try_new(&l, options),
                Origin::Files(f) => RcFileTable::with_files(f, options),
            };
            Arc::new(t.map_err(df_err)?)
        }
    })
}

impl LogicalExtensionCodec for ColfileLogicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[LogicalPlan],
        ctx: &TaskContext,
    ) -> Result<Extension> {
        self.inner.try_decode(buf, inputs, ctx)
    }

    fn try_encode(&self, node: &Extension, buf: &mut Vec<u8>) -> Result<()> {
        self.inner.try_encode(node, buf)
    }

    fn try_decode_table_provider(
        &self,
        buf: &[u8],
        table_ref: &TableReference,
        schema: SchemaRef,
        ctx: &TaskContext,
    ) -> Result<Arc<dyn TableProvider>> {
        match buf.strip_prefix(MAGIC) {
            Some(json) => open_table(from_json(json)?, ctx),
            None => self
                .inner
                .try_decode_table_provider(buf, table_ref, schema, ctx),
        }
    }

    fn try_encode_table_provider(
        &self,
        table_ref: &TableReference,
        node: Arc<dyn TableProvider>,
        buf: &mut Vec<u8>,
    ) -> Result<()> {
        match table_spec(node.as_ref())? {
            Some(spec) => to_json(&spec, buf),
            None => self.inner.try_encode_table_provider(table_ref, node, buf),
        }
    }

    fn try_decode_file_format(
        &self,
        buf: &[u8],
        ctx: &TaskContext,
    ) -> Result<Arc<dyn FileFormatFactory>> {
        self.inner.try_decode_file_format(buf, ctx)
    }

    fn try_encode_file_format(
        &self,
        buf: &mut Vec<u8>,
        node: Arc<dyn FileFormatFactory>,
    ) -> Result<()> {
        self.inner.try_encode_file_format(buf, node)
    }

    delegate_functions!();
}

/// Encodes colfile's scans in physical plans; everything else goes to the inner codec.
#[derive(Debug)]
pub struct ColfilePhysicalCodec {
    inner: Arc<dyn PhysicalExtensionCodec>,
}

impl ColfilePhysicalCodec {
    /// colfile's scans, and `inner` for the rest (Ballista's codec on a cluster).
    pub fn new(inner: Arc<dyn PhysicalExtensionCodec>) -> Self {
        ColfilePhysicalCodec { inner }
    }
}

impl Default for ColfilePhysicalCodec {
    /// Over DataFusion's default codec.
    fn default() -> Self {
        Self::new(Arc::new(DefaultPhysicalExtensionCodec {}))
    }
}

impl PhysicalExtensionCodec for ColfilePhysicalCodec {
    fn try_decode(
        &self,
        buf: &[u8],
        inputs: &[Arc<dyn ExecutionPlan>],
        ctx: &TaskContext,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        let Some(json) = buf.strip_prefix(MAGIC) else {
            return self.inner.try_decode(buf, inputs, ctx, proto_converter);
        };
        match from_json(json)? {
            PhysicalNode::Scan(spec) => scan::decode(spec, ctx),
            PhysicalNode::TaskList(spec) => {
                let [tasks] = inputs else {
                    return Err(DataFusionError::Internal(
                        "a colfile task list without its one input".into(),
                    ));
                };
                let scan = scan::decode(spec, ctx)?;
                Ok(Arc::new(TaskListScanExec::with_tasks(
                    scan,
                    Arc::clone(tasks),
                )?))
            }
        }
    }

    fn try_encode(
        &self,
        node: Arc<dyn ExecutionPlan>,
        buf: &mut Vec<u8>,
        proto_converter: &dyn PhysicalProtoConverterExtension,
    ) -> Result<()> {
        let any = node.as_ref() as &dyn std::any::Any;
        if let Some(scan) = any.downcast_ref::<ScanExec>() {
            return to_json(&PhysicalNode::Scan(scan::encode(scan)?), buf);
        }
        if let Some(list) = any.downcast_ref::<TaskListScanExec>() {
            let scan = list
                .scan()
                .ok_or_else(|| DataFusionError::Internal("a task list over another scan".into()))?;
            return to_json(&PhysicalNode::TaskList(scan::encode(scan)?), buf);
        }
        self.inner.try_encode(node, buf, proto_converter)
    }

    delegate_functions!();
}
