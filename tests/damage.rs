//! Systematic damage to every fixture (`fixtures/rcfile/*.rc`, `fixtures/tsfile/*.tsfile`):
//! truncation at every length (sampled around every structure boundary for larger files),
//! single-bit flips (every bit of the header and footer regions of small files, plus
//! fixed-seed random bits), and length or count fields found by parsing the file replaced by
//! huge values. Each damaged file is read completely inside `catch_unwind`: the only
//! acceptable outcomes are data or a typed `colfile::Error`. A last test reads the
//! length-damaged files with 64 MiB limits under a counting allocator and checks that no
//! single allocation went above the limit.
//!
//! Everything is deterministic (fixed seeds). The sampling sizes below keep the whole file
//! well under a minute in a debug build.

use colfile_testkit as common;
#[path = "common/counting_alloc.rs"]
mod counting_alloc;
#[path = "damage/mutate.rs"]
mod mutate;
#[path = "damage/rc.rs"]
mod rc;
#[path = "damage/ts.rs"]
mod ts;

use colfile::Limits;
use mutate::{any_error, cut_lengths, flip_bits, flipped, runs_for, seed_of, thin, Failures};

#[global_allocator]
static ALLOC: counting_alloc::Counting = counting_alloc::Counting;

/// RCFile fixtures up to this size are cut at every length.
const RC_EVERY_CUT: usize = 1 << 10;
/// RCFile fixtures up to this size get every bit of their header flipped.
const RC_SMALL: usize = 2 << 10;
/// Bytes of reading per RCFile fixture and test: damaged copies of a larger file are fewer.
const RC_BUDGET: usize = 512 << 10;
/// Fewest damaged copies of any RCFile fixture per test.
const RC_FLOOR: usize = 30;
/// Columns per row group whose key-section lengths are damaged.
const RC_COLUMNS: usize = 3;
/// TsFile fixtures up to this size are cut at every length.
const TS_EVERY_CUT: usize = 600;
/// TsFile fixtures up to this size get one bit of every byte of their footer flipped (the
/// bit position turns with the byte).
const TS_SMALL: usize = 450;
/// Bytes of reading per TsFile fixture and test (a TsFile read is a query, `verify` and
/// `sketch`, several times the work of an RCFile read).
const TS_BUDGET: usize = 100 << 10;
/// Fewest damaged copies of any TsFile fixture per test.
const TS_FLOOR: usize = 3;
/// Items of each kind (chunk groups, chunks, pages, index entries) whose lengths are damaged.
const TS_PER_KIND: usize = 3;

/// The cost of reading an RCFile fixture once, in bytes of [`RC_BUDGET`]: bzip2 decodes
/// about five times slower than the other codecs, and each compressed row group costs a
/// codec setup besides its bytes.
fn rc_cost(f: &rc::RcFixture) -> usize {
    let compressed = colfile::rcfile::RcFileReader::new(f.bytes.as_slice())
        .unwrap()
        .header()
        .codec
        .is_some();
    let groups = rc::structure(&f.bytes).1.len();
    let weight = if f.name.contains("bzip2") { 5 } else { 1 };
    f.bytes.len() * weight + if compressed { groups * (8 << 10) } else { 0 }
}

fn rc_runs(f: &rc::RcFixture) -> usize {
    runs_for(rc_cost(f), 1, RC_BUDGET, RC_FLOOR)
}

fn ts_runs(bytes: &[u8]) -> usize {
    runs_for(bytes.len(), 1, TS_BUDGET, TS_FLOOR)
}

/// The length-damaged copies of an RCFile fixture that the tests read.
fn rc_length_damage(f: &rc::RcFixture) -> Vec<rc::LengthDamage> {
    thin(
        rc::length_damage(&f.bytes, seed_of(&f.name), RC_COLUMNS),
        rc_runs(f),
    )
}

/// The length-damaged copies of a TsFile fixture that the tests read.
fn ts_length_damage(name: &str, bytes: &[u8]) -> Vec<ts::LengthDamage> {
    let s = ts::layout(bytes);
    let all = ts::length_damage(bytes, &s, seed_of(name), TS_PER_KIND);
    thin(all, ts_runs(bytes))
}

#[test]
fn rcfile_truncations() {
    let mut fails = Failures::default();
    for f in rc::fixtures() {
        let marks = rc::boundaries(&f.bytes);
        let runs = rc_runs(&f);
        let cuts = cut_lengths(f.bytes.len(), &marks, RC_EVERY_CUT, runs, seed_of(&f.name));
        let cuts = if f.bytes.len() <= RC_EVERY_CUT {
            cuts
        } else {
            thin(cuts, runs)
        };
        for n in cuts {
            fails.run(
                &f.name,
                &|| format!("truncated to {n} bytes"),
                || rc::read_fully(&f, &f.bytes[..n], Limits::default()),
                any_error,
            );
        }
    }
    fails.check("RCFile truncations");
}

#[test]
fn rcfile_bit_flips() {
    let mut fails = Failures::default();
    for f in rc::fixtures() {
        let (header, _) = rc::structure(&f.bytes);
        let whole = (f.bytes.len() <= RC_SMALL).then_some(0..header);
        let bits = flip_bits(
            f.bytes.len(),
            whole.as_slice(),
            rc_runs(&f),
            seed_of(&f.name),
        );
        for bit in bits {
            let b = flipped(&f.bytes, bit);
            fails.run(
                &f.name,
                &|| format!("bit {} of byte {} flipped", bit % 8, bit / 8),
                || rc::read_fully(&f, &b, Limits::default()),
                any_error,
            );
        }
    }
    fails.check("RCFile bit flips");
}

