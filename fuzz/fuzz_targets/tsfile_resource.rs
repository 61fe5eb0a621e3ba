//! See `colfile_fuzz::tsfile_resource` (fuzz/src/tsfile_resource.rs), which `tests/fuzz_corpus.rs` also replays.
#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| colfile_fuzz::tsfile_resource::run(data));
