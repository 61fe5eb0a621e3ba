//! Any bytes as a TsFile: footer, index walk, every device's batches, metadata JSON.
//! Must never panic; allocations are capped by Limits.
#![no_main]
use colfile::tsfile::{meta_json, Query, TsFileReader};
use colfile::Limits;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let limits = Limits::default().with_max_alloc_bytes(1 << 24);
    let Ok(r) = TsFileReader::open_with_limits(data, limits) else { return };
    let _ = meta_json::metadata_json(&r, true);
    if let Ok(batches) = r.query(&Query::all()) {
        for b in batches.take(10_000) {
            if b.is_err() {
                break;
            }
        }
    }
});
