//! One problem found while validating a document.

use vetro_diag::{Diagnostic, Kind, Span};

#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    /// One of [`crate::KwalifyKind`] (`missing-required`, `wrong-type`, ...),
    /// or a kind of the layer whose hook found the problem.
    pub kind: Kind,
    /// Instance path of the node at fault.
    pub path: String,
    pub message: String,
    /// The node at fault (for `missing-required`: the enclosing mapping).
    pub span: Span,
    /// The grammar rule that was applied: its `name`, or its grammar path.
    pub rule: String,
}

impl Problem {
    pub fn to_diagnostic(&self) -> Diagnostic {
        Diagnostic::error(self.kind, self.message.clone())
            .with_span(self.span)
            .with_path(self.path.clone())
            .with_note(format!("grammar rule: {}", self.rule))
    }
}
