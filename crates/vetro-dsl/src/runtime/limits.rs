//! Resource limits of a session: packages are untrusted code, so a session
//! stops with its own error when it runs too many workflow steps, for too
//! long, or with too much memory (recursion depth is limited at each call,
//! see `call.rs`). Limit errors cannot be caught by `Try`. An embedder can
//! also cancel a running session from another thread (see [`Rt::set_cancel_flag`]);
//! the session stops at its next step with the uncatchable `Cancelled` error.

use super::types::Exc;
use super::Rt;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

/// The limits of one session; `None` means unlimited.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Workflow instructions and method calls.
    pub max_steps: Option<u64>,
    /// Wall-clock time from the session's start.
    pub max_time: Option<Duration>,
    /// Bytes allocated by the process above what it held when the session
    /// started (needs a memory probe, see [`set_memory_probe`]).
    pub max_memory: Option<usize>,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: Some(100_000_000),
            max_time: Some(Duration::from_secs(600)),
            max_memory: Some(4 << 30),
        }
    }
}

/// The error class names, one per limit.
pub const STEP_LIMIT: &str = "StepLimitExceeded";
pub const TIME_LIMIT: &str = "TimeLimitExceeded";
pub const MEMORY_LIMIT: &str = "MemoryLimitExceeded";
/// The error of a session cancelled by its embedder.
pub const CANCELLED: &str = "Cancelled";

/// Whether `e` is a limit error or a cancellation (not catchable by MuranoPL code).
pub fn is_limit_error(e: &Exc) -> bool {
    matches!(e, Exc::Native(n, _) if [STEP_LIMIT, TIME_LIMIT, MEMORY_LIMIT, CANCELLED].contains(&n.class.as_str()))
}

/// Whether `e` is the error of a cancelled session.
pub fn is_cancelled(e: &Exc) -> bool {
    matches!(e, Exc::Native(n, _) if n.class == CANCELLED)
}

static MEMORY_PROBE: OnceLock<fn() -> usize> = OnceLock::new();

/// Install the function that tells how many bytes the process has allocated
/// (the `vetro` binary counts them in its global allocator).
pub fn set_memory_probe(probe: fn() -> usize) {
    let _ = MEMORY_PROBE.set(probe);
}

fn allocated() -> Option<usize> {
    MEMORY_PROBE.get().map(|probe| probe())
}

/// What a session has used so far.
pub struct Budget {
    steps: Cell<u64>,
    started: Instant,
    memory_base: usize,
    cancel: RefCell<Option<Arc<AtomicBool>>>,
}

impl Budget {
    pub fn start() -> Budget {
        Budget {
            steps: Cell::new(0),
            started: Instant::now(),
            memory_base: allocated().unwrap_or(0),
            cancel: RefCell::new(None),
        }
    }
}

/// Time and memory are looked at every this many steps.
const CHECK_EVERY: u64 = 256;

impl Rt {
    /// Stop the session at its next step once `flag` is set (from any thread).
    pub fn set_cancel_flag(&self, flag: Arc<AtomicBool>) {
        *self.budget.cancel.borrow_mut() = Some(flag);
    }

    /// Count one step; fails once a limit is passed or the session is cancelled.
    pub fn charge_step(&self) -> Result<(), Exc> {
        if let Some(flag) = self.budget.cancel.borrow().as_ref() {
            if flag.load(Ordering::Relaxed) {
                return Err(Exc::native("", CANCELLED, "the session was cancelled"));
            }
        }
        let steps = self.budget.steps.get() + 1;
        self.budget.steps.set(steps);
        let limits = self.limits.borrow();
        if limits.max_steps.is_some_and(|max| steps > max) {
            return Err(Exc::native(
                "",
                STEP_LIMIT,
                format!(
                    "the session ran more than {steps_max} steps",
                    steps_max = steps - 1
                ),
            ));
        }
        if !steps.is_multiple_of(CHECK_EVERY) {
            return Ok(());
        }
        if let Some(max) = limits.max_time {
            if self.budget.started.elapsed() > max {
                return Err(Exc::native(
                    "",
                    TIME_LIMIT,
                    format!("the session ran longer than {} s", max.as_secs_f64()),
                ));
            }
        }
        if let (Some(max), Some(now)) = (limits.max_memory, allocated()) {
            let used = now.saturating_sub(self.budget.memory_base);
            if used > max {
                return Err(Exc::native(
                    "",
                    MEMORY_LIMIT,
                    format!("the session allocated more than {} MiB", max >> 20),
                ));
            }
        }
        Ok(())
    }
}
