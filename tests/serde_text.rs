//! The text serde (`ColumnarSerDe`) against Hive 2.3's own output.
//!
//! Every fixture under `fixtures/rcfile/` whose dump says `"serde": "text"` is checked cell by
//! cell without the RCFile container: `X.raw.json` holds the exact bytes Hive wrote for each
//! cell, `X.json` the values Hive reads back from them.
//!
//! - decode: each raw cell decodes to the dump's value (floats by bits, NaN equal to NaN);
//! - encode: each dump value encodes to the raw cell, byte for byte.
//!
//! The only cells whose dump value cannot reproduce Hive's bytes are decimals that overflowed
//! their column: Hive writes four NUL bytes for them (and reads NULL back), so those cells are
//! encoded from the fixture's input value (`specs/X.json`) instead. Everything else that Hive
//! normalizes on write (`[null]` read back as NULL, `[""]` as `[]`, the string `\N` as NULL,
//! lenient dates) already round-trips, because the normalized value has the same bytes.
//!
//! The property tests then check, for random types nested up to the separator limit and
//! random values, that encode then decode gives the value back, over the domain where text is
//! lossless. Text is not lossless (in Hive either) for: an array holding one element that
//! renders empty (`[""]`, `[[]]`) or as the null sequence (`[NULL]`); a struct of one field
//! that renders as the null sequence; strings equal to the null sequence, or containing
//! separator bytes when escaping is off; NULL or duplicate map keys (dropped on read); dates in
//! the 1582-10-05..14 gap and outside years 1..=9999 (normalized by the hybrid calendar).

use colfile::rcfile::serde::text::NestingLevels;
use colfile::rcfile::serde::{TextOptions, TextSerde};
use colfile::rcfile::{json, Date, Decimal, Field, HiveType, Timestamp, Value};
use colfile_testkit as common;

use proptest::prelude::*;
use serde_json::Value as Json;
use std::path::{Path, PathBuf};

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/rcfile")
}

fn read_json(p: &Path) -> Json {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn hex(s: &str) -> Vec<u8> {
    json::parse_hex(s).unwrap_or_else(|| panic!("bad hex {s:?}"))
}

/// One text fixture: its schema, serde and cells with Hive's values.
struct Fixture {
    name: String,
    types: Vec<HiveType>,
    serde: TextSerde,
    /// (row, column, raw cell, Hive's value as JSON)
    cells: Vec<(usize, usize, Vec<u8>, Json)>,
    /// The writer's input rows (`specs/X.json`), where given explicitly.
    spec_rows: Vec<Json>,
}

fn text_fixtures() -> Vec<Fixture> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(fixture_dir())
        .expect("fixtures/rcfile")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.ends_with(".json") && !n.ends_with(".raw.json")
        })
        .collect();
    names.sort();
    let mut out = Vec::new();
    for path in names {
        let dump = read_json(&path);
        if dump.get("serde").and_then(Json::as_str) != Some("text") {
            continue;
        }
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string();
        let types: Vec<HiveType> = dump["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .map(|c| {
                c["type"]
                    .as_str()
                    .expect("type")
                    .parse()
                    .expect("Hive type")
            })
            .collect();
        let props: Vec<(String, String)> = dump
            .get("serde_properties")
            .and_then(Json::as_object)
            .map(|o| {
                o.iter()
                    .map(|(k, v)| (k.clone(), v.as_str().unwrap_or("").to_string()))
                    .collect()
            })
            .unwrap_or_default();
        let opts =
            TextOptions::from_properties(props.iter().map(|(k, v)| (k.as_str(), v.as_str())))
                .expect("serde properties");
        let rows = dump["rows"].as_array().expect("rows").clone();
        let raw = read_json(&fixture_dir().join(format!("{name}.raw.json")));
        let mut cells = Vec::new();
        let mut first_row = 0;
        for group in raw["row_groups"].as_array().expect("row_groups") {
            let n = group["rows"].as_u64().expect("rows") as usize;
            for (c, col) in group["columns"]
                .as_array()
                .expect("columns")
                .iter()
                .enumerate()
            {
                let col_cells = col["cells"].as_array().expect("cells");
                assert_eq!(col_cells.len(), n, "{name}: cell count");
                for (k, h) in col_cells.iter().enumerate() {
                    let r = first_row + k;
                    cells.push((r, c, hex(h.as_str().expect("hex")), rows[r][c].clone()));
                }
            }
            first_row += n;
        }
        assert_eq!(first_row, rows.len(), "{name}: rows in dump and raw dump");
        let spec_path = fixture_dir().join("specs").join(format!("{name}.json"));
        let spec_rows = if spec_path.exists() {
            read_json(&spec_path)
                .get("rows")
                .and_then(Json::as_array)
                .cloned()
                .unwrap_or_default()
        } else {
            Vec::new()
        };
        out.push(Fixture {
            name,
            types,
            serde: TextSerde::new(opts),
            cells,
            spec_rows,
        });
    }
    out
}

