//! Async byte-range inputs: [`AsyncByteSource`] (an object in a store, or anything that can
//! fetch a range), and the fetching the async readers share: wanted ranges planned into few
//! requests ([`RangePlan`]), fetched side by side (a bounded number at once) into a
//! [`FetchedSource`], and parsers run again over what was fetched until nothing is missing.

use std::fmt::Debug;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use futures_util::future::BoxFuture;
use futures_util::{FutureExt, StreamExt, TryStreamExt};

use super::ranges::RangePlan;
use super::FetchedSource;
use crate::{Error, ErrorKind, Result};

/// An input read by async range requests: an object in S3, GCS, Azure, over HTTP, or in
/// memory. Each [`fetch`](Self::fetch) is one request; readers plan theirs so that there
/// are few.
pub trait AsyncByteSource: Send + Sync + Debug {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// True when the object holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// What errors call the object (its URL or path).
    fn name(&self) -> String;
    /// The bytes of `range` (within `0..len()`), exactly `range.end - range.start` of them.
    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>>;
}

impl AsyncByteSource for Bytes {
    fn len(&self) -> u64 {
        Bytes::len(self) as u64
    }
    fn name(&self) -> String {
        "memory".to_owned()
    }
    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        let r = match usize::try_from(range.start)
            .ok()
            .zip(usize::try_from(range.end).ok())
        {
            Some((s, e)) if s <= e && e <= Bytes::len(self) => Ok(self.slice(s..e)),
            _ => Err(fetch_error(self, &range, "range outside the object")),
        };
        std::future::ready(r).boxed()
    }
}

impl<T: AsyncByteSource + ?Sized> AsyncByteSource for Arc<T> {
    fn len(&self) -> u64 {
        (**self).len()
    }
    fn name(&self) -> String {
        (**self).name()
    }
    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        (**self).fetch(range)
    }
}

/// A [`ErrorKind::Fetch`] error for `range` of `src`.
pub(crate) fn fetch_error<S: AsyncByteSource + ?Sized>(
    src: &S,
    range: &Range<u64>,
    message: impl Into<String>,
) -> Error {
    Error::new(ErrorKind::Fetch {
        object: src.name(),
        start: range.start,
        end: range.end,
        message: message.into(),
    })
    .at_offset(range.start)
}

/// Counts the requests made to a source and the bytes they returned (to measure a reader's
/// I/O, or to assert on it in tests).
///
/// ```
/// # futures_util::FutureExt::now_or_never(async {
/// use bytes::Bytes;
/// use colfile::source::{AsyncByteSource, Counted};
/// let src = Counted::new(Bytes::from_static(b"0123456789"));
/// assert_eq!(&src.fetch(2..5).await?[..], b"234");
/// assert_eq!((src.requests(), src.bytes()), (1, 3));
/// # Ok::<(), colfile::Error>(())
/// # }).unwrap().unwrap();
/// ```
#[derive(Debug)]
pub struct Counted<S> {
    inner: S,
    requests: AtomicU64,
    bytes: AtomicU64,
}

impl<S> Counted<S> {
    /// Wraps `inner` with both counts at zero.
    pub fn new(inner: S) -> Self {
        Counted {
            inner,
            requests: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
        }
    }
    /// Requests made so far.
    pub fn requests(&self) -> u64 {
        self.requests.load(Ordering::Relaxed)
    }
    /// Bytes returned so far.
    pub fn bytes(&self) -> u64 {
        self.bytes.load(Ordering::Relaxed)
    }
}

impl<S: AsyncByteSource> AsyncByteSource for Counted<S> {
    fn len(&self) -> u64 {
        self.inner.len()
    }
    fn name(&self) -> String {
        self.inner.name()
    }
    fn fetch(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
        self.requests.fetch_add(1, Ordering::Relaxed);
        let f = self.inner.fetch(range);
        async move {
            let b = f.await?;
            self.bytes.fetch_add(b.len() as u64, Ordering::Relaxed);
            Ok(b)
        }
        .boxed()
    }
}

/// How an async reader fetches: how wanted ranges become requests, how many run at once,
/// and how much it reads when a parser meets bytes it lacks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FetchOptions {
    /// Merging and cutting of ranges into requests.
    pub plan: RangePlan,
    /// Requests in flight at once (at least 1).
    pub concurrency: usize,
    /// Bytes of a file's end fetched first, to hold its footer and, usually, its index.
    pub tail: u64,
    /// Bytes fetched (at least) when a parser reads where nothing was fetched, such as a
    /// step of a metadata walk outside what the first read held.
    pub block: u64,
}

impl Default for FetchOptions {
    /// [`RangePlan::default`], 8 requests at once, a 64 KiB tail, 4 KiB blocks.
    fn default() -> Self {
        FetchOptions {
            plan: RangePlan::default(),
            concurrency: 8,
            tail: 64 << 10,
            block: 4 << 10,
        }
    }
}

