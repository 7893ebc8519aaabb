//! The global allocator: mimalloc (the engines build and drop many small
//! trees, which it handles much better than the system allocator), counting
//! the bytes in use so that sessions can enforce a memory limit.

use std::alloc::{GlobalAlloc, Layout};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

pub struct Counting;

static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// Bytes currently allocated by the process.
pub fn in_use() -> usize {
    IN_USE.load(Relaxed)
}

// SAFETY: every call is forwarded to mimalloc with the same arguments; the
// counter is only bookkeeping.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) };
        if !p.is_null() {
            IN_USE.fetch_add(layout.size(), Relaxed);
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            IN_USE.fetch_sub(layout.size(), Relaxed);
            IN_USE.fetch_add(new_size, Relaxed);
        }
        p
    }
}
