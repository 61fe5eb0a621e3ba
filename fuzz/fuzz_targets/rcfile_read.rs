//! See `colfile_fuzz::rcfile_read` (fuzz/src/rcfile_read.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::rcfile_read::run(data));
