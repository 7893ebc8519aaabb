//! The lazy sequences of a finished result, drained before the result is
//! converted to Python: where the engine evaluated, without the GIL, so the
//! evaluation they still hold runs while other Python threads do.
//!
//! A result is first searched for lazy sequences (a walk that allocates
//! nothing); most results built from Python data hold none and are then
//! converted as they are. Otherwise each lazy sequence becomes a list (under
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
    let mut walk = Walk {
        limit,
        quota,
        marks,
        seen: AddrMap::default(),
        items: 0,
    };
    if !walk.holds_lazy(&v) {
        return Ok(v);
    }
    Ok(walk.settle(&v)?.unwrap_or(v))
}

struct Walk<'a> {
    limit: i64,
    quota: i64,
    marks: Option<&'a Rc<RefCell<ListMarks>>>,
    /// Shared containers met so far (a value can hold one list on 2^60
    /// paths): whether they hold a lazy sequence, then what they became.
    seen: AddrMap<Address, Seen>,
    /// Items drained so far.
    items: usize,
}

enum Seen {
    Holds(bool),
    Became(Option<Value>),
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
    /// Whether `v` holds a lazy sequence (in a list or as a dict value).
    fn holds_lazy(&mut self, v: &Value) -> bool {
        match v {
            Value::Iter(_) => return true,
            Value::List(_) | Value::Dict(_) => {}
            _ => return false,
        }
        let key = shared(v);
        match key.and_then(|k| self.seen.get(&k)) {
            Some(Seen::Holds(h)) => return *h,
            // Only a container holding a lazy sequence is rebuilt.
            Some(Seen::Became(_)) => return true,
            None => {}
        }
        let holds = vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || match v {
            Value::List(l) => l.iter().any(|x| self.holds_lazy(x)),
            Value::Dict(d) => d.values().any(|x| self.holds_lazy(x)),
            _ => false,
        });
        if let Some(k) = key {
            self.seen.insert(k, Seen::Holds(holds));
        }
        holds
    }

    /// What `v` becomes with its lazy sequences drained; `None` when it
    /// holds none.
    fn settle(&mut self, v: &Value) -> Result<Option<Value>> {
        if !self.holds_lazy(v) {
            return Ok(None);
        }
        let key = shared(v);
        if let Some(Seen::Became(done)) = key.and_then(|k| self.seen.get(&k)) {
            return Ok(done.clone());
        }
        let out = vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || self.rebuild(v))?;
        if let Some(k) = key {
            self.seen.insert(k, Seen::Became(out.clone()));
        }
        Ok(out)
    }

    fn rebuild(&mut self, v: &Value) -> Result<Option<Value>> {
        Ok(Some(match v {
            Value::Iter(it) => {
                let mut out = Vec::new();
                while let Some(x) = it.next()? {
                    out.push(self.settle(&x)?.unwrap_or(x));
                    self.count(out.len())?;
                }
                let list = Value::list(out);
                self.mark(&list);
                list
            }
            Value::List(l) => {
                let items = l
                    .iter()
                    .map(|x| Ok(self.settle(x)?.unwrap_or_else(|| x.clone())))
                    .collect::<Result<Vec<_>>>()?;
                let list = Value::list(items);
                if self.marks.is_some_and(|m| m.borrow().is_list(l)) {
                    self.mark(&list);
                }
                list
            }
            Value::Dict(d) => {
                let mut entries = Vec::with_capacity(d.len());
                for (k, x) in d.iter() {
                    entries.push((k.clone(), self.settle(x)?.unwrap_or_else(|| x.clone())));
                }
                // The keys are those of a dictionary: distinct.
                Value::dict(Dict::from_distinct(entries))
            }
            _ => return Ok(None),
        }))
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
