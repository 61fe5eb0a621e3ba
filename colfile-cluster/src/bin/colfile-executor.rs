//! `colfile-executor`: Ballista's executor with colfile's plan codecs. Flags are
//! Ballista's (`--bind-host`, `--bind-port`, `--bind-grpc-port`, `--scheduler-host`,
//! `--scheduler-port`, `--work-dir`, …; see `--help`).

use std::sync::Arc;

use ballista_core::object_store::{runtime_env_with_s3_support, session_config_with_s3_support};
use ballista_executor::config::Config;
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use clap::Parser;
use colfile_datafusion::cluster::{logical_codec, physical_codec};

#[tokio::main]
async fn main() -> ballista_core::error::Result<()> {
    let opt = Config::parse();
    let mut config: ExecutorProcessConfig = opt.try_into()?;
    colfile_cluster::init_logging(&config.special_mod_log_level);
    config.override_config_producer = Some(Arc::new(session_config_with_s3_support));
    config.override_runtime_producer = Some(Arc::new(runtime_env_with_s3_support));
    config.override_logical_codec = Some(logical_codec());
    config.override_physical_codec = Some(physical_codec());
    start_executor_process(Arc::new(config)).await
}