/// Equality of a decoded value with Hive's: floats by bits (NaN = NaN); strings also match
/// when Hive's dump shows the Java-decoded text of the same bytes.
fn same(decoded: &Value, hive: &Value) -> bool {
    match (decoded, hive) {
        (Value::String(a), Value::String(b)) => {
            a == b || String::from_utf8_lossy(a).as_bytes() == b.as_slice()
        }
        (Value::Array(a), Value::Array(b)) | (Value::Struct(a), Value::Struct(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
        }
        (Value::Map(a), Value::Map(b)) => {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|((k1, v1), (k2, v2))| same(k1, k2) && same(v1, v2))
        }
        (Value::Union { tag: t1, value: v1 }, Value::Union { tag: t2, value: v2 }) => {
            t1 == t2 && same(v1, v2)
        }
        _ => decoded.same_as(hive),
    }
}

/// Fails with the first mismatches, after checking that the fixtures were actually read.
fn assert_all_match(checked: usize, failures: &[String]) {
    assert!(checked > 10_000, "only {checked} cells");
    let first = failures
        .iter()
        .take(20)
        .cloned()
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        failures.is_empty(),
        "{} of {checked} cells differ:\n{first}",
        failures.len()
    );
}

fn show(b: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(b))
}

#[test]
fn fixtures_decode_to_hive_values() {
    let fixtures = text_fixtures();
    assert!(
        fixtures.len() >= 15,
        "expected the text fixtures, found {}",
        fixtures.len()
    );
    let (mut checked, mut failures) = (0usize, Vec::new());
    for f in &fixtures {
        for (r, c, cell, expected) in &f.cells {
            let ty = &f.types[*c];
            let want = json::from_json(ty, expected).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            let got = f
                .serde
                .decode(ty, cell)
                .unwrap_or_else(|e| panic!("{} r{r} c{c}: {e}", f.name));
            checked += 1;
            if !same(&got, &want) {
                failures.push(format!(
                    "{} row {r} col {c} ({ty}): {} -> {got:?}, Hive {want:?}",
                    f.name,
                    show(cell)
                ));
            }
        }
    }
    assert_all_match(checked, &failures);
}

