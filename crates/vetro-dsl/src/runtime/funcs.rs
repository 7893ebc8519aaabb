//! Engine functions registered in the YAQL host layer: method dispatchers,
//! property access, the `:` operator, `new()`, `id()`, `type()`, ...; and
//! [`Rt::define_function`] for an embedder's own functions.

use super::call::CallKind;
use super::reg::Reg;
use super::types::*;
use super::{str_arg, ClassSource, Rt};
use crate::syntax::MethodUsage;
use std::collections::BTreeSet;
use std::rc::{Rc, Weak};
use vetro_yaql::value::Dict;
use vetro_yaql::{Args, Call, Form, FunctionDef, Value};

pub(super) type Body = dyn Fn(&Rt, &Call, Args) -> Result<Value, Exc>;

/// A YAQL function of one session, whose body runs against it (held
/// weakly: the contexts that hold the function belong to the session); an
/// `Exc` the body returns crosses YAQL smuggled and comes out as the same
/// exception.
pub(super) fn host_def(
    w: &Weak<Rt>,
    name: &str,
    form: Form,
    sig: &str,
    body: Box<Body>,
) -> FunctionDef {
    let w = w.clone();
    FunctionDef::new(name, form, sig, move |c, a| {
        let rt = w
            .upgrade()
            .ok_or_else(|| vetro_yaql::Error::value_err("engine gone"))?;
        body(&rt, c, a).map_err(|e| rt.smuggle(e))
    })
}

impl Rt {
    /// Register a YAQL function for this session (an embedder's or a test
    /// harness's own functions; a session hook is the place to call it).
    /// `sig` is the parameter list (`"value:any"`); an `Exc` the body
    /// returns is raised as that MuranoPL exception.
    pub fn define_function(
        &self,
        name: &str,
        form: Form,
        sig: &str,
        body: impl Fn(&Rt, &Call, Args) -> Result<Value, Exc> + 'static,
    ) {
        self.program
            .register_host(host_def(&self.me, name, form, sig, Box::new(body)));
    }
}

fn kwargs_of(a: &Args) -> Vec<(String, Value)> {
    a.kw.iter()
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

fn object_arg(rt: &Rt, v: &Value) -> Result<Rc<Object>, Exc> {
    match as_object(v) {
        Some((o, _)) => Ok(o),
        None => Err(Exc::engine(
            EngineExc::ValueError,
            format!("{} is not an object", rt.limits.py_str(v)?),
        )),
    }
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
    a: &Args,
) -> Result<Option<Value>, Exc> {
    let sc = scope(rt, c)?;
    let Some(ext) = find_extension(rt, &sc, name) else {
        return Ok(None);
    };
    let mut args = vec![recv];
    args.extend(a.rest_values());
    rt.call_method(
        &ext.type_value(),
        name,
        args,
        kwargs_of(a),
        CallKind::Extension,
    )
    .map(Some)
}

/// Register the engine functions of a class set.
pub(super) fn register_all(r: &mut Reg, source: &ClassSource) {
    register_dispatchers(r, source);
    register_object_functions(r);
    register_type_functions(r);
}

/// YAQL method dispatchers for every method name the classes define.
fn register_dispatchers(r: &mut Reg, source: &ClassSource) {
    // Method dispatchers for every method name a loaded class defines.
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
        r.f(
            name,
            Form::Method,
            "recv:HostObject, *args:any, **kwargs:any",
            Box::new(move |rt, c, a| {
                let recv = a.v(0).clone();
                let r = rt.call_method(
                    &recv,
                    &n,
                    a.rest_values(),
                    kwargs_of(&a),
                    CallKind::Expression,
                );
                match r {
                    Err(Exc::Native(e, _)) if e.class == EngineExc::NoMethodRegisteredException => {
                        match call_extension(rt, c, &n, recv, &a)? {
                            Some(v) => Ok(v),
                            None => Err(Exc::Native(e, Default::default())),
                        }
                    }
                    other => other,
                }
            }),
        );
    }
    for name in &ext_names {
        let n = name.clone();
        r.f(
            name,
            Form::Method,
            "recv:any, *args:any, **kwargs:any",
            Box::new(move |rt, c, a| {
                let recv = a.v(0).clone();
                if as_type(&recv).is_some() {
                    // `:Ext.ext(value)`: an explicit static call.
                    return rt.call_method(
                        &recv,
                        &n,
                        a.rest_values(),
                        kwargs_of(&a),
                        CallKind::Expression,
                    );
                }
                match call_extension(rt, c, &n, recv, &a)? {
                    Some(v) => Ok(v),
                    None => Err(Exc::engine(
                        EngineExc::NoMethodRegisteredException,
                        format!("Unknown method \"{n}\""),
                    )),
                }
            }),
        );
    }
}

