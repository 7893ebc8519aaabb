//! Resource limits of one evaluation: wall-clock time, an operation budget,
//! process memory (through a probe the host installs), a cancel/progress
//! hook, and the size of collections built from lazy sequences.
//!
//! Every function call the evaluator makes and every item pulled from a lazy
//! sequence counts as one operation of the evaluation's [`Run`] (its
//! counter and meter, held by the evaluation's runtime); every
//! [`CHECK_EVERY`] operations its limits are checked. Collection builders that drain a sequence call [`Run::check_built`]
//! so that `range(10**12).toList()` stops at the limit while it grows.
//!
//! Nothing here is ambient: the evaluator holds its run in its
//! [`crate::Runtime`], library functions reach it through their call
//! (`c.rt().run()`), a lazy sequence keeps the run it was made in, and a
//! host that evaluates inside an evaluation (a host function calling the
//! engine again) passes the caller's context, whose run the inner
//! evaluation then runs under.

use crate::error::{Error, ErrorKind, Result};
use crate::regex_cache::RegexCache;
use std::cell::Cell;
use std::fmt;
use std::rc::Rc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Limits are looked at every this many operations (a power of two).
pub const CHECK_EVERY: u64 = 256;

/// Hard cap on one collection or string built during an evaluation, in
/// approximate bytes, even when no memory quota is set.
pub const MAX_BUILD_BYTES: usize = 1 << 28;

/// What an evaluation has done so far (given to the [`Interrupt`] hook).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Progress {
    /// Operations (function calls and lazy-sequence items) so far.
    pub operations: u64,
    /// Wall-clock time since the evaluation started.
    pub elapsed: Duration,
}

/// A hook called every [`CHECK_EVERY`] operations; returning `false` stops
/// the evaluation with an `interrupted` error (cancellation), and it can
/// report progress. It may be called from any thread that evaluates.
#[derive(Clone)]
pub struct Interrupt(Arc<dyn Fn(&Progress) -> bool + Send + Sync>);

impl Interrupt {
    pub fn new(f: impl Fn(&Progress) -> bool + Send + Sync + 'static) -> Interrupt {
        Interrupt(Arc::new(f))
    }
}

impl fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Interrupt(..)")
    }
}

/// The limits of one evaluation (all off by default).
#[derive(Clone, Debug, Default)]
pub struct Limits {
    /// Wall-clock limit.
    pub timeout: Option<Duration>,
    /// Maximum operations (checked every [`CHECK_EVERY`], so an evaluation
    /// may run up to that many more before it stops).
    pub max_operations: Option<u64>,
    /// Maximum bytes the process may allocate above what it held when the
    /// evaluation started; needs [`Limits::memory_probe`].
    pub max_allocated: Option<usize>,
    /// Bytes currently allocated by the process (a counting global allocator).
    pub memory_probe: Option<fn() -> usize>,
    /// Count [`Limits::max_allocated`] from this many allocated bytes
    /// instead of from what the process held when the evaluation started:
    /// for a host whose memory limit spans many evaluations (a session).
    pub memory_base: Option<usize>,
    /// Cancellation and progress hook.
    pub interrupt: Option<Interrupt>,
}

/// The limits of one run, fixed when it starts.
struct Meter {
    limits: Limits,
    /// `yaql.memoryQuota` in approximate bytes: also bounds collections
    /// while they are built.
    memory_quota: Option<usize>,
    started: Instant,
    deadline: Option<Instant>,
    memory_base: usize,
    /// The operations this run may do: its own budget, or what is left of
    /// the budget of the run it is nested in if that is smaller.
    max_operations: Option<u64>,
}

/// The state of one evaluation's limits: its operation counter and meter.
/// The evaluator ticks the run of the evaluation it serves (held by its
/// [`crate::Runtime`]); a lazy sequence ticks the run it was made in.
/// Nothing here is shared between threads. A run that has ended (or was
/// never started) counts nothing and checks nothing but
/// [`MAX_BUILD_BYTES`].
pub struct Run {
    ops: Cell<u64>,
    meter: Option<Meter>,
    /// The run this one is nested in: its operations are added to that
    /// run's when this one ends.
    outer: Option<Rc<Run>>,
    /// Between the start and the end of the evaluation (a lazy sequence may
    /// outlive it: a library function that iterates it in a later
    /// evaluation counts its items there, see [`crate::iter::LazyIter::counted_in`]).
    active: Cell<bool>,
    /// State of `random()` (xorshift), seeded from the clock on first use.
    seed: Cell<u64>,
    /// The engine's compiled patterns.
    regexes: Option<Arc<RegexCache>>,
}

impl Run {
    fn new(meter: Option<Meter>, outer: Option<Rc<Run>>, active: bool) -> Run {
        Run {
            ops: Cell::new(0),
            meter,
            outer,
            active: Cell::new(active),
            seed: Cell::new(0),
            regexes: None,
        }
    }

    /// A run that is not started: it counts and checks nothing.
    pub(crate) fn idle() -> Rc<Run> {
        Rc::new(Run::new(None, None, false))
    }

