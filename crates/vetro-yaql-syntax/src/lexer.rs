//! Tokenizer following the reference's token rules: each token with the byte
//! range of its text.

use crate::ast::{offset, Span};
use crate::error::{Result, SyntaxError};
use crate::operators::OperatorTable;
use std::borrow::Cow;
use vetro_pycompat::int::MAX_INT_DIGITS;

/// A token; names and numbers borrow the source text.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    Int(&'a str),
    Float(f64),
    /// A quoted string: borrowed when it has no escapes.
    Str(Cow<'a, str>),
    /// A bare identifier (keyword constant, `true`, `false`, `null`).
    Word(&'a str),
    /// `name(`: a function call.
    Func(&'a str),
    /// `$name` (`$` alone is `$1`... the name is kept as written, without `$`).
    Dollar(&'a str),
    /// Operator symbols and operator words (`and`, `or`, `not`, `in`, `mod`).
    Op(&'a str),
    LParen,
    RParen,
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    Comma,
    Eof,
}

#[derive(Clone, Debug)]
pub struct Token<'a> {
    pub tok: Tok<'a>,
    /// The byte range of its text.
    pub span: Span,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// The built-in operator symbol at the start of `rest` (two-character
/// symbols first); `:` only with `colon`.
fn builtin_symbol(rest: &[u8], colon: bool) -> Option<&'static str> {
    let second = rest.get(1).copied().unwrap_or(0);
    Some(match (rest.first()?, second) {
        (b'?', b'.') => "?.",
        (b'=', b'~') => "=~",
        (b'!', b'~') => "!~",
        (b'>', b'=') => ">=",
        (b'<', b'=') => "<=",
        (b'!', b'=') => "!=",
        (b'-', b'>') => "->",
        (b'=', b'>') => "=>",
        (b'.', _) => ".",
        (b'+', _) => "+",
        (b'-', _) => "-",
        (b'*', _) => "*",
        (b'/', _) => "/",
        (b'>', _) => ">",
        (b'<', _) => "<",
        (b'=', _) => "=",
        (b':', _) if colon => ":",
        _ => return None,
    })
}

/// Split `src` into tokens. `colon` accepts `:` as an operator symbol (the
/// host's namespace operator).
pub fn tokenize(src: &str, colon: bool) -> Result<Vec<Token<'_>>> {
    tokenize_with(src, colon, false)
}

/// A cursor over the source: positions are byte offsets, characters are
/// decoded only where the text is not ASCII.
#[derive(Clone, Copy)]
struct Cursor<'a> {
    src: &'a str,
    bytes: &'a [u8],
}

impl Cursor<'_> {
    /// The character at byte offset `i` (a character boundary).
    fn at(&self, i: usize) -> Option<char> {
        match self.bytes.get(i) {
            Some(&b) if b < 0x80 => Some(b as char),
            Some(_) => self.src[i..].chars().next(),
            None => None,
        }
    }

    /// The offset after the run of word characters starting at `i`.
    fn word_end(&self, mut i: usize) -> usize {
        while let Some(c) = self.at(i) {
            if !is_word(c) {
                break;
            }
            i += c.len_utf8();
        }
        i
    }

    fn digits_end(&self, mut i: usize) -> usize {
        while self.bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
        i
    }
}

/// Tokenize; `is_op` makes the word `is` an operator (MuranoPL).
pub fn tokenize_with(src: &str, colon: bool, is_op: bool) -> Result<Vec<Token<'_>>> {
    tokenize_ops(src, colon, is_op, None)
}

/// Tokenize with the operators of `table` (when given) in place of the
/// built-in ones (`colon` and `is_op` then do not apply).
pub fn tokenize_ops<'a>(
    src: &'a str,
    colon: bool,
    is_op: bool,
    table: Option<&OperatorTable>,
) -> Result<Vec<Token<'a>>> {
    let mut lexer = Lexer::new(src, colon, is_op, table);
    let mut out = Vec::with_capacity(src.len() / 3 + 2);
    loop {
        lexer.advance()?;
        let span = lexer.token.span;
        let tok = std::mem::replace(&mut lexer.token.tok, Tok::Eof);
        let end = tok == Tok::Eof;
        out.push(Token { tok, span });
        if end {
            return Ok(out);
        }
    }
}

