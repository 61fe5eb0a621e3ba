//! Any bytes as a page value stream, for every encoding × type (the first byte: encoding
//! index + 16 × type index). Decoding must never panic nor produce more than the count it is
//! given; what decodes must encode, and that stream must decode to the same values.
use colfile::tsfile::encoding::{decode, decode_exact, encode, supports, EncodeOptions};
use colfile::tsfile::format::{DataType, Encoding};
use colfile::tsfile::{ValueRef, Values};

/// Same value: floats by bits, except that any NaN equals any NaN (GORILLA, GORILLA_V1 and
/// CAMEL keep NaN but not every payload).
pub fn same_value(a: ValueRef<'_>, b: ValueRef<'_>) -> bool {
    match (a, b) {
        (ValueRef::Float(x), ValueRef::Float(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        (ValueRef::Double(x), ValueRef::Double(y)) => {
            x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
        }
        _ => a == b,
    }
}

/// Whether `encoding` stores every `data_type` value exactly (TS_2DIFF and RLE keep
/// FLOAT/DOUBLE at `max_point_number` decimals).
pub fn exact(encoding: Encoding, data_type: DataType) -> bool {
    !(matches!(encoding, Encoding::Ts2Diff | Encoding::Rle)
        && matches!(data_type, DataType::Float | DataType::Double))
}

/// The target body.
pub fn run(data: &[u8]) {
    let Some((&sel, input)) = data.split_first() else {
        return;
    };
    let encoding = Encoding::ALL[(sel as usize) % Encoding::ALL.len()];
    let data_type = DataType::ALL[(sel as usize / 16) % DataType::ALL.len()];
    if !supports(encoding, data_type) {
        return;
    }
    let Ok(mut out) = Values::for_type(data_type) else {
        return;
    };
    if decode(encoding, data_type, input, 4096, &mut out).is_ok() {
        assert!(out.len() <= 4096);
        reencode(encoding, data_type, &out);
    }
    let Ok(mut out) = Values::for_type(data_type) else {
        return;
    };
    if decode_exact(encoding, data_type, input, 100, &mut out).is_ok() {
        assert_eq!(out.len(), 100);
    }
}

/// Encodes `values` (as both writer profiles would) and decodes them back by count.
fn reencode(encoding: Encoding, data_type: DataType, values: &Values) {
    if !exact(encoding, data_type) {
        return;
    }
    for runs in [false, true] {
        let mut bytes = Vec::new();
        let options = EncodeOptions::default().with_rle_runs(runs);
        // GORILLA refuses integers equal to its sentinel, which a stream can hold as data.
        if encode(encoding, data_type, values, &options, &mut bytes).is_err() {
            return;
        }
        let mut back = Values::for_type(data_type).expect("a decodable type");
        decode_exact(encoding, data_type, &bytes, values.len(), &mut back).unwrap_or_else(|e| {
            panic!("{encoding} {data_type}: re-encoded stream does not decode: {e}")
        });
        for i in 0..values.len() {
            let (a, b) = (values.get(i), back.get(i));
            let same = matches!((a, b), (Some(a), Some(b)) if same_value(a, b));
            assert!(
                same,
                "{encoding} {data_type} value {i}: {a:?} read back as {b:?}"
            );
        }
    }
}
