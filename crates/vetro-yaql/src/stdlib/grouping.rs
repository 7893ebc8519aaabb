//! `groupBy`: items gathered per key in the order the keys were first
//! met, each group's list made once at its final size, then aggregated.

use super::key_index::KeyIndex;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::Call;
use crate::iter::LazyIter;
use crate::value::{List, Value};

/// The lambdas of a `groupBy` call.
pub struct Selectors<'a> {
    pub key: &'a Lambda,
    pub value: Option<&'a Lambda>,
    pub aggregator: Option<&'a Lambda>,
    /// Whether an aggregator that fails on a group's values is called
    /// again with the pair `[key, values]` (yaql 1.x's form).
    pub fallback: bool,
}

/// The `[key, aggregate]` pairs of the groups of `collection`: the groups
/// are made now, each aggregate as its pair is read (the reference's lazy
/// `select` over its groups).
pub fn group_by(c: &Call, collection: &Value, s: &Selectors) -> Result<Value> {
    let (keys, groups) = gather(c, collection, s)?;
    let aggregator = s.aggregator.cloned();
    let fallback = s.fallback;
    let mut groups = keys.into_iter().zip(groups);
    Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
        let Some((k, vals)) = groups.next() else {
            return Ok(None);
        };
        let vals = Value::list(vals);
        let Some(l) = &aggregator else {
            return Ok(Some(pair(k, vals)));
        };
        match l.call1_ref(&vals) {
            Ok(v) => Ok(Some(pair(k, v))),
            Err(e) if fallback && falls_back(&e) => aggregate_pair(l, k, vals, e).map(Some),
            Err(e) => Err(e),
        }
    })))
}

/// Each distinct key and the list of its items' values: the key and
/// value of each item computed in the order of the items, the values
/// kept in one vector until the size of each group is known.
fn gather(c: &Call, collection: &Value, s: &Selectors) -> Result<(Vec<Value>, Vec<Vec<Value>>)> {
    let mut it = c.iter(collection)?;
    let mut keys = KeyIndex::new();
    let mut sizes: Vec<usize> = Vec::new();
    // Each item's group and value, apart (no padding beside each value).
    let len = it.size_hint().unwrap_or(0);
    let (mut group_of, mut items): (Vec<u32>, Vec<Value>) =
        (Vec::with_capacity(len), Vec::with_capacity(len));
    while let Some(v) = it.next()? {
        c.run().check_built(items.len() + 1)?;
        // The value first, then the key, as the reference computes them.
        let (val, k) = match s.value {
            Some(l) => (l.call1_ref(&v)?, s.key.call1(v)?),
            None => {
                let k = s.key.call1_ref(&v)?;
                (v, k)
            }
        };
        let (g, new) = keys.find_or_add(k);
        if new {
            sizes.push(0);
        }
        sizes[g] += 1;
        group_of.push(u32::try_from(g).expect("fewer than 2^32 groups"));
        items.push(val);
    }
    let mut groups: Vec<Vec<Value>> = sizes.into_iter().map(Vec::with_capacity).collect();
    for (g, v) in group_of.into_iter().zip(items) {
        groups[g as usize].push(v);
    }
    Ok((keys.into_keys(), groups))
}

/// Whether a failed aggregator call is retried with `[key, values]`.
fn falls_back(e: &Error) -> bool {
    matches!(
        e.kind,
        ErrorKind::NoMatchingFunction | ErrorKind::NoMatchingMethod | ErrorKind::Index
    )
}

/// The aggregator's value for `[key, values]`, which must be a pair;
/// else the error `first` of its call with the values.
fn aggregate_pair(l: &Lambda, k: Value, vals: Value, first: Error) -> Result<Value> {
    let r = l.call1(pair(k, vals))?;
    match &r {
        Value::List(x) if x.len() == 2 => Ok(r),
        _ => Err(first),
    }
}

fn pair(a: Value, b: Value) -> Value {
    let mut l = List::with_capacity(2);
    l.push(a);
    l.push(b);
    Value::List(l)
}
