//! Python functions registered in a context, as engine functions.
//!
//! The Python side describes each function as
//! `(name, form, signature, invoker, checks)`: `form` is `"function"`,
//! `"method"` or `"both"`, `signature` uses the engine's signature syntax
//! (`FunctionDef::try_new`), `checks` holds per parameter of the signature a
//! predicate narrowing its type (or None), and
//! `invoker(engine, context, args, rest, kwargs, outer)` injects hidden
//! parameters, converts lazy arguments and calls the Python function
//! (`outer` is the context above the function's own, for `Super`). No Rust
//! borrow is held while Python runs.

use crate::convert::{to_py, to_value, Shape};
use crate::evalctx::EvalContext;
use crate::pyobj::wrap_err;
use crate::shim::Shim;
use crate::staged::Stager;
use crate::wrappers::PyCallable;
use ahash::AHashMap;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use std::rc::Rc;
use std::sync::Mutex;
use vetro_yaql::func::params::{HostObjectArg, KwArgs, Rest};
use vetro_yaql::func::ParamCheck;
use vetro_yaql::func::Signature;
use vetro_yaql::{yaql_fn, ArgValue, Args, Call, Context, Form, FunctionDef, Value};

/// Variables read for a context whose values are made later (without the
/// GIL, see [`crate::staged`]): where each goes, in the order staged.
pub type StagedVars = Vec<(Rc<Context>, String)>;

/// The signatures read from Python function descriptions, by description
/// (the Python half keeps a function's description until the function
/// changes, so the same tuple comes back at every evaluation). Each entry
/// holds its tuple, so that an address stands for one tuple.
#[derive(Default)]
pub struct Signatures(Mutex<AHashMap<usize, (Py<PyTuple>, Signature)>>);

/// Signatures kept at most (then the cache starts again).
const SIGNATURES: usize = 4096;

impl Signatures {
    fn get(&self, desc: &Bound<'_, PyTuple>) -> Option<Signature> {
        let kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let (held, sig) = kept.get(&(desc.as_ptr() as usize))?;
        held.is(desc).then(|| sig.clone())
    }

    fn put(&self, desc: &Bound<'_, PyTuple>, sig: &Signature) {
        let mut kept = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= SIGNATURES {
            kept.clear();
        }
        kept.insert(desc.as_ptr() as usize, (desc.clone().unbind(), sig.clone()));
    }
}

/// Register one Python context layer's functions on `ctx`, and stage its
/// variables for it.
pub fn register_layer<'py>(
    ctx: &Rc<Context>,
    layer: &Bound<'py, PyTuple>,
    py_engine: &Rc<Py<PyAny>>,
    (stager, vars): (&mut Stager<'py>, &mut StagedVars),
    signatures: &Signatures,
) -> PyResult<()> {
    let layer_vars = layer.get_item(0)?;
    for (k, v) in layer_vars.cast::<PyDict>()?.iter() {
        let name: String = k.extract()?;
        stager.value(&v)?;
        vars.push((ctx.clone(), name));
    }
    let funcs = layer.get_item(1)?;
    for f in funcs.cast::<PyList>()?.iter() {
        ctx.register(function_def(
            f.cast::<PyTuple>()?,
            py_engine,
            ctx,
            signatures,
        )?);
    }
    let exclusive = layer.get_item(2)?;
    for n in exclusive.cast::<PyList>()?.iter() {
        ctx.set_exclusive(&n.extract::<String>()?);
    }
    Ok(())
}

fn function_def(
    desc: &Bound<'_, PyTuple>,
    py_engine: &Rc<Py<PyAny>>,
    home: &Rc<Context>,
    signatures: &Signatures,
) -> PyResult<FunctionDef> {
    let invoker: Py<PyAny> = desc.get_item(3)?.unbind();
    let engine = py_engine.clone();
    // Weak: the function lives in `home`'s own layer.
    let home = Rc::downgrade(home);
    let body = move |call: &Call, args: Args| {
        let outer = home.upgrade().and_then(|h| h.parent.clone());
        invoke(&invoker, &engine, call, args, outer)
    };
    if let Some(sig) = signatures.get(desc) {
        return Ok(FunctionDef {
            sig,
            body: Rc::new(body),
        });
    }
    let name: String = desc.get_item(0)?.extract()?;
    let form = match desc.get_item(1)?.extract::<String>()?.as_str() {
        "method" => Form::Method,
        "both" => Form::Both,
        _ => Form::Function,
    };
    let sig: String = desc.get_item(2)?.extract()?;
    let mut def = FunctionDef::try_new(&name, form, &sig, body)
        .map_err(|e| PyValueError::new_err(e.into_message()))?;
    if desc.len() > 4 {
        set_checks(&mut def, &desc.get_item(4)?)?;
    }
    signatures.put(desc, &def.sig);
    Ok(def)
}