#[test]
fn rcfile_huge_lengths() {
    let mut fails = Failures::default();
    for f in rc::fixtures() {
        for d in rc_length_damage(&f) {
            fails.run(
                &f.name,
                &|| d.what.clone(),
                || rc::read_fully(&f, &d.bytes, Limits::default()),
                any_error,
            );
        }
    }
    fails.check("RCFile huge lengths");
}

#[test]
fn tsfile_truncations() {
    let mut fails = Failures::default();
    for (name, bytes) in ts::fixtures() {
        let s = ts::layout(&bytes);
        let marks = ts::boundaries(&bytes, &s);
        let runs = ts_runs(&bytes);
        let cuts = cut_lengths(bytes.len(), &marks, TS_EVERY_CUT, runs, seed_of(&name));
        let cuts = if bytes.len() <= TS_EVERY_CUT {
            cuts
        } else {
            thin(cuts, runs)
        };
        for n in cuts {
            fails.run(
                &name,
                &|| format!("truncated to {n} bytes"),
                || ts::read_fully(&bytes[..n], &Limits::default()),
                any_error,
            );
        }
    }
    fails.check("TsFile truncations");
}

#[test]
fn tsfile_bit_flips() {
    let mut fails = Failures::default();
    for (name, bytes) in ts::fixtures() {
        let s = ts::layout(&bytes);
        let whole = [0..7, bytes.len() - 10..bytes.len()];
        let runs = ts_runs(&bytes);
        let bits = flip_bits(bytes.len(), &whole, runs, seed_of(&name));
        // The head and tail bits count towards the budget of a large file.
        let mut bits = if runs < bits.len() / 2 {
            thin(bits, runs)
        } else {
            bits
        };
        if bytes.len() <= TS_SMALL {
            bits.extend(ts::footer_region(&s).map(|i| i * 8 + i % 8));
        }
        for bit in bits {
            let b = flipped(&bytes, bit);
            fails.run(
                &name,
                &|| format!("bit {} of byte {} flipped", bit % 8, bit / 8),
                || ts::read_fully(&b, &Limits::default()),
                any_error,
            );
        }
    }
    fails.check("TsFile bit flips");
}

#[test]
fn tsfile_huge_lengths() {
    let mut fails = Failures::default();
    for (name, bytes) in ts::fixtures() {
        for d in ts_length_damage(&name, &bytes) {
            fails.run(
                &name,
                &|| d.what.clone(),
                || ts::read_fully(&d.bytes, &Limits::default()),
                any_error,
            );
        }
    }
    fails.check("TsFile huge lengths");
}

/// Headroom above the 64 MiB limits for one allocation: everything a reader allocates beyond
/// the buffers that the limits bound (schemas, index entries, decoded values, error messages)
/// is proportional to bytes actually present in the file, and the largest fixture is 165 KB,
/// so even at 64 bytes of bookkeeping per file byte it stays under 16 MiB.
const SLACK: usize = 16 << 20;

/// The length-damaged files (and some bit flips) read with 64 MiB limits: no single
/// allocation goes above the limit (plus [`SLACK`]), however large the declared sizes are.
#[test]
fn damaged_reads_stay_within_alloc_limits() {
    const LIMIT: usize = 64 << 20;
    let limits = Limits::default()
        .with_max_alloc_bytes(LIMIT)
        .with_max_decompressed_bytes(LIMIT);
    let mut worst = (counting_alloc::Usage::default(), String::new());
    let mut worst_live = (0usize, String::new());
    let mut fails = Failures::default();
    let mut note = |usage: counting_alloc::Usage, what: String| {
        if usage.peak_single > worst.0.peak_single {
            worst = (usage, what.clone());
        }
        if usage.peak_live > worst_live.0 {
            worst_live = (usage.peak_live, what);
        }
    };
    for f in rc::fixtures() {
        let mut damaged = rc_length_damage(&f);
        for bit in flip_bits(f.bytes.len(), &[], 10, seed_of(&f.name) ^ 1) {
            damaged.push(rc::LengthDamage {
                what: format!("bit {bit} flipped"),
                bytes: flipped(&f.bytes, bit),
            });
        }
        for d in damaged {
            let (_, usage) = counting_alloc::measure(|| {
                fails.run(
                    &f.name,
                    &|| d.what.clone(),
                    || rc::read_fully(&f, &d.bytes, limits.clone()),
                    any_error,
                )
            });
            note(usage, format!("{}: {}", f.name, d.what));
        }
    }
    for (name, bytes) in ts::fixtures() {
        for d in ts_length_damage(&name, &bytes) {
            let (_, usage) = counting_alloc::measure(|| {
                fails.run(
                    &name,
                    &|| d.what.clone(),
                    || ts::read_fully(&d.bytes, &limits),
                    any_error,
                )
            });
            note(usage, format!("{name}: {}", d.what));
        }
    }
    fails.check("damaged reads under 64 MiB limits");
    let (usage, what) = worst;
    eprintln!(
        "largest single allocation {} bytes ({what}); most live {} bytes ({})",
        usage.peak_single, worst_live.0, worst_live.1
    );
    assert!(
        usage.peak_single <= LIMIT + SLACK,
        "{what}: one allocation of {} bytes with a limit of {LIMIT}",
        usage.peak_single
    );
    // The counter works: reading the largest fixture allocates something.
    assert!(usage.peak_single > 0, "the counting allocator saw nothing");
}
