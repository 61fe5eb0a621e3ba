//! Byte ranges a read needs, turned into the fewer and larger requests it makes: sorted,
//! merged where they overlap or lie closer than a gap, and cut where one request would grow
//! too long.
//!
//! Over a network every request is a round trip, so reading 40 bytes of waste between two
//! wanted ranges costs far less than a second request; on a local disk the same merging
//! saves system calls. The gap and the longest request are the caller's choice
//! ([`RangePlan`]).

use std::ops::Range;

/// How wanted ranges become requests.
///
/// ```
/// use colfile::source::ranges::RangePlan;
/// let plan = RangePlan { gap: 10, max_request: 100 };
/// // 0..5 and 8..20 are 3 bytes apart: one request; 50..60 is 30 bytes away: another.
/// assert_eq!(plan.requests(vec![8..20, 0..5, 50..60]), vec![0..20, 50..60]);
/// // A gap is bridged only while the bytes bridged stay within the bytes wanted.
/// assert_eq!(plan.requests(vec![0..2, 10..12]), vec![0..2, 10..12]);
/// // A range longer than max_request is cut into pieces.
/// assert_eq!(plan.requests(vec![0..250]), vec![0..100, 100..200, 200..250]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RangePlan {
    /// Two ranges at most this many bytes apart are fetched as one request (the bytes
    /// between them are read and dropped).
    pub gap: u64,
    /// No request is longer than this (at least 1): a longer run is cut into pieces that can
    /// be fetched at once, side by side.
    pub max_request: u64,
}

impl Default for RangePlan {
    /// A 1 MiB gap and 8 MiB requests: the object-store crate's own coalescing gap, and
    /// requests long enough that a round trip costs little next to the transfer.
    fn default() -> Self {
        RangePlan {
            gap: 1 << 20,
            max_request: 8 << 20,
        }
    }
}

impl RangePlan {
    /// The requests that cover every non-empty range of `wanted`: sorted, not overlapping,
    /// none longer than [`max_request`](Self::max_request). Two ranges are fetched as one
    /// when the gap between them is at most [`gap`](Self::gap), smallest gaps first, so long
    /// as all the gap bytes read stay within the bytes wanted: a read never fetches more
    /// than twice what it needs.
    pub fn requests(&self, wanted: Vec<Range<u64>>) -> Vec<Range<u64>> {
        let runs = merge(wanted, 0);
        let need = total_len(&runs);
        // Gaps that may be bridged, smallest first, while their bytes fit in `need`; gap
        // `i` lies between runs `i` and `i + 1`.
        let mut gaps: Vec<(u64, usize)> = runs
            .iter()
            .zip(runs.iter().skip(1))
            .map(|(a, b)| b.start - a.end)
            .enumerate()
            .filter(|&(_, g)| g <= self.gap)
            .map(|(i, g)| (g, i))
            .collect();
        gaps.sort_unstable();
        let mut bridged = std::collections::HashSet::new();
        let mut spent = 0u64;
        for (g, i) in gaps {
            if spent + g > need {
                break;
            }
            spent += g;
            bridged.insert(i);
        }
        let mut joined: Vec<Range<u64>> = Vec::with_capacity(runs.len());
        for (i, r) in runs.into_iter().enumerate() {
            match joined.last_mut() {
                Some(last) if i > 0 && bridged.contains(&(i - 1)) => last.end = r.end,
                _ => joined.push(r),
            }
        }
        let max = self.max_request.max(1);
        let mut out: Vec<Range<u64>> = Vec::new();
        for r in joined {
            let mut s = r.start;
            while s < r.end {
                let e = r.end.min(s.saturating_add(max));
                out.push(s..e);
                s = e;
            }
        }
        out
    }
}

/// A set of byte ranges that grows one range at a time and knows how many bytes it covers.
#[derive(Clone, Debug, Default)]
pub struct RangeSet {
    /// start → end, disjoint and not touching.
    runs: std::collections::BTreeMap<u64, u64>,
    covered: u64,
}

impl RangeSet {
    /// Adds `r`; returns how many of its bytes were not yet covered.
    pub fn insert(&mut self, r: Range<u64>) -> u64 {
        if r.start >= r.end {
            return 0;
        }
        let (mut start, mut end) = (r.start, r.end);
        let before = self.covered;
        // Runs that touch or overlap [start, end] are absorbed.
        let first = self.runs.range(..start).next_back().map(|(&s, &e)| (s, e));
        let mut absorb: Vec<(u64, u64)> = first.filter(|&(_, e)| e >= start).into_iter().collect();
        absorb.extend(self.runs.range(start..=end).map(|(&s, &e)| (s, e)));
        for (s, e) in absorb {
            self.runs.remove(&s);
            self.covered -= e - s;
            start = start.min(s);
            end = end.max(e);
        }
        self.runs.insert(start, end);
        self.covered += end - start;
        self.covered - before
    }

