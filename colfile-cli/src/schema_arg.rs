//! The value of `--schema` (and `--out-schema`): `@FILE` reads the schema from FILE, and a
//! Hive DDL column list or `CREATE TABLE` statement is turned into the `name:type,...` form
//! the commands parse. TsFile's `name:TYPE:CATEGORY` form and the Hive `name:type` form pass
//! through unchanged. A `CREATE TABLE`'s `ROW FORMAT SERDE` gives the serde when `--serde`
//! is not given.

use crate::Failure;
use colfile::rcfile::serde::{BINARY_SERDE_CLASS, TEXT_SERDE_CLASS};
use colfile::rcfile::Schema;
use std::ffi::OsString;

/// Reads `--FLAG VALUE`'s schema text (see the module docs).
pub fn schema_arg(flag: &str, value: OsString) -> Result<String, Failure> {
    Ok(schema_and_serde(flag, value)?.0)
}

/// [`schema_arg`], and the serde a `CREATE TABLE`'s `ROW FORMAT SERDE` names when it is
/// one of RCFile's two (`ColumnarSerDe`, text; `LazyBinaryColumnarSerDe`, binary): the
/// serde to use when `--serde` is not given.
pub fn schema_and_serde(flag: &str, value: OsString) -> Result<(String, Option<String>), Failure> {
    let value = value
        .into_string()
        .map_err(|v| Failure::usage(format!("--{flag} {v:?} is not valid UTF-8")))?;
    let text = match value.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| Failure::input(format!("--{flag} @{path}: {e}")))?,
        None => value,
    };
    if !Schema::looks_like_hive_ddl(&text) {
        return Ok((text.trim().to_string(), None));
    }
    let schema =
        Schema::from_hive_ddl(&text).map_err(|e| Failure::usage(format!("--{flag}: {e}")))?;
    let serde = Schema::hive_ddl_serde(&text).and_then(|class| match class.as_str() {
        TEXT_SERDE_CLASS => Some("text".to_string()),
        BINARY_SERDE_CLASS => Some("binary".to_string()),
        _ => None,
    });
    Ok((schema.to_string(), serde))
}
