//! The spec's worked examples (timestamps, every type's cells), struct schema evolution and
//! malformed cells.

use super::*;

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
