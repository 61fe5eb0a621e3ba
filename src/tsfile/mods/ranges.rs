//! [`TimeRanges`] (sorted, merged, inclusive time ranges) and [`DeletedRanges`] (those ranges
//! grouped by the file offset before which they apply).

/// Disjoint inclusive time ranges in ascending order, adjacent ranges merged.
///
/// ```
/// use colfile::tsfile::mods::TimeRanges;
/// let r = TimeRanges::from_ranges([(5, 9), (1, 3), (4, 4)]);
/// assert_eq!(r.ranges(), &[(1, 9)]);
/// assert!(r.contains(7) && !r.contains(10));
/// assert!(r.covers(2, 9) && !r.covers(0, 9));
/// assert!(r.overlaps(9, 20) && !r.overlaps(10, 20));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TimeRanges {
    ranges: Vec<(i64, i64)>,
}

impl TimeRanges {
    /// Sorts and merges `(start, end)` pairs; pairs with `start > end` are empty and dropped.
    pub fn from_ranges(ranges: impl IntoIterator<Item = (i64, i64)>) -> Self {
        let mut v: Vec<(i64, i64)> = ranges.into_iter().filter(|(s, e)| s <= e).collect();
        v.sort_unstable();
        let mut out: Vec<(i64, i64)> = Vec::with_capacity(v.len());
        for (s, e) in v {
            match out.last_mut() {
                Some(last) if s <= last.1.saturating_add(1) => last.1 = last.1.max(e),
                _ => out.push((s, e)),
            }
        }
        TimeRanges { ranges: out }
    }

    /// The ranges, ascending and disjoint.
    pub fn ranges(&self) -> &[(i64, i64)] {
        &self.ranges
    }

    /// Every time in either `self` or `other`.
    ///
    /// ```
    /// use colfile::tsfile::mods::TimeRanges;
    /// let a = TimeRanges::from_ranges([(1, 3)]);
    /// assert_eq!(a.union(&TimeRanges::from_ranges([(4, 6)])).ranges(), &[(1, 6)]);
    /// ```
    pub fn union(&self, other: &TimeRanges) -> TimeRanges {
        TimeRanges::from_ranges(self.ranges.iter().chain(&other.ranges).copied())
    }

    /// The times in both `self` and `other`.
    ///
    /// ```
    /// use colfile::tsfile::mods::TimeRanges;
    /// let a = TimeRanges::from_ranges([(1, 5), (8, 9)]);
    /// let b = TimeRanges::from_ranges([(4, 8)]);
    /// assert_eq!(a.intersection(&b).ranges(), &[(4, 5), (8, 8)]);
    /// ```
    pub fn intersection(&self, other: &TimeRanges) -> TimeRanges {
        let (mut i, mut j) = (0, 0);
        let mut out = Vec::new();
        while let (Some(&(a0, a1)), Some(&(b0, b1))) = (self.ranges.get(i), other.ranges.get(j)) {
            let (lo, hi) = (a0.max(b0), a1.min(b1));
            if lo <= hi {
                out.push((lo, hi));
            }
            if a1 < b1 {
                i += 1;
            } else {
                j += 1;
            }
        }
        TimeRanges { ranges: out }
    }

    /// True when nothing is deleted.
    pub fn is_empty(&self) -> bool {
        self.ranges.is_empty()
    }

    /// The first range that ends at or after `t`.
    fn first_ending_from(&self, t: i64) -> Option<&(i64, i64)> {
        let i = self.ranges.partition_point(|r| r.1 < t);
        self.ranges.get(i)
    }

    /// Whether `t` is deleted.
    pub fn contains(&self, t: i64) -> bool {
        self.first_ending_from(t).is_some_and(|r| r.0 <= t)
    }

    /// Whether every time in `[min, max]` is deleted (a page or chunk whose statistics say
    /// `[min, max]` can be skipped without decoding).
    pub fn covers(&self, min: i64, max: i64) -> bool {
        min > max
            || self
                .first_ending_from(min)
                .is_some_and(|r| r.0 <= min && r.1 >= max)
    }

    /// Whether some time in `[min, max]` is deleted (the statistics of a page or chunk
    /// spanning `[min, max]` may no longer hold: decode it).
    pub fn overlaps(&self, min: i64, max: i64) -> bool {
        min <= max && self.first_ending_from(min).is_some_and(|r| r.0 <= max)
    }
}

