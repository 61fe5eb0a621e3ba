//! Typed end-to-end property test: random schemas (nested types included), random rows,
//! random row-group cuts and codecs, both serdes: RowWriter -> bytes -> RowReader gives the
//! same values, and three splits of the file give them too. Value domains avoid what the
//! text format cannot represent (documented in the text serde: `[""]`, `[NULL]`, strings
//! equal to the null sequence or containing separators).

use colfile::compress::HadoopCodec;
use colfile::rcfile::{
    Date, Decimal, Field, HiveType, RcFileReader, RcFileWriter, RowReader, RowWriter, Schema,
    Serde, Timestamp, Value,
};
use proptest::prelude::*;

fn leaf() -> impl Strategy<Value = HiveType> {
    prop_oneof![
        Just(HiveType::Boolean),
        Just(HiveType::TinyInt),
        Just(HiveType::SmallInt),
        Just(HiveType::Int),
        Just(HiveType::BigInt),
        Just(HiveType::Float),
        Just(HiveType::Double),
        Just(HiveType::String),
        Just(HiveType::Binary),
        Just(HiveType::Date),
        Just(HiveType::Timestamp),
        Just(HiveType::Decimal {
            precision: 10,
            scale: 2
        }),
    ]
}

fn hive_type() -> impl Strategy<Value = HiveType> {
    leaf().prop_recursive(2, 8, 3, |inner| {
        prop_oneof![
            inner.clone().prop_map(|t| HiveType::Array(Box::new(t))),
            inner
                .clone()
                .prop_map(|t| HiveType::Map(Box::new(HiveType::String), Box::new(t))),
            (inner.clone(), inner).prop_map(|(a, b)| HiveType::Struct(vec![
                Field {
                    name: "a".into(),
                    ty: a
                },
                Field {
                    name: "b".into(),
                    ty: b
                },
            ])),
        ]
    })
}

/// A value of `ty`; `nested` values may be NULL only when `nulls_inside` (binary serde).
fn value(ty: &HiveType, top: bool, nulls_inside: bool) -> BoxedStrategy<Value> {
    let text = "[a-z0-9]{1,8}";
    let v: BoxedStrategy<Value> = match ty {
        HiveType::Boolean => any::<bool>().prop_map(Value::Boolean).boxed(),
        HiveType::TinyInt => any::<i8>().prop_map(Value::TinyInt).boxed(),
        HiveType::SmallInt => any::<i16>().prop_map(Value::SmallInt).boxed(),
        HiveType::Int => any::<i32>().prop_map(Value::Int).boxed(),
        HiveType::BigInt => any::<i64>().prop_map(Value::BigInt).boxed(),
        HiveType::Float => (-1e6f32..1e6).prop_map(Value::Float).boxed(),
        HiveType::Double => any::<f64>()
            .prop_filter("finite", |x| x.is_finite())
            .prop_map(Value::Double)
            .boxed(),
        HiveType::String => text.prop_map(Value::string).boxed(),
        HiveType::Binary => proptest::collection::vec(any::<u8>(), 1..8)
            .prop_map(Value::Binary)
            .boxed(),
        HiveType::Date => (-25_000i32..50_000)
            .prop_map(|d| Value::Date(Date(d)))
            .boxed(),
        HiveType::Timestamp => (-2_000_000_000i64..4_000_000_000, 0u32..1_000_000_000)
            .prop_map(|(s, n)| {
                Value::Timestamp(Timestamp {
                    seconds: s,
                    nanos: n,
                })
            })
            .boxed(),
        HiveType::Decimal { .. } => (-99_999_999i128..99_999_999)
            .prop_map(|u| {
                Value::Decimal(Decimal {
                    unscaled: u,
                    scale: 2,
                })
            })
            .boxed(),
        HiveType::Array(et) => proptest::collection::vec(value(et, false, nulls_inside), 1..4)
            .prop_map(Value::Array)
            .boxed(),
        HiveType::Map(kt, vt) => proptest::collection::vec(
            (value(kt, false, false), value(vt, false, nulls_inside)),
            1..4,
        )
        .prop_map(|mut es| {
            // Keys are unique (Hive's reader keeps one entry per key).
            let mut seen = std::collections::HashSet::new();
            es.retain(|(k, _)| seen.insert(format!("{k:?}")));
            Value::Map(es)
        })
        .boxed(),
        HiveType::Struct(fs) => {
            let parts: Vec<_> = fs
                .iter()
                .map(|f| value(&f.ty, false, nulls_inside))
                .collect();
            parts.prop_map(Value::Struct).boxed()
        }
        _ => Just(Value::Null).boxed(),
    };
    if top || nulls_inside {
        prop_oneof![1 => Just(Value::Null), 6 => v].boxed()
    } else {
        v
    }
}

fn case() -> impl Strategy<Value = (bool, Schema, Vec<Vec<Value>>, usize, Option<HadoopCodec>)> {
    (any::<bool>(), proptest::collection::vec(hive_type(), 1..5)).prop_flat_map(
        |(binary, types)| {
            let schema = Schema::new(
                types
                    .iter()
                    .enumerate()
                    .map(|(i, t)| Field {
                        name: format!("c{i}"),
                        ty: t.clone(),
                    })
                    .collect(),
            );
            let row: Vec<_> = types.iter().map(|t| value(t, true, binary)).collect();
            let codec = prop_oneof![
                Just(None),
                Just(Some(HadoopCodec::Snappy)),
                Just(Some(HadoopCodec::Default))
            ];
            (
                Just(binary),
                Just(schema),
                proptest::collection::vec(row, 0..60),
                1usize..20,
                codec,
            )
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn typed_rows_round_trip((binary, schema, rows, group_rows, codec) in case()) {
        let serde = if binary { Serde::binary() } else { Serde::text() };
        let w = RcFileWriter::builder(Vec::new(), schema.len())
            .with_codec(codec)
            .with_row_group_rows(group_rows)
            .with_validation(true)
            .build()
            .unwrap();
        let mut w = RowWriter::new(w, schema.clone(), serde.clone());
        for r in &rows {
            w.write(r).unwrap();
        }
        let (bytes, summary) = w.finish_into_inner().unwrap();
        prop_assert_eq!(summary.rows, rows.len() as u64);
        let read = |range: Option<std::ops::Range<u64>>| {
            let mut b = RcFileReader::builder(bytes.as_slice());
            if let Some(r) = range {
                b = b.with_split(r);
            }
            let reader = b.build().unwrap();
            let mut rr = RowReader::from_reader(reader, schema.clone(), serde.clone(), (0..schema.len()).collect());
            let mut out = Vec::new();
            while let Some(row) = rr.next_row().unwrap() {
                out.push(row.to_vec());
            }
            out
        };
        let check = |got: &[Vec<Value>]| {
            got.len() == rows.len()
                && got.iter().zip(&rows).all(|(g, w)| g.iter().zip(w).all(|(a, b)| a.same_as(b)))
        };
        let all = read(None);
        prop_assert!(check(&all), "{} serde, schema {}: {:?}\nvs {:?}", serde.short_name(), schema, all, rows);
        let len = bytes.len() as u64;
        let mut parts = read(Some(0..len / 3));
        parts.extend(read(Some(len / 3..2 * len / 3)));
        parts.extend(read(Some(2 * len / 3..len)));
        prop_assert!(check(&parts), "splits of {len} bytes");
    }
}
