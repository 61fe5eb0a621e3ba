//! See `colfile_fuzz::tsfile_tools` (fuzz/src/tsfile_tools.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_tools::run(data));
