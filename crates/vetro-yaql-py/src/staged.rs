//! The data of an evaluation converted in two steps, so that most of the
//! work runs without the GIL: a [`Stager`] reads the Python objects (which
//! needs the GIL) into a flat record of plain data, and [`Staged::build`]
//! makes the engine's values from it (allocating the strings, lists and
//! dicts) while other Python threads run.
//!
//! The record holds no Python object: string texts are copied into one
//! buffer, dictionary keys are made once per key object (as
//! [`crate::input`] does), and anything but the exact built-in scalars,
//! dicts, lists, tuples and `FrozenDict`s (subclasses, sets, datetimes,
//! host objects, ...) is converted in full by [`crate::input::Input`]
//! while the GIL is held.

use crate::input::{int_value, AddrMap, Input};
use crate::shim::Shim;
use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use std::sync::Mutex;
use vetro_yaql::value::{Dict, DictKeys, List};
use vetro_yaql::Value;

/// One step of the record; containers are followed by their items (dicts
/// by key and value in turn).
#[derive(Clone, Copy)]
enum Op {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A string: its text's start and length in [`Staged::text`].
    Str(u32, u32),
    /// A dictionary key made while staging ([`Staged::keys`]).
    Key(u32),
    /// A value converted in full while staging ([`Staged::ready`]).
    Ready(u32),
    /// A list of that many items.
    List(u32),
    /// A dict of that many entries; `true` when its keys are distinct
    /// strings (so it is made without comparing them).
    Dict(u32, bool),
}

/// Python data read for [`Staged::build`].
pub struct Staged {
    ops: Vec<Op>,
    text: String,
    keys: Vec<Value>,
    ready: Vec<Value>,
}

/// The buffers of records built, kept for the next stagings of an engine
/// (by whichever thread): a large record then costs no growing of its
/// buffers and no fresh memory.
#[derive(Default)]
pub struct Spares(Mutex<Vec<(Vec<Op>, String)>>);

/// Buffers past this size (in bytes) are not kept.
const SPARE_BYTES: usize = 16 << 20;
/// Nor more than this many sets of them.
const SPARE_SETS: usize = 8;

impl Spares {
    fn take(&self) -> (Vec<Op>, String) {
        self.lock().pop().unwrap_or_default()
    }

