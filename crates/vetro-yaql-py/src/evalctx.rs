//! The context of an evaluation in progress, as Python callbacks see it.

use crate::convert::{to_py, to_value, Shape};
use crate::errors::to_pyerr;
use crate::shim::Shim;
use crate::wrappers::PyCallable;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use std::rc::Rc;
use vetro_yaql::eval::NamedFunction;
use vetro_yaql::{Context, Value};

/// A handle on one scope of a running evaluation.
#[pyclass(unsendable, module = "yaql._vetro_yaql")]
pub struct EvalContext {
    pub ctx: Rc<Context>,
}

#[pymethods]
impl EvalContext {
    /// The value of a variable (name without `$`), or `NO_VALUE`.
    fn get(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyAny>> {
        match self.ctx.get(name) {
            Some(v) => Ok(to_py(py, &v, Shape::Internal)?.unbind()),
            None => Ok(Shim::get(py)?.no_value.clone_ref(py)),
        }
    }

    fn set(&self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.ctx.set(name, to_value(value)?);
        Ok(())
    }

    fn child(&self) -> EvalContext {
        EvalContext {
            ctx: self.ctx.child(),
        }
    }

    fn has_function(&self, name: &str) -> bool {
        self.ctx.has_function(name)
    }

    /// Call a function visible here with evaluated arguments.
    #[pyo3(signature = (name, args, method=false))]
    fn call(
        &self,
        py: Python<'_>,
        name: &str,
        args: &Bound<'_, PyTuple>,
        method: bool,
    ) -> PyResult<Py<PyAny>> {
        let args: Vec<Value> = args.iter().map(|a| to_value(&a)).collect::<PyResult<_>>()?;
        let ctx = self.ctx.clone();
        match vetro_yaql::eval::call_values(&ctx, name, args, method) {
            Ok(v) => Ok(to_py(py, &v, Shape::Internal)?.unbind()),
            Err(e) => Err(to_pyerr(py, e, None)),
        }
    }

    /// A Python callable for the function `name` as seen from here.
    fn function(&self, py: Python<'_>, name: &str) -> PyResult<Py<PyCallable>> {
        Py::new(
            py,
            PyCallable {
                value: Value::Func(Rc::new(NamedFunction {
                    name: Rc::from(name),
                    ctx: self.ctx.clone(),
                })),
            },
        )
    }
}
