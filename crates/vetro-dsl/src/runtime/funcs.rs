//! Engine functions of a class set's engines: method dispatchers,
//! property access, the `:` operator, `new()`, `id()`, `type()`, ...
//! (each one Rust function with typed parameters, see `reg.rs`); and
//! [`Rt::define_function`] for an embedder's own functions.

use super::call::CallKind;
use super::reg::{Obj, Reg, TypeRef};
use super::types::*;
use super::{ClassSource, Rt};
use crate::engine_fn;
use crate::syntax::MethodUsage;
use std::collections::BTreeSet;
use std::rc::Rc;
use vetro_yaql::func::params::{HostObjectArg, Keyword, KwArgs, Rest};
use vetro_yaql::func::FnDef;
use vetro_yaql::value::Dict;
use vetro_yaql::{Args, Call, Lambda, Value};

impl Rt {
    /// Register a YAQL function for this session (an embedder's or a test
    /// harness's own functions; a session hook is the place to call it),
    /// built with [`engine_fn!`](crate::engine_fn): its body runs against
    /// the session, and an `Exc` it returns is raised as that MuranoPL
    /// exception.
    pub fn define_function<F>(&self, def: FnDef<F>)
    where
        F: Fn(&Call, Args) -> vetro_yaql::Result<Value> + 'static,
    {
        self.program.register_host(def.into());
    }
}

fn kwargs_of(kw: &KwArgs) -> Vec<(String, Value)> {
    kw.0.iter()
        .map(|(k, v)| (k.to_string(), v.val().clone()))
        .collect()
}

fn caller(c: &Call) -> Option<Rc<Class>> {
    Rt::frame_of(c.ctx).map(|(cl, _)| cl)
}

fn scope(rt: &Rt, c: &Call) -> Result<Rc<Class>, Exc> {
    match caller(c) {
        Some(cl) => Ok(cl),
        None => rt.program.class("io.murano.Object"),
    }
}

/// The class a type argument names, seen from the calling class.
fn type_of(rt: &Rt, c: &Call, t: &TypeRef) -> Result<Rc<Class>, Exc> {
    rt.program.type_arg(&*scope(rt, c)?, t.0)
}

/// Find an extension method `name` visible from `scope` (its imports, itself).
fn find_extension(rt: &Rt, scope: &Rc<Class>, name: &str) -> Option<Rc<Class>> {
    let mut cands = scope.mro();
    for imp in &scope.def.import {
        if let Ok(c) = rt.program.resolve_type(scope, imp) {
            cands.push(c);
        }
    }
    for c in cands {
        if let Some(m) = c.def.methods.get(name) {
            if m.usage == MethodUsage::Extension {
                return Some(c);
            }
        }
        if rt.program.source().natives.has_extension(&c.name, name) {
            return Some(c);
        }
    }
    None
}

fn call_extension(
    rt: &Rt,
    c: &Call,
    name: &str,
    recv: Value,
    args: Vec<Value>,
    kwargs: &KwArgs,
) -> Result<Option<Value>, Exc> {
    let sc = scope(rt, c)?;
    let Some(ext) = find_extension(rt, &sc, name) else {
        return Ok(None);
    };
    let mut all = vec![recv];
    all.extend(args);
    rt.call_method(
        &ext.type_value(),
        name,
        all,
        kwargs_of(kwargs),
        CallKind::Extension,
    )
    .map(Some)
}

/// Register the engine functions of a class set.
pub(super) fn register_all(r: &mut Reg, source: &ClassSource) {
    register_dispatchers(r, source);
    register_object_functions(r);
    register_new(r);
    register_type_functions(r);
    register_session_functions(r);
}

/// The method names of a class set: every method any class defines, and
/// those of them that are extension methods.
fn method_names(source: &ClassSource) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut names = BTreeSet::new();
    let mut ext_names = BTreeSet::new();
    for (def, _) in source.defs.values() {
        for (n, m) in &def.methods {
            names.insert(n.clone());
            if m.usage == MethodUsage::Extension {
                ext_names.insert(n.clone());
            }
        }
    }
    for n in source.natives.undeclared_methods() {
        names.insert(n.to_string());
    }
    for n in ["getValue", "setValue", "invoke", "ancestors"] {
        names.insert(n.to_string());
    }
    for n in source.natives.extension_names() {
        ext_names.insert(n.to_string());
    }
    (names, ext_names)
}

