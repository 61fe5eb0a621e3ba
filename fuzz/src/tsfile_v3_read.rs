//! Any bytes as a TsFile v3 file (the head is forced to `TsFile` + `03`): the sequential
//! scan, footer, index walk and every device's batches, then the `tsfile_tools` body
//! (`sketch`, `verify`, `recover` whose output must open). Must never panic; allocations are
//! capped by Limits.
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let mut bytes = b"TsFile\x03".to_vec();
    bytes.extend_from_slice(data.get(7..).unwrap_or_default());
    let data = bytes.as_slice();
    let limits = Limits::default().with_max_alloc_bytes(1 << 24);
    let _ = scan_data(data, &limits);
    if let Ok(r) = TsFileReader::open_with_limits(data, limits) {
        let _ = r.metadata().all_devices(&data);
        if let Ok(batches) = r.query(&Query::all()) {
            for b in batches.take(10_000) {
                if b.is_err() {
                    break;
                }
            }
        }
    }
    super::tsfile_tools::run(data);
}
