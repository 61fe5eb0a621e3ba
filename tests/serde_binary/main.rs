//! `LazyBinaryColumnarSerDe` against Hive 2.3's own cells: every binary fixture's raw cells
//! decode to Hive's dump, and the dump's values (and the spec inputs) encode to the same bytes.
//! Plus the spec's worked examples and property tests.

use colfile_testkit as common;

use colfile::rcfile::json::{from_json, parse_hex, row_from_json};
use colfile::rcfile::serde::binary::{
    BinaryOptions, BinarySerde, Calendar, EmptyStringMarker, TimeZone,
};
use colfile::rcfile::{Date, Decimal, Field, HiveType, Schema, Timestamp, Value};
use colfile::ErrorKind;
use common::hex;
use proptest::prelude::*;
use serde_json::Value as Json;

mod props;
mod spec;
mod zones;

/// Hive 2.3 in a UTC JVM: hybrid calendar, UTC.
fn hive23() -> BinarySerde {
    BinarySerde::new(BinaryOptions::default().with_calendar(Calendar::Hybrid))
}

struct Fixture {
    name: String,
    schema: Schema,
    /// Hive's dump rows.
    rows: Vec<Json>,
    /// Cells per column, all row groups concatenated.
    cells: Vec<Vec<Vec<u8>>>,
    /// Explicit input rows of the spec (not the generated ones).
    spec_rows: Vec<Json>,
}

/// The fixtures whose dump says `"serde":"binary"`, with their cells and spec rows.
fn binary_fixtures() -> Vec<Fixture> {
    let mut out = Vec::new();
    for f in common::fixtures() {
        if f.dump["serde"] != "binary" {
            continue;
        }
        let schema = Schema::new(
            f.dump["columns"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| Field {
                    name: c["name"].as_str().unwrap().to_string(),
                    ty: c["type"].as_str().unwrap().parse().unwrap(),
                })
                .collect(),
        );
        let raw = f
            .raw
            .as_ref()
            .unwrap_or_else(|| panic!("{}: no raw dump", f.name));
        let mut cells = vec![Vec::new(); schema.len()];
        for g in raw["row_groups"].as_array().unwrap() {
            for (j, c) in g["columns"].as_array().unwrap().iter().enumerate() {
                for h in c["cells"].as_array().unwrap() {
                    cells[j].push(parse_hex(h.as_str().unwrap()).unwrap());
                }
            }
        }
        let spec_rows = f
            .spec
            .as_ref()
            .and_then(|s| s.get("rows")?.as_array().cloned())
            .unwrap_or_default();
        let rows = f.dump["rows"].as_array().unwrap().clone();
        for c in &cells {
            assert_eq!(
                c.len(),
                rows.len(),
                "{}: cells per column vs dump rows",
                f.name
            );
        }
        out.push(Fixture {
            name: f.name,
            schema,
            rows,
            cells,
            spec_rows,
        });
    }
    out
}

fn show(ty: &HiveType, v: &Value) -> String {
    let mut s = String::new();
    colfile::rcfile::json::write_value(ty, v, &mut s);
    s
}

/// Hive's dump reads maps into a `LinkedHashMap`, which keeps the first position of a key and
/// drops later duplicates; do the same to a decoded value before comparing.
fn dedupe_maps(v: Value) -> Value {
    match v {
        Value::Map(entries) => {
            let mut out: Vec<(Value, Value)> = Vec::with_capacity(entries.len());
            for (k, x) in entries {
                if !out.iter().any(|(k2, _)| k2.same_as(&k)) {
                    out.push((dedupe_maps(k), dedupe_maps(x)));
                }
            }
            Value::Map(out)
        }
        Value::Array(xs) => Value::Array(xs.into_iter().map(dedupe_maps).collect()),
        Value::Struct(xs) => Value::Struct(xs.into_iter().map(dedupe_maps).collect()),
        Value::Union { tag, value } => Value::Union {
            tag,
            value: Box::new(dedupe_maps(*value)),
        },
        other => other,
    }
}

/// Calls `f(where, type, Hive's value, Hive's value as JSON, cell)` for every cell of every
/// binary fixture; returns how many.
fn for_each_cell(mut f: impl FnMut(&str, &HiveType, &Value, &Json, &[u8])) -> usize {
    let fixtures = binary_fixtures();
    assert!(
        fixtures.len() >= 17,
        "found only {} binary fixtures",
        fixtures.len()
    );
    let mut n = 0;
    for fx in &fixtures {
        for (j, (col, cells)) in fx.schema.columns().iter().zip(&fx.cells).enumerate() {
            for (i, cell) in cells.iter().enumerate() {
                let json = &fx.rows[i][j];
                let want = from_json(&col.ty, json).unwrap();
                let at = format!("{} row {i} column {} ({})", fx.name, col.name, col.ty);
                f(&at, &col.ty, &want, json, cell);
                n += 1;
            }
        }
    }
    n
}

