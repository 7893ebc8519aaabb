//! The mocking functions of test sessions:
//!
//! - `inject(target, method, mockObject, mockName)`: calls of `method` on
//!   objects of the target's class run `mockName` of the calling class on
//!   `mockObject` instead;
//! - `inject(target, method, expr)`: they evaluate `expr` where `inject` was
//!   called (`$` is the caller's `$this`, the call's arguments follow);
//! - `originalMethod()`, inside such an expression: the replaced call;
//! - `withOriginal(name => expr, ...)`, inside such an expression: a
//!   context with each `$name` bound to its `expr` evaluated where the
//!   replaced call was made (its variables, `$this`), for `->`:
//!   `inject(sys:Agent, call, withOriginal(t => $template) -> $t.Name)`.
//!
//! The target is a class or an object (which stands for its class).

use crate::engine_fn;
use crate::runtime::mocks::Mock;
use crate::runtime::reg::{Obj, TypeOrObj};
use crate::runtime::types::EngineExc;
use crate::runtime::types::{CallKind, Class, Exc};
use crate::runtime::Rt;
use std::rc::Rc;
use vetro_yaql::func::params::LazyKwArgs;
use vetro_yaql::{Call, Lambda, Value};

pub(crate) fn register(rt: &Rc<Rt>) {
    rt.define_function(engine_fn!(Function "inject", |rt, c| (
        target: TypeOrObj,
        targetMethod: &str,
        mockObject: Obj,
        mockName: &str,
    ) {
        let (scope, _) = Rt::frame_of(c.ctx).ok_or_else(outside_method)?;
        let class = target_class(rt, c, target.0, targetMethod)?;
        let (decl, method) = single_method(&scope, mockName)?;
        let this = mockObject.object;
        rt.inject_mock(&class.name, targetMethod, Mock::Method { this, decl, method });
        Ok(Value::Null)
    }));
    rt.define_function(engine_fn!(Function "inject", |rt, c| (
        target: TypeOrObj,
        targetMethod: &str,
        expr: &Lambda,
    ) {
        let (_, this) = Rt::frame_of(c.ctx).ok_or_else(outside_method)?;
        let class = target_class(rt, c, target.0, targetMethod)?;
        let expr = expr.clone();
        rt.inject_mock(&class.name, targetMethod, Mock::Expr { this, expr });
        Ok(Value::Null)
    }));
    rt.define_function(engine_fn!(Function "originalMethod", |rt, _c| () {
        let Some(r) = rt.replaced_call() else {
            return Err(Exc::engine(
                EngineExc::RuntimeError,
                "originalMethod() is only defined inside a mock expression",
            ));
        };
        rt.call_unmocked(&r.recv, &r.method, r.args, r.kwargs, CallKind::Expression)
    }));
    rt.define_function(
        engine_fn!(Function "withOriginal", |rt, c| (values: LazyKwArgs) {
            let Some(r) = rt.replaced_call() else {
                return Err(Exc::engine(
                    EngineExc::RuntimeError,
                    "withOriginal() is only defined inside a mock expression",
                ));
            };
            let ctx = c.ctx.child();
            for (name, expr) in values.iter() {
                let Some(expr) = expr else { continue };
                ctx.set(name, expr.eval_in(&r.site).map_err(|e| rt.unsmuggle(e))?);
            }
            Ok(Value::Context(ctx))
        }),
    );
}

fn outside_method() -> Exc {
    Exc::engine(
        EngineExc::RuntimeError,
        "inject() is only defined inside a method",
    )
}

/// The class a mock is for; the mocked method must exist there.
fn target_class(rt: &Rt, c: &Call, target: &Value, method: &str) -> Result<Rc<Class>, Exc> {
    let (scope, _) = Rt::frame_of(c.ctx).ok_or_else(outside_method)?;
    let class = rt.type_arg(&scope, target)?;
    single_method(&class, method)?;
    Ok(class)
}

fn single_method(
    class: &Rc<Class>,
    name: &str,
) -> Result<(Rc<Class>, std::sync::Arc<crate::syntax::MethodDef>), Exc> {
    let mut found = class.find_methods(name);
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Exc::engine(
            EngineExc::NoMethodFound,
            format!("Method \"{name}\" is not found in class {}", class.name),
        )),
        _ => Err(Exc::engine(
            EngineExc::AmbiguousMethodName,
            format!("Ambiguous method name {name} in class {}", class.name),
        )),
    }
}
