//! What a class set's engines are, apart from how they are built
//! (`engines.rs`), so that the sessions' code can hold them without
//! depending on the engine functions' registration.

use std::sync::Arc;
use vetro_yaql::Engine;

/// The engines of a class set (Murano's `ENGINE_10` and `ENGINE_12`), and
/// those its contract expressions run in.
pub(super) struct Engines {
    /// Format 1.0/1.1 classes: the standard library with the legacy layer,
    /// dicts iterable.
    pub(super) legacy: Arc<Engine>,
    /// Format 1.2+ classes: the standard library alone.
    pub(super) std: Arc<Engine>,
    /// Contracts of format 1.0/1.1 classes: the contract functions
    /// (`int()`, `class()`, `check()`...) over the legacy engine's
    /// library, with its options.
    pub(super) contracts_legacy: Arc<Engine>,
    /// Contracts of format 1.2+ classes: the same functions over the same
    /// library, with the standard engine's options.
    pub(super) contracts_std: Arc<Engine>,
}
