//! MuranoPL for vetro: packages, class files, the workflow executor, the object
//! model and the core and cloud libraries.
//!
//! # Embedding
//!
//! Load packages once (from directories, memory or zip archives) into a
//! [`host::Library`], then run sessions over it: each session loads an object
//! model, calls a method or an action, and serializes the model again. The
//! embedder supplies the cloud backend and the event sink (status reports,
//! logs, stack pushes as they happen), the limits, and a cancel flag.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use vetro_diag::SourceMap;
//! use vetro_dsl::cloud::{Event, SimulatedCloud};
//! use vetro_dsl::host::{self, Library, Target};
//! use vetro_dsl::package::{Package, PackageFiles};
//! use vetro_dsl::runtime::limits::{CancelFlag, Limits};
//!
//! let mut files = PackageFiles::new();
//! files.insert(
//!     "manifest.yaml".into(),
//!     b"Format: MuranoPL/1.4\nFullName: demo.hello\nClasses:\n  demo.Hello: Hello.yaml\n".to_vec(),
//! );
//! files.insert(
//!     "Classes/Hello.yaml".into(),
//!     b"Name: demo.Hello\nMethods:\n  deploy:\n    Body:\n      - $reporter: new('io.murano.system.StatusReporter')\n      - $reporter.report($this, deploying)\n      - Return: 6 * 7\n".to_vec(),
//! );
//! let mut sources = SourceMap::new();
//! let package = Package::load_files("hello.zip", files, &mut sources);
//! let mut library = Library::from_packages(vec![package], sources);
//! assert!(library.problems().is_empty());
//!
//! // Limits hold against hostile packages; the flag cancels from any thread.
//! let cancel = CancelFlag::new();
//! library.limits = Limits { cancel: Some(cancel.clone()), ..Limits::default() };
//!
//! // The library is shared; each session runs on the thread that starts it.
//! let library = Arc::new(library);
//! let seen = Arc::new(Mutex::new(Vec::new()));
//! let worker = {
//!     let (library, seen) = (library.clone(), seen.clone());
//!     std::thread::spawn(move || {
//!         let sink = Box::new(move |e: &Event| seen.lock().unwrap().push(e.message.clone()));
//!         let host = library.host(Box::new(SimulatedCloud::new()), Some(sink));
//!         let model = serde_json::json!({"?": {"id": "h1", "type": "demo.Hello"}});
//!         let outcome = host::run(&library, &model, &Target::Root, "deploy", host).unwrap();
//!         outcome.result.unwrap()
//!     })
//! };
//! assert_eq!(worker.join().unwrap(), 42);
//! assert!(seen.lock().unwrap()[0].ends_with("deploying"));
//! ```
//!
//! Natives: a Rust function answers the methods of a class when registered
//! in the library's [`runtime::natives::Natives`] (see `core` and `cloud`
//! for the bundled ones); [`runtime::ClassSource::session_hooks`] add YAQL
//! functions to every session.

#![warn(unreachable_pub, missing_docs)]

pub mod check;
pub mod cloud;
pub mod core;
pub mod host;
mod kind;
pub mod package;
pub mod runtime;
pub mod schema;
pub mod syntax;
pub mod testing;

pub use kind::DslKind;
