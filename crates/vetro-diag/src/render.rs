//! Terminal and JSON rendering of diagnostics.

use crate::{Diagnostic, FileId, Severity, SourceMap};
use codespan_reporting::diagnostic::{Diagnostic as CsDiagnostic, Label, Severity as CsSeverity};
use codespan_reporting::files::{Error as FilesError, Files};
use codespan_reporting::term::{self, termcolor};
use std::ops::Range;

/// Whether terminal output uses colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ColorChoice {
    Always,
    Never,
}

impl<'a> Files<'a> for SourceMap {
    type FileId = FileId;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(SourceMap::name(self, id))
    }

    fn source(&'a self, id: FileId) -> Result<&'a str, FilesError> {
        Ok(self.text(id))
    }

    fn line_index(&'a self, id: FileId, byte_index: usize) -> Result<usize, FilesError> {
        Ok(self
            .line_starts(id)
            .partition_point(|&s| s <= byte_index)
            .saturating_sub(1))
    }

    fn line_range(&'a self, id: FileId, line_index: usize) -> Result<Range<usize>, FilesError> {
        let starts = self.line_starts(id);
        let len = self.text(id).len();
        let start = *starts.get(line_index).ok_or(FilesError::LineTooLarge {
            given: line_index,
            max: starts.len().saturating_sub(1),
        })?;
        let end = starts.get(line_index + 1).copied().unwrap_or(len);
        Ok(start..end)
    }
}

fn to_codespan(diag: &Diagnostic, sources: &SourceMap) -> CsDiagnostic<FileId> {
    let severity = match diag.severity {
        Severity::Error => CsSeverity::Error,
        Severity::Warning => CsSeverity::Warning,
        Severity::Note => CsSeverity::Note,
    };
    let clamp = |file: FileId, start: usize, end: usize| {
        let len = sources.text(file).len();
        let start = start.min(len);
        start..end.clamp(start, len)
    };
    let mut labels = Vec::new();
    if let Some(span) = diag.span {
        labels.push(Label::primary(
            span.file,
            clamp(span.file, span.start, span.end),
        ));
    }
    for related in &diag.related {
        let span = related.span;
        labels.push(
            Label::secondary(span.file, clamp(span.file, span.start, span.end))
                .with_message(related.message.clone()),
        );
    }
    let mut notes = Vec::new();
    if let Some(path) = &diag.path {
        notes.push(format!("at {path}"));
    }
    notes.extend(diag.notes.iter().cloned());
    CsDiagnostic::new(severity)
        .with_code(diag.kind.clone())
        .with_message(diag.message.clone())
        .with_labels(labels)
        .with_notes(notes)
}

/// Render diagnostics as compilers do: message, `file:line:col`, source excerpt and caret.
pub fn render_text(sources: &SourceMap, diags: &[Diagnostic], color: ColorChoice) -> String {
    let mut buffer = match color {
        ColorChoice::Always => termcolor::Buffer::ansi(),
        ColorChoice::Never => termcolor::Buffer::no_color(),
    };
    let config = term::Config::default();
    for diag in diags {
        let cs = to_codespan(diag, sources);
        if term::emit_to_write_style(&mut buffer, &config, sources, &cs).is_err() {
            // Rendering only fails on inconsistent spans; fall back to one line.
            buffer.clear();
            return diags.iter().map(|d| format!("{d}\n")).collect();
        }
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// Render diagnostics as a JSON array.
pub fn render_json(sources: &SourceMap, diags: &[Diagnostic]) -> serde_json::Value {
    serde_json::Value::Array(diags.iter().map(|d| d.to_json(sources)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_rendering_quotes_the_source_with_a_caret() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "a: 1\nb: [\n");
        let span = map.span(id, 8, 9);
        let diag = Diagnostic::error("yaml-syntax", "unclosed flow sequence")
            .with_span(span)
            .with_path("b");
        let text = render_text(&map, &[diag], ColorChoice::Never);
        assert!(
            text.contains("error[yaml-syntax]: unclosed flow sequence"),
            "{text}"
        );
        assert!(text.contains("a.yaml:2:4"), "{text}");
        assert!(text.contains('^'), "{text}");
        assert!(text.contains("at b"), "{text}");
    }

    #[test]
    fn json_rendering_carries_position_and_path() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "a: 1\na: 2\n");
        let first = map.span(id, 0, 1);
        let second = map.span(id, 5, 6);
        let diag = Diagnostic::error("duplicate-key", "duplicate key `a`")
            .with_span(second)
            .with_related(first, "first defined here");
        let json = render_json(&map, &[diag]);
        assert_eq!(json[0]["kind"], "duplicate-key");
        assert_eq!(json[0]["location"]["line"], 2);
        assert_eq!(json[0]["related"][0]["location"]["line"], 1);
    }
}
