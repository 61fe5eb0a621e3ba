//! `CREATE EXTERNAL TABLE ... STORED AS TSFILE` and `... STORED AS RCFILE` in SQL:
//! [`ColfileTableFactory`] turns the statement into a [`TsFileTable`] or an [`RcFileTable`],
//! and [`with_table_factories`] registers it with a session.
//!
//! - TsFile takes its schema from the files: leave out the column list. Options: `table`
//!   (which table of the files; default their only table; for tree-model files a path
//!   prefix such as `root.sg1`, default every device), `time_unit` (`s`, `ms`, `us`, `ns`;
//!   default `ms`), `lossy_utf8`, `trust_statistics`, `apply_mods` (IoTDB deletions
//!   in `FILE.mods`/`FILE.mods2`, default `true`) and `merge` (an IoTDB data directory as
//!   one merged dataset, default `true`) (`true`/`false`, see [`TsFileOptions`]).
//! - RCFile keeps no schema: give the columns in the statement (their Arrow types map to Hive
//!   types, see `colfile::arrow`) or as option `schema` (a Hive schema, `id:int,tags:array<string>`).
//!   Options: `serde` (`binary`, Hive's default for RCFile, or `text`), `split_size` (bytes),
//!   `timestamp_unit`, `lossy_utf8`.
//!
//! Option keys are matched without regard to case, with or without DataFusion's `format.`
//! prefix. Several locations (`LOCATION ('a', 'b')`) make one table of all their files.
//!
//! ```
//! use colfile_datafusion::with_table_factories;
//! use datafusion::execution::SessionStateBuilder;
//! use datafusion::prelude::SessionContext;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let state = with_table_factories(SessionStateBuilder::new().with_default_features()).build();
//! let ctx = SessionContext::new_with_state(state);
//! let file = concat!(env!("CARGO_MANIFEST_DIR"), "/../fixtures/tsfile/basic.tsfile");
//! ctx.sql(&format!("CREATE EXTERNAL TABLE weather STORED AS TSFILE LOCATION '{file}'")).await?;
//! let n = ctx.sql("SELECT count(*) FROM weather").await?.collect().await?;
//! assert_eq!(n[0].num_rows(), 1);
//! # Ok(()) }
//! ```

use std::collections::HashMap;
use std::sync::Arc;

use arrow_schema::{Schema as ArrowSchema, TimeUnit};
use async_trait::async_trait;
use colfile::rcfile::{Schema, Serde};
use datafusion::catalog::{Session, TableProvider, TableProviderFactory};
use datafusion::common::{plan_err, DataFusionError, Result};
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::CreateExternalTable;

use crate::exec::df_err;
use crate::listing::{list_files, TableFile};
use crate::{RcFileOptions, RcFileTable, TsFileOptions, TsFileTable};

/// Makes the tables of `CREATE EXTERNAL TABLE ... STORED AS TSFILE | RCFILE` (see the
/// [module docs](self)).
#[derive(Debug, Default, Clone, Copy)]
pub struct ColfileTableFactory;

/// `builder` with [`ColfileTableFactory`] registered for `STORED AS TSFILE` and `RCFILE`.
pub fn with_table_factories(builder: SessionStateBuilder) -> SessionStateBuilder {
    let factory: Arc<dyn TableProviderFactory> = Arc::new(ColfileTableFactory);
    builder
        .with_table_factory("TSFILE".into(), factory.clone())
        .with_table_factory("RCFILE".into(), factory)
}

