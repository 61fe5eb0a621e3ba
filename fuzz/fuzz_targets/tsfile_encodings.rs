//! Any bytes as a page value stream, for every encoding × type: decode must never panic and
//! never produce more than the count it is given.
#![no_main]
use colfile::format::tsfile::{DataType, Encoding};
use colfile::tsfile::encoding::{decode, decode_exact, supports};
use colfile::tsfile::Values;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&sel, input)) = data.split_first() else { return };
    let encoding = Encoding::ALL[(sel as usize) % Encoding::ALL.len()];
    let data_type = DataType::ALL[(sel as usize / 16) % DataType::ALL.len()];
    if !supports(encoding, data_type) {
        return;
    }
    let Ok(mut out) = Values::for_type(data_type) else { return };
    if decode(encoding, data_type, input, 4096, &mut out).is_ok() {
        assert!(out.len() <= 4096);
    }
    let Ok(mut out) = Values::for_type(data_type) else { return };
    if decode_exact(encoding, data_type, input, 100, &mut out).is_ok() {
        assert_eq!(out.len(), 100);
    }
});
