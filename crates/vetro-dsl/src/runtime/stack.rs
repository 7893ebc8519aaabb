//! Native stack headroom of the executor. MuranoPL recursion is Rust
//! recursion (a method call evaluates YAQL, which calls the next method), so
//! deep recursion must neither overflow the stack nor be cut short by a small
//! thread stack.
//!
//! Each method call makes sure some stack is left and otherwise continues on
//! a fresh heap-allocated segment (`stacker`, as the YAQL evaluator does), so
//! the call depth limit (`call.rs`) is what ends recursion whatever the
//! embedder's thread stack is. Green threads (`green.rs`) run on fixed
//! coroutine stacks that `stacker` does not know: each declares its stack's
//! range (to the YAQL evaluator too, whose walks then run on that stack
//! instead of mapping a new segment at every evaluation), and a call on
//! that stack below its floor ends with `RecursionError` (calls on a
//! segment `stacker` made are `stacker`'s).

/// Stack a method call wants left before it starts.
const RED_ZONE: usize = 1 << 20;

/// Size of each extra stack segment.
const SEGMENT: usize = 32 << 20;

/// The stack of a green thread: from `limit` (lowest address) to `top`
/// (declared to the YAQL evaluator, whose walks measure their headroom
/// against it; see `vetro_yaql::stack`).
pub(super) use vetro_yaql::stack::Bounds;

/// Room kept free at the bottom of a green thread's stack.
const GREEN_RESERVE: usize = 512 << 10;

use vetro_yaql::stack::here;

/// Set the bounds of the running flow; returns the previous ones.
pub(super) fn set_bounds(b: Bounds) -> Bounds {
    vetro_yaql::stack::set_bounds(b)
}

/// The bounds of the running flow (zero outside green threads).
pub(super) fn bounds() -> Bounds {
    vetro_yaql::stack::bounds()
}

/// Why [`with_room`] could not run a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum NoRoom {
    /// The running green thread's own stack is used up.
    Recursion,
    /// A new stack segment could not be mapped (address space or mappings
    /// exhausted).
    Memory,
}

/// Run `f` with enough stack for a method call.
pub(super) fn with_room<R>(f: impl FnOnce() -> R) -> Result<R, NoRoom> {
    let b = bounds();
    let at = here();
    if b.limit <= at && at <= b.top {
        // On the green thread's own stack (not on a segment made for it).
        return if at >= b.limit + GREEN_RESERVE {
            Ok(f())
        } else {
            Err(NoRoom::Recursion)
        };
    }
    grow(f).ok_or(NoRoom::Memory)
}

/// `stacker::maybe_grow`, except that a segment the system refuses is
/// `None` rather than a panic (stacker asserts on a failed `mmap`).
fn grow<R>(f: impl FnOnce() -> R) -> Option<R> {
    if stacker::remaining_stack().is_some_and(|left| left >= RED_ZONE) {
        return Some(f());
    }
    let mut f = Some(f);
    let mut out = None;
    let grown = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stacker::grow(SEGMENT, || out = f.take().map(|f| f()))
    }));
    match grown {
        Ok(()) => out,
        // `f` ran and panicked itself: that panic goes on.
        Err(p) if f.is_none() => std::panic::resume_unwind(p),
        // The segment was never made (stacker panics before switching).
        Err(_) => None,
    }
}
