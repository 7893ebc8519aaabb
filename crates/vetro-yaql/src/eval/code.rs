//! The compiled form of an expression's tree, run without lookups: each
//! node names the call site the compile stage resolved (an index into the
//! compiled form's sites) and its arguments' nodes, and a variable `$n` is
//! a positional slot. Lambdas made from an argument node run that node.
//! What a node cannot decide alone (a context layer that redefines the
//! name, named arguments, a call the library lacks) goes the tree walk's
//! way, with the same results.

use super::node::{Node, NodeId, Op, VarRef};
use super::resolve::{call_args, call_code_args, direct_call_values, resolve_site, PosArg, PosVec};
use super::{compile::Compiled, located_at, ArgVec, CallArg};
use crate::error::Result;
use crate::func::context::{Context, CONTEXT_DOT};
use crate::value::Value;
use std::rc::Rc;

/// Run node `id` of `code` in `ctx` (whose runtime holds `code`).
pub(crate) fn run(code: &Compiled, id: NodeId, ctx: &Rc<Context>) -> Result<Value> {
    let node = code.node(id);
    match &node.op {
        Op::Const(_) | Op::Keyword(_) | Op::Var(_) => Ok(leaf(&node.op, ctx)),
        _ => {
            let rt = &ctx.rt;
            let depth = match rt.enter() {
                Ok(depth) => depth,
                Err(err) => return Err(located_at(err, node.at)),
            };
            // As the tree walk does: room on the stack every few levels.
            let r = if depth % 4 == 0 {
                rt.with_stack(|| run_call(code, node, ctx))
            } else {
                run_call(code, node, ctx)
            };
            rt.leave();
            r.map_err(|err| located_at(err, node.at))
        }
    }
}

fn run_call(code: &Compiled, node: &Node, ctx: &Rc<Context>) -> Result<Value> {
    match &node.op {
        Op::Call { name, site, args } => {
            let site = code.site_of(*site, ctx, name);
            match (site, &args.pos) {
                (Some(site), Some(pos)) => {
                    if let (Some(f), [a, b]) = (site.direct_lazy, &pos[..]) {
                        let x = run(code, *a, ctx)?;
                        return f(x, &mut || run(code, *b, ctx));
                    }
                    if let (Some(d), [a, b]) = (&site.direct, &pos[..]) {
                        let x = run(code, *a, ctx)?;
                        let y = run(code, *b, ctx)?;
                        if d.takes(&x, &y) {
                            return d.call(&x, &y);
                        }
                        return direct_call_values(ctx, name, site, x, y);
                    }
                    let pos = pos.iter().map(|i| arg_of(code, *i)).collect();
                    resolve_site(ctx, name, site, pos, false)
                }
                (_, Some(_)) => call_args(ctx, name, args.call_args(), false),
                (_, None) => call_code_args(ctx, name, None, args, |i| tree_of(code, i), false),
            }
        }
        Op::Method {
            recv,
            name,
            site,
            args,
            safe,
        } => {
            let r = run(code, *recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            if let Value::Object(o) = &r {
                if o.methods_first() {
                    if let Some(fallback) = ctx.method_fallback() {
                        return fallback(ctx, name, r, args.call_args().into_vec());
                    }
                }
            }
            if let Value::Context(_) = &r {
                if let Some(c2) = Context::from_value(&r) {
                    if ctx.has_function(CONTEXT_DOT) {
                        let recv = c2.get("1").unwrap_or(Value::Null);
                        let mut cargs = vec![CallArg::Val(recv)];
                        cargs.extend(args.call_args());
                        return super::call_function(&c2, name, cargs, true);
                    }
                }
            }
            if let (Some(site), Some(pos)) = (code.site_of(*site, ctx, name), &args.pos) {
                let mut p = PosVec::new();
                p.push(PosArg::Val(r));
                p.extend(pos.iter().map(|i| arg_of(code, *i)));
                return resolve_site(ctx, name, site, p, true);
            }
            if args.pos.is_none() {
                return call_code_args(ctx, name, Some(r), args, |i| tree_of(code, i), true);
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            cargs.extend(args.call_args());
            call_args(ctx, name, cargs, true)
        }
        Op::Dot {
            recv,
            rhs,
            site,
            safe,
        } => {
            let r = run(code, *recv, ctx)?;
            if *safe && r.is_null() {
                return Ok(Value::Null);
            }
            const DOT: &str = "#operator_.";
            let rhs_node = code.node(*rhs);
            if let Some(site) = code.site_of(*site, ctx, DOT) {
                if let (Some(d), Op::Keyword(k)) = (&site.direct_key, &rhs_node.op) {
                    if d.takes(&r) {
                        return (d.f)(&r, k);
                    }
                }
                let pos = [PosArg::Val(r), arg_of(code, *rhs)].into_iter().collect();
                return resolve_site(ctx, DOT, site, pos, false);
            }
            let mut cargs = ArgVec::new();
            cargs.push(CallArg::Val(r));
            if let Some(e) = &rhs_node.arc {
                cargs.push(CallArg::Expr(e));
            }
            call_args(ctx, DOT, cargs, false)
        }
        Op::Const(_) | Op::Keyword(_) | Op::Var(_) => Ok(leaf(&node.op, ctx)),
    }
}

/// The value of a constant or a variable.
#[inline]
fn leaf(op: &Op, ctx: &Context) -> Value {
    match op {
        Op::Const(crate::parser::Literal::Int(i)) => Value::Int(*i),
        Op::Const(l) => Value::from(l),
        Op::Keyword(k) => Value::str(k),
        Op::Var(VarRef::Arg(i)) => ctx.get_arg(*i).unwrap_or(Value::Null),
        Op::Var(VarRef::Named(n)) => ctx.get(n).unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

/// The tree of an argument node.
fn tree_of(code: &Compiled, id: NodeId) -> &std::sync::Arc<crate::parser::Expr> {
    code.node(id)
        .arc
        .as_ref()
        .expect("an argument node holds its tree")
}

/// A positional argument node as the resolver takes it (every argument
/// node holds its tree).
#[inline]
fn arg_of(code: &Compiled, id: NodeId) -> PosArg<'_> {
    match &code.node(id).arc {
        Some(e) => PosArg::Code(e, id),
        None => PosArg::Omitted,
    }
}
