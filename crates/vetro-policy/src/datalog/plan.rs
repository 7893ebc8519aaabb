//! A rule compiled for evaluation: its body literals as steps in the order
//! they run, variables numbered, and the heads the bindings produce.

use super::ast::Rule;
use super::builtins::Builtin;
use super::value::Value;

#[derive(Clone, Copy, Debug)]
pub(crate) enum Arg {
    Const(Value),
    Var(usize),
}

#[derive(Debug)]
pub(crate) enum StepKind {
    Scan(usize),
    /// Every row of another predicate (an included policy's table).
    Copy(usize),
    Neg(usize),
    Builtin(Builtin),
    True,
}

#[derive(Debug)]
pub(crate) struct Step {
    pub(crate) kind: StepKind,
    pub(crate) args: Vec<Arg>,
    /// Columns bound when the step runs (scans and negations); `[usize::MAX]`
    /// marks a negated builtin.
    pub(crate) bound: Vec<usize>,
    /// Position of this literal in the rule's main evaluation order.
    pub(crate) orig: usize,
}

#[derive(Debug)]
pub(crate) struct Plan {
    pub(crate) heads: Vec<(usize, Vec<Arg>)>,
    pub(crate) steps: Vec<Step>,
    pub(crate) nvars: usize,
    /// For incremental maintenance, what the plan was compiled from: plans
    /// that evaluate a changed literal first are compiled from it when needed.
    pub(crate) origin: Option<Box<Origin>>,
}

/// The rule a plan was compiled from.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(crate) policy: String,
    pub(crate) rule: Rule,
    /// The body literals in the plan's order.
    pub(crate) order: Vec<usize>,
    /// The predicate the rule's heads derive into.
    pub(crate) head_pred: usize,
}

impl Arg {
    /// The value of the argument under `binding`, if it has one yet.
    pub(crate) fn value(self, binding: &[Option<Value>]) -> Option<Value> {
        match self {
            Arg::Const(v) => Some(v),
            Arg::Var(i) => binding[i],
        }
    }
}
