//! Murano's Dynamic UI: the `UI/ui.yaml` of an application package, the
//! forms a user fills in to add the application to an environment.
//!
//! * [`parse`] reads a UI definition into a typed model ([`UiDefinition`]:
//!   forms of typed fields, validators, templates, the `Application`
//!   object-model template), every part with its position;
//! * [`check`] finds what would fail later: unknown field types, YAQL that
//!   does not parse, references to forms or fields that do not exist;
//! * [`Wizard`] runs the forms for a front end: each step as a
//!   [`FormView`] (labels, help, initial values, constraints, choices from
//!   the cloud's [`Inventory`]), one submission validated at a time
//!   (per-field [`FieldError`]s naming the rule), then the object model;
//! * [`answers`] drives a wizard from an answers file (`{FORM: {FIELD: value}}`);
//! * [`model::environment_model`] wraps applications into an environment.
//!
//! Every YAQL evaluation runs under [`Limits`].

pub mod answers;
pub mod check;
pub mod choices;
pub mod clean;
pub mod eval;
pub mod field;
pub mod generate;
mod kind;
pub mod model;
pub mod package;
mod parse;
pub mod tpl;
pub mod version;
pub mod view;
pub mod wizard;

pub use check::check;
pub use choices::{Choice, ExistingApp, Inventory};
pub use clean::FieldError;
pub use eval::{EvalError, Limits};
pub use field::{Field, FieldKind, Form};
pub use kind::FormsKind;
pub use package::{AppPackage, UiSource};
pub use parse::parse;
pub use tpl::{Tpl, Yaql};
pub use version::FormatVersion;
pub use view::{FieldView, FormView};
pub use wizard::{AppInfo, BuildError, FormErrors, SubmitOptions, Wizard, WizardState};

use indexmap::IndexMap;
use std::path::Path;
use vetro_diag::{Diagnostic, FileId, SourceMap, Span};

/// A UI definition (`UI/ui.yaml`).
#[derive(Clone, Debug)]
pub struct UiDefinition {
    pub file: FileId,
    /// `Version:` (the latest, 2.4, when absent).
    pub version: FormatVersion,
    pub version_span: Option<Span>,
    /// The wizard's steps, in order.
    pub forms: Vec<Form>,
    /// Named object-model snippets (`$name`, `repeat()`, `ref()`).
    pub templates: IndexMap<String, Tpl>,
    /// Values evaluated once per application (format 2.4).
    pub parameters: IndexMap<String, Tpl>,
    /// `Class.method` (or `method`) of a static method returning more parameters.
    pub parameters_source: Option<String>,
    /// The object model of the application, with YAQL over the forms' data.
    pub application: Option<Tpl>,
    /// `AppSettings`: kept as written for front ends; no format version
    /// gives it a meaning the forms use.
    pub app_settings: Option<Tpl>,
    /// The whole document.
    pub span: Span,
}

impl UiDefinition {
    pub fn form(&self, name: &str) -> Option<&Form> {
        self.forms.iter().find(|f| f.name == name)
    }
}

/// Read and parse a UI definition file (at most 16 MiB).
pub fn load_file(path: &Path, sources: &mut SourceMap) -> (Option<UiDefinition>, Vec<Diagnostic>) {
    match vetro_yaml::read_source(path, sources, 16 << 20) {
        Ok(file) => parse(sources, file),
        Err(d) => (None, vec![d]),
    }
}

/// Parse a UI definition from text.
pub fn parse_str(
    name: &str,
    text: &str,
    sources: &mut SourceMap,
) -> (Option<UiDefinition>, Vec<Diagnostic>) {
    let file = sources.add(name, text);
    parse(sources, file)
}
