//! [`FetchedSource`]: the byte ranges of a file that have been fetched so far, held as
//! shared [`Bytes`] and read like a whole file. A read that reaches bytes not fetched fails
//! with [`ErrorKind::Unfetched`] naming them, so that an async reader can fetch exactly
//! those and run the (synchronous) parser again; or, for a parser running on a thread of
//! its own, ask for them and wait ([`Demand`]).

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::{Arc, RwLock};
use std::thread::ThreadId;

use bytes::Bytes;

use super::{check_range, ByteSource};
use crate::{Error, ErrorKind, Result};

/// A file of known length of which some ranges are in memory.
///
/// ```
/// use bytes::Bytes;
/// use colfile::source::{ByteSource, FetchedSource};
/// use colfile::ErrorKind;
/// let file = FetchedSource::new(100);
/// file.insert(10, Bytes::from_static(b"hello"));
/// let mut buf = [0u8; 3];
/// file.read_exact_at(11, &mut buf)?;
/// assert_eq!(&buf, b"ell");
/// let miss = file.read_exact_at(50, &mut buf).unwrap_err();
/// assert!(matches!(miss.kind(), ErrorKind::Unfetched { start: 50, end: 53 }));
/// # Ok::<(), colfile::Error>(())
/// ```
#[derive(Debug)]
pub struct FetchedSource {
    len: u64,
    /// Pieces by start offset; they do not overlap.
    pieces: RwLock<BTreeMap<u64, Bytes>>,
    /// Who to ask for missing bytes instead of failing, for reads on one thread.
    demand: RwLock<Option<Demand>>,
}

/// How a read on one thread gets bytes that are not held: it calls `ask` with the range it
/// reads, which returns once they are fetched (or fails), and reads again.
#[derive(Clone)]
pub(crate) struct Demand {
    /// The only thread whose reads ask.
    pub thread: ThreadId,
    /// Fetches a range into this cache, blocking the calling thread meanwhile.
    pub ask: Arc<dyn Fn(Range<u64>) -> Result<()> + Send + Sync>,
}

impl std::fmt::Debug for Demand {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Demand")
            .field("thread", &self.thread)
            .finish_non_exhaustive()
    }
}

/// Reads that find their bytes missing again right after asking give up: the asker then
/// returns the `Unfetched` error instead of looping.
const ASKS_PER_READ: usize = 3;

impl FetchedSource {
    /// A file of `len` bytes with nothing fetched yet.
    pub fn new(len: u64) -> Self {
        FetchedSource {
            len,
            pieces: RwLock::new(BTreeMap::new()),
            demand: RwLock::new(None),
        }
    }

    /// Makes reads on `demand.thread` ask for missing bytes (or, with `None`, fail again).
    #[cfg(feature = "async")]
    pub(crate) fn set_demand(&self, demand: Option<Demand>) {
        *self.demand.write().unwrap_or_else(|e| e.into_inner()) = demand;
    }

    /// The asker for reads on this thread, if any.
    fn asker(&self) -> Option<Demand> {
        let d = self.demand.read().unwrap_or_else(|e| e.into_inner());
        d.as_ref()
            .filter(|d| d.thread == std::thread::current().id())
            .cloned()
    }

    /// Holds `bytes` as the file's bytes from `start` on. Bytes already held are kept (the
    /// new piece is trimmed to what is missing); bytes past the end of the file are dropped.
    pub fn insert(&self, start: u64, bytes: Bytes) {
        let end = start.saturating_add(bytes.len() as u64).min(self.len);
        if start >= end {
            return;
        }
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        for gap in missing_in(&pieces, start..end) {
            let piece = bytes.slice((gap.start - start) as usize..(gap.end - start) as usize);
            pieces.insert(gap.start, piece);
        }
    }

    /// The parts of `range` (clipped to the file) that are not held, in order.
    pub fn missing(&self, range: Range<u64>) -> Vec<Range<u64>> {
        let range = range.start.min(self.len)..range.end.min(self.len);
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        missing_in(&pieces, range)
    }

