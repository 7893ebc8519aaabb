//! Handles on the Python half of the package (`yaql._support`): the classes
//! and helpers the Rust side constructs or asks about.

use crate::convert::{datetime_value, dict_value, lazy_from_python, set_value, to_value};
use crate::pyobj::PyObjectHost;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyTuple};
use std::rc::Rc;
use vetro_yaql::datetime::DateTime;
use vetro_yaql::Value;

/// Cached references into `yaql._support`.
pub struct Shim {
    frozen_dict_cls: Py<PyAny>,
    wrap_frozen: Py<PyAny>,
    classify: Py<PyAny>,
    make_datetime: Py<PyAny>,
    make_timedelta: Py<PyAny>,
    make_timezone: Py<PyAny>,
    make_regex: Py<PyAny>,
    int_cls: Py<PyAny>,
    pub make_error: Py<PyAny>,
    pub no_value: Py<PyAny>,
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

    /// Convert an object the fast paths of `to_value` did not recognise.
    pub fn classify(&self, obj: &Bound<'_, PyAny>) -> PyResult<Value> {
        let py = obj.py();
        if obj.is_instance(self.frozen_dict_cls.bind(py))? {
            let d = obj.getattr("_d")?;
            if let Ok(d) = d.cast::<PyDict>() {
                return dict_value(d);
            }
        }
        let r = self.classify.bind(py).call1((obj,))?;
        let t = r.cast::<PyTuple>()?;
        let tag: String = t.get_item(0)?.extract()?;
        let payload = t.get_item(1)?;
        match tag.as_str() {
            "map" => dict_value(payload.cast::<PyDict>()?),
            "seq" => to_value(&payload),
            "set" => set_value(
                payload
                    .try_iter()?
                    .collect::<PyResult<Vec<_>>>()?
                    .into_iter(),
            ),
            "iter" => Ok(lazy_from_python(payload)),
            "dt" => {
                let fields = payload.extract()?;
                let offset: Option<i32> = t.get_item(2)?.extract()?;
                datetime_value(fields, offset)
                    .map(Value::DateTime)
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.message))
            }
            "td" => Ok(Value::TimeDelta(payload.extract()?)),
            "tz" => Ok(Value::Tz(payload.extract()?)),
            _ => Ok(Value::Object(Rc::new(PyObjectHost::new(payload)))),
        }
    }
}