/// The typed fast paths for columnar readers give what `decode` gives, on every primitive cell.
#[test]
fn fixtures_typed_decoding_agrees() {
    let mut checked = 0usize;
    for f in &text_fixtures() {
        let s = &f.serde;
        for (r, c, cell, _) in &f.cells {
            let ty = &f.types[*c];
            let v = s.decode(ty, cell).unwrap();
            let mut buf = Vec::new();
            let typed = match ty {
                HiveType::TinyInt | HiveType::SmallInt | HiveType::Int | HiveType::BigInt => {
                    s.decode_int(ty, cell) == v.as_i64()
                }
                HiveType::Boolean => {
                    s.decode_boolean(cell)
                        .map(Value::Boolean)
                        .unwrap_or(Value::Null)
                        == v
                }
                HiveType::Float => s
                    .decode_float(cell)
                    .map(Value::Float)
                    .unwrap_or(Value::Null)
                    .same_as(&v),
                HiveType::Double => s
                    .decode_double(cell)
                    .map(Value::Double)
                    .unwrap_or(Value::Null)
                    .same_as(&v),
                HiveType::Date => s.decode_date(cell).map(Value::Date).unwrap_or(Value::Null) == v,
                HiveType::Timestamp => {
                    s.decode_timestamp(cell)
                        .map(Value::Timestamp)
                        .unwrap_or(Value::Null)
                        == v
                }
                HiveType::Decimal { precision, scale } => {
                    s.decode_decimal(*precision, *scale, cell)
                        .map(Value::Decimal)
                        .unwrap_or(Value::Null)
                        == v
                }
                HiveType::String | HiveType::Varchar(_) | HiveType::Char(_) | HiveType::Binary => {
                    match (s.decode_bytes_into(ty, cell, &mut buf), &v) {
                        (true, Value::String(b) | Value::Binary(b)) => *b == buf,
                        (false, Value::Null) => buf.is_empty(),
                        _ => false,
                    }
                }
                _ => continue,
            };
            checked += 1;
            assert!(
                typed,
                "{} row {r} col {c} ({ty}): typed decoding differs from {v:?}",
                f.name
            );
        }
    }
    assert!(checked > 5_000, "only {checked} primitive cells");
}

/// The writer's input for a cell whose dump value Hive normalized on read, as a value.
fn spec_value(
    f: &Fixture,
    r: usize,
    c: usize,
    ty: &HiveType,
    overflowed_decimal: bool,
) -> Option<Value> {
    let input = f.spec_rows.get(r).map(|row| match row {
        Json::Array(a) => a.get(c).cloned().unwrap_or(Json::Null),
        _ => Json::Null,
    })?;
    if overflowed_decimal {
        // json::from_json rounds to the column and maps the overflow to NULL; keep it raw.
        let text = input
            .as_str()
            .map(str::to_string)
            .unwrap_or_else(|| input.to_string());
        return Decimal::parse(&text).map(Value::Decimal);
    }
    json::from_json(ty, &input).ok()
}

#[test]
fn fixtures_encode_byte_exact() {
    let (mut checked, mut from_spec, mut failures) = (0usize, Vec::new(), Vec::new());
    for f in &text_fixtures() {
        for (r, c, cell, expected) in &f.cells {
            let ty = &f.types[*c];
            let value = json::from_json(ty, expected).unwrap_or_else(|e| panic!("{}: {e}", f.name));
            let encode = |v: &Value| {
                let mut out = Vec::new();
                f.serde
                    .encode(ty, v, &mut out)
                    .unwrap_or_else(|e| panic!("{} r{r} c{c}: {e}", f.name));
                out
            };
            let out = encode(&value);
            checked += 1;
            if out == *cell {
                continue;
            }
            // Hive normalized the value on read: a decimal that overflowed its column (written
            // as four NUL bytes), or a map entry with a NULL key (dropped). Hive's bytes must
            // then come from the writer's input.
            let overflowed = value.is_null() && cell.as_slice() == [0, 0, 0, 0];
            match spec_value(f, *r, *c, ty, overflowed) {
                Some(input) if encode(&input) == *cell => {
                    from_spec.push(format!("{} r{r} c{c}", f.name))
                }
                _ => failures.push(format!(
                    "{} row {r} col {c} ({ty}): {value:?} -> {}, Hive {}",
                    f.name,
                    show(&out),
                    show(cell)
                )),
            }
        }
    }
    assert_all_match(checked, &failures);
    // The two overflowed decimals of edge_values_text and the NULL-keyed map of strings_text.
    from_spec.sort();
    assert_eq!(
        from_spec,
        [
            "edge_values_text r2 c7",
            "edge_values_text r6 c6",
            "strings_text r1 c5"
        ]
    );
}

// ---------------------------------------------------------------------------------------------
// Property tests

