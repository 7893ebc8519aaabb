//! InfraRed 2.x/3.x plugins: a folder with a `plugin.spec`, a playbook
//! (`main.yml`) and its `vars/`, `defaults/` and roles.
//!
//! [`spec::load_plugin`] reads and checks the spec; [`invoke::invoke`] turns a
//! command line into help text, an answers file or the vars tree;
//! [`registry::Registry`] remembers installed plugins by name.

pub mod answers;
pub mod convert;
pub mod help;
pub mod invoke;
pub mod registry;
pub mod shared;
pub mod spec;
pub mod vars;

use crate::error::SpecError;
use crate::model::ParserSpec;
use std::path::PathBuf;

/// A loaded plugin.
#[derive(Clone, Debug)]
pub struct Plugin {
    /// The plugin folder (absolute).
    pub dir: PathBuf,
    pub spec_file: PathBuf,
    /// The name of its one subparser (`virsh`, `tripleo-overcloud`, ...).
    pub name: String,
    /// `provision`, `install`, `test` or `other`: the top key of the vars tree.
    pub plugin_type: String,
    pub description: String,
    /// The playbook to run, relative to `dir` (default `main.yml`).
    pub entry_point: String,
    /// `config.roles_path`, relative to `dir`.
    pub roles_path: Option<String>,
    /// The plugin's parser: own groups, included shared groups, plain options.
    pub parser: ParserSpec,
    /// Problems that do not stop the plugin (e.g. an unknown option key).
    pub warnings: Vec<SpecError>,
}

impl Plugin {
    /// The playbook run by `vetro ir NAME`.
    pub fn playbook(&self) -> PathBuf {
        self.dir.join(&self.entry_point)
    }
}
