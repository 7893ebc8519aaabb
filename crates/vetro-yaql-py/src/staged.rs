//! The data of an evaluation converted in two steps, so that most of the
//! work runs without the GIL: a [`Stager`] reads the Python objects (which
//! needs the GIL) into a flat record, and [`Staged::build`] makes the
//! engine's values from it (allocating the lists, dicts and long strings)
//! while other Python threads run.
//!
//! The record holds no Python object: scalars are made as they are read
//! (short strings are held in the value, no allocation), longer string
//! texts are copied into one buffer, dictionary keys are made once per key
//! object (as [`crate::input`] does), and anything but the exact built-in
//! scalars, dicts, lists, tuples and `FrozenDict`s (subclasses, sets,
//! datetimes, host objects, ...) is converted in full by
//! [`crate::input::Input`] while the GIL is held.
//!
//! Values are written where they go, one function per kind of value (see
//! [`put_with`]), and the made values travel apart from the steps of the
//! record, so that each is copied whole: a value moved out of an enum that
//! wraps it, or pushed after a choice of kinds, is compiled as a copy
//! through the stack, field by field then read back by wider loads, which
//! the processor cannot forward from the narrower stores (a stall of a
//! dozen cycles per value, once a fifth of the time of a conversion).

use crate::depth::{deeper, Depth, Nests};
use crate::input::{exact, int_value, not_text, AddrMap, Input};
use crate::shim::Shim;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::sync::Mutex;
use vetro_yaql::value::{Dict, DictKeys, List, Str};
use vetro_yaql::Value;

/// One step of the record; containers are followed by their items (dicts
/// by key and value in turn).
#[derive(Clone, Copy)]
enum Step {
    /// The next of the values made while staging ([`Staged::values`]).
    Value,
    /// A string too long to be held in a value: its text's start and
    /// length in [`Staged::text`].
    Text(u32, u32),
    /// A dictionary key made while staging ([`Staged::keys`]).
    Key(u32),
    /// A list of that many items.
    List(u32),
    /// A dict of that many entries; `true` when its keys are distinct
    /// strings (so it is made without comparing them).
    Dict(u32, bool),
}

/// Python data read for [`Staged::build`].
pub struct Staged {
    steps: Vec<Step>,
    /// The scalars and the values converted in full, in order.
    values: Vec<Value>,
    text: String,
    keys: Vec<Value>,
    /// An empty buffer for [`Builder::items`].
    items: Vec<Value>,
}

/// The buffers of records built, kept for the next stagings of an engine
/// (by whichever thread): a large record then costs no growing of its
/// buffers and no fresh memory.
#[derive(Default)]
pub struct Spares(Mutex<Vec<Buffers>>);

/// The emptied buffers of one record and of its building.
#[derive(Default)]
struct Buffers {
    steps: Vec<Step>,
    values: Vec<Value>,
    text: String,
    items: Vec<Value>,
}

// SAFETY: a `Buffers` is either new or emptied by `Spares::give`: its
// vectors of values hold none (whose `Rc`s must stay on one thread), only
// memory of the global allocator, which any thread may free.
unsafe impl Send for Buffers {}

/// Buffers past this size (in bytes) are not kept.
const SPARE_BYTES: usize = 16 << 20;
/// Nor more than this many sets of them.
const SPARE_SETS: usize = 8;

impl Spares {
    fn take(&self) -> Buffers {
        self.lock().pop().unwrap_or_default()
    }

