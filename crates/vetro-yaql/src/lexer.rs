//! Tokenizer following the reference's token rules (see SEMANTICS section 1).

use crate::error::{Error, ErrorKind, Result};

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    Int(String),
    Float(f64),
    Str(String),
    /// A bare identifier (keyword constant, `true`, `false`, `null`).
    Word(String),
    /// `name(`: a function call.
    Func(String),
    /// `$name` (`$` alone is `$1`... the name is kept as written, without `$`).
    Dollar(String),
    /// Operator symbols and operator words (`and`, `or`, `not`, `in`, `mod`).
    Op(&'static str),
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
pub struct Token {
    pub tok: Tok,
    pub pos: usize,
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

const OPS: [&str; 17] = [
    "?.", "=~", "!~", ">=", "<=", "!=", "->", "=>", ".", "+", "-", "*", "/", ">", "<", "=", ":",
];

/// Split `src` into tokens. `extra_ops` are accepted as operator symbols too
/// (the host's custom operators, e.g. `:`).
pub fn tokenize(src: &str, colon: bool) -> Result<Vec<Token>> {
    tokenize_with(src, colon, false)
}

/// Tokenize; `is_op` makes the word `is` an operator (MuranoPL).
pub fn tokenize_with(src: &str, colon: bool, is_op: bool) -> Result<Vec<Token>> {
    let chars: Vec<(usize, char)> = src.char_indices().collect();
    let n = chars.len();
    let at = |i: usize| chars.get(i).map(|c| c.1);
    let pos_of = |i: usize| chars.get(i).map(|c| c.0).unwrap_or(src.len());
    let mut out = Vec::new();
    let mut i = 0;
    while i < n {
        let c = chars[i].1;
        let pos = chars[i].0;
        if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
            i += 1;
            continue;
        }
        if c == '$' {
            let mut j = i + 1;
            while j < n && is_word(chars[j].1) {
                j += 1;
            }
            let name: String = chars[i + 1..j].iter().map(|c| c.1).collect();
            out.push(Token {
                tok: Tok::Dollar(name),
                pos,
            });
            i = j;
            continue;
        }
        if c.is_ascii_digit() {
            let mut j = i;
            while j < n && chars[j].1.is_ascii_digit() {
                j += 1;
            }
            let mut float = false;
            if at(j) == Some('.') && at(j + 1).is_some_and(|c| c.is_ascii_digit()) {
                float = true;
                j += 1;
                while j < n && chars[j].1.is_ascii_digit() {
                    j += 1;
                }
            }
            if at(j).is_some_and(is_word) {
                return Err(Error::at(
                    ErrorKind::Lexical,
                    format!("Lexical error: illegal character '{}'", chars[j].1),
                    pos_of(j),
                ));
            }
            let text: String = chars[i..j].iter().map(|c| c.1).collect();
            let tok = if float {
                Tok::Float(text.parse().unwrap_or(0.0))
            } else {
                Tok::Int(text)
            };
            out.push(Token { tok, pos });
            i = j;
            continue;
        }
        if is_word(c) {
            // identifiers start with a letter or underscore (digits handled above)
            let mut j = i;
            while j < n && is_word(chars[j].1) {
                j += 1;
            }
            let name: String = chars[i..j].iter().map(|c| c.1).collect();
            if at(j) == Some('(') {
                out.push(Token {
                    tok: Tok::Func(name),
                    pos,
                });
                i = j + 1;
                continue;
            }
            if name.starts_with("__") {
                return Err(Error::at(
                    ErrorKind::Lexical,
                    format!("Lexical error: illegal identifier '{}'", name),
                    pos,
                ));
            }
            let tok = match name.as_str() {
                "and" => Tok::Op("and"),
                "or" => Tok::Op("or"),
                "not" => Tok::Op("not"),
                "in" => Tok::Op("in"),
                "mod" => Tok::Op("mod"),
                "is" if is_op => Tok::Op("is"),
                _ => Tok::Word(name),
            };
            out.push(Token { tok, pos });
            i = j;
            continue;
        }
        if c == '\'' || c == '"' || c == '`' {
            let (s, j) = lex_string(&chars, i, src)?;
            out.push(Token {
                tok: Tok::Str(s),
                pos,
            });
            i = j;
            continue;
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
            out.push(Token { tok, pos });
            i += 1;
            continue;
        }
        let mut matched = None;
        for op in OPS {
            if op == ":" && !colon {
                continue;
            }
            if src[pos..].starts_with(op) {
                matched = Some(op);
                break;
            }
        }
        match matched {
            Some(op) => {
                out.push(Token {
                    tok: Tok::Op(op),
                    pos,
                });
                i += op.chars().count();
            }
            None => {
                return Err(Error::at(
                    ErrorKind::Lexical,
                    format!("Lexical error: illegal character '{}'", c),
                    pos,
                ))
            }
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        pos: src.len(),
    });
    Ok(out)
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

fn lex_string(chars: &[(usize, char)], start: usize, src: &str) -> Result<(String, usize)> {
    let quote = chars[start].1;
    let mut out = String::new();
    let mut i = start + 1;
    let unterminated = || {
        Error::at(
            ErrorKind::Lexical,
            "Lexical error: unterminated string",
            chars[start].0,
        )
    };
    let _ = src;
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
                let hex: String = chars[i..(i + len).min(chars.len())]
                    .iter()
                    .map(|c| c.1)
                    .collect();
                match (hex.len() == len)
                    .then(|| u32::from_str_radix(&hex, 16).ok())
                    .flatten()
                    .and_then(char::from_u32)
                {
                    Some(ch) => {
                        out.push(ch);
                        i += len;
                    }
                    None => {
                        return Err(Error::at(
                            ErrorKind::Lexical,
                            "Lexical error: bad escape",
                            chars[i - 2].0,
                        ))
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
