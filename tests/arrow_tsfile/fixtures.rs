//! Every fixture of fixtures/tsfile read through `TsFileArrowReader` with no query (one
//! query per table where the file holds several) gives the rows of its `expected.jsonl`, and
//! table schemas map to Arrow as the module docs' table says.

use super::{batch_rows, open_fixture, read_batches, without_null_fields};
use crate::common::load;
use crate::common::tsdump::{
    compare_dumps, missing_codec, our_dump, parse_lines, ts_fixture_names, ts_fixtures_dir,
};
use arrow_schema::{DataType as ArrowType, TimeUnit};
use colfile::arrow::TSFILE_CATEGORY_KEY;
use colfile::tsfile::Query;
use colfile::ErrorKind;
use serde_json::Value as Json;

/// Fixtures where this crate reads some values as Java does, not as the C++ writer of the
/// expected dump (tests/tsfile_fixtures.rs lists and counts them): their rows are compared
/// with the plain reader's dump, which that test checks against expected.jsonl.
const READ_AS_JAVA: &[&str] = &["enc_sprintz", "tree_encodings"];

/// The Arrow type the mapping gives a TsFile type name (milliseconds).
fn mapped(type_name: &str, category: &str) -> ArrowType {
    if category == "TAG" {
        return ArrowType::Utf8;
    }
    match type_name {
        "BOOLEAN" => ArrowType::Boolean,
        "INT32" => ArrowType::Int32,
        "INT64" => ArrowType::Int64,
        "FLOAT" => ArrowType::Float32,
        "DOUBLE" => ArrowType::Float64,
        "TEXT" | "STRING" => ArrowType::Utf8,
        "BLOB" | "OBJECT" => ArrowType::Binary,
        "DATE" => ArrowType::Date32,
        "TIMESTAMP" => ArrowType::Timestamp(TimeUnit::Millisecond, Some("UTC".into())),
        other => panic!("type {other}"),
    }
}

/// Rows of the whole file through Arrow: the tree devices, or each table in turn; checks
/// each table's Arrow schema against the expected dump's schema line.
fn arrow_rows(name: &str, expected: &[Json]) -> colfile::Result<Vec<Json>> {
    let reader = open_fixture(name);
    let schemas = reader.metadata().footer().schemas.clone();
    if schemas.is_empty() {
        let batches = read_batches(&reader, Query::all(), 1000)?;
        return Ok(batches
            .iter()
            .flat_map(|b| batch_rows(b, None))
            .map(without_null_fields)
            .collect());
    }
    let schema_line = expected.iter().find(|l| l["kind"] == "schema").unwrap();
    let mut rows = Vec::new();
    for table in &schemas {
        let batches = read_batches(&reader, Query::all().table(&table.name), 1000)?;
        let want = schema_line["tables"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["name"] == table.name.as_str())
            .unwrap();
        let want: Vec<(String, ArrowType, String)> = want["columns"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["category"] == "TAG" || c["category"] == "FIELD")
            .map(|c| {
                let (t, cat) = (c["type"].as_str().unwrap(), c["category"].as_str().unwrap());
                (
                    c["name"].as_str().unwrap().to_owned(),
                    mapped(t, cat),
                    cat.to_owned(),
                )
            })
            .collect();
        for b in &batches {
            let s = b.schema();
            let time = s.field(0);
            assert_eq!(time.name(), "time");
            assert!(!time.is_nullable());
            assert_eq!(time.data_type(), &mapped("TIMESTAMP", "FIELD"));
            let got: Vec<(String, ArrowType, String)> = s.fields()[1..]
                .iter()
                .map(|f| {
                    let cat = f.metadata()[TSFILE_CATEGORY_KEY].clone();
                    (f.name().clone(), f.data_type().clone(), cat)
                })
                .collect();
            assert_eq!(got, want, "{name}: schema of table {}", table.name);
            rows.extend(batch_rows(b, Some(&table.name)));
        }
    }
    Ok(rows)
}

#[test]
fn every_fixture_reads_as_its_expected_dump() {
    let dir = ts_fixtures_dir();
    let (mut compared, mut unsupported) = (0, 0);
    let mut failures = Vec::new();
    for name in ts_fixture_names() {
        let spec = load(&dir.join(format!("{name}.spec.json")));
        let text = if READ_AS_JAVA.contains(&name.as_str()) {
            our_dump(std::fs::read(dir.join(format!("{name}.tsfile"))).unwrap()).unwrap()
        } else {
            std::fs::read_to_string(dir.join(format!("{name}.expected.jsonl"))).unwrap()
        };
        let expected = parse_lines(&text);
        let got = arrow_rows(&name, &expected);
        if let Some(codec) = missing_codec(&spec) {
            match got {
                Err(e) if matches!(e.kind(), ErrorKind::Unsupported(_)) => unsupported += 1,
                Err(e) => failures.push(format!("{name}: needs {codec}; wrong error: {e}")),
                Ok(_) => failures.push(format!("{name}: needs {codec} but read without error")),
            }
            continue;
        }
        let got = match got {
            Ok(g) => g,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let tree = expected
            .iter()
            .any(|l| l["kind"] == "schema" && l["model"] == "tree");
        let expected: Vec<Json> = expected
            .into_iter()
            .filter(|l| l["kind"] == "row")
            .map(|r| if tree { without_null_fields(r) } else { r })
            .collect();
        if expected.len() != got.len() {
            failures.push(format!(
                "{name}: {} rows, expected {}",
                got.len(),
                expected.len()
            ));
        }
        let problems = compare_dumps(&expected, &got, true);
        if !problems.is_empty() {
            failures.push(format!(
                "{name}: {} problems, first: {}",
                problems.len(),
                problems[..problems.len().min(3)].join(" | ")
            ));
        }
        compared += 1;
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        compared >= 25,
        "compared {compared}, unsupported {unsupported}"
    );
}