fn options_strategy() -> impl Strategy<Value = TextOptions> {
    (0..5u8, any::<bool>()).prop_map(|(kind, takes_rest)| {
        let mut o = TextOptions::default();
        o.last_column_takes_rest = takes_rest;
        match kind {
            1 => {
                o.escape = Some(b'\\');
                o.escape_crlf = true;
            }
            2 => o.null_sequence = b"NULL".to_vec(),
            3 => o.nesting = NestingLevels::Extended,
            4 => {
                o.nesting = NestingLevels::ExtendedAdditional;
                o.escape = Some(b'\\');
            }
            _ => {}
        }
        o
    })
}

/// A type whose complex parts fit in `levels` separators, starting at level 1.
fn type_strategy(levels: usize) -> BoxedStrategy<HiveType> {
    fn at(level: usize, levels: usize) -> BoxedStrategy<HiveType> {
        let mut options: Vec<BoxedStrategy<HiveType>> = vec![
            common::arb_primitive_type().boxed(),
            common::arb_primitive_type().boxed(),
        ];
        if level < levels {
            options.push(
                at(level + 1, levels)
                    .prop_map(|t| HiveType::Array(Box::new(t)))
                    .boxed(),
            );
            let fields = prop::collection::vec(at(level + 1, levels), 1..4).prop_map(|ts| {
                HiveType::Struct(
                    ts.into_iter()
                        .enumerate()
                        .map(|(i, ty)| Field {
                            name: format!("f{i}"),
                            ty,
                        })
                        .collect(),
                )
            });
            options.push(fields.boxed());
            options.push(
                prop::collection::vec(at(level + 1, levels), 1..4)
                    .prop_map(HiveType::Union)
                    .boxed(),
            );
        }
        if level + 1 < levels {
            options.push(
                (common::arb_primitive_type(), at(level + 2, levels))
                    .prop_map(|(k, v)| HiveType::Map(Box::new(k), Box::new(v)))
                    .boxed(),
            );
        }
        prop::strategy::Union::new(options).boxed()
    }
    at(1, levels)
}

/// Text for string values: with escaping anything goes; without it, no separator bytes.
fn text_strategy(escaped: bool, ascii_only: bool) -> BoxedStrategy<Vec<u8>> {
    if escaped {
        prop::collection::vec(any::<u8>(), 0..8).boxed()
    } else if ascii_only {
        "[ -~]{0,8}".prop_map(String::into_bytes).boxed()
    } else {
        "[ -~éü中😀\t\n]{0,8}".prop_map(String::into_bytes).boxed()
    }
}

fn chars_strategy(n: u32, pad: bool, escaped: bool) -> BoxedStrategy<Value> {
    let pattern = if escaped {
        "[ -~é中\\\\\u{1}\u{2}]{0,6}"
    } else {
        "[ -~é中]{0,6}"
    };
    pattern
        .prop_map(move |s: String| {
            let mut t: String = s.chars().take(n as usize).collect();
            if pad {
                t.extend(std::iter::repeat_n(' ', n as usize - t.chars().count()));
            }
            Value::string(t)
        })
        .boxed()
}

fn date_days() -> impl Strategy<Value = i32> {
    let gap = (
        Date::from_ymd(1582, 10, 5).unwrap().days(),
        Date::from_ymd(1582, 10, 14).unwrap().days(),
    );
    (Date::from_ymd(1, 1, 1).unwrap().days()..=Date::from_ymd(9999, 12, 31).unwrap().days())
        .prop_filter("the 1582 gap", move |d| *d < gap.0 || *d > gap.1)
}

