//! The errors of reading a text: lexical (a character or token that cannot
//! start anything) and grammatical (tokens in an order the grammar refuses).

use std::fmt;

/// Which stage refused the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SyntaxErrorKind {
    /// The lexer: an illegal character or identifier, an unterminated string.
    Lexical,
    /// The parser: an unexpected token, an empty or too deeply nested text.
    Grammar,
}

/// A text that does not parse: the stage, a message and the byte offset in
/// the source where the problem is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SyntaxError {
    pub kind: SyntaxErrorKind,
    pub message: String,
    pub position: usize,
}

impl SyntaxError {
    pub fn lexical(message: impl Into<String>, position: usize) -> SyntaxError {
        SyntaxError {
            kind: SyntaxErrorKind::Lexical,
            message: message.into(),
            position,
        }
    }

    pub fn grammar(message: impl Into<String>, position: usize) -> SyntaxError {
        SyntaxError {
            kind: SyntaxErrorKind::Grammar,
            message: message.into(),
            position,
        }
    }
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} (at {})", self.message, self.position)
    }
}

impl std::error::Error for SyntaxError {}

pub type Result<T> = std::result::Result<T, SyntaxError>;
