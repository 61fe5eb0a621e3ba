//! The value of `--schema` (and `--out-schema`): `@FILE` reads the schema from FILE, and a
//! Hive DDL column list or `CREATE TABLE` statement is turned into the `name:type,...` form
//! the commands parse. TsFile's `name:TYPE:CATEGORY` form and the Hive `name:type` form pass
//! through unchanged.

use crate::Failure;
use colfile::rcfile::Schema;
use std::ffi::OsString;

/// Reads `--FLAG VALUE`'s schema text (see the module docs).
pub fn schema_arg(flag: &str, value: OsString) -> Result<String, Failure> {
    let value = value
        .into_string()
        .map_err(|v| Failure::usage(format!("--{flag} {v:?} is not valid UTF-8")))?;
    let text = match value.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Failure::input(format!("--{flag} @{path}: {e}")))?,
        None => value,
    };
    if !Schema::looks_like_hive_ddl(&text) {
        return Ok(text.trim().to_string());
    }
    let schema =
        Schema::from_hive_ddl(&text).map_err(|e| Failure::usage(format!("--{flag}: {e}")))?;
    Ok(schema.to_string())
}
