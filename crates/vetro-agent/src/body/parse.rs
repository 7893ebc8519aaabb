//! Tokens, logical lines, blocks by indentation, and expressions of a body.

use super::{BinOp, Expr, Stmt};
use serde_json::{json, Value as Json};

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Num(Json),
    Str(String),
    Op(&'static str),
}

/// One logical line: its 1-based number, indentation and tokens.
struct Line {
    no: usize,
    indent: usize,
    toks: Vec<Tok>,
}

const OPS: &[&str] = &[
    "//", "==", "!=", "<=", ">=", "(", ")", "[", "]", "{", "}", ",", ":", ".", "=", "<", ">", "+",
    "-", "*", "/", "%",
];

type PResult<T> = Result<T, String>;

/// A call's positional and keyword arguments, in the order written.
type CallArgs = (Vec<Expr>, Vec<(String, Expr)>);

/// Parse a plan body (any common indentation is removed first, as the agent does).
pub fn parse_body(body: &str) -> PResult<Vec<Stmt>> {
    let lines = logical_lines(body)?;
    let base = lines.iter().map(|l| l.indent).min().unwrap_or(0);
    let mut i = 0;
    let block = parse_block(&lines, &mut i, base)?;
    if let Some(l) = lines.get(i) {
        return Err(format!("line {}: unexpected indentation", l.no));
    }
    Ok(block)
}

fn indent_of(line: &str) -> usize {
    let mut col = 0;
    for c in line.chars() {
        match c {
            ' ' => col += 1,
            '\t' => col = (col / 4 + 1) * 4,
            _ => break,
        }
    }
    col
}

fn logical_lines(body: &str) -> PResult<Vec<Line>> {
    let mut out = Vec::new();
    let raw: Vec<&str> = body.split('\n').collect();
    let mut i = 0;
    while i < raw.len() {
        let no = i + 1;
        let indent = indent_of(raw[i]);
        let mut lx = Lexer {
            toks: Vec::new(),
            depth: 0,
        };
        let mut text = raw[i].trim_start().to_string();
        loop {
            let rest = lx.feed(&text, no)?;
            match rest {
                None => break,
                // An open bracket or triple-quoted string continues on the next line.
                Some(carry) => {
                    i += 1;
                    let Some(next) = raw.get(i) else {
                        return Err(format!("line {no}: unclosed bracket or string"));
                    };
                    text = format!("{carry}\n{next}");
                }
            }
        }
        if !lx.toks.is_empty() {
            out.push(Line {
                no,
                indent,
                toks: lx.toks,
            });
        }
        i += 1;
    }
    Ok(out)
}

struct Lexer {
    toks: Vec<Tok>,
    depth: usize,
}

