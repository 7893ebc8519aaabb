//! InfraRed-style `.spec` files: a command line built at run time, value
//! sources in the reference's precedence, the settings tree, and the
//! playbook run.
//!
//! [`Engine::run`] turns a settings root plus `COMMAND [opts] SUBCOMMAND
//! [opts]` into an [`Outcome`]: help text, a generated INI file, or the
//! settings tree. Settings types are pluggable through [`types::SettingsType`].
//!
//! [`plugin`] runs InfraRed 2.x/3.x plugins (`plugin.spec` + `main.yml`).

pub mod check;
pub mod cli;
pub mod completions;
pub mod engine;
pub mod error;
pub mod generate;
pub mod help;
pub mod ini;
pub mod load;
pub mod lookup;
pub mod model;
pub mod playbook;
pub mod plugin;
pub mod required;
pub mod sources;
pub mod tree;
pub mod types;
pub mod when;
pub mod yamlfile;

pub use engine::{commands, Engine, Outcome, Request, Resolved};
pub use error::{ErrorClass, Result, SpecError};