/// `new()`, `id()`, `type()`, the `:` operator and the other object functions.
fn register_object_functions(r: &mut Reg) {
    r.f(
        "#operator_.",
        Form::Function,
        "obj:HostObject, name:Keyword",
        Box::new(|rt, c, a| rt.get_property(a.v(0), str_arg(&a, 1)?, caller(c).as_ref())),
    );
    // `ns:Name`, or `:Name` (the class's own namespace) without `ns`.
    let colon = |rt: &Rt, c: &Call, ns: Option<&str>, name: &str| -> Result<Value, Exc> {
        let sc = scope(rt, c)?;
        let full = format!("{}:{name}", ns.unwrap_or_default());
        Ok(rt.program.resolve_type(&sc, &full)?.type_value())
    };
    r.f(
        "#operator_:",
        Form::Function,
        "ns:Keyword, name:Keyword",
        Box::new(move |rt, c, a| colon(rt, c, Some(str_arg(&a, 0)?), str_arg(&a, 1)?)),
    );
    r.f(
        "#unary_operator_:",
        Form::Function,
        "name:Keyword",
        Box::new(move |rt, c, a| colon(rt, c, None, str_arg(&a, 0)?)),
    );
    r.f(
        "#operator_is",
        Form::Function,
        "obj:any, type:any",
        Box::new(|rt, c, a| {
            let Some((o, _)) = as_object(a.v(0)) else {
                return Ok(Value::Bool(false));
            };
            let t = rt.program.type_arg(&*scope(rt, c)?, a.v(1))?;
            Ok(Value::Bool(o.class.is_a(&t.name)))
        }),
    );

    r.f(
        "new",
        Form::Function,
        "*args:any, **kwargs:any",
        Box::new(new_fn),
    );
    r.f(
        "id",
        Form::Both,
        "obj:HostObject",
        Box::new(|rt, _, a| Ok(Value::str(&object_arg(rt, a.v(0))?.id))),
    );
    r.f(
        "name",
        Form::Both,
        "obj:HostObject",
        Box::new(|rt, _, a| Ok(object_arg(rt, a.v(0))?.name.borrow().clone())),
    );
    r.f(
        "metadata",
        Form::Both,
        "obj:HostObject",
        Box::new(|rt, _, a| Ok(object_arg(rt, a.v(0))?.metadata.borrow().clone())),
    );
    r.f(
        "type",
        Form::Both,
        "obj:any",
        Box::new(|rt, c, a| {
            let v = a.v(0);
            if v.is_null() {
                return Ok(Value::Null);
            }
            if let Some((o, _)) = as_object(v) {
                let legacy = caller(c).is_none_or(|cl| cl.pkg.format != "1.4");
                return Ok(if legacy {
                    Value::str(&o.class.name)
                } else {
                    o.class.type_value()
                });
            }
            Ok(rt.program.type_arg(&*scope(rt, c)?, v)?.type_value())
        }),
    );
    r.f(
        "typeinfo",
        Form::Both,
        "obj:any",
        Box::new(|rt, c, a| {
            Ok(rt.reflect(super::reflect::Reflect::Type(
                rt.program.type_arg(&*scope(rt, c)?, a.v(0))?,
            )))
        }),
    );
    r.f(
        "cast",
        Form::Both,
        "obj:HostObject, type:any, version:any=null",
        Box::new(|rt, c, a| {
            let o = object_arg(rt, a.v(0))?;
            let t = rt.program.type_arg(&*scope(rt, c)?, a.v(1))?;
            match o.class.mro().into_iter().find(|x| x.name == t.name) {
                Some(cl) => Ok(o.cast_value(cl)),
                None => Err(Exc::engine(
                    EngineExc::NoClassFound,
                    format!("Cannot cast {} to {}", o.class.name, t.name),
                )),
            }
        }),
    );
}

