//! Byte-range sources: what readers read from. A file, a byte slice, or anything that can
//! return the bytes of a range (a memory map, a test double); with the `async` feature, an
//! object in a store fetched by range requests ([`AsyncByteSource`]), held as it arrives in
//! a [`FetchedSource`].
//!
//! | file | owns |
//! | --- | --- |
//! | `mod` | [`ByteSource`], [`FileSource`] |
//! | `ranges` | wanted ranges merged and cut into requests |
//! | `fetched` | [`FetchedSource`]: the fetched ranges of a file, read like the file |
//! | `demand` | a scan on a thread of its own that asks an async reader for missing bytes |
//! | `remote` | [`AsyncByteSource`], [`Counted`], [`FetchOptions`], and fetching into a [`FetchedSource`] |
//! | `object` | [`ObjectSource`]: an object of an `object_store` store |
//! | `planned` | [`PlannedSource`]: a local file read ahead in planned requests |

use crate::{Error, Result};
use std::sync::Arc;

#[cfg(feature = "async")]
pub(crate) mod demand;
mod fetched;
#[cfg(feature = "object_store")]
mod object;
#[cfg(feature = "async")]
mod planned;
pub mod ranges;
#[cfg(feature = "async")]
mod remote;

pub use fetched::FetchedSource;
#[cfg(feature = "object_store")]
pub use object::ObjectSource;
#[cfg(feature = "async")]
pub use planned::PlannedSource;
#[cfg(feature = "async")]
pub(crate) use remote::{fetch_into, resolve};
#[cfg(feature = "async")]
pub use remote::{AsyncByteSource, Counted, FetchOptions};

/// Random-access input: a known length and positioned reads. No shared cursor, so one source
/// can serve several readers (e.g. several splits of one file) at once.
///
/// ```
/// use colfile::source::ByteSource;
/// let data: &[u8] = b"hello world";
/// let mut buf = [0u8; 5];
/// data.read_exact_at(6, &mut buf).unwrap();
/// assert_eq!(&buf, b"world");
/// assert_eq!(ByteSource::len(&data), 11);
/// ```
pub trait ByteSource: Send + Sync {
    /// Total length in bytes.
    fn len(&self) -> u64;
    /// True when the source holds no bytes.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Fills `buf` from `offset`; fails with [`crate::ErrorKind::Truncated`] if the source
    /// ends first.
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()>;
    /// Borrows the whole content when the source is in memory (lets readers avoid copies).
    fn as_slice(&self) -> Option<&[u8]> {
        None
    }
    /// Tells the source the byte ranges a reader will read next, so that a source that
    /// plans its reads ([`PlannedSource`], with the `async` feature) can fetch them in few
    /// large requests. Advice only: it changes no result. The default does nothing.
    fn will_need(&self, ranges: &[std::ops::Range<u64>]) {
        let _ = ranges;
    }
}

/// True when `location` is a URL (`scheme://…`, as `s3://bucket/key` or
/// `file:///tmp/x`) rather than a local path.
///
/// ```
/// use colfile::source::is_url;
/// assert!(is_url("s3://bucket/warehouse/t/"));
/// assert!(!is_url("warehouse/t/dt=2024-01-01/part-0.rc"));
/// assert!(!is_url("C:\\data\\x.rc"));
/// ```
pub fn is_url(location: &str) -> bool {
    match location.split_once("://") {
        Some((scheme, _)) => {
            !scheme.is_empty()
                && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c))
        }
        None => false,
    }
}

pub(crate) fn check_range(len: u64, offset: u64, n: usize) -> Result<()> {
    let end = offset.checked_add(n as u64);
    match end {
        Some(e) if e <= len => Ok(()),
        _ => Err(Error::truncated("input", n as u64, len.saturating_sub(offset)).at_offset(offset)),
    }
}

impl ByteSource for [u8] {
    fn len(&self) -> u64 {
        <[u8]>::len(self) as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(ByteSource::len(self), offset, buf.len())?;
        // In range, so the bytes are there.
        let src = usize::try_from(offset)
            .ok()
            .and_then(|start| self.get(start..)?.get(..buf.len()))
            .ok_or_else(|| Error::truncated("input", buf.len() as u64, 0).at_offset(offset))?;
        buf.copy_from_slice(src);
        Ok(())
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// Forwards [`ByteSource`] through a pointer type.
macro_rules! forward_source {
    ($($ptr:ty),*) => {$(
        impl<T: ByteSource + ?Sized> ByteSource for $ptr {
            fn len(&self) -> u64 {
                (**self).len()
            }
            fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
                (**self).read_exact_at(offset, buf)
            }
            fn as_slice(&self) -> Option<&[u8]> {
                (**self).as_slice()
            }
            fn will_need(&self, ranges: &[std::ops::Range<u64>]) {
                (**self).will_need(ranges)
            }
        }
    )*};
}

forward_source!(&T, Arc<T>, Box<T>);

impl ByteSource for Vec<u8> {
    fn len(&self) -> u64 {
        self.as_slice().len() as u64
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.as_slice().read_exact_at(offset, buf)
    }
    fn as_slice(&self) -> Option<&[u8]> {
        Some(self)
    }
}

/// A file read with positioned reads (`pread`); its length is taken once when opened.
#[derive(Debug)]
pub struct FileSource {
    file: std::fs::File,
    len: u64,
}

impl FileSource {
    /// Opens `path` for reading.
    pub fn open(path: impl AsRef<std::path::Path>) -> Result<Self> {
        Self::new(std::fs::File::open(path)?)
    }
    /// Wraps an open file.
    pub fn new(file: std::fs::File) -> Result<Self> {
        let len = file.metadata()?.len();
        Ok(FileSource { file, len })
    }
}

impl ByteSource for FileSource {
    fn len(&self) -> u64 {
        self.len
    }
    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> Result<()> {
        check_range(self.len, offset, buf.len())?;
        read_at(&self.file, offset, buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                let kind = crate::ErrorKind::Truncated {
                    what: "file",
                    needed: buf.len() as u64,
                    available: 0,
                };
                Error::with_source(kind, e).at_offset(offset)
            } else {
                Error::from(e).at_offset(offset)
            }
        })
    }
}

#[cfg(unix)]
fn read_at(file: &std::fs::File, offset: u64, buf: &mut [u8]) -> std::io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

#[cfg(windows)]
fn read_at(file: &std::fs::File, mut offset: u64, mut buf: &mut [u8]) -> std::io::Result<()> {
    use std::os::windows::fs::FileExt;
    while !buf.is_empty() {
        let n = file.seek_read(buf, offset)?;
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        buf = &mut buf[n..];
        offset += n as u64;
    }
    Ok(())
}
