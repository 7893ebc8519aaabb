//! Hand-written Pratt parser producing the AST. Operator calls become
//! `Call` nodes naming the operator function (`#operator_+`, ...), as in the
//! reference, so a host can override them.

mod build;

pub use crate::ast::{Arg, Expr, ExprKind, Literal, Span};
use crate::error::{Result, SyntaxError};
use crate::lexer::{Lexer, Tok};
use crate::operators::{OpDef, OperatorTable};
use build::{Build, Check, Name, Tree};
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

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
    run::<Tree>(src, opts, None)
}

/// Parse an expression with the operators of `table` instead of the
/// built-in ones (`opts.colon` and `opts.is_operator` then do not apply).
pub fn parse_with_operators(src: &str, opts: ParserOptions, table: &OperatorTable) -> Result<Expr> {
    run::<Tree>(src, opts, Some(table))
}

/// Check that `src` parses, without building its tree: the same grammar
/// and errors as [`parse`] (or [`parse_with_operators`] with a table), at a
/// fraction of the cost.
pub fn check(src: &str, opts: ParserOptions, table: Option<&OperatorTable>) -> Result<()> {
    run::<Check>(src, opts, table)
}

fn run<'a, B: Build<'a>>(
    src: &'a str,
    opts: ParserOptions,
    table: Option<&'a OperatorTable>,
) -> Result<B::Node> {
    let mut lexer = Lexer::new(src, opts.colon, opts.is_operator, table);
    lexer.advance()?;
    let mut p = Parser::<B> {
        lexer,
        prev_end: 0,
        opts,
        table,
        depth: 0,
        links: 0,
        too_deep: false,
        build: PhantomData,
    };
    if p.peek() == &Tok::Eof {
        return Err(SyntaxError::grammar("Parse error: empty expression", 0));
    }
    let parsed = p.expr(0).and_then(|e| match p.peek() {
        Tok::Eof => Ok(e),
        _ => Err(p.unexpected()),
    });
    match parsed {
        // The reference reads tokens as its parser asks for them, so a
        // grammar error stands even when a lexical one follows it; but
        // where the reference has no nesting limit it reads on, and a
        // lexical error later in the text is what it reports.
        Err(err) if p.too_deep => {
            p.lexer.check_rest()?;
            Err(err)
        }
        parsed => parsed,
    }
}

struct Parser<'a, B> {
    /// The current token, and the ones after it as the grammar moves on.
    lexer: Lexer<'a, 'a>,
    /// The offset after the last token moved past.
    prev_end: u32,
    opts: ParserOptions,
    /// A host's operator table, in place of the built-in operators.
    table: Option<&'a OperatorTable>,
    depth: usize,
    /// How many times the open expressions have wrapped their left operand
    /// (`1 + 1 + ...`, `$.a.b...`): chains nest the tree without recursing
    /// here, and a tree too deep overflows the stack of whoever walks or
    /// drops it.
    links: usize,
    /// The error is vetro's own nesting limit, not the grammar's.
    too_deep: bool,
    /// What the grammar produces (a tree, or nothing).
    build: PhantomData<B>,
}

const MAX_DEPTH: usize = 200;

/// Levels of nesting between two checks of the stack's headroom.
const CHECK_EVERY: usize = 16;

/// The most operands a tree may chain along one path (Python's yaql stops
/// at its recursion limit of 1,000 long before).
const MAX_LINKS: usize = 1_000;

/// The operator and literal function names, shared by every tree instead
/// of allocated per node.
static OP_NAMES: Mutex<Vec<(&'static str, Arc<str>)>> = Mutex::new(Vec::new());

/// The shared name of an operator or literal function.
fn op_name(name: &'static str) -> Arc<str> {
    let mut names = OP_NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, shared)) = names.iter().find(|(n, _)| *n == name) {
        return shared.clone();
    }
    let shared: Arc<str> = Arc::from(name);
    names.push((name, shared.clone()));
    shared
}

/// Binding power and function name of an infix operator; `right` for right
/// associativity. `.`/`?.` have an empty name (the parser handles them).
fn infix<'a>(
    tok: &Tok,
    legacy: bool,
    table: Option<&'a OperatorTable>,
) -> Option<(u16, Name<'a>, bool)> {
    let Tok::Op(op) = tok else {
        return None;
    };
    if let Some(t) = table {
        let (def, right) = t.binary(op)?;
        return Some((def.bp, Name::Table(&def.function), *right));
    }
    let (bp, name, right) = builtin_infix(op, legacy)?;
    Some((bp, Name::Builtin(name), right))
}

