//! Resource limits of a session: packages are untrusted code, so a session
//! stops with its own error when it runs too many workflow steps, for too
//! long, with too much memory, or when its embedder cancels it (recursion
//! depth is limited at each call, see `call.rs`). These errors cannot be
//! caught by `Try`.
//!
//! `SessionLimits` is the session's part that enforces them: the limits,
//! what the session has used so far, and the watch its YAQL evaluations see.

use super::types::{EngineExc, Exc, ExcClass};
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};
use vetro_yaql::value::Render;
use vetro_yaql::Value;

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
    /// Green threads (`Parallel` branches, `pselect` items) alive at once.
    /// Each has its own stack, so this bounds what a session maps.
    pub max_green_threads: Option<usize>,
    /// Set from another thread to stop the session at its next step.
    pub cancel: Option<CancelFlag>,
}

/// The default bound on a session's green threads alive at once (each
/// reserves an 8 MiB stack, so 1000 of them reserve 8 GiB of address space).
pub const DEFAULT_MAX_GREEN_THREADS: usize = 1000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_steps: Some(100_000_000),
            max_time: Some(Duration::from_secs(600)),
            max_memory: Some(4 << 30),
            max_green_threads: Some(DEFAULT_MAX_GREEN_THREADS),
            cancel: None,
        }
    }
}

/// A flag an embedder keeps to cancel a running session (a service stopping a
/// deployment): the session ends with `CANCELLED` at its next step.
#[derive(Clone, Debug, Default)]
pub struct CancelFlag(Arc<AtomicBool>);

impl From<Arc<AtomicBool>> for CancelFlag {
    fn from(flag: Arc<AtomicBool>) -> CancelFlag {
        CancelFlag(flag)
    }
}

