//! Conversion of YAQL values into Python objects (the other way is
//! [`crate::input`]).
//!
//! Values cross into Python in one of two shapes, as the reference does:
//! the *internal* shape handed to Python callbacks (`FrozenDict`, `tuple`,
//! `frozenset`, lazy iterators) and the *output* shape of a finished
//! evaluation (`dict`, `list`, `set`).

use crate::depth::{deeper, Depth, Nests};
pub use crate::input::{lazy_from_python, to_value};
use crate::outdict::Dicts;
use crate::shim::Shim;
use crate::wrappers::{PyCallable, PyHost, PyIterator, PyObjectHost};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyFrozenSet, PyList, PySet, PyString, PyTuple};
use std::cell::RefCell;
use std::rc::Rc;
use vetro_yaql::iter::LazyIter;
use vetro_yaql::list_marks::ListMarks;
use vetro_yaql::value::{Address, List};
use vetro_yaql::Value;

/// Which Python shape a value takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// What a callback receives (the reference's input conversion).
    Internal,
    /// A finished result, its lazy sequences drained (see
    /// [`crate::lazies`]), in the reference's output conversion: sequences
    /// become lists, or with `keep_tuples` (`yaql.convertTuplesToLists`
    /// off) tuples, except those the evaluation built as lists and the lazy
    /// ones; sets become sets, or lists with `sets_to_lists`; dict keys and
    /// set members take the same shape (so a list is refused there, as
    /// Python refuses it). `limit` is `yaql.limitIterators`, `quota` is
    /// `yaql.memoryQuota`.
    Output {
        keep_tuples: bool,
        sets_to_lists: bool,
        limit: i64,
        quota: i64,
    },
}

impl Shape {
    /// Refuse a collection longer than `yaql.limitIterators`.
    fn check_len(self, py: Python<'_>, len: usize) -> PyResult<()> {
        match self {
            Shape::Output { limit, .. } if limit >= 0 && len as i64 > limit => Err(
                crate::errors::to_pyerr(py, vetro_yaql::iter::too_large(), None),
            ),
            _ => Ok(()),
        }
    }

    /// The memory quota of a result (`yaql.memoryQuota`).
    fn quota(self) -> i64 {
        match self {
            Shape::Output { quota, .. } => quota,
            _ => 0,
        }
    }
}

/// Refuse `items` items past the memory quota (when there is one, for one
/// collection) or the engine's cap on what one evaluation builds (for a
/// whole conversion too).
fn check_items(py: Python<'_>, items: usize, quota: i64) -> PyResult<()> {
    let bytes = items.saturating_mul(std::mem::size_of::<Value>());
    let over_quota = usize::try_from(quota).is_ok_and(|q| q > 0 && bytes > q);
    if over_quota || bytes > vetro_yaql::limits::MAX_BUILD_BYTES {
        return Err(crate::errors::to_pyerr(
            py,
            vetro_yaql::limits::memory_exceeded(),
            None,
        ));
    }
    Ok(())
}

/// A finished result → Python, with `lists` telling which of its sequences
/// are lists (the others become tuples when tuples are kept).
pub fn result_to_py<'py>(
    py: Python<'py>,
    v: &Value,
    shape: Shape,
    lists: Option<Rc<RefCell<ListMarks>>>,
) -> PyResult<Bound<'py, PyAny>> {
    let _paused = GcPause::new();
    Conversion::new(lists).value(py, v, shape)
}

/// Python's cyclic garbage collector held off while a result is built: the
/// objects made are all reachable from the result, so a collection could
/// free none of them, yet every few hundred new containers start one that
/// walks them (and, as they pile up, the older generations too). Collection
/// resumes when the result is made, which the collector then counts as new
/// objects as usual. (A result's lazy sequences are drained before, so
/// converting it runs no Python code of the application.)
struct GcPause {
    was_enabled: bool,
}

