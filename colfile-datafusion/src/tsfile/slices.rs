//! Time slices: how one large file's devices are cut between several scan tasks when the
//! file has fewer devices than the scan has partitions. A device's time is cut only where no
//! chunk of any of its series spans the cut (between chunk groups, as the writer flushed
//! them), into slices of about equal points by the chunks' statistics. Each task then reads
//! its slice as a time range, which is exact however the chunks lie: a cut only decides
//! which task reads which chunks, never whether a row is read.

use colfile::source::ByteSource;
use colfile::tsfile::format::DeviceId;
use colfile::tsfile::TsFileReader;

/// Up to `n` slices (`start..=end`, in order, together covering `range`) of `device`'s time
/// in `reader`'s file; one slice (all of `range`) when its chunks allow no cut.
pub(super) fn time_slices<S: ByteSource>(
    reader: &TsFileReader<S>,
    device: &DeviceId,
    n: usize,
    range: (i64, i64),
) -> colfile::Result<Vec<(i64, i64)>> {
    let (lo, hi) = range;
    if n <= 1 || lo >= hi {
        return Ok(vec![range]);
    }
    let series = reader.metadata().timeseries(reader.source(), device)?;
    // (start, end, points) of every chunk of the device that reaches into the range.
    let mut spans: Vec<(i64, i64, u64)> = series
        .iter()
        .flat_map(|s| (0..s.chunks.len()).filter_map(move |i| s.chunk_statistics(i)))
        .filter(|st| st.count > 0 && st.end_time >= lo && st.start_time <= hi)
        .map(|st| {
            (
                st.start_time.max(lo),
                st.end_time.min(hi),
                u64::from(st.count),
            )
        })
        .collect();
    spans.sort_unstable();
    Ok(cut(&spans, n, range))
}

/// Cuts `range` before chunk starts that no earlier chunk reaches, each cut made once the
/// points since the last one reach a share of the total; `spans` sorted by start.
fn cut(spans: &[(i64, i64, u64)], n: usize, (lo, hi): (i64, i64)) -> Vec<(i64, i64)> {
    let total: u64 = spans.iter().map(|s| s.2).sum();
    let share = total.div_ceil(n as u64).max(1);
    let mut out = Vec::with_capacity(n);
    let (mut start, mut points, mut reach) = (lo, 0u64, i64::MIN);
    for (k, &(_, end, count)) in spans.iter().enumerate() {
        points += count;
        reach = reach.max(end);
        let next = spans.get(k + 1).map(|s| s.0);
        if let Some(next) = next {
            if points >= share && next > reach && out.len() + 1 < n {
                out.push((start, next - 1));
                start = next;
                points = 0;
            }
        }
    }
    out.push((start, hi));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn cuts_between_chunk_groups_only() {
        let spans = [(0, 9, 10), (10, 19, 10), (15, 29, 10), (30, 39, 10)];
        // The second and third chunks overlap: no cut between them.
        assert_eq!(
            cut(&spans, 4, (i64::MIN, i64::MAX)),
            [(i64::MIN, 9), (10, 29), (30, i64::MAX)]
        );
        assert_eq!(cut(&spans, 2, (0, 100)), [(0, 29), (30, 100)]);
        assert_eq!(cut(&spans, 1, (0, 100)), [(0, 100)]);
        assert_eq!(cut(&[], 4, (5, 6)), [(5, 6)]);
    }

    proptest! {
        /// Slices are in order, cover the range without gaps or overlaps, number at most
        /// `n`, and no chunk crosses a cut.
        #[test]
        fn slices_tile_the_range(
            raw in proptest::collection::vec((0i64..1000, 0i64..50, 1u64..100), 0..40),
            n in 1usize..8,
        ) {
            let mut spans: Vec<(i64, i64, u64)> =
                raw.iter().map(|&(s, len, c)| (s, s + len, c)).collect();
            spans.sort_unstable();
            let range = (-5, 2000);
            let out = cut(&spans, n, range);
            prop_assert!(!out.is_empty() && out.len() <= n);
            prop_assert_eq!(out.first().map(|s| s.0), Some(range.0));
            prop_assert_eq!(out.last().map(|s| s.1), Some(range.1));
            for w in out.windows(2) {
                prop_assert_eq!(w[0].1 + 1, w[1].0);
                prop_assert!(w[0].0 <= w[0].1);
            }
            for s in &spans {
                let inside = out.iter().filter(|o| o.0 <= s.0 && s.1 <= o.1).count();
                prop_assert_eq!(inside, 1, "chunk {:?} crosses a cut of {:?}", s, out);
            }
        }
    }
}
