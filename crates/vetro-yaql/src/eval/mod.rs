//! The evaluator: the tree walk over expressions. Overload resolution is in
//! `resolve.rs`, lambdas in `lambda.rs`, options and per-evaluation state in
//! the crate's `runtime.rs`, output conversion in `output.rs`.

mod code;
mod compile;
mod kernel;
mod lambda;
mod node;
mod output;
mod resolve;
mod site;

pub use crate::func::{CallArg, Lambda};
pub use crate::runtime::{approx_size, Options, OutputMemo, Runtime};
pub use compile::Compiled;
pub use output::finalize;

use crate::error::{Error, Result};
use crate::func::context::Context;
use crate::parser::{Arg, Expr, ExprKind};
use crate::value::Value;
use resolve::{call_args, direct_call, site_call};
use smallvec::SmallVec;
use std::rc::Rc;
use std::sync::Arc;

type ArgVec<'a> = SmallVec<[CallArg<'a>; 4]>;

/// Evaluate an expression in a context.
///
/// An error raised without a position gets the position of the innermost
/// node that failed ([`Expr::position`]: a call's name, an operator...).
pub fn eval(e: &Expr, ctx: &Rc<Context>) -> Result<Value> {
    match &e.kind {
        ExprKind::Const(l) => Ok(Value::from(l)),
        ExprKind::Keyword(k) => Ok(Value::str(k)),
        ExprKind::Var(name) => Ok(ctx.get(name).unwrap_or(Value::Null)),
        _ => {
            let rt = &ctx.rt;
            let depth = match rt.enter() {
                Ok(depth) => depth,
                Err(err) => return Err(located(err, e)),
            };
            // Grow the stack on demand so deep expressions hit the recursion
            // limit instead of overflowing whatever thread the host uses.
            // Looked at every few levels: a level takes a few kilobytes at
            // most, far less than the margin asked for.
            let r = if depth % 4 == 0 {
                rt.with_stack(|| eval_call(e, ctx))
            } else {
                eval_call(e, ctx)
            };
            rt.leave();
            r.map_err(|err| located(err, e))
        }
    }
}

/// Evaluate an expression's tree: with its compiled code when the
/// evaluation's runtime holds the compiled form of that tree.
pub fn eval_root(root: &Arc<Expr>, ctx: &Rc<Context>) -> Result<Value> {
    match compiled(ctx) {
        Some(c) if Arc::ptr_eq(c.tree(), root) => code::run(c, c.root_node(), ctx),
        _ => eval(root, ctx),
    }
}

/// Run node `id` of the compiled form `ctx`'s evaluation holds (the tree
/// `e` without one).
#[inline]
fn run_node(e: &Expr, id: node::NodeId, ctx: &Rc<Context>) -> Result<Value> {
    match compiled(ctx) {
        Some(code) => code::run(code, id, ctx),
        None => eval(e, ctx),
    }
}

/// The compiled form of the expression `ctx`'s evaluation runs, if any.
#[inline]
pub(crate) fn compiled(ctx: &Context) -> Option<&compile::Compiled> {
    compiled_in(&ctx.rt)
}

/// The compiled form runtime `rt` evaluates, if any.
#[inline]
pub(crate) fn compiled_in(rt: &crate::runtime::Runtime) -> Option<&compile::Compiled> {
    rt.compiled()?.downcast_ref::<compile::Compiled>()
}

/// The error with the node's position, unless an inner node gave it one.
#[cold]
fn located(err: Error, e: &Expr) -> Error {
    located_at(err, e.position())
}

/// The error with position `at`, unless an inner node gave it one.
#[cold]
fn located_at(mut err: Error, at: usize) -> Error {
    if err.position.is_none() {
        err.position = Some(at);
    }
    err
}

