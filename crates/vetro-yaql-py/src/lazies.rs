//! The lazy sequences of a finished result, drained before the result is
//! converted to Python: where the engine evaluated, without the GIL, so the
//! evaluation they still hold runs while other Python threads do.
//!
//! The reference drains them as its output conversion meets them, and
//! that conversion stops at the first dict key or set member Python cannot
//! hash. So does the walk here: a lazy sequence after such a key is not
//! pulled (pulling it may raise another error, or never end), and the
//! key's `TypeError` is raised in its place.
//!
//! A result is first searched for lazy sequences (a walk that allocates
//! only its stack); most results built from Python data hold none and are
//! then converted as they are. Otherwise each lazy sequence becomes a list (under
//! `yaql.limitIterators` and the cap on what one evaluation builds), and the
//! lists and dictionaries holding one are rebuilt around it. The other
//! steps of the output conversion (sets, tuples, keys that Python cannot
//! hash) are the conversion to Python's.

use crate::convert::Shape;
use crate::input::AddrMap;
use std::cell::RefCell;
use std::rc::Rc;
use vetro_yaql::list_marks::ListMarks;
use vetro_yaql::value::{Address, Dict};
use vetro_yaql::{Result, Value};

/// `v` with its lazy sequences drained into lists, for its conversion in
/// the output shape `shape`. With `marks` (tuples kept), the lists made are
/// marked, to become Python lists, as the reference's output conversion
/// makes lazy sequences.
pub fn drain(v: Value, shape: Shape, marks: Option<&Rc<RefCell<ListMarks>>>) -> Result<Value> {
    let Shape::Output {
        keep_tuples,
        sets_to_lists,
        limit,
        quota,
    } = shape
    else {
        return Ok(v);
    };
    if !holds_lazy(&v) {
        return Ok(v);
    }
    let mut walk = Walk {
        limit,
        quota,
        keep_tuples,
        sets_to_lists,
        marks,
        seen: AddrMap::default(),
        items: 0,
    };
    Ok(walk.settle(&v)?.unwrap_or(v))
}

/// Whether `v` holds a lazy sequence (in a list or as a dict value): a walk
/// with a stack of its own (no recursion, however deep the value) that
/// visits a container held in several places once.
fn holds_lazy(v: &Value) -> bool {
    let mut todo = vec![v];
    let mut visited: AddrMap<Address, ()> = AddrMap::default();
    while let Some(v) = todo.pop() {
        if let Some(k) = shared(v) {
            // Seen before: its items are walked, or waiting on the stack.
            if visited.insert(k, ()).is_some() {
                continue;
            }
        }
        let items: &mut dyn Iterator<Item = &Value> = match v {
            Value::Iter(_) => return true,
            Value::List(l) => &mut l.iter(),
            Value::Dict(d) => &mut d.values(),
            _ => continue,
        };
        for x in items {
            match x {
                Value::Iter(_) => return true,
                Value::List(_) | Value::Dict(_) => todo.push(x),
                _ => {}
            }
        }
    }
    false
}

struct Walk<'a> {
    /// `yaql.limitIterators`, and `yaql.memoryQuota` for one list.
    limit: i64,
    quota: i64,
    /// The output shape's (see [`Shape::Output`]).
    keep_tuples: bool,
    sets_to_lists: bool,
    marks: Option<&'a Rc<RefCell<ListMarks>>>,
    /// What the shared containers met so far became (a value can hold one
    /// list on 2^60 paths).
    seen: AddrMap<Address, Option<Value>>,
    /// Items drained so far.
    items: usize,
}

/// The identity of a container held in more than one place.
fn shared(v: &Value) -> Option<Address> {
    match v {
        Value::List(l) if l.holders() > 1 && !l.is_empty() => Some(l.address()),
        Value::Dict(d) if d.holders() > 1 && !d.is_empty() => Some(d.address()),
        _ => None,
    }
}

