//! A Datalog engine reading Congress's policy language.

pub mod ast;
pub mod builtins;
mod compile;
pub mod engine;
pub mod error;
pub mod eval;
pub mod explain;
pub mod graph;
pub mod hash;
pub mod incremental;
mod join;
pub mod limits;
pub mod order;
pub mod parse;
mod plan;
pub mod policy;
pub mod refs;
pub mod relation;
pub mod value;

pub use engine::Engine;
pub use error::{ErrorClass, PolicyError};
pub use limits::Limits;
pub use policy::PolicyKind;
