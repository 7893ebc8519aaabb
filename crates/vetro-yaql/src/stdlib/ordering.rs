//! `orderBy` and `thenBy`: a lazy sort, done when its first item is
//! pulled, and the comparison of yaql's ordering.

use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::Call;
use crate::iter::LazyIter;
use crate::value::{compare, not_comparable, Value};
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
                        Some(mut it) => it.collect_vec()?,
                        None => Vec::new(),
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
    /// Each item's first key and position, in sorted order.
    order: std::vec::IntoIter<(Value, usize)>,
    items: Vec<Value>,
}

impl Sorted {
    fn next(&mut self) -> Option<Value> {
        let (_, i) = self.order.next()?;
        Some(std::mem::replace(&mut self.items[i], Value::Null))
    }
}

/// Sort `items` by `keys` (at least one), stably: every item's keys are
/// computed first, in the order of the items, then compared; the first
/// comparison that fails is the error.
fn sort(items: Vec<Value>, keys: &[(Lambda, bool)]) -> Result<Sorted> {
    let more = keys.len() - 1;
    let mut order: Vec<(Value, usize)> = Vec::with_capacity(items.len());
    // The keys after the first, `more` per item.
    let mut rest: Vec<Value> = Vec::with_capacity(items.len() * more);
    for (i, it) in items.iter().enumerate() {
        order.push((keys[0].0.call1_ref(it)?, i));
        for (l, _) in &keys[1..] {
            rest.push(l.call1_ref(it)?);
        }
    }
    let mut err = None;
    let mut by = |o: Result<Ordering>, desc: bool| match o {
        Ok(o) if desc => Some(o.reverse()),
        Ok(o) => Some(o),
        Err(e) => {
            err.get_or_insert(e);
            None
        }
    };
    order.sort_by(|(ka, a), (kb, b)| {
        let Some(o) = by(yaql_cmp(ka, kb), keys[0].1) else {
            return Ordering::Equal;
        };
        if o != Ordering::Equal || more == 0 {
            return o;
        }
        let (ra, rb) = (&rest[a * more..][..more], &rest[b * more..][..more]);
        for (j, (_, desc)) in keys[1..].iter().enumerate() {
            match by(yaql_cmp(&ra[j], &rb[j]), *desc) {
                Some(Ordering::Equal) => continue,
                Some(o) => return o,
                None => return Ordering::Equal,
            }
        }
        Ordering::Equal
    });
    if let Some(e) = err {
        return Err(e);
    }
    Ok(Sorted {
        order: order.into_iter(),
        items,
    })
}