impl Walk<'_> {
    /// What `v` becomes with its lazy sequences drained; `None` when it
    /// holds none.
    fn settle(&mut self, v: &Value) -> Result<Option<Value>> {
        if !matches!(v, Value::Iter(_) | Value::List(_) | Value::Dict(_)) {
            return Ok(None);
        }
        let key = shared(v);
        if let Some(done) = key.and_then(|k| self.seen.get(&k)) {
            return Ok(done.clone());
        }
        let out = vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || self.rebuild(v))?;
        if let Some(k) = key {
            self.seen.insert(k, out.clone());
        }
        Ok(out)
    }

    fn rebuild(&mut self, v: &Value) -> Result<Option<Value>> {
        Ok(match v {
            Value::Iter(it) => {
                // A sequence that is not an iterator is read from its start
                // wherever it is held.
                let it = it.cursor();
                let mut out = Vec::new();
                while let Some(x) = it.next()? {
                    out.push(self.settle(&x)?.unwrap_or(x));
                    self.count(out.len())?;
                }
                let list = Value::list(out);
                self.mark(&list);
                Some(list)
            }
            Value::List(l) => self.items_of(l.iter())?.map(|items| {
                let list = Value::list(items);
                if self.marks.is_some_and(|m| m.borrow().is_list(l)) {
                    self.mark(&list);
                }
                list
            }),
            Value::Dict(d) => {
                // The reference converts an entry's value, then its key,
                // then stores it: a key Python cannot hash stops there.
                let mut keys = d.keys();
                let values = self.items_of_checked(d.iter().map(|(_, x)| x), |walk| {
                    keys.next().map_or(Ok(()), |key| walk.check_hashable(key))
                })?;
                values.map(|values| {
                    // The keys are those of a dictionary: distinct.
                    let entries = d.keys().cloned().zip(values).collect();
                    Value::dict(Dict::from_distinct(entries))
                })
            }
            Value::Set(s) if !self.sets_to_lists => {
                for x in s.iter() {
                    self.check_hashable(x)?;
                }
                None
            }
            _ => None,
        })
    }

    /// Refuse `v` as a dict key or set member when its output form is one
    /// Python cannot hash, with Python's `TypeError`: a list (a sequence,
    /// unless tuples are kept and it was not built as a list; a lazy
    /// sequence), a dict, a set, or a tuple holding one of them.
    fn check_hashable(&self, v: &Value) -> Result<()> {
        let refused = match v {
            Value::List(l)
                if self.keep_tuples && !self.marks.is_some_and(|m| m.borrow().is_list(l)) =>
            {
                return vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || {
                    l.iter().try_for_each(|x| self.check_hashable(x))
                });
            }
            Value::List(_) | Value::Iter(_) => "list",
            Value::Set(_) if self.sets_to_lists => "list",
            Value::Set(_) => "set",
            Value::Dict(_) => "dict",
            _ => return Ok(()),
        };
        Err(vetro_yaql::Error::type_err(format!(
            "unhashable type: '{refused}'"
        )))
    }

    /// `items` settled, rebuilt from the first that changes; `None` when
    /// none does.
    fn items_of<'v>(
        &mut self,
        items: impl ExactSizeIterator<Item = &'v Value> + Clone,
    ) -> Result<Option<Vec<Value>>> {
        self.items_of_checked(items, |_| Ok(()))
    }

    /// [`Walk::items_of`], calling `after` once each item is settled.
    fn items_of_checked<'v>(
        &mut self,
        items: impl ExactSizeIterator<Item = &'v Value> + Clone,
        mut after: impl FnMut(&Self) -> Result<()>,
    ) -> Result<Option<Vec<Value>>> {
        let mut out: Option<Vec<Value>> = None;
        for (i, x) in items.clone().enumerate() {
            let new = self.settle(x)?;
            after(self)?;
            match (&mut out, new) {
                (Some(out), new) => out.push(new.unwrap_or_else(|| x.clone())),
                (None, Some(new)) => {
                    let mut v = Vec::with_capacity(items.len());
                    v.extend(items.clone().take(i).cloned());
                    v.push(new);
                    out = Some(v);
                }
                (None, None) => {}
            }
        }
        Ok(out)
    }

    fn mark(&self, list: &Value) {
        if let Some(m) = self.marks {
            m.borrow_mut().mark(list);
        }
    }

    /// One more item drained into a list of `len`: refused past
    /// `yaql.limitIterators` or the cap on what one evaluation builds.
    fn count(&mut self, len: usize) -> Result<()> {
        if self.limit >= 0 && len as i64 > self.limit {
            return Err(vetro_yaql::iter::too_large());
        }
        self.items += 1;
        if !len.is_multiple_of(4096) {
            return Ok(());
        }
        let size = std::mem::size_of::<Value>();
        let over_quota = usize::try_from(self.quota).is_ok_and(|q| q > 0 && len * size > q);
        if over_quota || self.items.saturating_mul(size) > vetro_yaql::limits::MAX_BUILD_BYTES {
            return Err(vetro_yaql::limits::memory_exceeded());
        }
        Ok(())
    }
}