/// Attach the Python predicates to the parameters, in signature order
/// (positional, keyword-only, `*args`, `**kwargs`).
fn set_checks(def: &mut FunctionDef, checks: &Bound<'_, PyAny>) -> PyResult<()> {
    let checks: Vec<Option<Py<PyAny>>> = checks.extract()?;
    let sig = &mut def.sig;
    let params = sig
        .params
        .iter_mut()
        .chain(sig.kwonly.iter_mut())
        .chain(sig.varargs.as_mut())
        .chain(sig.kwargs.as_mut());
    for (p, check) in params.zip(checks) {
        p.check =
            check.map(|f| ParamCheck(std::sync::Arc::new(move |v: &Value| python_check(&f, v))));
    }
    Ok(())
}

/// A Python predicate on a value (as a callback would receive it); an
/// exception counts as "does not fit".
fn python_check(f: &Py<PyAny>, v: &Value) -> bool {
    Python::attach(|py| {
        to_py(py, v, Shape::Internal)
            .and_then(|obj| f.bind(py).call1((obj,)))
            .and_then(|r| r.is_truthy())
            .unwrap_or(false)
    })
}

fn invoke(
    invoker: &Py<PyAny>,
    engine: &Py<PyAny>,
    call: &Call,
    args: Args,
    outer: Option<Rc<Context>>,
) -> vetro_yaql::Result<Value> {
    Python::attach(|py| {
        let run = || -> PyResult<Value> {
            let shim = Shim::get(py)?;
            let pos = args
                .pos
                .iter()
                .map(|a| arg_to_py(py, a, call.ctx, shim))
                .collect::<PyResult<Vec<_>>>()?;
            let rest = args
                .rest
                .iter()
                .map(|a| arg_to_py(py, a, call.ctx, shim))
                .collect::<PyResult<Vec<_>>>()?;
            let kw = PyDict::new(py);
            for (k, a) in &args.kw {
                kw.set_item(&**k, arg_to_py(py, a, call.ctx, shim)?)?;
            }
            let ctx = Bound::new(
                py,
                EvalContext {
                    ctx: call.ctx.clone(),
                },
            )?;
            let outer = match outer {
                Some(ctx) => Bound::new(py, EvalContext { ctx })?.into_any(),
                None => py.None().into_bound(py),
            };
            let r = invoker.bind(py).call1((
                engine.bind(py),
                ctx,
                PyTuple::new(py, pos)?,
                PyTuple::new(py, rest)?,
                kw,
                outer,
            ))?;
            to_value(&r)
        };
        run().map_err(|e| wrap_err(py, e))
    })
}

fn arg_to_py<'py>(
    py: Python<'py>,
    a: &ArgValue,
    ctx: &Rc<Context>,
    shim: &Shim,
) -> PyResult<Bound<'py, PyAny>> {
    let lazy = |l: &vetro_yaql::Lambda| {
        Bound::new(
            py,
            PyCallable {
                value: Value::Func(Rc::new(l.clone())),
            },
        )
        .map(|b| b.into_any())
    };
    match a {
        ArgValue::Value(v) => to_py(py, v, Shape::Internal),
        ArgValue::Lazy(l) => lazy(l),
        ArgValue::Keyword(k) => Ok(pyo3::types::PyString::new(py, k).into_any()),
        ArgValue::Rule(rule) => Ok(PyTuple::new(py, [lazy(&rule.0)?, lazy(&rule.1)?])?.into_any()),
        ArgValue::Missing => {
            let _ = ctx;
            Ok(shim.no_value.bind(py).clone())
        }
    }
}

/// `$f(args)` where `$f` is a Python callable held as a host object.
pub fn register_python_call(engine: &mut vetro_yaql::EngineBuilder) {
    let call = yaql_fn!(Function "#call", |_c| (
        callable: HostObjectArg,
        args: Rest<&Value>,
        kwargs: KwArgs,
    ) {
        let Value::Object(o) = callable.0 else {
            return Err(vetro_yaql::Error::type_err("not callable"));
        };
        let Some(host) = o.as_any().downcast_ref::<crate::wrappers::PyObjectHost>() else {
            return Err(vetro_yaql::Error::type_err(format!(
                "'{}' object is not callable",
                o.type_name()
            )));
        };
        Python::attach(|py| {
            let run = || -> PyResult<Value> {
                let pos = args
                    .0
                    .iter()
                    .map(|v| to_py(py, v, Shape::Internal))
                    .collect::<PyResult<Vec<_>>>()?;
                let kw = PyDict::new(py);
                for (k, a) in kwargs.0 {
                    kw.set_item(&**k, to_py(py, a.val(), Shape::Internal)?)?;
                }
                let r = host.obj.bind(py).call(PyTuple::new(py, pos)?, Some(&kw))?;
                to_value(&r)
            };
            run().map_err(|e| wrap_err(py, e))
        })
    });
    engine.register(call);
}