/// Reads the tokens of a text one at a time, as the parser asks for them
/// (no list of tokens is built). The current token is written in place:
/// the parser looks at it where it is, instead of copying a returned one.
#[derive(Clone)]
pub(crate) struct Lexer<'a, 't> {
    cur: Cursor<'a>,
    /// The offset where the next token's search starts.
    i: usize,
    colon: bool,
    is_op: bool,
    table: Option<&'t OperatorTable>,
    /// The 1-based line and column of byte `mark`, the start of the token
    /// read last (tokens come in order, so each character is counted once).
    mark: usize,
    line: u32,
    col: u32,
    /// The token read last: [`Tok::Eof`] at the end of the text (and
    /// before the first [`Lexer::advance`]).
    pub(crate) token: Token<'a>,
}

impl<'a, 't> Lexer<'a, 't> {
    pub(crate) fn new(
        src: &'a str,
        colon: bool,
        is_op: bool,
        table: Option<&'t OperatorTable>,
    ) -> Lexer<'a, 't> {
        Lexer {
            cur: Cursor {
                src,
                bytes: src.as_bytes(),
            },
            i: 0,
            colon,
            is_op,
            table,
            mark: 0,
            line: 1,
            col: 1,
            token: Token {
                tok: Tok::Eof,
                span: Span::default(),
            },
        }
    }

    /// Read the next token into `token`; [`Tok::Eof`] at the end of the
    /// text, and again on every later call.
    pub(crate) fn advance(&mut self) -> Result<()> {
        let bytes = self.cur.bytes;
        while matches!(bytes.get(self.i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
            self.i += 1;
        }
        let start = self.i;
        match self.cur.at(start) {
            Some(c) => self.token_at(start, c),
            None => {
                self.set(Tok::Eof, start, start);
                Ok(())
            }
        }
    }

    /// The first lexical error in the rest of the text, if any.
    pub(crate) fn check_rest(mut self) -> Result<()> {
        while self.token.tok != Tok::Eof {
            self.advance()?;
        }
        Ok(())
    }

    /// Make `tok`, written from `start` to `end`, the current token.
    #[inline]
    fn set(&mut self, tok: Tok<'a>, start: usize, end: usize) {
        self.i = end;
        self.locate(start);
        self.token = Token {
            tok,
            span: Span {
                file: Default::default(),
                start: offset(start),
                end: offset(end),
                line: self.line,
                col: self.col,
            },
        };
    }

    /// Move the line and column count forward to byte `to`.
    fn locate(&mut self, to: usize) {
        let Some(skipped) = self.cur.src.get(self.mark..to) else {
            return;
        };
        for c in skipped.chars() {
            if c == '\n' {
                self.line += 1;
                self.col = 1;
            } else {
                self.col += 1;
            }
        }
        self.mark = to;
    }

    /// Read the token starting with character `c` at byte `i`.
    #[inline]
    fn token_at(&mut self, i: usize, c: char) -> Result<()> {
        let cur = self.cur;
        let src = cur.src;
        if c == '$' {
            let j = cur.word_end(i + 1);
            self.set(Tok::Dollar(&src[i + 1..j]), i, j);
            return Ok(());
        }
        if c.is_ascii_digit() {
            let (tok, j) = lex_number(&cur, i)?;
            self.set(tok, i, j);
            return Ok(());
        }
        if is_word(c) {
            // identifiers start with a letter or underscore (digits handled above)
            let j = cur.word_end(i);
            let name = &src[i..j];
            if cur.bytes.get(j) == Some(&b'(') {
                self.set(Tok::Func(name), i, j + 1);
                return Ok(());
            }
            if name.starts_with("__") {
                return Err(SyntaxError::lexical(
                    format!("Lexical error: illegal identifier '{}'", name),
                    i,
                ));
            }
            let tok = match (name, self.table) {
                (_, Some(t)) if t.is_word_operator(name) => Tok::Op(name),
                (_, Some(_)) => Tok::Word(name),
                ("and", None) => Tok::Op("and"),
                ("or", None) => Tok::Op("or"),
                ("not", None) => Tok::Op("not"),
                ("in", None) => Tok::Op("in"),
                ("mod", None) => Tok::Op("mod"),
                ("is", None) if self.is_op => Tok::Op("is"),
                _ => Tok::Word(name),
            };
            self.set(tok, i, j);
            return Ok(());
        }
        if c == '\'' || c == '"' || c == '`' {
            let (s, j) = lex_string(src, i)?;
            self.set(Tok::Str(s), i, j);
            return Ok(());
        }
        let simple = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '[' => Some(Tok::LBracket),
            ']' => Some(Tok::RBracket),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            ',' => Some(Tok::Comma),
            _ => None,
        };
        if let Some(tok) = simple {
            self.set(tok, i, i + 1);
            return Ok(());
        }
        let rest = &src[i..];
        let op = match self.table {
            Some(t) => t.match_symbol(rest),
            None => builtin_symbol(rest.as_bytes(), self.colon),
        };
        match op {
            Some(op) => {
                self.set(Tok::Op(op), i, i + op.len());
                Ok(())
            }
            None => Err(SyntaxError::lexical(
                format!("Lexical error: illegal character '{}'", c),
                i,
            )),
        }
    }
}

