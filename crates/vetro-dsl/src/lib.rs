//! MuranoPL for vetro: packages, class files, the workflow executor, the object
//! model and the core library.

pub mod batch;
pub mod check;
pub mod cloud;
pub mod core;
pub mod host;
pub mod package;
pub mod runtime;
pub mod syntax;
pub mod testing;