/// YAQL method dispatchers for every method name the classes define.
fn register_dispatchers(r: &mut Reg, source: &ClassSource) {
    let (names, ext_names) = method_names(source);
    let library = r.legacy_library();
    for name in &names {
        let lazy_clash = library
            .candidates(name, true)
            .iter()
            .flatten()
            .any(|f| f.params.iter().any(|p| p.ty.is_lazy()));
        if lazy_clash {
            continue;
        }
        let n = name.clone();
        r.add(engine_fn!(Method name.as_str(), |rt, c| (
            recv: HostObjectArg,
            args: Rest<Value>,
            kwargs: KwArgs,
        ) {
            let recv = recv.0.clone();
            let r = rt.call_method_at(
                Some(c.ctx),
                &recv,
                &n,
                args.0.clone(),
                kwargs_of(&kwargs),
                CallKind::Expression,
            );
            match r {
                Err(Exc::Native(e, _)) if e.class == EngineExc::NoMethodRegisteredException => {
                    match call_extension(rt, c, &n, recv, args.0, &kwargs)? {
                        Some(v) => Ok(v),
                        None => Err(Exc::Native(e, Default::default())),
                    }
                }
                other => other,
            }
        }));
    }
    for name in &ext_names {
        let n = name.clone();
        r.add(engine_fn!(Method name.as_str(), |rt, c| (
            recv: Value,
            args: Rest<Value>,
            kwargs: KwArgs,
        ) {
            if as_type(&recv).is_some() {
                // `:Ext.ext(value)`: an explicit static call.
                return rt.call_method(
                    &recv,
                    &n,
                    args.0,
                    kwargs_of(&kwargs),
                    CallKind::Expression,
                );
            }
            match call_extension(rt, c, &n, recv, args.0, &kwargs)? {
                Some(v) => Ok(v),
                None => Err(Exc::engine(
                    EngineExc::NoMethodRegisteredException,
                    format!("Unknown method \"{n}\""),
                )),
            }
        }));
    }
}

/// Property access, the `:` and `is` operators, `id()`, `name()`,
/// `metadata()`, `cast()`.
fn register_object_functions(r: &mut Reg) {
    r.add(
        engine_fn!(Function "#operator_.", |rt, c| (obj: HostObjectArg, name: Keyword) {
            rt.get_property(obj.0, name.0, caller(c).as_ref())
        }),
    );
    // `ns:Name`, or `:Name` (the class's own namespace) without `ns`.
    fn colon(rt: &Rt, c: &Call, ns: &str, name: &str) -> Result<Value, Exc> {
        let sc = scope(rt, c)?;
        Ok(rt
            .program
            .resolve_type(&sc, &format!("{ns}:{name}"))?
            .type_value())
    }
    r.add(
        engine_fn!(Function "#operator_:", |rt, c| (ns: Keyword, name: Keyword) {
            colon(rt, c, ns.0, name.0)
        }),
    );
    r.add(
        engine_fn!(Function "#unary_operator_:", |rt, c| (name: Keyword) {
            colon(rt, c, "", name.0)
        }),
    );
    r.add(
        engine_fn!(Function "#operator_is", |rt, c| (obj: Option<Obj>, type_: TypeRef) {
            let t = type_of(rt, c, &type_)?;
            Ok(obj.is_some_and(|o| o.object.class.is_a(&t.name)))
        }),
    );
    r.add(engine_fn!(Both "id", |_rt, _c| (object: Obj) {
        Ok(Value::str(&object.object.id))
    }));
    r.add(engine_fn!(Both "name", |_rt, _c| (object: Option<Obj>) {
        Ok(object.map_or(Value::Null, |o| o.object.name.borrow().clone()))
    }));
    r.add(engine_fn!(Both "metadata", |_rt, _c| (object: Obj) {
        Ok(object.object.metadata.borrow().clone())
    }));
    r.add(engine_fn!(Both "cast", |rt, c| (
        object: Obj,
        type_: TypeRef,
        versionSpec: Option<&str> = Null,
    ) {
        let o = object.object;
        let t = type_of(rt, c, &type_)?;
        match o.class.mro().into_iter().find(|x| x.name == t.name) {
            Some(cl) => Ok(o.cast_value(cl)),
            None => Err(Exc::engine(
                EngineExc::NoClassFound,
                format!("Cannot cast {} to {}", o.class.name, t.name),
            )),
        }
    }));
}