/// A number at `i`, read as the reference's lexer does (`\b\d+(\.?\d+)?\b`):
/// digits, then a fraction when a digit follows the dot; a word character
/// right after the fraction leaves the integer alone (`1.5e3` is `1`, `.`,
/// then `5e3`), and one right after the integer makes the number's first
/// digit an illegal character (`12abc` fails at `1`).
fn lex_number<'a>(cur: &Cursor<'a>, i: usize) -> Result<(Tok<'a>, usize)> {
    let ends_word = |k: usize| !cur.at(k).is_some_and(is_word);
    let mut j = cur.digits_end(i);
    let mut float = false;
    if cur.bytes.get(j) == Some(&b'.') && cur.bytes.get(j + 1).is_some_and(u8::is_ascii_digit) {
        let m = cur.digits_end(j + 1);
        if ends_word(m) {
            float = true;
            j = m;
        }
    }
    if !ends_word(j) {
        return Err(SyntaxError::lexical(
            format!("Lexical error: illegal character '{}'", &cur.src[i..i + 1]),
            i,
        ));
    }
    let text = &cur.src[i..j];
    if !float && text.len() > MAX_INT_DIGITS {
        return Err(SyntaxError::lexical(
            format!(
                "Lexical error: an integer of {} digits is over the limit of {MAX_INT_DIGITS}",
                text.len()
            ),
            i,
        ));
    }
    let tok = if float {
        Tok::Float(text.parse().unwrap_or(0.0))
    } else {
        Tok::Int(text)
    };
    Ok((tok, j))
}

fn unicode_name(name: &str) -> Option<char> {
    Some(match name.to_ascii_uppercase().as_str() {
        "BULLET" => '\u{2022}',
        "SPACE" => ' ',
        "NO-BREAK SPACE" => '\u{a0}',
        "EM DASH" => '\u{2014}',
        "EN DASH" => '\u{2013}',
        "HORIZONTAL ELLIPSIS" => '\u{2026}',
        "DEGREE SIGN" => '\u{b0}',
        "COPYRIGHT SIGN" => '\u{a9}',
        "EURO SIGN" => '\u{20ac}',
        "LATIN SMALL LETTER A" => 'a',
        "GREEK SMALL LETTER ALPHA" => '\u{3b1}',
        "SNOWMAN" => '\u{2603}',
        _ => return None,
    })
}

