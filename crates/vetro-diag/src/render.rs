//! Terminal and JSON rendering of diagnostics.

use crate::{Diagnostic, FileId, Severity, SourceMap, Span};
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
            clamp(span.file, span.start as usize, span.end as usize),
        ));
    }
    for related in &diag.related {
        let span = related.span;
        labels.push(
            Label::secondary(
                span.file,
                clamp(span.file, span.start as usize, span.end as usize),
            )
            .with_message(related.message.clone()),
        );
    }
    let mut notes = Vec::new();
    if let Some(path) = &diag.path {
        notes.push(format!("at {path}"));
    }
    notes.extend(diag.notes.iter().cloned());
    CsDiagnostic::new(severity)
        .with_code(diag.kind.as_str())
        .with_message(clip(&diag.message))
        .with_labels(labels)
        .with_notes(notes)
}

/// The longest message printed whole, in bytes (a message may quote user input).
pub const MAX_MESSAGE: usize = 1000;

/// `message` whole, or its first [`MAX_MESSAGE`] bytes and how many more there
/// were: a message may quote a megabyte of user input.
pub fn clip(message: &str) -> String {
    if message.len() <= MAX_MESSAGE {
        return message.to_string();
    }
    let cut = floor_boundary(message, MAX_MESSAGE);
    format!("{}… ({} more bytes)", &message[..cut], message.len() - cut)
}

/// Render diagnostics as compilers do: message, `file:line:col`, source excerpt and caret.
/// A source line longer than [`MAX_EXCERPT`] bytes, or one with control
/// characters (a binary file), is shown as a window around the position with
/// the control characters escaped.
pub fn render_text(sources: &SourceMap, diags: &[Diagnostic], color: ColorChoice) -> String {
    let mut buffer = match color {
        ColorChoice::Always => termcolor::Buffer::ansi(),
        ColorChoice::Never => termcolor::Buffer::no_color(),
    };
    let config = term::Config::default();
    for diag in diags {
        let spans = diag.span.iter().chain(diag.related.iter().map(|r| &r.span));
        let emitted = if spans.clone().any(|s| needs_window(sources, s)) {
            let (view, cs) = windowed(diag, sources);
            term::emit_to_write_style(&mut buffer, &config, &view, &cs)
        } else {
            let cs = to_codespan(diag, sources);
            term::emit_to_write_style(&mut buffer, &config, sources, &cs)
        };
        if emitted.is_err() {
            // Rendering only fails on inconsistent spans; fall back to one line.
            buffer.clear();
            return diags.iter().map(|d| format!("{d}\n")).collect();
        }
    }
    String::from_utf8_lossy(buffer.as_slice()).into_owned()
}

/// The longest source line quoted whole in an excerpt, in bytes.
pub const MAX_EXCERPT: usize = 240;
/// Bytes shown before and after the position in a windowed excerpt.
const WINDOW_BEFORE: usize = 60;
const WINDOW_AFTER: usize = 100;

/// The line of `span`: (start, end without the line break).
fn line_of(sources: &SourceMap, span: &Span) -> (usize, usize) {
    let text = sources.text(span.file);
    let starts = sources.line_starts(span.file);
    let at = (span.start as usize).min(text.len());
    let i = starts.partition_point(|&s| s <= at).saturating_sub(1);
    let start = starts.get(i).copied().unwrap_or(0).min(text.len());
    let end = starts
        .get(i + 1)
        .map_or(text.len(), |&e| e.saturating_sub(1))
        .max(start);
    (start, end)
}

fn needs_window(sources: &SourceMap, span: &Span) -> bool {
    let (start, end) = line_of(sources, span);
    let line = &sources.text(span.file)[start..end];
    line.len() > MAX_EXCERPT
        || line
            .chars()
            .any(|c| c.is_control() && c != '\t' && c != '\r')
}

fn floor_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// One excerpt shown in place of a source line: a window of it.
struct Window {
    name: String,
    text: String,
    line: usize,
    col: usize,
}

/// The excerpts of one diagnostic, one file per label.
struct Windows(Vec<Window>);

impl<'a> Files<'a> for Windows {
    type FileId = usize;
    type Name = &'a str;
    type Source = &'a str;

