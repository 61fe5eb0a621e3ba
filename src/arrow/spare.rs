//! Buffer recycling between the RCFile column decoder and the Arrow arrays built from it.
//!
//! A decoded column's vectors move into its Arrow arrays without a copy. Left at that, the
//! decoder would start every row group from empty vectors, and fresh large allocations
//! cost more than the copy they save (the allocator hands back new pages, each a page
//! fault). So the reader keeps a handle on the buffers it lent and, at the next row group,
//! takes back those whose arrays the caller has dropped. A buffer still in use stays the
//! caller's; the decoder then gets a new vector of the same size, allocated once.
//!
//! A dropped reader also leaves its decode buffers to the thread's next reader ([`park`],
//! [`unpark`]; at most [`PARKED_BYTES`] per thread). Reading many small files otherwise
//! allocates and frees every file's buffers, and glibc returns that memory to the kernel at
//! each free and faults it back in at the next file: a 200k-row file read 4x slower.

use std::alloc::Layout;
use std::cell::RefCell;

use arrow_buffer::{ArrowNativeType, Buffer, ScalarBuffer};

use crate::rcfile::batch::ColumnBatch;

/// The most decode-buffer memory a thread keeps for its next reader.
pub(super) const PARKED_BYTES: usize = 64 << 20;

thread_local! {
    static PARKED: RefCell<Vec<ColumnBatch>> = const { RefCell::new(Vec::new()) };
}

/// Frees the decode buffers that dropped [`RcFileArrowReader`](super::RcFileArrowReader)s
/// left on this thread for its next reader (at most 64 MiB; they are freed anyway when the
/// thread ends). Returns how many bytes that was.
///
/// ```
/// use colfile::arrow::{release_parked_buffers, RcFileArrowReader};
/// use colfile::rcfile::Serde;
/// let bytes = std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/rcfile/multi_group_text.rc"))?;
/// let schema = "id:int,same:string,grp:bigint,txt:string".parse()?;
/// let reader = RcFileArrowReader::builder(bytes.as_slice(), schema, Serde::text()).build()?;
/// let rows: usize = reader.map(|b| b.map(|b| b.num_rows())).sum::<Result<_, _>>()?;
/// assert!(rows > 0);
/// // The reader is gone; its buffers were kept for the next one until now.
/// assert!(release_parked_buffers() > 0);
/// assert_eq!(release_parked_buffers(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn release_parked_buffers() -> usize {
    let parked = PARKED.with(|p| std::mem::take(&mut *p.borrow_mut()));
    parked.iter().filter_map(|b| b.heap_bytes()).sum()
}

/// `n` column batches for a new reader: parked ones first (emptied as they are decoded into).
pub(super) fn unpark(n: usize) -> Vec<ColumnBatch> {
    let mut out = PARKED.with(|p| {
        let mut p = p.borrow_mut();
        let keep = p.len().saturating_sub(n);
        p.split_off(keep)
    });
    out.resize_with(n, ColumnBatch::default);
    out
}

/// Keeps `batches` for the thread's next reader, as far as [`PARKED_BYTES`] allows.
pub(super) fn park(batches: Vec<ColumnBatch>) {
    PARKED.with(|p| {
        let mut p = p.borrow_mut();
        let mut held: usize = p.iter().filter_map(|b| b.heap_bytes()).sum();
        for b in batches {
            let Some(bytes) = b.heap_bytes() else {
                continue;
            };
            if bytes > 0 && held + bytes <= PARKED_BYTES {
                held += bytes;
                p.push(b);
            }
        }
    });
}

/// The buffers one column lent to Arrow in the previous round and in this one.
#[derive(Debug, Default)]
pub(super) struct Spare {
    /// Lent last round: each is taken back once nobody else holds it.
    old: Vec<(Buffer, Layout)>,
    /// Lent this round.
    lent: Vec<(Buffer, Layout)>,
}

impl Spare {
    /// An empty vector of `T`: a buffer lent last round that is free again, else a new one
    /// with room for as many values as the largest such buffer still in use holds.
    pub fn take<T: ArrowNativeType>(&mut self) -> Vec<T> {
        self.take_back()
            .unwrap_or_else(|room| Vec::with_capacity(room))
    }

    /// A buffer of `T` lent last round that is free again, emptied; else the length of the
    /// largest one still in use.
    pub fn take_back<T: ArrowNativeType>(&mut self) -> Result<Vec<T>, usize> {
        let want = Layout::new::<T>();
        let mut room = 0;
        let mut old = std::mem::take(&mut self.old).into_iter();
        while let Some((buf, layout)) = old.next() {
            if layout != want {
                self.old.push((buf, layout));
                continue;
            }
            match buf.into_vec::<T>() {
                Ok(mut v) => {
                    self.old.extend(old);
                    v.clear();
                    return Ok(v);
                }
                Err(buf) => {
                    room = room.max(buf.len() / want.size().max(1));
                    self.old.push((buf, layout));
                }
            }
        }
        Err(room)
    }

    /// Hands `v` to Arrow (no copy), keeping a handle to take it back next round.
    pub fn lend<T: ArrowNativeType>(&mut self, v: Vec<T>) -> ScalarBuffer<T> {
        let len = v.len();
        let buf = Buffer::from_vec(v);
        self.lent.push((buf.clone(), Layout::new::<T>()));
        ScalarBuffer::new(buf, 0, len)
    }

    /// Ends a round: lets go of last round's buffers that were not taken back (their arrays
    /// own them alone now) and keeps this round's for the next.
    pub fn next_round(&mut self) {
        self.old = std::mem::take(&mut self.lent);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_comes_back_once_its_array_is_dropped() {
        let mut s = Spare::default();
        let v: Vec<i64> = (0..1000).collect();
        let ptr = v.as_ptr();
        let array = s.lend(v);
        s.next_round();
        // Still held by `array`: a new vector, sized like the one in use.
        let fresh = s.take::<i64>();
        assert_ne!(fresh.as_ptr(), ptr);
        assert!(fresh.is_empty() && fresh.capacity() >= 1000);
        drop(array);
        // A different type never gets it.
        assert_eq!(s.take::<u8>().capacity(), 0);
        let back = s.take::<i64>();
        assert_eq!(back.as_ptr(), ptr);
        assert!(back.is_empty() && back.capacity() >= 1000);
    }

    #[test]
    fn a_buffer_in_use_is_let_go_after_one_round() {
        let mut s = Spare::default();
        let array = s.lend(vec![1u32, 2, 3]);
        s.next_round();
        let again = s.take::<u32>();
        assert_eq!(again.capacity(), 3);
        s.next_round();
        // The handle is gone: `array` owns its buffer alone and can become a Vec again.
        assert!(array.into_inner().into_vec::<u32>().is_ok());
    }

    #[test]
    fn parked_batches_go_to_the_next_reader_within_the_cap() {
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
        // Values held as `Value`s (the default) are not kept; the other comes back whole.
        park(vec![b, ColumnBatch::default()]);
        let back = unpark(2);
        assert_eq!(back[0].heap_bytes(), Some(bytes));
        assert_eq!(back[1], ColumnBatch::default());
        assert_eq!(unpark(1)[0], ColumnBatch::default());
        // Past the cap nothing more is kept.
        let one = back[0].clone();
        let per = one.heap_bytes().unwrap();
        park(vec![one; PARKED_BYTES / per + 2]);
        let parked = unpark(PARKED_BYTES / per + 2);
        let held: usize = parked.iter().filter_map(|b| b.heap_bytes()).sum();
        assert!(held <= PARKED_BYTES && held + per > PARKED_BYTES, "{held}");
    }
}
