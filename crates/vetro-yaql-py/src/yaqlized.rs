//! Yaqlized Python objects (`yaql.yaqlization`): expressions read their
//! attributes, call their methods and index them, as far as each object's
//! settings allow. Registered in the engine's host layer, so these
//! overloads come before the library's for host objects.

use crate::convert::{to_py, to_value, Shape};
use crate::pyobj::wrap_err;
use crate::shim::Shim;
use crate::wrappers::{PyObjectHost, Yaqlized};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::rc::Rc;
use vetro_yaql::eval::{call_values, eval, CallArg};
use vetro_yaql::func::params::{HostObjectArg, Keyword};
use vetro_yaql::parser::ExprKind;
use vetro_yaql::{yaql_fn, Context, EngineBuilder, Error, ErrorKind, Value};

/// The Python object and its yaqlization, when `v` is a yaqlized object.
fn yaqlized(v: &Value) -> Option<(&PyObjectHost, Yaqlized)> {
    let Value::Object(o) = v else { return None };
    let host = o.as_any().downcast_ref::<PyObjectHost>()?;
    Some((host, host.yaqlized?))
}

/// Call one of the `yaql.yaqlization` helpers with the object first, then
/// `args`, then (when given) the keyword arguments as a dict.
fn call_helper(
    helper: impl for<'py> FnOnce(&'py Shim) -> &'py Py<PyAny>,
    host: &PyObjectHost,
    args: &[Value],
    kwargs: Option<&[(Rc<str>, Value)]>,
) -> vetro_yaql::Result<Value> {
    Python::attach(|py| {
        let run = || -> PyResult<Value> {
            let shim = Shim::get(py)?;
            let mut items = vec![host.obj.bind(py).clone()];
            for a in args {
                items.push(to_py(py, a, Shape::Internal)?);
            }
            if let Some(kwargs) = kwargs {
                let kw = PyDict::new(py);
                for (k, v) in kwargs {
                    kw.set_item(&**k, to_py(py, v, Shape::Internal)?)?;
                }
                items.push(kw.into_any());
            }
            to_value(&helper(shim).bind(py).call1(PyTuple::new(py, items)?)?)
        };
        run().map_err(|e| wrap_err(py, e))
    })
}

/// Register the yaqlized operations. The reference registers them below
/// the legacy layer, whose exclusive `#indexer` hides them: with the legacy
/// library (`legacy`) indexing is left to that layer.
pub fn register(engine: &mut EngineBuilder, legacy: bool) {
    let dot = yaql_fn!(Function "#operator_.", |c| (obj: HostObjectArg, name: Keyword) {
        match yaqlized(obj.0) {
            Some((host, ops)) if ops.attributes => {
                call_helper(|s| &s.yaqlized_attribute, host, &[Value::from(name.0)], None)
            }
            _ => call_values(
                c.ctx,
                &format!("#property#{}", name.0),
                vec![obj.0.clone()],
                false,
            ),
        }
    });
    engine.register(dot);
    if !legacy {
        register_indexer(engine);
    }
}

fn register_indexer(engine: &mut EngineBuilder) {
    let indexer = yaql_fn!(Function "#indexer", |_c| (obj: HostObjectArg, key: &Value) {
        match yaqlized(obj.0) {
            Some((host, ops)) if ops.indexer => {
                call_helper(|s| &s.yaqlized_index, host, std::slice::from_ref(key), None)
            }
            _ => Err(Error::new(
                ErrorKind::NoMatchingFunction,
                format!(
                    "No function \"#indexer\" matches the arguments ({}, {})",
                    obj.0.type_name(),
                    key.type_name()
                ),
            )),
        }
    });
    engine.register(indexer);
}

/// `obj.name(args)`: yaqlized objects with methods answer every method
/// call (the engine asks them first); other objects have no methods.
pub fn method_call(
    ctx: &Rc<Context>,
    name: &str,
    recv: Value,
    args: Vec<CallArg>,
) -> vetro_yaql::Result<Value> {
    let Some((host, _)) = yaqlized(&recv).filter(|(_, ops)| ops.methods) else {
        return Err(
            Error::new(ErrorKind::NoMethod, format!("Unknown method \"{name}\""))
                .with_receiver(recv),
        );
    };
    let mut pos = Vec::new();
    let mut kw: Vec<(Rc<str>, Value)> = Vec::new();
    for a in args {
        match a {
            CallArg::Val(v) => pos.push(v),
            CallArg::Expr(e) => pos.push(eval(e, ctx)?),
            CallArg::NamedValue(k, v) => kw.push((k, v)),
            CallArg::Named(k, v) => match &k.kind {
                ExprKind::Keyword(k) => kw.push((Rc::from(&**k), eval(v, ctx)?)),
                _ => {
                    return Err(Error::new(
                        ErrorKind::MappingTranslation,
                        "Named argument name must be a keyword",
                    ))
                }
            },
            CallArg::Omitted => {
                return Err(Error::new(
                    ErrorKind::NoMatchingMethod,
                    format!("Method \"{name}\" cannot take omitted arguments"),
                ))
            }
        }
    }
    call_helper(
        |s| &s.yaqlized_call,
        host,
        &[Value::from(name), Value::list(pos)],
        Some(&kw),
    )
}
