//! Lexer and recursive-descent parser for Congress's policy language
//! (the grammar of Congress.g: facts, rules, modals, events, column references).

use super::ast::{ColRef, Literal, Rule, Span, Statement, Term};
use super::error::{ErrorClass, PolicyError};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Id(String),
    Int(i64),
    Float(f64),
    Str(String),
    Not,
    Execute,
    Insert,
    Delete,
    LParen,
    RParen,
    LBracket,
    RBracket,
    Comma,
    ColonMinus,
    Colon,
    Equal,
    Sign(char),
    Semi,
    Dot,
    Eof,
}

impl Tok {
    fn describe(&self) -> String {
        match self {
            Tok::Id(s) => format!("`{s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Float(f) => format!("`{f}`"),
            Tok::Str(s) => format!("\"{s}\""),
            Tok::Not => "`not`".into(),
            Tok::Execute => "`execute`".into(),
            Tok::Insert => "`insert`".into(),
            Tok::Delete => "`delete`".into(),
            Tok::LParen => "`(`".into(),
            Tok::RParen => "`)`".into(),
            Tok::LBracket => "`[`".into(),
            Tok::RBracket => "`]`".into(),
            Tok::Comma => "`,`".into(),
            Tok::ColonMinus => "`:-`".into(),
            Tok::Colon => "`:`".into(),
            Tok::Equal => "`=`".into(),
            Tok::Sign(c) => format!("`{c}`"),
            Tok::Semi => "`;`".into(),
            Tok::Dot => "`.`".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

fn syntax(msg: impl Into<String>, pos: Span) -> PolicyError {
    PolicyError::new(ErrorClass::Syntax, msg).at(pos)
}

fn is_id_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_' || c == '.'
}

fn is_id_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '.'
}

/// The lexer reads the text in place (a byte offset into it), one token at
/// a time.
struct Lexer<'a> {
    text: &'a str,
    i: usize,
    line: u32,
    col: u32,
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Self {
        Lexer {
            text,
            i: 0,
            line: 1,
            col: 1,
        }
    }

    fn peek(&self, k: usize) -> Option<char> {
        self.text[self.i..].chars().nth(k)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.i += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.col = 1;
        } else {
            self.col += 1;
        }
        Some(c)
    }

    /// The span of no text at the current character.
    fn pos(&self) -> Span {
        let at = vetro_diag::offset(self.i);
        Span {
            file: Default::default(),
            start: at,
            end: at,
            line: self.line,
            col: self.col,
        }
    }

