//! Native stack headroom of the executor. MuranoPL recursion is Rust
//! recursion (a method call evaluates YAQL, which calls the next method), so
//! deep recursion must neither overflow the stack nor be cut short by a small
//! thread stack.
//!
//! Each method call makes sure some stack is left and otherwise continues on
//! a fresh heap-allocated segment (`stacker`, as the YAQL evaluator does), so
//! the call depth limit (`call.rs`) is what ends recursion whatever the
//! embedder's thread stack is. Green threads (`green.rs`) run on fixed
//! coroutine stacks that `stacker` does not know: each records its stack's
//! range, and a call on that stack below its floor ends with
//! `RecursionError` (calls on a segment `stacker` made are `stacker`'s).

use std::cell::Cell;

/// Stack a method call wants left before it starts.
const RED_ZONE: usize = 1 << 20;

/// Size of each extra stack segment.
const SEGMENT: usize = 32 << 20;

/// The stack of a green thread: from `limit` (lowest address) to `top`.
#[derive(Clone, Copy, Default)]
pub struct Bounds {
    pub limit: usize,
    pub top: usize,
}

/// Room kept free at the bottom of a green thread's stack.
const GREEN_RESERVE: usize = 512 << 10;

thread_local! {
    /// The stack of the running green thread (all zero: not in one).
    static GREEN: Cell<(usize, usize)> = const { Cell::new((0, 0)) };
}

/// The current stack address (approximately the stack pointer).
#[inline(never)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Set the bounds of the running flow; returns the previous ones.
pub fn set_bounds(b: Bounds) -> Bounds {
    let (limit, top) = GREEN.with(|g| g.replace((b.limit, b.top)));
    Bounds { limit, top }
}

/// The bounds of the running flow (zero outside green threads).
pub fn bounds() -> Bounds {
    let (limit, top) = GREEN.with(Cell::get);
    Bounds { limit, top }
}

/// Run `f` with enough stack for a method call; `None` when the running
/// green thread has no room left on its own stack.
pub fn with_room<R>(f: impl FnOnce() -> R) -> Option<R> {
    let b = bounds();
    let at = here();
    if b.limit <= at && at <= b.top {
        // On the green thread's own stack (not on a segment made for it).
        return (at >= b.limit + GREEN_RESERVE).then(f);
    }
    Some(stacker::maybe_grow(RED_ZONE, SEGMENT, f))
}