    fn give(&self, mut b: Buffers) {
        let bytes = b.steps.capacity() * std::mem::size_of::<Step>()
            + (b.values.capacity() + b.items.capacity()) * std::mem::size_of::<Value>()
            + b.text.capacity();
        if bytes > SPARE_BYTES {
            return;
        }
        b.steps.clear();
        b.values.clear();
        b.text.clear();
        b.items.clear();
        let mut kept = self.lock();
        if kept.len() < SPARE_SETS {
            kept.push(b);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Buffers>> {
        // The list holds whole, empty buffers only.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Staged {
    /// A string too long to be held in a value, its text copied for later.
    fn long_text(&mut self, s: &str) {
        match (u32::try_from(self.text.len()), u32::try_from(s.len())) {
            (Ok(start), Ok(len)) if start.checked_add(len).is_some() => {
                self.text.push_str(s);
                self.steps.push(Step::Text(start, len));
            }
            _ => self.value(Value::str(s)),
        }
    }

    /// The next value, made already.
    fn value(&mut self, v: Value) {
        put(&mut self.values, v);
        self.steps.push(Step::Value);
    }

    /// The values read, in the order they were staged (needs no GIL); the
    /// buffers go back to `spares`.
    pub fn build(self, spares: &Spares) -> Vec<Value> {
        let Staged {
            steps,
            mut values,
            text,
            keys,
            items,
        } = self;
        let mut b = Builder {
            steps: steps.iter(),
            values: values.drain(..),
            text: &text,
            keys: &keys,
            items,
            key_ids: Vec::new(),
            key_sets: AddrMap::default(),
            last_keys: None,
        };
        while b.steps.len() > 0 {
            b.push_next();
        }
        // The values go out in a vector of their own; the buffer that held
        // them while they were made is kept.
        let out = b.items.drain(..).collect();
        let items = std::mem::take(&mut b.items);
        drop(b);
        spares.give(Buffers {
            steps,
            values,
            text,
            items,
        });
        out
    }
}

/// Lists of keys kept for dictionaries past this many distinct ones are
/// made afresh (dictionaries keyed by names rather than fields).
const MAX_KEY_SETS: usize = 4096;

/// What making the values of a record keeps between them.
struct Builder<'s> {
    /// The steps of the record not taken yet.
    steps: std::slice::Iter<'s, Step>,
    /// The values made while staging not placed yet.
    values: std::vec::Drain<'s, Value>,
    text: &'s str,
    keys: &'s [Value],
    /// The values made: those of the record's top level, and the items of
    /// the lists and the values of the dicts being made, innermost last.
    /// Each container is allocated once, at its final size, when it ends.
    items: Vec<Value>,
    /// The keys (by number) of the dicts being made, innermost last.
    key_ids: Vec<u32>,
    /// The lists of keys made, by the keys' numbers: records with the same
    /// keys in the same order share one.
    key_sets: AddrMap<Box<[u32]>, DictKeys>,
    /// The list of keys of the last dict made (records in a row mostly
    /// have the same keys: found then without hashing).
    last_keys: Option<(Box<[u32]>, DictKeys)>,
}

impl Builder<'_> {
    /// Make the next value of the record, onto [`Builder::items`].
    fn push_next(&mut self) {
        const WHOLE: &str = "a record holds the items of its containers";
        let step = *self.steps.next().expect(WHOLE);
        let items = &mut self.items;
        match step {
            Step::Value => put(items, self.values.next().expect(WHOLE)),
            Step::Text(start, len) => {
                let start = start as usize;
                let s = &self.text[start..start + len as usize];
                put_with(items, || Value::str(s));
            }
            Step::Key(i) => {
                let keys = self.keys;
                put_with(items, || keys[i as usize].clone());
            }
            Step::List(n) => {
                let start = items.len();
                items.reserve(n as usize);
                for _ in 0..n {
                    self.push_next();
                }
                let list = List::from_tail(&mut self.items, start);
                put_with(&mut self.items, || Value::List(list));
            }
            Step::Dict(n, true) => self.distinct_dict(n),
            Step::Dict(n, false) => {
                let start = items.len();
                for _ in 0..2 * n {
                    self.push_next();
                }
                let mut d = Dict::with_capacity(n as usize);
                let mut entries = self.items.drain(start..);
                while let (Some(k), Some(v)) = (entries.next(), entries.next()) {
                    d.insert(k, v);
                }
                drop(entries);
                put_with(&mut self.items, || Value::dict(d));
            }
        }
    }

    /// A dict whose keys are distinct strings, each staged as a key.
    fn distinct_dict(&mut self, n: u32) {
        let (start, first_key) = (self.items.len(), self.key_ids.len());
        self.items.reserve(n as usize);
        for _ in 0..n {
            let Some(&Step::Key(k)) = self.steps.next() else {
                unreachable!("the keys of a dict of distinct strings are staged as keys")
            };
            self.key_ids.push(k);
            self.push_next();
        }
        let keys = self.key_set(first_key);
        self.key_ids.truncate(first_key);
        let d = Dict::from_keys_tail(&keys, &mut self.items, start);
        put_with(&mut self.items, || Value::dict(d));
    }

    /// The list of the keys numbered from `first` on in `key_ids`.
    fn key_set(&mut self, first: usize) -> DictKeys {
        let ids = &self.key_ids[first..];
        if let Some((last, keys)) = &self.last_keys {
            if **last == *ids {
                return keys.clone();
            }
        }
        let keys = match self.key_sets.get(ids) {
            Some(keys) => keys.clone(),
            None => {
                let keys = DictKeys::from_distinct(
                    ids.iter().map(|&i| self.keys[i as usize].clone()).collect(),
                );
                if self.key_sets.len() < MAX_KEY_SETS {
                    self.key_sets.insert(ids.into(), keys.clone());
                }
                keys
            }
        };
        self.last_keys = Some((ids.into(), keys.clone()));
        keys
    }
}

/// One staging of one or more values: the record made so far and what
/// finds dictionary keys (shared by all the values).
pub struct Stager<'py> {
    /// Converts in full what is not staged.
    input: Input<'py>,
    out: Staged,
    /// The string keys staged so far, by the address of their Python
    /// object (held so that the address is not reused meanwhile).
    key_index: AddrMap<usize, (Bound<'py, PyAny>, u32)>,
    /// The keys of the last dict staged, by position (address and index):
    /// records hold the same keys in the same order.
    recent: Vec<(usize, u32)>,
    /// Objects converted by [`Input`], which may run Python code.
    slow: usize,
    depth: Depth,
}

impl Nests for Stager<'_> {
    fn depth(&mut self) -> &mut Depth {
        &mut self.depth
    }
}

