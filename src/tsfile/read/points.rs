//! [`ChunkPoints`]: how many points the pages of one chunk may decode to. A run-length or
//! TS_2DIFF stream can claim billions of points in a few bytes (a block of width 0), so each
//! page is held to its statistics' count when it has statistics, and the pages of a chunk
//! together to [`Limits::max_chunk_points`]. Every reader of pages (queries, `verify`,
//! `recover`) decodes through one of these.

use crate::tsfile::encoding::is_overflow;
use crate::{Error, Limits, Result};

/// The point budget of one chunk, spent page by page.
#[derive(Debug, Clone)]
pub(crate) struct ChunkPoints {
    used: usize,
    cap: usize,
    per_page: usize,
}

impl ChunkPoints {
    /// A fresh budget for one chunk under `limits`.
    pub fn new(limits: &Limits) -> Self {
        ChunkPoints {
            used: 0,
            cap: limits.max_chunk_points,
            // One page's timestamps are one buffer of 8 bytes a point.
            per_page: (limits.max_alloc_bytes / 8).max(1),
        }
    }

    /// The most points the next page may decode to: no more than `count`, the point count
    /// of its statistics when it has some, nor than what is left of the chunk's budget. A
    /// count above what is left is refused at once.
    pub fn page_max(&self, count: Option<u32>) -> Result<usize> {
        let left = self.cap.saturating_sub(self.used).min(self.per_page);
        match count.map(|c| c as usize) {
            Some(c) if c > left => Err(Error::limit(
                "points in one chunk",
                (self.used as u64).saturating_add(c as u64),
                self.cap as u64,
            )),
            Some(c) => Ok(c),
            None => Ok(left),
        }
    }

    /// Decodes one page with `decode`, which appends at most the `max` points it is given
    /// and returns how many it appended. A page with statistics that holds more points than
    /// they count is corrupt; one without that holds more than the budget has left is over
    /// the limit.
    pub fn decode_page(
        &mut self,
        count: Option<u32>,
        decode: impl FnOnce(usize) -> Result<usize>,
    ) -> Result<usize> {
        let max = self.page_max(count)?;
        let n = decode(max).map_err(|e| match (count, is_overflow(&e)) {
            (Some(c), true) => Error::corrupt(
                "tsfile",
                format!("page holds more points than the {c} its statistics count"),
            ),
            // At least one point more than allowed: the page's own cap, or the chunk's.
            (None, true) if max == self.per_page => {
                Error::limit("points in one page", max as u64 + 1, max as u64)
            }
            (None, true) => Error::limit(
                "points in one chunk",
                (self.used as u64).saturating_add(max as u64 + 1),
                self.cap as u64,
            ),
            _ => e,
        })?;
        self.used = self.used.saturating_add(n);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tsfile::format::Encoding;
    use crate::tsfile::encoding::page::decode_times;
    use crate::ErrorKind;

    /// One TS_2DIFF block of width 0 claiming `n + 1` timestamps in 24 bytes.
    fn block(n: i32) -> Vec<u8> {
        [n.to_be_bytes(), 0i32.to_be_bytes()]
            .concat()
            .into_iter()
            .chain([1i64.to_be_bytes(), 0i64.to_be_bytes()].concat())
            .collect()
    }

    fn decode(points: &mut ChunkPoints, count: Option<u32>, page: &[u8]) -> Result<usize> {
        let mut times = Vec::new();
        points.decode_page(count, |max| {
            decode_times(page, Encoding::Ts2Diff, max, &mut times).map(|_| times.len())
        })
    }

    /// A LimitExceeded error's text.
    fn limit(e: &Error) -> String {
        assert!(matches!(e.kind(), ErrorKind::LimitExceeded { .. }), "{e}");
        e.to_string()
    }

    #[test]
    fn pages_are_held_to_their_statistics_and_chunks_to_the_limit() {
        let limits = Limits::default().with_max_chunk_points(250);
        let mut points = ChunkPoints::new(&limits);
        // 100 points, as its statistics say; then one that claims more than its count.
        assert_eq!(decode(&mut points, Some(100), &block(99)).unwrap(), 100);
        let e = decode(&mut points, Some(100), &block(1_000_000)).unwrap_err();
        assert!(
            e.to_string()
                .contains("page holds more points than the 100 its statistics count"),
            "{e}"
        );
        // Without statistics a page gets what is left of the chunk's 250: 150.
        assert_eq!(decode(&mut points, None, &block(99)).unwrap(), 100);
        let e = decode(&mut points, None, &block(50)).unwrap_err();
        assert!(
            limit(&e).contains("points in one chunk is 251, above the limit of 250"),
            "{e}"
        );
        // Statistics that count more than is left are refused before decoding.
        let e = decode(&mut points, Some(51), &block(0)).unwrap_err();
        assert!(
            limit(&e).contains("points in one chunk is 251, above the limit of 250"),
            "{e}"
        );
        assert_eq!(decode(&mut points, Some(50), &block(49)).unwrap(), 50);
    }

    #[test]
    fn a_page_without_statistics_is_held_to_the_allocation_limit() {
        let limits = Limits::default().with_max_alloc_bytes(8 * 64);
        let mut points = ChunkPoints::new(&limits);
        let e = decode(&mut points, None, &block(64)).unwrap_err();
        assert!(
            limit(&e).contains("points in one page is 65, above the limit of 64"),
            "{e}"
        );
    }
}
