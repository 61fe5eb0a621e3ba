//! Which copy of a point wins when several files of a data directory hold the same series at
//! the same timestamp (`docs/design/tsfile-v3-and-mods.md` §5.3, §5.4).
//!
//! The rule follows IoTDB's query engine: `MergeReaderPriority.compareTo` (1.3 and 2.x,
//! package `storageengine.dataregion.read.reader.common`) orders sources, and
//! `PriorityMergeReader` (non-aligned) / `AlignedPriorityMergeReader` (aligned, null filling)
//! keep, for each timestamp, the source with the greatest priority.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// The priority of one source of points (a chunk of a file): greater wins.
///
/// Compared as IoTDB's `MergeReaderPriority.compareTo` does: an unsequence source beats a
/// sequence one; otherwise the higher file version wins, then the later time in the file
/// name, then the larger chunk offset (a later flush into the same file).
///
/// ```
/// use colfile::tsfile::dataset::MergePriority;
/// let seq = MergePriority { unsequence: false, version: 9, file_time: 9, chunk_offset: 9 };
/// let unseq = MergePriority { unsequence: true, version: 1, file_time: 1, chunk_offset: 1 };
/// assert!(unseq > seq);
/// let later = MergePriority { chunk_offset: 2, ..unseq };
/// assert!(later > unseq);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct MergePriority {
    /// Whether the file is in the `unsequence` space.
    pub unsequence: bool,
    /// The file's version (second field of its name).
    pub version: i64,
    /// The time in the file's name (first field).
    pub file_time: i64,
    /// Byte offset of the chunk header in its file.
    pub chunk_offset: u64,
}

impl Ord for MergePriority {
    fn cmp(&self, other: &Self) -> Ordering {
        self.unsequence
            .cmp(&other.unsequence)
            .then(self.version.cmp(&other.version))
            .then(self.file_time.cmp(&other.file_time))
            .then(self.chunk_offset.cmp(&other.chunk_offset))
    }
}

