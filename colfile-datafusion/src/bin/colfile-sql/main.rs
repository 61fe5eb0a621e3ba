//! `colfile-sql`: SQL over RCFiles and TsFiles (what `colfile sql` runs).
//!
//! ```text
//! colfile-sql 'SELECT ...' [NAME=]LOCATION... [--table T] [--time-unit s|ms|us|ns]
//!             [--schema HIVE_SCHEMA --serde text|binary] [--format table|csv|jsonl]
//!             [--partitions N] [--explain] [--trust-statistics] [--no-mods] [--no-merge]
//!             [--remote df://HOST:PORT]
//! ```
//! Each LOCATION (a file, a directory or a glob) becomes a table, named NAME or after the
//! file or directory; its format comes from its first file's magic bytes. RCFiles need
//! `--schema` (`name:type,...`, Hive DDL `a int, b string`, or `@FILE` holding either or a
//! `CREATE TABLE`) and `--serde` (the table definition: RCFile stores neither).
//!
//! The SQL may hold several statements separated by `;`, run in order; the last one's result
//! is printed. Tables can also be defined there, without LOCATION arguments:
//! `CREATE EXTERNAL TABLE t STORED AS TSFILE LOCATION 'dir'; SELECT count(*) FROM t`.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use arrow_schema::TimeUnit;
use colfile::rcfile::{Schema, Serde};
use colfile_datafusion::{
    list_files, register_rcfile, register_tsfile, with_table_factories, RcFileOptions,
    TsFileOptions,
};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion::sql::parser::DFParser;

mod render;

const USAGE: &str = "usage: colfile-sql 'SELECT ...' [NAME=]LOCATION... [--table T] [--time-unit s|ms|us|ns]
       [--schema HIVE_SCHEMA --serde text|binary] [--format table|csv|jsonl] [--partitions N] [--explain]
       [--trust-statistics] [--no-mods] [--no-merge] [--remote df://HOST:PORT]
LOCATION: a file, a directory, a glob or a URL (s3://bucket/prefix/, gs://, az://, http(s)://;
the store from AWS_*/GOOGLE_*/AZURE_* variables); it becomes table NAME (default: the file or
directory name). Hive name=value/ directories below it are columns.
--table: a TsFile table, or for tree-model files a path prefix (root.sg1) whose devices form the table.
--trust-statistics: answer count/min/max from TsFile statistics and skip pages by value statistics
(faster, but wrong for files whose statistics disagree with their values).
--remote: run the statements on a Ballista cluster of colfile-scheduler and colfile-executor
(the feature `ballista`); the cluster reads the locations itself, so they must be shared paths or URLs.
--no-mods: ignore IoTDB deletions beside TsFiles (FILE.mods, FILE.mods2): every stored point is a row.
An IoTDB data directory (holding sequence/ or unsequence/) is one table merged as IoTDB answers;
--no-merge reads its TsFiles as independent files.
The SQL may hold several statements separated by ';' (CREATE EXTERNAL TABLE ... STORED AS TSFILE|RCFILE
LOCATION '...' defines a table); the last one's result is printed.";

struct Args {
    sql: String,
    tables: Vec<(String, String)>,
    ts: TsFileOptions,
    schema: Option<Schema>,
    serde: Option<Serde>,
    format: String,
    partitions: Option<usize>,
    explain: bool,
    /// A Ballista scheduler (`df://HOST:PORT`) to run the statements on.
    remote: Option<String>,
}

fn parse() -> Result<Args, String> {
    use lexopt::prelude::*;
    let mut p = lexopt::Parser::from_env();
    let mut a = Args {
        sql: String::new(),
        tables: Vec::new(),
        ts: TsFileOptions::default(),
        schema: None,
        serde: None,
        format: "table".into(),
        partitions: None,
        explain: false,
        remote: None,
    };
    let text = |p: &mut lexopt::Parser| -> Result<String, String> {
        p.value()
            .map_err(|e| e.to_string())?
            .into_string()
            .map_err(|_| "arguments must be UTF-8".to_string())
    };
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("table") => a.ts.table = Some(text(&mut p)?),
            Long("time-unit") => {
                a.ts.time_unit = match text(&mut p)?.as_str() {
                    "s" => TimeUnit::Second,
                    "ms" => TimeUnit::Millisecond,
                    "us" => TimeUnit::Microsecond,
                    "ns" => TimeUnit::Nanosecond,
                    u => return Err(format!("--time-unit {u:?}: s, ms, us or ns")),
                }
            }
            Long("schema") => {
                // name:type,... or Hive DDL, or @FILE holding either or a CREATE TABLE.
                let v = text(&mut p)?;
                let t = match v.strip_prefix('@') {
                    Some(path) => std::fs::read_to_string(path)
                        .map_err(|e| format!("--schema @{path}: {e}"))?,
                    None => v,
                };
                a.schema = Some(Schema::parse_any(&t).map_err(|e| format!("--schema: {e}"))?)
            }
            Long("serde") => {
                let s = text(&mut p)?;
                a.serde = Some(
                    Serde::from_options(&s, &[], None, None)
                        .map_err(|e| format!("--serde: {e}"))?,
                );
            }
            Long("format") => a.format = text(&mut p)?,
            Long("partitions") => {
                a.partitions = Some(text(&mut p)?.parse().map_err(|_| "--partitions N")?)
            }
            Long("explain") => a.explain = true,
            Long("remote") => a.remote = Some(text(&mut p)?),
            Long("trust-statistics") => a.ts.trust_statistics = true,
            Long("no-mods") => a.ts.apply_mods = false,
            Long("no-merge") => a.ts.merge = false,
            Short('h') | Long("help") => return Err(USAGE.into()),
            Value(v) => {
                let v = v.into_string().map_err(|_| "arguments must be UTF-8")?;
                if a.sql.is_empty() {
                    a.sql = v;
                } else {
                    a.tables.push(table_arg(&v));
                }
            }
            other => return Err(format!("{}\n{USAGE}", other.unexpected())),
        }
    }
    if a.sql.trim().is_empty() {
        return Err(USAGE.into());
    }
    if !["table", "csv", "jsonl"].contains(&a.format.as_str()) {
        return Err(format!("--format {:?}: table, csv or jsonl", a.format));
    }
    Ok(a)
}

