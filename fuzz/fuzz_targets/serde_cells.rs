//! See `colfile_fuzz::serde_cells` (fuzz/src/serde_cells.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::serde_cells::run(data));
