//! Any bytes as a TsFile for the tools: `sketch` (the sequential scan and index walk),
//! `verify` (every page decoded, statistics recomputed) and `recover` (the rebuilt file must
//! open). None may panic; allocations are capped by Limits.
use colfile::tsfile::tools::sketch::sketch;
use colfile::tsfile::TsFileReader;
use colfile::tsfile::{recover_with, RecoverOptions};
use colfile::tsfile::{verify, VerifyOptions};
use colfile::Limits;

/// The target body.
pub fn run(data: &[u8]) {
    let limits = Limits::default().with_max_alloc_bytes(1 << 24);
    if let Ok(s) = sketch(data, &limits) {
        let _ = s.to_text();
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
        // What recover writes must be a file our reader opens.
        assert!(TsFileReader::open_with_limits(out.as_slice(), limits).is_ok());
    }
}
