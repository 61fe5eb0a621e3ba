//! Any bytes as a TsFile v3 file (the head is forced to `TsFile` + `03`): footer, index walk,
//! every device's batches, the sequential scan, `verify` and `recover` (whose output must
//! open). Must never panic; allocations are capped by Limits.
use colfile::tsfile::tools::layout::scan_data;
use colfile::tsfile::{recover_with, verify, RecoverOptions, VerifyOptions};
use colfile::tsfile::{Query, TsFileReader};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let mut bytes = b"TsFile\x03".to_vec();
    bytes.extend_from_slice(data.get(7..).unwrap_or_default());
    let data = bytes.as_slice();
    let limits = Limits::default().with_max_alloc_bytes(1 << 24);
    let _ = scan_data(data, &limits);
    if let Ok(r) = TsFileReader::open_with_limits(data, limits.clone()) {
        let _ = r.metadata().all_devices(&data);
        if let Ok(batches) = r.query(&Query::all()) {
            for b in batches.take(10_000) {
                if b.is_err() {
                    break;
                }
            }
        }
    }
    let opts = VerifyOptions {
        limits: limits.clone(),
        ..VerifyOptions::default()
    };
    let _ = verify(data, &opts);
    let opts = RecoverOptions {
        limits: limits.clone(),
        ..RecoverOptions::default()
    };
    let mut out = Vec::new();
    if recover_with(data, &mut out, &opts).is_ok() {
        // A recovered v3 file stays v3 and must open.
        let r = TsFileReader::open_with_limits(out.as_slice(), limits);
        assert!(r.is_ok_and(|r| r.metadata().version() == 3));
    }
}