fn eval_call(e: &Expr, ctx: &Rc<Context>) -> Result<Value> {
    match &e.kind {
        ExprKind::Call { name, args, .. } => match compiled_site(ctx, e, name) {
            Some(site) => match (&site.direct, site.direct_lazy, &args[..]) {
                (_, Some(f), [Arg::Pos(a), Arg::Pos(b)]) => f(eval(a, ctx)?, &mut || eval(b, ctx)),
                (Some(d), _, [Arg::Pos(a), Arg::Pos(b)]) => direct_call(ctx, name, site, d, a, b),
                _ => site_call(ctx, name, site, None, positional(args), false),
            },
            None => {
                let cargs: ArgVec = args.iter().map(CallArg::from_arg).collect();
                call_args(ctx, name, cargs, false)
            }
        },
        ExprKind::Method {
            recv,
            name,
            args,
            safe,
            ..
        } => {
            let r = eval(recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            if let Value::Object(o) = &r {
                if o.methods_first() {
                    if let Some(fallback) = ctx.method_fallback() {
                        let cargs = args.iter().map(CallArg::from_arg).collect();
                        return fallback(ctx, name, r, cargs);
                    }
                }
            }
            if let Some(c2) = Context::from_value(&r) {
                if ctx.has_function(crate::func::context::CONTEXT_DOT) {
                    let recv = c2.get("1").unwrap_or(Value::Null);
                    let mut cargs = vec![CallArg::Val(recv)];
                    cargs.extend(args.iter().map(CallArg::from_arg));
                    return call_function(&c2, name, cargs, true);
                }
            }
            if let Some(site) = compiled_site(ctx, e, name) {
                return site_call(ctx, name, site, Some(r), positional(args), true);
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            cargs.extend(args.iter().map(CallArg::from_arg));
            call_args(ctx, name, cargs, true)
        }
        ExprKind::Dot {
            recv, rhs, safe, ..
        } => {
            let r = eval(recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            const DOT: &str = "#operator_.";
            if let Some(site) = compiled_site(ctx, e, DOT) {
                if let (Some(d), ExprKind::Keyword(k)) = (&site.direct_key, &rhs.kind) {
                    if d.takes(&r) {
                        return (d.f)(&r, k);
                    }
                }
                return site_call(ctx, DOT, site, Some(r), std::iter::once(rhs), false);
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            cargs.push(CallArg::Expr(rhs));
            call_args(ctx, DOT, cargs, false)
        }
        ExprKind::Wrap(inner) => eval(inner, ctx),
        _ => eval(e, ctx),
    }
}

/// The compiled call site of `e`, when the evaluation has its expression's
/// compiled form and no context layer redefines `name`.
#[inline]
fn compiled_site<'a>(ctx: &'a Context, e: &Expr, name: &str) -> Option<&'a site::Site> {
    let compiled = compiled(ctx)?;
    let site = compiled.site(e)?;
    ctx.sees_library_for(name, site.name, compiled.library())
        .then_some(site)
}

/// The expressions of positional arguments (a compiled site has no other).
fn positional(args: &[crate::parser::Arg]) -> impl Iterator<Item = &Arc<Expr>> {
    args.iter().filter_map(|a| match a {
        crate::parser::Arg::Pos(e) => Some(e),
        _ => None,
    })
}

/// A callable value naming a function, looked up in a context when called
/// (keyword arguments are passed by name).
pub struct NamedFunction {
    pub name: Rc<str>,
    pub ctx: Rc<Context>,
}

impl crate::value::Callable for NamedFunction {
    fn call(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
        let mut cargs: Vec<CallArg> = args.iter().cloned().map(CallArg::Val).collect();
        for (k, v) in kw {
            cargs.push(CallArg::NamedValue(k.clone(), v.clone()));
        }
        call_function(&self.ctx, &self.name, cargs, false)
    }
}

/// The value of a constant node (a literal or a bare word).
pub fn const_value(e: &Expr) -> Option<Value> {
    match &e.kind {
        ExprKind::Const(l) => Some(Value::from(l)),
        ExprKind::Keyword(k) => Some(Value::str(k)),
        _ => None,
    }
}

impl crate::func::Call<'_> {
    /// Call another function by name with evaluated arguments.
    pub fn call(&self, name: &str, args: Vec<Value>) -> Result<Value> {
        call_values(self.ctx, name, args, false)
    }
}

/// Call a function by name with evaluated positional values.
pub fn call_values(ctx: &Rc<Context>, name: &str, args: Vec<Value>, method: bool) -> Result<Value> {
    call_function(
        ctx,
        name,
        args.into_iter().map(CallArg::Val).collect(),
        method,
    )
}

/// Resolve and call `name` with unevaluated arguments (`method`: receiver first).
pub fn call_function(
    ctx: &Rc<Context>,
    name: &str,
    args: Vec<CallArg>,
    method: bool,
) -> Result<Value> {
    call_args(ctx, name, SmallVec::from_vec(args), method)
}