/// The time ranges deleted from one series, each applying to chunks whose header starts
/// before a file offset (text `.mods`, rule D3) or to every chunk (`.mods2`).
///
/// Get one from [`Modifications::for_series`](super::Modifications::for_series) once per
/// series, then ask per chunk: [`for_chunk`](Self::for_chunk) gives the merged ranges that
/// apply to a chunk, on which per-point and per-page questions are binary searches.
///
/// ```
/// use colfile::tsfile::mods::DeletedRanges;
/// let r = DeletedRanges::from_spans([(0, 9, Some(100)), (20, 29, None)]);
/// assert_eq!(r.for_chunk(50).ranges(), &[(0, 9), (20, 29)]);
/// assert_eq!(r.for_chunk(100).ranges(), &[(20, 29)]);
/// assert!(r.deletes(50, 5) && !r.deletes(100, 5));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeletedRanges {
    /// `(limit, ranges)`: the ranges apply to chunks starting before `limit` (`None`: all),
    /// sorted by limit, `None` last, each limit once.
    groups: Vec<(Option<u64>, TimeRanges)>,
}

impl DeletedRanges {
    /// Builds from `(start, end, file_offset)` spans (`file_offset` as in
    /// [`Deletion::file_offset`](super::Deletion::file_offset)).
    pub fn from_spans(spans: impl IntoIterator<Item = (i64, i64, Option<i64>)>) -> Self {
        type Group = (Option<u64>, Vec<(i64, i64)>);
        let mut by_limit: Vec<Group> = Vec::new();
        for (s, e, off) in spans {
            // A negative offset applies to no chunk: limit 0.
            let limit = off.map(|o| u64::try_from(o).unwrap_or(0));
            match by_limit.iter_mut().find(|(l, _)| *l == limit) {
                Some((_, v)) => v.push((s, e)),
                None => by_limit.push((limit, vec![(s, e)])),
            }
        }
        let mut groups: Vec<(Option<u64>, TimeRanges)> = by_limit
            .into_iter()
            .map(|(l, v)| (l, TimeRanges::from_ranges(v)))
            .filter(|(l, r)| !r.is_empty() && *l != Some(0))
            .collect();
        groups.sort_by_key(|(l, _)| (l.is_none(), *l));
        DeletedRanges { groups }
    }

    /// True when nothing in the series is deleted, whatever the chunk.
    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// Groups that apply to a chunk at `chunk_offset`.
    fn applying(&self, chunk_offset: u64) -> impl Iterator<Item = &TimeRanges> {
        self.groups
            .iter()
            .filter(move |(l, _)| l.is_none_or(|l| chunk_offset < l))
            .map(|(_, r)| r)
    }

    /// The merged ranges that apply to the chunk whose header is at `chunk_offset`.
    pub fn for_chunk(&self, chunk_offset: u64) -> TimeRanges {
        let mut it = self.applying(chunk_offset);
        match (it.next(), it.next()) {
            (None, _) => TimeRanges::default(),
            (Some(one), None) => one.clone(),
            (Some(a), Some(b)) => {
                let all = a
                    .ranges
                    .iter()
                    .chain(&b.ranges)
                    .chain(it.flat_map(|r| &r.ranges));
                TimeRanges::from_ranges(all.copied())
            }
        }
    }

    /// Whether the point at time `t` of the chunk at `chunk_offset` is deleted.
    pub fn deletes(&self, chunk_offset: u64, t: i64) -> bool {
        self.applying(chunk_offset).any(|r| r.contains(t))
    }

    /// Whether every time in `[min, max]` of the chunk at `chunk_offset` is deleted: skip the
    /// chunk or page without decoding it.
    pub fn covers(&self, chunk_offset: u64, min: i64, max: i64) -> bool {
        self.for_chunk(chunk_offset).covers(min, max)
    }

    /// Whether some time in `[min, max]` of the chunk at `chunk_offset` is deleted: its
    /// statistics can't be trusted, decode it and drop the deleted points.
    pub fn overlaps(&self, chunk_offset: u64, min: i64, max: i64) -> bool {
        self.applying(chunk_offset).any(|r| r.overlaps(min, max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_and_queries() {
        let r = TimeRanges::from_ranges([(i64::MIN, 0), (1, 5), (10, i64::MAX), (3, 2)]);
        assert_eq!(r.ranges(), &[(i64::MIN, 5), (10, i64::MAX)]);
        assert!(r.contains(i64::MIN) && r.contains(i64::MAX) && !r.contains(7));
        assert!(r.covers(11, 12) && !r.covers(5, 10) && r.covers(3, 2));
        assert!(!r.overlaps(6, 9) && r.overlaps(6, 10));
    }

    #[test]
    fn offsets_split_by_chunk() {
        let r = DeletedRanges::from_spans([(0, 4, Some(10)), (5, 9, Some(20)), (0, 0, Some(-1))]);
        assert!(r.covers(0, 0, 9) && !r.covers(10, 0, 9) && r.covers(10, 5, 9));
        assert!(!r.overlaps(20, 0, 100));
        assert!(DeletedRanges::from_spans([(1, 0, None)]).is_empty());
    }
}
