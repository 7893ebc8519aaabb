//! Python dicts for the dictionaries of a result, made cheaply when they
//! share their keys (records do).
//!
//! Each distinct string key becomes one Python string per conversion. A
//! dictionary whose string keys (the same texts, in the same order) were met
//! before starts as a copy of a dict holding those keys: it is then at its
//! size and in order, and setting the values replaces, never inserts.

use crate::input::AddrMap;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::rc::Rc;
use vetro_yaql::value::Dict;
use vetro_yaql::Value;

/// Shapes kept per conversion at most (data with ever new key sets gains
/// nothing from them).
const MAX_SHAPES: usize = 256;

/// A string key's place: the address and length of its text. Every key met
/// is held in [`Dicts::keys`], so a place stands for one text while the
/// conversion runs.
type At = (usize, usize);

fn at(k: &Value) -> Option<At> {
    k.as_str().map(|t| (t.as_ptr() as usize, t.len()))
}

/// The dicts of one conversion.
#[derive(Default)]
pub struct Dicts {
    /// The Python string of each key text met (with the key, held).
    keys: AddrMap<At, (Value, Py<PyString>)>,
    /// Key sets met, by the place of their first key and their length.
    shapes: AddrMap<(At, usize), Shape>,
}

/// The Python keys of a key set, in order.
pub type Keys = Rc<[Py<PyString>]>;

/// A set of string keys in order, and once met twice its Python keys and a
/// dict holding them.
struct Shape {
    at: Vec<At>,
    made: Option<(Py<PyDict>, Keys)>,
}

impl Dicts {
    /// The Python string for a string key; `None` for other keys.
    pub fn key<'py>(&mut self, py: Python<'py>, k: &Value) -> Option<Bound<'py, PyString>> {
        let (text, at) = (k.as_str()?, at(k)?);
        if let Some((held, s)) = self.keys.get(&at) {
            if held
                .as_str()
                .is_some_and(|h| std::ptr::eq(h, text) || h == text)
            {
                return Some(s.bind(py).clone());
            }
        }
        let s = PyString::new(py, text);
        self.keys.insert(at, (k.clone(), s.clone().unbind()));
        Some(s)
    }

    /// An empty Python dict for the entries of `d`, with the Python keys of
    /// its entries in order when it starts as a copy holding them.
    pub fn start<'py>(
        &mut self,
        py: Python<'py>,
        d: &Dict,
    ) -> PyResult<(Bound<'py, PyDict>, Option<Keys>)> {
        let slot = match d.first().and_then(|(k, _)| at(k)) {
            Some(first) if d.len() >= 2 => (first, d.len()),
            _ => return Ok((PyDict::new(py), None)),
        };
        let same = |shape: &Shape| d.keys().zip(&shape.at).all(|(k, a)| at(k) == Some(*a));
        match self.shapes.get(&slot) {
            Some(shape) if same(shape) => {
                if let Some((dict, keys)) = &shape.made {
                    return Ok((dict.bind(py).copy()?, Some(keys.clone())));
                }
            }
            // A shape first met: remembered, made when met again.
            _ => {
                let at: Vec<At> = d.keys().map_while(at).collect();
                if at.len() == d.len() && self.shapes.len() < MAX_SHAPES {
                    self.shapes.insert(slot, Shape { at, made: None });
                }
                return Ok((PyDict::new(py), None));
            }
        }
        let template = PyDict::new(py);
        let mut keys = Vec::with_capacity(d.len());
        for k in d.keys() {
            let Some(s) = self.key(py, k) else {
                return Ok((PyDict::new(py), None));
            };
            template.set_item(&s, py.None())?;
            keys.push(s.unbind());
        }
        let keys: Keys = keys.into();
        let out = template.copy()?;
        if let Some(shape) = self.shapes.get_mut(&slot) {
            shape.made = Some((template.unbind(), keys.clone()));
        }
        Ok((out, Some(keys)))
    }
}
