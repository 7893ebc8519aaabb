//! `system`: `->`, `.` fallbacks, `let`, `with`, `def`, `unpack`, `assert`,
//! `call`, delegates.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::{call_function, CallArg, Lambda};
use crate::func::context::Context;
use crate::func::{ArgValue, Form, FunctionDef};
use crate::value::{Callable, Value};
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
    r.f("#operator_->", "left:Context, right:Lambda", |_, a| {
        let Some(ctx) = Context::from_value(a.v(0)) else {
            return Err(Error::type_err("context expected"));
        };
        let lam = a
            .lam(1)
            .ok_or_else(|| Error::type_err("expression expected"))?;
        lam.eval_in(&ctx)
    });
    r.f("#operator_.", "obj:any, name:Keyword", |c, a| {
        let prop = format!("#property#{}", a.str(1));
        crate::eval::call_values(c.ctx, &prop, vec![a.v(0).clone()], false)
    });
    r.f("#operator_.", "obj:HostObject, name:Keyword", |c, a| {
        if let Value::Object(o) = a.v(0) {
            if let Some(r) = o.get_property(a.str(1)) {
                return r;
            }
        }
        let prop = format!("#property#{}", a.str(1));
        crate::eval::call_values(c.ctx, &prop, vec![a.v(0).clone()], false)
    });
    r.f("let", "*args:any, **kwargs:any", |c, a| {
        let ctx = c.ctx.child();
        for (i, v) in a.rest.iter().enumerate() {
            ctx.set(&(i + 1).to_string(), v.val().clone());
        }
        for (k, v) in &a.kw {
            ctx.set(k, v.val().clone());
        }
        Ok(Value::Context(ctx))
    });
    r.f("with", "*args:any", |c, a| {
        let ctx = c.ctx.child();
        for (i, v) in a.rest.iter().enumerate() {
            ctx.set(&(i + 1).to_string(), v.val().clone());
        }
        Ok(Value::Context(ctx))
    });
    r.f("def", "name:String, func:Lambda", |c, a| {
        let ctx = c.ctx.child();
        let lam = a
            .lam(1)
            .cloned()
            .ok_or_else(|| Error::type_err("body expected"))?;
        // The function lives in `ctx` and its body runs in `ctx`: holding the
        // context weakly keeps that cycle from leaking both.
        let home = Rc::downgrade(&ctx);
        let expr = lam.expr.clone();
        ctx.register(FunctionDef::new(
            a.str(0),
            Form::Function,
            "*args:any, **kwargs:any",
            move |_, a| {
                let ctx = home.upgrade().ok_or_else(|| {
                    Error::type_err("def() function called after its context ended")
                })?;
                let body = Lambda {
                    expr: expr.clone(),
                    ctx,
                };
                body.call_kw(&a.rest_values(), &kw_values(&a.kw))
            },
        ));
        Ok(Value::Context(ctx))
    });
    r.m("unpack", "sequence:Iterable, *args:String", |c, a| {
        let items = c.collect(a.v(0))?;
        let ctx = c.ctx.child();
        if a.rest.is_empty() {
            for (i, v) in items.into_iter().enumerate() {
                ctx.set(&(i + 1).to_string(), v);
            }
        } else {
            if a.rest.len() != items.len() {
                return Err(Error::value_err(format!(
                    "Cannot unpack {} elements into {}",
                    items.len(),
                    a.rest.len()
                )));
            }
            for (name, v) in a.rest.iter().zip(items) {
                ctx.set(name.str(), v);
            }
        }
        Ok(Value::Context(ctx))
    });
    r.m(
        "assert",
        "obj:any, condition:Lambda, message:String='Assertion failed'",
        |c, a| {
            let mut obj = a.v(0).clone();
            if let Value::Iter(_) = obj {
                obj = Value::list(c.collect(&obj)?);
            }
            let lam = a
                .lam(1)
                .ok_or_else(|| Error::type_err("condition expected"))?;
            if !lam.call1(obj.clone())?.truthy() {
                return Err(Error::new(ErrorKind::Assertion, a.str(2).to_string()));
            }
            Ok(obj)
        },
    );
}

/// `call` (by name), `#call` (`$f(args)`), `lambda`. Delegates are called
/// only through `#call`: the reference has no `call(callable, ...)`.
fn calls_and_lambdas(r: &Reg, opts: &EngineOptions) {
    r.f(
        "call",
        "name:String, args:Sequence, kwargs:Mapping, receiver:any=nv",
        |c, a| {
            let mut cargs = Vec::new();
            let method = !a.pos[3].is_missing();
            if method {
                cargs.push(CallArg::Val(a.v(3).clone()));
            }
            if let Value::List(l) = a.v(1) {
                cargs.extend(l.iter().cloned().map(CallArg::Val));
            }
            if let Value::Dict(d) = a.v(2) {
                for (k, v) in d.iter() {
                    if let Value::Str(k) = k {
                        if crate::stdlib::strings::is_identifier(k) {
                            cargs.push(CallArg::NamedValue(k.clone(), v.clone()));
                        }
                    }
                }
            }
            call_function(c.ctx, a.str(0), cargs, method)
        },
    );
    if opts.delegates {
        r.f("lambda", "func:Lambda", |_, a| {
            let lam = a
                .lam(0)
                .cloned()
                .ok_or_else(|| Error::type_err("expression expected"))?;
            Ok(Value::Func(Rc::new(lam)))
        });
    }
    r.f(
        "#call",
        "callable:Callable, *args:any, **kwargs:any",
        |_, a| {
            let Value::Func(f) = a.v(0) else {
                return Err(Error::type_err("not callable"));
            };
            call_callable(&**f, &a.rest_values(), &kw_values(&a.kw))
        },
    );
}
