//! Runtime values of the Datalog engine: integers, floats and interned strings.

use super::hash::FxHashMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

/// An interned string.
pub type Sym = u32;

/// A constant. Integers and integral floats compare (and hash) equal, as in Python.
#[derive(Clone, Copy, Debug)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(Sym),
}

/// A row of a table.
pub type Tuple = Rc<[Value]>;

impl Value {
    fn int_like(self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(i),
            Value::Float(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => Some(f as i64),
            _ => None,
        }
    }

    pub fn as_f64(self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(i as f64),
            Value::Float(f) => Some(f),
            Value::Str(_) => None,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (*self, *other) {
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Str(_), _) | (_, Value::Str(_)) => false,
            (a, b) => a.as_f64() == b.as_f64(),
        }
    }
}

impl Eq for Value {}

impl Hash for Value {
    fn hash<H: Hasher>(&self, state: &mut H) {
        match *self {
            Value::Str(s) => {
                0u8.hash(state);
                s.hash(state);
            }
            v => match v.int_like() {
                Some(i) => {
                    1u8.hash(state);
                    i.hash(state);
                }
                None => {
                    2u8.hash(state);
                    if let Value::Float(f) = v {
                        f.to_bits().hash(state);
                    }
                }
            },
        }
    }
}

/// The string table of one engine.
#[derive(Debug, Default, Clone)]
pub struct Symbols {
    map: FxHashMap<Rc<str>, Sym>,
    strs: Vec<Rc<str>>,
}

impl Symbols {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.map.get(s) {
            return id;
        }
        let rc: Rc<str> = Rc::from(s);
        let id = self.strs.len() as Sym;
        self.strs.push(rc.clone());
        self.map.insert(rc, id);
        id
    }

    pub fn get(&self, id: Sym) -> &str {
        self.strs.get(id as usize).map(|s| &**s).unwrap_or("")
    }

    pub fn lookup(&self, s: &str) -> Option<Sym> {
        self.map.get(s).copied()
    }

    /// The canonical text of a value: `1`, `1.5`, `"abc"`.
    pub fn render(&self, v: Value, out: &mut String) {
        match v {
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Float(f) => out.push_str(&vetro_pycompat::repr::float_repr(f)),
            Value::Str(s) => {
                out.push('"');
                out.push_str(self.get(s));
                out.push('"');
            }
        }
    }
}
