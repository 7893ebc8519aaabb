//! A YAQL syntax recognizer: decides whether a string parses as a YAQL
//! expression (with MuranoPL's `:` namespace operator). It builds no tree; the
//! loader only needs the yes/no answer to classify YAML scalars, and it works
//! before (and independently of) the evaluator.

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Num,
    Str,
    Var,
    Ident,
    /// Keyword operators: `and`, `or`, `not`, `in`, `is`, `mod`.
    Word(&'static str),
    Op(&'static str),
    Open(char),
    Close(char),
    Comma,
}

const OPS: &[&str] = &[
    "?.", "=>", "->", "!=", "<=", ">=", "=~", "!~", "...", "==", "+", "-", "*", "/", ".", "<", ">",
    "=", ":", "~", "!", "%", "@", "^", "&", "|", "#", "?",
];

fn lex(src: &str) -> Option<Vec<Tok>> {
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c.is_ascii_digit() {
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            if i + 1 < chars.len() && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
                i += 1;
                while i < chars.len() && chars[i].is_ascii_digit() {
                    i += 1;
                }
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                }
            }
            out.push(Tok::Num);
            continue;
        }
        if c == '\'' || c == '"' || c == '`' {
            i += 1;
            let mut closed = false;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                    continue;
                }
                if chars[i] == c {
                    closed = true;
                    i += 1;
                    break;
                }
                i += 1;
            }
            if !closed {
                return None;
            }
            out.push(Tok::Str);
            continue;
        }
        if c == '$' {
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Tok::Var);
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            out.push(match word.as_str() {
                "and" => Tok::Word("and"),
                "or" => Tok::Word("or"),
                "not" => Tok::Word("not"),
                "in" => Tok::Word("in"),
                "is" => Tok::Word("is"),
                "mod" => Tok::Word("mod"),
                _ => Tok::Ident,
            });
            continue;
        }
        match c {
            '(' | '[' | '{' => {
                out.push(Tok::Open(c));
                i += 1;
                continue;
            }
            ')' | ']' | '}' => {
                out.push(Tok::Close(c));
                i += 1;
                continue;
            }
            ',' => {
                out.push(Tok::Comma);
                i += 1;
                continue;
            }
            _ => {}
        }
        let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
        let op = OPS.iter().find(|op| rest.starts_with(**op))?;
        i += op.chars().count();
        out.push(Tok::Op(op));
    }
    Some(out)
}

/// Binding power of an infix operator (left, right).
fn infix(t: &Tok) -> Option<(u8, u8)> {
    Some(match t {
        Tok::Op("=>") => (2, 1),
        Tok::Op("->") => (2, 1),
        Tok::Word("or") => (3, 4),
        Tok::Word("and") => (5, 6),
        Tok::Word("in") | Tok::Word("is") => (9, 10),
        Tok::Op("=" | "!=" | "<" | ">" | "<=" | ">=" | "=~" | "!~" | "==") => (9, 10),
        Tok::Op("+" | "-" | "~" | "|" | "&" | "^" | "..." | "#" | "@" | "!" | "%" | "?") => {
            (11, 12)
        }
        Tok::Op("*" | "/") | Tok::Word("mod") => (13, 14),
        Tok::Op(":") => (19, 20),
        Tok::Op("." | "?.") => (21, 22),
        _ => return None,
    })
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        self.pos += 1;
        t
    }

    fn expr(&mut self, min_bp: u8) -> Option<()> {
        self.depth += 1;
        if self.depth > 200 {
            return None;
        }
        self.prefix()?;
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::Open('(') | Tok::Open('[') | Tok::Open('{') if min_bp <= 23 => {
                    // call, indexer or a `x{...}` form
                    let Tok::Open(open) = t else { break };
                    self.pos += 1;
                    self.args(close_of(open))?;
                }
                _ => {
                    let Some((l, r)) = infix(&t) else { break };
                    if l < min_bp {
                        break;
                    }
                    self.pos += 1;
                    self.expr(r)?;
                }
            }
        }
        self.depth -= 1;
        Some(())
    }

    fn prefix(&mut self) -> Option<()> {
        match self.next()? {
            Tok::Num | Tok::Str | Tok::Var | Tok::Ident => Some(()),
            Tok::Word("not") => self.expr(7),
            Tok::Op("-" | "+" | "~" | ":" | "!") => self.expr(17),
            Tok::Open(open) => self.args(close_of(open)),
            _ => None,
        }
    }

    /// A comma-separated, possibly empty, list closed by `close`.
    fn args(&mut self, close: char) -> Option<()> {
        if self.peek() == Some(&Tok::Close(close)) {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.expr(0)?;
            match self.next()? {
                Tok::Comma => continue,
                Tok::Close(c) if c == close => return Some(()),
                _ => return None,
            }
        }
    }
}

fn close_of(open: char) -> char {
    match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    }
}

/// Whether `src` is a syntactically valid YAQL expression.
pub fn parses(src: &str) -> bool {
    let Some(toks) = lex(src) else { return false };
    if toks.is_empty() {
        return false;
    }
    let mut p = Parser {
        toks,
        pos: 0,
        depth: 0,
    };
    p.expr(0).is_some() && p.pos == p.toks.len()
}

#[cfg(test)]
mod tests {
    use super::parses;

    #[test]
    fn accepts_expressions() {
        for s in [
            "$x",
            "$.foo.bar($a, b => 2)",
            "std:Application",
            ":Foo",
            "1 + 2 * 3",
            "not $.getAttr(deployed, false)",
            "$.x.where($ > 1).select([$, {a => 1}])",
            "'q'",
            "a-b",
            "$x[0]",
        ] {
            assert!(parses(s), "{s}");
        }
    }

    #[test]
    fn rejects_broken_text() {
        for s in ["a b c(", "https://example.org/x", "$x +", "(", "'open", ""] {
            assert!(!parses(s), "{s}");
        }
    }
}
