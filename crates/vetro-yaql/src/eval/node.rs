//! The nodes of compiled code (see `code.rs`, which runs them, and
//! `compile.rs`, which makes them).

use super::{ArgVec, CallArg};
use crate::func::context::Context;
use crate::parser::{Arg, Expr, Literal};
use smallvec::SmallVec;
use std::sync::Arc;

/// A node's index in its compiled form.
pub(crate) type NodeId = u32;

/// One node of the code.
pub(crate) struct Node {
    /// Where an error without a position is reported.
    pub at: usize,
    /// The node's tree, when it is an argument (or the root): what a lambda
    /// over it holds, and what the general resolution reads.
    pub arc: Option<Arc<Expr>>,
    pub op: Op,
}

/// A variable's reference: a positional argument (`$`, `$1`..`$16`) or a
/// name.
pub(crate) enum VarRef {
    Arg(u8),
    Named(Arc<str>),
}

impl VarRef {
    pub fn of(name: &str) -> VarRef {
        match Context::arg_index(name) {
            Some(i) => VarRef::Arg(i),
            None => VarRef::Named(Arc::from(name)),
        }
    }
}

/// The arguments of a call node: their nodes when all are positional,
/// each argument's nodes when some are not, and the tree's arguments (for
/// the general resolution).
pub(crate) struct CodeArgs {
    pub pos: Option<SmallVec<[NodeId; 4]>>,
    /// Empty when `pos` is set.
    pub mixed: Box<[CodeArg]>,
    pub tree: Arc<[Arg]>,
}

/// One argument of a call that is not all positional, by its nodes.
pub(crate) enum CodeArg {
    Pos(NodeId),
    /// `key => value`: a keyword argument or a mapping rule.
    Named(NodeId, NodeId),
    Omitted,
}

impl CodeArgs {
    pub fn call_args(&self) -> ArgVec<'_> {
        self.tree.iter().map(CallArg::from_arg).collect()
    }
}

/// What a node does.
pub(crate) enum Op {
    Const(Literal),
    Keyword(Arc<str>),
    Var(VarRef),
    /// `name(args)`, through its site when it has one.
    Call {
        name: Arc<str>,
        site: Option<u32>,
        args: CodeArgs,
    },
    /// `recv.name(args)`.
    Method {
        recv: NodeId,
        name: Arc<str>,
        site: Option<u32>,
        args: CodeArgs,
        safe: bool,
    },
    /// `recv.rhs` (`#operator_.`).
    Dot {
        recv: NodeId,
        rhs: NodeId,
        site: Option<u32>,
        safe: bool,
    },
}
