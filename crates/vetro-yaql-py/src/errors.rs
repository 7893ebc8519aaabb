//! Errors across the boundary: YAQL errors become the reference's Python
//! exceptions, and Python exceptions raised by callbacks travel through the
//! engine unchanged (stashed here, referenced by a marker in the message).

use crate::shim::Shim;
use pyo3::prelude::*;
use std::cell::{Cell, RefCell};
use vetro_yaql::{Error, ErrorKind};

const MARKER: &str = "\u{0}python-exception:";

thread_local! {
    static STASH: RefCell<Vec<(u64, PyErr)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(0) };
}

/// Keep a Python exception; the returned error refers to it.
pub fn stash(py: Python<'_>, e: PyErr) -> Error {
    let _ = py;
    let id = NEXT_ID.with(|n| {
        let id = n.get();
        n.set(id + 1);
        id
    });
    STASH.with(|s| s.borrow_mut().push((id, e)));
    // A Python KeyError keeps its kind so engine-level fallbacks behave as for
    // the library's own errors.
    Error::new(ErrorKind::Other, format!("{MARKER}{id}"))
}

fn take(id: u64) -> Option<PyErr> {
    STASH.with(|s| {
        let mut s = s.borrow_mut();
        let pos = s.iter().position(|(i, _)| *i == id)?;
        Some(s.remove(pos).1)
    })
}

/// Drop exceptions that were stashed and then handled inside the engine.
pub fn clear_stash() {
    STASH.with(|s| s.borrow_mut().clear());
}

/// The Python exception for a YAQL error.
pub fn to_pyerr(py: Python<'_>, e: Error, expr: Option<&str>) -> PyErr {
    if let Some(id) = e.message.strip_prefix(MARKER).and_then(|s| s.parse().ok()) {
        if let Some(err) = take(id) {
            return err;
        }
    }
    let made = Shim::get(py).and_then(|shim| {
        shim.make_error
            .bind(py)
            .call1((e.kind.as_str(), e.message.as_str(), e.position, expr))
    });
    match made {
        Ok(exc) => PyErr::from_value(exc),
        Err(err) => err,
    }
}
