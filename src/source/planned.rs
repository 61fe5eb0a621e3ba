//! [`PlannedSource`]: a synchronous source (a local file) read the way the async readers
//! read an object store. Readers tell it the byte ranges they will read next
//! ([`ByteSource::will_need`]: a TsFile query's window of chunks, an RCFile row group's
//! projected columns); it fetches them with the async readers' own planning
//! ([`fetch_into`]: ranges merged across small gaps, cut into requests of at most 8 MiB),
//! one positioned read per request, and serves reads from what it holds. A read of bytes it
//! does not hold goes to the inner source as before, so results and errors (with their
//! offsets) are those of the inner source: planning changes how many reads there are,
//! never what they return.

use std::fmt;
use std::ops::Range;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::FutureExt;

use super::remote::{fetch_into, AsyncByteSource, FetchOptions};
use super::{ByteSource, FetchedSource};
use crate::Result;

/// Bytes held at most: a 16 MiB window of chunks (or a row group), and a TsFile index of
/// up to 64 MiB, with room to spare. Advice that would hold more drops what is held first.
const MAX_HELD: u64 = 128 << 20;

/// A [`ByteSource`] that reads ahead what its readers say they will need, in few large
/// reads, and holds it until they move on (at most 128 MiB).
///
/// ```
/// use colfile::source::{ByteSource, PlannedSource};
/// let data: Vec<u8> = (0..=255u8).collect();
/// let src = PlannedSource::new(data);
/// src.will_need(&[10..20, 30..40]);
/// let mut buf = [0u8; 4];
/// src.read_exact_at(32, &mut buf)?;
/// assert_eq!(buf, [32, 33, 34, 35]);
/// src.read_exact_at(100, &mut buf)?; // not planned: read from the inner source
/// assert_eq!(buf, [100, 101, 102, 103]);
/// # Ok::<(), colfile::Error>(())
/// ```
pub struct PlannedSource<S> {
    inner: S,
    cache: FetchedSource,
    fetch: FetchOptions,
}

impl<S: ByteSource> PlannedSource<S> {
    /// Reads `inner` with [`FetchOptions::default`]'s merging of ranges.
    pub fn new(inner: S) -> Self {
        let cache = FetchedSource::new(inner.len());
        PlannedSource {
            inner,
            cache,
            fetch: FetchOptions {
                concurrency: 1,
                ..FetchOptions::default()
            },
        }
    }

    /// The source read.
    pub fn inner(&self) -> &S {
        &self.inner
    }
}

impl<S> fmt::Debug for PlannedSource<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PlannedSource")
            .field("held", &self.cache.held())
            .finish_non_exhaustive()
    }
}

impl<S: ByteSource> ByteSource for PlannedSource<S> {
    fn len(&self) -> u64 {
        self.cache.len()
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        // Anything not held whole (or past the end) is the inner source's to read or to
        // report, so errors keep their kinds and offsets.
        self.cache
            .read_exact_at(offset, buf)
            .or_else(|_| self.inner.read_exact_at(offset, buf))
    }

    /// Drops what lies before the first of `ranges` (readers move forward; a TsFile's index,
    /// at its end, stays), then reads what is missing of `ranges` in planned requests.
    fn will_need(&self, ranges: &[Range<u64>]) {
        let wanted = || ranges.iter().filter(|r| r.start < r.end).cloned();
        let Some(first) = wanted().map(|r| r.start).min() else {
            return;
        };
        self.cache.retain(first..self.len());
        let missing: u64 = wanted()
            .flat_map(|r| self.cache.missing(r))
            .map(|r| r.end - r.start)
            .sum();
        if self.cache.held().saturating_add(missing) > MAX_HELD {
            self.cache.retain(0..0);
        }
        // Advice only: a read that fails here fails again, located, when a reader needs
        // those bytes. The inner source's futures are ready at once.
        let _ = fetch_into(&Now(&self.inner), &self.cache, wanted(), &self.fetch).now_or_never();
    }
}

/// A [`ByteSource`] as an [`AsyncByteSource`] whose fetches are done when made.
struct Now<'a, S>(&'a S);

impl<S> fmt::Debug for Now<'_, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Now")
    }
}

impl<S: ByteSource> AsyncByteSource for Now<'_, S> {
    fn len(&self) -> u64 {
        self.0.len()
    }
    fn name(&self) -> String {
        "file".to_owned()
    }
    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        let n = usize::try_from(range.end.saturating_sub(range.start)).unwrap_or(usize::MAX);
        let mut buf = vec![0u8; n];
        let r = self
            .0
            .read_exact_at(range.start, &mut buf)
            .map(|_| buf.into());
        std::future::ready(r).boxed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Counts positioned reads.
    struct Counting(Vec<u8>, AtomicU64);
    impl ByteSource for Counting {
        fn len(&self) -> u64 {
            self.0.len() as u64
        }
        fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
            self.1.fetch_add(1, Ordering::Relaxed);
            self.0.as_slice().read_exact_at(offset, buf)
        }
    }

    #[test]
    fn planned_reads_are_merged_and_the_rest_goes_through() {
        let data: Vec<u8> = (0..10_000u32).map(|i| (i % 251) as u8).collect();
        let src = PlannedSource::new(Counting(data.clone(), AtomicU64::new(0)));
        let reads = || src.inner().1.load(Ordering::Relaxed);
        src.will_need(&[100..200, 250..300]);
        assert_eq!(reads(), 1, "one read across the small gap");
        src.will_need(&[100..110, 5000..5100]);
        assert_eq!(reads(), 2, "only what is missing");
        let mut buf = vec![0u8; 150];
        src.read_exact_at(120, &mut buf).unwrap();
        assert_eq!(&buf[..], &data[120..270]);
        assert_eq!(reads(), 2);
        // Partly held: read from the file whole; past the end: the file's own error.
        src.read_exact_at(4950, &mut buf[..100]).unwrap();
        assert_eq!(&buf[..100], &data[4950..5050]);
        assert_eq!(reads(), 3);
        let e = src.read_exact_at(9990, &mut buf[..20]).unwrap_err();
        let direct = data.as_slice().read_exact_at(9990, &mut buf[..20]);
        assert_eq!(e.to_string(), direct.unwrap_err().to_string());
        // Moving on drops what is behind.
        src.will_need(std::slice::from_ref(&(6000..6100)));
        assert_eq!(src.cache.held(), 100);
    }
}