    fn name(&'a self, id: usize) -> Result<&'a str, FilesError> {
        self.0
            .get(id)
            .map(|w| w.name.as_str())
            .ok_or(FilesError::FileMissing)
    }
    fn source(&'a self, id: usize) -> Result<&'a str, FilesError> {
        self.0
            .get(id)
            .map(|w| w.text.as_str())
            .ok_or(FilesError::FileMissing)
    }
    fn line_index(&'a self, _: usize, _: usize) -> Result<usize, FilesError> {
        Ok(0)
    }
    fn line_number(&'a self, id: usize, _: usize) -> Result<usize, FilesError> {
        self.0
            .get(id)
            .map(|w| w.line)
            .ok_or(FilesError::FileMissing)
    }
    fn column_number(&'a self, id: usize, _: usize, _: usize) -> Result<usize, FilesError> {
        self.0.get(id).map(|w| w.col).ok_or(FilesError::FileMissing)
    }
    fn line_range(&'a self, id: usize, _: usize) -> Result<Range<usize>, FilesError> {
        self.0
            .get(id)
            .map(|w| 0..w.text.len())
            .ok_or(FilesError::FileMissing)
    }
}

/// A window of the line of `span`, control characters escaped, and the
/// label's range inside it.
fn window(sources: &SourceMap, span: &Span) -> (Window, Range<usize>) {
    let text = sources.text(span.file);
    let (start, end) = line_of(sources, span);
    let line = &text[start..end];
    let from = (span.start as usize).clamp(start, end) - start;
    let to = (span.end as usize).clamp(start, end) - start;
    let begin = floor_boundary(line, from.saturating_sub(WINDOW_BEFORE));
    let finish = floor_boundary(line, to.max(from + 1).min(from + WINDOW_AFTER) + 20);
    let mut out = String::new();
    if begin > 0 {
        out.push('…');
    }
    let (mut label_start, mut label_end) = (None, None);
    for (i, c) in line[begin..finish].char_indices() {
        if begin + i == from {
            label_start = Some(out.len());
        }
        if begin + i == to.min(finish) {
            label_end = Some(out.len());
        }
        if c.is_control() && c != '\t' {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    let label_start = label_start.unwrap_or(out.len());
    let label_end = label_end.unwrap_or(out.len()).max(label_start);
    if finish < line.len() {
        out.push('…');
    }
    let (line_no, col) = sources.line_col(span.file, span.start as usize);
    let w = Window {
        name: sources.name(span.file).to_string(),
        text: out,
        line: line_no as usize,
        col: col as usize,
    };
    (w, label_start..label_end)
}

fn windowed(diag: &Diagnostic, sources: &SourceMap) -> (Windows, CsDiagnostic<usize>) {
    let mut files = Vec::new();
    let mut labels = Vec::new();
    if let Some(span) = &diag.span {
        let (w, range) = window(sources, span);
        files.push(w);
        labels.push(Label::primary(0, range));
    }
    for related in &diag.related {
        let (w, range) = window(sources, &related.span);
        labels.push(Label::secondary(files.len(), range).with_message(related.message.clone()));
        files.push(w);
    }
    let plain = to_codespan(diag, sources);
    let cs = CsDiagnostic::new(plain.severity)
        .with_code(diag.kind.as_str())
        .with_message(plain.message)
        .with_labels(labels)
        .with_notes(plain.notes);
    (Windows(files), cs)
}

/// Render diagnostics as a JSON array.
pub fn render_json(sources: &SourceMap, diags: &[Diagnostic]) -> serde_json::Value {
    serde_json::Value::Array(diags.iter().map(|d| d.to_json(sources)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kind;

    crate::kinds! {
        enum TestKind {
            DuplicateKey = "duplicate-key",
            Control = "control",
        }
    }

    #[test]
    fn text_rendering_quotes_the_source_with_a_caret() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "a: 1\nb: [\n");
        let span = map.span(id, 8, 9);
        let diag = Diagnostic::error(Kind::YamlSyntax, "unclosed flow sequence")
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
    fn long_lines_and_binary_bytes_are_shown_as_a_window() {
        let mut map = SourceMap::new();
        let long = format!("a: [{}x\n", "1, ".repeat(1_000_000));
        let id = map.add("big.yaml", long.clone());
        let at = long.len() - 2;
        let diag = Diagnostic::error(Kind::YamlSyntax, "bad").with_span(map.span(id, at, at + 1));
        let text = render_text(&map, &[diag], ColorChoice::Never);
        assert!(text.len() < 1_000, "{} bytes", text.len());
        assert!(text.contains("big.yaml:1:"), "{text}");
        assert!(text.contains('…') && text.contains('^'), "{text}");

        let id = map.add("bin.yaml", "a: \u{1b}[31mred\u{7}\n");
        let diag = Diagnostic::error(TestKind::Control, "control").with_span(map.span(id, 3, 4));
        let text = render_text(&map, &[diag], ColorChoice::Never);
        assert!(
            !text.contains('\u{1b}') && !text.contains('\u{7}'),
            "{text:?}"
        );
        assert!(text.contains("\\u{1b}"), "{text}");
        assert!(text.contains("bin.yaml:1:4"), "{text}");
    }

    #[test]
    fn json_rendering_carries_position_and_path() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "a: 1\na: 2\n");
        let first = map.span(id, 0, 1);
        let second = map.span(id, 5, 6);
        let diag = Diagnostic::error(TestKind::DuplicateKey, "duplicate key `a`")
            .with_span(second)
            .with_related(first, "first defined here");
        let json = render_json(&map, &[diag]);
        assert_eq!(json[0]["kind"], "duplicate-key");
        assert_eq!(json[0]["location"]["line"], 2);
        assert_eq!(json[0]["related"][0]["location"]["line"], 1);
    }
}
