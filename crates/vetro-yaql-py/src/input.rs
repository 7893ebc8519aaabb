//! Python data → YAQL values (the reference's `convert_input_data`), built
//! directly from the Python objects.
//!
//! One [`Input`] converts one piece of data. The built-in types are told by
//! their exact type first (a pointer comparison); subclasses and other
//! objects take the general path. The string keys of dictionaries are
//! converted once per conversion: records share their key objects (Python
//! interns the literal keys of a program), so each distinct key object
//! becomes one shared string, which later compares by address.

use crate::depth::{deeper, Depth, Nests};
use crate::shim::Shim;
use crate::wrappers::{PyCallable, PyHost, PyIterator, PyObjectHost, Yaqlized};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyUnicodeEncodeError};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PySet, PyString, PyTuple};
use pyo3::PyTypeInfo;
use std::hash::BuildHasherDefault;
use std::rc::Rc;
use vetro_yaql::datetime::DateTime;
use vetro_yaql::iter::LazyIter;
use vetro_yaql::value::{Dict, Set};
use vetro_yaql::{Error, ErrorKind, Value};

/// A map keyed by the addresses of objects a conversion holds: hashed with
/// fixed keys (addresses are not chosen by the data), and made without
/// allocating, so a conversion that needs none costs nothing.
pub type AddrMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<ahash::AHasher>>;

/// `obj` as a `T` when its type is exactly `T`: a pointer comparison, and
/// unlike `cast_exact` a mismatch costs nothing (no error value made).
#[inline]
pub(crate) fn exact<'a, 'py, T: PyTypeInfo>(
    obj: &'a Bound<'py, PyAny>,
) -> Option<&'a Bound<'py, T>> {
    // SAFETY: the object's type was just found to be `T`'s.
    obj.is_exact_instance_of::<T>()
        .then(|| unsafe { obj.cast_unchecked::<T>() })
}

/// Python object → YAQL value.
pub fn to_value(obj: &Bound<'_, PyAny>) -> PyResult<Value> {
    Input::new(obj.py()).value(obj)
}

/// One conversion of Python data into a value.
pub struct Input<'py> {
    py: Python<'py>,
    /// The string keys converted so far, by the address of their Python
    /// object; the object is held so that its address is not reused while
    /// the conversion runs (a generator's items may be freed on the way).
    keys: AddrMap<usize, (Bound<'py, PyAny>, Value)>,
    /// The string keys of the last dict converted, by position (address
    /// of the key object and its value; each is in `keys` too): records
    /// hold the same keys in the same order, so most keys are found here
    /// without hashing.
    recent: Vec<(usize, Value)>,
    /// Objects converted so far by the general path, which may run Python
    /// code.
    slow: usize,
    depth: Depth,
}

impl Nests for Input<'_> {
    fn depth(&mut self) -> &mut Depth {
        &mut self.depth
    }
}