    /// Whether the evaluation this run belongs to is in progress.
    #[inline]
    pub fn is_active(&self) -> bool {
        self.active.get()
    }

    /// The engine's cache of compiled patterns (none outside an engine).
    pub fn regex_cache(&self) -> Option<&RegexCache> {
        self.regexes.as_deref()
    }

    /// Operations counted so far.
    pub fn operations(&self) -> u64 {
        self.ops.get()
    }

    /// Count one operation; every [`CHECK_EVERY`] operations check the
    /// limits. A run that is not in progress counts nothing.
    #[inline]
    pub fn tick(&self) -> Result<()> {
        if !self.active.get() {
            return Ok(());
        }
        let n = self.ops.get().wrapping_add(1);
        self.ops.set(n);
        if n & (CHECK_EVERY - 1) == 0 {
            self.check()
        } else {
            Ok(())
        }
    }

    /// Count `n` operations at once, for one step that does the work of
    /// many (an operation on big integers), and check the limits now when
    /// they pass a multiple of [`CHECK_EVERY`]: the periodic check must not
    /// wait another [`CHECK_EVERY`] such steps.
    #[inline]
    pub fn charge(&self, n: u64) -> Result<()> {
        if !self.active.get() {
            return Ok(());
        }
        let before = self.ops.get();
        let after = before.wrapping_add(n);
        self.ops.set(after);
        if before / CHECK_EVERY != after / CHECK_EVERY {
            self.check()
        } else {
            Ok(())
        }
    }

    #[cold]
    fn check(&self) -> Result<()> {
        let Some(m) = &self.meter else {
            return Ok(());
        };
        let l = &m.limits;
        let now = Instant::now();
        if m.deadline.is_some_and(|d| now > d) {
            return Err(timeout());
        }
        let done = self.ops.get();
        if let Some(max) = m.max_operations.filter(|max| done > *max) {
            return Err(Error::new(
                ErrorKind::OperationLimit,
                format!("evaluation exceeded its budget of {max} operations"),
            ));
        }
        if let Some(hook) = &l.interrupt {
            let p = Progress {
                operations: done,
                elapsed: now.duration_since(m.started),
            };
            if !(hook.0)(&p) {
                return Err(Error::new(
                    ErrorKind::Interrupted,
                    "evaluation interrupted by the host",
                ));
            }
        }
        // After the host's hook: a host that watches the same memory limit
        // stops the evaluation with its own error.
        if let (Some(max), Some(probe)) = (l.max_allocated, l.memory_probe) {
            if probe().saturating_sub(m.memory_base) > max {
                return Err(over_memory_limit());
            }
        }
        Ok(())
    }

    /// What may still be built in this run, and which bound that is.
    pub(crate) fn budget(&self) -> Budget {
        let mut b = Budget {
            left: MAX_BUILD_BYTES,
            host: false,
        };
        let Some(m) = self.meter.as_ref().filter(|_| self.active.get()) else {
            return b;
        };
        if let Some(q) = m.memory_quota {
            b.left = b.left.min(q);
        }
        if let (Some(max), Some(probe)) = (m.limits.max_allocated, m.limits.memory_probe) {
            let left = max.saturating_sub(probe().saturating_sub(m.memory_base));
            if left < b.left {
                b = Budget { left, host: true };
            }
        }
        b
    }

    /// How many bytes a collection or string built now may take: the
    /// smallest of [`MAX_BUILD_BYTES`], the evaluation's memory quota and
    /// what is left of its memory limit ([`Limits::max_allocated`]). Outside
    /// an evaluation in progress, only [`MAX_BUILD_BYTES`].
    pub fn build_budget(&self) -> usize {
        self.budget().left
    }

    /// Refuse a collection or string of about `bytes` bytes that is over
    /// [`Run::build_budget`]. Builders call it before they allocate, so that
    /// a value that doubles at every step (`$s + $s`) stops at the limit
    /// rather than at the next periodic check, which may come too late.
    pub fn check_bytes(&self, bytes: usize) -> Result<()> {
        let b = self.budget();
        if bytes > b.left {
            return Err(b.refusal());
        }
        Ok(())
    }

    /// [`Run::check_bytes`] for the result of joining values of about
    /// `bytes` bytes (string, list and dictionary `+`), when it is large
    /// (at least [`CHECK_JOIN_BYTES`]; smaller ones are left to the periodic
    /// check, to keep those operators cheap).
    #[inline]
    pub fn check_join(&self, bytes: usize) -> Result<()> {
        if bytes >= CHECK_JOIN_BYTES {
            self.check_bytes(bytes)
        } else {
            Ok(())
        }
    }

    /// Called by builders as they collect items: every 4096 items the size
    /// of what is being built is checked with [`Run::check_bytes`].
    #[inline]
    pub fn check_built(&self, items: usize) -> Result<()> {
        if items & 4095 == 0 && items > 0 {
            self.check_bytes(items.saturating_mul(ITEM_BYTES))
        } else {
            Ok(())
        }
    }

