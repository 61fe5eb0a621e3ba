//! Helpers shared by the workspace's integration tests (never published): where the
//! fixtures are, loading their expected dumps, and comparing TsFile dumps.
#![allow(missing_docs)]

pub mod fault;
pub mod huge;
pub mod iot;
pub mod iotdb;
pub mod s3;

use serde_json::Value as Json;
use std::path::{Path, PathBuf};

/// The repository's root: `fixtures/` and `../shared` are found from here, whichever crate's
/// test asks.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("colfile-testkit sits in the repository root")
        .to_path_buf()
}

pub fn fixtures_dir() -> PathBuf {
    repo_root().join("fixtures/rcfile")
}

/// The external fixtures live in the shared folder beside the project (never copied in).
pub fn external_dir() -> Option<PathBuf> {
    let p = repo_root().join("../shared/fixtures/external");
    p.is_dir().then_some(p)
}

pub struct Fixture {
    pub name: String,
    pub rc: PathBuf,
    pub dump: Json,
    pub raw: Option<Json>,
    pub spec: Option<Json>,
}

pub fn load(path: &Path) -> Json {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Every `X.rc` in fixtures/rcfile with its `X.json` dump (and `X.raw.json`, `specs/X.json`).
pub fn fixtures() -> Vec<Fixture> {
    let dir = fixtures_dir();
    let mut out = Vec::new();
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fixtures dir")
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "rc"))
        .collect();
    names.sort();
    for rc in names {
        let name = rc.file_stem().unwrap().to_string_lossy().into_owned();
        let dump = dir.join(format!("{name}.json"));
        if !dump.exists() {
            continue;
        }
        let raw = dir.join(format!("{name}.raw.json"));
        let spec = dir.join(format!("specs/{name}.json"));
        out.push(Fixture {
            dump: load(&dump),
            raw: raw.exists().then(|| load(&raw)),
            spec: spec.exists().then(|| load(&spec)),
            name,
            rc,
        });
    }
    assert!(
        out.len() >= 36,
        "expected the 36 Hive fixtures, found {}",
        out.len()
    );
    out
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// The fixture's schema as a Hive schema string (`name:type,...`).
pub fn schema_text(dump: &Json) -> String {
    dump["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            format!(
                "{}:{}",
                c["name"].as_str().unwrap(),
                c["type"].as_str().unwrap()
            )
        })
        .collect::<Vec<_>>()
        .join(",")
}

/// The fixture's serde properties.
pub fn serde_props(dump: &Json) -> Vec<(String, String)> {
    dump["serde_properties"]
        .as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_str().unwrap().to_string()))
                .collect()
        })
        .unwrap_or_default()
}

/// Every primitive Hive type (varchar/char of 1..6, every decimal precision and scale), for
/// property tests that build random type trees.
pub fn arb_primitive_type() -> impl proptest::strategy::Strategy<Value = colfile::rcfile::HiveType>
{
    use colfile::rcfile::HiveType;
    use proptest::prelude::*;
    prop_oneof![
        Just(HiveType::Boolean),
        Just(HiveType::TinyInt),
        Just(HiveType::SmallInt),
        Just(HiveType::Int),
        Just(HiveType::BigInt),
        Just(HiveType::Float),
        Just(HiveType::Double),
        Just(HiveType::String),
        (1u32..6).prop_map(HiveType::Varchar),
        (1u32..6).prop_map(HiveType::Char),
        Just(HiveType::Binary),
        Just(HiveType::Date),
        Just(HiveType::Timestamp),
        (1u8..=38)
            .prop_flat_map(|p| (Just(p), 0..=p))
            .prop_map(|(precision, scale)| HiveType::Decimal { precision, scale }),
    ]
}
pub mod tsdump;
