//! Files read during a run and positions inside them.

use std::sync::Arc;

/// Index of a file in a [`SourceMap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileId(pub u32);

/// A range of bytes in one file, with the 1-based line and column of its start.
/// Offsets are 32-bit (every YAML node carries a span, so it is kept small;
/// inputs are limited far below 4 GiB, and larger offsets saturate).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub file: FileId,
    /// Byte offset of the first byte.
    pub start: u32,
    /// Byte offset one past the last byte.
    pub end: u32,
    /// 1-based line of `start`.
    pub line: u32,
    /// 1-based column of `start`, counted in characters.
    pub col: u32,
}

/// A byte offset as stored in a [`Span`].
pub fn offset(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Span {
    /// The bytes the span covers.
    pub fn range(&self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    /// A span covering both `self` and `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        if other.end > self.end {
            Span {
                end: other.end,
                ..self
            }
        } else {
            self
        }
    }
}

#[derive(Debug)]
struct SourceFile {
    name: String,
    text: Arc<str>,
    /// Byte offset where each line starts.
    line_starts: Vec<usize>,
}

/// Every file a run has read, so diagnostics can quote them.
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn new() -> Self {
        Self::default()
    }

    /// Register a file's text under a display name.
    pub fn add(&mut self, name: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let text: Arc<str> = text.into();
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        self.files.push(SourceFile {
            name: name.into(),
            text,
            line_starts,
        });
        FileId((self.files.len() - 1) as u32)
    }

    pub fn name(&self, id: FileId) -> &str {
        self.files
            .get(id.0 as usize)
            .map_or("<unknown>", |f| &f.name)
    }

    pub fn text(&self, id: FileId) -> &str {
        self.files.get(id.0 as usize).map_or("", |f| &f.text)
    }

    pub fn text_arc(&self, id: FileId) -> Option<Arc<str>> {
        self.files.get(id.0 as usize).map(|f| f.text.clone())
    }

    pub fn len(&self) -> usize {
        self.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    pub(crate) fn line_starts(&self, id: FileId) -> &[usize] {
        self.files
            .get(id.0 as usize)
            .map_or(&[0][..], |f| &f.line_starts)
    }

    /// 1-based line and character column of a byte offset.
    pub fn line_col(&self, id: FileId, offset: usize) -> (u32, u32) {
        let starts = self.line_starts(id);
        let line = starts.partition_point(|&s| s <= offset).saturating_sub(1);
        let text = self.text(id);
        let start = starts.get(line).copied().unwrap_or(0).min(text.len());
        let end = offset.min(text.len());
        let col = text
            .get(start..end)
            .map_or(end - start, |s| s.chars().count());
        (line as u32 + 1, col as u32 + 1)
    }

    /// A span for a byte range, with its line and column computed.
    pub fn span(&self, id: FileId, start: usize, end: usize) -> Span {
        let (line, col) = self.line_col(id, start);
        Span {
            file: id,
            start: offset(start),
            end: offset(end),
            line,
            col,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_are_one_based() {
        let mut map = SourceMap::new();
        let id = map.add("a.yaml", "ab\ncdé\nf");
        assert_eq!(map.line_col(id, 0), (1, 1));
        assert_eq!(map.line_col(id, 3), (2, 1));
        assert_eq!(map.line_col(id, 7), (2, 4));
        assert_eq!(map.line_col(id, 8), (3, 1));
    }
}
