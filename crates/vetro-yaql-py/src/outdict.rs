//! Python dicts for the dictionaries of a result, made cheaply when they
//! share their keys (records do).
//!
//! Each distinct string key becomes one Python string per conversion. A
//! dictionary whose string keys (the same texts, in the same order) were met
//! before starts as a copy of a dict holding those keys: it is then at its
//! size and in order, and setting the values replaces, never inserts.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString};
use std::rc::Rc;
use vetro_yaql::value::Dict;
use vetro_yaql::Value;

/// Shapes kept per conversion at most (data with ever new key sets gains
/// nothing from them).
const MAX_SHAPES: usize = 256;

/// The dicts of one conversion. Keys are known by their text (a short
/// string lives inside each value that holds it, so its address tells
/// nothing); the maps' hashing is seeded at random, the texts being the
/// data's.
#[derive(Default)]
pub struct Dicts {
    /// The Python string of each key text met.
    keys: ahash::AHashMap<Rc<str>, Py<PyString>>,
    /// Key sets met, by the hash of their first key and their length.
    shapes: ahash::AHashMap<(u64, usize), Shape>,
}

/// The Python keys of a key set, in order.
pub type Keys = Rc<[Py<PyString>]>;

/// A set of string keys in order, and once met twice its Python keys and a
/// dict holding them.
struct Shape {
    texts: Vec<Rc<str>>,
    made: Option<(Py<PyDict>, Keys)>,
}

impl Shape {
    /// Whether `d`'s keys are this shape's (`d` has as many).
    fn fits(&self, d: &Dict) -> bool {
        d.keys()
            .zip(&self.texts)
            .all(|(k, t)| k.as_str() == Some(&**t))
    }
}

impl Dicts {
    /// The Python string for a string key; `None` for other keys.
    pub fn key<'py>(&mut self, py: Python<'py>, k: &Value) -> Option<Bound<'py, PyString>> {
        let text = k.as_str()?;
        if let Some(s) = self.keys.get(text) {
            return Some(s.bind(py).clone());
        }
        let s = PyString::new(py, text);
        self.keys.insert(Rc::from(text), s.clone().unbind());
        Some(s)
    }

    /// An empty Python dict for the entries of `d`, with the Python keys of
    /// its entries in order when it starts as a copy holding them.
    pub fn start<'py>(
        &mut self,
        py: Python<'py>,
        d: &Dict,
    ) -> PyResult<(Bound<'py, PyDict>, Option<Keys>)> {
        let slot = match d.first().and_then(|(k, _)| k.as_str()) {
            Some(first) if d.len() >= 2 => (self.shapes.hasher().hash_one(first), d.len()),
            _ => return Ok((PyDict::new(py), None)),
        };
        match self.shapes.get(&slot) {
            Some(shape) if shape.fits(d) => {
                if let Some((dict, keys)) = &shape.made {
                    return Ok((dict.bind(py).copy()?, Some(keys.clone())));
                }
            }
            // A shape first met: remembered, made when met again.
            _ => {
                let texts: Vec<Rc<str>> =
                    d.keys().map_while(|k| k.as_str().map(Rc::from)).collect();
                if texts.len() == d.len() && self.shapes.len() < MAX_SHAPES {
                    self.shapes.insert(slot, Shape { texts, made: None });
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
