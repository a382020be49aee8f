//! The memory rows of the `shapes` bench: bytes held per value, counted by
//! a global allocator that adds up the sizes requested while counting is
//! on (only around the measured construction, so the timed rows pay one
//! relaxed load per allocation).
//!
//! Included by `shapes.rs` alone: the other benches keep the system
//! allocator as it is.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};

/// The system allocator, counting the bytes in use while `ON` is set.
pub struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        }
        System.alloc(layout)
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        }
        System.dealloc(ptr, layout)
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if ON.load(Ordering::Relaxed) {
            LIVE.fetch_add(
                new_size as isize - layout.size() as isize,
                Ordering::Relaxed,
            );
        }
        System.realloc(ptr, layout, new_size)
    }
}

/// Heap bytes that `make` leaves allocated in what it returns, plus the
/// size of the value itself: what holding one more such value costs.
/// `make` is run `n` times into one vector (made beforehand), so the
/// figure is an average over `n` values.
pub fn held<V>(n: usize, mut make: impl FnMut() -> V) -> usize {
    let mut values = Vec::with_capacity(n);
    LIVE.store(0, Ordering::SeqCst);
    ON.store(true, Ordering::SeqCst);
    for _ in 0..n {
        values.push(make());
    }
    ON.store(false, Ordering::SeqCst);
    let heap = LIVE.load(Ordering::SeqCst).max(0) as usize;
    // Freed outside counting: a free of a counted allocation would be
    // missed, not miscounted.
    drop(values);
    heap / n + std::mem::size_of::<V>()
}