impl<'py> Input<'py> {
    pub fn new(py: Python<'py>) -> Input<'py> {
        Input {
            py,
            keys: AddrMap::default(),
            recent: Vec::new(),
            slow: 0,
            depth: Depth::new("data"),
        }
    }

    /// Convert `obj`.
    pub fn value(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        match scalar(obj)? {
            Some(v) => Ok(v),
            None => self.container(obj),
        }
    }

    /// An item of a container read without taking a reference to it: a
    /// scalar is converted as it is (which runs no Python code, so nothing
    /// can free it meanwhile); anything else is held first.
    #[inline]
    fn item(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<Value> {
        match scalar(&obj)? {
            Some(v) => Ok(v),
            None => self.container(&obj.to_owned()),
        }
    }

    /// Everything but the scalars of [`scalar`], one level deeper.
    fn container(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        deeper(self, |i| i.nested(obj))
    }

    /// [`Input::container`]'s work: exact dicts and lists first.
    fn nested(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        if let Some(d) = exact::<PyDict>(obj) {
            return self.dict(d);
        }
        if let Some(l) = exact::<PyList>(obj) {
            return self.list(l);
        }
        self.slow += 1;
        self.general(obj)
    }

    /// Everything but the exact built-in types of [`Input::value`]'s fast
    /// path (which give the same values here).
    fn general(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<Value> {
        if obj.is_none() {
            return Ok(Value::Null);
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Value::Bool(b.is_true()));
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            return int_value(i);
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Ok(Value::Float(f.value()));
        }
        if let Ok(s) = obj.cast::<PyString>() {
            return text(s);
        }
        if let Ok(d) = obj.cast::<PyDict>() {
            return self.dict(d);
        }
        if let Ok(l) = obj.cast::<PyList>() {
            return self.list(l);
        }
        if let Ok(t) = obj.cast::<PyTuple>() {
            return self.items(t.iter(), t.len());
        }
        if let Ok(s) = obj.cast::<PyFrozenSet>() {
            return self.set(s.iter());
        }
        if let Ok(s) = obj.cast::<PySet>() {
            return self.set(s.iter());
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
        let shim = Shim::get(self.py)?;
        if obj.is_instance(shim.frozen_dict_cls.bind(self.py))? {
            let d = obj.getattr("_d")?;
            if let Ok(d) = d.cast::<PyDict>() {
                return self.dict(d);
            }
        }
        self.classified(obj, &shim.classify(obj)?)
    }

    /// The key at position `at` of a dictionary: string keys are converted
    /// once per key object.
    fn key(&mut self, at: usize, k: Borrowed<'_, 'py, PyAny>) -> PyResult<Value> {
        let Some(s) = exact::<PyString>(&k) else {
            return self.item(k);
        };
        let addr = k.as_ptr() as usize;
        match self.recent.get(at) {
            Some((a, v)) if *a == addr => return Ok(v.clone()),
            _ => {}
        }
        let v = match self.keys.get(&addr) {
            Some((_, v)) => v.clone(),
            None => {
                let v = Value::str(s.to_str()?);
                self.keys.insert(addr, (k.to_owned(), v.clone()));
                v
            }
        };
        if at < self.recent.len() {
            self.recent[at] = (addr, v.clone());
        } else if at == self.recent.len() {
            self.recent.push((addr, v.clone()));
        }
        Ok(v)
    }

    /// A dict's entries read in place. When its keys are all strings and
    /// converting it ran no Python code (which could have changed it
    /// meanwhile), its keys are distinct and the dictionary is made without
    /// comparing them.
    pub fn dict(&mut self, d: &Bound<'py, PyDict>) -> PyResult<Value> {
        let (py, len) = (self.py, d.len());
        let slow = self.slow;
        let mut str_keys = true;
        let mut entries = Vec::with_capacity(len);
        let mut pos: ffi::Py_ssize_t = 0;
        let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: `d` is a dict and the GIL is held; the key and value are
        // borrowed from it and used before the next step (held first when
        // converting them may run Python code, see `item` and `key`).
        while unsafe { ffi::PyDict_Next(d.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
            let (k, v) = unsafe { (Borrowed::from_ptr(py, k), Borrowed::from_ptr(py, v)) };
            str_keys &= k.is_exact_instance_of::<PyString>();
            let key = self.key(entries.len(), k)?;
            entries.push((key, self.item(v)?));
        }
        if d.len() != len {
            return Err(PyRuntimeError::new_err(
                "dictionary changed size during iteration",
            ));
        }
        Ok(Value::dict(if str_keys && self.slow == slow {
            Dict::from_distinct(entries)
        } else {
            entries.into_iter().collect()
        }))
    }

    /// A list's items read in place.
    fn list(&mut self, l: &Bound<'py, PyList>) -> PyResult<Value> {
        let mut out = Vec::with_capacity(l.len());
        // The length is read at each step: converting an item may run Python
        // code that changes the list.
        let mut i = 0;
        while i < l.len() {
            // SAFETY: `l` is a list, `i` within it, the GIL held; the item
            // is borrowed as in `dict`.
            let item = unsafe { ffi::PyList_GetItem(l.as_ptr(), i as ffi::Py_ssize_t) };
            let item = unsafe { Borrowed::from_ptr_or_err(self.py, item)? };
            out.push(self.item(item)?);
            i += 1;
        }
        Ok(Value::list(out))
    }

    fn items(
        &mut self,
        items: impl Iterator<Item = Bound<'py, PyAny>>,
        len: usize,
    ) -> PyResult<Value> {
        let mut out = Vec::with_capacity(len);
        for x in items {
            out.push(self.value(&x)?);
        }
        Ok(Value::list(out))
    }

    pub fn set(&mut self, items: impl Iterator<Item = Bound<'py, PyAny>>) -> PyResult<Value> {
        let mut out = Set::new();
        for x in items {
            out.insert(self.value(&x)?);
        }
        Ok(Value::set(out))
    }

    /// Convert an object as `yaql._support.classify` describes it.
    fn classified(&mut self, obj: &Bound<'py, PyAny>, r: &Bound<'py, PyAny>) -> PyResult<Value> {
        let t = r.cast::<PyTuple>()?;
        let tag: String = t.get_item(0)?.extract()?;
        let payload = t.get_item(1)?;
        match tag.as_str() {
            "map" => self.dict(payload.cast::<PyDict>()?),
            "seq" => self.value(&payload),
            "set" => self.set(
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
                    .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.into_message()))
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
}

/// The exact built-in scalars (told by a pointer comparison of their
/// type), whose conversion runs no Python code; `None` for anything else.
#[inline]
fn scalar(obj: &Bound<'_, PyAny>) -> PyResult<Option<Value>> {
    if let Some(s) = exact::<PyString>(obj) {
        return text(s).map(Some);
    }
    if let Some(i) = exact::<PyInt>(obj) {
        return int_value(i).map(Some);
    }
    if let Some(f) = exact::<PyFloat>(obj) {
        return Ok(Some(Value::Float(f.value())));
    }
    if obj.is_none() {
        return Ok(Some(Value::Null));
    }
    if let Some(b) = exact::<PyBool>(obj) {
        return Ok(Some(Value::Bool(b.is_true())));
    }
    Ok(None)
}

/// A string's value: its text, or, for a string that has none (lone
/// surrogates, as `json.loads('"\\ud800"')` makes them), the Python object
/// itself, carried through as objects of types the engine has no value for
/// are (the reference keeps such strings as they are; the engine's text is
/// Unicode).
pub(crate) fn text(s: &Bound<'_, PyString>) -> PyResult<Value> {
    match s.to_str() {
        Ok(t) => Ok(Value::str(t)),
        Err(e) => not_text(s.as_any(), e),
    }
}

/// [`text`] when reading the string's UTF-8 text failed with `e`.
#[cold]
pub(crate) fn not_text(s: &Bound<'_, PyAny>, e: PyErr) -> PyResult<Value> {
    if e.is_instance_of::<PyUnicodeEncodeError>(s.py()) {
        Ok(Value::Object(Rc::new(PyObjectHost::new(s.clone(), None))))
    } else {
        Err(e)
    }
}

pub(crate) fn int_value(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    match i.extract::<i64>() {
        Ok(v) => Ok(Value::Int(v)),
        Err(_) => big_int(i),
    }
}

fn big_int(i: &Bound<'_, PyInt>) -> PyResult<Value> {
    let text = i.str()?.to_string();
    let b: num_bigint::BigInt = text
        .parse()
        .map_err(|_| PyTypeError::new_err("integer out of range"))?;
    Ok(Value::from_bigint(b))
}

/// A Python iterator as a lazy single-pass YAQL sequence (its items count
/// in the evaluation of the library function that iterates it).
pub fn lazy_from_python(it: Bound<'_, PyAny>) -> Value {
    let it: Py<PyAny> = it.unbind();
    Value::Iter(LazyIter::detached(move || {
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