/// Fetches what `cache` lacks of `wanted` and holds it there.
pub(crate) async fn fetch_into<S: AsyncByteSource + ?Sized>(
    src: &S,
    cache: &FetchedSource,
    wanted: impl IntoIterator<Item = Range<u64>>,
    opts: &FetchOptions,
) -> Result<()> {
    let missing: Vec<Range<u64>> = wanted.into_iter().flat_map(|r| cache.missing(r)).collect();
    let requests = opts.plan.requests(missing);
    futures_util::stream::iter(requests)
        .map(|r| async move {
            let want = r.end - r.start;
            let b = src.fetch(r.clone()).await?;
            if b.len() as u64 != want {
                let msg = format!("the store returned {} of {want} bytes", b.len());
                return Err(fetch_error(src, &r, msg));
            }
            Ok((r.start, b))
        })
        .buffer_unordered(opts.concurrency.max(1))
        .try_for_each(|(start, b)| {
            cache.insert(start, b);
            std::future::ready(Ok(()))
        })
        .await
}

/// Runs `parse` over `cache` until it no longer meets bytes that were not fetched: each time
/// it does, the missing run (at least `opts.block` bytes of it, within the file) is fetched
/// and `parse` runs again. `parse` must only read (running it again is how it resumes).
/// `ctx` is what it reads through, passed in rather than captured so that a reader that
/// is `Send` but not `Sync` can be held across the fetches.
pub(crate) async fn resolve<S, C, T>(
    src: &S,
    cache: &FetchedSource,
    opts: &FetchOptions,
    ctx: &mut C,
    mut parse: impl FnMut(&mut C) -> Result<T>,
) -> Result<T>
where
    S: AsyncByteSource + ?Sized,
    C: ?Sized,
{
    use super::ByteSource;
    loop {
        match parse(ctx) {
            Err(e) => {
                let ErrorKind::Unfetched { start, end } = *e.kind() else {
                    return Err(e);
                };
                let len = ByteSource::len(cache);
                let end = end.max(start.saturating_add(opts.block)).min(len);
                // Each round fetches bytes that were missing, so the loop ends.
                fetch_into(src, cache, std::iter::once(start..end), opts).await?;
            }
            ok => return ok,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::ByteSource;
    use futures_util::FutureExt;

    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        f.now_or_never()
            .expect("in-memory fetches are ready at once")
    }

    #[test]
    fn fetch_into_makes_the_planned_requests_only() {
        let data: Bytes = (0..=255u8).cycle().take(10_000).collect::<Vec<_>>().into();
        let src = Counted::new(data.clone());
        let cache = FetchedSource::new(10_000);
        let opts = FetchOptions {
            plan: RangePlan {
                gap: 100,
                max_request: 4000,
            },
            concurrency: 3,
            tail: 512,
            block: 512,
        };
        run(fetch_into(
            &src,
            &cache,
            vec![0..10, 50..60, 5000..9000],
            &opts,
        ))
        .unwrap();
        // 0..60 is one request; 5000..9000 fits in one.
        assert_eq!((src.requests(), src.bytes()), (2, 60 + 4000));
        // Asking again for held bytes fetches nothing.
        run(fetch_into(&src, &cache, vec![5..55, 6000..7000], &opts)).unwrap();
        assert_eq!(src.requests(), 2);
        // resolve: a parser that reads 100 bytes at 200 and then 100 at 9500.
        let parse = |_: &mut ()| -> Result<u8> {
            let mut a = [0u8; 100];
            cache.read_exact_at(200, &mut a)?;
            cache.read_exact_at(9500, &mut a)?;
            Ok(a[0])
        };
        let got = run(resolve(&src, &cache, &opts, &mut (), parse)).unwrap();
        assert_eq!(got, data[9500]);
        assert_eq!(src.requests(), 4, "one block per miss");
    }

    #[test]
    fn a_short_body_is_an_error_naming_object_and_range() {
        #[derive(Debug)]
        struct Short;
        impl AsyncByteSource for Short {
            fn len(&self) -> u64 {
                100
            }
            fn name(&self) -> String {
                "s3://b/k".into()
            }
            fn fetch(&self, _: Range<u64>) -> BoxFuture<'_, Result<Bytes>> {
                std::future::ready(Ok(Bytes::from_static(b"abc"))).boxed()
            }
        }
        let cache = FetchedSource::new(100);
        let e = run(fetch_into(
            &Short,
            &cache,
            std::iter::once(10..20),
            &FetchOptions::default(),
        ));
        let e = e.unwrap_err();
        assert_eq!(
            e.to_string(),
            "fetching bytes 10..20 of s3://b/k failed: the store returned 3 of 10 bytes (at byte 10)"
        );
        assert_eq!(cache.held(), 0, "nothing short is kept");
    }
}
