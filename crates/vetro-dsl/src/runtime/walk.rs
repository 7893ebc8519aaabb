//! Walks over values that running code shaped: writing a model or a result,
//! encoding a value for the protocol or the cloud, checking a contract.
//!
//! Such a value may nest very deep (`$l: [$l]` in a loop) or share its parts
//! (`$l: [$l, $l]` doubles the written size at each step but not the memory),
//! so a walk that writes it out bounds its depth and looks at the session's
//! limits as it goes: a value doubled 60 times cannot expand for 2^60 steps.

use super::limits::SessionLimits;
use super::types::Exc;
use crate::runtime::types::EngineExc;

/// The deepest nesting written out. JSON readers bound their recursion
/// (serde_json at 128 levels), so a deeper value could not be read back, and
/// writing it recurses once per level.
const MAX_DEPTH: usize = 100;

/// How many values a walk enters between two checks of the session's limits.
const CHECK_EVERY: usize = 4096;

/// One walk: how deep it is and how many values it entered.
pub(crate) struct Walk<'a> {
    limits: &'a SessionLimits,
    /// What is walked, for the error ("the result nests deeper than ...").
    what: &'static str,
    /// `None`: containers may nest as deep as the walk's caller allows.
    max_depth: Option<usize>,
    depth: usize,
    entered: usize,
}

impl<'a> Walk<'a> {
    /// A walk that writes `what` out: at most [`MAX_DEPTH`] levels.
    pub(super) fn writing(limits: &'a SessionLimits, what: &'static str) -> Walk<'a> {
        Walk {
            limits,
            what,
            max_depth: Some(MAX_DEPTH),
            depth: 0,
            entered: 0,
        }
    }

    /// A walk whose depth something else bounds (a contract's own nesting):
    /// only the session's limits are looked at.
    pub(super) fn bounded_by_caller(limits: &'a SessionLimits) -> Walk<'a> {
        Walk {
            limits,
            what: "value",
            max_depth: None,
            depth: 0,
            entered: 0,
        }
    }

    /// Enter one more container (or object): fails past the depth bound, or
    /// once a session limit has passed (looked at every [`CHECK_EVERY`]).
    pub(super) fn enter(&mut self) -> Result<(), Exc> {
        self.depth += 1;
        self.entered += 1;
        if self.max_depth.is_some_and(|max| self.depth > max) {
            return Err(Exc::engine(
                EngineExc::RecursionError,
                format!("the {} nests deeper than {MAX_DEPTH} levels", self.what),
            ));
        }
        self.count()
    }

    /// Count one step of work that enters nothing (comparing two items).
    pub(crate) fn tick(&mut self) -> Result<(), Exc> {
        self.entered += 1;
        self.count()
    }

    fn count(&self) -> Result<(), Exc> {
        if self.entered.is_multiple_of(CHECK_EVERY) {
            self.limits.check_limits()?;
        }
        Ok(())
    }

    /// Leave the container last entered.
    pub(super) fn leave(&mut self) {
        self.depth -= 1;
    }

    /// `f` one level deeper.
    pub(crate) fn nested<T>(
        &mut self,
        f: impl FnOnce(&mut Self) -> Result<T, Exc>,
    ) -> Result<T, Exc> {
        self.enter()?;
        let r = f(self);
        self.leave();
        r
    }
}