#[async_trait]
impl TableProviderFactory for ColfileTableFactory {
    async fn create(
        &self,
        state: &dyn Session,
        cmd: &CreateExternalTable,
    ) -> Result<Arc<dyn TableProvider>> {
        let mut options = Options::of(&cmd.options);
        let partitioned = !cmd.table_partition_cols.is_empty();
        let table: Arc<dyn TableProvider> = match cmd.file_type.to_ascii_uppercase().as_str() {
            "TSFILE" => {
                let declared = cmd.schema.fields().iter();
                if declared
                    .clone()
                    .any(|f| !cmd.table_partition_cols.contains(f.name()))
                {
                    return plan_err!(
                        "{}: a TsFile table takes its columns from the files; leave out the \
                         column list (it may only type PARTITIONED BY columns)",
                        cmd.name
                    );
                }
                let mut o = TsFileOptions {
                    table: options.take("table"),
                    ..TsFileOptions::default()
                };
                if let Some(u) = options.take("time_unit") {
                    o.time_unit = unit(&u)?;
                }
                if let Some(b) = options.take("lossy_utf8") {
                    o.lossy_utf8 = flag(&b)?;
                }
                if let Some(b) = options.take("trust_statistics") {
                    o.trust_statistics = flag(&b)?;
                }
                if let Some(b) = options.take("apply_mods") {
                    o.apply_mods = flag(&b)?;
                }
                if let Some(b) = options.take("merge") {
                    o.merge = flag(&b)?;
                }
                o.partition_columns = partition_fields(cmd);
                options.done()?;
                match cmd.locations.as_slice() {
                    // A URL: the objects below it, in the registry's store for it.
                    [one] if crate::remote::is_url(one) => {
                        let url = crate::remote::TableUrl::parse(one).map_err(df_err)?;
                        let store = url.store_in(state.runtime_env()).map_err(df_err)?;
                        let t = TsFileTable::try_new_remote(one, store, o).await;
                        Arc::new(t.map_err(df_err)?)
                    }
                    // One location: an IoTDB data directory is a merged dataset.
                    [one] => Arc::new(TsFileTable::try_new(one, o).map_err(df_err)?),
                    _ if partitioned => {
                        return plan_err!("{}: PARTITIONED BY needs one location", cmd.name)
                    }
                    _ => {
                        let files = files(&cmd.locations, Some(".tsfile"))?;
                        Arc::new(TsFileTable::with_files(files, o).map_err(df_err)?)
                    }
                }
            }
            "RCFILE" => {
                let schema = match options.take("schema") {
                    Some(s) if cmd.schema.fields().is_empty() => {
                        s.parse::<Schema>().map_err(df_err)?
                    }
                    Some(_) => {
                        return plan_err!(
                            "{}: give the columns or option 'schema', not both",
                            cmd.name
                        )
                    }
                    None if cmd.schema.fields().is_empty() => {
                        return plan_err!(
                            "{}: an RCFile table needs its columns (RCFile keeps no schema)",
                            cmd.name
                        )
                    }
                    None => {
                        // The declared partition columns are the directories', not the files'.
                        let file_fields: Vec<_> = cmd
                            .schema
                            .fields()
                            .iter()
                            .filter(|f| !cmd.table_partition_cols.contains(f.name()))
                            .cloned()
                            .collect();
                        let arrow = ArrowSchema::new(file_fields);
                        colfile::arrow::arrow_schema_to_hive(&arrow).map_err(df_err)?
                    }
                };
                let serde = match options.take("serde").as_deref() {
                    None | Some("binary") => Serde::binary(),
                    Some("text") => Serde::text(),
                    Some(s) => return plan_err!("serde '{s}': use 'binary' or 'text'"),
                };
                let mut o = RcFileOptions::new(schema, serde);
                if let Some(s) = options.take("split_size") {
                    o.split_size = match s.parse::<u64>() {
                        Ok(n) if n > 0 => n,
                        _ => return plan_err!("split_size '{s}': a number of bytes above 0"),
                    };
                }
                if let Some(u) = options.take("timestamp_unit") {
                    o.timestamp_unit = unit(&u)?;
                }
                if let Some(b) = options.take("lossy_utf8") {
                    o.lossy_utf8 = flag(&b)?;
                }
                o.partition_columns = partition_fields(cmd);
                options.done()?;
                match cmd.locations.as_slice() {
                    // A URL: the objects below it, in the registry's store for it.
                    [one] if crate::remote::is_url(one) => {
                        let url = crate::remote::TableUrl::parse(one).map_err(df_err)?;
                        let store = url.store_in(state.runtime_env()).map_err(df_err)?;
                        let t = RcFileTable::try_new_remote(one, store, o).await;
                        Arc::new(t.map_err(df_err)?)
                    }
                    // One location: its name=value directories are partitions.
                    [one] => Arc::new(RcFileTable::try_new(one, o).map_err(df_err)?),
                    _ if partitioned => {
                        return plan_err!("{}: PARTITIONED BY needs one location", cmd.name)
                    }
                    _ => {
                        let files = files(&cmd.locations, None)?;
                        Arc::new(RcFileTable::with_files(files, o).map_err(df_err)?)
                    }
                }
            }
            other => return plan_err!("STORED AS {other}: this factory knows TSFILE and RCFILE"),
        };
        Ok(table)
    }
}

/// The statement's options, keys lowercased and without a `format.` prefix; what is left
/// unused is an error (a misspelt key should not pass silently).
struct Options(HashMap<String, String>);

impl Options {
    fn of(raw: &HashMap<String, String>) -> Self {
        let key = |k: &str| {
            let k = k.to_ascii_lowercase();
            k.strip_prefix("format.").map(str::to_string).unwrap_or(k)
        };
        Options(raw.iter().map(|(k, v)| (key(k), v.clone())).collect())
    }
    fn take(&mut self, key: &str) -> Option<String> {
        self.0.remove(key)
    }
    fn done(self) -> Result<()> {
        let mut left: Vec<_> = self.0.into_keys().collect();
        left.sort();
        match left.is_empty() {
            true => Ok(()),
            false => plan_err!("unknown options: {}", left.join(", ")),
        }
    }
}

/// `PARTITIONED BY (a, b)`: typed as the column list types them, else strings.
fn partition_fields(cmd: &CreateExternalTable) -> Vec<arrow_schema::Field> {
    cmd.table_partition_cols
        .iter()
        .map(|name| match cmd.schema.field_with_unqualified_name(name) {
            Ok(f) => f.as_ref().clone().with_nullable(true),
            Err(_) => arrow_schema::Field::new(name, arrow_schema::DataType::Utf8, true),
        })
        .collect()
}

fn files(locations: &[String], suffix: Option<&str>) -> Result<Vec<TableFile>> {
    let mut out = Vec::new();
    for l in locations {
        out.extend(list_files(l, suffix).map_err(df_err)?);
    }
    Ok(out)
}

fn unit(s: &str) -> Result<TimeUnit> {
    Ok(match s {
        "s" => TimeUnit::Second,
        "ms" => TimeUnit::Millisecond,
        "us" => TimeUnit::Microsecond,
        "ns" => TimeUnit::Nanosecond,
        _ => return plan_err!("time unit '{s}': use s, ms, us or ns"),
    })
}

fn flag(s: &str) -> Result<bool> {
    match s.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(DataFusionError::Plan(format!("'{s}': use true or false"))),
    }
}
