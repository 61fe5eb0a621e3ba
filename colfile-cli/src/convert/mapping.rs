//! The output schema derived from the input's, and the per-column fixes that turn one
//! format's JSON rows into the other's.
//!
//! Hive to TsFile: boolean BOOLEAN; tinyint, smallint, int INT32; bigint INT64; float FLOAT;
//! double DOUBLE; string, varchar, char STRING; binary BLOB; date DATE; timestamp TIMESTAMP
//! (milliseconds since the epoch, the wall clock read as UTC); decimal STRING (its text);
//! array, map, struct, union STRING (their JSON text). The time is the column
//! `--time-column` (default `time`; an integer or a timestamp), or the row's ordinal when
//! there is no such column; `--tags a,b` are TAG columns (STRING), the rest FIELDs.
//!
//! TsFile to Hive: the time `time:bigint` (or `timestamp` with `--time-as timestamp`); tags
//! and attributes string; BOOLEAN boolean; INT32 int; INT64 bigint; FLOAT float; DOUBLE
//! double; TEXT, STRING string; BLOB, OBJECT binary; DATE date; TIMESTAMP bigint (or
//! timestamp).

use super::sources::Model;
use super::ConvertArgs;
use crate::Failure;
use colfile::rcfile::{HiveType, Timestamp};
use colfile::tsfile::format::{ColumnCategory, DataType};
use serde_json::{Map, Value as Json};

/// One change to a JSON row on its way to the writer.
pub enum Fix {
    /// Remove a key (`"table"`, `"device"`: not columns of the output).
    Drop(&'static str),
    /// Move a column to another key (the time column to `"time"`).
    Rename(String, String),
    /// A value that is not a JSON string becomes its JSON text.
    ToText(String),
    /// Integer milliseconds become a Hive timestamp.
    MillisToTimestamp(String),
    /// A Hive timestamp becomes integer milliseconds.
    TimestampToMillis(String),
    /// `"time"` is the row's ordinal (0, 1, ...).
    OrdinalTime,
}

/// The output's `write --schema` text, its table (TsFile) and the fixes for its rows.
pub struct Plan {
    pub schema: String,
    pub table: Option<String>,
    pub fixes: Vec<Fix>,
}

fn needs_schema(what: &str) -> Failure {
    Failure::usage(format!(
        "{what} output needs the input's types: give --schema (Hive types, or name:TYPE:CATEGORY for a TsFile)"
    ))
}

fn hive_of(t: DataType, as_timestamp: bool) -> Result<&'static str, Failure> {
    Ok(match t {
        DataType::Boolean => "boolean",
        DataType::Int32 => "int",
        DataType::Int64 => "bigint",
        DataType::Float => "float",
        DataType::Double => "double",
        DataType::Text | DataType::String => "string",
        DataType::Blob | DataType::Object => "binary",
        DataType::Date => "date",
        DataType::Timestamp if as_timestamp => "timestamp",
        DataType::Timestamp => "bigint",
        other => return Err(Failure::usage(format!("no Hive type for TsFile {other}"))),
    })
}

/// `schema FILE.tsfile --format ddl`: for each table, the `CREATE TABLE` of the RCFile
/// table `convert` makes of it (time bigint, tags string, fields by the mapping above).
pub fn tsfile_ddl(
    path: &std::path::Path,
    tables: &[colfile::tsfile::format::TableSchema],
) -> Result<(), Failure> {
    if tables.is_empty() {
        return Err(Failure::input(format!(
            "{}: a tree-model TsFile has no tables, so no Hive DDL (use --format json)",
            path.display()
        )));
    }
    for t in tables {
        let mut cols = vec![colfile::rcfile::Field {
            name: "time".into(),
            ty: HiveType::BigInt,
        }];
        for c in t
            .columns
            .iter()
            .filter(|c| c.category != ColumnCategory::Time)
        {
            let ty = match c.category {
                ColumnCategory::Field => hive_of(c.schema.data_type, false)?,
                _ => "string",
            };
            cols.push(colfile::rcfile::Field {
                name: c.schema.name.to_lowercase(),
                ty: ty.parse()?,
            });
        }
        let ddl = colfile::rcfile::Schema::new(cols).to_hive_ddl();
        let name = colfile::rcfile::schema::quote_hive_name(&t.name);
        crate::out_line(format_args!(
            "CREATE TABLE {name} ({ddl}) STORED AS RCFILE;"
        ))?;
    }
    Ok(())
}

