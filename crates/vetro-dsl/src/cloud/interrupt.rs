//! What ends a backend's wait early: the session cancelled by its embedder,
//! or past its time or memory limit. A backend waiting for the cloud (a Heat
//! stack, an agent's answer) looks at it while it waits, so that a cancelled
//! deployment or a task's timeout does not wait for the cloud first.

use crate::runtime::limits::{Budget, CancelFlag, Limits, Watch};
use crate::runtime::types::EngineExc;

/// The session's limits as a waiting backend sees them. `Send + Sync`: a
/// backend may look from another thread. The default never fires.
#[derive(Clone, Default)]
pub struct Interrupt(Option<Watch>);

impl Interrupt {
    /// The interrupt of the session whose limits `watch` are.
    pub fn of(watch: &Watch) -> Interrupt {
        Interrupt(Some(watch.clone()))
    }

    /// An interrupt that fires when `flag` is set, and for nothing else
    /// (a backend driven without a session: tools, tests).
    pub fn on_cancel(flag: &CancelFlag) -> Interrupt {
        let limits = Limits {
            cancel: Some(flag.clone()),
            max_time: None,
            max_memory: None,
            ..Limits::default()
        };
        Interrupt(Some(Watch::new(&limits, &Budget::start())))
    }

    /// Whether the session was cancelled (not merely out of time).
    pub fn cancelled(&self) -> bool {
        self.0
            .as_ref()
            .is_some_and(|w| matches!(w.passed(), Some(EngineExc::Cancelled)))
    }

    /// Why the session must stop now, if it must.
    pub fn reason(&self) -> Option<&'static str> {
        let passed = self.0.as_ref()?.passed()?;
        Some(match passed {
            EngineExc::Cancelled => "the session was cancelled",
            EngineExc::TimeLimitExceeded => "the session ran out of time",
            _ => "the session passed its limits",
        })
    }
}

impl std::fmt::Debug for Interrupt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Interrupt({})", self.reason().unwrap_or("running"))
    }
}
