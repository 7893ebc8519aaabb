//! Lazy sequences and uniform iteration over collection values.

use crate::error::{Error, ErrorKind, Result};
use crate::limits::Run;
pub use crate::value::LazyIter;
use crate::value::{Dict, List, Set, Value};
use std::rc::Rc;

impl LazyIter {
    /// A lazy sequence over an iterator state, its items counted in `run`.
    pub fn from_cursor(run: &Rc<Run>, mut it: ValueIter) -> Rc<LazyIter> {
        LazyIter::from_fn(run, move || it.next())
    }
}

/// An iteration cursor over any iterable value.
pub enum ValueIter {
    List(List, usize),
    Set(Rc<Set>, usize),
    Keys(Dict, usize),
    Lazy(Rc<LazyIter>),
    Chars(Rc<str>, usize),
    Empty,
}

impl ValueIter {
    #[allow(clippy::should_implement_trait)]
    #[inline]
    pub fn next(&mut self) -> Result<Option<Value>> {
        if let ValueIter::Lazy(l) = self {
            return l.next();
        }
        self.next_item()
    }

    fn next_item(&mut self) -> Result<Option<Value>> {
        Ok(match self {
            ValueIter::List(l, i) => {
                let v = l.get(*i).cloned();
                *i += 1;
                v
            }
            ValueIter::Set(s, i) => {
                let v = s.get_index(*i).cloned();
                *i += 1;
                v
            }
            ValueIter::Keys(d, i) => {
                let v = d.get_index(*i).map(|(k, _)| k.clone());
                *i += 1;
                v
            }
            ValueIter::Lazy(l) => l.next()?,
            ValueIter::Chars(s, i) => match s[*i..].chars().next() {
                Some(c) => {
                    *i += c.len_utf8();
                    Some(Value::from(c.to_string()))
                }
                None => None,
            },
            ValueIter::Empty => None,
        })
    }

    /// Size when known without consuming.
    pub fn size_hint(&self) -> Option<usize> {
        match self {
            ValueIter::List(l, i) => Some(l.len().saturating_sub(*i)),
            ValueIter::Set(s, i) => Some(s.len().saturating_sub(*i)),
            ValueIter::Keys(d, i) => Some(d.len().saturating_sub(*i)),
            _ => None,
        }
    }

    /// Drain into a vector, held to the build budget of the run a lazy
    /// sequence counts in (see [`Run::check_built`]).
    pub fn collect_vec(&mut self) -> Result<Vec<Value>> {
        let run = match self {
            ValueIter::Lazy(l) => l.run().cloned(),
            _ => None,
        };
        let mut out = Vec::with_capacity(self.size_hint().unwrap_or(0));
        while let Some(v) = self.next()? {
            out.push(v);
            crate::limits::check_built_in(run.as_deref(), out.len())?;
        }
        Ok(out)
    }
}

/// Iterate a value: lists, sets, lazy sequences, and dict keys when
/// `dicts` is true. Strings and scalars are not iterable.
pub fn iterate(v: &Value, dicts: bool) -> Option<ValueIter> {
    Some(match v {
        Value::List(l) => ValueIter::List(l.clone(), 0),
        Value::Set(s) => ValueIter::Set(s.clone(), 0),
        Value::Iter(i) => ValueIter::Lazy(i.cursor()),
        Value::Dict(d) if dicts => ValueIter::Keys(d.clone(), 0),
        _ => return None,
    })
}

/// [`iterate`] by an evaluation whose run is `run`: a lazy sequence made
/// outside it (by a host, or by an evaluation that has ended) counts its
/// items in `run` (see [`LazyIter::counted_in`]).
pub fn iterate_in(run: &Rc<Run>, v: &Value, dicts: bool) -> Option<ValueIter> {
    match v {
        Value::Iter(i) => Some(ValueIter::Lazy(i.cursor().counted_in(run))),
        _ => iterate(v, dicts),
    }
}

/// Wrap an iterator so that pulling more than `limit` items fails.
pub fn limited(it: Rc<LazyIter>, limit: usize) -> Rc<LazyIter> {
    let mut count = 0usize;
    let outer = it.clone();
    let f = move || {
        let v = it.next()?;
        if v.is_some() {
            count += 1;
            if count > limit {
                return Err(too_large());
            }
        }
        Ok(v)
    };
    outer.rewrap(f)
}

pub fn too_large() -> Error {
    Error::new(
        ErrorKind::CollectionTooLarge,
        "Collection length exceeds the limit (yaql.limitIterators)",
    )
}
