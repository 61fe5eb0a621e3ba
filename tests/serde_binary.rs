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

fn ts(s: &str) -> Value {
    Value::Timestamp(s.parse().unwrap())
}

/// Spec §9.3.4's table.
#[test]
fn spec_timestamp_examples() {
    let cases: [(&str, &[u8]); 8] = [
        ("1970-01-01 00:00:00", &[0x00, 0x00, 0x00, 0x00]),
        (
            "2012-01-01 00:00:00.123",
            &[0xCE, 0xFF, 0xA2, 0x00, 0x8E, 0x01, 0x41],
        ),
        ("2012-01-01 00:00:00.1", &[0xCE, 0xFF, 0xA2, 0x00, 0x01]),
        (
            "2012-01-01 00:00:00.000000001",
            &[0xCE, 0xFF, 0xA2, 0x00, 0x8C, 0x05, 0xF5, 0xE1, 0x00],
        ),
        ("1969-12-31 23:59:59", &[0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (
            "1969-12-31 23:59:59.5",
            &[0xFF, 0xFF, 0xFF, 0xFF, 0xFA, 0xFF],
        ),
        ("2100-01-01 00:00:00", &[0xF4, 0x86, 0x57, 0x00, 0xFF, 0x01]),
        ("1900-01-01 00:00:00", &[0xFC, 0x55, 0x81, 0x80, 0xFF, 0xFE]),
    ];
    for (text, bytes) in cases {
        assert_eq!(enc("timestamp", &ts(text)), bytes, "{text}");
    }
    // High part with zero nanos decodes v = 0 as nanos 0; out-of-range nanos are corrupt.
    let s = BinarySerde::default();
    assert_eq!(
        s.decode(&HiveType::Timestamp, &[0x80, 0, 0, 0, 0xFF, 0x00])
            .unwrap(),
        ts("1970-01-01 00:00:00")
    );
    let e = s
        .decode(
            &HiveType::Timestamp,
            &[0x80, 0, 0, 0, 0x8C, 0x3B, 0x9A, 0xCA, 0x00],
        )
        .unwrap_err();
    assert!(
        matches!(
            e.kind(),
            ErrorKind::Corrupt {
                format: "lazybinary",
                ..
            }
        ),
        "{e}"
    );
}

/// Spec §9.3.5 and §9.3.3.
#[test]
fn spec_worked_examples() {
    assert_eq!(enc("int", &Value::Int(300)), [0x8E, 0x01, 0x2C]);
    assert_eq!(enc("bigint", &Value::BigInt(-1)), [0xFF]);
    assert_eq!(enc("smallint", &Value::SmallInt(-2)), [0xFF, 0xFE]);
    assert_eq!(
        enc("double", &Value::Double(1.5)),
        [0x3F, 0xF8, 0, 0, 0, 0, 0, 0]
    );
    assert_eq!(enc("float", &Value::Float(1.5)), [0x3F, 0xC0, 0, 0]);
    assert_eq!(
        enc("date", &Value::Date(Date::from_ymd(2012, 1, 1).unwrap())),
        [0x8E, 0x3B, 0xEC]
    );
    let arr = Value::Array(vec![Value::Int(1), Value::Null, Value::Int(3)]);
    assert_eq!(enc("array<int>", &arr), [0x03, 0x05, 0x01, 0x03]);
    assert_eq!(
        enc("struct<a:array<int>>", &Value::Struct(vec![arr])),
        [0x01, 0x00, 0x00, 0x00, 0x04, 0x03, 0x05, 0x01, 0x03]
    );
    let map = Value::Map(vec![
        (Value::string("a"), Value::Int(1)),
        (Value::string("b"), Value::Null),
    ]);
    assert_eq!(
        enc("map<string,int>", &map),
        [0x02, 0x07, 0x01, 0x61, 0x01, 0x01, 0x62]
    );
    let st = Value::Struct(vec![Value::Int(5), Value::string("hi")]);
    assert_eq!(
        enc("struct<a:int,b:string>", &st),
        [0x03, 0x05, 0x02, 0x68, 0x69]
    );
    assert_eq!(enc("string", &Value::string("")), [0xBF]);
    assert_eq!(enc("string", &Value::string("x")), [0x78]);
    assert_eq!(enc("map<int,int>", &Value::Map(vec![])), [0x00]);
    assert_eq!(enc("array<int>", &Value::Array(vec![])), [0x00]);
    for ty in [
        "int",
        "string",
        "array<int>",
        "struct<a:int>",
        "uniontype<int>",
    ] {
        assert_eq!(enc(ty, &Value::Null), [0u8; 0]);
    }
    // Decimals: normalized scale.
    let dec = |s: &str, ty: &str| enc(ty, &Value::Decimal(Decimal::parse(s).unwrap()));
    assert_eq!(dec("1.50", "decimal(5,2)"), [0x01, 0x01, 0x0F]);
    assert_eq!(dec("100", "decimal(5,0)"), [0x00, 0x01, 0x64]);
    assert_eq!(dec("0", "decimal(5,0)"), [0x00, 0x01, 0x00]);
    assert_eq!(dec("-1", "decimal(5,0)"), [0x00, 0x01, 0xFF]);
    assert_eq!(dec("128", "decimal(5,0)"), [0x00, 0x02, 0x00, 0x80]);
    // Trino's column-scale form reads the same.
    let d52: HiveType = "decimal(5,2)".parse().unwrap();
    let s = BinarySerde::default();
    assert_eq!(
        s.decode(&d52, &[0x02, 0x02, 0x00, 0x96]).unwrap(),
        Value::Decimal(Decimal {
            unscaled: 150,
            scale: 2
        })
    );
    // A stored scale above the column's rounds half up; overflow is NULL.
    assert_eq!(
        s.decode(&d52, &[0x03, 0x02, 0x05, 0xDD]).unwrap(),
        Value::Decimal(Decimal {
            unscaled: 150,
            scale: 2
        })
    );
    assert_eq!(
        s.decode(&d52, &[0x00, 0x02, 0x03, 0xE8]).unwrap(),
        Value::Null
    );
    // A union whose value is NULL is the tag alone (Hive cannot read it back; we read NULL).
    let u: HiveType = "uniontype<int,string>".parse().unwrap();
    let nv = Value::Union {
        tag: 1,
        value: Box::new(Value::Null),
    };
    let mut out = Vec::new();
    s.encode(&u, &nv, &mut out).unwrap();
    assert_eq!(out, [0x01]);
    assert_eq!(s.decode(&u, &out).unwrap(), nv);
    // NaN is canonical.
    assert_eq!(
        enc("float", &Value::Float(f32::from_bits(0x7FC0_1234))),
        [0x7F, 0xC0, 0, 0]
    );
    assert_eq!(
        enc(
            "double",
            &Value::Double(f64::from_bits(0xFFF8_0000_0000_0001))
        ),
        [0x7F, 0xF8, 0, 0, 0, 0, 0, 0]
    );
}

#[test]
fn struct_schema_evolution() {
    let s = BinarySerde::default();
    // Written as struct<a:int,b:int>, read with a third field: NULL.
    let cell = enc(
        "struct<a:int,b:int>",
        &Value::Struct(vec![Value::Int(1), Value::Int(2)]),
    );
    let wide: HiveType = "struct<a:int,b:int,c:string>".parse().unwrap();
    assert_eq!(
        s.decode(&wide, &cell).unwrap(),
        Value::Struct(vec![Value::Int(1), Value::Int(2), Value::Null])
    );
    // Read with fewer fields: the extra data is ignored.
    let narrow: HiveType = "struct<a:int>".parse().unwrap();
    assert_eq!(
        s.decode(&narrow, &cell).unwrap(),
        Value::Struct(vec![Value::Int(1)])
    );
    // Ten fields written, twelve read: the second null byte covers fields 8..; after the data
    // ends at a group boundary everything is NULL.
    let ten = format!(
        "struct<{}>",
        (0..10)
            .map(|i| format!("f{i}:int"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let vals: Vec<Value> = (0..10).map(Value::Int).collect();
    let cell = enc(&ten, &Value::Struct(vals.clone()));
    let twenty = format!(
        "struct<{}>",
        (0..20)
            .map(|i| format!("f{i}:int"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let mut want = vals;
    want.resize(20, Value::Null);
    assert_eq!(
        s.decode(&twenty.parse().unwrap(), &cell).unwrap(),
        Value::Struct(want)
    );
    // Nested: a struct inside an array, read with an extra field.
    let cell = enc(
        "array<struct<a:int>>",
        &Value::Array(vec![Value::Struct(vec![Value::Int(7)])]),
    );
    let v = s
        .decode(&"array<struct<a:int,b:int>>".parse().unwrap(), &cell)
        .unwrap();
    assert_eq!(
        v,
        Value::Array(vec![Value::Struct(vec![Value::Int(7), Value::Null])])
    );
}

#[test]
fn malformed_cells_are_corrupt() {
    let s = BinarySerde::default();
    let cases: &[(&str, &[u8])] = &[
        ("int", &[0x8C, 0x01]),
        ("int", &[0x88, 0x01, 0, 0, 0, 0, 0, 0, 0]),
        ("smallint", &[0x01]),
        ("double", &[0, 0, 0]),
        ("timestamp", &[0x80, 0, 0]),
        ("timestamp", &[0x80, 0, 0, 0, 0xFF]),
        ("decimal(10,2)", &[0x02, 0x00]),
        ("decimal(10,2)", &[0x02, 0x05, 0x01]),
        ("array<int>", &[0x85, 0x7F, 0xFF, 0xFF, 0xFF]),
        ("array<int>", &[0x8C, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF]),
        ("array<int>", &[0x02, 0x03, 0x01]),
        ("array<string>", &[0x01, 0x01, 0x8C, 0x7F, 0xFF, 0xFF, 0xFF]),
        ("array<array<int>>", &[0x01, 0x01, 0x7F, 0xFF, 0xFF, 0xFF]),
        ("array<array<int>>", &[0x01, 0x01, 0x80, 0x00, 0x00, 0x00]),
        ("map<int,int>", &[0x8C, 0x7F, 0xFF, 0xFF, 0xFF, 0x0F]),
        ("struct<a:int,b:string>", &[0x03, 0x01]),
        ("uniontype<int,string>", &[0x05, 0x01]),
        ("date", &[0x8C]),
    ];
    for (ty, cell) in cases {
        let t: HiveType = ty.parse().unwrap();
        let e = s.decode(&t, cell).unwrap_err();
        assert!(
            matches!(
                e.kind(),
                ErrorKind::Corrupt {
                    format: "lazybinary",
                    ..
                }
            ),
            "{ty} {}: {e}",
            hex(cell)
        );
    }
}

#[test]
fn named_zone_timestamps() {
    let Ok(ny) = TimeZone::parse("America/New_York") else {
        eprintln!("no tz database; skipping");
        return;
    };
    let s = BinarySerde::new(BinaryOptions::default().with_timestamp_zone(ny.clone()));
    let ty = HiveType::Timestamp;
    // Hive 2 in New York: the stored seconds are the UTC instant.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-07-01 00:00:00"), &mut out).unwrap();
    let utc = BinarySerde::default().decode(&ty, &out).unwrap();
    assert_eq!(utc, ts("2021-07-01 04:00:00"));
    assert_eq!(s.decode(&ty, &out).unwrap(), ts("2021-07-01 00:00:00"));
    // Winter: five hours.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-01-15 12:00:00.5"), &mut out)
        .unwrap();
    assert_eq!(
        BinarySerde::default().decode(&ty, &out).unwrap(),
        ts("2021-01-15 17:00:00.5")
    );
    // A wall time in the spring-forward gap moves forward by the gap.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-03-14 02:30:00"), &mut out).unwrap();
    assert_eq!(s.decode(&ty, &out).unwrap(), ts("2021-03-14 03:30:00"));
    // The repeated hour takes the earlier (daylight) offset.
    let mut out = Vec::new();
    s.encode(&ty, &ts("2021-11-07 01:30:00"), &mut out).unwrap();
    assert_eq!(
        BinarySerde::default().decode(&ty, &out).unwrap(),
        ts("2021-11-07 05:30:00")
    );
    // Before 1883 New York used local mean time (-4:56:02).
    assert_eq!(ny.offset_at(-3_000_000_000), -17_762);
    // Far future: the footer rule.
    let y2100 = Timestamp::from_parts(Date::from_ymd(2100, 7, 1).unwrap(), 0, 0, 0, 0).unwrap();
    assert_eq!(ny.offset_at(y2100.seconds), -4 * 3600);
    assert_eq!(ny.to_string(), "America/New_York");
}

/// `java.sql.Timestamp` in a JVM whose default zone is the named one (Java 17): wall clock →
/// `valueOf(..).getTime()` seconds, as Hive 2.x writes. Covers overlaps (the later instant),
/// gaps (moved forward), the standard offset before 1900 (not local mean time), the hybrid
/// calendar (1582-10-10 is read as 10-20), the date line (Apia) and the footer rule.
const JAVA_VALUE_OF: &[(&str, &str, i64)] = &[
    ("America/New_York", "2021-11-07 01:30:00", 1_636_266_600),
    ("America/New_York", "2021-03-14 02:30:00", 1_615_707_000),
    ("America/New_York", "1850-06-01 12:00:00", -3_773_718_000),
    ("Australia/Sydney", "2021-04-04 02:30:00", 1_617_467_400),
    ("Australia/Sydney", "2021-10-03 02:30:00", 1_633_192_200),
    ("Asia/Kolkata", "1899-12-31 23:45:00", -2_209_009_500),
    ("Asia/Kolkata", "1900-01-01 00:30:00", -2_209_006_800),
    ("Europe/Dublin", "1850-01-01 00:00:00", -3_786_825_600),
    ("Europe/London", "1582-10-10 12:00:00", -12_218_817_600),
    ("Pacific/Apia", "2011-12-30 12:00:00", 1_325_282_400),
    ("America/Santiago", "2040-04-08 00:30:00", 2_217_472_200),
];

/// Seconds → `new java.sql.Timestamp(ms).toString()` (Java 17), as Hive 2.x reads: the
/// standard offset before 1900, the tz database (local mean time where still in use) after.
const JAVA_TO_STRING: &[(&str, i64, &str)] = &[
    ("Asia/Kolkata", -2_208_988_801, "1900-01-01 05:29:59"),
    ("Asia/Kolkata", -2_208_988_800, "1900-01-01 05:21:10"),
    ("Pacific/Apia", -5_000_000_000, "1811-07-24 04:06:40"),
    ("Asia/Shanghai", -1_400_000_000, "1925-08-21 15:06:40"),
    ("Europe/Moscow", -1_500_000_000, "1922-06-21 00:20:00"),
    ("America/New_York", -30_000_000_000, "1019-04-28 13:40:00"),
    ("America/New_York", 4_129_252_200, "2100-11-07 01:30:00"),
];

#[test]
fn hive2_zone_rules_match_java_sql_timestamp() {
    let ty = HiveType::Timestamp;
    let hive2 = |zone: &str| {
        TimeZone::parse(zone)
            .ok()
            .map(|z| BinarySerde::new(BinaryOptions::hive2(z)))
    };
    let raw = |seconds| Value::Timestamp(Timestamp { seconds, nanos: 0 });
    for &(zone, wall, seconds) in JAVA_VALUE_OF {
        let Some(s) = hive2(zone) else { continue };
        let mut cell = Vec::new();
        s.encode(&ty, &ts(wall), &mut cell).unwrap();
        assert_eq!(
            BinarySerde::default().decode(&ty, &cell).unwrap(),
            raw(seconds),
            "{zone} {wall}"
        );
    }
    for &(zone, seconds, wall) in JAVA_TO_STRING {
        let Some(s) = hive2(zone) else { continue };
        let mut cell = Vec::new();
        BinarySerde::default()
            .encode(&ty, &raw(seconds), &mut cell)
            .unwrap();
        assert_eq!(s.decode(&ty, &cell).unwrap(), ts(wall), "{zone} {seconds}");
    }
}

#[test]
fn calendar_options() {
    // 1000-01-01 is stored as day -354280 by Hive 2 (hybrid), -354285 by Hive 3 (proleptic).
    let d = Value::Date(Date::from_ymd(1000, 1, 1).unwrap());
    let mut hybrid = Vec::new();
    hive23().encode(&HiveType::Date, &d, &mut hybrid).unwrap();
    let mut prol = Vec::new();
    BinarySerde::default()
        .encode(&HiveType::Date, &d, &mut prol)
        .unwrap();
    assert_ne!(hybrid, prol);
    assert_eq!(hive23().decode(&HiveType::Date, &hybrid).unwrap(), d);
    assert_eq!(
        BinarySerde::default()
            .decode(&HiveType::Date, &prol)
            .unwrap(),
        d
    );
    assert_eq!(hive23().options().calendar, Calendar::Hybrid);
    let o = BinaryOptions::hive2(TimeZone::Fixed(3600));
    assert_eq!(
        (o.calendar, o.timestamp_zone),
        (Calendar::Hybrid, TimeZone::Fixed(3600))
    );
}

// ---------------------------------------------------------------------------------------
// Properties.

fn arb_type() -> impl Strategy<Value = HiveType> {
    common::arb_primitive_type().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| HiveType::Array(Box::new(t))),
            (inner.clone(), inner.clone())
                .prop_map(|(k, v)| HiveType::Map(Box::new(k), Box::new(v))),
            prop::collection::vec(inner.clone(), 1..11).prop_map(|ts| HiveType::Struct(
                ts.into_iter()
                    .enumerate()
                    .map(|(i, ty)| Field {
                        name: format!("f{i}"),
                        ty
                    })
                    .collect()
            )),
            prop::collection::vec(inner, 1..4).prop_map(HiveType::Union),
        ]
    })
}

fn arb_text(max_chars: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            Just('a'),
            Just(' '),
            Just('é'),
            Just('中'),
            Just('😀'),
            any::<char>()
        ],
        0..=max_chars,
    )
    .prop_map(|cs| cs.into_iter().collect())
}

/// A non-NULL value of `ty`, in the shape a decode returns (chars padded, decimals at the
/// column scale).
fn arb_value(ty: &HiveType) -> BoxedStrategy<Value> {
    match ty.clone() {
        HiveType::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
        HiveType::TinyInt => any::<i8>().prop_map(Value::TinyInt).boxed(),
        HiveType::SmallInt => any::<i16>().prop_map(Value::SmallInt).boxed(),
        HiveType::Int => any::<i32>().prop_map(Value::Int).boxed(),
        HiveType::BigInt => any::<i64>().prop_map(Value::BigInt).boxed(),
        HiveType::Float => any::<u32>()
            .prop_map(|b| Value::Float(f32::from_bits(b)))
            .boxed(),
        HiveType::Double => any::<u64>()
            .prop_map(|b| Value::Double(f64::from_bits(b)))
            .boxed(),
        HiveType::String => arb_text(12).prop_map(Value::string).boxed(),
        HiveType::Varchar(n) => arb_text(n as usize).prop_map(Value::string).boxed(),
        HiveType::Char(n) => arb_text(n as usize)
            .prop_map(move |s| {
                let pad = n as usize - s.chars().count();
                Value::string(s + &" ".repeat(pad))
            })
            .boxed(),
        HiveType::Binary => prop::collection::vec(any::<u8>(), 0..12)
            .prop_map(Value::Binary)
            .boxed(),
        HiveType::Date => any::<i32>().prop_map(|d| Value::Date(Date(d))).boxed(),
        HiveType::Timestamp => (any::<i64>(), 0u32..1_000_000_000)
            .prop_map(|(seconds, nanos)| Value::Timestamp(Timestamp { seconds, nanos }))
            .boxed(),
        HiveType::Decimal { precision, scale } => {
            let max = 10i128.pow(precision as u32);
            (-max + 1..max)
                .prop_map(move |unscaled| Value::Decimal(Decimal { unscaled, scale }))
                .boxed()
        }
        HiveType::Array(et) => prop::collection::vec(arb_nullable(&et), 0..5)
            .prop_map(Value::Array)
            .boxed(),
        HiveType::Map(kt, vt) => {
            prop::collection::vec((arb_nullable(&kt), arb_nullable(&vt)), 0..4)
                .prop_map(Value::Map)
                .boxed()
        }
        HiveType::Struct(fields) => {
            let parts: Vec<BoxedStrategy<Value>> =
                fields.iter().map(|f| arb_nullable(&f.ty)).collect();
            parts.prop_map(Value::Struct).boxed()
        }
        HiveType::Union(members) => {
            let alts: Vec<BoxedStrategy<Value>> = members
                .iter()
                .enumerate()
                .map(|(i, m)| {
                    arb_nullable(m)
                        .prop_map(move |v| Value::Union {
                            tag: i as u8,
                            value: Box::new(v),
                        })
                        .boxed()
                })
                .collect();
            prop::strategy::Union::new(alts).boxed()
        }
        other => panic!("no strategy for {other}"),
    }
}

fn arb_nullable(ty: &HiveType) -> BoxedStrategy<Value> {
    prop_oneof![1 => Just(Value::Null), 4 => arb_value(ty)].boxed()
}

fn arb_typed_value() -> impl Strategy<Value = (HiveType, Value)> {
    arb_type().prop_flat_map(|t| {
        let v = arb_nullable(&t);
        (Just(t), v)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn encode_decode_round_trip((ty, v) in arb_typed_value()) {
        let serde = BinarySerde::default();
        let mut cell = Vec::new();
        match (&ty, &v) {
            (HiveType::Binary, Value::Binary(b)) if b.is_empty() => {
                prop_assert!(serde.encode(&ty, &v, &mut cell).is_err());
                return Ok(());
            }
            _ => serde.encode(&ty, &v, &mut cell).unwrap(),
        }
        // Hive parity: an empty top-level varchar/char reads back as NULL.
        let want = match (&ty, &v) {
            (HiveType::Varchar(_), Value::String(s)) if s.is_empty() => Value::Null,
            _ => v.clone(),
        };
        let got = serde.decode(&ty, &cell).unwrap();
        prop_assert!(got.same_as(&want), "{ty}: {} -> {} -> {}", show(&ty, &v), hex(&cell), show(&ty, &got));
        // Nested in a struct, with the 4-byte size and a second field after it.
        let st = HiveType::Struct(vec![
            Field { name: "x".into(), ty: ty.clone() },
            Field { name: "y".into(), ty: HiveType::Int },
        ]);
        let sv = Value::Struct(vec![v.clone(), Value::Int(-7)]);
        let mut cell = Vec::new();
        serde.encode(&st, &sv, &mut cell).unwrap();
        let got = serde.decode(&st, &cell).unwrap();
        prop_assert!(got.same_as(&sv), "{st}: {} -> {}", hex(&cell), show(&st, &got));
    }

    #[test]
    fn random_bytes_never_panic(ty in arb_type(), cell in prop::collection::vec(any::<u8>(), 0..64)) {
        for serde in [BinarySerde::default(), hive23()] {
            if let Err(e) = serde.decode(&ty, &cell) {
                prop_assert!(matches!(e.kind(), ErrorKind::Corrupt { format: "lazybinary", .. }), "{e}");
            }
        }
    }

    #[test]
    fn mutated_cells_never_panic((ty, v) in arb_typed_value(), flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..4), cut in any::<usize>()) {
        let serde = BinarySerde::default();
        let mut cell = Vec::new();
        if serde.encode(&ty, &v, &mut cell).is_err() || cell.is_empty() {
            return Ok(());
        }
        let mut bad = cell.clone();
        for (i, b) in flips {
            let n = bad.len();
            bad[i % n] ^= b;
        }
        let _ = serde.decode(&ty, &bad);
        let _ = serde.decode(&ty, &cell[..cut % cell.len()]);
    }

    #[test]
    fn hybrid_calendar_round_trip(days in -1_000_000i32..1_000_000, sod in 0i64..86_400, nanos in 0u32..1_000_000_000) {
        // The ten dates the hybrid calendar skips (1582-10-05..14) move; all others survive.
        prop_assume!(!(-141_437..-141_427).contains(&days));
        let serde = hive23();
        let d = Value::Date(Date(days));
        let mut cell = Vec::new();
        serde.encode(&HiveType::Date, &d, &mut cell).unwrap();
        prop_assert_eq!(serde.decode(&HiveType::Date, &cell).unwrap(), d);
        let t = Value::Timestamp(Timestamp { seconds: days as i64 * 86_400 + sod, nanos });
        let mut cell = Vec::new();
        serde.encode(&HiveType::Timestamp, &t, &mut cell).unwrap();
        prop_assert_eq!(serde.decode(&HiveType::Timestamp, &cell).unwrap(), t);
    }

    #[test]
    fn named_zone_round_trip(utc in -5_000_000_000i64..7_000_000_000, wall in -5_000_000_000i64..7_000_000_000) {
        let Ok(zone) = TimeZone::parse("America/New_York") else { return Ok(()) };
        // Every instant: its wall clock maps back to an instant with the same wall clock
        // (the same instant unless it is the second pass through a repeated hour).
        let local = zone.utc_to_local(utc);
        let back = zone.local_to_utc(local);
        prop_assert_eq!(zone.utc_to_local(back), local);
        prop_assert!(back <= utc && utc - back <= 3600, "{} {}", utc, back);
        // Every wall clock: it survives unless it falls in a gap, which moves it forward.
        let u = zone.local_to_utc(wall);
        let again = zone.utc_to_local(u);
        prop_assert!(again >= wall && again - wall <= 3600, "{} {}", wall, again);
        // Through the serde, with the hybrid calendar too.
        let serde = BinarySerde::new(BinaryOptions::hive2(zone.clone()));
        let t = Value::Timestamp(Timestamp { seconds: local, nanos: 0 });
        let mut cell = Vec::new();
        serde.encode(&HiveType::Timestamp, &t, &mut cell).unwrap();
        prop_assert_eq!(serde.decode(&HiveType::Timestamp, &cell).unwrap(), t);
    }
}
