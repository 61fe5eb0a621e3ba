//! colfile on an Apache DataFusion Ballista cluster: the plan codecs that Ballista's
//! scheduler, executors and clients must share ([`logical_codec`], [`physical_codec`]:
//! colfile's over Ballista's own), and a client session whose queries run on a cluster
//! ([`remote_context`], what `colfile-sql --remote` uses). The `colfile-cluster` crate
//! builds the scheduler and executor binaries with these codecs.

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::serde::{BallistaLogicalExtensionCodec, BallistaPhysicalExtensionCodec};
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::logical_plan::LogicalExtensionCodec;
use datafusion_proto::physical_plan::PhysicalExtensionCodec;

use crate::codec::{ColfileLogicalCodec, ColfilePhysicalCodec};
use crate::with_table_factories;

/// colfile's tables, then Ballista's logical nodes and file formats.
pub fn logical_codec() -> Arc<dyn LogicalExtensionCodec> {
    Arc::new(ColfileLogicalCodec::new(Arc::new(
        BallistaLogicalExtensionCodec::default(),
    )))
}

/// colfile's scans, then Ballista's physical nodes (shuffle readers and writers, …).
pub fn physical_codec() -> Arc<dyn PhysicalExtensionCodec> {
    Arc::new(ColfilePhysicalCodec::new(Arc::new(
        BallistaPhysicalExtensionCodec::default(),
    )))
}

/// A session whose queries run on the Ballista scheduler at `url` (`df://HOST:PORT`),
/// with `config`, colfile's codecs and its `STORED AS TSFILE | RCFILE` table factories.
/// Tables are planned here and sent to the scheduler as they were named (paths or URLs):
/// the cluster's processes must reach the same files.
///
/// Errors: a bad URL, or a scheduler that does not answer.
pub async fn remote_context(
    url: &str,
    config: SessionConfig,
) -> datafusion::error::Result<SessionContext> {
    let config = config
        .with_ballista_logical_extension_codec(logical_codec())
        .with_ballista_physical_extension_codec(physical_codec());
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features();
    SessionContext::remote_with_state(url, with_table_factories(state).build()).await
}
