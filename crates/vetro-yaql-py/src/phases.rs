//! Opt-in accounting of where `evaluate` spends its time: the calling
//! thread's CPU time with the GIL held (gathering the contexts' layers and
//! converting the data in; converting the result out and freeing it) and
//! with the GIL released (evaluating, draining lazy sequences, freeing the
//! converted data), summed over every call of every thread.
//!
//! The GIL-held share bounds what threads can gain: on `n` cores, `k`
//! threads evaluating at once run at most `min(n, k, 1 / held share)` times
//! as fast as one. Off by default: reading a thread's CPU clock is a system
//! call, too dear for every evaluation.

use pyo3::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

static ON: AtomicBool = AtomicBool::new(false);
static CALLS: AtomicU64 = AtomicU64::new(0);
static HELD_IN: AtomicU64 = AtomicU64::new(0);
static RELEASED: AtomicU64 = AtomicU64::new(0);
static HELD_OUT: AtomicU64 = AtomicU64::new(0);

/// The calling thread's CPU time in nanoseconds.
fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec to write to.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (ts.tv_sec as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(ts.tv_nsec as u64)
}

/// The phases of one evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// From the call to the release of the GIL.
    HeldIn,
    /// While the GIL is released.
    Released,
    /// From taking the GIL back to the return.
    HeldOut,
}

/// One call's clock: [`Clock::lap`] charges the time since the last lap
/// to a phase. Reads nothing while accounting is off.
pub struct Clock {
    last: Option<u64>,
}

impl Clock {
    pub fn start() -> Clock {
        let last = ON.load(Relaxed).then(thread_cpu_ns);
        if last.is_some() {
            CALLS.fetch_add(1, Relaxed);
        }
        Clock { last }
    }

    pub fn lap(&mut self, phase: Phase) {
        let Some(last) = self.last else { return };
        let now = thread_cpu_ns();
        let total = match phase {
            Phase::HeldIn => &HELD_IN,
            Phase::Released => &RELEASED,
            Phase::HeldOut => &HELD_OUT,
        };
        total.fetch_add(now.saturating_sub(last), Relaxed);
        self.last = Some(now);
    }
}

/// `_vetro_yaql.phase_times(enable=None)`: the totals so far as
/// `(calls, held_in_ns, released_ns, held_out_ns)`; with `enable`, turn
/// the accounting on or off and start the totals from zero.
#[pyfunction]
#[pyo3(signature = (enable=None))]
pub fn phase_times(enable: Option<bool>) -> (u64, u64, u64, u64) {
    let totals = [&CALLS, &HELD_IN, &RELEASED, &HELD_OUT];
    let read = totals.map(|t| t.load(Relaxed));
    if let Some(on) = enable {
        for t in totals {
            t.store(0, Relaxed);
        }
        ON.store(on, Relaxed);
    }
    (read[0], read[1], read[2], read[3])
}
