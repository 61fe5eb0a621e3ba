//! Any bytes as one cell of a type from [`super::HIVE_TYPES`] (chosen by the first byte),
//! through both serdes. Nothing may panic, and what decodes and encodes again must be in its
//! canonical form: decoding those bytes and encoding again gives the same bytes.
//!
//! One exception, Hive's own: the text serde reads timestamps as `java.sql.Timestamp.valueOf`
//! does, leniently (`2024-11-02 0377777777:04:05` is an hour count that carries into the
//! year 45121), but writes them as `Timestamp.toString`, and a year of more than four digits
//! does not read back (it is NULL, in Hive and here). Such values are not held to the
//! canonical form.
use colfile::rcfile::{HiveType, Serde, Value};

/// True when `v` holds a timestamp (or date) outside years 0..=9999 anywhere inside it.
fn far_year(v: &Value) -> bool {
    match v {
        Value::Timestamp(t) => !(0..=9999).contains(&t.date().ymd().0),
        Value::Date(d) => !(0..=9999).contains(&d.ymd().0),
        Value::Array(xs) | Value::Struct(xs) => xs.iter().any(far_year),
        Value::Map(kv) => kv.iter().any(|(k, x)| far_year(k) || far_year(x)),
        Value::Union { value, .. } => far_year(value),
        _ => false,
    }
}

/// The target body.
pub fn run(data: &[u8]) {
    let Some((&sel, cell)) = data.split_first() else {
        return;
    };
    let types = super::HIVE_TYPES;
    let ty: HiveType = types[sel as usize % types.len()]
        .parse()
        .expect("a valid type");
    for serde in [Serde::text(), Serde::binary()] {
        let Ok(v) = serde.decode(&ty, cell) else {
            continue;
        };
        let mut once = Vec::new();
        if serde.encode(&ty, &v, &mut once).is_err() {
            continue;
        }
        let again = serde
            .decode(&ty, &once)
            .unwrap_or_else(|e| panic!("{ty:?}: re-encoded {once:?} does not decode: {e}"));
        if serde.short_name() == "text" && far_year(&v) {
            continue;
        }
        let mut twice = Vec::new();
        serde
            .encode(&ty, &again, &mut twice)
            .unwrap_or_else(|e| panic!("{ty:?}: {again:?} decoded but does not encode: {e}"));
        assert_eq!(
            once,
            twice,
            "{ty:?} with {}: not canonical",
            serde.short_name()
        );
    }
}
