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
//!
//! A body of integer operations over `$` and integer literals (`$ mod 7 =
//! 0`, `$ * 2`) has a second form, run on an integer argument: each call's
//! integer body on integers, no value made until the end.

use super::node::{Node, NodeId, Op, VarRef};
use super::site::{DirectKeySite, DirectSite, Site};
use crate::error::Result;
use crate::func::context::{Context, NameSets};
use crate::func::library::Library;
use crate::func::{ArgKernel, IntDirect, IntOutcome};
use crate::parser::Literal;
use crate::value::Value;
use std::sync::Arc;

/// The deepest kernel made: it recurses without asking for stack.
const MAX_DEPTH: usize = 16;

/// A kernel and what running it counts.
pub(crate) struct Kernel {
    root: Step,
    /// The body on an integer argument, when it is integer operations.
    ints: Option<IntStep>,
    /// Call nodes (operations, as the code's calls tick).
    calls: u64,
    /// Nesting of its call nodes.
    depth: usize,
    /// The library whose functions its calls are.
    library: Arc<Library>,
    /// The names it calls.
    names: NameSets,
    /// The position of its node (for an error counting its calls).
    at: usize,
}

/// A step of a body of integer operations.
enum IntStep {
    Arg,
    Int(i64),
    Call {
        f: IntDirect,
        args: Box<[IntStep; 2]>,
    },
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
    pub fn of(code: &[Node], sites: &[Site], id: NodeId, library: &Arc<Library>) -> Option<Kernel> {
        let mut k = Kernel {
            root: Step::Arg,
            ints: None,
            calls: 0,
            depth: 0,
            library: library.clone(),
            names: NameSets::default(),
            at: code[id as usize].at,
        };
        k.root = k.step(code, sites, id, 0)?;
        k.ints = IntStep::of(&k.root);
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
                let site = site(s)?;
                let direct = site.direct.clone()?;
                let [x, y] = a.pos.as_deref()? else {
                    return None;
                };
                self.names.push(site.name);
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
                let site = site(s)?;
                let direct = site.direct_key.clone()?;
                let Op::Keyword(key) = &code[*rhs as usize].op else {
                    return None;
                };
                self.names.push(site.name);
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

    /// The body on an integer argument by its integer form, when it has
    /// one and every call's integer body gives a result
    /// ([`IntOutcome::OTHER`] when not).
    #[inline]
    fn int_outcome(&self, arg: &Value) -> IntOutcome {
        match (&self.ints, arg) {
            (Some(ints), Value::Int(x)) => ints.run(*x),
            _ => IntOutcome::OTHER,
        }
    }
}

impl ArgKernel for Kernel {
    #[inline]
    fn ready(&self, ctx: &Context) -> Result<bool> {
        let rt = &ctx.rt;
        if rt.depth() + self.depth > rt.opts.max_depth
            || !ctx.sees_library_for_all(&self.names, &self.library)
        {
            return Ok(false);
        }
        match rt.run().charge(self.calls) {
            Ok(()) => Ok(true),
            Err(e) => Err(super::located_at(e, self.at)),
        }
    }

    #[inline]
    fn run(&self, arg: &Value) -> Option<Value> {
        match self.int_outcome(arg).value() {
            Some(v) => Some(v),
            None => self.root.run(arg),
        }
    }

    #[inline]
    fn test(&self, arg: &Value) -> Option<bool> {
        match self.int_outcome(arg).truthy() {
            Some(t) => Some(t),
            None => with(&self.root, arg, |v| Some(v.truthy())),
        }
    }
}

impl IntStep {
    /// The integer form of `s`: `$`, integer literals and calls with an
    /// integer body (which is set only where two integers pick it).
    fn of(s: &Step) -> Option<IntStep> {
        Some(match s {
            Step::Arg => IntStep::Arg,
            Step::Value(Scalar::Int(i)) => IntStep::Int(*i),
            Step::Call { site, args } => IntStep::Call {
                f: site.f.ints?,
                args: Box::new([IntStep::of(&args[0])?, IntStep::of(&args[1])?]),
            },
            _ => return None,
        })
    }

    /// The body on the integer `x`: [`IntOutcome::OTHER`] when a call
    /// needs the general body (an overflow, a zero divisor) or gives a
    /// boolean to another call (whose direct body does not take one).
    fn run(&self, x: i64) -> IntOutcome {
        let int = |s: &IntStep| match s {
            IntStep::Arg => Some(x),
            IntStep::Int(i) => Some(*i),
            _ => s.run(x).as_int(),
        };
        match self {
            IntStep::Arg => IntOutcome::int(x),
            IntStep::Int(i) => IntOutcome::int(*i),
            IntStep::Call { f, args } => match (int(&args[0]), int(&args[1])) {
                (Some(a), Some(b)) => f(a, b),
                _ => IntOutcome::OTHER,
            },
        }
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
