//! What `engine(text)` returns, made in Rust so that parsing a new text
//! from Python costs a check of its syntax and two small objects: the
//! engine's `__call__` ([`EngineBase`]) and the statement ([`Statement`]).
//! The syntax tree is built (and cached by the engine) on evaluation.

use crate::engine::Core;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyString, PyTuple};
use std::sync::OnceLock;

/// The base class of `yaql.language.factory.YaqlEngine`: holds the engine
/// core and answers `engine(text)`.
#[pyclass(subclass, frozen, module = "yaql._vetro_yaql")]
pub struct EngineBase {
    core: OnceLock<Py<Core>>,
}

#[pymethods]
impl EngineBase {
    #[new]
    #[pyo3(signature = (*_args, **_kwargs))]
    fn new(_args: &Bound<'_, PyTuple>, _kwargs: Option<&Bound<'_, PyDict>>) -> EngineBase {
        EngineBase {
            core: OnceLock::new(),
        }
    }

    /// Attach the core (once, from the subclass's `__init__`).
    fn _set_core(&self, core: Py<Core>) -> PyResult<()> {
        self.core
            .set(core)
            .map_err(|_| PyRuntimeError::new_err("the engine core is already set"))
    }

    #[getter]
    fn _core(&self, py: Python<'_>) -> PyResult<Py<Core>> {
        Ok(self.core(py)?.clone_ref(py))
    }

    /// Parse `expression` (raising the reference's parse exceptions) into
    /// a statement; with `options`, for a copy of the engine with them.
    #[pyo3(signature = (expression, options=None))]
    fn __call__(
        slf: &Bound<'_, Self>,
        expression: Bound<'_, PyString>,
        options: Option<Bound<'_, PyAny>>,
    ) -> PyResult<Py<Statement>> {
        let py = slf.py();
        if let Some(options) = options.filter(|o| o.is_truthy().unwrap_or(true)) {
            let copy = slf.call_method1("copy", (options,))?;
            return copy.call1((expression,))?.extract().map_err(Into::into);
        }
        slf.get().core(py)?.get().check(py, expression.to_str()?)?;
        Py::new(
            py,
            Statement {
                expression: expression.unbind(),
                engine: slf.clone().into_any().unbind(),
            },
        )
    }
}

impl EngineBase {
    fn core(&self, _py: Python<'_>) -> PyResult<&Py<Core>> {
        self.core
            .get()
            .ok_or_else(|| PyRuntimeError::new_err("the engine has no core"))
    }
}

/// `yaql.language.expressions.Statement`: a parsed expression bound to
/// its engine.
#[pyclass(frozen, module = "yaql.language.expressions")]
pub struct Statement {
    expression: Py<PyString>,
    engine: Py<PyAny>,
}

/// `yaql.language.expressions.evaluate_statement`, looked up once.
static EVALUATE: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

#[pymethods]
impl Statement {
    #[new]
    fn new(expression: Bound<'_, PyString>, engine: Bound<'_, PyAny>) -> Statement {
        Statement {
            expression: expression.unbind(),
            engine: engine.unbind(),
        }
    }

    /// The expression's text.
    #[getter]
    fn expression(&self, py: Python<'_>) -> Py<PyString> {
        self.expression.clone_ref(py)
    }

    #[getter]
    fn engine(&self, py: Python<'_>) -> Py<PyAny> {
        self.engine.clone_ref(py)
    }

    fn __str__(&self, py: Python<'_>) -> Py<PyString> {
        self.expression.clone_ref(py)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        Ok(format!("Statement({})", self.expression.bind(py).repr()?))
    }

    /// `evaluate(data=NO_VALUE, context=None)`.
    #[pyo3(signature = (*args, **kwargs))]
    fn evaluate(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let evaluate = EVALUATE.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
            Ok(py
                .import("yaql.language.expressions")?
                .getattr("evaluate_statement")?
                .unbind())
        })?;
        let mut all = vec![
            self.engine.clone_ref(py),
            self.expression.clone_ref(py).into_any(),
        ];
        all.extend(args.iter().map(Bound::unbind));
        Ok(evaluate
            .bind(py)
            .call(PyTuple::new(py, all)?, kwargs)?
            .unbind())
    }

    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        self.evaluate(py, args, kwargs)
    }
}
