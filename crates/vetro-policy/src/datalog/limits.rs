//! Bounds on one evaluation: how many tuples rules may derive and how long it
//! may run. A policy is untrusted input; a cross product of two large tables
//! must end with an error, not exhaust the machine.

use super::error::{ErrorClass, PolicyError};
use std::time::{Duration, Instant};

/// The bounds an evaluation runs under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Most tuples the rules may derive (stored new tuples plus derivations
    /// waiting to be stored).
    pub max_tuples: usize,
    /// Longest wall-clock time of one evaluation.
    pub timeout: Option<Duration>,
}

/// The default bound on derived tuples: tens of millions of rows fit in a few
/// GiB, well above every realistic validation (a 100,000-object model derives
/// about a million).
pub const DEFAULT_MAX_TUPLES: usize = 20_000_000;

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_tuples: DEFAULT_MAX_TUPLES,
            timeout: None,
        }
    }
}

/// Which bound an evaluation hit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    Tuples,
    Time,
}

/// What an evaluation has used of its [`Limits`].
#[derive(Debug)]
pub(crate) struct Budget {
    limits: Limits,
    deadline: Option<Instant>,
    derived: usize,
    ticks: u32,
    exceeded: Option<Exceeded>,
}

/// How many join steps run between two looks at the clock.
const CLOCK_EVERY: u32 = 4096;

impl Budget {
    pub(crate) fn new(limits: Limits) -> Self {
        Budget {
            limits,
            deadline: limits.timeout.map(|t| Instant::now() + t),
            derived: 0,
            ticks: 0,
            exceeded: None,
        }
    }

    /// Whether evaluation must stop now.
    pub(crate) fn stopped(&self) -> bool {
        self.exceeded.is_some()
    }

    /// Counts one join step; looks at the clock now and then.
    pub(crate) fn tick(&mut self) -> bool {
        self.ticks = self.ticks.wrapping_add(1);
        if self.ticks.is_multiple_of(CLOCK_EVERY) {
            self.look_at_clock();
        }
        !self.stopped()
    }

    /// Looks at the clock now (for work that does not tick, such as planning).
    pub(crate) fn look_at_clock(&mut self) -> bool {
        if let Some(deadline) = self.deadline {
            if Instant::now() >= deadline {
                self.exceeded = Some(Exceeded::Time);
            }
        }
        !self.stopped()
    }

    /// Whether `pending` more derivations fit next to the tuples stored so far.
    pub(crate) fn fits(&mut self, pending: usize) -> bool {
        if self.derived.saturating_add(pending) > self.limits.max_tuples {
            self.exceeded = Some(Exceeded::Tuples);
        }
        !self.stopped()
    }

    /// Counts tuples stored by the rules.
    pub(crate) fn stored(&mut self, n: usize) {
        self.derived = self.derived.saturating_add(n);
        self.fits(0);
    }

    /// The error for the bound that was hit, if any.
    pub(crate) fn check(&self) -> Result<(), PolicyError> {
        match self.exceeded {
            None => Ok(()),
            Some(Exceeded::Tuples) => Err(PolicyError::new(
                ErrorClass::Limit,
                format!(
                    "evaluation stopped: the rules derive more than {} tuples \
                     (a cross product of large tables?); raise the limit with --max-tuples",
                    self.limits.max_tuples
                ),
            )),
            Some(Exceeded::Time) => Err(PolicyError::new(
                ErrorClass::Limit,
                format!(
                    "evaluation stopped: it ran longer than {:.3} s (--timeout)",
                    self.limits.timeout.unwrap_or_default().as_secs_f64()
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tuples_over_the_limit_stop() {
        let mut b = Budget::new(Limits {
            max_tuples: 10,
            timeout: None,
        });
        assert!(b.fits(10));
        b.stored(5);
        assert!(b.fits(5));
        assert!(!b.fits(6));
        assert_eq!(b.check().unwrap_err().class, ErrorClass::Limit);
    }

    #[test]
    fn time_over_the_limit_stops() {
        let mut b = Budget::new(Limits {
            max_tuples: 10,
            timeout: Some(Duration::ZERO),
        });
        let mut ran = 0;
        while b.tick() {
            ran += 1;
        }
        assert!(ran < 2 * CLOCK_EVERY);
        assert!(b.check().unwrap_err().message.contains("longer than"));
    }
}