    /// A pseudo-random float in [0, 1) (xorshift; not for cryptography).
    pub fn random_f64(&self) -> f64 {
        let mut x = self.seed.get();
        if x == 0 {
            x = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(0x1234_5678)
                | 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.seed.set(x);
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One evaluation's run, ended when dropped (when this scope started it).
pub(crate) struct Scope {
    run: Rc<Run>,
    /// This scope started the run (and ends it).
    owns: bool,
}

impl Scope {
    pub fn run(&self) -> &Rc<Run> {
        &self.run
    }
}

impl Drop for Scope {
    fn drop(&mut self) {
        if self.owns {
            self.run.active.set(false);
            if let Some(outer) = &self.run.outer {
                outer
                    .ops
                    .set(outer.ops.get().wrapping_add(self.run.ops.get()));
            }
        }
    }
}

/// Start the run of an evaluation with `limits`, with the engine's cache of
/// compiled patterns. An evaluation without limits nested in `outer` (the
/// run of the evaluation that called the host which evaluates now) runs in
/// the outer run; one with limits also stops at the outer deadline and
/// operation budget, and adds its operations to the outer run when it ends.
pub(crate) fn enter(
    limits: &Limits,
    memory_quota: Option<usize>,
    regexes: &Arc<RegexCache>,
    outer: Option<&Rc<Run>>,
) -> Scope {
    let none = limits.timeout.is_none()
        && limits.max_operations.is_none()
        && limits.max_allocated.is_none()
        && memory_quota.is_none()
        && limits.interrupt.is_none();
    let outer = outer.filter(|r| r.active.get()).cloned();
    if let (true, Some(run)) = (none, &outer) {
        return Scope {
            run: run.clone(),
            owns: false,
        };
    }
    let meter = (!none).then(|| {
        let now = Instant::now();
        let mut deadline = limits.timeout.and_then(|t| now.checked_add(t));
        let mut max_operations = limits.max_operations;
        if let Some(o) = outer
            .as_ref()
            .and_then(|o| o.meter.as_ref().map(|m| (o, m)))
        {
            let (run, m) = o;
            if let Some(d) = m.deadline {
                deadline = Some(deadline.map_or(d, |x| x.min(d)));
            }
            if let Some(max) = m.max_operations {
                let left = max.saturating_sub(run.ops.get());
                max_operations = Some(max_operations.map_or(left, |x| x.min(left)));
            }
        }
        Meter {
            limits: limits.clone(),
            memory_quota,
            started: now,
            deadline,
            memory_base: limits
                .memory_base
                .or_else(|| limits.memory_probe.map(|p| p()))
                .unwrap_or(0),
            max_operations,
        }
    });
    let mut run = Run::new(meter, outer, true);
    run.regexes = Some(regexes.clone());
    Scope {
        run: Rc::new(run),
        owns: true,
    }
}

/// The error of a passed deadline.
pub fn timeout() -> Error {
    Error::new(ErrorKind::Timeout, "evaluation time limit exceeded")
}

/// The error of a passed memory limit (the reference's message).
pub fn memory_exceeded() -> Error {
    Error::new(
        ErrorKind::MemoryQuota,
        "Expression consumed too much memory",
    )
}

/// The error of something that would pass the host's memory limit
/// ([`Limits::max_allocated`]): the memory-limit error, marked so that a
/// host can tell it from the memory quota ([`is_memory_limit`]).
pub(crate) fn over_memory_limit() -> Error {
    memory_exceeded().with_host_payload(MemoryLimit)
}

/// The mark of [`over_memory_limit`].
struct MemoryLimit;

/// Whether `e` stopped at the host's memory limit ([`Limits::max_allocated`])
/// rather than at the memory quota or [`MAX_BUILD_BYTES`]: a host whose
/// limit is its own (a session's) reports its own error then.
pub fn is_memory_limit(e: &Error) -> bool {
    e.host_payload::<MemoryLimit>().is_some()
}

/// What may still be built, and which bound that is.
pub(crate) struct Budget {
    pub left: usize,
    /// The host's memory limit is the smallest bound.
    host: bool,
}

impl Budget {
    pub fn is_host_limit(&self) -> bool {
        self.host
    }

    /// The error of building more than is left.
    pub fn refusal(&self) -> Error {
        if self.host {
            over_memory_limit()
        } else {
            memory_exceeded()
        }
    }
}

/// Values at least this large (in approximate bytes) are checked with
/// [`Run::check_bytes`] by the operators that join two of them; smaller ones
/// are left to the periodic check, to keep those operators cheap.
pub const CHECK_JOIN_BYTES: usize = 1 << 20;

/// Bytes one item of a collection takes at least (a value is two words).
pub const ITEM_BYTES: usize = 16;

/// [`Run::check_built`] for a builder that may have no run at hand (then
/// only [`MAX_BUILD_BYTES`] bounds it).
#[inline]
pub fn check_built_in(run: Option<&Run>, items: usize) -> Result<()> {
    match run {
        Some(run) => run.check_built(items),
        None if items.saturating_mul(ITEM_BYTES) > MAX_BUILD_BYTES => Err(memory_exceeded()),
        None => Ok(()),
    }
}
