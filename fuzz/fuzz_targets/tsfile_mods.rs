//! See `colfile_fuzz::tsfile_mods` (fuzz/src/tsfile_mods.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_mods::run(data));
