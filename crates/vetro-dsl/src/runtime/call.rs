//! Method resolution, argument binding and invocation.

use super::exec::Flow;
use super::green;
use super::types::*;
use super::{Rt, StackEntry};

use crate::syntax::{ArgUsage, MethodDef, MethodUsage};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::{Context, Value};

pub use super::types::CallKind;

/// Most nested method calls of one flow. Deeper recursion, or recursion
/// that would run out of native stack first, ends with `RecursionError`.
const MAX_DEPTH: usize = 10_000;

impl Rt {
    /// Call `name` on an object or type value.
    pub fn call_method(
        &self,
        recv: &Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        kind: CallKind,
    ) -> Result<Value, Exc> {
        self.call_method_at(None, recv, name, args, kwargs, kind)
    }

    /// [`Rt::call_method`] for a call written in an expression evaluated
    /// in `site` (where a mock's `withOriginal()` evaluates).
    pub(super) fn call_method_at(
        &self,
        site: Option<&Rc<Context>>,
        recv: &Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        kind: CallKind,
    ) -> Result<Value, Exc> {
        if kind != CallKind::External {
            if let Some((o, _)) = as_object(recv) {
                if let Some(mock) = self.mocks.find(&o.class.name, name) {
                    return self.run_mock(mock, site, recv, name, args, kwargs);
                }
            }
        }
        self.call_unmocked(recv, name, args, kwargs, kind)
    }

    /// [`Rt::call_method`] past any mock (the mocked method itself).
    pub(crate) fn call_unmocked(
        &self,
        recv: &Value,
        name: &str,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        kind: CallKind,
    ) -> Result<Value, Exc> {
        if let Some(r) = super::reflect::as_reflect(recv) {
            return self.reflect_call(&r.r, name, args, kwargs);
        }
        let (obj, start) = if let Some((o, cast)) = as_object(recv) {
            let c = cast.unwrap_or_else(|| o.class.clone());
            (Some(o), c)
        } else if let Some(c) = as_type(recv) {
            (None, c)
        } else {
            return Err(Exc::engine(
                EngineExc::NoMethodRegisteredException,
                format!("Method \"{name}\" is not found"),
            ));
        };
        if let Some(o) = &obj {
            if o.destroyed.get() {
                return Err(Exc::engine(
                    EngineExc::ObjectDestroyedError,
                    format!("Object {} is already destroyed", o.id),
                ));
            }
        }
        let cands = start.methods_named(name);
        if cands.is_empty() {
            if let Some(r) = self.call_native_only(&start, obj.as_ref(), name, &args, &kwargs) {
                return r;
            }
            return Err(match kind {
                CallKind::External => Exc::engine(
                    EngineExc::NoMethodFound,
                    format!("Method \"{name}\" is not found in class {}", start.name),
                ),
                _ if obj.is_none() => Exc::engine(
                    EngineExc::NoMatchingMethodException,
                    format!("No method \"{name}\" in class {}", start.name),
                ),
                _ => Exc::engine(
                    EngineExc::NoMethodRegisteredException,
                    format!("Method \"{name}\" is not found"),
                ),
            });
        }
        if cands.len() > 1 {
            return Err(match kind {
                CallKind::External => Exc::engine(
                    EngineExc::AmbiguousMethodName,
                    format!("Ambiguous method name {name}"),
                ),
                _ => Exc::engine(EngineExc::RuntimeError, "No active exception to reraise"),
            });
        }
        let (decl, m) = (start.lineage_at(cands[0].0).clone(), &cands[0].1);
        if m.usage == MethodUsage::Extension && obj.is_some() && kind != CallKind::Extension {
            return Err(Exc::engine(
                EngineExc::NoMatchingMethodException,
                format!("Extension method {name} called as an instance method"),
            ));
        }
        let this = if m.is_static() {
            match &obj {
                Some(o) if kind == CallKind::Extension => {
                    let _ = o;
                    decl.type_value()
                }
                _ => decl.type_value(),
            }
        } else {
            match &obj {
                Some(o) => o.value(),
                None => {
                    return Err(Exc::engine(
                        EngineExc::DslInvalidOperationError,
                        format!("Instance method {name} called on a class"),
                    ))
                }
            }
        };
        if let Some(r) = self.call_native(&decl, &this, recv, name, &args, &kwargs) {
            return r;
        }
        self.loading.set_external_call(kind == CallKind::External);
        let r = self.invoke(&decl, m, this, obj, args, kwargs);
        self.loading.set_external_call(false);
        r
    }

    /// Run a resolved MuranoPL method.
    pub(crate) fn invoke(
        &self,
        decl: &Rc<Class>,
        m: &Arc<MethodDef>,
        this: Value,
        obj: Option<Rc<Object>>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
    ) -> Result<Value, Exc> {
        self.limits.charge_step()?;
        if self.frames.depth() >= MAX_DEPTH {
            return Err(recursion_error());
        }
        let external = self.loading.take_external_call();
        let ctx = self.program.frame_context(decl, &this);
        self.bind_arguments(decl, m, obj.as_ref(), &ctx, args, kwargs, external)?;
        self.frames.enter(
            StackEntry {
                class: decl.clone(),
                method: m.clone(),
                line: Cell::new(m.span.line),
                col: Cell::new(m.span.col),
                instr: RefCell::new(None),
            },
            obj.as_ref(),
            (ctx.clone(), decl.clone(), m.clone()),
        );
        let (lock, locked) = match green::sync_key(&self.limits, decl, m, &this, &ctx) {
            Ok(Some(key)) => {
                let locked = self.lock_sync(&key);
                (Some(key), locked)
            }
            Ok(None) => (None, Ok(())),
            Err(e) => (None, Err(e)),
        };
        let r = match locked {
            Ok(()) => {
                let r = match super::stack::with_room(|| self.exec_method_body(&m.body, &ctx, decl))
                {
                    Ok(r) => r,
                    Err(super::stack::NoRoom::Recursion) => Err(recursion_error()),
                    Err(super::stack::NoRoom::Memory) => {
                        Err(super::limits::SessionLimits::no_stack())
                    }
                };
                if let Some(key) = &lock {
                    self.scheduler.release(key);
                }
                r
            }
            Err(e) => Err(e),
        };
        self.frames.leave(obj.is_some());
        let v = match r? {
            Flow::Return(v) => v,
            Flow::Next => Value::Null,
            Flow::Break | Flow::Continue => {
                return Err(Exc::engine(
                    EngineExc::DslInvalidOperationError,
                    "Break cannot be used on method level",
                ))
            }
        };
        match &m.returns {
            Some(c) => self.check_contract(c, v, decl, obj.as_ref(), &|| {
                format!("{}::{}()", decl.name, m.name)
            }),
            None => Ok(v),
        }
    }

