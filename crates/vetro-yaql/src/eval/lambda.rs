//! Lambdas: unevaluated arguments with the context they are evaluated in.

use super::eval;
use crate::error::Result;
use crate::func::context::Context;
use crate::func::{ArgKernel, Lambda, LambdaBody};
use crate::parser::{Expr, ExprKind};
use crate::value::Value;
use std::rc::Rc;
use std::sync::Arc;

impl Lambda {
    /// The expression it evaluates.
    pub fn expr(&self) -> &Arc<Expr> {
        match &self.body {
            LambdaBody::Tree(e) => e,
            LambdaBody::Node { rt, id, .. } => super::compiled_in(rt)
                .and_then(|code| code.node(*id).arc.as_ref())
                .expect("a compiled lambda's node is an argument node of its runtime's code"),
        }
    }

    /// Evaluate with `$1..$n` bound to `args` (and `$` = `$1`) in a child context.
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        if args.is_empty() {
            return self.run(&self.ctx);
        }
        let ctx = self.scope();
        for (i, a) in args.iter().enumerate() {
            ctx.set_arg(i + 1, a.clone());
        }
        let r = self.run(&ctx);
        self.recycle(ctx);
        r
    }

    /// Call with one argument (the common case).
    pub fn call1(&self, arg: Value) -> Result<Value> {
        if let Some(k) = self.kernel()? {
            if let Some(v) = k.run(&arg) {
                return Ok(v);
            }
        }
        self.call1_scoped(arg)
    }

    /// [`Lambda::call1`] with an argument the caller keeps.
    pub fn call1_ref(&self, arg: &Value) -> Result<Value> {
        if let Some(k) = self.kernel()? {
            if let Some(v) = k.run(arg) {
                return Ok(v);
            }
        }
        self.call1_scoped(arg.clone())
    }

    /// Whether the value of a call with one argument the caller keeps is
    /// true (a predicate).
    pub fn test(&self, arg: &Value) -> Result<bool> {
        if let Some(k) = self.kernel()? {
            if let Some(t) = k.test(arg) {
                return Ok(t);
            }
        }
        Ok(self.call1_scoped(arg.clone())?.truthy())
    }

    fn call1_scoped(&self, arg: Value) -> Result<Value> {
        let ctx = self.scope();
        ctx.set_arg(1, arg);
        let r = self.run(&ctx);
        self.recycle(ctx);
        r
    }

    /// The body's kernel (see `kernel.rs`), when it has one and may run
    /// now (its calls then counted as the code's are).
    #[inline]
    fn kernel(&self) -> Result<Option<&dyn ArgKernel>> {
        let LambdaBody::Node {
            kernel: Some(k), ..
        } = &self.body
        else {
            return Ok(None);
        };
        // SAFETY: the kernel is part of the compiled form that the body's
        // runtime holds (through an `Arc` set when the runtime was made and
        // never replaced); the compiled form does not change once built,
        // and the body keeps the runtime alive as long as `self`.
        let k = unsafe { k.as_ref() };
        Ok(if k.ready(&self.ctx)? { Some(k) } else { None })
    }

    /// Evaluate in `ctx`, its own context or a scope below it (same
    /// runtime): through its compiled node when it has one.
    #[inline]
    fn run(&self, ctx: &Rc<Context>) -> Result<Value> {
        if let LambdaBody::Node { rt, id, .. } = &self.body {
            if let Some(code) = super::compiled_in(rt) {
                return super::code::run(code, *id, ctx);
            }
        }
        self.walk(ctx)
    }

    /// Evaluate by walking its tree.
    #[cold]
    fn walk(&self, ctx: &Rc<Context>) -> Result<Value> {
        eval(self.expr(), ctx)
    }

    /// A fresh child scope of the lambda's context for one call: the last
    /// call's when it could be kept.
    fn scope(&self) -> Rc<Context> {
        self.spare.0.take().unwrap_or_else(|| self.ctx.child())
    }

    /// Keep a call's scope for the next call when nothing made during the
    /// call holds it (a lazy sequence, a returned context).
    fn recycle(&self, ctx: Rc<Context>) {
        if Rc::strong_count(&ctx) == 1 && Rc::weak_count(&ctx) == 0 && ctx.clear_for_reuse() {
            self.spare.0.set(Some(ctx));
        }
    }

    /// Call with positional and named arguments.
    pub fn call_kw(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
        let ctx = self.ctx.child();
        for (i, a) in args.iter().enumerate() {
            ctx.set_arg(i + 1, a.clone());
        }
        for (k, v) in kw {
            ctx.set(k, v.clone());
        }
        self.run(&ctx)
    }

    /// Evaluate as is, in its own context.
    pub fn eval(&self) -> Result<Value> {
        self.run(&self.ctx)
    }

    /// Evaluate in another context.
    pub fn eval_in(&self, ctx: &Rc<Context>) -> Result<Value> {
        if Rc::ptr_eq(&ctx.rt, &self.ctx.rt) {
            return self.run(ctx);
        }
        eval(self.expr(), ctx)
    }

    /// A lambda over a plain value (for calls made with values): it reads
    /// a variable no expression can name, bound in a child context.
    pub fn constant(v: Value, ctx: &Rc<Context>) -> Lambda {
        const NAME: &str = "\u{0}value";
        let c = ctx.child();
        c.set(NAME, v);
        Lambda::new(Arc::new(Expr::detached(ExprKind::Var(Arc::from(NAME)))), c)
    }
}

impl crate::value::Callable for Lambda {
    fn call(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
        self.call_kw(args, kw)
    }
}
