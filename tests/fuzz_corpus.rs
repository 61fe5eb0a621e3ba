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

/// A stand-in for cargo-fuzz where it is not installed: random byte flips, cuts and
/// insertions of a target's corpus through its body (`COLFILE_MUTATE_TARGET`, default
/// `tsfile_v3_read`), for `COLFILE_MUTATE_SECS` seconds (default 60). Run by hand, in release:
/// `cargo test --release --test fuzz_corpus -- --ignored mutate --nocapture`. A panicking
/// input is written to `target/mutate-crash` and fails the test.
#[test]
#[ignore]
fn mutate_v3_corpus() {
    let target = std::env::var("COLFILE_MUTATE_TARGET").unwrap_or("tsfile_v3_read".into());
    let Some(&(_, body)) = bodies::TARGETS.iter().find(|(t, _)| *t == target) else {
        panic!("no fuzz target {target}");
    };
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(&target);
    let seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    let secs: u64 = std::env::var("COLFILE_MUTATE_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move |n: usize| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % n.max(1) as u64) as usize
    };
    let end = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let mut runs = 0u64;
    while std::time::Instant::now() < end {
        let mut b = seeds[next(seeds.len())].clone();
        for _ in 0..1 + next(4) {
            let at = next(b.len());
            match next(4) {
                0 => b.truncate(at.max(7)),
                1 => b.insert(at, next(256) as u8),
                _ if !b.is_empty() => b[at] = next(256) as u8,
                _ => {}
            }
        }
        if std::panic::catch_unwind(|| body(&b)).is_err() {
            let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/mutate-crash");
            std::fs::write(&out, &b).unwrap();
            panic!("{target} panics on {} (after {runs} runs)", out.display());
        }
        runs += 1;
    }
    eprintln!("{target}: {runs} mutated inputs, no panic");
}
