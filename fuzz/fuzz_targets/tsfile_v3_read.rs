//! See `colfile_fuzz::tsfile_v3_read` (fuzz/src/tsfile_v3_read.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_v3_read::run(data));