    fn give(&self, mut ops: Vec<Op>, mut text: String) {
        let bytes = ops.capacity() * std::mem::size_of::<Op>() + text.capacity();
        if bytes > SPARE_BYTES {
            return;
        }
        ops.clear();
        text.clear();
        let mut kept = self.lock();
        if kept.len() < SPARE_SETS {
            kept.push((ops, text));
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(Vec<Op>, String)>> {
        // The list holds whole, empty buffers only.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Staged {
    /// The values read, in the order they were staged (needs no GIL); the
    /// buffers go back to `spares`.
    pub fn build(self, spares: &Spares) -> Vec<Value> {
        let Staged {
            ops,
            text,
            keys,
            ready,
        } = self;
        let mut b = Builder {
            ops: &ops,
            text: &text,
            keys: &keys,
            ready,
            at: 0,
            items: Vec::new(),
            key_ids: Vec::new(),
            key_sets: AddrMap::default(),
        };
        while b.at < ops.len() {
            b.push_value();
        }
        let out = std::mem::take(&mut b.items);
        drop(b);
        spares.give(ops, text);
        out
    }
}

/// Lists of keys kept for dictionaries past this many distinct ones are
/// made afresh (dictionaries keyed by names rather than fields).
const MAX_KEY_SETS: usize = 4096;

/// What making the values of a record keeps between them.
struct Builder<'s> {
    ops: &'s [Op],
    text: &'s str,
    keys: &'s [Value],
    ready: Vec<Value>,
    /// The next step of the record.
    at: usize,
    /// The values made: those of the record's top level, and the items of
    /// the lists and the values of the dicts being made, innermost last.
    /// Each container is allocated once, at its final size, when it ends.
    items: Vec<Value>,
    /// The keys (by number) of the dicts being made, innermost last.
    key_ids: Vec<u32>,
    /// The lists of keys made, by the keys' numbers: records with the same
    /// keys in the same order share one.
    key_sets: AddrMap<Box<[u32]>, DictKeys>,
}

impl Builder<'_> {
    /// Make the next value of the record, onto [`Builder::items`].
    fn push_value(&mut self) {
        let op = self.ops[self.at];
        self.at += 1;
        match op {
            Op::Null => self.items.push(Value::Null),
            Op::Bool(b) => self.items.push(Value::Bool(b)),
            Op::Int(i) => self.items.push(Value::Int(i)),
            Op::Float(x) => self.items.push(Value::Float(x)),
            Op::Str(start, len) => {
                let start = start as usize;
                let s = &self.text[start..start + len as usize];
                self.items.push(Value::str(s));
            }
            Op::Key(i) => self.items.push(self.keys[i as usize].clone()),
            Op::Ready(i) => {
                let v = std::mem::replace(&mut self.ready[i as usize], Value::Null);
                self.items.push(v);
            }
            Op::List(n) => {
                let start = self.items.len();
                for _ in 0..n {
                    self.push_value();
                }
                let list = List::from_tail(&mut self.items, start);
                self.items.push(Value::List(list));
            }
            Op::Dict(n, true) => self.distinct_dict(n),
            Op::Dict(n, false) => {
                let start = self.items.len();
                for _ in 0..2 * n {
                    self.push_value();
                }
                let mut d = Dict::with_capacity(n as usize);
                let mut entries = self.items.drain(start..);
                while let (Some(k), Some(v)) = (entries.next(), entries.next()) {
                    d.insert(k, v);
                }
                drop(entries);
                self.items.push(Value::dict(d));
            }
        }
    }

    /// A dict whose keys are distinct strings, each staged as a key.
    fn distinct_dict(&mut self, n: u32) {
        let (start, first_key) = (self.items.len(), self.key_ids.len());
        for _ in 0..n {
            let Op::Key(k) = self.ops[self.at] else {
                unreachable!("the keys of a dict of distinct strings are staged as keys")
            };
            self.at += 1;
            self.key_ids.push(k);
            self.push_value();
        }
        let keys = self.key_set(first_key);
        self.key_ids.truncate(first_key);
        let d = Dict::from_keys_tail(&keys, &mut self.items, start);
        self.items.push(Value::dict(d));
    }

    /// The list of the keys numbered from `first` on in `key_ids`.
    fn key_set(&mut self, first: usize) -> DictKeys {
        let ids = &self.key_ids[first..];
        if let Some(keys) = self.key_sets.get(ids) {
            return keys.clone();
        }
        let keys =
            DictKeys::from_distinct(ids.iter().map(|&i| self.keys[i as usize].clone()).collect());
        if self.key_sets.len() < MAX_KEY_SETS {
            self.key_sets.insert(ids.into(), keys.clone());
        }
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
}

impl<'py> Stager<'py> {
    pub fn new(py: Python<'py>, spares: &Spares) -> Stager<'py> {
        let (ops, text) = spares.take();
        Stager {
            input: Input::new(py),
            out: Staged {
                ops,
                text,
                keys: Vec::new(),
                ready: Vec::new(),
            },
            key_index: AddrMap::default(),
            recent: Vec::new(),
            slow: 0,
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
    #[inline]
    fn item(&mut self, obj: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        if !self.scalar(&obj)? {
            self.container(&obj.to_owned())?;
        }
        Ok(())
    }

    /// The exact built-in scalars (told by a pointer comparison of their
    /// type); false for anything else.
    #[inline]
    fn scalar(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<bool> {
        let op = if let Ok(s) = obj.cast_exact::<PyString>() {
            self.text(s.to_str()?)
        } else if let Ok(i) = obj.cast_exact::<PyInt>() {
            match int_value(i)? {
                Value::Int(i) => Op::Int(i),
                big => self.ready(big),
            }
        } else if let Ok(f) = obj.cast_exact::<PyFloat>() {
            Op::Float(f.value())
        } else if obj.is_none() {
            Op::Null
        } else if let Ok(b) = obj.cast_exact::<PyBool>() {
            Op::Bool(b.is_true())
        } else {
            return Ok(false);
        };
        self.out.ops.push(op);
        Ok(true)
    }

    fn text(&mut self, s: &str) -> Op {
        let start = self.out.text.len();
        match (u32::try_from(start), u32::try_from(s.len())) {
            (Ok(start), Ok(len)) if start.checked_add(len).is_some() => {
                self.out.text.push_str(s);
                Op::Str(start, len)
            }
            _ => self.ready(Value::str(s)),
        }
    }

    fn ready(&mut self, v: Value) -> Op {
        self.out.ready.push(v);
        Op::Ready(self.out.ready.len() as u32 - 1)
    }

    fn container(&mut self, obj: &Bound<'py, PyAny>) -> PyResult<()> {
        if let Ok(d) = obj.cast_exact::<PyDict>() {
            return self.dict(d);
        }
        if let Ok(l) = obj.cast_exact::<PyList>() {
            return self.list(l);
        }
        if let Ok(t) = obj.cast_exact::<PyTuple>() {
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
        let op = self.ready(v);
        self.out.ops.push(op);
        Ok(())
    }

    /// The key at position `at` of a dictionary: a string key is made once
    /// per key object.
    fn key(&mut self, at: usize, k: Borrowed<'_, 'py, PyAny>) -> PyResult<()> {
        let Ok(s) = k.cast_exact::<PyString>() else {
            return self.item(k);
        };
        let addr = k.as_ptr() as usize;
        let index = match self.recent.get(at) {
            Some(&(a, i)) if a == addr => i,
            _ => {
                let i = match self.key_index.get(&addr) {
                    Some(&(_, i)) => i,
                    None => {
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
                i
            }
        };
        self.out.ops.push(Op::Key(index));
        Ok(())
    }

    /// A dict's entries read in place; its keys are known distinct when
    /// they are all strings and staging it ran no Python code (which could
    /// have changed it meanwhile).
    fn dict(&mut self, d: &Bound<'py, PyDict>) -> PyResult<()> {
        let (py, len) = (d.py(), d.len());
        let head = self.out.ops.len();
        self.out.ops.push(Op::Dict(0, false));
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
            str_keys &= k.is_exact_instance_of::<PyString>();
            self.key(n, k)?;
            self.item(v)?;
            n += 1;
        }
        if d.len() != len {
            return Err(PyRuntimeError::new_err(
                "dictionary changed size during iteration",
            ));
        }
        self.out.ops[head] = Op::Dict(count(py, n)?, str_keys && self.slow == slow);
        Ok(())
    }

    /// A list's items read in place.
    fn list(&mut self, l: &Bound<'py, PyList>) -> PyResult<()> {
        let head = self.out.ops.len();
        self.out.ops.push(Op::List(0));
        // The length is read at each step: staging an item may run Python
        // code that changes the list.
        let mut i = 0;
        while i < l.len() {
            // SAFETY: `l` is a list, `i` within it, the GIL held; the item
            // is borrowed as in `dict`.
            let item = unsafe { ffi::PyList_GetItem(l.as_ptr(), i as ffi::Py_ssize_t) };
            let item = unsafe { Borrowed::from_ptr_or_err(l.py(), item)? };
            self.item(item)?;
            i += 1;
        }
        self.out.ops[head] = Op::List(count(l.py(), i)?);
        Ok(())
    }
}

impl<'py> Stager<'py> {
    /// A tuple's items read in place (a tuple does not change).
    fn tuple(&mut self, t: &Bound<'py, PyTuple>) -> PyResult<()> {
        self.out.ops.push(Op::List(count(t.py(), t.len())?));
        for item in t.iter_borrowed() {
            self.item(item)?;
        }
        Ok(())
    }
}

/// A container's length as the record holds it.
fn count(py: Python<'_>, n: usize) -> PyResult<u32> {
    u32::try_from(n)
        .map_err(|_| crate::errors::to_pyerr(py, vetro_yaql::limits::memory_exceeded(), None))
}