/// `NAME=LOCATION`, or a location named after its file or directory (letters, digits, `_`).
fn table_arg(v: &str) -> (String, String) {
    if let Some((name, loc)) = v.split_once('=') {
        if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
            return (name.to_owned(), loc.to_owned());
        }
    }
    let base = Path::new(v.trim_end_matches('/'))
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "t".into());
    let name: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    (name, v.to_owned())
}

/// Registers the objects at the URL `location`, in a store built from the environment.
async fn remote_table(
    ctx: &SessionContext,
    a: &Args,
    name: &str,
    location: &str,
) -> Result<(), String> {
    use colfile_datafusion::remote::{store_from_env, TableUrl};
    let fail = |e: colfile::Error| format!("{location}: {e}");
    let url = TableUrl::parse(location).map_err(fail)?;
    let store = store_from_env(location).map_err(fail)?;
    let base = url::Url::parse(url.store.as_str()).map_err(|e| e.to_string())?;
    ctx.register_object_store(&base, std::sync::Arc::clone(&store));
    // `.tsfile` objects make a TsFile table; anything else is read as RCFiles.
    let listed = url.list(store.as_ref(), None).await.map_err(fail)?;
    let tsfile = listed
        .iter()
        .any(|f| f.path.to_string_lossy().ends_with(".tsfile"));
    let table: std::sync::Arc<dyn datafusion::catalog::TableProvider> = if tsfile {
        let t = colfile_datafusion::TsFileTable::try_new_remote(location, store, a.ts.clone());
        std::sync::Arc::new(t.await.map_err(fail)?)
    } else {
        let (Some(schema), Some(serde)) = (a.schema.clone(), a.serde.clone()) else {
            return Err(format!(
                "{location}: no .tsfile objects there, so an RCFile table: give --schema and --serde"
            ));
        };
        let options = RcFileOptions::new(schema, serde);
        let t = colfile_datafusion::RcFileTable::try_new_remote(location, store, options);
        std::sync::Arc::new(t.await.map_err(fail)?)
    };
    ctx.register_table(name, table).map_err(|e| e.to_string())?;
    Ok(())
}

/// A session whose statements run on the Ballista scheduler at `url`.
#[cfg(feature = "ballista")]
async fn remote_session(url: &str, config: SessionConfig) -> Result<SessionContext, String> {
    colfile_datafusion::cluster::remote_context(url, config)
        .await
        .map_err(|e| format!("--remote {url}: {e}"))
}

