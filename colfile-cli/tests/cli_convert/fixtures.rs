//! The fixtures `convert` is tested on, with each one's `cat` rows and options, and the
//! comparisons that apply the documented type mapping.
#![allow(dead_code)]

pub use crate::common::tsdump::parse_lines;
use colfile::rcfile::{HiveType, Schema, Timestamp};
use serde_json::Value as Json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn colfile() -> Command {
    Command::new(env!("CARGO_BIN_EXE_colfile"))
}

pub fn strs(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

pub fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A fresh directory for one test's files.
pub fn tmp(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("cli_convert")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

pub fn run(args: &[String]) -> Output {
    colfile().args(args).output().unwrap()
}

pub fn run_with_stdin(args: &[String], input: &str) -> Output {
    crate::run::with_stdin(colfile().args(args), input).unwrap()
}

pub fn convert(input: &Path, output: &Path, args: &[String]) -> Output {
    colfile()
        .arg("convert")
        .arg(input)
        .arg(output)
        .args(args)
        .output()
        .unwrap()
}

pub fn ok_ref(out: &Output) {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
}

pub fn ok(out: Output) {
    ok_ref(&out)
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

pub fn cat_text(p: &Path, args: &[String]) -> String {
    let out = colfile().arg("cat").arg(p).args(args).output().unwrap();
    ok_ref(&out);
    String::from_utf8(out.stdout).unwrap()
}

pub fn cat(p: &Path, args: &[String]) -> Vec<Json> {
    parse_lines(&cat_text(p, args))
}

/// The tables of a TsFile as `colfile schema` prints them.
pub fn table_schema(p: &Path) -> Json {
    let out = colfile().arg("schema").arg(p).output().unwrap();
    ok_ref(&out);
    let j: Json = serde_json::from_slice(&out.stdout).unwrap();
    j["tables"].clone()
}

pub struct RcFx {
    pub name: String,
    pub path: PathBuf,
    /// `--schema`, `--serde`, `--serde-prop`s and the calendar Hive 2.3 wrote with.
    pub args: Vec<String>,
    pub schema: Schema,
    pub schema_text: String,
    /// What `cat` prints for it.
    pub rows: Vec<Json>,
}

/// Every Hive fixture with typed columns.
pub fn rc_fixtures() -> Vec<RcFx> {
    crate::common::fixtures()
        .into_iter()
        .filter(|f| f.dump["serde"].is_string() && f.dump["serde"] != "raw")
        .map(|f| {
            let schema_text = crate::common::schema_text(&f.dump);
            let serde = f.dump["serde"].as_str().unwrap().to_string();
            let mut args = strs(&["--schema", &schema_text, "--serde", &serde]);
            for (k, v) in crate::common::serde_props(&f.dump) {
                args.push("--serde-prop".into());
                args.push(format!("{k}={v}"));
            }
            if serde == "binary" {
                args.extend(strs(&["--calendar", "hybrid"]));
            }
            let rows = cat(&f.rc, &args);
            RcFx {
                schema: schema_text.parse().unwrap(),
                name: f.name,
                path: f.rc,
                args,
                schema_text,
                rows,
            }
        })
        .collect()
}

pub fn rc_fixture(name: &str) -> RcFx {
    rc_fixtures().into_iter().find(|f| f.name == name).unwrap()
}

pub struct TsFx {
    pub name: String,
    pub path: PathBuf,
    pub rows: Vec<Json>,
    pub table: String,
    pub tags: Vec<String>,
    /// The table in `write --schema` syntax (name:TYPE:CATEGORY).
    pub ts_schema: String,
    /// The Hive schema `convert` derives for it (the documented mapping).
    pub hive_schema: String,
    pub float_columns: HashSet<String>,
    /// A BLOB value of zero bytes somewhere (Hive's binary serde refuses those).
    pub has_empty_blob: bool,
    /// An empty tag value somewhere (the same CSV cell as a NULL tag).
    pub has_empty_tag: bool,
}

fn hive_type_of(ts: &str) -> &'static str {
    match ts {
        "BOOLEAN" => "boolean",
        "INT32" => "int",
        "INT64" | "TIMESTAMP" => "bigint",
        "FLOAT" => "float",
        "DOUBLE" => "double",
        "TEXT" | "STRING" => "string",
        "BLOB" | "OBJECT" => "binary",
        "DATE" => "date",
        other => panic!("no Hive type for {other}"),
    }
}

/// Every table-model TsFile fixture with one table.
pub fn ts_fixtures() -> Vec<TsFx> {
    let dir = crate::common::tsdump::ts_fixtures_dir();
    let mut out = Vec::new();
    for name in crate::common::tsdump::ts_fixture_names() {
        let path = dir.join(format!("{name}.tsfile"));
        let tables = table_schema(&path);
        let Some([t]) = tables.as_array().map(Vec::as_slice) else {
            continue;
        };
        let cols = t["columns"].as_array().unwrap();
        let mut ts_schema = Vec::new();
        let mut hive = vec!["time:bigint".to_string()];
        let mut tags = Vec::new();
        let mut floats = HashSet::new();
        let mut blobs = Vec::new();
        for c in cols {
            let (n, ty, cat) = (
                c["name"].as_str().unwrap(),
                c["type"].as_str().unwrap(),
                c["category"].as_str().unwrap(),
            );
            ts_schema.push(format!("{n}:{ty}:{cat}"));
            // `cat` shows no attributes, so they are not among the rows' columns.
            if cat != "ATTRIBUTE" {
                let h = if cat == "FIELD" {
                    hive_type_of(ty)
                } else {
                    "string"
                };
                hive.push(format!("{n}:{h}"));
            }
            if cat == "TAG" {
                tags.push(n.to_string());
            }
            if ty == "FLOAT" {
                floats.insert(n.to_string());
            }
            if ty == "BLOB" {
                blobs.push(n.to_string());
            }
        }
        let rows = cat(&path, &[]);
        let has_empty_blob = rows
            .iter()
            .any(|r| blobs.iter().any(|b| r[b.as_str()] == ""));
        let has_empty_tag = rows
            .iter()
            .any(|r| tags.iter().any(|t| r[t.as_str()] == ""));
        out.push(TsFx {
            has_empty_tag,
            table: t["name"].as_str().unwrap().to_string(),
            name,
            path,
            rows,
            tags,
            ts_schema: ts_schema.join(","),
            hive_schema: hive.join(","),
            float_columns: floats,
            has_empty_blob,
        });
    }
    assert!(
        out.len() >= 30,
        "expected the TsFile fixtures, found {}",
        out.len()
    );
    out
}

pub fn ts_fixture(name: &str) -> TsFx {
    ts_fixtures().into_iter().find(|f| f.name == name).unwrap()
}

pub fn is_float(t: &HiveType) -> bool {
    *t == HiveType::Float
}

/// A Hive value as the RCFile -> TsFile mapping writes it: timestamps as milliseconds since
/// the epoch, complex values as their JSON text, the rest as they are.
pub fn hive_to_tsfile_value(t: &HiveType, v: &Json) -> Json {
    if v.is_null() {
        return Json::Null;
    }
    match t {
        HiveType::Array(_) | HiveType::Map(..) | HiveType::Struct(_) | HiveType::Union(_) => {
            Json::String(v.to_string())
        }
        HiveType::Timestamp => {
            let ts: Timestamp = v.as_str().unwrap().parse().unwrap();
            Json::from(ts.seconds * 1000 + i64::from(ts.nanos / 1_000_000))
        }
        _ => v.clone(),
    }
}

/// Equal JSON values; numbers by value (`float32`: at f32 precision, since Hive prints
/// Java's digits and TsFile the shortest ones).
pub fn same_value(got: &Json, want: &Json, float32: bool) -> bool {
    match (got, want) {
        (Json::Number(a), Json::Number(b)) => {
            let (x, y) = (a.to_string(), b.to_string());
            x == y
                || if float32 {
                    x.parse::<f32>().ok() == y.parse::<f32>().ok()
                } else {
                    (x.contains(['.', 'e', 'E']) || y.contains(['.', 'e', 'E']))
                        && x.parse::<f64>().ok() == y.parse::<f64>().ok()
                }
        }
        _ => got == want,
    }
}

/// Two JSON rows with the same keys and equal values.
pub fn assert_rows_match(got: &Json, want: &Json, floats: &HashSet<String>, what: &str) {
    let (g, w) = (got.as_object().unwrap(), want.as_object().unwrap());
    assert_eq!(
        g.keys().collect::<Vec<_>>(),
        w.keys().collect::<Vec<_>>(),
        "{what}"
    );
    for (k, v) in w {
        assert!(
            same_value(&g[k], v, floats.contains(k)),
            "{what} {k}: {} vs {v}",
            g[k]
        );
    }
}

/// A row as it reads back from CSV, where an empty string and NULL are the same cell.
pub fn empty_strings_as_null(row: &Json) -> Json {
    let mut m = row.as_object().unwrap().clone();
    for v in m.values_mut() {
        if v.as_str() == Some("") {
            *v = Json::Null;
        }
    }
    Json::Object(m)
}

/// The same rows; on a difference, the first differing row only.
pub fn assert_same_rows(got: &[Json], want: &[Json], what: &str) {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        panic!(
            "{what}: {} rows vs {}; first difference at row {i}:\n  got  {:?}\n  want {:?}",
            got.len(),
            want.len(),
            got.get(i).map(Json::to_string),
            want.get(i).map(Json::to_string)
        );
    }
}

/// The same text; on a difference, the first differing line only.
pub fn assert_same_text(got: &str, want: &str, what: &str) {
    let (g, w): (Vec<&str>, Vec<&str>) = (got.split('\n').collect(), want.split('\n').collect());
    if let Some(i) = (0..g.len().max(w.len())).find(|&i| g.get(i) != w.get(i)) {
        panic!(
            "{what}: first difference at line {}:\n  got  {:?}\n  want {:?}",
            i + 1,
            g.get(i),
            w.get(i)
        );
    }
}

/// A sync marker for `--sync`, and whether the RCFile at `path` carries it.
pub const SYNC: &str = "5f0e1d2c3b4a69788796a5b4c3d2e1f0";

pub fn has_sync(path: &Path) -> bool {
    let marker: Vec<u8> = (0..16)
        .map(|i| u8::from_str_radix(&SYNC[2 * i..2 * i + 2], 16).unwrap())
        .collect();
    std::fs::read(path)
        .unwrap()
        .windows(16)
        .any(|w| w == marker)
}