impl CancelFlag {
    /// A flag not raised yet.
    pub fn new() -> CancelFlag {
        CancelFlag::default()
    }
    /// Ask every session holding this flag to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }
    fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// The error classes of the limits.
const STEP_LIMIT: EngineExc = EngineExc::StepLimitExceeded;
const TIME_LIMIT: EngineExc = EngineExc::TimeLimitExceeded;
const MEMORY_LIMIT: EngineExc = EngineExc::MemoryLimitExceeded;
const THREAD_LIMIT: EngineExc = EngineExc::ThreadLimitExceeded;
/// The error of a session cancelled by its embedder.
const CANCELLED: EngineExc = EngineExc::Cancelled;

/// Whether `e` is a limit error (not catchable by MuranoPL code).
pub(super) fn is_limit_error(e: &Exc) -> bool {
    matches!(e, Exc::Native(n, _) if matches!(n.class, ExcClass::Engine(c) if c.is_limit()))
}

/// Whether `e` is the error of a cancelled session.
pub fn is_cancelled(e: &Exc) -> bool {
    e.is(CANCELLED)
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

/// What the YAQL evaluations of a session look at every few hundred
/// operations (`vetro_yaql::Interrupt`), so that one long expression cannot
/// outlive the session's time, memory or cancel flag. `Send + Sync`: only
/// shared state, no session.
#[derive(Clone, Default)]
pub struct Watch {
    cancel: Arc<Mutex<Option<CancelFlag>>>,
    deadline: Option<Instant>,
    /// (bytes held when the session started, most bytes above that)
    memory: Option<(usize, usize)>,
    /// The limit that stopped an evaluation (a memory overrun may be gone
    /// by the time the error reaches the session).
    fired: Arc<Mutex<Option<EngineExc>>>,
}

impl Watch {
    /// A watch over `limits`, counting time and memory from `budget`'s start.
    pub fn new(limits: &Limits, budget: &Budget) -> Watch {
        Watch {
            cancel: Arc::new(Mutex::new(limits.cancel.clone())),
            deadline: limits.max_time.and_then(|t| budget.started.checked_add(t)),
            memory: limits.max_memory.map(|max| (budget.memory_base, max)),
            fired: Arc::default(),
        }
    }

    /// For the YAQL interrupt hook: `false` (stop) once a limit passed,
    /// remembering which.
    pub(super) fn keep_going(&self) -> bool {
        match self.passed() {
            None => true,
            Some(class) => {
                if let Ok(mut f) = self.fired.lock() {
                    *f = Some(class);
                }
                false
            }
        }
    }

    fn take_fired(&self) -> Option<EngineExc> {
        self.fired.lock().ok().and_then(|mut f| f.take())
    }

    fn set_cancel(&self, flag: CancelFlag) {
        if let Ok(mut c) = self.cancel.lock() {
            *c = Some(flag);
        }
    }

    /// The session's memory limit as YAQL limits (counted from the
    /// session's start), so that what an expression builds in one call
    /// (`str()` of a shared list, `replace()`, `format()`) is held to what is
    /// left of it before it is allocated.
    pub(super) fn yaql_memory(&self, limits: &mut vetro_yaql::Limits) {
        if let (Some((base, max)), Some(probe)) = (self.memory, MEMORY_PROBE.get()) {
            limits.max_allocated = Some(max);
            limits.memory_probe = Some(*probe);
            limits.memory_base = Some(base);
        }
    }

    /// Python `str()` of a value the session built, within what the session
    /// may still allocate (see [`Watch::text`]).
    pub(super) fn py_str(&self, v: &Value) -> Result<String, Exc> {
        match v {
            Value::Str(s) => Ok(s.as_str().to_owned()),
            _ => self.text(|r| v.write_py_str(r)),
        }
    }

    /// Python `repr()` of a value the session built, within what the session
    /// may still allocate.
    fn repr(&self, v: &Value) -> Result<String, Exc> {
        self.text(|r| v.write_repr(r))
    }

    /// The text `write` makes, refused with the session's memory-limit error
    /// once it would pass what is left of the limit (without one, past
    /// [`vetro_yaql::limits::MAX_BUILD_BYTES`]). A value sharing its lists is
    /// far larger written out than held (`$l: [$l, $l]` doubled 60 times is
    /// 2^60 items), so its text is bounded while it is written, not after.
    fn text(
        &self,
        write: impl FnOnce(&mut Render) -> vetro_yaql::Result<()>,
    ) -> Result<String, Exc> {
        let left = match (self.memory, allocated()) {
            (Some((base, max)), Some(now)) => max.saturating_sub(now.saturating_sub(base)),
            _ => vetro_yaql::limits::MAX_BUILD_BYTES,
        };
        let mut out = Render::with_cap(left);
        if write(&mut out).is_err() {
            return Err(match self.memory {
                Some((_, max)) => would_exceed(max),
                None => Exc::engine(
                    MEMORY_LIMIT,
                    format!(
                        "the text of a value would be longer than {}",
                        mib(vetro_yaql::limits::MAX_BUILD_BYTES)
                    ),
                ),
            });
        }
        Ok(out.finish())
    }

    /// The limit passed now, if one is.
    pub(crate) fn passed(&self) -> Option<EngineExc> {
        let cancelled = self
            .cancel
            .lock()
            .ok()
            .is_some_and(|c| c.as_ref().is_some_and(CancelFlag::is_cancelled));
        if cancelled {
            return Some(CANCELLED);
        }
        if self.deadline.is_some_and(|d| Instant::now() > d) {
            return Some(TIME_LIMIT);
        }
        if let (Some((base, max)), Some(now)) = (self.memory, allocated()) {
            if now.saturating_sub(base) > max {
                return Some(MEMORY_LIMIT);
            }
        }
        None
    }
}

/// What a session has used so far.
pub struct Budget {
    steps: Cell<u64>,
    started: Instant,
    memory_base: usize,
}

impl Budget {
    /// A budget starting now, with the memory held now as its base.
    pub fn start() -> Budget {
        Budget {
            steps: Cell::new(0),
            started: Instant::now(),
            memory_base: allocated().unwrap_or(0),
        }
    }
}

/// The clock is looked at every this many steps (memory and the cancel flag,
/// one atomic load each, at every step: one step can double what a session
/// holds).
const CHECK_EVERY: u64 = 16;

/// The limits of a running session with what it has used so far.
pub(super) struct SessionLimits {
    limits: RefCell<Limits>,
    budget: Budget,
    /// The session's limits as its YAQL evaluations see them.
    watch: Watch,
}

impl SessionLimits {
    /// Start counting under `limits` now.
    pub(super) fn start(limits: Limits) -> SessionLimits {
        let budget = Budget::start();
        let watch = Watch::new(&limits, &budget);
        SessionLimits {
            limits: RefCell::new(limits),
            budget,
            watch,
        }
    }

    /// What the session's YAQL evaluations look at (see [`Watch`]).
    pub(super) fn watch(&self) -> &Watch {
        &self.watch
    }

    /// Stop the session at its next step once `flag` is set (from any
    /// thread); the same as giving it in [`Limits::cancel`].
    pub(super) fn set_cancel_flag(&self, flag: impl Into<CancelFlag>) {
        let flag = flag.into();
        self.watch.set_cancel(flag.clone());
        self.limits.borrow_mut().cancel = Some(flag);
    }

    /// The session's limit error for a YAQL evaluation its watch stopped.
    pub(super) fn interrupted(&self) -> Exc {
        let limits = self.limits.borrow();
        let class = self
            .watch
            .take_fired()
            .or_else(|| self.watch.passed())
            .unwrap_or(TIME_LIMIT);
        let message = match class {
            CANCELLED => "the session was cancelled".to_string(),
            MEMORY_LIMIT => format!(
                "the session allocated more than {}",
                mib(limits.max_memory.unwrap_or(0))
            ),
            _ => format!(
                "the session ran longer than {} s",
                limits.max_time.map_or(0.0, |t| t.as_secs_f64())
            ),
        };
        Exc::engine(class, message)
    }

    /// The session's memory-limit error for something a YAQL evaluation
    /// refused to build because it would pass the limit.
    pub(super) fn memory_refused(&self) -> Exc {
        would_exceed(self.limits.borrow().max_memory.unwrap_or(0))
    }

    /// Count one step; fails once a limit is passed.
    pub(super) fn charge_step(&self) -> Result<(), Exc> {
        let steps = self.budget.steps.get() + 1;
        self.budget.steps.set(steps);
        let limits = self.limits.borrow();
        if limits.max_steps.is_some_and(|max| steps > max) {
            return Err(Exc::engine(
                STEP_LIMIT,
                format!("the session ran more than {} steps", steps - 1),
            ));
        }
        self.check_memory(&limits)?;
        if limits.cancel.as_ref().is_some_and(CancelFlag::is_cancelled) {
            return Err(Exc::engine(CANCELLED, "the session was cancelled"));
        }
        if steps.is_multiple_of(CHECK_EVERY) {
            self.check_clock(&limits)?;
        }
        Ok(())
    }

    /// The time, memory and cancel checks without counting a step: for long
    /// operations inside one step (loading, serializing, collecting garbage).
    pub(super) fn check_limits(&self) -> Result<(), Exc> {
        let limits = self.limits.borrow();
        self.check_memory(&limits)?;
        self.check_clock(&limits)
    }

    fn check_memory(&self, limits: &Limits) -> Result<(), Exc> {
        if let (Some(max), Some(now)) = (limits.max_memory, allocated()) {
            let used = now.saturating_sub(self.budget.memory_base);
            if used > max {
                return Err(Exc::engine(
                    MEMORY_LIMIT,
                    format!("the session allocated more than {}", mib(max)),
                ));
            }
        }
        Ok(())
    }

    fn check_clock(&self, limits: &Limits) -> Result<(), Exc> {
        if limits.cancel.as_ref().is_some_and(CancelFlag::is_cancelled) {
            return Err(Exc::engine(CANCELLED, "the session was cancelled"));
        }
        if let Some(max) = limits.max_time {
            if self.budget.started.elapsed() > max {
                return Err(Exc::engine(
                    TIME_LIMIT,
                    format!("the session ran longer than {} s", max.as_secs_f64()),
                ));
            }
        }
        Ok(())
    }

    /// Python `str()` of a value the session built, within what the session
    /// may still allocate (see [`Watch::text`]).
    pub(super) fn py_str(&self, v: &Value) -> Result<String, Exc> {
        self.watch.py_str(v)
    }

    /// Python `repr()` of a value the session built, within what the session
    /// may still allocate.
    pub(super) fn repr(&self, v: &Value) -> Result<String, Exc> {
        self.watch.repr(v)
    }

    /// The text `write` makes, within what the session may still allocate.
    pub(super) fn text(
        &self,
        write: impl FnOnce(&mut Render) -> vetro_yaql::Result<()>,
    ) -> Result<String, Exc> {
        self.watch.text(write)
    }

    /// The error of a green thread that would pass the session's bound;
    /// `None` while `live` threads leave room for one more.
    pub(super) fn green_refused(&self, live: usize) -> Option<Exc> {
        let max = self.limits.borrow().max_green_threads?;
        (live >= max).then(|| {
            Exc::engine(
                THREAD_LIMIT,
                format!("the session would run more than {max} green threads at once"),
            )
        })
    }

    /// The error of a green thread whose stack cannot be had.
    pub(super) fn no_stack() -> Exc {
        Exc::engine(
            MEMORY_LIMIT,
            "the operating system refused the stack of another green thread",
        )
    }
}

/// The error of something refused because it would pass the memory limit `max`.
fn would_exceed(max: usize) -> Exc {
    Exc::engine(
        MEMORY_LIMIT,
        format!("the session would allocate more than {}", mib(max)),
    )
}

fn mib(bytes: usize) -> String {
    if bytes >= 1 << 20 {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}
