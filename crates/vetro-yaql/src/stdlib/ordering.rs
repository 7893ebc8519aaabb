//! `orderBy` and `thenBy`: a lazy sort, done when its first item is
//! pulled, and the comparison of yaql's ordering.

use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::Call;
use crate::iter::{LazyIter, ValueIter};
use crate::value::{compare, not_comparable, List, Value};
use std::cmp::Ordering;
use std::rc::Rc;

/// yaql ordering for sorting and min/max (null smallest; incomparable: error).
#[inline]
pub fn yaql_cmp(a: &Value, b: &Value) -> Result<Ordering> {
    // The usual keys, compared without a call.
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        _ => cmp_other(a, b),
    }
}

fn cmp_other(a: &Value, b: &Value) -> Result<Ordering> {
    if let (Value::Set(x), Value::Set(y)) = (a, b) {
        let sub = x.iter().all(|v| y.contains(v));
        let sup = y.iter().all(|v| x.contains(v));
        return Ok(match (sub, sup) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => Ordering::Equal,
        });
    }
    if (matches!(a, Value::Bool(_)) || matches!(b, Value::Bool(_))) && !(a.is_null() || b.is_null())
    {
        return Err(not_comparable(a, b));
    }
    compare(a, b).ok_or_else(|| not_comparable(a, b))
}

/// The sort keys of an `orderBy` result: each a selector and whether it
/// sorts descending.
type Keys = Vec<(Lambda, bool)>;

/// The pending sort of an `orderBy` result (its metadata, for `thenBy`).
struct OrderSpec {
    source: Value,
    keys: Keys,
}

/// `source` sorted by `keys`, lazily: the reference's `OrderingIterable`,
/// iterable but not an iterator.
pub fn ordered(c: &Call, source: Value, keys: Keys) -> Result<Value> {
    let mut src = Some(c.iter(&source)?);
    let spec = Rc::new(OrderSpec {
        source,
        keys: keys.clone(),
    });
    let mut sorted: Option<Sorted> = None;
    Ok(Value::Iter(LazyIter::iterable_with_meta(
        c.run(),
        move || {
            let s = match &mut sorted {
                Some(s) => s,
                None => {
                    let items = match src.take() {
                        // A list is sorted where it is, not copied.
                        Some(ValueIter::List(l, 0)) => l,
                        Some(mut it) => List::from(it.collect_vec()?),
                        None => List::new(),
                    };
                    sorted.insert(sort(items, &keys)?)
                }
            };
            Ok(s.next())
        },
        spec,
    )))
}

/// `thenBy`/`thenByDescending` (`desc`): the sort of `collection`, an
/// `orderBy` result, with one more key.
pub fn then_by(c: &Call, collection: &Value, selector: &Lambda, desc: bool) -> Result<Value> {
    let spec = match collection {
        Value::Iter(it) => it.meta.clone().and_then(|m| m.downcast::<OrderSpec>().ok()),
        _ => None,
    };
    let Some(spec) = spec else {
        return Err(Error::new(
            ErrorKind::NoMatchingMethod,
            format!("{} requires an orderBy result", c.name),
        ));
    };
    let mut keys = spec.keys.clone();
    keys.push((selector.clone(), desc));
    ordered(c, spec.source.clone(), keys)
}

/// Sorted items, handed out in order.
struct Sorted {
    /// The items' positions in sorted order.
    order: std::vec::IntoIter<u32>,
    items: List,
}

impl Sorted {
    fn next(&mut self) -> Option<Value> {
        let i = self.order.next()? as usize;
        Some(match self.items.get_mut() {
            // Items nothing else holds go as they are handed out.
            Some(items) => std::mem::replace(&mut items[i], Value::Null),
            None => self.items[i].clone(),
        })
    }
}

/// Sort `items` by `keys` (at least one), stably: every item's keys are
/// computed first, in the order of the items, then compared; the first
/// comparison that fails is the error.
fn sort(items: List, keys: &[(Lambda, bool)]) -> Result<Sorted> {
    let n = keys.len();
    // Every item's keys, `n` in a row.
    let mut all: Vec<Value> = Vec::with_capacity(items.len() * n);
    for it in items.iter() {
        for (l, _) in keys {
            all.push(l.call1_ref(it)?);
        }
    }
    let order = super::fallible_sort::sorted_positions(items.len(), |a, b| {
        let (ka, kb) = (&all[a as usize * n..][..n], &all[b as usize * n..][..n]);
        for ((x, y), (_, desc)) in ka.iter().zip(kb).zip(keys) {
            match yaql_cmp(x, y)? {
                Ordering::Equal => continue,
                o if *desc => return Ok(o.reverse()),
                o => return Ok(o),
            }
        }
        Ok(Ordering::Equal)
    })?;
    Ok(Sorted {
        order: order.into_iter(),
        items,
    })
}
