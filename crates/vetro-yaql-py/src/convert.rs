//! Conversion between Python objects and YAQL values.
//!
//! Values cross into Python in one of two shapes, as the reference does:
//! the *internal* shape handed to Python callbacks (`FrozenDict`, `tuple`,
//! `frozenset`, lazy iterators) and the *output* shape of a finished
//! evaluation (`dict`, `list`, `set`).

use crate::shim::Shim;
use crate::wrappers::{PyCallable, PyHost, PyIterator, PyObjectHost, Yaqlized};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};
use std::cell::RefCell;
use std::rc::Rc;
use vetro_yaql::datetime::DateTime;
use vetro_yaql::iter::LazyIter;
use vetro_yaql::list_marks::ListMarks;
use vetro_yaql::value::{Dict, Set};
use vetro_yaql::{Error, ErrorKind, Value};

/// Which Python shape a value takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// What a callback receives (the reference's input conversion).
    Internal,
    /// A finished result the engine has already settled (lazy sequences
    /// materialised); `tuples` keeps sequences as tuples.
    Output { tuples: bool },
    /// A finished result that keeps tuples, converted straight from the
    /// engine's value: a lazy sequence becomes a `list` and every other
    /// sequence a `tuple`, as the reference's output conversion does with
    /// `yaql.convertTuplesToLists` off. `limit` is `yaql.limitIterators`,
    /// `quota` is `yaql.memoryQuota`.
    KeepTuples {
        sets_to_lists: bool,
        limit: i64,
        quota: i64,
    },
}

impl Shape {
    /// Refuse a collection longer than `yaql.limitIterators`.
    fn check_len(self, py: Python<'_>, len: usize) -> PyResult<()> {
        match self {
            Shape::KeepTuples { limit, .. } if limit >= 0 && len as i64 > limit => Err(
                crate::errors::to_pyerr(py, vetro_yaql::iter::too_large(), None),
            ),
            _ => Ok(()),
        }
    }

    /// The memory quota of a result that keeps tuples (`yaql.memoryQuota`).
    fn quota(self) -> i64 {
        match self {
            Shape::KeepTuples { quota, .. } => quota,
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

/// Python object → YAQL value (the reference's `convert_input_data`).
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    let py = obj.py();
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return Ok(match i.extract::<i64>() {
            Ok(v) => Value::Int(v),
            Err(_) => big_int(i)?,
        });
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(Rc::from(s.to_str()?)));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return dict_value(d);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| to_value(&x))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::from);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| to_value(&x))
            .collect::<PyResult<Vec<_>>>()
            .map(Value::from);
    }
    if let Ok(s) = obj.cast::<PyFrozenSet>() {
        return set_value(s.iter());
    }
    if let Ok(s) = obj.cast::<PySet>() {
        return set_value(s.iter());
    }
    if let Ok(h) = obj.cast::<PyHost>() {
        return Ok(h.borrow().value.clone());
    }
    if let Ok(it) = obj.cast::<PyIterator>() {
        return Ok(Value::Iter(it.borrow().iter.clone()));
    }
    if let Ok(c) = obj.cast::<PyCallable>() {
        return Ok(c.borrow().value.clone());
    }
    let shim = Shim::get(py)?;
    if obj.is_instance(shim.frozen_dict_cls.bind(py))? {
        let d = obj.getattr("_d")?;
        if let Ok(d) = d.cast::<PyDict>() {
            return dict_value(d);
        }
    }
    classified(obj, &shim.classify(obj)?)
}

/// Convert an object as `yaql._support.classify` describes it.
fn classified(obj: &Bound<'_, PyAny>, r: &Bound<'_, PyAny>) -> PyResult<Value> {
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
        _ => {
            let ops = match t.get_item(2) {
                Ok(o) if !o.is_none() => {
                    let (attributes, methods, indexer) = o.extract()?;
                    Some(Yaqlized {
                        attributes,
                        methods,
                        indexer,
                    })
                }
                _ => None,
            };
            Ok(Value::Object(Rc::new(PyObjectHost::new(obj.clone(), ops))))
        }
    }
}

fn big_int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    let text = i.str()?.to_string();
    let b: num_bigint::BigInt = text
        .parse()
        .map_err(|_| PyTypeError::new_err("integer out of range"))?;
    Ok(Value::from_bigint(b))
}

pub fn dict_value(d: &Bound<'_, PyDict>) -> PyResult<Value> {
    let mut out = Dict::with_capacity(d.len());
    for (k, v) in d.iter() {
        out.insert(to_value(&k)?, to_value(&v)?);
    }
    Ok(Value::dict(out))
}

pub fn set_value<'py>(items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Value> {
    let mut out = Set::new();
    for x in items {
        out.insert(to_value(&x)?);
    }
    Ok(Value::set(out))
}

