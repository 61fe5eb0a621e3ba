//! The bounded output window ([`Sink`]) that every decoder writes into, appended to a `Vec`
//! ([`decompress_into`]) or over what it already holds ([`replace_into`]), and the rollback of
//! a failed encode.

use crate::{Error, Result};

/// The part of a caller's `Vec` that one `decompress` call may write: at most `expected` bytes
/// after the length the `Vec` had on entry.
///
/// Capacity for all `expected` bytes is reserved up front (so the buffer never moves), but the
/// bytes are zeroed and handed to the decoder only as it needs them, so input that claims far
/// more than it holds fails before much memory is touched. Bytes the `Vec` already holds past
/// `start` (when replacing its contents) are handed out as they are, without zeroing.
pub(crate) struct Sink<'a> {
    out: &'a mut Vec<u8>,
    start: usize,
    filled: usize,
    expected: usize,
}

impl Sink<'_> {
    /// Bytes still wanted.
    pub(crate) fn remaining(&self) -> usize {
        self.expected - self.filled
    }

    /// The number of bytes the sink was made for.
    #[cfg(any(
        feature = "deflate",
        feature = "zstd",
        feature = "bzip2",
        feature = "lzma2"
    ))]
    pub(crate) fn expected(&self) -> usize {
        self.expected
    }

    /// Whether all expected bytes have been produced.
    pub(crate) fn is_full(&self) -> bool {
        self.filled == self.expected
    }

    /// Writable room for up to `want` bytes (fewer if fewer remain), right after what has been
    /// produced.
    pub(crate) fn room(&mut self, want: usize) -> &mut [u8] {
        let from = self.start + self.filled;
        let to = from + want.min(self.remaining());
        if self.out.len() < to {
            // Within the reserved capacity: no reallocation.
            self.out.resize(to, 0);
        }
        // `out` holds at least `to` bytes now.
        self.out.get_mut(from..to).unwrap_or_default()
    }

    /// Room for a streaming decoder: what is already zeroed, or else a step that starts at
    /// `first` bytes and then doubles with what has been produced.
    #[cfg(any(
        feature = "deflate",
        feature = "zstd",
        feature = "bzip2",
        feature = "lzma2"
    ))]
    pub(crate) fn stream_room(&mut self, first: usize) -> &mut [u8] {
        let zeroed = self.out.len() - (self.start + self.filled);
        let want = if zeroed > 0 {
            zeroed
        } else {
            first.max(self.filled)
        };
        self.room(want)
    }

    /// The caller's `Vec` itself, when nothing is zeroed ahead and its spare capacity is exactly
    /// what remains to be produced: a decoder that writes into spare capacity then can neither
    /// go past the expected length nor reallocate, and nothing needs zeroing first. This is the
    /// case when the caller passes a `Vec` without excess capacity (e.g. a new one).
    #[cfg(any(
        feature = "deflate",
        feature = "zstd",
        feature = "bzip2",
        feature = "lzma2"
    ))]
    pub(crate) fn exact_spare(&mut self) -> Option<&mut Vec<u8>> {
        let at = self.start + self.filled;
        let exact = self.out.len() == at && self.out.capacity() - at == self.remaining();
        exact.then_some(&mut *self.out)
    }

    /// Records that the decoder wrote `n` bytes at the start of the last room.
    pub(crate) fn commit(&mut self, n: usize) {
        debug_assert!(n <= self.remaining());
        self.filled = (self.filled + n).min(self.expected);
    }
}