    fn skip_trivia(&mut self) -> Result<(), PolicyError> {
        loop {
            match (self.peek(0), self.peek(1)) {
                (Some(c), _) if c.is_whitespace() => {
                    self.bump();
                }
                (Some('/'), Some('/')) | (Some('#'), _) => {
                    while let Some(c) = self.peek(0) {
                        if c == '\n' {
                            break;
                        }
                        self.bump();
                    }
                }
                (Some('/'), Some('*')) => {
                    let start = self.pos();
                    self.bump();
                    self.bump();
                    loop {
                        match (self.peek(0), self.peek(1)) {
                            (Some('*'), Some('/')) => {
                                self.bump();
                                self.bump();
                                break;
                            }
                            (Some(_), _) => {
                                self.bump();
                            }
                            (None, _) => return Err(syntax("unterminated comment", start)),
                        }
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// Lexes the whole text, keeping nothing: the first lexical error, if any.
    fn check(mut self) -> Result<(), PolicyError> {
        while self.token()?.0 != Tok::Eof {}
        Ok(())
    }

    /// The next token (`Eof` at the end, and again after it).
    fn token(&mut self) -> Result<(Tok, Span), PolicyError> {
        self.skip_trivia()?;
        let pos = self.pos();
        let Some(c) = self.peek(0) else {
            return Ok((Tok::Eof, pos));
        };
        let tok = match c {
            '(' => self.single(Tok::LParen),
            ')' => self.single(Tok::RParen),
            '[' => self.single(Tok::LBracket),
            ']' => self.single(Tok::RBracket),
            ',' => self.single(Tok::Comma),
            ';' => self.single(Tok::Semi),
            '=' => self.single(Tok::Equal),
            '!' => self.single(Tok::Not),
            '+' | '-' => self.single(Tok::Sign(c)),
            ':' => {
                self.bump();
                if self.peek(0) == Some('-') {
                    self.bump();
                    Tok::ColonMinus
                } else {
                    Tok::Colon
                }
            }
            '"' | '\'' => self.string(pos)?,
            c if c.is_ascii_digit() => self.number(pos)?,
            '.' if self.peek(1).is_some_and(|d| d.is_ascii_digit()) => self.number(pos)?,
            '.' if !self.peek(1).is_some_and(is_id_char) => self.single(Tok::Dot),
            c if is_id_start(c) => {
                // String prefixes r/u/b directly followed by a quote.
                if matches!(c, 'r' | 'R' | 'u' | 'U' | 'b' | 'B')
                    && matches!(self.peek(1), Some('"' | '\''))
                {
                    self.bump();
                    self.string(pos)?
                } else {
                    let mut s = String::new();
                    while let Some(c) = self.peek(0).filter(|&c| is_id_char(c)) {
                        s.push(c);
                        self.bump();
                    }
                    match s.as_str() {
                        "not" | "NOT" => Tok::Not,
                        "execute" => Tok::Execute,
                        "insert" => Tok::Insert,
                        "delete" => Tok::Delete,
                        _ => Tok::Id(s),
                    }
                }
            }
            other => return Err(syntax(format!("unexpected character `{other}`"), pos)),
        };
        let end = vetro_diag::offset(self.i);
        Ok((tok, Span { end, ..pos }))
    }

    fn single(&mut self, t: Tok) -> Tok {
        self.bump();
        t
    }

    fn string(&mut self, pos: Span) -> Result<Tok, PolicyError> {
        let q = self.bump().unwrap_or('"');
        let triple = self.peek(0) == Some(q) && self.peek(1) == Some(q);
        if triple {
            self.bump();
            self.bump();
        }
        let mut s = String::new();
        loop {
            let Some(c) = self.peek(0) else {
                return Err(syntax("unterminated string", pos));
            };
            if c == '\\' {
                self.bump();
                s.push('\\');
                if let Some(n) = self.bump() {
                    s.push(n);
                }
                continue;
            }
            if triple {
                if c == q && self.peek(1) == Some(q) && self.peek(2) == Some(q) {
                    self.bump();
                    self.bump();
                    self.bump();
                    break;
                }
            } else if c == q {
                self.bump();
                break;
            } else if c == '\n' || c == '\r' {
                return Err(syntax("unterminated string", pos));
            }
            s.push(c);
            self.bump();
        }
        Ok(Tok::Str(s))
    }

    fn number(&mut self, pos: Span) -> Result<Tok, PolicyError> {
        let start = self.i;
        if self.peek(0) == Some('0')
            && matches!(self.peek(1), Some('x' | 'X' | 'o' | 'O' | 'b' | 'B'))
        {
            let radix = match self.peek(1) {
                Some('x' | 'X') => 16,
                Some('o' | 'O') => 8,
                _ => 2,
            };
            self.bump();
            self.bump();
            let mut digits = String::new();
            while let Some(c) = self.peek(0).filter(|c| c.is_digit(radix)) {
                digits.push(c);
                self.bump();
            }
            return i64::from_str_radix(&digits, radix)
                .map(Tok::Int)
                .map_err(|_| syntax("malformed integer", pos));
        }
        while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
            self.bump();
        }
        let mut is_float = false;
        if self.peek(0) == Some('.')
            && !self
                .peek(1)
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        {
            is_float = true;
            self.bump();
            while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                self.bump();
            }
        }
        if matches!(self.peek(0), Some('e' | 'E')) {
            let sign = matches!(self.peek(1), Some('+' | '-'));
            let d = if sign { self.peek(2) } else { self.peek(1) };
            if d.is_some_and(|c| c.is_ascii_digit()) {
                is_float = true;
                self.bump();
                if sign {
                    self.bump();
                }
                while self.peek(0).is_some_and(|c| c.is_ascii_digit()) {
                    self.bump();
                }
            }
        }
        let text = self.text[start..self.i].to_string();
        if is_float {
            let t = if text.starts_with('.') {
                format!("0{text}")
            } else {
                text
            };
            t.parse::<f64>()
                .map(Tok::Float)
                .map_err(|_| syntax("malformed number", pos))
        } else {
            match text.parse::<i64>() {
                Ok(i) => Ok(Tok::Int(i)),
                Err(_) => text
                    .parse::<f64>()
                    .map(Tok::Float)
                    .map_err(|_| syntax("malformed number", pos)),
            }
        }
    }
}

/// The parser reads tokens as it goes, so that a text that is not a policy
/// at all (a 10 MB line of something else) fails at its first tokens
/// instead of after all of them are made.
struct Parser<'a> {
    lexer: Lexer<'a>,
    /// The tokens read so far (the parser goes back to an earlier one when
    /// an `insert[...]` turns out to be an atom); ends with `Eof` once the
    /// text is read.
    toks: Vec<(Tok, Span)>,
    i: usize,
}

/// Tokens the parser looks ahead of the current one.
const LOOKAHEAD: usize = 1;

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Result<Self, PolicyError> {
        // A lexical error anywhere comes before any syntax error, as when
        // the whole text is lexed first; checking costs one pass that keeps
        // nothing.
        Lexer::new(text).check()?;
        let mut p = Parser {
            lexer: Lexer::new(text),
            toks: Vec::new(),
            i: 0,
        };
        p.fill();
        Ok(p)
    }

    /// Reads tokens up to the lookahead of the current one.
    fn fill(&mut self) {
        while self.toks.len() <= self.i + LOOKAHEAD
            && self.toks.last().is_none_or(|(t, _)| *t != Tok::Eof)
        {
            // The text lexed without error in `new`: the same tokens come again.
            let t = self.lexer.token().unwrap_or((Tok::Eof, self.lexer.pos()));
            self.toks.push(t);
        }
    }
}

/// Parses a policy text into statements (no semantic checks besides column references).
pub fn parse(text: &str) -> Result<Vec<Statement>, PolicyError> {
    let mut p = Parser::new(text)?;
    let mut out = Vec::new();
    while *p.peek() != Tok::Eof {
        out.push(p.statement()?);
    }
    for s in &out {
        check_column_refs(s)?;
    }
    Ok(out)
}

/// Parses exactly one literal (a query atom).
pub fn parse_literal(text: &str) -> Result<Literal, PolicyError> {
    let mut p = Parser::new(text)?;
    let lit = p.literal()?;
    if *p.peek() != Tok::Eof {
        return Err(syntax(
            format!("unexpected {} after the query", p.peek().describe()),
            p.pos(),
        ));
    }
    Ok(lit)
}

impl Parser<'_> {
    fn peek(&self) -> &Tok {
        &self.toks[self.i.min(self.toks.len() - 1)].0
    }

