//! What the grammar produces: the syntax tree ([`Tree`]), or nothing
//! ([`Check`], which only tells whether a text parses). One grammar serves
//! both, so a checked text is exactly one the tree builder accepts.

use super::{op_name, Arg, Expr, ExprKind, Literal, Span};
use crate::ast::offset;
use crate::lexer::Tok;
use std::sync::Arc;

/// The name of a called function, as the grammar finds it.
#[derive(Clone, Copy)]
pub(super) enum Name<'a> {
    /// An operator or literal function of the built-in grammar.
    Builtin(&'static str),
    /// An operator of a host's table.
    Table(&'a Arc<str>),
    /// A name written in the source (`name(`).
    Source(&'a str),
}

/// The productions of the grammar. Each gets the span of its text and
/// `at`, the offset of the token naming its operation.
pub(super) trait Build<'a> {
    type Node;
    type Args: Default;
    /// A literal, bare word or `$variable`.
    fn leaf(tok: &Tok<'a>, span: Span) -> Self::Node;
    fn call(name: Name<'a>, args: Self::Args, span: Span, at: usize) -> Self::Node;
    fn method(
        recv: Self::Node,
        name: &'a str,
        args: Self::Args,
        safe: bool,
        span: Span,
        at: usize,
    ) -> Self::Node;
    fn dot(recv: Self::Node, rhs: Self::Node, safe: bool, span: Span, at: usize) -> Self::Node;
    /// `( e )`; the span includes the parentheses.
    fn parenthesized(e: Self::Node, span: Span) -> Self::Node;
    /// An argument list for `n` arguments (for a call whose count is
    /// known, such as an operator's).
    fn args(n: usize) -> Self::Args;
    fn pos(args: &mut Self::Args, e: Self::Node);
    fn named(args: &mut Self::Args, key: Self::Node, value: Self::Node);
    fn omitted(args: &mut Self::Args);
}

/// Builds the syntax tree.
pub(super) struct Tree;

impl<'a> Build<'a> for Tree {
    type Node = Expr;
    type Args = Vec<Arg>;

    fn leaf(tok: &Tok<'a>, span: Span) -> Expr {
        let kind = match tok {
            Tok::Int(text) => ExprKind::Const(match text.parse::<i64>() {
                Ok(i) => Literal::Int(i),
                Err(_) => match vetro_pycompat::int::parse_decimal(text) {
                    Some(b) => Literal::BigInt(Arc::new(b)),
                    None => Literal::Int(0),
                },
            }),
            Tok::Float(f) => ExprKind::Const(Literal::Float(*f)),
            Tok::Str(s) => ExprKind::Const(Literal::Str(Arc::from(&**s))),
            Tok::Word("true") => ExprKind::Const(Literal::Bool(true)),
            Tok::Word("false") => ExprKind::Const(Literal::Bool(false)),
            Tok::Word("null") => ExprKind::Const(Literal::Null),
            Tok::Word(w) => ExprKind::Keyword(Arc::from(*w)),
            Tok::Dollar(name) => {
                ExprKind::Var(Arc::from(if name.is_empty() { "1" } else { *name }))
            }
            // the grammar hands only the tokens above
            _ => ExprKind::Const(Literal::Null),
        };
        Expr::new(kind, span)
    }

    fn call(name: Name<'a>, args: Vec<Arg>, span: Span, at: usize) -> Expr {
        let name = match name {
            Name::Builtin(name) => op_name(name),
            Name::Table(name) => name.clone(),
            Name::Source(name) => Arc::from(name),
        };
        let at = offset(at);
        Expr::new(ExprKind::Call { name, args, at }, span)
    }

    fn method(
        recv: Expr,
        name: &'a str,
        args: Vec<Arg>,
        safe: bool,
        span: Span,
        at: usize,
    ) -> Expr {
        let kind = ExprKind::Method {
            recv: Box::new(recv),
            name: Arc::from(name),
            args,
            safe,
            at: offset(at),
        };
        Expr::new(kind, span)
    }

    fn dot(recv: Expr, rhs: Expr, safe: bool, span: Span, at: usize) -> Expr {
        let kind = ExprKind::Dot {
            recv: Box::new(recv),
            rhs: Arc::new(rhs),
            safe,
            at: offset(at),
        };
        Expr::new(kind, span)
    }

    fn parenthesized(e: Expr, span: Span) -> Expr {
        match e.kind {
            // keep `(a => b) => c` nested (legacy tuples flatten only unparenthesized chains)
            ExprKind::Call { ref name, .. } if &**name == "#operator_=>" => {
                Expr::new(ExprKind::Wrap(Box::new(e)), span)
            }
            _ => e,
        }
    }

    fn args(n: usize) -> Vec<Arg> {
        Vec::with_capacity(n)
    }

    fn pos(args: &mut Vec<Arg>, e: Expr) {
        args.push(Arg::Pos(Arc::new(e)));
    }

    fn named(args: &mut Vec<Arg>, key: Expr, value: Expr) {
        args.push(Arg::Named(Arc::new(key), Arc::new(value)));
    }

    fn omitted(args: &mut Vec<Arg>) {
        args.push(Arg::Omitted);
    }
}

/// Builds nothing: a parse that only checks the text.
pub(super) struct Check;

impl<'a> Build<'a> for Check {
    type Node = ();
    type Args = ();

    fn leaf(_: &Tok<'a>, _: Span) {}
    fn call(_: Name<'a>, _: (), _: Span, _: usize) {}
    fn method(_: (), _: &'a str, _: (), _: bool, _: Span, _: usize) {}
    fn dot(_: (), _: (), _: bool, _: Span, _: usize) {}
    fn parenthesized(_: (), _: Span) {}
    fn args(_: usize) {}
    fn pos(_: &mut (), _: ()) {}
    fn named(_: &mut (), _: (), _: ()) {}
    fn omitted(_: &mut ()) {}
}
