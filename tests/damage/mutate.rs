//! Deterministic damage: truncation lengths, bit flips and replaced length fields, and the
//! harness that runs a reader on each damaged file inside `catch_unwind`.

use std::collections::BTreeSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// A small fixed-seed generator (SplitMix64), so every run damages the same bytes.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// A seed from a fixture name, so each fixture gets its own fixed damage.
pub fn seed_of(name: &str) -> u64 {
    name.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Lengths to cut a `len`-byte file to: all of them when `len <= every_up_to`; otherwise
/// every length within 2 bytes of each structure boundary in `marks`, the last 64 bytes, and
/// fixed-seed random lengths up to `budget` in all.
pub fn cut_lengths(
    len: usize,
    marks: &[usize],
    every_up_to: usize,
    budget: usize,
    seed: u64,
) -> Vec<usize> {
    if len <= every_up_to {
        return (0..len).collect();
    }
    let mut cuts = BTreeSet::new();
    for &m in marks {
        for d in 0..=4 {
            let c = (m + d).saturating_sub(2);
            if c < len {
                cuts.insert(c);
            }
        }
    }
    cuts.extend(len.saturating_sub(64)..len);
    let mut rng = Rng::new(seed);
    while cuts.len() < budget.min(len) {
        cuts.insert(rng.below(len));
    }
    cuts.into_iter().collect()
}

/// Bit positions to flip: every bit of the byte ranges in `whole`, then fixed-seed random bits
/// of the file up to `random` more.
pub fn flip_bits(
    len: usize,
    whole: &[std::ops::Range<usize>],
    random: usize,
    seed: u64,
) -> Vec<usize> {
    let mut bits = BTreeSet::new();
    for r in whole {
        bits.extend(r.start * 8..r.end.min(len) * 8);
    }
    let mut rng = Rng::new(seed ^ 0x5eed);
    let target = (bits.len() + random).min(len * 8);
    while bits.len() < target {
        bits.insert(rng.below(len * 8));
    }
    bits.into_iter().collect()
}

/// At most `max` items of `v`, evenly spread over it (all of them if there are fewer).
pub fn thin<T>(v: Vec<T>, max: usize) -> Vec<T> {
    let n = v.len();
    if n <= max {
        return v;
    }
    v.into_iter()
        .enumerate()
        .filter(|(i, _)| (i * max) % n < max)
        .map(|(_, x)| x)
        .collect()
}

/// How many damaged copies of a `len`-byte file to read: `budget` bytes of reading
/// (`weight` per file byte) shared out, but never fewer than `floor`.
pub fn runs_for(len: usize, weight: usize, budget: usize, floor: usize) -> usize {
    (budget / (len * weight).max(1)).max(floor)
}

/// `bytes` with bit `bit` flipped.
pub fn flipped(bytes: &[u8], bit: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[bit / 8] ^= 1 << (bit % 8);
    b
}

/// `bytes` with `range` replaced by `with` (which may be longer or shorter).
pub fn spliced(bytes: &[u8], range: std::ops::Range<usize>, with: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(bytes.len() + with.len());
    b.extend_from_slice(&bytes[..range.start]);
    b.extend_from_slice(with);
    b.extend_from_slice(&bytes[range.end..]);
    b
}

/// Collects what went wrong over many damaged files and fails once at the end with all of it.
#[derive(Default)]
pub struct Failures {
    list: Vec<String>,
    pub runs: usize,
}

impl Failures {
    /// Runs `read` on one damaged file. A panic, or an error that `acceptable` refuses, is
    /// recorded with the fixture, the damage and its offset.
    pub fn run<T>(
        &mut self,
        fixture: &str,
        damage: &dyn Fn() -> String,
        read: impl FnOnce() -> colfile::Result<T>,
        acceptable: impl FnOnce(&colfile::Error) -> bool,
    ) {
        self.runs += 1;
        match catch_unwind(AssertUnwindSafe(read)) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) => {
                if !acceptable(&e) {
                    self.list
                        .push(format!("{fixture}: {}: unexpected error {e}", damage()));
                }
            }
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                self.list
                    .push(format!("{fixture}: {}: PANIC {msg}", damage()));
            }
        }
    }

    /// Fails with every recorded failure (the first 40 in full).
    pub fn check(self, what: &str) {
        assert!(self.runs > 0, "{what}: nothing ran");
        if !self.list.is_empty() {
            let shown: Vec<_> = self.list.iter().take(40).cloned().collect();
            panic!(
                "{what}: {} of {} damaged reads failed:\n{}",
                self.list.len(),
                self.runs,
                shown.join("\n")
            );
        }
    }
}

/// Any typed error is an acceptable outcome for damaged input.
pub fn any_error(_: &colfile::Error) -> bool {
    true
}