pub fn to_rcfile(a: &ConvertArgs, model: &Model) -> Result<Plan, Failure> {
    let ts_keys = vec![Fix::Drop("table"), Fix::Drop("device")];
    if let Some(s) = &a.out_schema {
        let fixes = match model {
            Model::Hive(_) => Vec::new(),
            _ => ts_keys,
        };
        return Ok(Plan {
            schema: s.clone(),
            table: None,
            fixes,
        });
    }
    match model {
        Model::Hive(s) => Ok(Plan {
            schema: s.to_string(),
            table: None,
            fixes: Vec::new(),
        }),
        Model::Ts { columns, .. } => {
            let stamp = a.time_as_timestamp;
            let mut fixes = ts_keys;
            let mut cols = vec![format!(
                "time:{}",
                if stamp { "timestamp" } else { "bigint" }
            )];
            if stamp {
                fixes.push(Fix::MillisToTimestamp("time".into()));
            }
            for c in columns {
                let name = c.schema.name.to_lowercase();
                let ty = match c.category {
                    ColumnCategory::Field => hive_of(c.schema.data_type, stamp)?,
                    _ => "string",
                };
                if stamp && c.schema.data_type == DataType::Timestamp {
                    fixes.push(Fix::MillisToTimestamp(name.clone()));
                }
                cols.push(format!("{name}:{ty}"));
            }
            Ok(Plan {
                schema: cols.join(","),
                table: None,
                fixes,
            })
        }
        Model::Untyped => Err(needs_schema("RCFile")),
    }
}

/// The TsFile type of a Hive column, and whether its JSON value must become text.
fn tsfile_of(t: &HiveType) -> (DataType, bool) {
    match t {
        HiveType::Boolean => (DataType::Boolean, false),
        HiveType::TinyInt | HiveType::SmallInt | HiveType::Int => (DataType::Int32, false),
        HiveType::BigInt => (DataType::Int64, false),
        HiveType::Float => (DataType::Float, false),
        HiveType::Double => (DataType::Double, false),
        HiveType::Binary => (DataType::Blob, false),
        HiveType::Date => (DataType::Date, false),
        HiveType::Timestamp => (DataType::Timestamp, false),
        HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) | HiveType::Decimal { .. } => {
            (DataType::String, false)
        }
        _ => (DataType::String, true),
    }
}

