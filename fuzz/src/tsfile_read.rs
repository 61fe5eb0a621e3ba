//! Any bytes as a TsFile: footer, index walk, every device's batches, metadata JSON.
//! Must never panic; allocations are capped by Limits.
use colfile::tsfile::tools::meta_json;
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let limits = Limits::default().with_max_alloc_bytes(1 << 24);
    let Ok(r) = TsFileReader::open_with_limits(data, limits) else {
        return;
    };
    let _ = meta_json::metadata_json(&r, true);
    if let Ok(batches) = r.query(&Query::all()) {
        for b in batches.take(10_000) {
            if b.is_err() {
                break;
            }
        }
    }
}
