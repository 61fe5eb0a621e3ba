//! Replays every committed fuzz input (`fuzz/corpus/<target>/*`: the minimized corpora and
//! the crash regressions) through the fuzz targets' own bodies (`fuzz/src/`, included here),
//! so the stable test suite keeps what the fuzzers found fixed without cargo-fuzz.

#[path = "../fuzz/src/lib.rs"]
#[allow(dead_code)]
mod bodies;

use std::path::Path;

#[test]
fn every_committed_fuzz_input_replays_without_a_panic() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut replayed = 0;
    for (target, run) in bodies::TARGETS {
        let dir = root.join(target);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a directory entry").path())
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no inputs", dir.display());
        for f in &files {
            let data = std::fs::read(f).expect("a corpus file");
            let outcome = std::panic::catch_unwind(|| run(&data));
            assert!(outcome.is_ok(), "{target}: {} panics", f.display());
            replayed += 1;
        }
    }
    eprintln!("replayed {replayed} inputs");
}
