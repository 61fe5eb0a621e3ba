//! Test tables in a real S3-compatible server (moto): uploading a directory tree as Hive
//! writes it, a session whose `s3://BUCKET` store reaches an endpoint with a short retry
//! policy, and a query's printed answer.
#![allow(dead_code)]

use std::path::Path;

use colfile_datafusion::with_table_factories;
use colfile_testkit::s3::MotoServer;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::SessionContext;

/// Puts every file below `dir` into `bucket` under `prefix`, keys as Hive writes them (the
/// escapes of the directory names stay escaped).
pub fn upload(server: &MotoServer, dir: &Path, bucket: &str, prefix: &str) {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(root, &p, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().to_path_buf());
            }
        }
    }
    let mut files = Vec::new();
    walk(dir, dir, &mut files);
    for rel in files {
        let key = format!("{prefix}/{}", rel.to_string_lossy());
        server.put_object(bucket, &key, &std::fs::read(dir.join(&rel)).unwrap());
    }
}

/// A session with colfile's table factories whose `s3://{bucket}` store reaches `endpoint`.
pub fn s3_session(endpoint: &str, bucket: &str) -> SessionContext {
    let state = with_table_factories(SessionStateBuilder::new().with_default_features()).build();
    let ctx = SessionContext::new_with_state(state);
    let s3 = colfile_testkit::s3::s3_store(endpoint, bucket);
    let url = url::Url::parse(&format!("s3://{bucket}")).unwrap();
    ctx.register_object_store(&url, s3);
    ctx
}

/// `colfile-sql ARGS --format csv`'s output (the `AWS_*` environment of `server` when
/// given); panics when it fails.
pub fn colfile_sql(args: &[&str], server: Option<&MotoServer>) -> String {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_colfile-sql"));
    cmd.args(args).args(["--format", "csv"]);
    for (k, v) in server.map(MotoServer::env).unwrap_or_default() {
        cmd.env(k, v);
    }
    let o = cmd.output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout).unwrap()
}

/// The answer to `sql` as a printed table, or the error's text.
pub async fn answer(ctx: &SessionContext, sql: &str) -> Result<String, String> {
    let df = ctx.sql(sql).await.map_err(|e| e.to_string())?;
    let batches = df.collect().await.map_err(|e| e.to_string())?;
    let text = datafusion::arrow::util::pretty::pretty_format_batches(&batches);
    Ok(text.map_err(|e| e.to_string())?.to_string())
}
