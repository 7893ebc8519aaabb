//! `orderBy` and `thenBy`: a lazy sort, done when its first item is
//! pulled, and the comparison of yaql's ordering.

use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::Call;
use crate::iter::{LazyIter, ValueIter};
use crate::value::{compare, not_comparable, List, Value};
use std::cmp::Ordering;
use std::rc::Rc;

/// yaql ordering for sorting (null smallest); keys that cannot be
/// compared are the reference's error from the `#operator_<` its sort
/// asks first.
#[inline]
pub fn yaql_cmp(a: &Value, b: &Value) -> Result<Ordering> {
    cmp_as(a, b, "#operator_<")
}

/// `a > b` as `min` and `max` ask it (the reference's `#operator_>`).
#[inline]
pub fn yaql_gt(a: &Value, b: &Value) -> Result<bool> {
    Ok(cmp_as(a, b, "#operator_>")? == Ordering::Greater)
}

/// yaql ordering, with `op` the comparison an error names.
#[inline(always)]
fn cmp_as(a: &Value, b: &Value, op: &str) -> Result<Ordering> {
    // The usual keys, compared without a call.
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Ok(x.cmp(y)),
        (Value::Str(x), Value::Str(y)) => Ok(x.cmp(y)),
        _ => cmp_other(a, b, op),
    }
}

/// The ordering of values other than two ints or two strings (`op`: the
/// comparison named by the error when there is none).
fn cmp_other(a: &Value, b: &Value, op: &str) -> Result<Ordering> {
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
        return Err(not_comparable(op, a, b));
    }
    compare(a, b).ok_or_else(|| not_comparable(op, a, b))
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
    Ok(Value::Iter(LazyIter::replaying(
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
        Some(spec),
        false,
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
            format!(
                "No method \"{}\" for a receiver that is not an orderBy result",
                c.name
            ),
        )
        .with_receiver(collection.clone()));
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

/// Sort `items` by `keys` (at least one), stably, one key at a time: the
/// first key of every item, then each next key only for the runs of items
/// that tie on the keys before it, each run sorted among itself. As in the
/// reference, whose comparison calls a later selector only on a tie, a
/// later key is computed only where it decides, and only one key per item
/// is held at a time. The first comparison that fails is the error.
fn sort(items: List, keys: &[(Lambda, bool)]) -> Result<Sorted> {
    let ((first, first_desc), rest) = keys.split_first().expect("orderBy has a key");
    if items.len() < 2 {
        // Nothing to compare: the reference calls no selector.
        return Ok(Sorted {
            order: if items.is_empty() { vec![] } else { vec![0] }.into_iter(),
            items,
        });
    }
    let column = keys_of(first, items.iter(), *first_desc)?;
    let mut order = super::fallible_sort::sorted_positions(column.len(), |a, b| {
        directed(&column[a as usize], &column[b as usize], *first_desc)
    })?;
    let mut ties = if rest.is_empty() {
        Vec::new()
    } else {
        tied_runs(0, order.iter().map(|&i| &column[i as usize]))?
    };
    drop(column);
    for (k, (selector, desc)) in rest.iter().enumerate() {
        let last = k + 1 == rest.len();
        let mut next = Vec::new();
        for run in ties {
            let start = run.start;
            let run = &mut order[run];
            let column = keys_of(selector, run.iter().map(|&i| &items[i as usize]), *desc)?;
            let local = super::fallible_sort::sorted_positions(column.len(), |a, b| {
                directed(&column[a as usize], &column[b as usize], *desc)
            })?;
            let placed: Vec<u32> = local.iter().map(|&j| run[j as usize]).collect();
            run.copy_from_slice(&placed);
            if !last {
                next.extend(tied_runs(
                    start,
                    local.iter().map(|&j| &column[j as usize]),
                )?);
            }
        }
        ties = next;
        if ties.is_empty() {
            break;
        }
    }
    Ok(Sorted {
        order: order.into_iter(),
        items,
    })
}

/// The key `selector` gives each of two or more items, in a vector of
/// their number (a collected `Result` would grow it by doubling). The
/// reference calls the selector as its sort compares: the second item
/// first, then the first, then each next item, after the comparisons of
/// the items before it. So when the selector fails on an item, a failing
/// comparison among the items before it is the error.
fn keys_of<'a>(
    selector: &Lambda,
    mut items: impl ExactSizeIterator<Item = &'a Value>,
    desc: bool,
) -> Result<Vec<Value>> {
    let mut keys = Vec::with_capacity(items.len());
    let (Some(a), Some(b)) = (items.next(), items.next()) else {
        unreachable!("keys are computed for two or more items");
    };
    let kb = selector.call1_ref(b)?;
    keys.push(selector.call1_ref(a)?);
    keys.push(kb);
    for it in items {
        match selector.call1_ref(it) {
            Ok(k) => keys.push(k),
            Err(e) => {
                super::fallible_sort::sorted_positions(keys.len(), |a, b| {
                    directed(&keys[a as usize], &keys[b as usize], desc)
                })?;
                return Err(e);
            }
        }
    }
    Ok(keys)
}

/// yaql's comparison, reversed for a descending key.
fn directed(a: &Value, b: &Value, desc: bool) -> Result<Ordering> {
    let o = yaql_cmp(a, b)?;
    Ok(if desc { o.reverse() } else { o })
}

/// The ranges (from `start` on) of two or more keys in a row that compare
/// equal, in sorted keys.
fn tied_runs<'a>(
    start: usize,
    sorted: impl Iterator<Item = &'a Value>,
) -> Result<Vec<std::ops::Range<usize>>> {
    let mut runs = Vec::new();
    let (mut from, mut at, mut prev) = (start, start, None::<&Value>);
    for key in sorted {
        if let Some(p) = prev {
            if yaql_cmp(p, key)? != Ordering::Equal {
                if at - from > 1 {
                    runs.push(from..at);
                }
                from = at;
            }
        }
        prev = Some(key);
        at += 1;
    }
    if at - from > 1 {
        runs.push(from..at);
    }
    Ok(runs)
}
