//! How deep the conversions between Python objects and YAQL values may
//! nest containers. They recurse on the native stack, which a value nested
//! deeply enough (a list that holds itself, or `range(100000).aggregate([$1],
//! [])`) would overflow, taking the process down. The reference converts
//! recursively in Python and raises `RecursionError` at Python's recursion
//! limit; so do these, at that limit (at most [`MAX_DEPTH`] containers
//! deep), or sooner when the thread's stack is nearly used up (threads may
//! be given small stacks: `threading.stack_size`).

use pyo3::exceptions::PyRecursionError;
use pyo3::ffi;
use pyo3::{PyErr, PyResult};

/// The deepest nesting converted, whatever Python's recursion limit.
pub const MAX_DEPTH: usize = 10_000;

/// The stack kept free below a conversion's deepest level: room for the
/// frames of one more level (a few hundred bytes optimized, over 8 KiB in a
/// debug build) and the Python code it may run (a class's own `__iter__`,
/// say).
const RED_ZONE: usize = 64 * 1024;

/// The containers a conversion is inside of, and how many it may be.
pub struct Depth {
    now: usize,
    max: usize,
    /// The lowest stack address a level may start at (`usize::MAX` until
    /// measured, 0 when the thread's stack is unknown).
    floor: usize,
    /// What is being converted, for the error.
    what: &'static str,
}

impl Depth {
    /// A conversion of `what`; the GIL must be held.
    pub fn new(what: &'static str) -> Depth {
        // SAFETY: reading the interpreter's recursion limit with the GIL held
        // (every conversion holds it).
        let limit = unsafe { ffi::Py_GetRecursionLimit() };
        Depth {
            now: 0,
            max: usize::try_from(limit).unwrap_or(0).clamp(1, MAX_DEPTH),
            floor: usize::MAX,
            what,
        }
    }

    /// One container further in; `RecursionError` past the limit or the
    /// stack's end.
    #[inline(always)]
    fn enter(&mut self) -> PyResult<()> {
        self.now += 1;
        if self.now > self.max || !self.has_stack() {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    #[inline(never)]
    fn too_deep(&mut self) -> PyErr {
        self.now -= 1;
        PyRecursionError::new_err(format!(
            "maximum recursion depth exceeded while converting {}",
            self.what
        ))
    }

    /// Out of the container entered last.
    #[inline]
    fn leave(&mut self) {
        self.now -= 1;
    }

    #[inline]
    fn has_stack(&mut self) -> bool {
        let at = vetro_yaql::stack::here();
        at > self.floor || self.measure(at)
    }

    #[cold]
    fn measure(&mut self, at: usize) -> bool {
        match stacker::remaining_stack() {
            None => {
                self.floor = 0;
                true
            }
            Some(left) if left > RED_ZONE => {
                self.floor = at - left + RED_ZONE;
                true
            }
            Some(_) => false,
        }
    }
}

/// A conversion that keeps a [`Depth`].
pub trait Nests {
    fn depth(&mut self) -> &mut Depth;
}

/// `f` run on `conversion` one container deeper: `RecursionError` instead
/// when that is too deep; the level is left however `f` ends.
#[inline(always)]
pub fn deeper<C: Nests, R>(
    conversion: &mut C,
    f: impl FnOnce(&mut C) -> PyResult<R>,
) -> PyResult<R> {
    conversion.depth().enter()?;
    let r = f(conversion);
    conversion.depth().leave();
    r
}
