//! Property tests: any Hive type and value encodes and decodes back unchanged.

use super::*;

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
