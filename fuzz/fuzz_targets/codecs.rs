//! See `colfile_fuzz::codecs` (fuzz/src/codecs.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::codecs::run(data));
