//! # colfile-datafusion
//!
//! Hive RCFile and Apache TsFile as [DataFusion](https://datafusion.apache.org) tables, over
//! one file, a directory or a glob, built on [`colfile`]'s Arrow readers.
//!
//! - [`TsFileTable`]: one table (or the tree-model devices, as `device`, `level0..`, `time`
//!   and measurements: [`tsfile::tree`]) of many TsFiles, holding exactly the rows the plain
//!   reader returns. The schema and the planner's statistics (row counts, time range, null
//!   counts, min/max) come from the files' footers and indexes; they answer queries only
//!   when [`TsFileOptions::trust_statistics`] says so. Scans push down the projection, the
//!   time range, tag (and, trusted, field) conditions ([`filter`]) and device-path
//!   conditions, so devices, chunks and pages that cannot match are skipped by the Bloom
//!   filter, the index and their statistics; they run in parallel over groups of devices.
//!   `EXPLAIN ANALYZE` reports what was read and skipped ([`exec`]).
//! - [`RcFileTable`]: RCFiles with a given Hive schema and serde. Scans read only the
//!   projected columns and run in parallel over byte-range splits, which RCFile cuts on its
//!   sync markers as Hive does.
//! - [`with_table_factories`]: both as `CREATE EXTERNAL TABLE ... STORED AS TSFILE | RCFILE`
//!   in SQL ([`factory`]).
//!
//! ```
//! use colfile_datafusion::{register_tsfile, TsFileOptions};
//! use datafusion::prelude::SessionContext;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ctx = SessionContext::new();
//! let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/tsfile/basic.tsfile");
//! register_tsfile(&ctx, "weather", dir, TsFileOptions::default())?;
//! let df = ctx
//!     .sql("SELECT city, count(*) AS n, max(temp) AS hottest FROM weather GROUP BY city ORDER BY city")
//!     .await?;
//! let batches = df.collect().await?;
//! assert!(batches.iter().map(|b| b.num_rows()).sum::<usize>() > 0);
//! # Ok(()) }
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

#[cfg(feature = "ballista")]
pub mod cluster;
#[cfg(feature = "proto")]
pub mod codec;
mod counted;
pub mod exec;
pub mod factory;
pub mod filter;
pub mod listing;
pub mod partition;
pub mod rcfile;
pub mod remote;
mod split;
pub mod tsfile;

use std::sync::Arc;

use datafusion::prelude::SessionContext;

pub use factory::{with_table_factories, ColfileTableFactory};
pub use listing::{list_files, TableFile};
pub use rcfile::{RcFileOptions, RcFileTable};
pub use tsfile::{TsFileOptions, TsFileTable};

/// Registers the TsFiles at `location` (a file, a directory or a glob) as table `name`.
pub fn register_tsfile(
    ctx: &SessionContext,
    name: &str,
    location: &str,
    options: TsFileOptions,
) -> colfile::Result<()> {
    let table = TsFileTable::try_new(location, options)?;
    ctx.register_table(name, Arc::new(table))
        .map_err(|e| colfile::Error::invalid(e.to_string()))?;
    Ok(())
}

/// Registers the RCFiles at `location` (a file, a directory or a glob) as table `name`.
pub fn register_rcfile(
    ctx: &SessionContext,
    name: &str,
    location: &str,
    options: RcFileOptions,
) -> colfile::Result<()> {
    let table = RcFileTable::try_new(location, options)?;
    ctx.register_table(name, Arc::new(table))
        .map_err(|e| colfile::Error::invalid(e.to_string()))?;
    Ok(())
}