impl Lexer {
    /// Tokenize `text`; `Some(carry)` when the line must continue (the text
    /// of an unfinished string to prepend to the next line, or "").
    fn feed(&mut self, text: &str, no: usize) -> PResult<Option<String>> {
        let b = text.as_bytes();
        let mut p = 0;
        while p < b.len() {
            let c = b[p] as char;
            if c == '#' {
                break;
            }
            if c.is_whitespace() {
                p += 1;
                continue;
            }
            if c == '\\' && text[p + 1..].trim().is_empty() {
                return Ok(Some(String::new()));
            }
            if c == '\''
                || c == '"'
                || (matches!(c, 'r' | 'u' | 'R' | 'U')
                    && p + 1 < b.len()
                    && (b[p + 1] == b'\'' || b[p + 1] == b'"'))
            {
                let raw = matches!(c, 'r' | 'R');
                let start = if c == '\'' || c == '"' { p } else { p + 1 };
                match read_string(&text[start..], raw) {
                    Some((s, used)) => {
                        self.toks.push(Tok::Str(s));
                        p = start + used;
                        continue;
                    }
                    // An unterminated triple-quoted string goes on.
                    None if text[start..].starts_with("'''")
                        || text[start..].starts_with("\"\"\"") =>
                    {
                        return Ok(Some(text[p..].to_string()));
                    }
                    None => return Err(format!("line {no}: unterminated string")),
                }
            }
            if c.is_ascii_digit() || (c == '.' && b.get(p + 1).is_some_and(u8::is_ascii_digit)) {
                let end = text[p..]
                    .find(|ch: char| !(ch.is_ascii_alphanumeric() || ch == '.' || ch == '_'))
                    .map_or(b.len(), |e| p + e);
                let t = text[p..end].replace('_', "");
                let v = if let Ok(i) = t.parse::<i64>() {
                    json!(i)
                } else if let Ok(f) = t.parse::<f64>() {
                    json!(f)
                } else {
                    return Err(format!("line {no}: bad number {t:?}"));
                };
                self.toks.push(Tok::Num(v));
                p = end;
                continue;
            }
            if c.is_alphabetic() || c == '_' {
                let end = text[p..]
                    .find(|ch: char| !(ch.is_alphanumeric() || ch == '_'))
                    .map_or(b.len(), |e| p + e);
                self.toks.push(Tok::Name(text[p..end].to_string()));
                p = end;
                continue;
            }
            let Some(op) = OPS.iter().find(|o| text[p..].starts_with(**o)) else {
                return Err(format!("line {no}: unexpected character {c:?}"));
            };
            match *op {
                "(" | "[" | "{" => self.depth += 1,
                ")" | "]" | "}" => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
            self.toks.push(Tok::Op(op));
            p += op.len();
        }
        Ok((self.depth > 0).then(String::new))
    }
}

/// A string literal at the start of `s`: its value and length in bytes.
fn read_string(s: &str, raw: bool) -> Option<(String, usize)> {
    let q = s.chars().next()?;
    let triple: String = std::iter::repeat_n(q, 3).collect();
    let (delim, start) = if s.starts_with(&triple) {
        (triple.as_str(), 3)
    } else {
        (&s[..1], 1)
    };
    let mut out = String::new();
    let mut chars = s[start..].char_indices();
    while let Some((i, c)) = chars.next() {
        if s[start + i..].starts_with(delim) {
            return Some((out, start + i + delim.len()));
        }
        if c == '\n' && delim.len() == 1 {
            return None;
        }
        if c == '\\' && !raw {
            let (_, e) = chars.next()?;
            match e {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                '0' => out.push('\0'),
                '\n' => {}
                '\\' | '\'' | '"' => out.push(e),
                other => {
                    out.push('\\');
                    out.push(other)
                }
            }
        } else {
            out.push(c);
        }
    }
    None
}

fn parse_block(lines: &[Line], i: &mut usize, indent: usize) -> PResult<Vec<Stmt>> {
    let mut out = Vec::new();
    while let Some(l) = lines.get(*i) {
        if l.indent < indent {
            break;
        }
        if l.indent > indent {
            return Err(format!("line {}: unexpected indentation", l.no));
        }
        out.push(parse_stmt(lines, i, indent)?);
    }
    Ok(out)
}

/// The block after a `...:` header: the rest of the header line, or the
/// more indented lines that follow.
fn suite(
    lines: &[Line],
    i: &mut usize,
    indent: usize,
    rest: &[Tok],
    no: usize,
) -> PResult<Vec<Stmt>> {
    if !rest.is_empty() {
        return Ok(vec![simple_stmt(rest, no)?]);
    }
    match lines.get(*i) {
        Some(next) if next.indent > indent => parse_block(lines, i, next.indent),
        _ => Err(format!("line {no}: expected an indented block")),
    }
}

/// Split a header `if cond: rest` at its colon (outside brackets).
fn split_header(toks: &[Tok], no: usize) -> PResult<(&[Tok], &[Tok])> {
    let mut depth = 0usize;
    for (k, t) in toks.iter().enumerate() {
        match t {
            Tok::Op("(" | "[" | "{") => depth += 1,
            Tok::Op(")" | "]" | "}") => depth = depth.saturating_sub(1),
            Tok::Op(":") if depth == 0 => return Ok((&toks[..k], &toks[k + 1..])),
            _ => {}
        }
    }
    Err(format!("line {no}: expected ':'"))
}

fn parse_stmt(lines: &[Line], i: &mut usize, indent: usize) -> PResult<Stmt> {
    let l = &lines[*i];
    *i += 1;
    if l.toks.first() != Some(&Tok::Name("if".into())) {
        return simple_stmt(&l.toks, l.no);
    }
    let mut branches = Vec::new();
    let (cond, rest) = split_header(&l.toks[1..], l.no)?;
    let cond = expr_all(cond, l.no)?;
    branches.push((cond, suite(lines, i, indent, rest, l.no)?));
    let mut otherwise = Vec::new();
    while let Some(n) = lines.get(*i) {
        if n.indent != indent {
            break;
        }
        match n.toks.first() {
            Some(Tok::Name(k)) if k == "elif" => {
                *i += 1;
                let (c, rest) = split_header(&n.toks[1..], n.no)?;
                let c = expr_all(c, n.no)?;
                branches.push((c, suite(lines, i, indent, rest, n.no)?));
            }
            Some(Tok::Name(k)) if k == "else" => {
                *i += 1;
                let (c, rest) = split_header(&n.toks[1..], n.no)?;
                if !c.is_empty() {
                    return Err(format!("line {}: expected ':' after else", n.no));
                }
                otherwise = suite(lines, i, indent, rest, n.no)?;
                break;
            }
            _ => break,
        }
    }
    Ok(Stmt::If(branches, otherwise))
}

const UNSUPPORTED: &[&str] = &[
    "for", "while", "def", "class", "import", "from", "try", "except", "with", "raise", "lambda",
    "global", "del", "yield", "assert",
];

fn simple_stmt(toks: &[Tok], no: usize) -> PResult<Stmt> {
    match toks {
        [Tok::Name(k), rest @ ..] if k == "return" => Ok(Stmt::Return(if rest.is_empty() {
            None
        } else {
            Some(expr_all(rest, no)?)
        })),
        [Tok::Name(k)] if k == "pass" => Ok(Stmt::Pass),
        [Tok::Name(k), ..] if UNSUPPORTED.contains(&k.as_str()) => Err(format!(
            "line {no}: `{k}` is not supported in execution plan bodies"
        )),
        [Tok::Name(name), Tok::Op("="), rest @ ..] => {
            Ok(Stmt::Assign(name.clone(), expr_all(rest, no)?))
        }
        _ => Ok(Stmt::Expr(expr_all(toks, no)?)),
    }
}

fn expr_all(toks: &[Tok], no: usize) -> PResult<Expr> {
    let mut p = P { toks, pos: 0, no };
    let e = p.expr()?;
    if p.pos != toks.len() {
        return Err(format!("line {no}: unexpected {}", p.show(p.pos)));
    }
    Ok(e)
}

struct P<'a> {
    toks: &'a [Tok],
    pos: usize,
    no: usize,
}

