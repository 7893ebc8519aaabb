//! Class files: YAML documents to class definitions with spans.

pub mod body;
pub mod class;
pub mod data;
pub mod grow;
pub mod namespaces;

pub use body::{Block, CatchClause, Stmt, StmtKind};
pub use class::{
    ArgDef, ArgUsage, ClassDef, ClassUsage, MethodDef, MethodUsage, PropUsage, PropertyDef,
};
pub use data::{Data, Expr};
pub use namespaces::Namespaces;
