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
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// One device's chunk group, ready to be written.
#[derive(Default)]
pub(crate) struct EncodedGroup {
    /// The chunk-group marker, the device id and every chunk.
    pub bytes: Vec<u8>,
    /// The chunks, with offsets from the start of [`bytes`](Self::bytes).
    pub chunks: Vec<FlushedChunk>,
}

/// Where one device's encoded chunk group stands.
enum Slot {
    /// Not encoded yet.
    Pending,
    /// Encoded, holding nothing.
    Empty,
    /// Encoded, waiting to be emitted.
    Ready(EncodedGroup),
}

/// Locks `m`, whatever a panicking thread left in it (its panic is reported by the join).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Encodes each of `groups` and hands it to `emit` with its index, in order, skipping
/// devices that hold nothing. Up to `threads` threads take the groups holding rows one at a
/// time from a shared counter (no thread waits on another's share of busy devices), each
/// with its own codecs (`zstd_level` for ZSTD pages; the calling thread uses `work`). The
/// calling thread also emits each group as soon as it and every group before it are
/// encoded, and the emitted groups' buffers are reused. `emit` may take the chunks. The
/// first error stops the flush.
pub(crate) fn encode_groups(
    mut groups: Vec<(&DeviceId, &mut Group)>,
    threads: usize,
    zstd_level: i32,
    work: &mut PageWork,
    mut emit: impl FnMut(usize, &mut EncodedGroup) -> Result<()>,
) -> Result<()> {
    type Task<'a> = Mutex<Option<(&'a DeviceId, &'a mut Group)>>;
    let (order, tasks): (Vec<usize>, Vec<Task<'_>>) = (groups.iter_mut().enumerate())
        .filter(|(_, (_, g))| !g.is_empty())
        .map(|(i, (id, g))| (i, Mutex::new(Some((&**id, &mut **g)))))
        .unzip();
    let slots: Vec<Mutex<Slot>> = tasks.iter().map(|_| Mutex::new(Slot::Pending)).collect();
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    let spare: Mutex<Vec<EncodedGroup>> = Mutex::new(Vec::new());
    // Takes the next group and encodes it into its slot; false when none is left.
    let take_one = |work: &mut PageWork| -> Result<bool> {
        if failed.load(Ordering::Relaxed) {
            return Ok(false);
        }
        let k = next.fetch_add(1, Ordering::Relaxed);
        let (Some(task), Some(slot)) = (tasks.get(k), slots.get(k)) else {
            return Ok(false);
        };
        let Some((id, group)) = lock(task).take() else {
            return Err(Error::invalid("a chunk group was taken twice"));
        };
        let mut e = lock(&spare).pop().unwrap_or_default();
        let r = encode_group(id, group, work, &mut e);
        let done = match r {
            Ok(true) => Slot::Ready(e),
            Ok(false) => {
                lock(&spare).push(e);
                Slot::Empty
            }
            Err(err) => {
                failed.store(true, Ordering::Relaxed);
                return Err(err);
            }
        };
        *lock(slot) = done;
        Ok(true)
    };
    // Emits the groups from `*emitted` on while they are encoded, in order.
    let mut emit_ready = |emitted: &mut usize| -> Result<()> {
        while let (Some(slot), Some(&i)) = (slots.get(*emitted), order.get(*emitted)) {
            let taken = {
                let mut guard = lock(slot);
                if matches!(*guard, Slot::Pending) {
                    return Ok(());
                }
                std::mem::replace(&mut *guard, Slot::Empty)
            };
            *emitted += 1;
            if let Slot::Ready(mut e) = taken {
                emit(i, &mut e)?;
                lock(&spare).push(e);
            }
        }
        Ok(())
    };
    std::thread::scope(|s| {
        let workers: Vec<_> = (1..threads.min(tasks.len()))
            .map(|_| {
                s.spawn(|| -> Result<()> {
                    let mut codecs = PageCodecs::new();
                    codecs.set_level(Compression::Zstd, Some(zstd_level))?;
                    let mut work = PageWork::new(codecs);
                    while take_one(&mut work)? {}
                    Ok(())
                })
            })
            .collect();
        let mut emitted = 0;
        let mut mine = || -> Result<()> {
            while take_one(work)? {
                emit_ready(&mut emitted)?;
            }
            Ok(())
        };
        let r = mine();
        if r.is_err() {
            failed.store(true, Ordering::Relaxed);
        }
        let mut first_error = r.err();
        for w in workers {
            let joined = (w.join())
                .map_err(|_| Error::invalid("a page-encoding thread panicked"))
                .and_then(|r| r);
            if let Err(e) = joined {
                first_error.get_or_insert(e);
            }
        }
        if let Some(e) = first_error {
            return Err(e);
        }
        // Every group is encoded now: the rest go out in order.
        emit_ready(&mut emitted)
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
