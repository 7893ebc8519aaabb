//! TOSCA Simple Profile 1.0/1.1 validation on top of vetro-kwalify.
//!
//! [`Checker::validate`] loads a service template and its imports, validates
//! each file against the kwalify grammar (bundled, or given with
//! [`Checker::with_grammar`]), builds the type catalog (bundled normative types
//! plus every declared type), and runs the semantic checks. Every problem is a
//! [`vetro_diag::Diagnostic`] with a kind, a document path and a span; problems
//! of an imported file surface as one `import-failed` at the importing
//! `imports/N` entry.

mod catalog;
mod document;
mod files;
mod grammar;
mod hooks;
mod imports;
mod kind;
mod normative;
mod semantic;
mod values;

pub use catalog::{Catalog, Construct};
pub use files::{FileSystem, MemoryFiles, TemplateFiles};
pub use grammar::BUNDLED_GRAMMAR;
pub use kind::ToscaKind;

use normative::Normative;
use std::path::Path;
use vetro_diag::{Diagnostic, SourceMap};
use vetro_kwalify::Grammar;

/// A TOSCA validator: a compiled grammar and the normative types checked
/// against it, reused for every file.
pub struct Checker {
    grammar: Grammar,
    normative: Normative,
}

/// The outcome of validating one service template.
#[derive(Debug, Default)]
pub struct Report {
    pub problems: Vec<Diagnostic>,
    /// The input could not be read at all (missing file, not text).
    pub unreadable: bool,
}

impl Report {
    pub fn is_valid(&self) -> bool {
        self.problems.is_empty()
    }
}

impl Checker {
    /// A checker with the bundled TOSCA 1.1 grammar.
    pub fn new(sources: &mut SourceMap) -> Result<Checker, Vec<Diagnostic>> {
        let grammar = Grammar::load(
            "<bundled tosca_simple_yaml_1_1.grammar>",
            BUNDLED_GRAMMAR,
            sources,
        )?;
        Ok(Checker::from_grammar(grammar))
    }

    fn from_grammar(grammar: Grammar) -> Checker {
        let normative = Normative::load(&grammar);
        Checker { grammar, normative }
    }

    /// A checker with another grammar file.
    pub fn with_grammar(path: &Path, sources: &mut SourceMap) -> Result<Checker, Vec<Diagnostic>> {
        let bytes =
            vetro_yaml::read_bytes(path, vetro_yaml::DEFAULT_MAX_INPUT).map_err(|d| vec![d])?;
        let grammar = Grammar::load(&path.display().to_string(), &bytes, sources)?;
        Ok(Checker::from_grammar(grammar))
    }

    pub fn grammar(&self) -> &Grammar {
        &self.grammar
    }

    /// Validate a service template file and everything it imports.
    pub fn validate(&self, path: &Path, sources: &mut SourceMap) -> Report {
        self.validate_in(path, &FileSystem, sources)
    }

    /// Validate the template `path` of `files` and everything it imports,
    /// reading nothing but `files` (e.g. a [`MemoryFiles`] map).
    pub fn validate_in(
        &self,
        path: &Path,
        files: &dyn TemplateFiles,
        sources: &mut SourceMap,
    ) -> Report {
        imports::validate_tree(&self.grammar, &self.normative, path, files, sources)
    }

    /// The type catalog a template sees (for `vetro tosca types`).
    pub fn catalog(&self, path: &Path, sources: &mut SourceMap) -> (Catalog, Report) {
        self.catalog_in(path, &FileSystem, sources)
    }

    /// The type catalog of the template `path` of `files`.
    pub fn catalog_in(
        &self,
        path: &Path,
        files: &dyn TemplateFiles,
        sources: &mut SourceMap,
    ) -> (Catalog, Report) {
        imports::catalog_of(&self.grammar, &self.normative, path, files, sources)
    }
}