#[test]
fn fixtures_decode_to_hive_dump() {
    let serde = hive23();
    let checked = for_each_cell(|at, ty, want, json, cell| {
        let got = serde
            .decode(ty, cell)
            .unwrap_or_else(|e| panic!("{at}: {e} (cell {})", hex(cell)));
        let got = dedupe_maps(got);
        let cell = hex(cell);
        assert!(
            got.same_as(want),
            "{at}: cell {cell} decoded to {} but Hive read {json}",
            show(ty, &got)
        );
    });
    assert!(checked >= 17_000, "{checked} cells");
}

#[test]
fn fixtures_encode_byte_exactly() {
    let serde = hive23();
    let checked = for_each_cell(|at, ty, v, json, cell| {
        let mut out = Vec::new();
        serde
            .encode(ty, v, &mut out)
            .unwrap_or_else(|e| panic!("{at}: {e}"));
        assert_eq!(hex(&out), hex(cell), "{at}: value {json}");
    });
    assert!(checked >= 17_000, "{checked} cells");
}

/// The spec inputs (before Hive's lossy read-back) also encode to Hive's bytes: an empty
/// varchar is written as nothing, `1582-10-10` lands on 1582-10-20, decimals round or become
/// NULL, chars pad.
#[test]
fn spec_inputs_encode_byte_exactly() {
    let serde = hive23();
    let mut checked = 0;
    for f in &binary_fixtures() {
        for (i, row) in f.spec_rows.iter().enumerate() {
            let vals = row_from_json(&f.schema, row).unwrap();
            for (j, (col, v)) in f.schema.columns().iter().zip(&vals).enumerate() {
                let mut out = Vec::new();
                serde.encode(&col.ty, v, &mut out).unwrap_or_else(|e| {
                    panic!("{} spec row {i} col {j}: {e}", f.name);
                });
                assert_eq!(
                    hex(&out),
                    hex(&f.cells[j][i]),
                    "{} spec row {i} column {}: {row}",
                    f.name,
                    col.name
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 4000, "{checked} cells");
}

#[test]
fn empty_varchar_marker_options() {
    let ty: HiveType = "varchar(5)".parse().unwrap();
    let empty = Value::string("");
    let mut out = Vec::new();
    hive23().encode(&ty, &empty, &mut out).unwrap();
    assert!(out.is_empty(), "Hive parity writes nothing");
    let trino =
        BinarySerde::new(BinaryOptions::default().with_empty_varchar(EmptyStringMarker::Trino));
    trino.encode(&ty, &empty, &mut out).unwrap();
    assert_eq!(out, [0xBF]);
    // Reading: a lone BF is "" for every string-like type (char pads it).
    assert_eq!(trino.decode(&ty, &out).unwrap(), empty);
    assert_eq!(trino.decode(&HiveType::String, &out).unwrap(), empty);
    assert_eq!(
        trino.decode(&HiveType::Char(2), &out).unwrap(),
        Value::string("  ")
    );
    assert_eq!(
        trino.decode(&HiveType::Binary, &out).unwrap(),
        Value::Binary(vec![0xBF])
    );
    // Nested empty strings carry a zero length, no marker.
    let arr: HiveType = "array<varchar(3)>".parse().unwrap();
    let mut out = Vec::new();
    hive23()
        .encode(&arr, &Value::Array(vec![empty.clone()]), &mut out)
        .unwrap();
    assert_eq!(out, [0x01, 0x01, 0x00]);
}

#[test]
fn empty_top_level_binary_is_an_error() {
    let e = hive23()
        .encode(&HiveType::Binary, &Value::Binary(vec![]), &mut Vec::new())
        .unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot serialize a non-null zero length binary field"),
        "{e}"
    );
    // Nested, it is fine.
    let ty: HiveType = "array<binary>".parse().unwrap();
    let mut out = Vec::new();
    hive23()
        .encode(&ty, &Value::Array(vec![Value::Binary(vec![])]), &mut out)
        .unwrap();
    assert_eq!(out, [0x01, 0x01, 0x00]);
}

/// Encodes `v` as a `ty` cell and checks it decodes back.
fn enc(ty: &str, v: &Value) -> Vec<u8> {
    let ty: HiveType = ty.parse().unwrap();
    let mut out = Vec::new();
    BinarySerde::default().encode(&ty, v, &mut out).unwrap();
    assert!(
        BinarySerde::default().decode(&ty, &out).unwrap().same_as(v),
        "{ty} {v:?}"
    );
    out
}

/// A timestamp value from Hive's text form.
fn ts(s: &str) -> Value {
    Value::Timestamp(s.parse().unwrap())
}
