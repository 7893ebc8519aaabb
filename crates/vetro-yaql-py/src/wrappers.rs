//! Python objects inside YAQL values, and YAQL values inside Python
//! objects: the data of the wrapper classes (their Python methods are in
//! `pyobj.rs`).

use pyo3::prelude::*;
use std::any::Any;
use std::rc::Rc;
use vetro_yaql::{HostObject, Value};

/// An arbitrary Python object carried through an evaluation unchanged.
pub struct PyObjectHost {
    pub obj: Py<PyAny>,
    type_name: String,
    /// What expressions may do with it when it is yaqlized.
    pub yaqlized: Option<Yaqlized>,
}

/// The operations a yaqlized object allows (`yaql.yaqlization`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Yaqlized {
    pub attributes: bool,
    pub methods: bool,
    pub indexer: bool,
}

impl PyObjectHost {
    pub fn new(obj: Bound<'_, PyAny>, yaqlized: Option<Yaqlized>) -> PyObjectHost {
        let type_name = obj
            .get_type()
            .name()
            .map(|n| n.to_string())
            .unwrap_or_else(|_| "object".to_string());
        PyObjectHost {
            obj: obj.unbind(),
            type_name,
            yaqlized,
        }
    }
}

impl HostObject for PyObjectHost {
    fn type_name(&self) -> &str {
        &self.type_name
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn methods_first(&self) -> bool {
        self.yaqlized.is_some_and(|y| y.methods)
    }
    fn to_str(&self) -> String {
        Python::attach(|py| {
            self.obj
                .bind(py)
                .str()
                .map(|s| s.to_string())
                .unwrap_or_else(|_| format!("<{} object>", self.type_name))
        })
    }
}

/// A YAQL value with no Python counterpart (a context, a host object).
#[pyclass(unsendable, module = "yaql._vetro_yaql")]
pub struct PyHost {
    pub value: Value,
}

/// A lazy YAQL sequence seen from Python: a single-pass iterator.
#[pyclass(unsendable, module = "yaql._vetro_yaql")]
pub struct PyIterator {
    pub iter: Rc<vetro_yaql::iter::LazyIter>,
}

/// A YAQL callable (a lambda argument, a delegate) called from Python.
#[pyclass(unsendable, module = "yaql._vetro_yaql")]
pub struct PyCallable {
    pub value: Value,
}
