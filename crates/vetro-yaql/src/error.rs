//! Errors raised by parsing and evaluation, with the kind vocabulary of the
//! conformance protocol (each kind mirrors one exception class of the reference).

use std::fmt;

/// What went wrong; `as_str` gives the stable protocol name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    Lexical,
    Grammar,
    NoFunction,
    NoMethod,
    NoMatchingFunction,
    NoMatchingMethod,
    AmbiguousFunction,
    AmbiguousMethod,
    MappingTranslation,
    Argument,
    CollectionTooLarge,
    MemoryQuota,
    Yaql,
    Key,
    Index,
    StopIteration,
    ZeroDivision,
    Overflow,
    Regex,
    Recursion,
    Assertion,
    Type,
    Value,
    Attribute,
    Arithmetic,
    Timeout,
    /// The evaluation's operation budget ran out.
    OperationLimit,
    /// The host's interrupt hook stopped the evaluation.
    Interrupted,
    /// A host function failed (its message says why).
    Host,
    Other,
}

impl ErrorKind {
    /// The protocol name of the kind (`no_matching_method`, `key`, ...).
    pub fn as_str(self) -> &'static str {
        use ErrorKind::*;
        match self {
            Lexical => "lexical",
            Grammar => "grammar",
            NoFunction => "no_function",
            NoMethod => "no_method",
            NoMatchingFunction => "no_matching_function",
            NoMatchingMethod => "no_matching_method",
            AmbiguousFunction => "ambiguous_function",
            AmbiguousMethod => "ambiguous_method",
            MappingTranslation => "mapping_translation",
            Argument => "argument",
            CollectionTooLarge => "collection_too_large",
            MemoryQuota => "memory_quota",
            Yaql => "yaql",
            Key => "key",
            Index => "index",
            StopIteration => "stop_iteration",
            ZeroDivision => "zero_division",
            Overflow => "overflow",
            Regex => "regex",
            Recursion => "recursion",
            Assertion => "assertion",
            Type => "type",
            Value => "value",
            Attribute => "attribute",
            Arithmetic => "arithmetic",
            Timeout => "timeout",
            OperationLimit => "operation_limit",
            Interrupted => "interrupted",
            Host => "host",
            Other => "other",
        }
    }

    /// True for the two parse-time kinds.
    pub fn is_parse(self) -> bool {
        matches!(self, ErrorKind::Lexical | ErrorKind::Grammar)
    }
}

/// A YAQL error: a kind, a message and, for parse errors, a byte position.
#[derive(Clone, Debug, PartialEq)]
pub struct Error {
    pub kind: ErrorKind,
    pub message: String,
    /// Byte offset in the expression (parse errors).
    pub position: Option<usize>,
}

impl Error {
    pub fn new(kind: ErrorKind, message: impl Into<String>) -> Error {
        Error {
            kind,
            message: message.into(),
            position: None,
        }
    }

    pub fn at(kind: ErrorKind, message: impl Into<String>, position: usize) -> Error {
        Error {
            kind,
            message: message.into(),
            position: Some(position),
        }
    }

    pub fn type_err(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Type, message)
    }

    pub fn value_err(message: impl Into<String>) -> Error {
        Error::new(ErrorKind::Value, message)
    }

    /// Render with a caret line under `expr` when the position is known.
    pub fn render(&self, expr: &str) -> String {
        match self.position {
            Some(pos) => {
                let col = expr
                    .get(..pos.min(expr.len()))
                    .map(|s| s.chars().count())
                    .unwrap_or(0);
                format!(
                    "{}: {}\n  {}\n  {}^",
                    self.kind.as_str(),
                    self.message,
                    expr,
                    " ".repeat(col)
                )
            }
            None => format!("{}: {}", self.kind.as_str(), self.message),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "{} (at {}): {}", self.kind.as_str(), p, self.message),
            None => write!(f, "{}: {}", self.kind.as_str(), self.message),
        }
    }
}

impl std::error::Error for Error {}

impl From<vetro_pycompat::time::TimeError> for Error {
    fn from(e: vetro_pycompat::time::TimeError) -> Error {
        Error::value_err(e.0)
    }
}

pub type Result<T> = std::result::Result<T, Error>;
