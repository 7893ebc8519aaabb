//! Stack headroom of the recursive walks (evaluation, output conversion,
//! walks over nested values).
//!
//! Each walk asks for some stack left before it goes a level deeper and
//! otherwise continues on a segment taken from the heap (`stacker`).
//! `stacker` knows the stack of the thread and of the segments it made, not
//! the stacks of coroutines a host switches between (MuranoPL's green
//! threads): there it would see no room at all and map a new segment at
//! every check. A host running code on such a stack declares its bounds
//! with [`set_bounds`] while it runs there, and the checks measure against
//! them.

use std::cell::Cell;

/// The bounds of a stack the host switched to: `limit` is its lowest
/// address, `top` its highest (both zero: the thread's own stack).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    pub limit: usize,
    pub top: usize,
}

// Why the declared bounds belong to the thread and not to an evaluation's
// run or runtime: the stack is a property of the flow of control running on
// the OS thread at this moment, not of the evaluation. A MuranoPL session's
// green threads switch stacks under one session, whose evaluations all count
// in one run, and a `yield` inside a host function suspends an evaluation on
// one coroutine stack while others run on theirs: only the code that
// switches (the scheduler, on this thread) knows which stack comes next, and
// it declares it here at each switch. The walks that check their headroom
// without any evaluation at hand (comparing, hashing and rendering nested
// values, a host's output conversion, MuranoPL's own recursion) need the same
// answer. `stacker` keeps the thread's own stack limit per thread for the
// same reason. Off the hot path: an evaluation reads it when it measures its
// `Room` (once, and again only after leaving the stretch it measured), a
// value walk once per nested container.
thread_local! {
    /// The stack the running flow is on, when the host declared one.
    static CURRENT: Cell<Bounds> = const { Cell::new(Bounds { limit: 0, top: 0 }) };
}

/// Declare the stack the running flow is on (zero bounds: the thread's own
/// stack); returns the bounds declared before.
pub fn set_bounds(b: Bounds) -> Bounds {
    CURRENT.with(|c| c.replace(b))
}

/// The bounds declared with [`set_bounds`] (zero outside a host's stack).
pub fn bounds() -> Bounds {
    CURRENT.with(Cell::get)
}

/// The current stack address (approximately the stack pointer).
#[inline(never)]
pub fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Run `f` with at least `red_zone` bytes of stack: on the spot when that
/// much is left, else on a new segment of `size` bytes.
#[inline]
pub fn maybe_grow<R>(red_zone: usize, size: usize, f: impl FnOnce() -> R) -> R {
    if room_on_declared(bounds(), here(), red_zone) {
        return f();
    }
    stacker::maybe_grow(red_zone, size, f)
}

/// A stretch of one stack where a walk has at least a given red zone left
/// below it: a walk measures it once ([`Room::measure`]) and then compares
/// its stack address against it ([`Room::has`]) instead of asking how much
/// stack is left at each level.
#[derive(Clone, Copy, Debug, Default)]
pub struct Room {
    floor: usize,
    span: usize,
}

impl Room {
    /// The stretch from the current address down to `red_zone` bytes above
    /// the end of the stack it is on (the declared one, or the thread's or
    /// a `stacker` segment as `stacker` knows them); empty when that stack
    /// is unknown or has less left.
    pub fn measure(red_zone: usize) -> Room {
        let at = here();
        let b = bounds();
        let floor = if room_on_declared(b, at, red_zone) {
            b.limit + red_zone
        } else {
            match stacker::remaining_stack() {
                Some(left) if left > red_zone => at - left + red_zone,
                _ => return Room::default(),
            }
        };
        Room {
            floor,
            span: at - floor,
        }
    }

    /// Whether `at` (a stack address, [`here`]) lies in the stretch.
    #[inline]
    pub fn has(&self, at: usize) -> bool {
        at.wrapping_sub(self.floor) < self.span
    }
}

/// [`maybe_grow`] for a walk that keeps its [`Room`] in `room`: on the spot
/// while the current address is in it, else measured again (and kept when
/// there is room there).
#[inline]
pub fn grow_in<R>(
    room: &std::cell::Cell<Room>,
    red_zone: usize,
    size: usize,
    f: impl FnOnce() -> R,
) -> R {
    if room.get().has(here()) {
        return f();
    }
    grow_in_slow(room, red_zone, size, f)
}

#[cold]
fn grow_in_slow<R>(
    room: &std::cell::Cell<Room>,
    red_zone: usize,
    size: usize,
    f: impl FnOnce() -> R,
) -> R {
    let r = Room::measure(red_zone);
    if r.span > 0 {
        room.set(r);
        return f();
    }
    stacker::maybe_grow(red_zone, size, f)
}

/// Whether `at` is on the declared stack `b` with `red_zone` bytes below it.
fn room_on_declared(b: Bounds, at: usize, red_zone: usize) -> bool {
    b.limit <= at && at <= b.top && at - b.limit >= red_zone
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn room_is_measured_against_the_declared_stack() {
        let b = Bounds {
            limit: 0x10_0000,
            top: 0x90_0000,
        };
        assert!(room_on_declared(b, 0x80_0000, 0x1_0000));
        // Too close to its end.
        assert!(!room_on_declared(b, 0x10_8000, 0x1_0000));
        // Not on it (a segment `stacker` made, or the thread's stack).
        assert!(!room_on_declared(b, 0xa0_0000, 0x1_0000));
        assert!(!room_on_declared(Bounds::default(), 0x80_0000, 0x1_0000));
    }

    #[test]
    fn bounds_are_set_and_restored() {
        let b = Bounds {
            limit: 1 << 20,
            top: 2 << 20,
        };
        let prev = set_bounds(b);
        assert_eq!(bounds(), b);
        assert_eq!(set_bounds(prev), b);
        assert_eq!(bounds(), prev);
    }
}