impl<'py> Stager<'py> {
    pub fn new(py: Python<'py>, spares: &Spares) -> Stager<'py> {
        let Buffers {
            steps,
            values,
            text,
            items,
        } = spares.take();
        Stager {
            input: Input::new(py),
            out: Staged {
                steps,
                values,
                text,
                keys: Vec::new(),
                items,
            },
            key_index: AddrMap::default(),
            recent: Vec::new(),
            slow: 0,
            depth: Depth::new("data"),
        }
    }

    /// The record of the values staged, for [`Staged::build`].
    pub fn finish(self) -> Staged {
        self.out
    }

    /// Read `obj` (with the GIL held) as the next value.
    pub fn value(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if !self.scalar(obj)? {
            self.container(obj)?;
        }
        Ok(())
    }

    /// An item of a container, read without taking a reference: a scalar
    /// is staged as it is (which runs no Python code); anything else is
    /// held first.
    #[inline(always)]
    fn item(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        // Strings, the most common items, without a call.
        if obj.is_exact_instance_of::<PyString>() {
            return self.string(&obj);
        }
        // Then dicts (records), without trying the other scalars first.
        if obj.is_exact_instance_of::<PyDict>() {
            // SAFETY: the type was just checked. Held while it is staged.
            let d = unsafe { obj.to_owned().cast_into_unchecked::<PyDict>() };
            return self.dict(&d);
        }
        if obj.is_exact_instance_of::<PyList>() {
            // SAFETY: as for a dict.
            let l = unsafe { obj.to_owned().cast_into_unchecked::<PyList>() };
            return self.list(&l);
        }
        if !self.scalar(&obj)? {
            self.container(&obj.to_owned())?;
        }
        Ok(())
    }

    /// An exact `str`.
    #[inline(always)]
    fn string(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        let mut size: ffi::Py_ssize_t = 0;
        // SAFETY: `obj` is a str and the GIL is held.
        let data = unsafe { ffi::PyUnicode_AsUTF8AndSize(obj.as_ptr(), &mut size) };
        if data.is_null() {
            return self.not_text(obj);
        }
        // SAFETY: Python gives the UTF-8 text of the string, `size` bytes
        // at `data`, alive as long as the string (held by its container).
        let s = unsafe {
            std::str::from_utf8_unchecked(std::slice::from_raw_parts(
                data.cast::<u8>(),
                size as usize,
            ))
        };
        let out = &mut self.out;
        if s.len() > Str::INLINE {
            out.long_text(s);
        } else {
            put_with(&mut out.values, || Value::str(s));
            out.steps.push(Step::Value);
        }
        Ok(())
    }

    /// A str whose text could not be read (see [`not_text`]).
    #[cold]
    #[inline(never)]
    fn not_text(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        let v = not_text(obj, PyErr::fetch(obj.py()))?;
        self.out.value(v);
        Ok(())
    }

    /// The exact built-in scalars (told by a pointer comparison of their
    /// type); false for anything else.
    #[inline(never)]
    fn scalar(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<bool> {
        let out = &mut self.out;
        if exact::<PyString>(obj).is_some() {
            self.string(obj)?;
            return Ok(true);
        } else if let Some(i) = exact::<PyInt>(obj) {
            match i.extract::<i64>() {
                Ok(n) => put_with(&mut out.values, || Value::Int(n)),
                Err(_) => put(&mut out.values, int_value(i)?),
            }
        } else if let Some(f) = exact::<PyFloat>(obj) {
            let x = f.value();
            put_with(&mut out.values, || Value::Float(x));
        } else if obj.is_none() {
            put_with(&mut out.values, || Value::Null);
        } else if let Some(b) = exact::<PyBool>(obj) {
            let b = b.is_true();
            put_with(&mut out.values, || Value::Bool(b));
        } else {
            return Ok(false);
        }
        out.steps.push(Step::Value);
        Ok(true)
    }

    fn container(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if let Some(d) = exact::<PyDict>(obj) {
            return self.dict(d);
        }
        if let Some(l) = exact::<PyList>(obj) {
            return self.list(l);
        }
        if let Some(t) = exact::<PyTuple>(obj) {
            return self.tuple(t);
        }
        // The frozen dicts of `yaql.utils.convert_input_data` (Mistral's
        // data): the class's own dict, read from its slot (no Python code).
        let py = obj.py();
        if obj.get_type().is(Shim::get(py)?.frozen_dict_cls.bind(py)) {
            if let Ok(d) = obj.getattr(intern!(py, "_d"))?.cast_exact::<PyDict>() {
                return self.dict(d);
            }
        }
        self.slow += 1;
        let v = self.input.value(obj)?;
        self.out.value(v);
        Ok(())
    }

    /// The string key at position `at` of a dictionary, made once per key
    /// object: most are found as the key at the same position in the
    /// dict staged before (records have the same keys in the same order).
    #[inline(always)]
    fn str_key(&mut self, at: usize, k: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let addr = k.as_ptr() as usize;
        let index = match self.recent.get(at) {
            Some(&(a, i)) if a == addr => i,
            _ => self.new_str_key(at, k)?,
        };
        self.out.steps.push(Step::Key(index));
        Ok(())
    }

    /// A string key not at the same position in the dict before.
    #[inline(never)]
    fn new_str_key(&mut self, at: usize, k: Borrowed<'_, 'py, PyAny>) -> PyResult<u32> {
        let addr = k.as_ptr() as usize;
        let i = match self.key_index.get(&addr) {
            Some(&(_, i)) => i,
            None => {
                // SAFETY: the caller found `k` to be a str.
                let s = unsafe { k.cast_unchecked::<PyString>() };
                self.out.keys.push(Value::str(s.to_str()?));
                let i = self.out.keys.len() as u32 - 1;
                self.key_index.insert(addr, (k.to_owned(), i));
                i
            }
        };
        if at < self.recent.len() {
            self.recent[at] = (addr, i);
        } else if at == self.recent.len() {
            self.recent.push((addr, i));
        }
        Ok(i)
    }

    /// A dict's entries read in place; its keys are known distinct when
    /// they are all strings and staging it ran no Python code (which could
    /// have changed it meanwhile).
    fn dict(&mut self, d: &Bound<'py, PyDict>) -> PyResult<()> {
        deeper(self, |s| s.dict_entries(d))
    }

    #[inline(always)]
    fn dict_entries(&mut self, d: &Bound<'py, PyDict>) -> PyResult<()> {
        let (py, len) = (d.py(), d.len());
        let head = self.out.steps.len();
        self.out.steps.push(Step::Dict(0, false));
        let slow = self.slow;
        let mut str_keys = true;
        let mut n = 0usize;
        let mut pos: ffi::Py_ssize_t = 0;
        let (mut k, mut v) = (std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: `d` is a dict and the GIL is held; the key and value are
        // borrowed from it and used before the next step (held first when
        // staging them may run Python code, see `item`).
        while unsafe { ffi::PyDict_Next(d.as_ptr(), &mut pos, &mut k, &mut v) } != 0 {
            let (k, v) = unsafe { (Borrowed::from_ptr(py, k), Borrowed::from_ptr(py, v)) };
            if k.is_exact_instance_of::<PyString>() {
                self.str_key(n, k)?;
            } else {
                str_keys = false;
                self.item(k)?;
            }
            self.item(v)?;
            n += 1;
        }
        if d.len() != len {
            return Err(PyRuntimeError::new_err(
                "dictionary changed size during iteration",
            ));
        }
        self.out.steps[head] = Step::Dict(count(py, n)?, str_keys && self.slow == slow);
        Ok(())
    }

    /// A list's items read in place.
    fn list(&mut self, l: &Bound<'py, PyList>) -> PyResult<()> {
        deeper(self, |s| s.list_items(l))
    }

    #[inline(always)]
    fn list_items(&mut self, l: &Bound<'py, PyList>) -> PyResult<()> {
        let head = self.out.steps.len();
        self.out.steps.push(Step::List(0));
        // The length is read again after an item whose staging ran Python
        // code (which may have changed the list).
        let (mut i, mut len, mut slow) = (0, l.len(), self.slow);
        while i < len {
            // SAFETY: `l` is a list, `i` within it, the GIL held; the item
            // is borrowed as in `dict`.
            let item = unsafe { ffi::PyList_GetItem(l.as_ptr(), i as ffi::Py_ssize_t) };
            let item = unsafe { Borrowed::from_ptr_or_err(l.py(), item)? };
            self.item(item)?;
            i += 1;
            if self.slow != slow {
                (len, slow) = (l.len(), self.slow);
            }
        }
        self.out.steps[head] = Step::List(count(l.py(), i)?);
        Ok(())
    }
}

impl<'py> Stager<'py> {
    /// A tuple's items read in place (a tuple does not change).
    fn tuple(&mut self, t: &Bound<'py, PyTuple>) -> PyResult<()> {
        deeper(self, |s| {
            s.out.steps.push(Step::List(count(t.py(), t.len())?));
            for item in t.iter_borrowed() {
                s.item(item)?;
            }
            Ok(())
        })
    }
}

/// Push `v` (made and moved whole already).
#[inline(always)]
fn put<T>(to: &mut Vec<T>, v: T) {
    to.reserve(1);
    let len = to.len();
    to.spare_capacity_mut()[0].write(v);
    // SAFETY: the item past the end was just written.
    unsafe { to.set_len(len + 1) };
}

/// Push the value `make` makes, written where it goes: each caller's
/// closure makes this a function of its own, so pushes of different kinds
/// are not merged into one push through the stack (see the module text).
/// The room is made first: a value made before a call that may grow the
/// vector would be kept on the stack across it, and copied the same way.
#[inline(never)]
fn put_with<T>(to: &mut Vec<T>, make: impl FnOnce() -> T) {
    to.reserve(1);
    let len = to.len();
    to.spare_capacity_mut()[0].write(make());
    // SAFETY: the item past the end was just written.
    unsafe { to.set_len(len + 1) };
}

/// A container's length as the record holds it.
fn count(py: Python<'_>, n: usize) -> PyResult<u32> {
    u32::try_from(n)
        .map_err(|_| crate::errors::to_pyerr(py, vetro_yaql::limits::memory_exceeded(), None))
}
