//! Timestamps as fixed-width UTC text, `YYYY-MM-DDTHH:MM:SS.ffffff`: Murano's
//! wire format (with microseconds), sortable as strings in both databases.

use jiff::{SignedDuration, Timestamp};

pub fn format(t: Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.6f").to_string()
}

/// The current time.
pub fn now() -> String {
    format(Timestamp::now())
}

/// The time `d` from now (negative for the past).
pub fn after(d: SignedDuration) -> String {
    format(Timestamp::now().saturating_add(d).unwrap_or(Timestamp::MAX))
}