fn value_strategy(ty: &HiveType, o: &TextOptions) -> BoxedStrategy<Value> {
    let escaped = o.escape.is_some();
    let ascii = o.nesting == NestingLevels::ExtendedAdditional;
    let null_seq = o.null_sequence.clone();
    let non_null: BoxedStrategy<Value> = match ty.clone() {
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
        HiveType::String => text_strategy(escaped, ascii)
            .prop_filter("the null sequence", move |s| *s != null_seq)
            .prop_map(Value::String)
            .boxed(),
        HiveType::Varchar(n) => chars_strategy(n, false, escaped).boxed(),
        HiveType::Char(n) => chars_strategy(n, true, escaped).boxed(),
        HiveType::Binary => prop::collection::vec(any::<u8>(), 0..10)
            .prop_map(Value::Binary)
            .boxed(),
        HiveType::Date => date_days().prop_map(|d| Value::Date(Date(d))).boxed(),
        HiveType::Timestamp => (
            date_days(),
            0..86_400i64,
            prop_oneof![Just(0u32), 0..1_000_000_000u32],
        )
            .prop_map(|(d, s, n)| {
                Value::Timestamp(Timestamp::new(d as i64 * 86_400 + s, n).unwrap())
            })
            .boxed(),
        HiveType::Decimal { precision, scale } => {
            let max = 10i128.pow(precision as u32) - 1;
            (-max..=max)
                .prop_map(move |u| Value::Decimal(Decimal::new(u, scale).unwrap()))
                .boxed()
        }
        HiveType::Array(et) => prop::collection::vec(value_strategy(&et, o), 0..4)
            .prop_map(Value::Array)
            .boxed(),
        HiveType::Map(kt, vt) => {
            prop::collection::vec((value_strategy(&kt, o), value_strategy(&vt, o)), 0..4)
                .prop_map(move |entries| {
                    let mut kept: Vec<(Value, Value)> = Vec::new();
                    for (k, v) in entries {
                        let dup = kept.iter().any(|(k2, _)| match (&k, k2) {
                            (Value::Float(a), Value::Float(b)) => {
                                a.to_bits() == b.to_bits() && !a.is_nan()
                            }
                            (Value::Double(a), Value::Double(b)) => a == b,
                            _ => k == *k2,
                        });
                        if !k.is_null() && !dup {
                            kept.push((k, v));
                        }
                    }
                    Value::Map(kept)
                })
                .boxed()
        }
        HiveType::Struct(fields) => {
            let parts: Vec<BoxedStrategy<Value>> =
                fields.iter().map(|f| value_strategy(&f.ty, o)).collect();
            parts.prop_map(Value::Struct).boxed()
        }
        HiveType::Union(members) => {
            let arms: Vec<BoxedStrategy<Value>> = members
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    value_strategy(t, o)
                        .prop_map(move |v| Value::Union {
                            tag: i as u8,
                            value: Box::new(v),
                        })
                        .boxed()
                })
                .collect();
            prop::strategy::Union::new(arms).boxed()
        }
        other => panic!("no value strategy for {other}"),
    };
    prop_oneof![1 => Just(Value::Null), 6 => non_null].boxed()
}

/// True when text cannot tell `v` from another value (see the module doc).
fn ambiguous(ty: &HiveType, v: &Value, o: &TextOptions, top: bool) -> bool {
    // Renders as nothing at all / as the null sequence.
    fn empty(ty: &HiveType, v: &Value) -> bool {
        match (ty, v) {
            (_, Value::String(s)) | (_, Value::Binary(s)) => s.is_empty(),
            (_, Value::Array(a)) => a.is_empty() || (a.len() == 1 && element_empty(ty, &a[0])),
            (_, Value::Map(m)) => m.is_empty(),
            (HiveType::Struct(f), Value::Struct(s)) => s.len() == 1 && empty(&f[0].ty, &s[0]),
            _ => false,
        }
    }
    fn element_empty(ty: &HiveType, e: &Value) -> bool {
        matches!(ty, HiveType::Array(et) if empty(et, e))
    }
    fn null_like(ty: &HiveType, v: &Value) -> bool {
        match (ty, v) {
            (_, Value::Null) => true,
            (HiveType::Array(et), Value::Array(a)) => a.len() == 1 && null_like(et, &a[0]),
            (HiveType::Struct(f), Value::Struct(s)) => s.len() == 1 && null_like(&f[0].ty, &s[0]),
            _ => false,
        }
    }
    if !v.is_null() && null_like(ty, v) {
        return true;
    }
    if let Value::String(s) = v {
        if *s == o.null_sequence {
            return true;
        }
    }
    let _ = top;
    match (ty, v) {
        (HiveType::Array(et), Value::Array(items)) => {
            (items.len() == 1 && (empty(et, &items[0]) || null_like(et, &items[0])))
                || items.iter().any(|x| ambiguous(et, x, o, false))
        }
        (HiveType::Map(kt, vt), Value::Map(entries)) => entries
            .iter()
            .any(|(k, x)| ambiguous(kt, k, o, false) || ambiguous(vt, x, o, false)),
        (HiveType::Struct(fields), Value::Struct(vals)) => fields
            .iter()
            .zip(vals)
            .any(|(f, x)| ambiguous(&f.ty, x, o, false)),
        (HiveType::Union(members), Value::Union { tag, value }) => members
            .get(*tag as usize)
            .is_some_and(|t| ambiguous(t, value, o, false)),
        _ => false,
    }
}

