//! The syntax tree. Every node carries the byte range of its text
//! ([`Span`]), and calls the offset of the token naming their operation, so
//! that an evaluator can point at the node that failed. The tree holds no
//! runtime values: literals stay literals.

use std::sync::Arc;

/// The workspace's one span type. A tree parsed from a text on its own counts
/// from that text's start: offsets, line and column are the expression's,
/// and the file is [`vetro_diag::FileId`]'s default.
pub use vetro_diag::Span;

/// A byte offset as stored in the tree.
pub(crate) use vetro_diag::offset;

/// A node of the tree: what it is and where its text is.
#[derive(Clone, Debug)]
pub struct Expr {
    pub kind: ExprKind,
    /// The node's text, from its first token to the end of its last one
    /// (a parenthesized expression's span leaves the parentheses out).
    pub span: Span,
}

impl Expr {
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }

    /// A node made outside of any text (by an evaluator): its span is empty
    /// and at offset 0.
    pub fn detached(kind: ExprKind) -> Expr {
        Expr::new(kind, Span::default())
    }

    /// The byte offset a diagnostic about this node points to: where a
    /// call's name or operator, a method's name or the `.` of a member
    /// access is written; the start of the text for the other nodes.
    pub fn position(&self) -> usize {
        match self.kind {
            ExprKind::Call { at, .. } | ExprKind::Method { at, .. } | ExprKind::Dot { at, .. } => {
                at as usize
            }
            _ => self.span.start as usize,
        }
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
    Keyword(Arc<str>),
    /// `$name` (`$` is `$1`; the name is stored without `$`).
    Var(Arc<str>),
    /// `name(args)`, and every operator / literal as its function; `at` is
    /// the offset of the name or operator symbol (kept here rather than in
    /// [`Expr`], where it would make every node larger).
    Call {
        name: Arc<str>,
        args: Vec<Arg>,
        at: u32,
    },
    /// `recv.name(args)` / `recv?.name(args)`; `at` is the name's offset.
    Method {
        recv: Box<Expr>,
        name: Arc<str>,
        args: Vec<Arg>,
        safe: bool,
        at: u32,
    },
    /// A parenthesized legacy `=>` expression.
    Wrap(Box<Expr>),
    /// `recv.rhs` / `recv?.rhs` where `rhs` is not a call; `at` is the
    /// offset of the `.`.
    Dot {
        recv: Box<Expr>,
        rhs: Arc<Expr>,
        safe: bool,
        at: u32,
    },
}

/// One argument of a call.
#[derive(Clone, Debug)]
pub enum Arg {
    Pos(Arc<Expr>),
    /// An omitted positional argument (`f(, 1)`).
    Omitted,
    /// `key => value` (a named argument or a mapping rule).
    Named(Arc<Expr>, Arc<Expr>),
}

/// A literal of the source text.
#[derive(Clone, Debug, PartialEq)]
pub enum Literal {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer literal beyond 64 bits.
    BigInt(Arc<num_bigint::BigInt>),
    Float(f64),
    Str(Arc<str>),
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

#[cfg(test)]
mod tests {
    /// The parser builds and moves nodes by value: keep them small (the
    /// workspace's span, with its line and column, is 20 of the bytes).
    #[test]
    fn a_node_fits_in_80_bytes() {
        assert!(std::mem::size_of::<super::Expr>() <= 80);
    }

    #[test]
    fn spans_count_lines_and_columns_of_the_expression() {
        let e = crate::parse("[1,\n  'é',\n $x]", Default::default()).unwrap();
        let super::ExprKind::Call { args, .. } = &e.kind else {
            panic!("a list is a call of #list");
        };
        let at: Vec<(u32, u32, u32)> = args
            .iter()
            .map(|a| match a {
                super::Arg::Pos(x) => (x.span.start, x.span.line, x.span.col),
                _ => panic!("positional"),
            })
            .collect();
        assert_eq!(at, [(1, 1, 2), (6, 2, 3), (13, 3, 2)]);
        assert_eq!((e.span.line, e.span.col), (1, 1));
    }
}