    fn peek_at(&self, k: usize) -> &Tok {
        &self.toks[(self.i + k).min(self.toks.len() - 1)].0
    }

    fn pos(&self) -> Span {
        self.toks[self.i.min(self.toks.len() - 1)].1
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.i < self.toks.len() - 1 {
            self.i += 1;
            self.fill();
        }
        t
    }

    fn expect(&mut self, t: Tok, what: &str) -> Result<(), PolicyError> {
        if *self.peek() == t {
            self.next();
            Ok(())
        } else {
            Err(syntax(
                format!("expected {what}, found {}", self.peek().describe()),
                self.pos(),
            ))
        }
    }

    fn statement(&mut self) -> Result<Statement, PolicyError> {
        let st = self.formula()?;
        if matches!(self.peek(), Tok::Semi | Tok::Dot) {
            self.next();
        }
        Ok(st)
    }

    fn formula(&mut self) -> Result<Statement, PolicyError> {
        if matches!(self.peek(), Tok::Insert | Tok::Delete) && *self.peek_at(1) == Tok::LBracket {
            // Either an event `insert[rule]` or a modal atom `insert[p(x)]`.
            let save = self.i;
            let insert = *self.peek() == Tok::Insert;
            self.next();
            self.next();
            let heads = self.literal_list()?;
            if *self.peek() == Tok::ColonMinus {
                self.next();
                let body = self.literal_list()?;
                let mut target = None;
                if matches!(self.peek(), Tok::Semi | Tok::Dot) {
                    self.next();
                    match self.next() {
                        Tok::Str(s) => target = Some(s),
                        t => {
                            return Err(syntax(
                                format!("expected a policy name string, found {}", t.describe()),
                                self.pos(),
                            ))
                        }
                    }
                }
                self.expect(Tok::RBracket, "`]`")?;
                return Ok(Statement::Event {
                    insert,
                    rule: Rule { heads, body },
                    target,
                });
            }
            self.i = save;
        }
        let start = self.pos();
        let heads = self.literal_list()?;
        if *self.peek() == Tok::ColonMinus {
            self.next();
            let body = self.literal_list()?;
            return Ok(Statement::Rule(Rule { heads, body }));
        }
        if heads.len() != 1 {
            return Err(syntax("a list of literals needs `:-` and a body", start));
        }
        let lit = heads
            .into_iter()
            .next()
            .ok_or_else(|| syntax("empty statement", start))?;
        if lit.negated {
            return Err(syntax("a fact cannot be negated", lit.span));
        }
        Ok(Statement::Fact(lit))
    }

    fn literal_list(&mut self) -> Result<Vec<Literal>, PolicyError> {
        let mut out = vec![self.literal()?];
        while *self.peek() == Tok::Comma {
            self.next();
            out.push(self.literal()?);
        }
        Ok(out)
    }

