//! Kernels: lambda bodies that are only direct calls (arithmetic and
//! comparisons whose overload the kinds of their values decide, `$.key` on
//! a dictionary) over `$` and number literals, run on the argument value
//! without a scope, a variable lookup or a node walk. The compile stage
//! makes one for each argument node of that shape (`compile.rs`); a lambda
//! called with one argument runs it (`lambda.rs`).
//!
//! A kernel computes what the compiled code computes, or nothing: when a
//! value's kind is not one its direct call takes, or a body fails, it gives
//! up and the lambda runs its code, which resolves the call in general and
//! reports the error with its position. Its calls count as operations and
//! as levels of nesting, as the code's do.

use super::node::{Node, NodeId, Op, VarRef};
use super::site::{DirectKeySite, DirectSite, Site};
use crate::parser::Literal;
use crate::value::Value;
use std::sync::Arc;

/// The deepest kernel made: it recurses without asking for stack.
const MAX_DEPTH: usize = 16;

/// A kernel and what running it counts.
pub(crate) struct Kernel {
    root: Step,
    /// Call nodes (operations, as the code's calls tick).
    pub calls: u64,
    /// Nesting of its call nodes.
    pub depth: usize,
}

enum Step {
    /// `$` (`$1`): the lambda's argument.
    Arg,
    Value(Scalar),
    Call {
        site: DirectSite,
        args: Box<[Step; 2]>,
    },
    Key {
        site: DirectKeySite,
        recv: Box<Step>,
        key: Arc<str>,
        safe: bool,
    },
}

#[derive(Clone, Copy)]
enum Scalar {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
}

impl Kernel {
    /// The kernel of node `id` of `code`, when it has that shape.
    pub fn of(code: &[Node], sites: &[Site], id: NodeId) -> Option<Kernel> {
        let mut k = Kernel {
            root: Step::Arg,
            calls: 0,
            depth: 0,
        };
        k.root = k.step(code, sites, id, 0)?;
        Some(k)
    }

    fn step(&mut self, code: &[Node], sites: &[Site], id: NodeId, depth: usize) -> Option<Step> {
        if depth > MAX_DEPTH {
            return None;
        }
        let site = |s: &Option<u32>| s.map(|s| &sites[s as usize]);
        let step = match &code[id as usize].op {
            Op::Var(VarRef::Arg(1)) => Step::Arg,
            Op::Const(l) => Step::Value(match l {
                Literal::Null => Scalar::Null,
                Literal::Bool(b) => Scalar::Bool(*b),
                Literal::Int(i) => Scalar::Int(*i),
                Literal::Float(f) => Scalar::Float(*f),
                _ => return None,
            }),
            Op::Call {
                site: s, args: a, ..
            } => {
                let direct = site(s)?.direct.clone()?;
                let [x, y] = a.pos.as_deref()? else {
                    return None;
                };
                let args = [
                    self.step(code, sites, *x, depth + 1)?,
                    self.step(code, sites, *y, depth + 1)?,
                ];
                self.count(depth);
                Step::Call {
                    site: direct,
                    args: Box::new(args),
                }
            }
            Op::Dot {
                recv,
                rhs,
                site: s,
                safe,
            } => {
                let direct = site(s)?.direct_key.clone()?;
                let Op::Keyword(key) = &code[*rhs as usize].op else {
                    return None;
                };
                let recv = self.step(code, sites, *recv, depth + 1)?;
                self.count(depth);
                Step::Key {
                    site: direct,
                    recv: Box::new(recv),
                    key: key.clone(),
                    safe: *safe,
                }
            }
            _ => return None,
        };
        Some(step)
    }

    fn count(&mut self, depth: usize) {
        self.calls += 1;
        self.depth = self.depth.max(depth + 1);
    }

    /// The value of the body for the argument `arg`, or `None` when the
    /// compiled code must compute it.
    #[inline]
    pub fn run(&self, arg: &Value) -> Option<Value> {
        self.root.run(arg)
    }

    /// Whether the value of the body for `arg` is true, or `None` when the
    /// compiled code must compute it.
    #[inline]
    pub fn test(&self, arg: &Value) -> Option<bool> {
        with(&self.root, arg, |v| Some(v.truthy()))
    }
}

impl Step {
    fn run(&self, arg: &Value) -> Option<Value> {
        match self {
            Step::Arg => Some(arg.clone()),
            Step::Value(s) => Some(s.value()),
            Step::Call { site, args } => with(&args[0], arg, |x| {
                with(&args[1], arg, |y| {
                    if !site.takes(x, y) {
                        return None;
                    }
                    site.call_ok(x, y)
                })
            }),
            Step::Key {
                site,
                recv,
                key,
                safe,
            } => with(recv, arg, |r| {
                if *safe && r.is_null() {
                    return Some(Value::Null);
                }
                if !site.takes(r) {
                    return None;
                }
                (site.f)(r, key).ok()
            }),
        }
    }
}

/// Give `k` the value of `s`: the argument itself for `$`, a literal
/// without a value to drop, or what `s` computes.
#[inline(always)]
fn with<R>(s: &Step, arg: &Value, k: impl FnOnce(&Value) -> Option<R>) -> Option<R> {
    match s {
        Step::Arg => k(arg),
        // A scalar holds nothing to release.
        Step::Value(v) => k(&std::mem::ManuallyDrop::new(v.value())),
        // Used where it is: moving a value just written by parts stalls.
        _ => match &s.run(arg) {
            Some(v) => k(v),
            None => None,
        },
    }
}

impl Scalar {
    #[inline]
    fn value(self) -> Value {
        match self {
            Scalar::Null => Value::Null,
            Scalar::Bool(b) => Value::Bool(b),
            Scalar::Int(i) => Value::Int(i),
            Scalar::Float(f) => Value::Float(f),
        }
    }
}