    /// Bytes covered.
    pub fn covered(&self) -> u64 {
        self.covered
    }
}

/// Sorts `ranges` and merges those that overlap or are at most `gap` bytes apart; empty
/// ranges are dropped.
pub fn merge(mut ranges: Vec<Range<u64>>, gap: u64) -> Vec<Range<u64>> {
    ranges.retain(|r| r.start < r.end);
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<u64>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end.saturating_add(gap) => {
                last.end = last.end.max(r.end);
            }
            _ => out.push(r),
        }
    }
    out
}

/// Total length of `ranges` (overlaps counted once per range).
pub fn total_len(ranges: &[Range<u64>]) -> u64 {
    ranges.iter().map(|r| r.end.saturating_sub(r.start)).sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn covered(ranges: &[Range<u64>], x: u64) -> bool {
        ranges.iter().any(|r| r.contains(&x))
    }

    proptest! {
        #[test]
        fn requests_cover_exactly_what_was_wanted_plus_small_gaps(
            wanted in prop::collection::vec((0u64..2000, 0u64..300), 0..40),
            gap in 0u64..100,
            max in 1u64..500,
        ) {
            let wanted: Vec<Range<u64>> = wanted.into_iter().map(|(s, n)| s..s + n).collect();
            let plan = RangePlan { gap, max_request: max };
            let got = plan.requests(wanted.clone());
            // Sorted, disjoint, none empty, none too long.
            for w in got.windows(2) {
                prop_assert!(w[0].end <= w[1].start);
            }
            for r in &got {
                prop_assert!(r.start < r.end && r.end - r.start <= max);
            }
            // Every wanted byte is fetched; every fetched byte is wanted or in a gap no
            // longer than `gap` between wanted bytes.
            for x in 0..2400u64 {
                let w = covered(&wanted, x);
                let g = covered(&got, x);
                if w {
                    prop_assert!(g, "byte {} wanted but not fetched", x);
                }
                if g && !w {
                    let before = (x.saturating_sub(gap)..x).any(|y| covered(&wanted, y));
                    let after = (x + 1..=x + gap).any(|y| covered(&wanted, y));
                    prop_assert!(before && after, "byte {} fetched for nothing", x);
                }
            }
            // Bytes read for nothing are at most the bytes wanted.
            let need = total_len(&merge(wanted.clone(), 0));
            prop_assert!(total_len(&got) <= 2 * need);
            // When every gap is small and all of them fit in what is wanted, the requests
            // are one run, cut only at max_request.
            let runs = merge(wanted.clone(), 0);
            let gaps: Vec<u64> = runs.windows(2).map(|w| w[1].start - w[0].end).collect();
            if gaps.iter().all(|&g| g <= gap) && gaps.iter().sum::<u64>() <= need {
                for w in got.windows(2) {
                    prop_assert_eq!(w[0].end, w[1].start);
                }
            }
        }

        #[test]
        fn a_range_set_counts_each_byte_once(
            rs in prop::collection::vec((0u64..500, 0u64..60), 0..40),
        ) {
            let mut set = RangeSet::default();
            let mut seen = vec![false; 600];
            for (s, n) in rs {
                let new = seen[s as usize..(s + n) as usize].iter().filter(|x| !**x).count();
                prop_assert_eq!(set.insert(s..s + n), new as u64);
                seen[s as usize..(s + n) as usize].iter_mut().for_each(|x| *x = true);
                prop_assert_eq!(set.covered(), seen.iter().filter(|x| **x).count() as u64);
            }
        }
    }

    #[test]
    fn empty_and_touching_ranges() {
        assert!(merge(vec![5..5, 7..7], 0).is_empty());
        assert_eq!(merge(vec![0..5, 5..9], 0), vec![0..9]);
        assert_eq!(merge(vec![0..5, 6..9], 0), vec![0..5, 6..9]);
        assert_eq!(merge(vec![0..5, 6..9], 1), vec![0..9]);
        assert_eq!(total_len(&[0..5, 10..12]), 7);
    }
}