/// `new()`: of a type with properties as keyword arguments, of a type with
/// a dictionary of properties, or from an object model.
fn register_new(r: &mut Reg) {
    // The owner, name and extra dictionary are positional only (their names
    // start with `__`, as the reference's), so a property called `owner` or
    // `name` can be given as a keyword argument.
    r.add(engine_fn!(Function "new", |rt, c| (
        __type: TypeRef,
        __owner: Option<Obj> = Null,
        __name: Option<&str> = Null,
        __extra: Option<&Dict> = Null,
        properties: KwArgs,
    ) {
        let mut props = Dict::new();
        for (k, v) in kwargs_of(&properties) {
            props.insert(Value::str(&k), v);
        }
        new_object(rt, c, &__type, __owner, __name, &props)
    }));
    r.add(engine_fn!(Function "new", |rt, c| (
        typeName: TypeRef,
        parameters: &Dict,
        owner: Option<Obj> = Null,
        objectName: Option<&str> = Null,
        extra: Option<&Dict> = Null,
    ) {
        new_object(rt, c, &typeName, owner, objectName, parameters)
    }));
    r.add(
        engine_fn!(Function "new", |rt, c| (model: &Dict, owner: Option<Obj> = Null) {
            let sc = scope(rt, c)?;
            let owner = owner.map(|o| o.object);
            Ok(rt
                .load_model_value(&Value::dict(model.clone()), owner, &sc, None, true)?
                .value())
        }),
    );
}

fn new_object(
    rt: &Rt,
    c: &Call,
    type_: &TypeRef,
    owner: Option<Obj>,
    name: Option<&str>,
    props: &Dict,
) -> Result<Value, Exc> {
    let class = type_of(rt, c, type_)?;
    let name = name.map_or(Value::Null, Value::str);
    let owner = owner.map(|o| o.object);
    Ok(rt.new_object(&class, owner, name, props)?.value())
}

/// `type()`, `typeinfo()`, `super()`, `psuper()`, `find()`, `require()`.
fn register_type_functions(r: &mut Reg) {
    r.add(engine_fn!(Both "type", |rt, c| (object: Option<Obj>) {
        let Some(o) = object else {
            return Ok(Value::Null);
        };
        // Formats before 1.4 give the class name.
        let legacy = caller(c).is_none_or(|cl| cl.pkg.format != "1.4");
        Ok(if legacy {
            Value::str(&o.object.class.name)
        } else {
            o.object.class.type_value()
        })
    }));
    r.add(engine_fn!(Both "type", |rt, c| (cls: TypeRef) {
        Ok(type_of(rt, c, &cls)?.type_value())
    }));
    r.add(engine_fn!(Both "typeinfo", |rt, _c| (object: Option<Obj>) {
        Ok(object.map_or(Value::Null, |o| {
            rt.reflect(super::reflect::Reflect::Type(o.object.class.clone()))
        }))
    }));
    r.add(engine_fn!(Both "typeinfo", |rt, c| (cls: TypeRef) {
        Ok(rt.reflect(super::reflect::Reflect::Type(type_of(rt, c, &cls)?)))
    }));
    r.add(
        engine_fn!(Both "super", |rt, c| (object: Obj, func: Option<&Lambda> = Null) {
            super_casts(rt, c, &object, func)
        }),
    );
    // `psuper` runs the expression over every parent at once (the reference's
    // `parallel_select`), so its result is a list.
    r.add(
        engine_fn!(Both "psuper", |rt, c| (object: Obj, func: Option<&Lambda> = Null) {
            match super_casts(rt, c, &object, func)? {
                Value::Iter(ref it) => {
                    let mut out = Vec::new();
                    while let Some(v) = it.next().map_err(|e| rt.unsmuggle(e))? {
                        out.push(v);
                    }
                    Ok(Value::list(out))
                }
                v => Ok(v),
            }
        }),
    );
    r.add(engine_fn!(Both "require", |_rt, _c| (value: Value) {
        match value {
            Value::Null => Err(Exc::engine(
                EngineExc::ValueError,
                "Required value is missing",
            )),
            v => Ok(v),
        }
    }));
    r.add(
        engine_fn!(Both "find", |rt, c| (obj: Obj, muranoClassRef: TypeRef) {
            let t = type_of(rt, c, &muranoClassRef)?;
            let mut cur = obj.object.owner.borrow().clone();
            while let Some(p) = cur {
                if p.class.is_a(&t.name) {
                    return Ok(p.value());
                }
                cur = p.owner.borrow().clone();
            }
            Ok(Value::Null)
        }),
    );
}