    /// Drops every held byte outside `keep` (a piece that straddles its edge is cut).
    pub fn retain(&self, keep: Range<u64>) {
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        let old = std::mem::take(&mut *pieces);
        for (start, b) in old {
            let end = start + b.len() as u64;
            let (s, e) = (start.max(keep.start), end.min(keep.end));
            if s < e {
                pieces.insert(s, b.slice((s - start) as usize..(e - start) as usize));
            }
        }
    }

    /// Drops the held bytes of `range` (a piece that straddles its edges is cut).
    #[cfg(any(feature = "async", test))]
    pub(crate) fn remove(&self, range: Range<u64>) {
        let mut pieces = self.pieces.write().unwrap_or_else(|e| e.into_inner());
        let first = pieces.range(..range.start).next_back().map(|(&s, _)| s);
        let hit: Vec<u64> = first
            .into_iter()
            .chain(pieces.range(range.start..range.end).map(|(&s, _)| s))
            .collect();
        for start in hit {
            let Some(b) = pieces.remove(&start) else {
                continue;
            };
            let end = start + b.len() as u64;
            if start < range.start {
                let keep = (range.start.min(end) - start) as usize;
                pieces.insert(start, b.slice(..keep));
            }
            if end > range.end {
                let from = range.end.max(start);
                pieces.insert(from, b.slice((from - start) as usize..));
            }
        }
    }

    /// A second cache of the same file holding the same bytes (shared, not copied), from
    /// then on filled and emptied independently of this one (and asking no one).
    pub fn fork(&self) -> FetchedSource {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        FetchedSource {
            len: self.len,
            pieces: RwLock::new(pieces.clone()),
            demand: RwLock::new(None),
        }
    }

    /// How many bytes are held.
    pub fn held(&self) -> u64 {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        pieces.values().map(|b| b.len() as u64).sum()
    }

    /// The held bytes of `range` without copying, when one piece holds all of it.
    pub fn slice(&self, range: Range<u64>) -> Option<Bytes> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let (&start, b) = pieces.range(..=range.start).next_back()?;
        let end = start + b.len() as u64;
        (range.start <= range.end && range.end <= end)
            .then(|| b.slice((range.start - start) as usize..(range.end - start) as usize))
    }
}

/// The parts of `range` that no piece holds.
fn missing_in(pieces: &BTreeMap<u64, Bytes>, range: Range<u64>) -> Vec<Range<u64>> {
    let mut out = Vec::new();
    let mut pos = range.start;
    // The piece that starts before `range` may reach into it.
    let first = pieces.range(..range.start).next_back();
    let later = pieces.range(range.start..range.end);
    for (&start, b) in first.into_iter().chain(later) {
        let end = start + b.len() as u64;
        if end <= pos {
            continue;
        }
        if start > pos {
            out.push(pos..start.min(range.end));
        }
        pos = pos.max(end);
        if pos >= range.end {
            break;
        }
    }
    if pos < range.end {
        out.push(pos..range.end);
    }
    out
}

impl ByteSource for FetchedSource {
    fn len(&self) -> u64 {
        self.len
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(self.len, offset, buf.len())?;
        let mut asks = 0;
        loop {
            match self.read_held(offset, buf) {
                Err(e)
                    if matches!(e.kind(), ErrorKind::Unfetched { .. }) && asks < ASKS_PER_READ =>
                {
                    let Some(d) = self.asker() else {
                        return Err(e);
                    };
                    (d.ask)(offset..offset + buf.len() as u64)?;
                    asks += 1;
                }
                r => return r,
            }
        }
    }
}

