//! The Python methods of the wrapper classes, and calling YAQL function
//! values with Python arguments.

use crate::convert::{to_py, to_value, Shape};
use crate::errors::{stash, to_pyerr};
use crate::wrappers::{PyCallable, PyHost, PyIterator};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};
use std::rc::Rc;
use vetro_yaql::Value;

#[pymethods]
impl PyHost {
    fn __repr__(&self) -> String {
        format!("<yaql {}>", self.value.type_name())
    }
}

#[pymethods]
impl PyIterator {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let it = self.iter.clone();
        match it.next() {
            Ok(Some(v)) => Ok(Some(to_py(py, &v, Shape::Internal)?.unbind())),
            Ok(None) => Ok(None),
            Err(e) => Err(to_pyerr(py, e, None)),
        }
    }
}

#[pymethods]
impl PyCallable {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let args: Vec<Value> = args.iter().map(|a| to_value(&a)).collect::<PyResult<_>>()?;
        let mut kw: Vec<(Rc<str>, Value)> = Vec::new();
        if let Some(k) = kwargs {
            for (name, v) in k.iter() {
                kw.push((Rc::from(name.extract::<String>()?), to_value(&v)?));
            }
        }
        let r = call_value(&self.value, &args, &kw);
        match r {
            Ok(v) => Ok(to_py(py, &v, Shape::Internal)?.unbind()),
            Err(e) => Err(to_pyerr(py, e, None)),
        }
    }
}

/// Call a function value with evaluated arguments.
pub fn call_value(v: &Value, args: &[Value], kw: &[(Rc<str>, Value)]) -> vetro_yaql::Result<Value> {
    match v {
        Value::Func(f) => f.call(args, kw),
        other => Err(vetro_yaql::Error::type_err(format!(
            "'{}' object is not callable",
            other.type_name()
        ))),
    }
}

/// Wrap a Python error so it can travel through the engine.
pub fn wrap_err(py: Python<'_>, e: PyErr) -> vetro_yaql::Error {
    stash(py, e)
}
