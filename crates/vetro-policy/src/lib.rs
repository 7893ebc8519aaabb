//! Policy enforcement for vetro: object models decomposed into `murano:*`
//! tables, and a Datalog engine that reads Congress's policy language.

pub mod datalog;
pub mod enforce;
pub mod facts;
mod kind;
pub mod model;
pub mod report;

pub use kind::InputKind;
