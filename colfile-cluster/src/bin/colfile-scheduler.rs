//! `colfile-scheduler`: Ballista's scheduler with colfile's plan codecs. Flags are
//! Ballista's (`--bind-host`, `--bind-port`, `--namespace`, …; see `--help`).

use std::sync::Arc;

use ballista_core::error::BallistaError;
use ballista_core::extension::SessionConfigExt;
use ballista_core::object_store::{session_config_with_s3_support, session_state_with_s3_support};
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::{Config, SchedulerConfig};
use ballista_scheduler::scheduler_process::start_server;
use clap::Parser;
use colfile_datafusion::cluster::{logical_codec, physical_codec};
use colfile_datafusion::codec::DistributeScans;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionConfig;

fn main() -> ballista_core::error::Result<()> {
    // Ballista's planner recurses deeply on large plans: the stack its own binary gives.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_stack_size(32 << 20)
        .build()
        .map_err(|e| BallistaError::General(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(run())
}

async fn run() -> ballista_core::error::Result<()> {
    let opt = Config::parse();
    colfile_cluster::init_logging(&opt.log_level_setting);
    let addr = format!("{}:{}", opt.bind_host, opt.bind_port)
        .parse()
        .map_err(|e: std::net::AddrParseError| BallistaError::Configuration(e.to_string()))?;
    let mut config: SchedulerConfig = opt.try_into()?;
    config.override_logical_codec = Some(logical_codec());
    config.override_physical_codec = Some(physical_codec());
    let config = config
        .with_override_config_producer(Arc::new(session_config_with_s3_support))
        .with_override_session_builder(Arc::new(|config: SessionConfig| {
            // Ballista's session, and colfile's scans made so that each task gets its own
            // partitions of them (see `TaskListScanExec`). The adaptive planner runs a fixed
            // list of optimizer rules, without this one: jobs use the static planner.
            let config = config.with_ballista_adaptive_query_planner(false);
            let state = session_state_with_s3_support(config)?;
            let rule = Arc::new(DistributeScans);
            Ok(SessionStateBuilder::new_from_existing(state)
                .with_physical_optimizer_rule(rule)
                .build())
        }));
    let cluster = BallistaCluster::new_from_config(&config).await?;
    start_server(cluster, addr, Arc::new(config)).await
}