impl FetchedSource {
    /// Reads from the held pieces only.
    fn read_held(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        let pieces = self.pieces.read().unwrap_or_else(|e| e.into_inner());
        let end = offset + buf.len() as u64;
        let mut pos = offset;
        while pos < end {
            let piece = pieces.range(..=pos).next_back();
            let Some((&start, b)) = piece.filter(|(&s, b)| s + b.len() as u64 > pos) else {
                let next = pieces.range(pos..end).next().map_or(end, |(&s, _)| s);
                return Err(Error::new(ErrorKind::Unfetched {
                    start: pos,
                    end: next,
                }));
            };
            let take = ((start + b.len() as u64).min(end) - pos) as usize;
            let from = (pos - start) as usize;
            let to = (pos - offset) as usize;
            // In range: the piece holds pos..pos+take, and buf is end-offset long.
            let src = b.get(from..from + take);
            let dst = buf.get_mut(to..to + take);
            match (src, dst) {
                (Some(s), Some(d)) => d.copy_from_slice(s),
                _ => return Err(Error::truncated("fetched bytes", take as u64, 0).at_offset(pos)),
            }
            pos += take as u64;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever pieces were inserted (then some kept, some removed), reads return the
        /// file's bytes where they are held and name the first missing byte where they are
        /// not; `missing` agrees.
        #[test]
        fn reads_match_the_file(
            pieces in prop::collection::vec((0u64..300, 0u64..80), 0..12),
            reads in prop::collection::vec((0u64..320, 0usize..60), 1..20),
            keep in (0u64..300, 0u64..300),
            drop in (0u64..320, 0u64..320),
        ) {
            let file: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
            let src = FetchedSource::new(300);
            let mut held = vec![false; 300];
            for (s, n) in pieces {
                let e = (s + n).min(300);
                src.insert(s, Bytes::copy_from_slice(&file[s as usize..e as usize]));
                held[s as usize..e as usize].iter_mut().for_each(|h| *h = true);
            }
            let (a, b) = (keep.0.min(keep.1), keep.0.max(keep.1));
            src.retain(a..b);
            let (c, d) = (drop.0.min(drop.1), drop.0.max(drop.1));
            src.remove(c..d);
            for (i, h) in held.iter_mut().enumerate() {
                *h &= (a..b).contains(&(i as u64)) && !(c..d).contains(&(i as u64));
            }
            prop_assert_eq!(src.held(), held.iter().filter(|h| **h).count() as u64);
            for (off, n) in reads {
                let mut buf = vec![0u8; n];
                let r = src.read_exact_at(off, &mut buf);
                if off + n as u64 > 300 {
                    prop_assert!(
                        matches!(r.unwrap_err().kind(), ErrorKind::Truncated { .. }),
                        "read past the end is Truncated"
                    );
                    continue;
                }
                let want = off as usize..off as usize + n;
                match held[want.clone()].iter().position(|h| !h) {
                    None => {
                        prop_assert!(r.is_ok());
                        prop_assert_eq!(&buf[..], &file[want.clone()]);
                    }
                    Some(k) => {
                        let e = r.unwrap_err();
                        let ErrorKind::Unfetched { start, end } = e.kind() else {
                            panic!("{e}")
                        };
                        prop_assert_eq!(*start, off + k as u64);
                        prop_assert!(*end > *start && *end <= off + n as u64);
                        prop_assert!(!held[*start as usize..*end as usize].iter().any(|h| *h));
                    }
                }
                let missing: Vec<u64> = src
                    .missing(off..off + n as u64)
                    .into_iter()
                    .flatten()
                    .collect();
                let expect: Vec<u64> = want.filter(|&i| !held[i]).map(|i| i as u64).collect();
                prop_assert_eq!(missing, expect);
            }
        }
    }

    #[test]
    fn slices_share_the_fetched_bytes() {
        let src = FetchedSource::new(10);
        let b = Bytes::from_static(b"0123456789");
        src.insert(0, b.clone());
        let s = src.slice(2..5).unwrap();
        assert_eq!(&s[..], b"234");
        assert_eq!(s.as_ptr(), b[2..].as_ptr(), "no copy");
        assert!(src.slice(8..12).is_none());
    }
}
