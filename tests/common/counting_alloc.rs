//! A global allocator for test binaries that counts what the current thread asks for: the
//! largest single request and the most bytes live at once. Include it with
//! `#[path = "common/counting_alloc.rs"] mod counting_alloc;` and install it with
//! `#[global_allocator] static A: counting_alloc::Counting = counting_alloc::Counting;`.
//! Only the test binaries that want it include it (a global allocator is per binary).
//!
//! Counts are per thread, so tests that the harness runs in parallel do not see each other's
//! allocations. Requests are recorded whether or not the system grants them: asking for a
//! gigabyte is what a decompression bomb makes a reader do, even when the request fails.
#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// The counting allocator (delegates to [`System`]).
pub struct Counting;

thread_local! {
    static LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK_LIVE: Cell<usize> = const { Cell::new(0) };
    static PEAK_ONE: Cell<usize> = const { Cell::new(0) };
}

fn grew(request: usize, added: usize) {
    let _ = PEAK_ONE.try_with(|p| p.set(p.get().max(request)));
    let _ = LIVE.try_with(|l| {
        let now = l.get().saturating_add(added);
        l.set(now);
        let _ = PEAK_LIVE.try_with(|p| p.set(p.get().max(now)));
    });
}

fn shrank(n: usize) {
    // A block freed by another thread than the one that allocated it: saturate at 0.
    let _ = LIVE.try_with(|l| l.set(l.get().saturating_sub(n)));
}

// SAFETY: every call is forwarded to `System` unchanged; the counters are thread-local cells
// with constant initialisers, which never allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        grew(layout.size(), if p.is_null() { 0 } else { layout.size() });
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc_zeroed(layout);
        grew(layout.size(), if p.is_null() { 0 } else { layout.size() });
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        System.dealloc(ptr, layout);
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = System.realloc(ptr, layout, new_size);
        if p.is_null() {
            grew(new_size, 0);
        } else if new_size >= layout.size() {
            grew(new_size, new_size - layout.size());
        } else {
            shrank(layout.size() - new_size);
        }
        p
    }
}

/// What [`measure`] saw.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Usage {
    /// The largest single allocation (or reallocation) requested, in bytes.
    pub peak_single: usize,
    /// The most bytes live at once, above what was live when the measurement started.
    pub peak_live: usize,
}

/// Runs `f` and reports this thread's allocations during it. Needs [`Counting`] installed as
/// the global allocator (otherwise every count is 0).
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Usage) {
    let base = LIVE.with(Cell::get);
    PEAK_ONE.with(|p| p.set(0));
    PEAK_LIVE.with(|p| p.set(base));
    let r = f();
    let usage = Usage {
        peak_single: PEAK_ONE.with(Cell::get),
        peak_live: PEAK_LIVE.with(Cell::get).saturating_sub(base),
    };
    (r, usage)
}
