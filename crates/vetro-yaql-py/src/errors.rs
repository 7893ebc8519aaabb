//! Errors across the boundary: YAQL errors become the reference's Python
//! exceptions, and Python exceptions raised by callbacks travel through the
//! engine unchanged, as the payload of a host error.

use crate::shim::Shim;
use pyo3::exceptions::{PyIndexError, PyKeyError};
use pyo3::prelude::*;
use vetro_yaql::{Error, ErrorKind};

/// A Python exception as an engine error that carries it.
pub fn stash(py: Python<'_>, e: PyErr) -> Error {
    // A Python KeyError or IndexError keeps its kind, so engine-level
    // fallbacks (groupBy's aggregator retry on an index error) behave as
    // for the library's own errors.
    let kind = if e.is_instance_of::<PyKeyError>(py) {
        ErrorKind::Key
    } else if e.is_instance_of::<PyIndexError>(py) {
        ErrorKind::Index
    } else {
        ErrorKind::Host
    };
    let message = e.value(py).to_string();
    Error::new(kind, message).with_host_payload(e)
}

/// The reference writes the receiver of a method call that found no method
/// into the error's message whole (`str()` of it); past this many bytes the
/// text is cut, ending in `...`.
const RECEIVER_TEXT: usize = 1 << 20;

/// The Python exception for a YAQL error.
pub fn to_pyerr(py: Python<'_>, mut e: Error, expr: Option<&str>) -> PyErr {
    if e.kind == ErrorKind::Interrupted {
        if let Some(err) = crate::signals::take_raised() {
            return err;
        }
    }
    if let Some(err) = e.take_host_payload::<PyErr>() {
        return err;
    }
    if let Some(err) = e.host_payload::<PyErr>() {
        return err.clone_ref(py);
    }
    let receiver = e.receiver().map(|v| v.py_str_clipped(RECEIVER_TEXT));
    let made = Shim::get(py).and_then(|shim| {
        shim.make_error.bind(py).call1((
            e.kind.as_str(),
            e.message.as_str(),
            e.position,
            expr,
            receiver,
        ))
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}