    fn literal(&mut self) -> Result<Literal, PolicyError> {
        let mut negated = false;
        if *self.peek() == Tok::Not {
            self.next();
            negated = true;
        }
        let modal = match self.peek() {
            Tok::Execute | Tok::Insert | Tok::Delete => {
                let m = match self.next() {
                    Tok::Execute => "execute",
                    Tok::Insert => "insert",
                    _ => "delete",
                };
                self.expect(Tok::LBracket, "`[`")?;
                Some(m.to_string())
            }
            _ => None,
        };
        let mut lit = self.atom()?;
        if modal.is_some() {
            self.expect(Tok::RBracket, "`]`")?;
        }
        lit.negated = negated;
        lit.modal = modal;
        Ok(lit)
    }

    fn atom(&mut self) -> Result<Literal, PolicyError> {
        let pos = self.pos();
        let mut parts = vec![match self.next() {
            Tok::Id(s) => s,
            t => {
                return Err(syntax(
                    format!("expected a table name, found {}", t.describe()),
                    pos,
                ))
            }
        }];
        while *self.peek() == Tok::Colon {
            self.next();
            let p = self.pos();
            match self.next() {
                Tok::Id(s) => parts.push(s),
                t => {
                    return Err(syntax(
                        format!("expected a name after `:`, found {}", t.describe()),
                        p,
                    ))
                }
            }
        }
        if let Tok::Sign(c) = *self.peek() {
            self.next();
            if let Some(last) = parts.last_mut() {
                last.push(c);
            }
        }
        let (module, table) = if parts.len() > 1 {
            let module = parts.remove(0);
            (Some(module), parts.join(":"))
        } else {
            (None, parts.remove(0))
        };
        let mut lit = Literal {
            negated: false,
            modal: None,
            module,
            table,
            args: Vec::new(),
            named: Vec::new(),
            span: pos,
        };
        if *self.peek() == Tok::LParen {
            self.next();
            if *self.peek() != Tok::RParen {
                loop {
                    self.parameter(&mut lit)?;
                    if *self.peek() == Tok::Comma {
                        self.next();
                    } else {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen, "`)` or `,`")?;
        }
        Ok(lit)
    }

    fn parameter(&mut self, lit: &mut Literal) -> Result<(), PolicyError> {
        let pos = self.pos();
        if *self.peek_at(1) == Tok::Equal {
            let col = match self.next() {
                Tok::Id(s) => ColRef::Name(s),
                Tok::Int(i) if i >= 0 => ColRef::Num(i as usize),
                t => {
                    return Err(syntax(
                        format!("expected a column name, found {}", t.describe()),
                        pos,
                    ))
                }
            };
            self.next();
            let term = self.term()?;
            lit.named.push((col, term));
            return Ok(());
        }
        let term = self.term()?;
        if !lit.named.is_empty() {
            return Err(PolicyError::new(
                ErrorClass::Other,
                format!(
                    "atom {} has a positional parameter after a reference parameter",
                    lit.tablename()
                ),
            )
            .at(pos));
        }
        lit.args.push(term);
        Ok(())
    }

    fn term(&mut self) -> Result<Term, PolicyError> {
        let pos = self.pos();
        Ok(match self.next() {
            Tok::Id(s) => Term::Var(s),
            Tok::Int(i) => Term::Int(i),
            Tok::Float(f) => Term::Float(f),
            Tok::Str(s) => Term::Str(s),
            t => {
                return Err(syntax(
                    format!("expected a term, found {}", t.describe()),
                    pos,
                ))
            }
        })
    }
}

fn check_column_refs(st: &Statement) -> Result<(), PolicyError> {
    let lits: Vec<&Literal> = match st {
        Statement::Fact(l) => vec![l],
        Statement::Rule(r) | Statement::Event { rule: r, .. } => {
            r.heads.iter().chain(r.body.iter()).collect()
        }
    };
    for lit in lits {
        let mut seen: Vec<&ColRef> = Vec::new();
        for (c, _) in &lit.named {
            if seen.contains(&c) {
                let what = match c {
                    ColRef::Name(n) => format!("column name {n}"),
                    ColRef::Num(n) => format!("column number {n}"),
                };
                return Err(PolicyError::new(
                    ErrorClass::ColumnReference,
                    format!("in atom {lit} multiple values for {what} were provided"),
                )
                .at(lit.span));
            }
            if let ColRef::Num(n) = c {
                if *n < lit.args.len() {
                    return Err(PolicyError::new(
                        ErrorClass::ColumnReference,
                        format!("in atom {lit} column number {n} is already provided by position arguments"),
                    )
                    .at(lit.span));
                }
            }
            seen.push(c);
        }
    }
    Ok(())
}