/// The string literal starting at byte `start` (its quote) and the offset
/// after it: borrowed from the source unless it has escapes.
fn lex_string(src: &str, start: usize) -> Result<(Cow<'_, str>, usize)> {
    let bytes = src.as_bytes();
    let quote = bytes[start];
    // Quotes and backslashes are ASCII, so a byte scan finds them.
    if let Some(k) = bytes[start + 1..]
        .iter()
        .position(|&b| b == quote || b == b'\\')
    {
        let k = start + 1 + k;
        if bytes[k] == quote {
            return Ok((Cow::Borrowed(&src[start + 1..k]), k + 1));
        }
    }
    let chars: Vec<(usize, char)> = src[start..]
        .char_indices()
        .map(|(o, c)| (o + start, c))
        .collect();
    let (text, end) = unescape(&chars)?;
    let end = chars.get(end).map_or(src.len(), |c| c.0);
    Ok((Cow::Owned(text), end))
}

/// A string literal with escapes; `chars` starts at its opening quote.
/// Returns the text and the index (in `chars`) after the closing quote.
fn unescape(chars: &[(usize, char)]) -> Result<(String, usize)> {
    let start = 0;
    let quote = chars[start].1;
    let mut out = String::new();
    let mut i = start + 1;
    // No token starts at an unterminated string's quote: the reference
    // reports the quote as an illegal character.
    let unterminated = || {
        SyntaxError::lexical(
            format!("Lexical error: illegal character '{quote}' (an unterminated string)"),
            chars[start].0,
        )
    };
    loop {
        let Some(&(_, c)) = chars.get(i) else {
            return Err(unterminated());
        };
        if c == quote {
            return Ok((out, i + 1));
        }
        if c != '\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let Some(&(_, e)) = chars.get(i + 1) else {
            return Err(unterminated());
        };
        if quote == '`' {
            if e == '`' {
                out.push('`');
            } else {
                out.push('\\');
                out.push(e);
            }
            i += 2;
            continue;
        }
        i += 2;
        match e {
            '\\' => out.push('\\'),
            '\'' => out.push('\''),
            '"' => out.push('"'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            'f' => out.push('\x0c'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\x0b'),
            '\n' => {}
            'x' | 'u' | 'U' => {
                let len = match e {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                // The reference decodes `\xHH`, `\uHHHH`, `\UHHHHHHHH` only
                // when that many characters of the string follow (a shorter
                // one stays as written); characters that are not hex digits
                // fail.
                let hex: String = chars[i..(i + len).min(chars.len())]
                    .iter()
                    .map(|c| c.1)
                    .take_while(|&c| c != quote && c != '\n')
                    .collect();
                if hex.chars().count() < len {
                    out.push('\\');
                    out.push(e);
                    continue;
                }
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => {
                        out.push(ch);
                        i += len;
                    }
                    // Python's codec reason for the escape.
                    None => {
                        let digits = "X".repeat(len);
                        return Err(SyntaxError::lexical(
                            format!("Lexical error: truncated \\{e}{digits} escape"),
                            chars[i - 2].0,
                        ));
                    }
                }
            }
            '0'..='7' => {
                let mut v = e.to_digit(8).unwrap_or(0);
                let mut k = 0;
                while k < 2 {
                    match chars.get(i).and_then(|c| c.1.to_digit(8)) {
                        Some(d) => {
                            v = v * 8 + d;
                            i += 1;
                            k += 1;
                        }
                        None => break,
                    }
                }
                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
            }
            'N' if chars.get(i).map(|c| c.1) == Some('{') => {
                let mut j = i + 1;
                while j < chars.len() && chars[j].1 != '}' {
                    j += 1;
                }
                let name: String = chars[i + 1..j.min(chars.len())]
                    .iter()
                    .map(|c| c.1)
                    .collect();
                match unicode_name(&name) {
                    Some(ch) if j < chars.len() => {
                        out.push(ch);
                        i = j + 1;
                    }
                    _ => {
                        out.push('\\');
                        out.push('N');
                    }
                }
            }
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
}
