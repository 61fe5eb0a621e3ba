//! Buffer recycling between the RCFile column decoder and the Arrow arrays built from it.
//!
//! A decoded column's vectors move into its Arrow arrays without a copy. Left at that, the
//! decoder would start every row group from empty vectors, and fresh large allocations
//! cost more than the copy they save (the allocator hands back new pages, each a page
//! fault). So the reader keeps a handle on the buffers it lent and, at the next row group,
//! takes back those whose arrays the caller has dropped. A buffer still in use stays the
//! caller's; the decoder then gets a new vector of the same size, allocated once.
//!
//! What a dropped reader leaves behind goes to the next reader only through a
//! [`BufferPool`](super::BufferPool) the caller gave both.

use std::alloc::Layout;

use arrow_buffer::{ArrowNativeType, Buffer, ScalarBuffer};

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
}