pub fn to_tsfile(a: &ConvertArgs, model: &Model) -> Result<Plan, Failure> {
    let table = a.read.table.clone();
    let ts_keys = vec![Fix::Drop("table"), Fix::Drop("device")];
    if let Some(s) = &a.out_schema {
        let fixes = match model {
            Model::Hive(_) => Vec::new(),
            _ => ts_keys,
        };
        let table = match model {
            Model::Ts { table: t, .. } => table.unwrap_or_else(|| t.clone()),
            _ => table.unwrap_or_else(|| super::sources::table_name(a)),
        };
        return Ok(Plan {
            schema: s.clone(),
            table: Some(table),
            fixes,
        });
    }
    if !a.tags.is_empty() && !matches!(model, Model::Hive(_)) {
        return Err(Failure::usage(
            "--tags names TAG columns of Hive-typed input; this input's TsFile schema has its own",
        ));
    }
    match model {
        Model::Ts {
            table: t,
            columns,
            all,
        } => Ok(Plan {
            schema: all
                .as_ref()
                .unwrap_or(columns)
                .iter()
                .map(|c| {
                    format!(
                        "{}:{}:{}:{}:{}",
                        c.schema.name,
                        c.schema.data_type,
                        c.category.name(),
                        c.schema.encoding,
                        c.schema.compression
                    )
                })
                .collect::<Vec<_>>()
                .join(","),
            table: Some(table.unwrap_or_else(|| t.clone())),
            fixes: ts_keys,
        }),
        Model::Hive(s) => {
            let mut fixes = Vec::new();
            let time_name = a.time_column.as_deref().unwrap_or("time");
            let time = s.index_of(time_name).and_then(|i| s.columns().get(i));
            match time {
                Some(c) => {
                    if c.name != "time" && s.index_of("time").is_some() {
                        return Err(Failure::usage(format!(
                            "column time would clash with the time column {:?}: choose it with --time-column time, or --out-schema",
                            c.name
                        )));
                    }
                    if c.name != "time" {
                        fixes.push(Fix::Rename(c.name.clone(), "time".into()));
                    }
                    match c.ty {
                        HiveType::TinyInt
                        | HiveType::SmallInt
                        | HiveType::Int
                        | HiveType::BigInt => {}
                        HiveType::Timestamp => fixes.push(Fix::TimestampToMillis("time".into())),
                        ref other => {
                            return Err(Failure::usage(format!(
                                "time column {:?} is {other}: it must be an integer or a timestamp",
                                c.name
                            )))
                        }
                    }
                }
                None if a.time_column.is_some() => {
                    return Err(Failure::usage(format!(
                        "--time-column {time_name:?}: no such column"
                    )))
                }
                None => fixes.push(Fix::OrdinalTime),
            }
            for t in &a.tags {
                if s.index_of(t).is_none() {
                    return Err(Failure::usage(format!("--tags {t:?}: no such column")));
                }
            }
            let mut cols = Vec::new();
            for c in s.columns() {
                if time.is_some_and(|t| t.name == c.name) {
                    continue;
                }
                let (mut ty, mut text) = tsfile_of(&c.ty);
                let tag = a.tags.iter().any(|t| t.eq_ignore_ascii_case(&c.name));
                if tag {
                    text = !c.ty.is_string_like();
                    ty = DataType::String;
                }
                if text {
                    fixes.push(Fix::ToText(c.name.clone()));
                }
                if ty == DataType::Timestamp {
                    fixes.push(Fix::TimestampToMillis(c.name.clone()));
                }
                let cat = if tag { "TAG" } else { "FIELD" };
                cols.push(format!("{}:{ty}:{cat}", c.name));
            }
            Ok(Plan {
                schema: cols.join(","),
                table: Some(table.unwrap_or_else(|| super::sources::table_name(a))),
                fixes,
            })
        }
        Model::Untyped => Err(needs_schema("TsFile")),
    }
}

/// Applies `fixes` to row number `row` (0-based); errors name the column.
pub fn apply(fixes: &[Fix], row: u64, m: &mut Map<String, Json>) -> Result<(), String> {
    for f in fixes {
        match f {
            Fix::Drop(k) => {
                m.shift_remove(*k);
            }
            Fix::Rename(from, to) => {
                let v = m.shift_remove(from.as_str()).unwrap_or(Json::Null);
                m.insert(to.clone(), v);
            }
            Fix::ToText(k) => {
                if let Some(v) = m.get_mut(k.as_str()) {
                    if !v.is_null() && !v.is_string() {
                        *v = Json::String(v.to_string());
                    }
                }
            }
            Fix::MillisToTimestamp(k) => {
                if let Some(v) = m.get_mut(k.as_str()) {
                    if let Some(ms) = v.as_i64() {
                        let t = Timestamp::new(
                            ms.div_euclid(1000),
                            (ms.rem_euclid(1000) * 1_000_000) as u32,
                        )
                        .ok_or_else(|| format!("column {k}: {ms} is not a time"))?;
                        *v = Json::String(t.to_string());
                    }
                }
            }
            Fix::TimestampToMillis(k) => {
                if let Some(v) = m.get_mut(k.as_str()) {
                    if let Some(s) = v.as_str() {
                        let t: Timestamp = s
                            .parse()
                            .map_err(|_| format!("column {k}: {s:?} is not a timestamp"))?;
                        let ms = t
                            .seconds
                            .checked_mul(1000)
                            .and_then(|x| x.checked_add(i64::from(t.nanos / 1_000_000)))
                            .ok_or_else(|| format!("column {k}: {s:?} is out of range"))?;
                        *v = Json::from(ms);
                    }
                }
            }
            Fix::OrdinalTime => {
                m.insert("time".into(), Json::from(row));
            }
        }
    }
    Ok(())
}
