//! Any bytes as one cell of a type from [`super::HIVE_TYPES`] (chosen by the first byte),
//! through both serdes. Nothing may panic, and what decodes and encodes again must be in its
//! canonical form: decoding those bytes and encoding again gives the same bytes.
use colfile::rcfile::{HiveType, Serde};

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
