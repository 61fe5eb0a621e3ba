//! See `colfile_fuzz::tsfile_encodings` (fuzz/src/tsfile_encodings.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_encodings::run(data));