impl GcPause {
    fn new() -> GcPause {
        // SAFETY: called with the GIL held (a conversion holds it).
        GcPause {
            was_enabled: unsafe { pyo3::ffi::PyGC_Disable() } == 1,
        }
    }
}

impl Drop for GcPause {
    fn drop(&mut self) {
        if self.was_enabled {
            // SAFETY: as in `new`.
            unsafe { pyo3::ffi::PyGC_Enable() };
        }
    }
}

/// YAQL value → Python object in the given shape.
pub fn to_py<'py>(py: Python<'py>, v: &Value, shape: Shape) -> PyResult<Bound<'py, PyAny>> {
    Conversion::new(None).value(py, v, shape)
}

/// One conversion of a value. A value can share its containers (`[$l, $l]`
/// doubled 60 times is 60 lists but 2^60 paths): the internal shape is
/// immutable, so each shared container becomes one Python object held
/// wherever it is (as the reference's own tuples are); the output shapes are
/// mutable, so each path gets its own object, and the items converted in all
/// are held to the engine's cap on what one evaluation builds.
struct Conversion {
    /// Python objects of the shared containers converted in the internal shape.
    shared: crate::input::AddrMap<Address, Py<PyAny>>,
    /// The dicts made so far (keys and key sets).
    dicts: Dicts,
    /// Items of the containers converted so far.
    items: usize,
    /// The sequences of the result that the evaluation built as lists
    /// (kept tuples only; see `vetro_yaql::list_marks`).
    lists: Option<Rc<RefCell<ListMarks>>>,
    depth: Depth,
}

impl Nests for Conversion {
    fn depth(&mut self) -> &mut Depth {
        &mut self.depth
    }
}

impl Conversion {
    fn new(lists: Option<Rc<RefCell<ListMarks>>>) -> Conversion {
        Conversion {
            shared: Default::default(),
            dicts: Dicts::default(),
            items: 0,
            lists,
            depth: Depth::new("a value to Python"),
        }
    }
}

impl Conversion {
    fn marked_list(&self, items: &List) -> bool {
        self.lists
            .as_ref()
            .is_some_and(|marks| marks.borrow().is_list(items))
    }

