//! Hand-written Pratt parser producing the AST. Operator calls become
//! `Call` nodes naming the operator function (`#operator_+`, ...), as in the
//! reference, so a host can override them.

use crate::error::{Error, ErrorKind, Result};
use crate::lexer::{tokenize_with, Tok, Token};
use std::cell::RefCell;
use std::rc::Rc;

/// A parsed YAQL expression.
#[derive(Debug)]
pub enum Expr {
    /// A literal (number, quoted string, `true`, `false`, `null`).
    Const(Literal),
    /// A bare word: a string constant that can also name a keyword argument.
    Keyword(Rc<str>),
    /// `$name` (`$` is `$1`; the name is stored without `$`).
    Var(Rc<str>),
    /// `name(args)`, and every operator / literal as its function.
    Call { name: Rc<str>, args: Vec<Arg> },
    /// `recv.name(args)` / `recv?.name(args)`.
    Method {
        recv: Box<Expr>,
        name: Rc<str>,
        args: Vec<Arg>,
        safe: bool,
    },
    /// A parenthesized legacy `=>` expression.
    Wrap(Box<Expr>),
    /// `recv.rhs` / `recv?.rhs` where `rhs` is not a call.
    Dot {
        recv: Box<Expr>,
        rhs: Rc<Expr>,
        safe: bool,
    },
}

/// One argument of a call.
#[derive(Debug)]
pub enum Arg {
    Pos(Rc<Expr>),
    /// An omitted positional argument (`f(, 1)`).
    Omitted,
    /// `key => value` (a named argument or a mapping rule).
    Named(Rc<Expr>, Rc<Expr>),
}

impl Expr {
    pub fn is_const(&self) -> bool {
        matches!(self, Expr::Const(_) | Expr::Keyword(_))
    }
}

/// A literal of the source text.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer literal beyond 64 bits.
    BigInt(Rc<num_bigint::BigInt>),
    Float(f64),
    Str(Rc<str>),
}

impl Literal {
    /// The text of a string literal.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Literal::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Parser settings (what differs between the standard and legacy factories).
#[derive(Clone, Copy, Debug, Default)]
pub struct ParserOptions {
    /// `=>` is a tuple-building binary operator (no named arguments).
    pub legacy: bool,
    /// Accept `expr(args)` delegate calls (`#call`).
    pub allow_delegates: bool,
    /// Accept the `:` namespace operator (`#operator_:`).
    pub colon: bool,
    /// Accept the `is` operator (`#operator_is`, comparison precedence).
    pub is_operator: bool,
}

/// Parse an expression.
pub fn parse(src: &str, opts: ParserOptions) -> Result<Expr> {
    let tokens = tokenize_with(src, opts.colon, opts.is_operator)?;
    let mut p = Parser {
        toks: tokens,
        i: 0,
        opts,
        depth: 0,
    };
    if p.peek() == &Tok::Eof {
        return Err(Error::at(
            ErrorKind::Grammar,
            "Parse error: empty expression",
            0,
        ));
    }
    let e = p.expr(0)?;
    if p.peek() != &Tok::Eof {
        return Err(p.unexpected());
    }
    Ok(e)
}

struct Parser<'a> {
    toks: Vec<Token<'a>>,
    i: usize,
    opts: ParserOptions,
    depth: usize,
}

const MAX_DEPTH: usize = 200;

fn call(name: Rc<str>, args: Vec<Arg>) -> Expr {
    Expr::Call { name, args }
}