/// Without an expression: the casts of `obj` to the parents of the calling
/// class, as a list. With one: a lazy map of the expression over them (as
/// the reference's `map`), so `list()` flattens it like any other iterator.
fn super_casts(rt: &Rt, c: &Call, obj: &Obj, expr: Option<&Lambda>) -> Result<Value, Exc> {
    let sc = scope(rt, c)?;
    let casts: Vec<Value> = sc
        .parents
        .iter()
        .map(|p| obj.object.cast_value(p.clone()))
        .collect();
    let Some(l) = expr.cloned() else {
        return Ok(Value::list(casts));
    };
    let mut casts = casts.into_iter();
    Ok(Value::Iter(vetro_yaql::iter::LazyIter::from_fn(
        c.run(),
        move || casts.next().map(|v| l.call1(v)).transpose(),
    )))
}

/// `sleep()`, `call()`, `logger()`, `dump()` and the other functions of
/// a running session.
fn register_session_functions(r: &mut Reg) {
    // Simulated time: the other green threads run, nothing waits.
    r.add(engine_fn!(Function "sleep", |_rt, _c| (seconds: f64) {
        crate::runtime::green::yield_now();
        Ok(Value::Null)
    }));
    r.add(engine_fn!(Function "isObject", |_rt, _c| (value: &Value) {
        Ok(as_object(value).is_some() || as_type(value).is_some())
    }));
    // On anything but an object or type the standard library's `call`
    // (a function by name) answers.
    r.add(engine_fn!(Function "call", |rt, c| (
        name: &str,
        args: &vetro_yaql::value::List,
        kwargs: &Dict,
        receiver: HostObjectArg,
    ) {
        let kwargs = kwargs
            .iter()
            .map(|(k, v)| Ok((rt.limits.py_str(k)?, v.clone())))
            .collect::<Result<Vec<_>, Exc>>()?;
        let args = args.to_vec();
        rt.call_method_at(Some(c.ctx), receiver.0, name, args, kwargs, CallKind::Expression)
    }));
    r.add(
        engine_fn!(Function "logger", |rt, _c| (loggerName: Option<&str>) {
            let cls = rt.program.class("io.murano.system.Logger")?;
            let mut props = Dict::new();
            props.insert(Value::str("name"), loggerName.map_or(Value::Null, Value::str));
            Ok(rt.new_object(&cls, None, Value::Null, &props)?.value())
        }),
    );
    // Murano keeps secrets in a key manager (castellan); a local session has
    // none configured, so both directions fail as castellan does then.
    for name in ["encryptData", "decryptData"] {
        r.add(engine_fn!(Both name, |_rt, _c| (value: &str) {
            Err::<Value, _>(Exc::native(
                "castellan.common.exception",
                "AuthTypeInvalidError",
                "Invalid auth_type was specified, auth_type: None",
            ))
        }));
    }
    r.add(engine_fn!(Function "randomName", |rt, _c| () {
        Ok(Value::str(&rt.objects.gen_id()[..12]))
    }));
    // The engine's own configuration: a local session has none.
    r.add(engine_fn!(Function "config", |_rt, _c| (
        group: &str,
        setting: &str,
        readAsFile: bool = false,
    ) {
        Ok(Value::Null)
    }));
    r.add(engine_fn!(Function "config", |_rt, _c| (setting: &str) {
        Ok(Value::Null)
    }));
    r.add(engine_fn!(Both "dump", |rt, _c| (
        obj: Obj,
        serializationType: &str = "Serializable",
        ignoreUpcasts: bool = true,
    ) {
        rt.dump(obj.value, serializationType, ignoreUpcasts)
    }));
}