/// `super()`, casts, reflection and the remaining engine functions.
fn register_type_functions(r: &mut Reg) {
    // Without an expression: the casts, as a list. With one: a lazy map of
    // the expression over them (as the reference's `map`), so `list()`
    // flattens it like any other iterator.
    let super_fn = |rt: &Rt, c: &Call, a: Args| -> Result<Value, Exc> {
        let o = object_arg(rt, a.v(0))?;
        let sc = scope(rt, c)?;
        let casts: Vec<Value> = sc.parents.iter().map(|p| o.cast_value(p.clone())).collect();
        let Some(l) = a.lam(1).cloned() else {
            return Ok(Value::list(casts));
        };
        let mut casts = casts.into_iter();
        Ok(Value::Iter(vetro_yaql::iter::LazyIter::from_fn(
            c.run(),
            move || casts.next().map(|v| l.call1(v)).transpose(),
        )))
    };
    r.f(
        "super",
        Form::Both,
        "obj:HostObject, expr:Lambda=null",
        Box::new(super_fn),
    );
    // `psuper` runs the expression over every parent at once (the reference's
    // `parallel_select`), so its result is a list.
    r.f(
        "psuper",
        Form::Both,
        "obj:HostObject, expr:Lambda=null",
        Box::new(move |rt, c, a| match super_fn(rt, c, a)? {
            Value::Iter(ref it) => {
                let mut out = Vec::new();
                while let Some(v) = it.next().map_err(|e| rt.unsmuggle(e))? {
                    out.push(v);
                }
                Ok(Value::list(out))
            }
            v => Ok(v),
        }),
    );
    r.f(
        "require",
        Form::Both,
        "value:any",
        Box::new(|_, _, a| match a.v(0) {
            Value::Null => Err(Exc::engine(
                EngineExc::ValueError,
                "Required value is missing",
            )),
            v => Ok(v.clone()),
        }),
    );
    r.f(
        "find",
        Form::Both,
        "obj:HostObject, type:any",
        Box::new(|rt, c, a| {
            let o = object_arg(rt, a.v(0))?;
            let t = rt.program.type_arg(&*scope(rt, c)?, a.v(1))?;
            let mut cur = o.owner.borrow().clone();
            while let Some(p) = cur {
                if p.class.is_a(&t.name) {
                    return Ok(p.value());
                }
                cur = p.owner.borrow().clone();
            }
            Ok(Value::Null)
        }),
    );
    r.f(
        "sleep",
        Form::Function,
        "seconds:any=0",
        // Simulated time: the other green threads run, nothing waits.
        Box::new(|_, _, _| {
            crate::runtime::green::yield_now();
            Ok(Value::Null)
        }),
    );
    r.f(
        "isObject",
        Form::Function,
        "value:any",
        Box::new(|_, _, a| {
            let v = a.v(0);
            Ok(Value::Bool(as_object(v).is_some() || as_type(v).is_some()))
        }),
    );
    r.f(
        "call",
        Form::Function,
        "name:String, args:any, kwargs:any, receiver:HostObject",
        Box::new(|rt, _, a| {
            let args = rt.items(a.v(1))?;
            let kwargs = match a.v(2) {
                Value::Dict(d) => d
                    .iter()
                    .map(|(k, v)| Ok((rt.limits.py_str(k)?, v.clone())))
                    .collect::<Result<Vec<_>, Exc>>()?,
                _ => Vec::new(),
            };
            rt.call_method(a.v(3), str_arg(&a, 0)?, args, kwargs, CallKind::Expression)
        }),
    );
    r.f(
        "logger",
        Form::Function,
        "name:any",
        Box::new(|rt, _, a| {
            let cls = rt.program.class("io.murano.system.Logger")?;
            let mut props = Dict::new();
            props.insert(Value::str("name"), a.v(0).clone());
            Ok(rt.new_object(&cls, None, Value::Null, &props)?.value())
        }),
    );
    // Murano keeps secrets in a key manager (castellan); a local session has
    // none configured, so both directions fail as castellan does then.
    for name in ["encryptData", "decryptData"] {
        r.f(
            name,
            Form::Function,
            "value:any",
            Box::new(|_, _, _| {
                Err(Exc::native(
                    "castellan.common.exception",
                    "AuthTypeInvalidError",
                    "Invalid auth_type was specified, auth_type: None",
                ))
            }),
        );
    }
    r.f(
        "randomName",
        Form::Function,
        "",
        Box::new(|rt, _, _| Ok(Value::str(&rt.objects.gen_id()[..12]))),
    );
    r.f(
        "config",
        Form::Function,
        "*args:any",
        Box::new(|_, _, _| Ok(Value::Null)),
    );
    r.f(
        "dump",
        Form::Both,
        "obj:any, serializationType:String='Serializable', ignoreUpcasts:bool=true",
        Box::new(|rt, _, a| rt.dump(a.v(0), str_arg(&a, 1)?, a.v(2).truthy())),
    );
}

fn new_fn(rt: &Rt, c: &Call, a: Args) -> Result<Value, Exc> {
    let sc = scope(rt, c)?;
    let args = a.rest_values();
    let kwargs = kwargs_of(&a);
    let Some(first) = args.first() else {
        return Err(Exc::engine(
            EngineExc::NoMatchingFunctionException,
            "new() needs a type",
        ));
    };
    let owner_at = |i: usize| -> Result<Option<Rc<Object>>, Exc> {
        match args.get(i) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => Ok(Some(object_arg(rt, v)?)),
        }
    };
    if let Value::Dict(d) = first {
        // new(model, owner)
        let model = d.clone();
        let owner = match kwargs.iter().find(|(k, _)| k == "owner") {
            Some((_, v)) if !v.is_null() => Some(object_arg(rt, v)?),
            _ => owner_at(1)?,
        };
        return Ok(rt
            .load_model_value(&Value::dict(model), owner, &sc, None, true)?
            .value());
    }
    let class = rt.program.type_arg(&sc, first)?;
    let mut props = Dict::new();
    let (owner, name) = if let Some(Value::Dict(p)) = args.get(1) {
        props = p.clone();
        (owner_at(2)?, args.get(3).cloned().unwrap_or(Value::Null))
    } else {
        (owner_at(1)?, args.get(2).cloned().unwrap_or(Value::Null))
    };
    for (k, v) in kwargs {
        props.insert(Value::str(&k), v);
    }
    Ok(rt.new_object(&class, owner, name, &props)?.value())
}