thread_local! {
    /// The operator and literal function names, shared by every tree this
    /// thread parses instead of allocated per node.
    static OP_NAMES: RefCell<Vec<(&'static str, Rc<str>)>> = const { RefCell::new(Vec::new()) };
}

/// The shared name of an operator or literal function.
fn op_name(name: &'static str) -> Rc<str> {
    OP_NAMES.with(|names| {
        let mut names = names.borrow_mut();
        if let Some((_, rc)) = names.iter().find(|(n, _)| *n == name) {
            return rc.clone();
        }
        let rc: Rc<str> = Rc::from(name);
        names.push((name, rc.clone()));
        rc
    })
}

/// Binding power and function name of an infix operator; `right` for right associativity.
fn infix(tok: &Tok, legacy: bool) -> Option<(u8, &'static str, bool)> {
    let Tok::Op(op) = tok else {
        return None;
    };
    Some(match *op {
        "->" => (10, "#operator_->", true),
        "=>" if legacy => (15, "#operator_=>", false),
        "or" => (20, "#operator_or", false),
        "and" => (30, "#operator_and", false),
        ">" => (50, "#operator_>", false),
        "<" => (50, "#operator_<", false),
        ">=" => (50, "#operator_>=", false),
        "<=" => (50, "#operator_<=", false),
        "!=" => (50, "*not_equal", false),
        "=" => (50, "*equal", false),
        "in" => (50, "#operator_in", false),
        "is" => (50, "#operator_is", false),
        "+" => (60, "#operator_+", false),
        "-" => (60, "#operator_-", false),
        "*" => (70, "#operator_*", false),
        "/" => (70, "#operator_/", false),
        "mod" => (70, "#operator_mod", false),
        "=~" => (80, "#operator_=~", false),
        "!~" => (80, "#operator_!~", false),
        "." | "?." => (110, "", false),
        ":" => (120, "#operator_:", false),
        _ => return None,
    })
}

const POSTFIX_BP: u8 = 100;
const UNARY_BP: u8 = 90;
const NOT_BP: u8 = 40;

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok<'a> {
        &self.toks[self.i.min(self.toks.len() - 1)].tok
    }

    fn pos(&self) -> usize {
        self.toks[self.i.min(self.toks.len() - 1)].pos
    }

    fn next(&mut self) {
        if self.i < self.toks.len() - 1 {
            self.i += 1;
        }
    }

    /// Move past the current token, taking it out of the list (the end
    /// token stays). `restore` puts a taken token back.
    fn take(&mut self) -> Tok<'a> {
        let last = self.toks.len() - 1;
        if self.i < last {
            self.i += 1;
            std::mem::replace(&mut self.toks[self.i - 1].tok, Tok::Eof)
        } else {
            Tok::Eof
        }
    }

    fn restore(&mut self, at: usize, tok: Tok<'a>) {
        if at < self.toks.len() - 1 {
            self.toks[at].tok = tok;
        }
        self.i = at;
    }

    fn unexpected(&self) -> Error {
        self.unexpected_want("")
    }

    /// An "unexpected token" error; `want` names what would have fitted.
    fn unexpected_want(&self, want: &str) -> Error {
        let what = match self.peek() {
            Tok::Eof => "unexpected end of statement".to_string(),
            t => format!("unexpected {}", describe(t)),
        };
        let want = if want.is_empty() {
            String::new()
        } else {
            format!(", expected {want}")
        };
        Error::at(
            ErrorKind::Grammar,
            format!("Parse error: {what}{want}"),
            self.pos(),
        )
    }

    fn expect(&mut self, t: Tok<'a>) -> Result<()> {
        if *self.peek() == t {
            self.next();
            Ok(())
        } else {
            Err(self.unexpected_want(&describe(&t)))
        }
    }

    fn expr(&mut self, min_bp: u8) -> Result<Expr> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::at(
                ErrorKind::Grammar,
                "Parse error: expression nested too deeply",
                self.pos(),
            ));
        }
        let r = stacker::maybe_grow(64 * 1024, 2 * 1024 * 1024, || self.expr_inner(min_bp));
        self.depth -= 1;
        r
    }

    fn expr_inner(&mut self, min_bp: u8) -> Result<Expr> {
        let mut lhs = self.nud()?;
        loop {
            match self.peek() {
                Tok::LBracket if POSTFIX_BP > min_bp => {
                    self.next();
                    let mut args = vec![Arg::Pos(Rc::new(lhs))];
                    self.args_into(Tok::RBracket, &mut args)?;
                    lhs = call(op_name("#indexer"), args);
                    continue;
                }
                Tok::LParen if POSTFIX_BP > min_bp && self.opts.allow_delegates => {
                    self.next();
                    let mut args = vec![Arg::Pos(Rc::new(lhs))];
                    self.args_into(Tok::RParen, &mut args)?;
                    lhs = call(op_name("#call"), args);
                    continue;
                }
                _ => {}
            }
            let dot = match self.peek() {
                Tok::Op(".") => Some(false),
                Tok::Op("?.") => Some(true),
                _ => None,
            };
            let Some((bp, name, right)) = infix(self.peek(), self.opts.legacy) else {
                break;
            };
            if bp <= min_bp {
                break;
            }
            self.next();
            if let Some(safe) = dot {
                lhs = self.dot(lhs, bp, safe)?;
                continue;
            }
            let rhs = self.expr(if right { bp - 1 } else { bp })?;
            lhs = call(
                op_name(name),
                vec![Arg::Pos(Rc::new(lhs)), Arg::Pos(Rc::new(rhs))],
            );
        }
        Ok(lhs)
    }

    /// The right side of `.` / `?.`: a method call or any other operand.
    fn dot(&mut self, recv: Expr, bp: u8, safe: bool) -> Result<Expr> {
        if let Tok::Func(fname) = *self.peek() {
            self.next();
            let mut args = Vec::new();
            self.args_into(Tok::RParen, &mut args)?;
            return Ok(Expr::Method {
                recv: Box::new(recv),
                name: Rc::from(fname),
                args,
                safe,
            });
        }
        let rhs = self.expr(bp)?;
        Ok(Expr::Dot {
            recv: Box::new(recv),
            rhs: Rc::new(rhs),
            safe,
        })
    }

    fn unary(&mut self, name: &'static str, bp: u8) -> Result<Expr> {
        let e = self.expr(bp)?;
        Ok(call(op_name(name), vec![Arg::Pos(Rc::new(e))]))
    }

    fn nud(&mut self) -> Result<Expr> {
        let start = self.i;
        let tok = self.take();
        Ok(match tok {
            Tok::Int(text) => Expr::Const(match text.parse::<i64>() {
                Ok(i) => Literal::Int(i),
                Err(_) => match text.parse::<num_bigint::BigInt>() {
                    Ok(b) => Literal::BigInt(Rc::new(b)),
                    Err(_) => Literal::Int(0),
                },
            }),
            Tok::Float(f) => Expr::Const(Literal::Float(f)),
            Tok::Str(s) => Expr::Const(Literal::Str(Rc::from(s))),
            Tok::Word(w) => match w {
                "true" => Expr::Const(Literal::Bool(true)),
                "false" => Expr::Const(Literal::Bool(false)),
                "null" => Expr::Const(Literal::Null),
                _ => Expr::Keyword(Rc::from(w)),
            },
            Tok::Dollar(name) => Expr::Var(Rc::from(if name.is_empty() { "1" } else { name })),
            Tok::Func(name) => {
                let mut args = Vec::new();
                self.args_into(Tok::RParen, &mut args)?;
                call(Rc::from(name), args)
            }
            Tok::LParen => {
                let e = self.expr(0)?;
                self.expect(Tok::RParen)?;
                match e {
                    // keep `(a => b) => c` nested (legacy tuples flatten only unparenthesized chains)
                    Expr::Call { ref name, .. } if &**name == "#operator_=>" => {
                        Expr::Wrap(Box::new(e))
                    }
                    e => e,
                }
            }
            Tok::LBracket => {
                let mut args = Vec::new();
                self.args_into(Tok::RBracket, &mut args)?;
                call(op_name("#list"), args)
            }
            Tok::LBrace => {
                let mut args = Vec::new();
                self.args_into(Tok::RBrace, &mut args)?;
                call(op_name("#map"), args)
            }
            Tok::Op("-") => self.unary("#unary_operator_-", UNARY_BP)?,
            Tok::Op("+") => self.unary("#unary_operator_+", UNARY_BP)?,
            // prefix `:Name` binds tighter than a following `.`
            Tok::Op(":") => self.unary("#unary_operator_:", 110)?,
            Tok::Op("not") => self.unary("#unary_operator_not", NOT_BP)?,
            other => {
                self.restore(start, other);
                return Err(self.unexpected_want("a value"));
            }
        })
    }

    /// Arguments up to the closing token, appended to `args`: positional,
    /// omitted, then named.
    fn args_into(&mut self, close: Tok<'a>, args: &mut Vec<Arg>) -> Result<()> {
        if *self.peek() == close {
            self.next();
            return Ok(());
        }
        let mut seen_named = false;
        loop {
            if *self.peek() == Tok::Comma {
                // omitted positional argument
                if seen_named {
                    return Err(self.unexpected());
                }
                args.push(Arg::Omitted);
                self.next();
                if *self.peek() == close {
                    return Err(self.unexpected_want("an argument"));
                }
                continue;
            }
            let e = self.expr(0)?;
            if !self.opts.legacy && *self.peek() == Tok::Op("=>") {
                self.next();
                let v = self.expr(0)?;
                args.push(Arg::Named(Rc::new(e), Rc::new(v)));
                seen_named = true;
            } else {
                if seen_named {
                    return Err(Error::at(
                        ErrorKind::Grammar,
                        "Parse error: positional argument after named one",
                        self.pos(),
                    ));
                }
                args.push(Arg::Pos(Rc::new(e)));
            }
            if *self.peek() == Tok::Comma {
                self.next();
                if *self.peek() == close {
                    return Err(self.unexpected_want("an argument"));
                }
                if *self.peek() == Tok::Comma {
                    continue;
                }
            } else if *self.peek() == close {
                self.next();
                return Ok(());
            } else {
                return Err(self.unexpected_want(&format!("',' or {}", describe(&close))));
            }
        }
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Int(s) => format!("number {s}"),
        Tok::Float(f) => format!("number {f}"),
        Tok::Str(s) => format!("string {:?}", s),
        Tok::Word(w) => format!("'{w}'"),
        Tok::Func(f) => format!("'{f}('"),
        Tok::Dollar(d) => format!("'${d}'"),
        Tok::Op(o) => format!("'{o}'"),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::LBrace => "'{'".into(),
        Tok::RBrace => "'}'".into(),
        Tok::Comma => "','".into(),
        Tok::Eof => "end".into(),
    }
}
