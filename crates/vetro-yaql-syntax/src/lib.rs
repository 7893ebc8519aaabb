//! The syntax of YAQL: the lexer, operator tables, the parser and the
//! syntax tree it builds.
//!
//! This crate knows nothing of values or evaluation: a text goes in, a tree
//! of [`Expr`] nodes (or a [`SyntaxError`] with its byte position) comes
//! out. Operators become calls of the functions that implement them
//! (`a + b` is a call of `#operator_+`), as in the reference implementation,
//! so an evaluator can let a host override any of them. Every node carries
//! the [`Span`] of its text and the offset of the token naming its
//! operation ([`Expr::position`]), so that an evaluator can say where a
//! run-time error happened.
//!
//! ```
//! use vetro_yaql_syntax::{parse, ExprKind, ParserOptions, SyntaxErrorKind};
//!
//! let src = "$.items.where($.size > 2)";
//! let tree = parse(src, ParserOptions::default()).unwrap();
//! let ExprKind::Method { name, args, .. } = &tree.kind else { panic!() };
//! assert_eq!(&**name, "where");
//! assert_eq!(tree.position(), 8); // the method's name
//! assert_eq!(&src[tree.span.range()], src);
//! assert_eq!(args.len(), 1);
//!
//! let err = parse("1 +", ParserOptions::default()).unwrap_err();
//! assert_eq!(err.kind, SyntaxErrorKind::Grammar);
//! assert_eq!(err.position, 3);
//! ```
//!
//! [`check`] validates a text with the same grammar and errors without
//! building the tree; [`operators::OperatorTable`] replaces the built-in
//! operators with a host's own.

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;

pub mod ast;
pub mod error;
pub mod lexer;
pub mod operators;
pub mod parser;

pub use ast::{Arg, Expr, ExprKind, Literal, Span};
pub use error::{SyntaxError, SyntaxErrorKind};
pub use parser::{check, parse, parse_with_operators, ParserOptions};
pub use vetro_pycompat::int::MAX_INT_DIGITS;
