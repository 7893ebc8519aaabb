//! Source positions and diagnostics shared by every vetro part.
//!
//! A [`SourceMap`] owns the text of every file a run reads; a [`Span`] points into
//! one of them. A [`Diagnostic`] is the one problem type of the workspace: it is
//! rendered for a terminal with [`render_text`] (source excerpt with a caret) and
//! as data with [`Diagnostic::to_json`].

mod kind;
mod render;
mod source;

pub use kind::{Kind, PartKind, PartLabel};
pub use render::{clip, render_json, render_text, ColorChoice, MAX_MESSAGE};
pub use source::{offset, FileId, SourceMap, Span};

use serde::Serialize;
use std::fmt;

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Note,
    Warning,
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Note => "note",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// A secondary location that explains the primary one ("first defined here").
#[derive(Clone, Debug, PartialEq)]
pub struct Related {
    pub span: Span,
    pub message: String,
}

/// One problem found in a user's input.
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub severity: Severity,
    /// Short stable identifier such as `yaml-syntax` or `duplicate-key`.
    pub kind: Kind,
    pub message: String,
    pub span: Option<Span>,
    pub related: Vec<Related>,
    /// Path inside the document, e.g. `Methods/deploy/Body/3`.
    pub path: Option<String>,
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn new(severity: Severity, kind: impl Into<Kind>, message: impl Into<String>) -> Self {
        Diagnostic {
            severity,
            kind: kind.into(),
            message: message.into(),
            span: None,
            related: Vec::new(),
            path: None,
            notes: Vec::new(),
        }
    }

    pub fn error(kind: impl Into<Kind>, message: impl Into<String>) -> Self {
        Self::new(Severity::Error, kind, message)
    }

    pub fn warning(kind: impl Into<Kind>, message: impl Into<String>) -> Self {
        Self::new(Severity::Warning, kind, message)
    }

    pub fn with_span(mut self, span: Span) -> Self {
        self.span = Some(span);
        self
    }

    pub fn with_related(mut self, span: Span, message: impl Into<String>) -> Self {
        self.related.push(Related {
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// The diagnostic as data: positions are resolved through `sources`.
    pub fn to_json(&self, sources: &SourceMap) -> serde_json::Value {
        let loc = |span: &Span| {
            serde_json::json!({
                "file": sources.name(span.file),
                "line": span.line,
                "column": span.col,
                "start": span.start,
                "end": span.end,
            })
        };
        let mut obj = serde_json::Map::new();
        obj.insert("severity".into(), self.severity.to_string().into());
        obj.insert("kind".into(), self.kind.as_str().into());
        obj.insert("message".into(), render::clip(&self.message).into());
        if let Some(path) = &self.path {
            obj.insert("path".into(), path.clone().into());
        }
        if let Some(span) = &self.span {
            obj.insert("location".into(), loc(span));
        }
        if !self.related.is_empty() {
            let related = self
                .related
                .iter()
                .map(|r| serde_json::json!({"message": r.message, "location": loc(&r.span)}))
                .collect::<Vec<_>>();
            obj.insert("related".into(), related.into());
        }
        if !self.notes.is_empty() {
            obj.insert("notes".into(), self.notes.clone().into());
        }
        serde_json::Value::Object(obj)
    }
}

impl fmt::Display for Diagnostic {
    /// One line without source text: `error[kind]: message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}[{}]: {}", self.severity, self.kind, self.message)?;
        if let Some(path) = &self.path {
            write!(f, " (at {path})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Diagnostic {}
