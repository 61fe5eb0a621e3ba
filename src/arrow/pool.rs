//! [`BufferPool`]: decode buffers handed from one RCFile Arrow reader to the next, when the
//! caller asks for it.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::rcfile::batch::ColumnBatch;

/// The most decode-buffer memory a pool keeps unless told otherwise ([`BufferPool::new`]).
pub const DEFAULT_POOL_BYTES: usize = 64 << 20;

/// Decode buffers that [`RcFileArrowReader`](super::RcFileArrowReader)s leave behind when
/// they are dropped, for the next reader built with the same pool to decode into.
///
/// Reading many small files one after another otherwise allocates and frees every file's
/// buffers: the allocator hands large freed blocks back to the operating system and the next
/// file faults fresh pages in again (a 200k-row file read 4x slower that way). Give the
/// readers of one job, a table scan, a directory walk, the same pool
/// ([`RcFileArrowReaderBuilder::with_buffer_pool`](super::RcFileArrowReaderBuilder::with_buffer_pool))
/// and they reuse each other's buffers. A reader without a pool (the default) keeps nothing
/// after it is dropped.
///
/// A pool is a handle: clones share the same buffers, and it can be shared between threads
/// (a reader takes buffers when it is built and gives them back when dropped). It holds at
/// most the bytes it was made with; what it holds is freed when the last handle is dropped,
/// or at once with [`BufferPool::clear`].
///
/// ```
/// use colfile::arrow::{BufferPool, RcFileArrowReader};
/// use colfile::rcfile::Serde;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let pool = BufferPool::new();
/// for _ in 0..2 {
///     let schema = "id:int,same:string,grp:bigint,txt:string".parse()?;
///     let reader = RcFileArrowReader::builder(bytes.as_slice(), schema, Serde::text())
///         .with_buffer_pool(pool.clone())
///         .build()?;
///     let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
///     assert!(rows > 0);
///     // The reader is gone; its buffers wait in the pool for the next one.
///     assert!(pool.held_bytes() > 0);
/// }
/// assert!(pool.clear() > 0);
/// assert_eq!(pool.held_bytes(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug)]
pub struct BufferPool {
    inner: Arc<Mutex<Held>>,
}

#[derive(Debug)]
struct Held {
    /// The most bytes kept.
    cap: usize,
    batches: Vec<ColumnBatch>,
}

impl Held {
    fn bytes(&self) -> usize {
        self.batches
            .iter()
            .filter_map(ColumnBatch::heap_bytes)
            .sum()
    }
}

impl Default for BufferPool {
    fn default() -> Self {
        Self::new()
    }
}

impl BufferPool {
    /// An empty pool that keeps at most [`DEFAULT_POOL_BYTES`] (64 MiB).
    pub fn new() -> Self {
        Self::with_max_bytes(DEFAULT_POOL_BYTES)
    }

    /// An empty pool that keeps at most `max_bytes` of buffers.
    pub fn with_max_bytes(max_bytes: usize) -> Self {
        BufferPool {
            inner: Arc::new(Mutex::new(Held {
                cap: max_bytes,
                batches: Vec::new(),
            })),
        }
    }

    /// The bytes of buffers the pool holds now.
    pub fn held_bytes(&self) -> usize {
        self.lock().bytes()
    }

    /// Frees every buffer the pool holds; returns how many bytes that was.
    pub fn clear(&self) -> usize {
        let taken = std::mem::take(&mut self.lock().batches);
        taken.iter().filter_map(ColumnBatch::heap_bytes).sum()
    }

    /// A buffer list is plain data: a thread that panicked while holding the lock left it
    /// whole, so a poisoned lock is used as it is.
    fn lock(&self) -> MutexGuard<'_, Held> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `n` column batches for a new reader: held ones first (emptied as they are decoded
    /// into), then new ones.
    pub(super) fn take(&self, n: usize) -> Vec<ColumnBatch> {
        let mut out = {
            let mut held = self.lock();
            let keep = held.batches.len().saturating_sub(n);
            held.batches.split_off(keep)
        };
        out.resize_with(n, ColumnBatch::default);
        out
    }

    /// Keeps `batches` for the next reader, as far as the pool's size allows.
    pub(super) fn give_back(&self, batches: Vec<ColumnBatch>) {
        let mut held = self.lock();
        let mut bytes = held.bytes();
        for b in batches {
            let Some(size) = b.heap_bytes() else {
                continue;
            };
            if size > 0 && bytes + size <= held.cap {
                bytes += size;
                held.batches.push(b);
            }
        }
    }
}

/// Did nothing but free buffers that dropped readers had parked on the calling thread; a
/// reader now keeps buffers only in a [`BufferPool`] it was given, so there is nothing to
/// free. Returns 0.
#[deprecated(
    since = "0.2.0",
    note = "readers keep buffers only in a BufferPool they are given (BufferPool::clear)"
)]
pub fn release_parked_buffers() -> usize {
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pooled_batches_go_to_the_next_reader_within_the_cap() {
        use crate::rcfile::{HiveType, RcFileReader, Serde};
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/rcfile/multi_group_text.rc"
        );
        let bytes = std::fs::read(path).unwrap();
        let mut r = RcFileReader::builder(bytes.as_slice())
            .with_projection([1])
            .build()
            .unwrap();
        let group = r.next_row_group().unwrap().unwrap();
        let mut b = ColumnBatch::default();
        group
            .decode_batch(1, &HiveType::String, &Serde::text(), &mut b)
            .unwrap();
        let bytes = b.heap_bytes().unwrap();
        assert!(bytes > 0);
        let pool = BufferPool::new();
        // Empty batches are not kept; the other comes back whole.
        pool.give_back(vec![b, ColumnBatch::default()]);
        assert_eq!(pool.held_bytes(), bytes);
        let back = pool.take(2);
        assert_eq!(back[0].heap_bytes(), Some(bytes));
        assert_eq!(back[1], ColumnBatch::default());
        assert_eq!(pool.take(1)[0], ColumnBatch::default());
        // Past the cap nothing more is kept.
        let one = back[0].clone();
        let per = one.heap_bytes().unwrap();
        let small = BufferPool::with_max_bytes(per * 3 + per / 2);
        small.give_back(vec![one; 5]);
        assert_eq!(small.held_bytes(), per * 3);
        // Clones share the buffers.
        assert_eq!(small.clone().clear(), per * 3);
        assert_eq!(small.held_bytes(), 0);
    }
}