    /// Bind a call's arguments to the method's parameters in `ctx`, with
    /// defaults and contracts (`external`: the call came from outside).
    #[allow(clippy::too_many_arguments)]
    fn bind_arguments(
        &self,
        decl: &Rc<Class>,
        m: &MethodDef,
        obj: Option<&Rc<Object>>,
        ctx: &Rc<vetro_yaql::Context>,
        args: Vec<Value>,
        kwargs: Vec<(String, Value)>,
        external: bool,
    ) -> Result<(), Exc> {
        let no_match = || {
            Exc::engine(
                EngineExc::NoMatchingMethodException,
                format!(
                    "No method \"{}\" for receiver {} matches supplied arguments",
                    m.name, decl.name
                ),
            )
        };
        let is_std = |a: &&crate::syntax::ArgDef| a.usage == ArgUsage::Standard;
        let std_count = m.args.iter().filter(is_std).count();
        let varargs = m.args.iter().find(|a| a.usage == ArgUsage::VarArgs);
        let kwarg = m.args.iter().find(|a| a.usage == ArgUsage::KwArgs);
        if args.len() > std_count && varargs.is_none() {
            return Err(no_match());
        }
        // A name given twice (by position and by name, or twice by name),
        // or one no parameter takes, matches no method: refused before any
        // default or contract runs.
        for (i, (k, _)) in kwargs.iter().enumerate() {
            let twice = kwargs[..i].iter().any(|(earlier, _)| earlier == k);
            match m.args.iter().filter(is_std).position(|a| a.name == *k) {
                Some(p) if p < args.len() || twice => return Err(no_match()),
                Some(_) => {}
                None if kwarg.is_some() => {}
                None => return Err(no_match()),
            }
        }
        let mut positional = args.into_iter();
        let mut kwargs = kwargs;
        let label = |a: &str| format!("{}::{}({a})", decl.name, m.name);
        for a in m.args.iter().filter(is_std) {
            let given = match positional.next() {
                Some(v) => Some(v),
                None => kwargs
                    .iter()
                    .position(|(k, _)| *k == a.name)
                    .map(|i| kwargs.remove(i).1),
            };
            let v = match given {
                Some(v) => v,
                None => match &a.default {
                    Some(d) => self.eval_data(d, ctx, self.program.engine_for(decl))?,
                    // A missing argument is left to its contract.
                    None => Value::Null,
                },
            };
            let v = match &a.contract {
                Some(c) => {
                    self.loading.set_external_call(external);
                    let r = self.check_contract(c, v, decl, obj, &|| label(&a.name));
                    self.loading.set_external_call(false);
                    r?
                }
                None => v,
            };
            ctx.set(&a.name, v);
        }
        if let Some(va) = varargs {
            let mut items = Vec::with_capacity(positional.len());
            for v in positional {
                items.push(match &va.contract {
                    Some(c) => self.check_contract(c, v, decl, obj, &|| label(&va.name))?,
                    None => v,
                });
            }
            ctx.set(&va.name, Value::list(items));
        }
        if let Some(ka) = kwarg {
            let mut out = vetro_yaql::value::Dict::new();
            // What no parameter took, in the order given.
            for (k, v) in kwargs {
                let k = Value::str(&k);
                let v = match &ka.contract {
                    Some(c) => self.check_contract(c, v, decl, obj, &|| label(&ka.name))?,
                    None => v,
                };
                out.insert(k, v);
            }
            ctx.set(&ka.name, Value::dict(out));
        }
        Ok(())
    }

    /// The registered native method of `decl`, if one answers.
    fn call_native(
        &self,
        decl: &Rc<Class>,
        this: &Value,
        recv: &Value,
        name: &str,
        args: &[Value],
        kwargs: &[(String, Value)],
    ) -> Option<Result<Value, Exc>> {
        let natives = self.program.source().natives.at(decl.natives?);
        natives.call(&super::natives::NativeCall {
            rt: self,
            this,
            receiver: recv,
            method: name,
            args,
            kwargs,
        })
    }

    /// A native method that has no YAML declaration.
    fn call_native_only(
        &self,
        start: &Rc<Class>,
        obj: Option<&Rc<Object>>,
        name: &str,
        args: &[Value],
        kwargs: &[(String, Value)],
    ) -> Option<Result<Value, Exc>> {
        let recv = match obj {
            Some(o) => o.value(),
            None => start.type_value(),
        };
        for c in start.lineage() {
            let this = recv.clone();
            if let Some(r) = self.call_native(c, &this, &recv, name, args, kwargs) {
                return Some(r);
            }
        }
        None
    }
}

fn recursion_error() -> Exc {
    Exc::engine(
        EngineExc::RecursionError,
        "maximum recursion depth exceeded",
    )
}
