//! Any bytes through every codec's decoder with a declared size from the input: never a
//! panic, never more output than declared.
#![no_main]
use colfile::compress::HadoopCodec;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let expected = u16::from_le_bytes([data[0], data[1]]) as usize * 4;
    let c = HadoopCodec::ALL[data[2] as usize % HadoopCodec::ALL.len()];
    let Ok(mut codec) = c.codec() else { return };
    let mut out = Vec::new();
    if codec.decompress(&data[3..], &mut out, expected).is_ok() {
        assert_eq!(out.len(), expected);
    }
    assert!(out.len() <= expected);
});
