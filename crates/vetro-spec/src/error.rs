//! The one error type of the engine: a stable class (the `error[CLASS]` of the
//! CLI contract), a message a person can act on, and where known the spec
//! location that caused it.

use std::fmt;
use vetro_diag::{Diagnostic, Span};

/// Stable error classes (see the conformance FORMAT.md of the spec part).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorClass {
    MissingRequired,
    InvalidChoice,
    InvalidValue,
    UnknownOption,
    AmbiguousOption,
    UnknownSubcommand,
    MissingSubcommand,
    UnknownCommand,
    BadTopologyFormat,
    BadDictFormat,
    BadListFormat,
    FileNotFound,
    EmptySettingsFile,
    BadExtraVars,
    LookupError,
    SpecError,
    /// A settings YAML file (input, skeleton, extra-vars file, YamlFile) does not parse.
    YamlSyntax,
    /// Reading or writing a file failed for a reason other than its absence.
    Io,
    /// Running the playbook failed before it started.
    PlaybookError,
    /// `vetro plugin add`: a plugin of that name is already installed.
    PluginExists,
}

impl ErrorClass {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorClass::MissingRequired => "missing_required",
            ErrorClass::InvalidChoice => "invalid_choice",
            ErrorClass::InvalidValue => "invalid_value",
            ErrorClass::UnknownOption => "unknown_option",
            ErrorClass::AmbiguousOption => "ambiguous_option",
            ErrorClass::UnknownSubcommand => "unknown_subcommand",
            ErrorClass::MissingSubcommand => "missing_subcommand",
            ErrorClass::UnknownCommand => "unknown_command",
            ErrorClass::BadTopologyFormat => "bad_topology_format",
            ErrorClass::BadDictFormat => "bad_dict_format",
            ErrorClass::BadListFormat => "bad_list_format",
            ErrorClass::FileNotFound => "file_not_found",
            ErrorClass::EmptySettingsFile => "empty_settings_file",
            ErrorClass::BadExtraVars => "bad_extra_vars",
            ErrorClass::LookupError => "lookup_error",
            ErrorClass::SpecError => "spec_error",
            ErrorClass::YamlSyntax => "yaml_syntax",
            ErrorClass::Io => "io",
            ErrorClass::PlaybookError => "playbook_error",
            ErrorClass::PluginExists => "plugin_exists",
        }
    }

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

impl fmt::Display for ErrorClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
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
        let mut d = Diagnostic::error(self.class.as_str(), self.message.clone());
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
