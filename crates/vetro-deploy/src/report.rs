//! Status reports: what a task tells its watchers while it runs (Murano's
//! `status` rows), and how a task ended.

use serde::{Deserialize, Serialize};

/// Level of a status report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Info,
    Warning,
    Error,
}

impl Level {
    pub fn as_str(self) -> &'static str {
        match self {
            Level::Info => "info",
            Level::Warning => "warning",
            Level::Error => "error",
        }
    }
}

/// One status report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StatusReport {
    /// The object the report is about (the environment's id when none).
    pub entity_id: String,
    pub level: Level,
    pub text: String,
    pub timestamp: jiff::Timestamp,
    /// Longer explanation (an exception's stack), when there is one.
    pub details: Option<String>,
}

impl StatusReport {
    pub fn new(entity_id: impl Into<String>, level: Level, text: impl Into<String>) -> Self {
        StatusReport {
            entity_id: entity_id.into(),
            level,
            text: text.into(),
            timestamp: jiff::Timestamp::now(),
            details: None,
        }
    }

    pub fn with_details(mut self, details: impl Into<String>) -> Self {
        self.details = Some(details.into());
        self
    }
}

/// Receives every status report as it happens (the worker stores and streams them).
pub type ReportSink = Box<dyn FnMut(&StatusReport)>;

/// How a task ended (Murano's final deployment states, plus cancellation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Success,
    #[serde(rename = "completed_w_warnings")]
    CompletedWithWarnings,
    #[serde(rename = "completed_w_errors")]
    CompletedWithErrors,
    Cancelled,
}

impl Outcome {
    /// The wire name (`success`, `completed_w_warnings`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Success => "success",
            Outcome::CompletedWithWarnings => "completed_w_warnings",
            Outcome::CompletedWithErrors => "completed_w_errors",
            Outcome::Cancelled => "cancelled",
        }
    }

    /// Whether the task's model may become the environment's model.
    pub fn is_good(self) -> bool {
        matches!(self, Outcome::Success | Outcome::CompletedWithWarnings)
    }
}

/// Counts the levels of the reports a task sent.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tally {
    pub warnings: usize,
    pub errors: usize,
}

impl Tally {
    pub fn add(&mut self, level: Level) {
        match level {
            Level::Info => {}
            Level::Warning => self.warnings += 1,
            Level::Error => self.errors += 1,
        }
    }

    pub fn outcome(self) -> Outcome {
        if self.errors > 0 {
            Outcome::CompletedWithErrors
        } else if self.warnings > 0 {
            Outcome::CompletedWithWarnings
        } else {
            Outcome::Success
        }
    }
}
