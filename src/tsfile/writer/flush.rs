//! Turning every device's buffered rows into chunk-group bytes at a flush: pages sealed
//! (encoded, compressed) and chunks laid out, spread over [`WriterOptions::threads`]
//! threads, each with its own codecs and buffers. Pages and chunk groups are independent,
//! so the bytes are the same for any number of threads; the caller writes the groups in
//! device order and places their chunk offsets.
//!
//! [`WriterOptions::threads`]: super::WriterOptions::threads

use super::chunk::PageWork;
use super::group::{FlushedChunk, Group};
use crate::tsfile::encoding::compression::PageCodecs;
use crate::tsfile::format::{Compression, DeviceId};
use crate::{Error, Result};

/// One device's chunk group, ready to be written.
#[derive(Default)]
pub(crate) struct EncodedGroup {
    /// The chunk-group marker, the device id and every chunk.
    pub bytes: Vec<u8>,
    /// The chunks, with offsets from the start of [`bytes`](Self::bytes).
    pub chunks: Vec<FlushedChunk>,
}

/// Encodes each of `groups` and hands it to `emit` with its index, in order, skipping
/// devices that hold nothing. Up to `threads` threads share the work: the calling thread
/// takes the first share with `work` and emits each group as soon as it is encoded (reusing
/// one buffer), the others get codecs of their own (`zstd_level` for ZSTD pages) and their
/// groups are emitted after them. `emit` may take the chunks. The first error stops the
/// flush.
pub(crate) fn encode_groups(
    mut groups: Vec<(&DeviceId, &mut Group)>,
    threads: usize,
    zstd_level: i32,
    work: &mut PageWork,
    mut emit: impl FnMut(usize, &mut EncodedGroup) -> Result<()>,
) -> Result<()> {
    // Only groups holding rows are shared out (an even share of all devices could give one
    // thread every busy one).
    let mut busy: Vec<(usize, &mut (&DeviceId, &mut Group))> = (groups.iter_mut().enumerate())
        .filter(|(_, (_, g))| !g.is_empty())
        .collect();
    let per_thread = if threads <= 1 || busy.len() < 2 {
        busy.len().max(1)
    } else {
        busy.len().div_ceil(threads)
    };
    let mut parts = busy.chunks_mut(per_thread);
    let mine = parts.next().unwrap_or_default();
    std::thread::scope(|s| {
        let workers: Vec<_> = parts
            .map(|part| {
                s.spawn(move || -> Result<Vec<(usize, EncodedGroup)>> {
                    let mut codecs = PageCodecs::new();
                    codecs.set_level(Compression::Zstd, Some(zstd_level))?;
                    let mut work = PageWork::new(codecs);
                    let mut out = Vec::with_capacity(part.len());
                    for (i, (id, g)) in part.iter_mut() {
                        let mut e = EncodedGroup::default();
                        if encode_group(id, g, &mut work, &mut e)? {
                            out.push((*i, e));
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        let mut buffer = EncodedGroup::default();
        for (i, (id, g)) in mine.iter_mut() {
            if encode_group(id, g, work, &mut buffer)? {
                emit(*i, &mut buffer)?;
            }
        }
        for w in workers {
            let part = w
                .join()
                .map_err(|_| Error::invalid("a page-encoding thread panicked"))??;
            for (i, mut e) in part {
                emit(i, &mut e)?;
            }
        }
        Ok(())
    })
}

/// Seals the group's open pages and lays out its chunk group in `into` (cleared first);
/// false when nothing is buffered.
fn encode_group(
    id: &DeviceId,
    group: &mut Group,
    work: &mut PageWork,
    into: &mut EncodedGroup,
) -> Result<bool> {
    into.bytes.clear();
    into.chunks.clear();
    if group.is_empty() {
        return Ok(false);
    }
    group.seal_pages(work)?;
    into.bytes.reserve(group.sealed_bytes() + 64);
    into.bytes.push(0x00);
    id.write_to(&mut into.bytes)?;
    into.chunks = group.flush(work, &mut into.bytes, 0)?;
    Ok(!into.chunks.is_empty())
}
