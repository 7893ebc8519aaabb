//! The deployment side of the vetro service, as a synchronous library (no
//! async, no database): [`inspect_package`] checks an uploaded package
//! archive and describes it for the catalog; [`run_task`] runs one
//! deployment, deletion or action of an environment, policy gate first,
//! reporting as it goes, either here or, split in two ([`prepare`] by the
//! embedder, [`run_prepared`] by an engine process, see [`child`]), in a
//! process of its own.

pub mod archive;
pub mod backend;
pub mod child;
pub mod engine;
pub mod inspect;
pub mod model;
pub mod policy;
pub mod report;
pub mod resolve;
pub mod sandbox;
pub mod task;

#[cfg(test)]
pub(crate) mod testdata;

pub use archive::ArchiveLimits;
pub use backend::Backend;
pub use inspect::{inspect_package, PackageInfo, Problem, Refusal, Rejection};
pub use policy::{check_rules, Violation};
pub use report::{Level, Outcome, ReportSink, StatusReport};
pub use resolve::{MemoryResolver, PackageArchive, PackageCache, PackageResolver, UsedPackage};
pub use task::{
    prepare, run_prepared, run_task, ActionResult, EngineLimits, Prepared, Task, TaskError,
    TaskKind, TaskLimits, TaskOutput,
};
