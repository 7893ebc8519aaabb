//! The batch protocols spoken with the conformance harnesses (`vetro yaql --batch`,
//! `vetro run --batch`, `vetro policy eval --batch`) and the tagged JSON encoding of
//! values plain JSON cannot carry (`{"$set": [...]}`, `{"$tuple": [...]}`).
//!
//! User-facing commands read plain JSON and YAML; only the batch modes use this crate.

pub mod dsl;
pub mod policy;
pub mod yaql;