fn builtin_infix(op: &str, legacy: bool) -> Option<(u16, &'static str, bool)> {
    // byte patterns: compared inline, no string comparison calls
    Some(match op.as_bytes() {
        [b'-', b'>'] => (10, "#operator_->", true),
        [b'=', b'>'] if legacy => (15, "#operator_=>", false),
        [b'o', b'r'] => (20, "#operator_or", false),
        [b'a', b'n', b'd'] => (30, "#operator_and", false),
        [b'>'] => (50, "#operator_>", false),
        [b'<'] => (50, "#operator_<", false),
        [b'>', b'='] => (50, "#operator_>=", false),
        [b'<', b'='] => (50, "#operator_<=", false),
        [b'!', b'='] => (50, "*not_equal", false),
        [b'='] => (50, "*equal", false),
        [b'i', b'n'] => (50, "#operator_in", false),
        [b'i', b's'] => (50, "#operator_is", false),
        [b'+'] => (60, "#operator_+", false),
        [b'-'] => (60, "#operator_-", false),
        [b'*'] => (70, "#operator_*", false),
        [b'/'] => (70, "#operator_/", false),
        [b'm', b'o', b'd'] => (70, "#operator_mod", false),
        [b'=', b'~'] => (80, "#operator_=~", false),
        [b'!', b'~'] => (80, "#operator_!~", false),
        [b'.'] | [b'?', b'.'] => (110, "", false),
        [b':'] => (120, "#operator_:", false),
        _ => return None,
    })
}

const POSTFIX_BP: u16 = 100;
const UNARY_BP: u16 = 90;
const NOT_BP: u16 = 40;

