//! Handles on the Python half of the package (`yaql._support`): the classes
//! and helpers the Rust side constructs or asks about.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyDict;
use vetro_yaql::datetime::DateTime;

/// Cached references into `yaql._support`.
pub struct Shim {
    pub frozen_dict_cls: Py<PyAny>,
    wrap_frozen: Py<PyAny>,
    classify: Py<PyAny>,
    make_datetime: Py<PyAny>,
    make_timedelta: Py<PyAny>,
    make_timezone: Py<PyAny>,
    make_regex: Py<PyAny>,
    int_cls: Py<PyAny>,
    pub make_error: Py<PyAny>,
    pub no_value: Py<PyAny>,
    /// `yaql.yaqlization` helpers: attribute, method call, indexer.
    pub yaqlized_attribute: Py<PyAny>,
    pub yaqlized_call: Py<PyAny>,
    pub yaqlized_index: Py<PyAny>,
}

static SHIM: PyOnceLock<Shim> = PyOnceLock::new();

impl Shim {
    pub fn get(py: Python<'_>) -> PyResult<&Shim> {
        SHIM.get_or_try_init(py, || {
            let m = py.import("yaql._support")?;
            let attr = |n: &str| -> PyResult<Py<PyAny>> { Ok(m.getattr(n)?.unbind()) };
            Ok(Shim {
                frozen_dict_cls: attr("FrozenDict")?,
                wrap_frozen: attr("wrap_frozen_dict")?,
                classify: attr("classify")?,
                make_datetime: attr("make_datetime")?,
                make_timedelta: attr("make_timedelta")?,
                make_timezone: attr("make_timezone")?,
                make_regex: attr("make_regex")?,
                int_cls: py.import("builtins")?.getattr("int")?.unbind(),
                make_error: attr("make_error")?,
                no_value: attr("NO_VALUE")?,
                yaqlized_attribute: attr("yaqlized_attribute")?,
                yaqlized_call: attr("yaqlized_call")?,
                yaqlized_index: attr("yaqlized_index")?,
            })
        })
    }

    pub fn frozen_dict<'py>(
        &self,
        py: Python<'py>,
        d: Bound<'py, PyDict>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.wrap_frozen.bind(py).call1((d,))
    }

    pub fn int_from_str<'py>(&self, py: Python<'py>, s: &str) -> PyResult<Bound<'py, PyAny>> {
        self.int_cls.bind(py).call1((s,))
    }

    pub fn datetime<'py>(&self, py: Python<'py>, d: &DateTime) -> PyResult<Bound<'py, PyAny>> {
        let p = d.parts();
        let fields = (p.year, p.month, p.day, p.hour, p.minute, p.second, p.micro);
        self.make_datetime.bind(py).call1((fields, d.offset))
    }

    pub fn timedelta<'py>(&self, py: Python<'py>, us: i64) -> PyResult<Bound<'py, PyAny>> {
        self.make_timedelta.bind(py).call1((us,))
    }

    pub fn timezone<'py>(&self, py: Python<'py>, secs: i32) -> PyResult<Bound<'py, PyAny>> {
        self.make_timezone.bind(py).call1((secs,))
    }

    pub fn regex<'py>(
        &self,
        py: Python<'py>,
        pattern: &str,
        flags: u32,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.make_regex.bind(py).call1((pattern, flags))
    }

    /// `yaql._support.classify(obj)`: how to hold an object the fast paths
    /// of the conversion do not recognise.
    pub fn classify<'py>(&self, obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        self.classify.bind(obj.py()).call1((obj,))
    }
}