/// A Python iterator as a lazy single-pass YAQL sequence.
pub fn lazy_from_python(it: Bound<'_, PyAny>) -> Value {
    let it: Py<PyAny> = it.unbind();
    Value::Iter(LazyIter::from_fn(move || {
        Python::attach(|py| {
            let b = it.bind(py);
            match b.call_method0("__next__") {
                Ok(x) => to_value(&x)
                    .map(Some)
                    .map_err(|e| crate::errors::stash(py, e)),
                Err(e) if e.is_instance_of::<pyo3::exceptions::PyStopIteration>(py) => Ok(None),
                Err(e) => Err(crate::errors::stash(py, e)),
            }
        })
    }))
}

thread_local! {
    /// The sequences of the result being converted that the evaluation built
    /// as lists (kept tuples only; see `vetro_yaql::list_marks`).
    static LISTS: RefCell<Option<Rc<RefCell<ListMarks>>>> = const { RefCell::new(None) };
}

/// A finished result → Python, with `lists` telling which of its sequences
/// are lists (the others become tuples when tuples are kept).
pub fn result_to_py<'py>(
    py: Python<'py>,
    v: &Value,
    shape: Shape,
    lists: Option<Rc<RefCell<ListMarks>>>,
) -> PyResult<Bound<'py, PyAny>> {
    // Converting may run lazy parts of the result, and so Python callbacks
    // that evaluate other expressions: restore the outer marks after.
    let outer = LISTS.with(|l| l.replace(lists));
    let out = to_py(py, v, shape);
    LISTS.with(|l| *l.borrow_mut() = outer);
    out
}

fn marked_list(items: &Rc<Vec<Value>>) -> bool {
    LISTS.with(|l| {
        l.borrow()
            .as_ref()
            .is_some_and(|marks| marks.borrow().is_list(items))
    })
}

/// YAQL value → Python object in the given shape.
pub fn to_py<'py>(py: Python<'py>, v: &Value, shape: Shape) -> PyResult<Bound<'py, PyAny>> {
    Conversion::default().value(py, v, shape)
}

/// One conversion of a value. A value can share its containers (`[$l, $l]`
/// doubled 60 times is 60 lists but 2^60 paths): the internal shape is
/// immutable, so each shared container becomes one Python object held
/// wherever it is (as the reference's own tuples are); the output shapes are
/// mutable, so each path gets its own object, and the items converted in all
/// are held to the engine's cap on what one evaluation builds.
#[derive(Default)]
struct Conversion {
    /// Python objects of the shared containers converted in the internal shape.
    shared: std::collections::HashMap<usize, Py<PyAny>>,
    /// Items of the containers converted so far.
    items: usize,
}

impl Conversion {
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
        let out = self.convert(py, v, shape)?;
        if let Some(k) = key {
            self.shared.insert(k, out.clone().unbind());
        }
        Ok(out)
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
                    Shape::Output { tuples: false } => PyList::new(py, conv)?.into_any(),
                    Shape::KeepTuples { .. } if marked_list(items) => {
                        PyList::new(py, conv)?.into_any()
                    }
                    _ => PyTuple::new(py, conv)?.into_any(),
                }
            }
            Value::Dict(d) => {
                self.count(py, shape, d.len())?;
                let out = PyDict::new(py);
                for (k, x) in d.iter() {
                    out.set_item(
                        self.value(py, k, Shape::Internal)?,
                        self.value(py, x, shape)?,
                    )?;
                }
                match shape {
                    Shape::Internal => Shim::get(py)?.frozen_dict(py, out)?,
                    _ => out.into_any(),
                }
            }
            Value::Set(s) => {
                self.count(py, shape, s.len())?;
                if let Shape::KeepTuples {
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
                    .map(|x| self.value(py, x, Shape::Internal))
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
                Shape::KeepTuples { .. } => self.drain(py, it, shape)?,
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

    /// A lazy sequence of a finished result as a Python list.
    fn drain<'py>(
        &mut self,
        py: Python<'py>,
        it: &Rc<LazyIter>,
        shape: Shape,
    ) -> PyResult<Bound<'py, PyAny>> {
        let out = PyList::empty(py);
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

/// A datetime from Python's fields.
pub fn datetime_value(
    fields: (i64, i64, i64, i64, i64, i64, i64),
    offset: Option<i32>,
) -> Result<DateTime, Error> {
    let (year, month, day, hour, minute, second, micro) = fields;
    DateTime::from_parts(
        vetro_yaql::datetime::Parts {
            year,
            month,
            day,
            hour,
            minute,
            second,
            micro,
        },
        offset,
    )
    .map_err(|e| Error::new(ErrorKind::Value, e.0))
}
