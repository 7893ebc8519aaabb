//! Python's signal handlers during a long evaluation: Ctrl-C
//! (KeyboardInterrupt), or the exception of a handler such as an alarm's,
//! stops it as it stops the reference's. The evaluation runs without the
//! GIL, where Python cannot run its handlers; an evaluation on Python's
//! main thread that has run for a while takes the GIL back now and then to
//! let them run.

use pyo3::ffi;
use pyo3::prelude::*;
use std::cell::RefCell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use vetro_yaql::limits::{Interrupt, Progress};

/// Evaluations shorter than this never take the GIL to look.
const AFTER: Duration = Duration::from_millis(100);
/// After it, a look every this many operations (a multiple of the engine's
/// `CHECK_EVERY`): about a millisecond.
const EVERY: u64 = 1 << 16;

/// The identifier of Python's main thread, where its handlers run.
static MAIN: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// The exception a handler raised, which stopped this thread's evaluation.
    static RAISED: RefCell<Option<PyErr>> = const { RefCell::new(None) };
}

/// Learn which thread is Python's main thread (at import).
pub fn init(py: Python<'_>) -> PyResult<()> {
    let main = py.import("threading")?.call_method0("main_thread")?;
    MAIN.store(main.getattr("ident")?.extract()?, Ordering::Relaxed);
    Ok(())
}

/// The engine's hook that runs Python's pending signal handlers.
pub fn interrupt() -> Interrupt {
    Interrupt::new(|p: &Progress| {
        if p.elapsed < AFTER || !p.operations.is_multiple_of(EVERY) {
            return true;
        }
        // SAFETY: reads the calling thread's identifier (no GIL needed).
        #[allow(clippy::useless_conversion)] // `c_ulong` has 32 bits on Windows
        let thread = u64::from(unsafe { ffi::PyThread_get_thread_ident() });
        if thread != MAIN.load(Ordering::Relaxed) {
            return true;
        }
        Python::attach(|py| match py.check_signals() {
            Ok(()) => true,
            Err(e) => {
                RAISED.with(|r| *r.borrow_mut() = Some(e));
                false
            }
        })
    })
}

/// The exception a signal handler raised on this thread, if it stopped
/// the evaluation.
pub fn take_raised() -> Option<PyErr> {
    RAISED.with(|r| r.borrow_mut().take())
}
