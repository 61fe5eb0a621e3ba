//! See `colfile_fuzz::tsfile_roundtrip` (fuzz/src/tsfile_roundtrip.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_roundtrip::run(data));