impl<'a, B: Build<'a>> Parser<'a, B> {
    fn peek(&self) -> &Tok<'a> {
        &self.lexer.token.tok
    }

    /// Whether the current token is `t`, a token without text (a bracket,
    /// a comma).
    fn at(&self, t: &Tok) -> bool {
        std::mem::discriminant(self.peek()) == std::mem::discriminant(t)
    }

    fn pos(&self) -> usize {
        self.lexer.token.span.start as usize
    }

    /// The current token's span.
    fn here(&self) -> Span {
        self.lexer.token.span
    }

    /// The span from `start` to the end of the last token moved past.
    fn span_from(&self, start: Span) -> Span {
        Span {
            end: self.prev_end,
            ..start
        }
    }

    /// Move past the current token (the end of the text stays current).
    fn next(&mut self) -> Result<()> {
        if self.at(&Tok::Eof) {
            return Ok(());
        }
        self.prev_end = self.lexer.token.span.end;
        self.lexer.advance()
    }

    fn unexpected(&self) -> SyntaxError {
        self.unexpected_want("")
    }

    /// An "unexpected token" error at the current token; `want` names what
    /// would have fitted.
    fn unexpected_want(&self, want: &str) -> SyntaxError {
        unexpected(self.peek(), self.pos(), want)
    }

    fn nested_too_deeply(&mut self) -> SyntaxError {
        self.too_deep = true;
        SyntaxError::grammar("Parse error: expression nested too deeply", self.pos())
    }

    fn expect(&mut self, t: Tok<'a>) -> Result<()> {
        if self.at(&t) {
            self.next()
        } else {
            Err(self.unexpected_want(&describe(&t)))
        }
    }

    fn expr(&mut self, min_bp: u16) -> Result<B::Node> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.nested_too_deeply());
        }
        let links = self.links;
        // The stack is checked every few levels, not at each: most
        // expressions never reach a check, and one made on a stack that
        // `stacker` does not know (a host's coroutine) maps a new segment.
        // A level takes far less than the red zone's share.
        let r = if self.depth.is_multiple_of(CHECK_EVERY) {
            stacker::maybe_grow(256 * 1024, 2 * 1024 * 1024, || self.expr_inner(min_bp))
        } else {
            self.expr_inner(min_bp)
        };
        self.links = links;
        self.depth -= 1;
        r
    }

    /// `lhs[args]` or `lhs(args)`: a call of `name` with `lhs` first.
    fn postfix_call(
        &mut self,
        lhs: B::Node,
        close: Tok<'a>,
        name: &'static str,
        start: Span,
    ) -> Result<B::Node> {
        let at = self.pos();
        self.next()?;
        let mut args = B::Args::default();
        B::pos(&mut args, lhs);
        self.args_into(close, &mut args)?;
        Ok(B::call(
            Name::Builtin(name),
            args,
            self.span_from(start),
            at,
        ))
    }

    fn expr_inner(&mut self, min_bp: u16) -> Result<B::Node> {
        let start = self.here();
        let mut lhs = self.nud()?;
        let postfix_bp = self.postfix_bp();
        let mut first = true;
        loop {
            // Every pass after the first follows a node wrapping `lhs`.
            if !std::mem::take(&mut first) {
                self.links += 1;
                if self.links > MAX_LINKS {
                    return Err(self.nested_too_deeply());
                }
            }
            match self.peek() {
                Tok::LBracket if postfix_bp > min_bp => {
                    lhs = self.postfix_call(lhs, Tok::RBracket, "#indexer", start)?;
                    continue;
                }
                Tok::LParen if postfix_bp > min_bp && self.opts.allow_delegates => {
                    lhs = self.postfix_call(lhs, Tok::RParen, "#call", start)?;
                    continue;
                }
                _ => {}
            }
            let dot = match self.peek() {
                Tok::Op(".") => Some(false),
                Tok::Op("?.") => Some(true),
                _ => None,
            };
            let at = self.pos();
            if let Some(def) = self.suffix_here(min_bp)? {
                self.next()?;
                let mut args = B::args(1);
                B::pos(&mut args, lhs);
                lhs = B::call(Name::Table(&def.function), args, self.span_from(start), at);
                continue;
            }
            let Some((bp, name, right)) = infix(self.peek(), self.opts.legacy, self.table) else {
                break;
            };
            if bp <= min_bp {
                break;
            }
            self.next()?;
            if let Some(safe) = dot {
                lhs = self.dot(lhs, bp, safe, start, at)?;
                continue;
            }
            let rhs = self.expr(if right { bp - 1 } else { bp })?;
            let mut args = B::args(2);
            B::pos(&mut args, lhs);
            B::pos(&mut args, rhs);
            lhs = B::call(name, args, self.span_from(start), at);
        }
        Ok(lhs)
    }

    /// A suffix operator of the host's table at the current token, binding
    /// tighter than `min_bp`. A symbol that is also binary is the binary
    /// operator when a value follows it.
    fn suffix_here(&self, min_bp: u16) -> Result<Option<&'a OpDef>> {
        let Some(table) = self.table else {
            return Ok(None);
        };
        let Tok::Op(op) = self.peek() else {
            return Ok(None);
        };
        let Some(def) = table.suffix(op).filter(|d| d.bp > min_bp) else {
            return Ok(None);
        };
        if table.binary(op).is_some() {
            // look at the token after this one, without moving past it
            let mut ahead = self.lexer.clone();
            ahead.advance()?;
            if starts_value(&ahead.token.tok, table) {
                return Ok(None);
            }
        }
        Ok(Some(def))
    }

    /// The right side of `.` / `?.` (written at `at`, the receiver from
    /// `start`): a method call or any other operand.
    fn dot(
        &mut self,
        recv: B::Node,
        bp: u16,
        safe: bool,
        start: Span,
        at: usize,
    ) -> Result<B::Node> {
        if let Tok::Func(fname) = *self.peek() {
            let name_at = self.pos();
            self.next()?;
            let mut args = B::Args::default();
            self.args_into(Tok::RParen, &mut args)?;
            return Ok(B::method(
                recv,
                fname,
                args,
                safe,
                self.span_from(start),
                name_at,
            ));
        }
        let rhs = self.expr(bp)?;
        Ok(B::dot(recv, rhs, safe, self.span_from(start), at))
    }

    /// The operand of a prefix operator written at `start`.
    fn unary(&mut self, name: Name<'a>, bp: u16, start: Span) -> Result<B::Node> {
        let e = self.expr(bp)?;
        let mut args = B::args(1);
        B::pos(&mut args, e);
        Ok(B::call(
            name,
            args,
            self.span_from(start),
            start.start as usize,
        ))
    }

    /// The binding power of `[...]` indexing and `(...)` delegate calls.
    fn postfix_bp(&self) -> u16 {
        self.table.map_or(POSTFIX_BP, OperatorTable::indexer_bp)
    }

    /// The operator of named arguments (`=>`), if this grammar has one.
    fn keyword_op(&self) -> Option<&'a str> {
        match self.table {
            Some(t) => t.keyword(),
            None if self.opts.legacy => None,
            None => Some("=>"),
        }
    }

    fn nud(&mut self) -> Result<B::Node> {
        let here = self.here();
        let start = here.start as usize;
        if matches!(
            self.peek(),
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) | Tok::Word(_) | Tok::Dollar(_)
        ) {
            let leaf = B::leaf(self.peek(), self.lexer.token.span);
            self.next()?;
            return Ok(leaf);
        }
        // the other tokens hold no text of their own: a copy costs nothing
        let tok = self.peek().clone();
        // Refused before the next token is read: a lexical error after a
        // token that cannot start a value is not reached (as in the
        // reference, whose parser asks for tokens one at a time).
        let starts = match &tok {
            Tok::Op(op) => match self.table {
                Some(t) => t.prefix(op).is_some(),
                None => matches!(*op, "-" | "+" | ":" | "not"),
            },
            t => matches!(t, Tok::Func(_) | Tok::LParen | Tok::LBracket | Tok::LBrace),
        };
        if !starts {
            return Err(unexpected(&tok, start, "a value"));
        }
        self.next()?;
        Ok(match tok {
            Tok::Func(name) => {
                let mut args = B::Args::default();
                self.args_into(Tok::RParen, &mut args)?;
                B::call(Name::Source(name), args, self.span_from(here), start)
            }
            Tok::LParen => {
                let e = self.expr(0)?;
                self.expect(Tok::RParen)?;
                B::parenthesized(e, self.span_from(here))
            }
            Tok::LBracket => {
                let mut args = B::Args::default();
                self.args_into(Tok::RBracket, &mut args)?;
                B::call(Name::Builtin("#list"), args, self.span_from(here), start)
            }
            Tok::LBrace => {
                let mut args = B::Args::default();
                self.args_into(Tok::RBrace, &mut args)?;
                B::call(Name::Builtin("#map"), args, self.span_from(here), start)
            }
            Tok::Op(op) if self.table.is_some() => {
                let Some(def) = self.table.and_then(|t| t.prefix(op)) else {
                    return Err(unexpected(&Tok::Op(op), start, "a value"));
                };
                self.unary(Name::Table(&def.function), def.bp, here)?
            }
            Tok::Op("-") => self.unary(Name::Builtin("#unary_operator_-"), UNARY_BP, here)?,
            Tok::Op("+") => self.unary(Name::Builtin("#unary_operator_+"), UNARY_BP, here)?,
            // prefix `:Name` binds tighter than a following `.`
            Tok::Op(":") => self.unary(Name::Builtin("#unary_operator_:"), 110, here)?,
            Tok::Op("not") => self.unary(Name::Builtin("#unary_operator_not"), NOT_BP, here)?,
            other => return Err(unexpected(&other, start, "a value")),
        })
    }

    /// Arguments up to the closing token, appended to `args`: positional,
    /// omitted, then named.
    fn args_into(&mut self, close: Tok<'a>, args: &mut B::Args) -> Result<()> {
        if self.at(&close) {
            self.next()?;
            return Ok(());
        }
        let mut seen_named = false;
        loop {
            if self.at(&Tok::Comma) {
                // omitted positional argument
                if seen_named {
                    return Err(self.unexpected());
                }
                B::omitted(args);
                self.next()?;
                if self.at(&close) {
                    return Err(self.unexpected_want("an argument"));
                }
                continue;
            }
            let e = self.expr(0)?;
            if matches!((self.peek(), self.keyword_op()), (Tok::Op(op), Some(kw)) if *op == kw) {
                self.next()?;
                let v = self.expr(0)?;
                B::named(args, e, v);
                seen_named = true;
            } else {
                if seen_named {
                    return Err(SyntaxError::grammar(
                        "Parse error: positional argument after named one",
                        self.pos(),
                    ));
                }
                B::pos(args, e);
            }
            if self.at(&Tok::Comma) {
                self.next()?;
                if self.at(&close) {
                    return Err(self.unexpected_want("an argument"));
                }
                if self.at(&Tok::Comma) {
                    continue;
                }
            } else if self.at(&close) {
                self.next()?;
                return Ok(());
            } else {
                return Err(self.unexpected_want(&format!("',' or {}", describe(&close))));
            }
        }
    }
}

/// An "unexpected token" error for `tok`, written at `pos`; `want` names
/// what would have fitted.
fn unexpected(tok: &Tok, pos: usize, want: &str) -> SyntaxError {
    let what = match tok {
        Tok::Eof => "unexpected end of statement".to_string(),
        t => format!("unexpected {}", describe(t)),
    };
    let want = if want.is_empty() {
        String::new()
    } else {
        format!(", expected {want}")
    };
    SyntaxError::grammar(format!("Parse error: {what}{want}"), pos)
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

/// Whether a token can start an operand (after a symbol that is both a
/// suffix and a binary operator).
fn starts_value(t: &Tok, table: &OperatorTable) -> bool {
    match t {
        Tok::Op(op) => table.prefix(op).is_some(),
        Tok::RParen | Tok::RBracket | Tok::RBrace | Tok::Comma | Tok::Eof => false,
        _ => true,
    }
}
