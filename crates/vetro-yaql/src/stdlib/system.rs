//! `system`: `->`, `.` fallbacks, `let`, `with`, `def`, `unpack`, `assert`,
//! `call`, delegates.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::{call_function, CallArg, Lambda};
use crate::func::context::Context;
use crate::func::params::{
    Callable as CallableArg, ContextArg, HostObjectArg, Iterable, Keyword, KwArgs, Optional, Rest,
};
use crate::func::{ArgValue, Call};
use crate::value::{Callable, Dict, List, Value};
use crate::yaql_fn;
use crate::EngineOptions;
use std::rc::Rc;

/// Call a callable value (a delegate) with arguments.
pub fn call_callable(f: &dyn Callable, args: &[Value], kw: &[(Rc<str>, Value)]) -> Result<Value> {
    f.call(args, kw)
}

fn kw_values(kw: &[(Rc<str>, ArgValue)]) -> Vec<(Rc<str>, Value)> {
    kw.iter()
        .map(|(k, v)| (k.clone(), v.val().clone()))
        .collect()
}

pub fn register(r: &Reg, opts: &EngineOptions) {
    scoping_and_access(r);
    calls_and_lambdas(r, opts);
}

/// Attribute access, `->`, `let`, `with`, `def`, `unpack`, `assert`.
fn scoping_and_access(r: &Reg) {
    r.add_def(yaql_fn!(Function "#operator_->", |_c| (left: ContextArg, right: &Lambda) {
        let ctx = Context::from_value(&left).ok_or_else(|| Error::type_err("context expected"))?;
        right.eval_in(&ctx)
    }));
    r.add_def(
        yaql_fn!(Function "#operator_.", |c| (obj: &Value, name: Keyword) {
            property(c, obj, name.0)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_.", |c| (obj: HostObjectArg, name: Keyword) {
            if let Value::Object(o) = obj.0 {
                if let Some(r) = o.get_property(name.0) {
                    return r;
                }
            }
            property(c, &obj, name.0)
        }),
    );
    r.add_def(
        yaql_fn!(Function "let", |c| (args: Rest<&Value>, kwargs: KwArgs) {
            let ctx = with_args(c, &args.0);
            for (k, v) in kwargs.0 {
                ctx.set(k, v.val().clone());
            }
            Ok(Value::Context(ctx))
        }),
    );
    r.add_def(yaql_fn!(Function "with", |c| (args: Rest<&Value>) {
        Ok(Value::Context(with_args(c, &args.0)))
    }));
    r.add_def(yaql_fn!(Function "def", |c| (name: &str, func: &Lambda) { Ok(def(c, name, func)) }));
    r.add_def(
        yaql_fn!(Method "unpack", |c| (sequence: Iterable, args: Rest<&str>) {
            let items = sequence.collect(c)?;
            let ctx = c.ctx.child();
            if args.0.is_empty() {
                for (i, v) in items.into_iter().enumerate() {
                    ctx.set(&(i + 1).to_string(), v);
                }
            } else {
                if args.0.len() != items.len() {
                    return Err(Error::value_err(format!(
                        "Cannot unpack {} elements into {}",
                        items.len(),
                        args.0.len()
                    )));
                }
                for (name, v) in args.0.iter().zip(items) {
                    ctx.set(name, v);
                }
            }
            Ok(Value::Context(ctx))
        }),
    );
    r.add_def(yaql_fn!(Method "assert", |c| (obj: &Value, condition: &Lambda, message: &str = "Assertion failed") {
        let obj = match obj {
            Value::Iter(_) => Value::list(c.collect(obj)?),
            _ => obj.clone(),
        };
        if !condition.test(&obj)? {
            return Err(Error::new(ErrorKind::Assertion, message.to_string()));
        }
        Ok(obj)
    }));
}

/// `obj.name` through the `#property#name` functions.
fn property(c: &Call, obj: &Value, name: &str) -> Result<Value> {
    let prop = format!("#property#{name}");
    crate::eval::call_values(c.ctx, &prop, vec![obj.clone()], false)
}

/// A child context with the arguments as `$1`, `$2`...
fn with_args(c: &Call, args: &[&Value]) -> Rc<Context> {
    let ctx = c.ctx.child();
    for (i, v) in args.iter().enumerate() {
        ctx.set(&(i + 1).to_string(), (*v).clone());
    }
    ctx
}

/// `def(name, body)`: a child context holding the function `name`.
fn def(c: &Call, name: &str, func: &Lambda) -> Value {
    let ctx = c.ctx.child();
    // The function lives in `ctx` and its body runs in `ctx`: holding the
    // context weakly keeps that cycle from leaking both.
    let home = Rc::downgrade(&ctx);
    let expr = func.expr().clone();
    let f = yaql_fn!(Function name, |_c| (args: Rest<Value>, kwargs: KwArgs) {
        let ctx = home
            .upgrade()
            .ok_or_else(|| Error::type_err("def() function called after its context ended"))?;
        let body = Lambda::new(expr.clone(), ctx);
        body.call_kw(&args.0, &kw_values(kwargs.0))
    });
    ctx.register(f);
    Value::Context(ctx)
}

/// `call` (by name), `#call` (`$f(args)`), `lambda`. Delegates are called
/// only through `#call`: the reference has no `call(callable, ...)`.
fn calls_and_lambdas(r: &Reg, opts: &EngineOptions) {
    r.add_def(yaql_fn!(Function "call", |c| (
        name: &str,
        args: &List,
        kwargs: &Dict,
        receiver: Optional<&Value> = NoValue,
    ) {
        let mut cargs = Vec::new();
        let method = receiver.0.is_some();
        if let Some(v) = receiver.0 {
            cargs.push(CallArg::Val(v.clone()));
        }
        cargs.extend(args.iter().cloned().map(CallArg::Val));
        for (k, v) in kwargs.iter() {
            if let Value::Str(k) = k {
                if crate::stdlib::strings::is_identifier(k) {
                    cargs.push(CallArg::NamedValue(k.to_rc(), v.clone()));
                }
            }
        }
        call_function(c.ctx, name, cargs, method)
    }));
    if opts.delegates {
        r.add_def(yaql_fn!(Function "lambda", |_c| (func: &Lambda) {
            Ok(Value::Func(Rc::new(func.clone())))
        }));
    }
    r.add_def(yaql_fn!(Function "#call", |_c| (callable: CallableArg, args: Rest<&Value>, kwargs: KwArgs) {
        let Value::Func(f) = callable.0 else {
            return Err(Error::type_err("not callable"));
        };
        let args: Vec<Value> = args.0.into_iter().cloned().collect();
        call_callable(&**f, &args, &kw_values(kwargs.0))
    }));
}
