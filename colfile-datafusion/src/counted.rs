//! [`CountedSource`]: a local file that counts the bytes each thread reads from it. A scan
//! task runs on one thread from start to end, so the change in [`bytes_read`] over the task
//! is exactly what that task read, however many tasks share the file. It may also stand for
//! an object's bytes fetched when its table was made (footer and index, for planning), which
//! are not counted again.

use std::cell::Cell;
use std::path::Path;
use std::sync::Arc;

use colfile::source::{ByteSource, FetchedSource, FileSource};

thread_local! {
    static READ: Cell<u64> = const { Cell::new(0) };
}

/// Bytes this thread has read through any [`CountedSource`] so far.
pub(crate) fn bytes_read() -> u64 {
    READ.with(Cell::get)
}

/// A [`FileSource`] whose reads are counted per thread, or bytes of an object already
/// fetched.
#[derive(Debug)]
pub(crate) enum CountedSource {
    File(FileSource),
    Fetched(Arc<FetchedSource>),
}

impl CountedSource {
    /// Opens `path`.
    pub(crate) fn open(path: &Path) -> colfile::Result<Self> {
        Ok(CountedSource::File(FileSource::open(path)?))
    }
}

impl ByteSource for CountedSource {
    fn len(&self) -> u64 {
        match self {
            CountedSource::File(f) => f.len(),
            CountedSource::Fetched(f) => f.len(),
        }
    }

    fn read_exact_at(&self, offset: u64, buf: &mut [u8]) -> colfile::Result<()> {
        match self {
            CountedSource::File(f) => f.read_exact_at(offset, buf)?,
            CountedSource::Fetched(f) => return f.read_exact_at(offset, buf),
        }
        READ.with(|r| r.set(r.get().saturating_add(buf.len() as u64)));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_this_thread_reads() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/tsfile/basic.tsfile"
        );
        let src = CountedSource::open(Path::new(path)).unwrap();
        let before = bytes_read();
        let mut buf = [0u8; 10];
        src.read_exact_at(0, &mut buf).unwrap();
        src.read_exact_at(3, &mut buf[..4]).unwrap();
        assert_eq!(bytes_read() - before, 14);
        let other = std::thread::spawn(bytes_read).join().unwrap();
        assert_eq!(other, 0);
    }
}
