//! See `colfile_fuzz::json_rows` (fuzz/src/json_rows.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::json_rows::run(data));
