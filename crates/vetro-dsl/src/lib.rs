//! MuranoPL for vetro: packages, class files, the workflow executor, the object
//! model and the core library.

pub mod check;
pub mod package;
pub mod syntax;