impl P<'_> {
    fn show(&self, at: usize) -> String {
        match self.toks.get(at) {
            None => "end of line".into(),
            Some(Tok::Name(n)) => format!("`{n}`"),
            Some(Tok::Op(o)) => format!("`{o}`"),
            Some(Tok::Num(n)) => n.to_string(),
            Some(Tok::Str(s)) => format!("{s:?}"),
        }
    }
    fn err<T>(&self, what: &str) -> PResult<T> {
        Err(format!(
            "line {}: expected {what}, found {}",
            self.no,
            self.show(self.pos)
        ))
    }
    fn eat_op(&mut self, op: &str) -> bool {
        if matches!(self.toks.get(self.pos), Some(Tok::Op(o)) if *o == op) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        if matches!(self.toks.get(self.pos), Some(Tok::Name(n)) if n == kw) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, op: &str) -> PResult<()> {
        if self.eat_op(op) {
            Ok(())
        } else {
            self.err(&format!("`{op}`"))
        }
    }

    fn expr(&mut self) -> PResult<Expr> {
        let mut l = self.and()?;
        while self.eat_kw("or") {
            l = Expr::Logic(false, Box::new(l), Box::new(self.and()?));
        }
        Ok(l)
    }
    fn and(&mut self) -> PResult<Expr> {
        let mut l = self.not()?;
        while self.eat_kw("and") {
            l = Expr::Logic(true, Box::new(l), Box::new(self.not()?));
        }
        Ok(l)
    }
    fn not(&mut self) -> PResult<Expr> {
        if self.eat_kw("not") {
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.compare()
    }
    fn compare(&mut self) -> PResult<Expr> {
        let l = self.sum()?;
        let op = if self.eat_op("==") {
            BinOp::Eq
        } else if self.eat_op("!=") {
            BinOp::Ne
        } else if self.eat_op("<=") {
            BinOp::Le
        } else if self.eat_op(">=") {
            BinOp::Ge
        } else if self.eat_op("<") {
            BinOp::Lt
        } else if self.eat_op(">") {
            BinOp::Gt
        } else if self.eat_kw("in") {
            BinOp::In
        } else if self.eat_kw("is") {
            if self.eat_kw("not") {
                BinOp::IsNot
            } else {
                BinOp::Is
            }
        } else if matches!(self.toks.get(self.pos), Some(Tok::Name(n)) if n == "not") {
            self.pos += 1;
            if !self.eat_kw("in") {
                return self.err("`in`");
            }
            BinOp::NotIn
        } else {
            return Ok(l);
        };
        Ok(Expr::Bin(op, Box::new(l), Box::new(self.sum()?)))
    }
    fn sum(&mut self) -> PResult<Expr> {
        let mut l = self.term()?;
        loop {
            let op = if self.eat_op("+") {
                BinOp::Add
            } else if self.eat_op("-") {
                BinOp::Sub
            } else {
                return Ok(l);
            };
            l = Expr::Bin(op, Box::new(l), Box::new(self.term()?));
        }
    }
    fn term(&mut self) -> PResult<Expr> {
        let mut l = self.unary()?;
        loop {
            let op = if self.eat_op("*") {
                BinOp::Mul
            } else if self.eat_op("//") {
                BinOp::FloorDiv
            } else if self.eat_op("/") {
                BinOp::Div
            } else if self.eat_op("%") {
                BinOp::Mod
            } else {
                return Ok(l);
            };
            l = Expr::Bin(op, Box::new(l), Box::new(self.unary()?));
        }
    }
    fn unary(&mut self) -> PResult<Expr> {
        if self.eat_op("-") {
            return Ok(Expr::Neg(Box::new(self.unary()?)));
        }
        if self.eat_op("+") {
            return self.unary();
        }
        self.postfix()
    }
    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.atom()?;
        loop {
            if self.eat_op(".") {
                match self.toks.get(self.pos) {
                    Some(Tok::Name(n)) => {
                        self.pos += 1;
                        e = Expr::Attr(Box::new(e), n.clone());
                    }
                    _ => return self.err("an attribute name"),
                }
            } else if self.eat_op("(") {
                let (args, kwargs) = self.call_args()?;
                e = Expr::Call(Box::new(e), args, kwargs);
            } else if self.eat_op("[") {
                let i = self.expr()?;
                self.expect("]")?;
                e = Expr::Index(Box::new(e), Box::new(i));
            } else {
                return Ok(e);
            }
        }
    }
    fn call_args(&mut self) -> PResult<CallArgs> {
        let (mut args, mut kwargs) = (Vec::new(), Vec::new());
        while !self.eat_op(")") {
            if let (Some(Tok::Name(n)), Some(Tok::Op("="))) =
                (self.toks.get(self.pos), self.toks.get(self.pos + 1))
            {
                self.pos += 2;
                kwargs.push((n.clone(), self.expr()?));
            } else if kwargs.is_empty() {
                args.push(self.expr()?);
            } else {
                return self.err("a keyword argument");
            }
            if !self.eat_op(",") {
                self.expect(")")?;
                break;
            }
        }
        Ok((args, kwargs))
    }
    fn items(&mut self, close: &str) -> PResult<Vec<Expr>> {
        let mut out = Vec::new();
        while !self.eat_op(close) {
            out.push(self.expr()?);
            if !self.eat_op(",") {
                self.expect(close)?;
                break;
            }
        }
        Ok(out)
    }
    fn atom(&mut self) -> PResult<Expr> {
        let Some(t) = self.toks.get(self.pos).cloned() else {
            return self.err("an expression");
        };
        self.pos += 1;
        Ok(match t {
            Tok::Num(n) => Expr::Const(n),
            Tok::Str(mut s) => {
                // Adjacent literals concatenate.
                while let Some(Tok::Str(more)) = self.toks.get(self.pos) {
                    s.push_str(more);
                    self.pos += 1;
                }
                Expr::Const(Json::String(s))
            }
            Tok::Name(n) => match n.as_str() {
                "True" => Expr::Const(json!(true)),
                "False" => Expr::Const(json!(false)),
                "None" => Expr::Const(Json::Null),
                _ => Expr::Name(n),
            },
            Tok::Op("(") => {
                let items = self.items(")")?;
                match <[Expr; 1]>::try_from(items) {
                    Ok([one]) => one,
                    Err(many) => Expr::List(many),
                }
            }
            Tok::Op("[") => Expr::List(self.items("]")?),
            Tok::Op("{") => {
                let mut pairs = Vec::new();
                while !self.eat_op("}") {
                    let k = self.expr()?;
                    self.expect(":")?;
                    pairs.push((k, self.expr()?));
                    if !self.eat_op(",") {
                        self.expect("}")?;
                        break;
                    }
                }
                Expr::Dict(pairs)
            }
            Tok::Op(_) => {
                self.pos -= 1;
                return self.err("an expression");
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_shapes_plans_use() {
        let b = parse_body("return deploy('{0} {1}'.format(args.a, args.b)).stdout\n").unwrap();
        assert!(matches!(&b[..], [Stmt::Return(Some(Expr::Attr(_, a)))] if a == "stdout"));
        let b = parse_body("  if args.withData:\n    withData()\n  else:\n    withoutData()\n")
            .unwrap();
        assert!(matches!(&b[..], [Stmt::If(br, other)] if br.len() == 1 && other.len() == 1));
        let b = parse_body("x = f(1, k=[2, 3], d={'a': (4)})\nreturn x.exitCode == 0").unwrap();
        assert_eq!(b.len(), 2);
        assert_eq!(parse_body("return").unwrap(), vec![Stmt::Return(None)]);
    }

    #[test]
    fn errors_name_the_line() {
        let e = parse_body("x = 1\nfor a in b:\n  pass").unwrap_err();
        assert!(e.starts_with("line 2:") && e.contains("for"), "{e}");
        let e = parse_body("return f(1").unwrap_err();
        assert!(e.contains("unclosed"), "{e}");
        let e = parse_body("if x:\nreturn 1").unwrap_err();
        assert!(e.contains("indented block"), "{e}");
    }
}
