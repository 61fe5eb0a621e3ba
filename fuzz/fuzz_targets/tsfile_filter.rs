//! See `colfile_fuzz::tsfile_filter` (fuzz/src/tsfile_filter.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_filter::run(data));