/// Runs `decode` with a [`Sink`] for `expected` bytes appended to `out`, then checks that it
/// produced all of them. `what` names the data in a [`crate::ErrorKind::Truncated`] error. On
/// any error `out` is restored to its length on entry.
pub(crate) fn decompress_into(
    out: &mut Vec<u8>,
    expected: usize,
    what: &'static str,
    decode: impl FnOnce(&mut Sink<'_>) -> Result<()>,
) -> Result<()> {
    let start = out.len();
    fill(out, start, expected, what, decode)
}

/// Like [`decompress_into`], but the `expected` bytes replace the contents of `out`, and the
/// bytes `out` already holds are overwritten rather than zeroed again first: a `Vec` reused for
/// buffers of similar sizes is zeroed once in its life instead of once per buffer. On any error
/// `out` is left empty.
pub(crate) fn replace_into(
    out: &mut Vec<u8>,
    expected: usize,
    what: &'static str,
    decode: impl FnOnce(&mut Sink<'_>) -> Result<()>,
) -> Result<()> {
    out.truncate(expected);
    fill(out, 0, expected, what, decode)
}

/// The body of [`decompress_into`] and [`replace_into`]: the output goes to `out[start..]`,
/// and `out` may already hold initialised bytes past `start`.
fn fill(
    out: &mut Vec<u8>,
    start: usize,
    expected: usize,
    what: &'static str,
    decode: impl FnOnce(&mut Sink<'_>) -> Result<()>,
) -> Result<()> {
    if expected == 0 {
        out.truncate(start);
        return Ok(());
    }
    // Address space only: pages are touched as the decoder fills them.
    let more = start.saturating_add(expected).saturating_sub(out.len());
    out.try_reserve_exact(more).map_err(|e| {
        if start.saturating_add(expected) > isize::MAX as usize {
            Error::limit("decompressed size", expected as u64, isize::MAX as u64)
        } else {
            let message = format!("cannot reserve {expected} bytes for decompressed data: {e}");
            Error::from(std::io::Error::new(
                std::io::ErrorKind::OutOfMemory,
                message,
            ))
        }
    })?;
    let mut sink = Sink {
        out,
        start,
        filled: 0,
        expected,
    };
    let result = decode(&mut sink);
    let filled = sink.filled;
    match result {
        Ok(()) if filled == expected => {
            out.truncate(start + expected);
            Ok(())
        }
        Ok(()) => {
            out.truncate(start);
            Err(Error::truncated(what, expected as u64, filled as u64))
        }
        Err(e) => {
            out.truncate(start);
            Err(e)
        }
    }
}

/// Runs `encode` on `out`; if it fails, `out` is restored to its length on entry.
pub(crate) fn append_or_restore(
    out: &mut Vec<u8>,
    encode: impl FnOnce(&mut Vec<u8>) -> Result<()>,
) -> Result<()> {
    let start = out.len();
    let result = encode(out);
    if result.is_err() {
        out.truncate(start);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn sink_appends_exactly_or_restores() {
        let mut out = b"keep".to_vec();
        decompress_into(&mut out, 6, "test", |sink| {
            assert_eq!(sink.remaining(), 6);
            sink.room(4).copy_from_slice(b"abcd");
            sink.commit(4);
            // Room is clamped to what remains.
            assert_eq!(sink.room(100).len(), 2);
            sink.room(2).copy_from_slice(b"ef");
            sink.commit(2);
            assert!(sink.is_full());
            Ok(())
        })
        .unwrap();
        assert_eq!(out, b"keepabcdef");

        let err = decompress_into(&mut out, 5, "test", |sink| {
            sink.room(5)[0] = 1;
            sink.commit(1);
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(
            err.kind(),
            ErrorKind::Truncated {
                needed: 5,
                available: 1,
                ..
            }
        ));
        assert_eq!(out, b"keepabcdef");

        let err = decompress_into(&mut out, 5, "test", |_| Err(Error::corrupt("test", "no")))
            .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Corrupt { .. }));
        assert_eq!(out, b"keepabcdef");
    }

    #[test]
    fn replacing_overwrites_what_is_there_without_zeroing() {
        let mut out = b"stale bytes".to_vec();
        replace_into(&mut out, 4, "test", |sink| {
            // The first room is what `out` held, not zeroes.
            let room = sink.room(3);
            assert_eq!(room, b"sta");
            room.copy_from_slice(b"abc");
            sink.commit(3);
            // Past what `out` held: zeroed as usual.
            sink.room(1)[0] = b'd';
            sink.commit(1);
            Ok(())
        })
        .unwrap();
        assert_eq!(out, b"abcd");
        let mut longer = b"ab".to_vec();
        replace_into(&mut longer, 3, "test", |sink| {
            assert_eq!(sink.room(9), &[b'a', b'b', 0]);
            sink.room(3).copy_from_slice(b"xyz");
            sink.commit(3);
            Ok(())
        })
        .unwrap();
        assert_eq!(longer, b"xyz");
        let err = replace_into(&mut out, 4, "test", |sink| {
            sink.commit(2);
            Ok(())
        })
        .unwrap_err();
        assert!(matches!(err.kind(), ErrorKind::Truncated { .. }));
        assert!(out.is_empty(), "a failed replace leaves nothing behind");
        replace_into(&mut longer, 0, "test", |_| unreachable!()).unwrap();
        assert!(longer.is_empty());
    }

    #[test]
    fn zero_expected_never_calls_the_decoder() {
        let mut out = Vec::new();
        decompress_into(&mut out, 0, "test", |_| unreachable!()).unwrap();
        assert!(out.is_empty());
    }

    #[test]
    fn impossible_sizes_are_a_limit_error_not_an_abort() {
        let mut out = vec![0u8; 1];
        let err = decompress_into(&mut out, usize::MAX, "test", |_| Ok(())).unwrap_err();
        assert!(
            matches!(err.kind(), ErrorKind::LimitExceeded { .. }),
            "{err}"
        );
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn failed_encode_leaves_out_alone() {
        let mut out = b"keep".to_vec();
        let err = append_or_restore(&mut out, |out| {
            out.extend_from_slice(b"partial");
            Err(Error::invalid("no"))
        });
        assert!(err.is_err());
        assert_eq!(out, b"keep");
    }
}