impl PartialOrd for MergePriority {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// One source of a merge: its priority and its items in increasing time order.
#[derive(Clone, Debug)]
pub struct MergeSource<I> {
    /// The source's priority.
    pub priority: MergePriority,
    /// `(time, item)` pairs, times increasing.
    pub items: I,
}

impl<I> MergeSource<I> {
    /// A source from anything that iterates `(time, item)` pairs.
    pub fn new<T: IntoIterator<IntoIter = I>>(priority: MergePriority, items: T) -> Self {
        MergeSource {
            priority,
            items: items.into_iter(),
        }
    }
}

/// A heap entry: the head of source `source`. The max-heap pops the smallest time, then the
/// greatest priority, then the source listed last.
#[derive(PartialEq, Eq)]
struct Head {
    time: i64,
    priority: MergePriority,
    source: usize,
}

impl Ord for Head {
    fn cmp(&self, other: &Self) -> Ordering {
        other
            .time
            .cmp(&self.time)
            .then(self.priority.cmp(&other.priority))
            .then(self.source.cmp(&other.source))
    }
}

impl PartialOrd for Head {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// A k-way merge by time of several [`MergeSource`]s that yields each timestamp once.
///
/// At a timestamp held by several sources, the greatest [`MergePriority`] wins (between
/// equal priorities, the source listed last); `combine(winner, other)` is then called with
/// each other item at that time, in decreasing priority, and may take from it what the
/// winner lacks. [`merge_points`] ignores the others (non-aligned series); [`merge_rows`]
/// fills the winner's null columns (aligned devices). A source that is not in increasing
/// time order yields its items late, not lost; a time repeated inside one source is merged
/// as if from a source of the same priority listed before it.
pub struct Merge<T, I, F> {
    sources: Vec<(MergePriority, I, Option<T>)>,
    heap: BinaryHeap<Head>,
    combine: F,
}

impl<T, I, F> Merge<T, I, F>
where
    I: Iterator<Item = (i64, T)>,
    F: FnMut(&mut T, T),
{
    /// A merge of `sources` resolving equal timestamps with `combine`.
    pub fn new(sources: impl IntoIterator<Item = MergeSource<I>>, combine: F) -> Self {
        let mut merge = Merge {
            sources: Vec::new(),
            heap: BinaryHeap::new(),
            combine,
        };
        for (i, s) in sources.into_iter().enumerate() {
            merge.sources.push((s.priority, s.items, None));
            merge.advance(i);
        }
        merge
    }

    /// Moves source `i` to its next item and queues it.
    fn advance(&mut self, i: usize) {
        let Some((priority, items, head)) = self.sources.get_mut(i) else {
            return;
        };
        if let Some((time, item)) = items.next() {
            *head = Some(item);
            let priority = *priority;
            self.heap.push(Head {
                time,
                priority,
                source: i,
            });
        }
    }

    fn take(&mut self, i: usize) -> Option<T> {
        let item = self.sources.get_mut(i).and_then(|s| s.2.take());
        self.advance(i);
        item
    }
}

impl<T, I, F> Iterator for Merge<T, I, F>
where
    I: Iterator<Item = (i64, T)>,
    F: FnMut(&mut T, T),
{
    type Item = (i64, T);

    fn next(&mut self) -> Option<(i64, T)> {
        loop {
            let top = self.heap.pop()?;
            let Some(mut winner) = self.take(top.source) else {
                continue;
            };
            while self.heap.peek().is_some_and(|h| h.time == top.time) {
                let Some(next) = self.heap.pop() else { break };
                if let Some(other) = self.take(next.source) {
                    (self.combine)(&mut winner, other);
                }
            }
            return Some((top.time, winner));
        }
    }
}

/// The combine step of [`merge_points`]: the winner keeps its value.
pub type KeepWinner<V> = fn(&mut V, V);
/// The combine step of [`merge_rows`]: null columns filled from lower priorities.
pub type FillNulls<V> = fn(&mut Vec<Option<V>>, Vec<Option<V>>);

/// Merges the points of one non-aligned series from several sources: at each timestamp the
/// highest priority's value, as IoTDB's `PriorityMergeReader` does.
///
/// ```
/// use colfile::tsfile::dataset::{merge_points, MergePriority, MergeSource};
/// let seq = MergePriority::default();
/// let unseq = MergePriority { unsequence: true, ..seq };
/// let out: Vec<_> = merge_points([
///     MergeSource::new(seq, vec![(1, "s1"), (2, "s2")]),
///     MergeSource::new(unseq, vec![(2, "u2"), (3, "u3")]),
/// ])
/// .collect();
/// assert_eq!(out, [(1, "s1"), (2, "u2"), (3, "u3")]);
/// ```
pub fn merge_points<V, I>(
    sources: impl IntoIterator<Item = MergeSource<I>>,
) -> Merge<V, I, KeepWinner<V>>
where
    I: Iterator<Item = (i64, V)>,
{
    Merge::new(sources, |_, _| {})
}

/// Merges the rows of one aligned device from several sources (each row one `Option` per
/// column, all sources with the same columns in the same order): at each timestamp the
/// highest priority's row, each of its null columns filled from the next lower priority that
/// has a value there, as IoTDB's `AlignedPriorityMergeReader.fillNullValue` does. A shorter
/// row counts its missing columns as null.
///
/// ```
/// use colfile::tsfile::dataset::{merge_rows, MergePriority, MergeSource};
/// let low = MergePriority { version: 1, ..Default::default() };
/// let high = MergePriority { version: 2, ..low };
/// let out: Vec<_> = merge_rows([
///     MergeSource::new(low, vec![(5, vec![Some(1), Some(2)])]),
///     MergeSource::new(high, vec![(5, vec![None, Some(20)])]),
/// ])
/// .collect();
/// assert_eq!(out, [(5, vec![Some(1), Some(20)])]);
/// ```
pub fn merge_rows<V, I>(
    sources: impl IntoIterator<Item = MergeSource<I>>,
) -> Merge<Vec<Option<V>>, I, FillNulls<V>>
where
    I: Iterator<Item = (i64, Vec<Option<V>>)>,
{
    Merge::new(sources, fill_nulls)
}

fn fill_nulls<V>(winner: &mut Vec<Option<V>>, other: Vec<Option<V>>) {
    for (i, v) in other.into_iter().enumerate() {
        match winner.get_mut(i) {
            Some(slot @ None) => *slot = v,
            Some(Some(_)) => {}
            None => winner.push(v),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn prio(unseq: bool, version: i64, time: i64, off: u64) -> MergePriority {
        MergePriority {
            unsequence: unseq,
            version,
            file_time: time,
            chunk_offset: off,
        }
    }

    #[test]
    fn key_order_follows_iotdb() {
        assert!(prio(true, 0, 0, 0) > prio(false, 9, 9, 9));
        assert!(prio(false, 2, 0, 0) > prio(false, 1, 9, 9));
        assert!(prio(false, 1, 2, 0) > prio(false, 1, 1, 9));
        assert!(prio(false, 1, 1, 2) > prio(false, 1, 1, 1));
    }

    type Src = (MergePriority, Vec<(i64, Vec<Option<u8>>)>);
    /// A candidate: priority, source, position in the source, row.
    type Cand = (MergePriority, usize, usize, Vec<Option<u8>>);

    /// Brute force: for every time, the candidates in decreasing (priority, source, -position).
    fn reference(sources: &[Src], fill: bool) -> Vec<(i64, Vec<Option<u8>>)> {
        let mut by_time: BTreeMap<i64, Vec<Cand>> = BTreeMap::new();
        for (s, (p, items)) in sources.iter().enumerate() {
            for (pos, (t, row)) in items.iter().enumerate() {
                by_time
                    .entry(*t)
                    .or_default()
                    .push((*p, s, pos, row.clone()));
            }
        }
        by_time
            .into_iter()
            .map(|(t, mut c)| {
                c.sort_by(|a, b| (b.0, b.1, a.2).cmp(&(a.0, a.1, b.2)));
                let mut rows = c.into_iter().map(|x| x.3);
                let mut w = rows.next().unwrap_or_default();
                if fill {
                    rows.for_each(|r| fill_nulls(&mut w, r));
                }
                (t, w)
            })
            .collect()
    }

    fn sources() -> impl Strategy<Value = Vec<Src>> {
        let prio =
            (any::<bool>(), 0i64..3, 0i64..3, 0u64..3).prop_map(|(u, v, t, o)| prio(u, v, t, o));
        let row = prop::collection::vec(prop::option::of(0u8..4), 2);
        let items = prop::collection::btree_map(0i64..12, row, 0..8)
            .prop_map(|m| m.into_iter().collect::<Vec<_>>());
        prop::collection::vec((prio, items), 0..5)
    }

    proptest! {
        #[test]
        fn points_match_brute_force(srcs in sources()) {
            let got: Vec<_> = merge_points(srcs.iter().map(|(p, i)| MergeSource::new(*p, i.clone()))).collect();
            prop_assert_eq!(got, reference(&srcs, false));
        }

        #[test]
        fn rows_match_brute_force(srcs in sources()) {
            let got: Vec<_> = merge_rows(srcs.iter().map(|(p, i)| MergeSource::new(*p, i.clone()))).collect();
            prop_assert_eq!(got, reference(&srcs, true));
        }
    }
}