fn typed_value() -> impl Strategy<Value = (TextOptions, HiveType, Value)> {
    options_strategy().prop_flat_map(|o| {
        let levels = o.nesting.count().min(6);
        let o2 = o.clone();
        type_strategy(levels).prop_flat_map(move |ty| {
            let o3 = o2.clone();
            (Just(o2.clone()), Just(ty.clone()), value_strategy(&ty, &o3))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn encode_then_decode_round_trips((o, ty, v) in typed_value()) {
        prop_assume!(!ambiguous(&ty, &v, &o, true));
        let serde = TextSerde::new(o);
        let mut cell = Vec::new();
        serde.encode(&ty, &v, &mut cell).unwrap();
        let back = serde.decode(&ty, &cell).unwrap();
        prop_assert!(back.same_as(&v), "{ty}: {v:?} -> {} -> {back:?}", show(&cell));
    }

    #[test]
    fn decode_never_panics(o in options_strategy(), ty in type_strategy(8), cell in prop::collection::vec(
        prop_oneof![4 => any::<u8>(), 4 => 0u8..9, 2 => Just(b'\\'), 2 => b'0'..=b'9', 1 => Just(b'-'), 1 => Just(b'.'), 1 => Just(b'N')], 0..40)) {
        let serde = TextSerde::new(o);
        let _ = serde.decode(&ty, &cell);
    }
}

#[test]
fn decode_is_hive_lenient() {
    let s = TextSerde::new(TextOptions::default());
    let d = |ty: &str, b: &[u8]| s.decode(&ty.parse().unwrap(), b).unwrap();
    assert_eq!(d("int", b""), Value::Null);
    assert_eq!(d("string", b""), Value::string(""));
    assert_eq!(d("binary", b""), Value::Binary(vec![]));
    assert_eq!(d("array<int>", b""), Value::Array(vec![]));
    assert_eq!(d("array<string>", b"\\N"), Value::Null);
    assert_eq!(
        d("array<string>", b"a\x02\\N"),
        Value::Array(vec![Value::string("a"), Value::Null])
    );
    assert_eq!(d("tinyint", b"128"), Value::Null);
    assert_eq!(d("smallint", b"-7.9"), Value::SmallInt(-7));
    assert_eq!(d("double", b" 1.5d "), Value::Double(1.5));
    assert_eq!(d("float", b"NaN "), Value::Null); // 4 bytes starting with N: isNumberMaybe
    assert_eq!(
        d("decimal(5,2)", b"1.005"),
        Value::Decimal(Decimal::new(101, 2).unwrap())
    );
    assert_eq!(
        d("date", b"1582-10-10"),
        Value::Date(Date::from_ymd(1582, 10, 20).unwrap())
    );
    assert_eq!(d("timestamp", b"2020-01-01"), Value::Null);
    assert_eq!(d("varchar(3)", b"ab\xffcd"), Value::string("ab\u{fffd}"));
    assert_eq!(d("char(3)", b"a"), Value::string("a  "));
}
