//! See `colfile_fuzz::tsfile_read` (fuzz/src/tsfile_read.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_read::run(data));
