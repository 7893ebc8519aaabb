//! The lazy sequences of a finished result, drained before the result is
//! converted to Python: where the engine evaluated, without the GIL, so the
//! evaluation they still hold runs while other Python threads do.
//!
//! A result is first searched for lazy sequences (a walk that allocates
//! only its stack); most results built from Python data hold none and are
//! then converted as they are. Otherwise each lazy sequence becomes a list (under
//! `yaql.limitIterators` and the cap on what one evaluation builds), and the
//! lists and dictionaries holding one are rebuilt around it. The other
//! steps of the output conversion (sets, tuples, keys that Python cannot
//! hash) are the conversion to Python's.

use crate::input::AddrMap;
use std::cell::RefCell;
use std::rc::Rc;
use vetro_yaql::list_marks::ListMarks;
use vetro_yaql::value::{Address, Dict};
use vetro_yaql::{Result, Value};

/// `v` with its lazy sequences drained into lists. With `marks` (tuples
/// kept), the lists made are marked, to become Python lists, as the
/// reference's output conversion makes lazy sequences.
/// `limit` is `yaql.limitIterators`, `quota` `yaql.memoryQuota` (for one
/// list).
pub fn drain(
    v: Value,
    (limit, quota): (i64, i64),
    marks: Option<&Rc<RefCell<ListMarks>>>,
) -> Result<Value> {
    if !holds_lazy(&v) {
        return Ok(v);
    }
    let mut walk = Walk {
        limit,
        quota,
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
    limit: i64,
    quota: i64,
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
            Value::Dict(d) => self.items_of(d.iter().map(|(_, x)| x))?.map(|values| {
                // The keys are those of a dictionary: distinct.
                let entries = d.keys().cloned().zip(values).collect();
                Value::dict(Dict::from_distinct(entries))
            }),
            _ => None,
        })
    }

    /// `items` settled, rebuilt from the first that changes; `None` when
    /// none does.
    fn items_of<'v>(
        &mut self,
        items: impl ExactSizeIterator<Item = &'v Value> + Clone,
    ) -> Result<Option<Vec<Value>>> {
        let mut out: Option<Vec<Value>> = None;
        for (i, x) in items.clone().enumerate() {
            let new = self.settle(x)?;
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
