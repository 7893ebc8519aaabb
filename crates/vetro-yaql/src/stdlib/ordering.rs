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

/// Sort `items` by `keys` (at least one), stably, one key at a time: the
/// first key of every item, then each next key only for the runs of items
/// that tie on the keys before it, each run sorted among itself. As in the
/// reference, whose comparison calls a later selector only on a tie, a
/// later key is computed only where it decides, and only one key per item
/// is held at a time. Keys are computed as comparisons first need them
/// (see [`Column`]).
fn sort(items: List, keys: &[(Lambda, bool)]) -> Result<Sorted> {
    let ((first, first_desc), rest) = keys.split_first().expect("orderBy has a key");
    let mut column = Column::new(first, items.len());
    let item = |i: usize| &items[i];
    let mut order = super::fallible_sort::sorted_positions(items.len(), |a, b| {
        column.compare(a, b, item, *first_desc)
    })?;
    let mut ties = if rest.is_empty() || items.len() < 2 {
        Vec::new()
    } else {
        column.complete(item)?;
        tied_runs(0, order.iter().map(|&i| column.key(i)))?
    };
    drop(column);
    for (k, (selector, desc)) in rest.iter().enumerate() {
        let last = k + 1 == rest.len();
        let mut next = Vec::new();
        for run in ties {
            let start = run.start;
            let run = &mut order[run];
            let item = |j: usize| &items[run[j] as usize];
            let mut column = Column::new(selector, run.len());
            let local = super::fallible_sort::sorted_positions(run.len(), |a, b| {
                column.compare(a, b, item, *desc)
            })?;
            if !last {
                column.complete(item)?;
                next.extend(tied_runs(start, local.iter().map(|&j| column.key(j)))?);
            }
            let placed: Vec<u32> = local.iter().map(|&j| run[j as usize]).collect();
            run.copy_from_slice(&placed);
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

/// The keys of a sort by one selector, each computed when a comparison
/// first needs it. The reference's comparison calls the selector on both
/// items it compares (the item our sort names second, first), so a
/// selector or a comparison that fails, fails where the reference's does;
/// with fewer than two items no selector is called.
struct Column<'a> {
    selector: &'a Lambda,
    keys: Vec<Option<Value>>,
}

impl<'a> Column<'a> {
    fn new(selector: &'a Lambda, n: usize) -> Self {
        let mut keys = Vec::with_capacity(n);
        keys.resize_with(n, || None);
        Column { selector, keys }
    }

    fn compute<'v>(&mut self, i: usize, item: impl Fn(usize) -> &'v Value) -> Result<()> {
        if self.keys[i].is_none() {
            self.keys[i] = Some(self.selector.call1_ref(item(i))?);
        }
        Ok(())
    }

    fn compare<'v>(
        &mut self,
        a: u32,
        b: u32,
        item: impl Fn(usize) -> &'v Value + Copy,
        desc: bool,
    ) -> Result<Ordering> {
        self.compute(b as usize, item)?;
        self.compute(a as usize, item)?;
        directed(self.key(a), self.key(b), desc)
    }

    /// Compute the keys no comparison needed (none once two or more items
    /// were sorted).
    fn complete<'v>(&mut self, item: impl Fn(usize) -> &'v Value + Copy) -> Result<()> {
        (0..self.keys.len()).try_for_each(|i| self.compute(i, item))
    }

    /// The key of item `i`, computed.
    fn key(&self, i: u32) -> &Value {
        self.keys[i as usize]
            .as_ref()
            .expect("the key was computed")
    }
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
