//! The syntax tree. Every node carries the byte range of its text
//! ([`Span`]) and the offset of the token naming its operation, so that an
//! evaluator can point at the node that failed. The tree holds no runtime
//! values: literals stay literals.

use std::ops::Range;
use std::rc::Rc;

/// A byte range `start..end` of the source text. Offsets are kept as `u32`
/// to keep nodes small (texts past 4 GiB clamp at the limit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

fn offset(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

impl Span {
    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: offset(start),
            end: offset(end),
        }
    }

    /// The range, to slice the source with.
    pub fn range(self) -> Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A node of the tree: what it is, where its text is, and where its
/// operation is written.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    /// The node's text, from its first token to the end of its last one
    /// (a parenthesized expression's span leaves the parentheses out).
    pub span: Span,
    /// Where a diagnostic about the node points: a call's name, a binary
    /// or unary operator, the `.` of a member access or method call (the
    /// start of the span for the other nodes).
    pub at: u32,
}

impl Expr {
    /// A node whose operation is written at the start of its text.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr {
            kind,
            at: span.start,
            span,
        }
    }

    /// A node with its operation written at byte offset `at`.
    pub fn at(kind: ExprKind, span: Span, at: usize) -> Expr {
        Expr {
            kind,
            span,
            at: offset(at),
        }
    }

    /// A node made outside of any text (by an evaluator): its span is empty
    /// and at offset 0.
    pub fn detached(kind: ExprKind) -> Expr {
        Expr::new(kind, Span::default())
    }

    /// The byte offset a diagnostic about this node points to.
    pub fn position(&self) -> usize {
        self.at as usize
    }

    pub fn is_const(&self) -> bool {
        matches!(self.kind, ExprKind::Const(_) | ExprKind::Keyword(_))
    }
}

/// The kinds of node.
#[derive(Clone, Debug)]
pub enum ExprKind {
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
#[derive(Clone, Debug)]
pub enum Arg {
    Pos(Rc<Expr>),
    /// An omitted positional argument (`f(, 1)`).
    Omitted,
    /// `key => value` (a named argument or a mapping rule).
    Named(Rc<Expr>, Rc<Expr>),
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
