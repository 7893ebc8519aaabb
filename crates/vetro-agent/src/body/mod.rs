//! The `Body` of an execution plan: murano-agent runs it as the body of a
//! Python function whose globals are `args` (the plan's `Parameters`, read as
//! attributes) and one callable per script. This module implements the part
//! of Python such bodies use: `return`, `if`/`elif`/`else`, assignments,
//! `pass`, calls with positional and keyword arguments, attribute and index
//! access, `and`/`or`/`not`, comparisons, `+ - * / % //`, literals, and the
//! `str` methods and builtins of `eval.rs`. Anything else is a clear error
//! naming the line.

mod eval;
mod parse;
mod pystr;

pub use eval::{eval_body, Scripts};
pub use parse::parse_body;
pub use pystr::{py_repr, py_str, truthy};

use serde_json::Value as Json;

/// A statement of a body.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    Return(Option<Expr>),
    Expr(Expr),
    Assign(String, Expr),
    /// `if`/`elif` branches in order, then the `else` block.
    If(Vec<(Expr, Vec<Stmt>)>, Vec<Stmt>),
    Pass,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Const(Json),
    Name(String),
    Attr(Box<Expr>, String),
    Index(Box<Expr>, Box<Expr>),
    Call(Box<Expr>, Vec<Expr>, Vec<(String, Expr)>),
    Not(Box<Expr>),
    Neg(Box<Expr>),
    /// `and` (true) / `or` (false), short-circuit.
    Logic(bool, Box<Expr>, Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    List(Vec<Expr>),
    Dict(Vec<(Expr, Expr)>),
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    FloorDiv,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    In,
    NotIn,
    Is,
    IsNot,
}

/// An error raised while a body runs: murano-agent's error code, message and
/// additional data (a failed script's `exitCode`, `stdout`, `stderr`).
#[derive(Clone, Debug, PartialEq)]
pub struct Raised {
    pub code: i64,
    pub message: String,
    pub additional: Json,
}

impl Raised {
    pub fn new(message: impl Into<String>) -> Raised {
        Raised {
            code: 1,
            message: message.into(),
            additional: Json::Null,
        }
    }
}

impl std::fmt::Display for Raised {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}