    fn value<'py>(
        &mut self,
        py: Python<'py>,
        v: &Value,
        shape: Shape,
    ) -> PyResult<Bound<'py, PyAny>> {
        let key = match shape {
            Shape::Internal => v.shared_address(),
            _ => None,
        };
        if let Some(done) = key.and_then(|k| self.shared.get(&k)) {
            return Ok(done.bind(py).clone());
        }
        let out = deeper(self, |c| c.convert(py, v, shape))?;
        if let Some(k) = key {
            self.shared.insert(k, out.clone().unbind());
        }
        Ok(out)
    }

    /// A dictionary key: a string key is made once per conversion.
    fn key<'py>(
        &mut self,
        py: Python<'py>,
        k: &Value,
        shape: Shape,
    ) -> PyResult<Bound<'py, PyAny>> {
        match self.dicts.key(py, k) {
            Some(s) => Ok(s.into_any()),
            None => self.value(py, k, shape),
        }
    }

    /// Count `len` more items, refused past the limits (see [`Conversion`]).
    fn count(&mut self, py: Python<'_>, shape: Shape, len: usize) -> PyResult<()> {
        shape.check_len(py, len)?;
        self.items = self.items.saturating_add(len);
        check_items(py, self.items, 0)
    }

    fn convert<'py>(
        &mut self,
        py: Python<'py>,
        v: &Value,
        shape: Shape,
    ) -> PyResult<Bound<'py, PyAny>> {
        Ok(match v {
            Value::Null => py.None().into_bound(py),
            Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
            Value::Int(i) => i.into_pyobject(py)?.into_any(),
            Value::BigInt(b) => Shim::get(py)?.int_from_str(py, &b.to_string())?,
            Value::Float(x) => PyFloat::new(py, *x).into_any(),
            Value::Str(s) => PyString::new(py, s).into_any(),
            Value::List(items) => {
                self.count(py, shape, items.len())?;
                let conv = items
                    .iter()
                    .map(|x| self.value(py, x, shape))
                    .collect::<PyResult<Vec<_>>>()?;
                match shape {
                    Shape::Output {
                        keep_tuples: false, ..
                    } => PyList::new(py, conv)?.into_any(),
                    Shape::Output { .. } if self.marked_list(items) => {
                        PyList::new(py, conv)?.into_any()
                    }
                    _ => PyTuple::new(py, conv)?.into_any(),
                }
            }
            Value::Dict(d) => {
                self.count(py, shape, d.len())?;
                let (out, keys) = self.dicts.start(py, d)?;
                for (i, (k, x)) in d.iter().enumerate() {
                    // The value first, as the reference's `result[key] = value`.
                    let value = self.value(py, x, shape)?;
                    let key = match &keys {
                        Some(keys) => keys[i].bind(py).clone().into_any(),
                        None => self.key(py, k, shape)?,
                    };
                    out.set_item(key, value)?;
                }
                match shape {
                    Shape::Internal => Shim::get(py)?.frozen_dict(py, out)?,
                    _ => out.into_any(),
                }
            }
            Value::Set(s) => {
                self.count(py, shape, s.len())?;
                if let Shape::Output {
                    sets_to_lists: true,
                    ..
                } = shape
                {
                    let conv = s
                        .iter()
                        .map(|x| self.value(py, x, shape))
                        .collect::<PyResult<Vec<_>>>()?;
                    return Ok(PyList::new(py, conv)?.into_any());
                }
                let conv = s
                    .iter()
                    .map(|x| self.value(py, x, shape))
                    .collect::<PyResult<Vec<_>>>()?;
                match shape {
                    Shape::Internal => PyFrozenSet::new(py, &conv)?.into_any(),
                    _ => PySet::new(py, &conv)?.into_any(),
                }
            }
            Value::DateTime(d) => Shim::get(py)?.datetime(py, d)?,
            Value::TimeDelta(us) => Shim::get(py)?.timedelta(py, *us)?,
            Value::Tz(secs) => Shim::get(py)?.timezone(py, *secs)?,
            Value::Regex(r) => Shim::get(py)?.regex(py, &r.pattern, r.flags)?,
            Value::Iter(it) => match shape {
                Shape::Output { .. } => self.drain(py, it, shape)?,
                _ => Bound::new(py, PyIterator { iter: it.clone() })?.into_any(),
            },
            Value::Func(_) => Bound::new(py, PyCallable { value: v.clone() })?.into_any(),
            Value::Object(o) => match o.as_any().downcast_ref::<PyObjectHost>() {
                Some(h) => h.obj.bind(py).clone(),
                None => Bound::new(py, PyHost { value: v.clone() })?.into_any(),
            },
            Value::Context(_) => Bound::new(py, PyHost { value: v.clone() })?.into_any(),
        })
    }

    /// A lazy sequence of a finished result as a Python list (one left
    /// where [`crate::lazies`] does not look: a set member or a dict key).
    fn drain<'py>(
        &mut self,
        py: Python<'py>,
        it: &Rc<LazyIter>,
        shape: Shape,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = PyList::empty(py);
        let it = it.cursor();
        loop {
            match it.next() {
                Ok(Some(x)) => {
                    out.append(self.value(py, &x, shape)?)?;
                    self.count(py, shape, 1)?;
                    shape.check_len(py, out.len())?;
                    if out.len().is_multiple_of(4096) {
                        check_items(py, out.len(), shape.quota())?;
                    }
                }
                Ok(None) => return Ok(out.into_any()),
                Err(e) => return Err(crate::errors::to_pyerr(py, e, None)),
            }
        }
    }
}
