//! Class files: YAML documents to class definitions with spans.

pub(crate) mod body;
pub mod class;
pub mod data;
pub(crate) mod grow;
pub mod namespaces;

pub(crate) use body::{Block, CatchClause, Stmt, StmtKind};
pub(crate) use class::ClassUsage;
pub use class::{ArgDef, ArgUsage, ClassDef, MethodDef, MethodUsage, PropUsage, PropertyDef};
pub use data::{Data, Expr};
pub use namespaces::Namespaces;
