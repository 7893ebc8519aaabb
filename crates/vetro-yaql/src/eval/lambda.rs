//! Lambdas: unevaluated arguments with the context they are evaluated in.

use super::eval;
use crate::error::Result;
use crate::func::context::Context;
use crate::func::Lambda;
use crate::parser::{Expr, ExprKind};
use crate::value::Value;
use std::rc::Rc;
use std::sync::Arc;

impl Lambda {
    /// Evaluate with `$1..$n` bound to `args` (and `$` = `$1`) in a child context.
    pub fn call(&self, args: &[Value]) -> Result<Value> {
        if args.is_empty() {
            return eval(&self.expr, &self.ctx);
        }
        let ctx = self.ctx.child();
        for (i, a) in args.iter().enumerate() {
            ctx.set_arg(i + 1, a.clone());
        }
        eval(&self.expr, &ctx)
    }

    /// Call with one argument (the common case).
    pub fn call1(&self, arg: Value) -> Result<Value> {
        let ctx = self.ctx.child();
        ctx.set_arg(1, arg);
        eval(&self.expr, &ctx)
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
        eval(&self.expr, &ctx)
    }

    /// Evaluate as is, in its own context.
    pub fn eval(&self) -> Result<Value> {
        eval(&self.expr, &self.ctx)
    }

    /// Evaluate in another context.
    pub fn eval_in(&self, ctx: &Rc<Context>) -> Result<Value> {
        eval(&self.expr, ctx)
    }

    /// A lambda over a plain value (for calls made with values): it reads
    /// a variable no expression can name, bound in a child context.
    pub fn constant(v: Value, ctx: &Rc<Context>) -> Lambda {
        const NAME: &str = "\u{0}value";
        let c = ctx.child();
        c.set(NAME, v);
        Lambda {
            expr: Arc::new(Expr::detached(ExprKind::Var(Arc::from(NAME)))),
            ctx: c,
        }
    }
}

impl crate::value::Callable for Lambda {
    fn call(&self, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
        self.call_kw(args, kw)
    }
}
