//! Errors of the policy language, each with the error class FORMAT.md names.

use super::ast::Span;
use std::fmt;

vetro_diag::kinds! {
    /// The class of a policy error, as reported to users and the harness; a
    /// class is the kind of the error's diagnostic.
    pub enum ErrorClass {
        Syntax = "syntax",
        ColumnReference = "column-reference",
        Recursion = "recursion",
        Unsafe = "unsafe",
        Arity = "arity",
        ModuleReference = "module-reference",
        Modal = "modal",
        /// A call of a builtin that does not exist (the harness calls it `other`).
        UnknownBuiltin = "other",
        /// An evaluation bound (tuples or time) was hit.
        Limit = "limit",
        Other = "other",
    }
}

/// A policy error with an optional place in the policy text.
#[derive(Clone, Debug, PartialEq)]
pub struct PolicyError {
    pub class: ErrorClass,
    pub message: String,
    pub span: Option<Span>,
}

impl PolicyError {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        PolicyError {
            class,
            message: message.into(),
            span: None,
        }
    }

    /// The error at `span` (a span of no text, line 0, is no place).
    pub fn at(mut self, span: Span) -> Self {
        if span.line > 0 {
            self.span = Some(span);
        }
        self
    }
}

impl fmt::Display for PolicyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span {
            Some(p) => write!(f, "line {}, column {}: {}", p.line, p.col, self.message),
            None => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for PolicyError {}
