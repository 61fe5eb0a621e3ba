//! See `colfile_fuzz::rcfile_roundtrip` (fuzz/src/rcfile_roundtrip.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::rcfile_roundtrip::run(data));
