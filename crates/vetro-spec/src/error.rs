//! The one error type of the engine: a stable class (the `error[CLASS]` of the
//! CLI contract), a message a person can act on, and where known the spec
//! location that caused it.

use std::fmt;
use vetro_diag::{Diagnostic, Kind, Span};

vetro_diag::kinds! {
    /// Stable error classes (see the conformance FORMAT.md of the spec part);
    /// a class is the kind of the error's diagnostic.
    pub enum ErrorClass {
        MissingRequired = "missing_required",
        InvalidChoice = "invalid_choice",
        InvalidValue = "invalid_value",
        UnknownOption = "unknown_option",
        AmbiguousOption = "ambiguous_option",
        UnknownSubcommand = "unknown_subcommand",
        MissingSubcommand = "missing_subcommand",
        UnknownCommand = "unknown_command",
        BadTopologyFormat = "bad_topology_format",
        BadDictFormat = "bad_dict_format",
        BadListFormat = "bad_list_format",
        FileNotFound = "file_not_found",
        EmptySettingsFile = "empty_settings_file",
        BadExtraVars = "bad_extra_vars",
        LookupError = "lookup_error",
        SpecError = "spec_error",
        /// A settings YAML file (input, skeleton, extra-vars file, YamlFile) does not parse.
        YamlSyntax = "yaml_syntax",
        /// Reading or writing a file failed for a reason other than its absence
        /// (its diagnostic is of the shared kind `io`).
        Io = "io",
        /// Running the playbook failed before it started.
        PlaybookError = "playbook_error",
        /// `vetro plugin add`: a plugin of that name is already installed.
        PluginExists = "plugin_exists",
    }
}

impl ErrorClass {
    /// Usage problems (bad command line) as opposed to invalid inputs.
    pub fn is_usage(self) -> bool {
        matches!(
            self,
            ErrorClass::InvalidChoice
                | ErrorClass::InvalidValue
                | ErrorClass::UnknownOption
                | ErrorClass::AmbiguousOption
                | ErrorClass::UnknownSubcommand
                | ErrorClass::MissingSubcommand
                | ErrorClass::UnknownCommand
                | ErrorClass::Io
        )
    }
}

/// An error of the spec engine.
#[derive(Clone, Debug)]
pub struct SpecError {
    pub class: ErrorClass,
    pub message: String,
    /// The spec (or settings) location, when the error comes from a file vetro read.
    pub span: Option<Span>,
    /// Extra lines (e.g. every place a file was searched).
    pub notes: Vec<String>,
}

impl SpecError {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        SpecError {
            class,
            message: message.into(),
            span: None,
            notes: Vec::new(),
        }
    }

    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The same problem as a workspace diagnostic (kind = the error class).
    pub fn to_diagnostic(&self) -> Diagnostic {
        let kind = match self.class {
            ErrorClass::Io => Kind::Io,
            class => class.into(),
        };
        let mut d = Diagnostic::error(kind, self.message.clone());
        if let Some(span) = self.span {
            d = d.with_span(span);
        }
        for n in &self.notes {
            d = d.with_note(n.clone());
        }
        d
    }
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "error[{}]: {}", self.class, self.message)
    }
}

impl std::error::Error for SpecError {}

/// Shorthand for results of the engine.
pub type Result<T> = std::result::Result<T, SpecError>;