#[cfg(not(feature = "ballista"))]
async fn remote_session(url: &str, _: SessionConfig) -> Result<SessionContext, String> {
    Err(format!(
        "--remote {url}: this colfile-sql was built without Ballista; install it with \
         `cargo install --path colfile-datafusion --features ballista`"
    ))
}

async fn run(a: Args) -> Result<(), String> {
    let mut config = SessionConfig::new();
    if let Some(n) = a.partitions {
        config = config.with_target_partitions(n.max(1));
    }
    let ctx = match &a.remote {
        Some(url) => remote_session(url, config).await?,
        None => {
            let state = SessionStateBuilder::new()
                .with_config(config)
                .with_default_features();
            SessionContext::new_with_state(with_table_factories(state).build())
        }
    };
    for (name, location) in &a.tables {
        if colfile_datafusion::remote::is_url(location) {
            remote_table(&ctx, &a, name, location).await?;
            continue;
        }
        let first = list_files(location, None).map_err(|e| e.to_string())?;
        let is_rcfile = first
            .iter()
            .any(|f| magic(&f.path).is_some_and(|m| m == *b"RCF" || m == *b"SEQ"));
        let r = if is_rcfile {
            let (Some(schema), Some(serde)) = (a.schema.clone(), a.serde.clone()) else {
                return Err(format!(
                    "{location}: RCFiles need --schema and --serde (the table definition)"
                ));
            };
            register_rcfile(&ctx, name, location, RcFileOptions::new(schema, serde))
        } else {
            register_tsfile(&ctx, name, location, a.ts.clone())
        };
        r.map_err(|e| format!("{location}: {e}"))?;
    }
    let statements = DFParser::parse_sql(&a.sql).map_err(|e| e.to_string())?;
    let last = statements.len().saturating_sub(1);
    let mut batches = Vec::new();
    for (i, statement) in statements.into_iter().enumerate() {
        let plan = ctx.state().statement_to_plan(statement).await;
        let mut df = ctx
            .execute_logical_plan(plan.map_err(|e| e.to_string())?)
            .await
            .map_err(|e| e.to_string())?;
        if i == last && a.explain {
            df = df.explain(false, false).map_err(|e| e.to_string())?;
        }
        batches = df.collect().await.map_err(|e| e.to_string())?;
    }
    let batches = render::printable(batches).map_err(|e| e.to_string())?;
    let mut out = std::io::stdout().lock();
    let written = match a.format.as_str() {
        "csv" => {
            let mut w = datafusion::arrow::csv::Writer::new(&mut out);
            batches
                .iter()
                .try_for_each(|b| w.write(b))
                .map_err(|e| e.to_string())
        }
        "jsonl" => {
            let mut w = datafusion::arrow::json::LineDelimitedWriter::new(&mut out);
            batches
                .iter()
                .try_for_each(|b| w.write(b))
                .and_then(|()| w.finish())
                .map_err(|e| e.to_string())
        }
        _ => pretty_format_batches(&batches)
            .map_err(|e| e.to_string())
            .and_then(|t| writeln!(out, "{t}").map_err(|e| e.to_string())),
    };
    match written {
        Err(e) if e.contains("Broken pipe") => Ok(()),
        other => other,
    }
}

/// The first three bytes of a file.
fn magic(path: &Path) -> Option<[u8; 3]> {
    use std::io::Read;
    let mut b = [0u8; 3];
    std::fs::File::open(path).ok()?.read_exact(&mut b).ok()?;
    Some(b)
}

fn main() -> ExitCode {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("colfile-sql: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("colfile-sql: error: {e}");
            return ExitCode::from(1);
        }
    };
    match rt.block_on(run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // DataFusion puts each context on its own line ("type_coercion", "caused by",
            // the reason): one line that keeps every part.
            let mut line = String::new();
            for part in e.lines().map(str::trim) {
                if part.is_empty() || part == "caused by" {
                    continue;
                }
                if !line.is_empty() {
                    line += if line.ends_with(['.', ':']) {
                        " "
                    } else {
                        ": "
                    };
                }
                line += part;
            }
            eprintln!("colfile-sql: error: {line}");
            ExitCode::from(1)
        }
    }
}
