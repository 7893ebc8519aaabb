//! `queries`: the LINQ-style functions. Lazy where the reference is lazy:
//! results are single-pass sequences.

use super::grouping::{group_by, Selectors};
use super::key_index::KeyIndex;
use super::ordering::{ordered, then_by, yaql_gt};
use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::{call_function, CallArg, Lambda};
use crate::func::params::{Iterable, Iterator, Keyword, KwArgs, Optional, PyInt, Rest};
use crate::func::Call;
use crate::iter::{iterate, iterate_in, LazyIter, ValueIter};
use crate::parser::{Expr, ExprKind};
use crate::value::{Dict, Set, Value};
use crate::yaql_fn;
use crate::EngineOptions;
use std::collections::VecDeque;
use std::sync::Arc;

/// A lazy sequence made by the call `c`, counted in its run.
fn lazy(c: &Call, f: impl FnMut() -> Result<Option<Value>> + 'static) -> Value {
    Value::Iter(LazyIter::from_fn(c.run(), f))
}

/// Where [`parts`] cuts a list.
enum Cut {
    /// Before this item, which starts the next part.
    Before,
    /// At this item, which belongs to no part.
    Dropping,
}

/// The parts of `collection` cut where `cut` says, made as they are read
/// (the reference's generators): the collection is read whole at the first
/// part, `cut` is called on each item in order up to the next part, and a
/// last, non-empty part follows the last cut.
fn parts(
    c: &Call,
    collection: &Value,
    mut cut: impl FnMut(&Value) -> Result<Option<Cut>> + 'static,
) -> Result<Value> {
    let mut source = Some(c.iter(collection)?);
    let (mut items, mut start, mut end) = (Vec::new(), 0, 0);
    Ok(lazy(c, move || {
        if let Some(mut it) = source.take() {
            items = it.collect_vec()?;
        }
        while end < items.len() {
            let at = end;
            end += 1;
            let next = match cut(&items[at])? {
                None => continue,
                Some(Cut::Before) => at,
                Some(Cut::Dropping) => at + 1,
            };
            let part = Value::list(items[start..at].to_vec());
            start = next;
            return Ok(Some(part));
        }
        if start < items.len() {
            let part = Value::list(items[start..].to_vec());
            start = items.len();
            return Ok(Some(part));
        }
        Ok(None)
    }))
}

/// The reference's `next()` of an empty iterator: a StopIteration without
/// a message.
fn stop() -> Error {
    Error::new(ErrorKind::StopIteration, "")
}

fn empty_reduce() -> Error {
    Error::type_err("reduce() of empty iterable with no initial value")
}

fn fold(
    c: &Call,
    coll: &Value,
    seed: Option<&Value>,
    mut f: impl FnMut(Value, Value) -> Result<Value>,
) -> Result<Value> {
    let mut it = c.iter(coll)?;
    let mut acc = match seed {
        Some(s) => s.clone(),
        None => it.next()?.ok_or_else(empty_reduce)?,
    };
    while let Some(v) = it.next()? {
        acc = f(acc, v)?;
    }
    Ok(acc)
}

/// Merge two dicts as `mergeWith` does.
fn merge_dicts(
    d1: &Dict,
    d2: &Dict,
    list_merger: &dyn Fn(Value, Value) -> Result<Value>,
    item_merger: &dyn Fn(Value, Value) -> Result<Value>,
    max_levels: i64,
) -> Result<Dict> {
    let mut out = Dict::new();
    for (k, v1) in d1.iter() {
        let mut val = v1.clone();
        if let Some(v2) = d2.get(k) {
            val = if max_levels != 0 && matches!(v2, Value::Dict(_)) {
                let (Value::Dict(a), Value::Dict(b)) = (v1, v2) else {
                    return Err(Error::type_err("cannot merge a dict with a non-dict"));
                };
                Value::dict(merge_dicts(
                    a,
                    b,
                    list_merger,
                    item_merger,
                    if max_levels == 1 { 0 } else { max_levels - 1 },
                )?)
            } else if max_levels != 0 && matches!(v2, Value::List(_)) {
                if !matches!(v1, Value::List(_)) {
                    return Err(Error::type_err("cannot merge a list with a non-list"));
                }
                list_merger(v1.clone(), v2.clone())?
            } else {
                item_merger(v1.clone(), v2.clone())?
            };
        }
        out.insert(k.clone(), val);
    }
    for (k, v2) in d2.iter() {
        if !out.contains_key(k) {
            out.insert(k.clone(), v2.clone());
        }
    }
    Ok(out)
}

pub fn register(r: &Reg, opts: &EngineOptions) {
    aggregates_and_predicates(r);
    filtering_and_counting(r);
    elements_and_projection(r);
    grouping_and_searching(r, opts);
    joining_and_partitioning(r);
    ordering_and_generation(r);
    slicing_and_sums(r);
    zipping(r);
}

/// Folds (`aggregate`, `reduce`, `accumulate`), `all`/`any`, `append`.
fn aggregates_and_predicates(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "#operator_.", |c| (collection: Iterable, attribute: Keyword) {
            let mut it = c.iter(collection.0)?;
            let key = Arc::new(Expr::detached(ExprKind::Keyword(Arc::from(attribute.0))));
            let ctx = c.ctx.clone();
            Ok(lazy(c, move || match it.next()? {
                Some(item) => Ok(Some(call_function(
                    &ctx,
                    "#operator_.",
                    vec![CallArg::Val(item), CallArg::Expr(&key)],
                    false,
                )?)),
                None => Ok(None),
            }))
        }),
    );
    r.add_def(yaql_fn!(Method "accumulate", |c| (collection: Iterable, selector: &Lambda, seed: Optional<&Value> = NoValue) {
            let mut it = c.iter(collection.0)?;
            let sel = selector.clone();
            let mut acc: Option<Value> = seed.0.cloned();
            let mut started = false;
            Ok(lazy(c, move || {
                if !started {
                    started = true;
                    if acc.is_none() {
                        acc = Some(it.next()?.ok_or_else(empty_reduce)?);
                    }
                    return Ok(acc.clone());
                }
                match it.next()? {
                    Some(v) => {
                        let n = sel.call(&[acc.clone().unwrap_or(Value::Null), v])?;
                        acc = Some(n.clone());
                        Ok(Some(n))
                    }
                    None => Ok(None),
                }
            }))
        }));
    for name in ["aggregate", "reduce"] {
        r.add_def(yaql_fn!(Method name, |c| (collection: Iterable, selector: &Lambda, seed: Optional<&Value> = NoValue) {
                let sel = selector.clone();
                fold(c, collection.0, seed.0, |acc, v| sel.call(&[acc, v]))
            }));
    }
    r.add_def(
        yaql_fn!(Both "all", |c| (collection: Iterable, predicate: Option<&Lambda> = Null) {
            let mut it = c.iter(collection.0)?;
            let p = predicate.cloned();
            while let Some(v) = it.next()? {
                let ok = match &p {
                    Some(l) => l.call1(v)?.truthy(),
                    None => v.truthy(),
                };
                if !ok {
                    return Ok(Value::Bool(false));
                }
            }
            Ok(Value::Bool(true))
        }),
    );
    r.add_def(
        yaql_fn!(Both "any", |c| (collection: Iterable, predicate: Option<&Lambda> = Null) {
            let mut it = c.iter(collection.0)?;
            let p = predicate.cloned();
            while let Some(v) = it.next()? {
                match &p {
                    Some(l) => {
                        if l.call1(v)?.truthy() {
                            return Ok(Value::Bool(true));
                        }
                    }
                    None => return Ok(Value::Bool(true)),
                }
            }
            Ok(Value::Bool(false))
        }),
    );
    r.add_def(
        yaql_fn!(Both "append", |c| (collection: Iterable, args: Rest<Value>) {
            let mut it = Some(c.iter(collection.0)?);
            let mut extra = args.0.into_iter();
            Ok(lazy(c, move || {
                if let Some(i) = it.as_mut() {
                    if let Some(v) = i.next()? {
                        return Ok(Some(v));
                    }
                    it = None;
                }
                Ok(extra.next())
            }))
        }),
    );
}

/// Filters, counting, concatenation, `distinct`, `enumerate`, `cycle`.
fn filtering_and_counting(r: &Reg) {
    r.add_def(yaql_fn!(Both "concat", |c| (collections: Rest<Iterable>) {
        let mut its: VecDeque<ValueIter> = collections
            .0
            .iter()
            .map(|x| x.iter(c))
            .collect::<Result<_>>()?;
        Ok(lazy(c, move || {
            while let Some(front) = its.front_mut() {
                if let Some(v) = front.next()? {
                    return Ok(Some(v));
                }
                its.pop_front();
            }
            Ok(None)
        }))
    }));
    r.add_def(yaql_fn!(Method "count", |c| (collection: Iterable) {
        let mut it = c.iter(collection.0)?;
        if let Some(n) = it.size_hint() {
            return Ok(Value::Int(n as i64));
        }
        let mut n = 0;
        while it.next()?.is_some() {
            n += 1;
        }
        Ok(Value::Int(n))
    }));
    r.add_def(yaql_fn!(Method "cycle", |c| (collection: Iterable) {
        let mut it = Some(c.iter(collection.0)?);
        let mut cache: Vec<Value> = Vec::new();
        let mut i = 0usize;
        Ok(lazy(c, move || {
            if let Some(src) = it.as_mut() {
                if let Some(v) = src.next()? {
                    cache.push(v.clone());
                    return Ok(Some(v));
                }
                it = None;
            }
            if cache.is_empty() {
                return Ok(None);
            }
            let v = cache[i % cache.len()].clone();
            i += 1;
            Ok(Some(v))
        }))
    }));
    r.add_def(
        yaql_fn!(Method "defaultIfEmpty", |c| (collection: Iterable, default: Iterable) {
            // A list or set is returned itself (or the default when empty).
            let size = match collection.0 {
                Value::List(l) => Some(l.len()),
                Value::Set(s) => Some(s.len()),
                _ => None,
            };
            if let Some(n) = size {
                return Ok(if n == 0 { default.0 } else { collection.0 }.clone());
            }
            // Anything else is memorized and returned itself unless its
            // first item shows it empty (a dict the legacy engine iterates
            // stays a dict).
            let kept = memorized(c, collection.0)?;
            if c.iter(&kept)?.next()?.is_none() {
                return Ok(default.0.clone());
            }
            Ok(kept)
        }),
    );
    r.add_def(
        yaql_fn!(Both "distinct", |c| (collection: Iterable, keySelector: Option<&Lambda> = Null) {
            let mut it = c.iter(collection.0)?;
            let ks = keySelector.cloned();
            let mut seen = KeyIndex::new();
            Ok(lazy(c, move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let k = match &ks {
                    Some(l) => l.call1_ref(&v)?,
                    None => v.clone(),
                };
                if seen.find_or_add(k).1 {
                    return Ok(Some(v));
                }
            }))
        }),
    );
    r.add_def(yaql_fn!(Both "enumerate", |c| (collection: Iterable, start: Option<PyInt> = 0) {
        let mut it = c.iter(collection.0)?;
        // Python's `enumerate(it, None)`: null is no start.
        let mut i = match start {
            Some(s) => s.clamped()?,
            None => return Err(Error::type_err("'NoneType' object cannot be interpreted as an integer")),
        };
        Ok(lazy(c, move || match it.next()? {
            Some(v) => {
                let out = Value::list(vec![Value::Int(i), v]);
                i += 1;
                Ok(Some(out))
            }
            None => Ok(None),
        }))
    }));
    for name in ["where", "filter"] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, predicate: &Lambda) {
                let mut it = c.iter(collection.0)?;
                let p = predicate.clone();
                Ok(lazy(c, move || loop {
                    // Returned as it is (see `LazyIter::next`).
                    let next = it.next();
                    if let Ok(Some(v)) = &next {
                        if !p.test(v)? {
                            continue;
                        }
                    }
                    return next;
                }))
            }),
        );
    }
}

/// Element access (`first`, `last`, `single`), projection, generators.
fn elements_and_projection(r: &Reg) {
    for name in ["select", "map"] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, selector: &Lambda) {
                let mut it = c.iter(collection.0)?;
                let s = selector.clone();
                Ok(lazy(c, move || match it.next()? {
                    Some(v) => Ok(Some(s.call1(v)?)),
                    None => Ok(None),
                }))
            }),
        );
    }
    r.add_def(
        yaql_fn!(Method "first", |c| (collection: Iterable, default: Optional<&Value> = NoValue) {
            let mut it = c.iter(collection.0)?;
            match it.next()? {
                Some(v) => Ok(v),
                None => default.0.cloned().ok_or_else(stop),
            }
        }),
    );
    r.add_def(
        yaql_fn!(Method "last", |c| (collection: Iterable, default: Optional<&Value> = NoValue) {
            let mut it = c.iter(collection.0)?;
            let mut last = None;
            while let Some(v) = it.next()? {
                last = Some(v);
            }
            match last {
                Some(v) => Ok(v),
                None => default.0.cloned().ok_or_else(stop),
            }
        }),
    );
    r.add_def(yaql_fn!(Method "single", |c| (collection: Iterable) {
        let mut it = c.iter(collection.0)?;
        let first = it.next()?.ok_or_else(stop)?;
        if it.next()?.is_some() {
            return Err(Error::new(
                ErrorKind::StopIteration,
                "Collection contains more than one item",
            ));
        }
        Ok(first)
    }));
    r.add_def(yaql_fn!(Function "generate", |c| (initial: &Value, predicate: &Lambda, producer: &Lambda, selector: Option<&Lambda> = Null, decycle: bool = false) {
            let mut x = initial.clone();
            let pred = predicate.clone();
            let prod = producer.clone();
            let sel = selector.cloned();
            let mut seen = Set::new();
            let mut first = true;
            Ok(lazy(c, move || {
                if !first {
                    x = prod.call1_ref(&x)?;
                }
                first = false;
                if !pred.test(&x)? {
                    return Ok(None);
                }
                if decycle && !seen.insert(x.clone()) {
                    return Ok(None);
                }
                Ok(Some(match &sel {
                    Some(s) => s.call1_ref(&x)?,
                    None => x.clone(),
                }))
            }))
        }));
    r.add_def(yaql_fn!(Function "generateMany", |c| (initial: &Value, producer: &Lambda, selector: Option<&Lambda> = Null, decycle: bool = false, depthFirst: bool = false) {
            let mut queue: VecDeque<Value> = VecDeque::from([initial.clone()]);
            let prod = producer.clone();
            let sel = selector.cloned();
            let depth = depthFirst;
            let mut seen = Set::new();
            let dicts = c.rt().opts.iterable_dicts;
            let run = c.run().clone();
            Ok(lazy(c, move || loop {
                let Some(item) = queue.pop_front() else {
                    return Ok(None);
                };
                if decycle && !seen.insert(item.clone()) {
                    continue;
                }
                let out = match &sel {
                    Some(s) => s.call1_ref(&item)?,
                    None => item.clone(),
                };
                let produced = prod.call1(item)?;
                let mut children = iterate_in(&run, &produced, dicts)
                    .ok_or_else(|| Error::type_err("producer must return an iterable"))?
                    .collect_vec()?;
                if depth {
                    children.reverse();
                    for ch in children {
                        queue.push_front(ch);
                    }
                } else {
                    queue.extend(children);
                }
                return Ok(Some(out));
            }))
        }));
}

/// `groupBy`, positions (`indexOf`, `indexWhere`...), `isIterable`.
fn grouping_and_searching(r: &Reg, opts: &EngineOptions) {
    let agg_fallback = opts.group_by_agg_fallback.unwrap_or(true);
    r.add_def(yaql_fn!(Method "groupBy", |c| (collection: Iterable, keySelector: &Lambda, valueSelector: Option<&Lambda> = Null, aggregator: Option<&Lambda> = Null) {
            let selectors = Selectors {
                key: keySelector,
                value: valueSelector,
                aggregator,
                fallback: agg_fallback,
            };
            group_by(c, collection.0, &selectors)
        }));
    for (name, last) in [("indexOf", false), ("lastIndexOf", true)] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, item: &Value) {
                position(c, &collection, last, |v| Ok(&v == item))
            }),
        );
    }
    for (name, last) in [("indexWhere", false), ("lastIndexWhere", true)] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, predicate: &Lambda) {
                position(c, &collection, last, |v| Ok(predicate.call1(v)?.truthy()))
            }),
        );
    }
    r.add_def(yaql_fn!(Function "isIterable", |_c| (value: &Value) {
        Ok(Value::Bool(matches!(
            value,
            Value::List(_) | Value::Set(_) | Value::Iter(_)
        )))
    }));
}

/// The index of the first (or `last`) item for which `hit` holds, or -1.
fn position(
    c: &Call,
    collection: &Value,
    last: bool,
    mut hit: impl FnMut(Value) -> Result<bool>,
) -> Result<i64> {
    let mut it = c.iter(collection)?;
    let (mut i, mut found) = (0, -1);
    while let Some(v) = it.next()? {
        if hit(v)? {
            found = i;
            if !last {
                break;
            }
        }
        i += 1;
    }
    Ok(found)
}

/// `join`, `len` of iterators, `take`/`skip` and their `While` forms.
fn joining_and_partitioning(r: &Reg) {
    r.add_def(yaql_fn!(Method "join", |c| (collection1: Iterable, collection2: Iterable, predicate: &Lambda, selector: &Lambda) {
            let mut outer = c.iter(collection1.0)?;
            // Read once the first item of the first collection is, as the
            // reference's generator reads it.
            let mut source = Some(c.iter(collection2.0)?);
            let mut inner = Vec::new();
            let p = predicate.clone();
            let s = selector.clone();
            let mut cur: Option<Value> = None;
            let mut j = 0usize;
            Ok(lazy(c, move || loop {
                if cur.is_none() {
                    match outer.next()? {
                        Some(v) => {
                            cur = Some(v);
                            j = 0;
                        }
                        None => return Ok(None),
                    }
                    if let Some(mut it) = source.take() {
                        inner = it.collect_vec()?;
                    }
                }
                let x = cur.clone().unwrap_or(Value::Null);
                if j >= inner.len() {
                    cur = None;
                    continue;
                }
                let y = inner[j].clone();
                j += 1;
                if p.call(&[x.clone(), y.clone()])?.truthy() {
                    return Ok(Some(s.call(&[x, y])?));
                }
            }))
        }));
    r.add_def(yaql_fn!(Both "len", |c| (collection: Iterator) {
        let mut it = c.iter(collection.0)?;
        let mut n = 0;
        while it.next()?.is_some() {
            n += 1;
        }
        Ok(Value::Int(n))
    }));
    for name in ["limit", "take"] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, count: PyInt) {
                let n = islice_count(&count, true)?;
                let mut it = c.iter(collection.0)?;
                let mut left = n;
                Ok(lazy(c, move || {
                    if left <= 0 {
                        return Ok(None);
                    }
                    left -= 1;
                    it.next()
                }))
            }),
        );
    }
    r.add_def(
        yaql_fn!(Method "skip", |c| (collection: Iterable, count: PyInt) {
            let n = islice_count(&count, false)?;
            let mut it = c.iter(collection.0)?;
            let mut skip = n;
            Ok(lazy(c, move || {
                while skip > 0 {
                    skip -= 1;
                    if it.next()?.is_none() {
                        return Ok(None);
                    }
                }
                it.next()
            }))
        }),
    );
    r.add_def(
        yaql_fn!(Method "takeWhile", |c| (collection: Iterable, predicate: &Lambda) {
            let mut it = c.iter(collection.0)?;
            let p = predicate.clone();
            let mut done = false;
            Ok(lazy(c, move || {
                if done {
                    return Ok(None);
                }
                match it.next()? {
                    Some(v) if p.test(&v)? => Ok(Some(v)),
                    _ => {
                        done = true;
                        Ok(None)
                    }
                }
            }))
        }),
    );
    r.add_def(
        yaql_fn!(Method "skipWhile", |c| (collection: Iterable, predicate: &Lambda) {
            let mut it = c.iter(collection.0)?;
            let p = predicate.clone();
            let mut skipping = true;
            Ok(lazy(c, move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                if skipping && p.test(&v)? {
                    continue;
                }
                skipping = false;
                return Ok(Some(v));
            }))
        }),
    );
}

/// Ordering (`orderBy`, `thenBy`...), `min`/`max`, `range`, `repeat`, `reverse`, `memorize`, `mergeWith`.
fn ordering_and_generation(r: &Reg) {
    // As the reference's `max(acc, item)` and `min(acc, item)` over the
    // items: both ask whether the item is greater, so `min` keeps the later
    // of equal items (and of sets neither inside the other).
    for (name, is_max) in [("max", true), ("min", false)] {
        r.add_def(
            yaql_fn!(Method name, |c| (collection: Iterable, initial: Optional<&Value> = NoValue) {
                fold(c, collection.0, initial.0, |acc, v| {
                    let greater = yaql_gt(&v, &acc)?;
                    Ok(if greater == is_max { v } else { acc })
                })
            }),
        );
    }
    r.add_def(
        yaql_fn!(Method "memorize", |c| (collection: Iterable) { memorized(c, collection.0) }),
    );
    r.add_def(yaql_fn!(Method "mergeWith", |c| (dict: &Dict, another: &Dict, listMerger: Option<&Lambda> = Null, itemMerger: Option<&Lambda> = Null, maxLevels: PyInt = 0) {
            let (d1, d2) = (dict, another);
            let lm = listMerger.cloned();
            let im = itemMerger.cloned();
            let ctx = c.ctx.clone();
            let list_merger = move |x: Value, y: Value| -> Result<Value> {
                match &lm {
                    Some(l) => l.call(&[x, y]),
                    None => {
                        let mut seen = Set::new();
                        let mut out = Vec::new();
                        for v in iterate(&x, false)
                            .map(|mut i| i.collect_vec())
                            .transpose()?
                            .unwrap_or_default()
                            .into_iter()
                            .chain(
                                iterate(&y, false)
                                    .map(|mut i| i.collect_vec())
                                    .transpose()?
                                    .unwrap_or_default(),
                            )
                        {
                            if seen.insert(v.clone()) {
                                out.push(v);
                            }
                        }
                        let _ = &ctx;
                        Ok(Value::list(out))
                    }
                }
            };
            let item_merger = move |x: Value, y: Value| -> Result<Value> {
                match &im {
                    Some(l) => l.call(&[x, y]),
                    None => Ok(y),
                }
            };
            Ok(Value::dict(merge_dicts(
                d1,
                d2,
                &list_merger,
                &item_merger,
                maxLevels.index()? - 1,
            )?))
        }));
    r.add_def(
        yaql_fn!(Method "orderBy", |c| (collection: Iterable, selector: &Lambda) {
            ordered(c, collection.0.clone(), vec![(selector.clone(), false)])
        }),
    );
    r.add_def(yaql_fn!(Method "orderByDescending", |c| (collection: Iterable, selector: &Lambda) { ordered(c, collection.0.clone(), vec![(selector.clone(), true)]) }));
    r.add_def(
        yaql_fn!(Method "thenBy", |c| (collection: Iterable, selector: &Lambda) {
            then_by(c, &collection, selector, false)
        }),
    );
    r.add_def(yaql_fn!(Method "thenByDescending", |c| (collection: Iterable, selector: &Lambda) { then_by(c, &collection, selector, true) }));
    r.add_def(
        yaql_fn!(Function "range", |c| (stop: PyInt) { Ok(range(c, 0, stop.clamped()?, 1)) }),
    );
    r.add_def(
        yaql_fn!(Function "range", |c| (start: PyInt, stop: PyInt, step: PyInt = 1) {
            if step.clamped()? == 0 {
                return Err(Error::value_err("range() arg 3 must not be zero"));
            }
            Ok(range(c, start.clamped()?, stop.clamped()?, step.clamped()?))
        }),
    );
    r.add_def(
        yaql_fn!(Method "repeat", |c| (value: &Value, times: PyInt = -1) {
            let v = value.clone();
            let mut left = times.index()?;
            Ok(lazy(c, move || {
                if left == 0 {
                    return Ok(None);
                }
                if left > 0 {
                    left -= 1;
                }
                Ok(Some(v.clone()))
            }))
        }),
    );
    // The reference collects the items at once and hands them back through
    // Python's `reversed`: a single-pass iterator (used twice, it is empty
    // the second time; as an object it is true, even when empty).
    r.add_def(yaql_fn!(Method "reverse", |c| (collection: Iterable) {
        let mut v = c.collect(collection.0)?;
        Ok(lazy(c, move || Ok(v.pop())))
    }));
}

/// `selectMany`, `sequence`, slicing and splitting, `sum`.
fn slicing_and_sums(r: &Reg) {
    r.add_def(
        yaql_fn!(Method "selectMany", |c| (collection: Iterable, selector: &Lambda) {
            let mut it = c.iter(collection.0)?;
            let s = selector.clone();
            let run = c.run().clone();
            let mut inner: Option<ValueIter> = None;
            Ok(lazy(c, move || loop {
                if let Some(i) = inner.as_mut() {
                    if let Some(v) = i.next()? {
                        return Ok(Some(v));
                    }
                    inner = None;
                }
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let r = s.call1(v)?;
                match iterate_in(&run, &r, false) {
                    Some(i) => inner = Some(i),
                    None => return Ok(Some(r)),
                }
            }))
        }),
    );
    r.add_def(
        yaql_fn!(Function "sequence", |c| (start: PyInt = 0, step: PyInt = 1) {
            let mut cur = start.clamped()?;
            let step = step.clamped()?;
            Ok(lazy(c, move || {
                let v = cur;
                cur = cur.saturating_add(step);
                Ok(Some(Value::Int(v)))
            }))
        }),
    );
    r.add_def(
        yaql_fn!(Method "slice", |c| (collection: Iterable, length: PyInt) {
            let mut it = c.iter(collection.0)?;
            // Lazy, as the reference's generator: a negative length is
            // refused when the first slice is read.
            let n = islice_count(&length, true);
            Ok(lazy(c, move || {
                let n = n.clone()? as usize;
                let mut part = Vec::new();
                while part.len() < n {
                    match it.next()? {
                        Some(v) => part.push(v),
                        None => break,
                    }
                }
                Ok((!part.is_empty()).then(|| Value::list(part)))
            }))
        }),
    );
    r.add_def(
        yaql_fn!(Method "sliceWhere", |c| (collection: Iterable, predicate: &Lambda) {
            let p = predicate.clone();
            let mut last: Option<Value> = None;
            parts(c, collection.0, move |item| {
                let key = p.call1_ref(item)?;
                let changed = last.as_ref().is_some_and(|l| *l != key);
                last = Some(key);
                Ok(changed.then_some(Cut::Before))
            })
        }),
    );
    r.add_def(yaql_fn!(Method "splitAt", |c| (collection: Iterable, index: PyInt) {
        let items = c.collect(collection.0)?;
        let (s, _) = crate::stdlib::strings::slice_bounds(items.len(), Some(index.clamped()?), None);
        Ok(Value::list(vec![
            Value::list(items[..s].to_vec()),
            Value::list(items[s..].to_vec()),
        ]))
    }));
    r.add_def(
        yaql_fn!(Method "splitWhere", |c| (collection: Iterable, predicate: &Lambda) {
            let p = predicate.clone();
            parts(c, collection.0, move |item| Ok(p.test(item)?.then_some(Cut::Dropping)))
        }),
    );
    r.add_def(
        yaql_fn!(Method "sum", |c| (collection: Iterable, initial: Optional<&Value> = NoValue) {
            fold(c, collection.0, initial.0, |acc, v| {
                if acc.is_number() && v.is_number() {
                    crate::stdlib::math::add(&acc, &v)
                } else {
                    c.call("#operator_+", vec![acc, v])
                }
            })
        }),
    );
}

/// `zip` and `zipLongest`.
fn zipping(r: &Reg) {
    r.add_def(yaql_fn!(Method "zip", |c| (collections: Rest<Iterable>) {
        let mut its: Vec<ValueIter> = collections
            .0
            .iter()
            .map(|x| x.iter(c))
            .collect::<Result<_>>()?;
        Ok(lazy(c, move || {
            if its.is_empty() {
                return Ok(None);
            }
            let mut row = Vec::with_capacity(its.len());
            for it in its.iter_mut() {
                match it.next()? {
                    Some(v) => row.push(v),
                    None => return Ok(None),
                }
            }
            Ok(Some(Value::list(row)))
        }))
    }));
    r.add_def(
        yaql_fn!(Method "zipLongest", |c| (collections: Rest<Iterable>, kwargs: KwArgs) {
            let mut its: Vec<Option<ValueIter>> = collections
            .0
            .iter()
            .map(|x| x.iter(c).map(Some))
                .collect::<Result<_>>()?;
            // Keyword arguments other than `default` are ignored, as the
            // reference ignores them; of two `default`s the last counts.
            let default = kwargs
                .0
                .iter()
                .rev()
                .find(|(k, _)| &**k == "default")
                .map_or(Value::Null, |(_, v)| v.val().clone());
            Ok(lazy(c, move || {
                let mut row = Vec::with_capacity(its.len());
                let mut any = false;
                for slot in its.iter_mut() {
                    let v = match slot.as_mut() {
                        Some(it) => match it.next()? {
                            Some(v) => {
                                any = true;
                                v
                            }
                            None => {
                                *slot = None;
                                default.clone()
                            }
                        },
                        None => default.clone(),
                    };
                    row.push(v);
                }
                Ok(if any { Some(Value::list(row)) } else { None })
            }))
        }),
    );
}

/// A lazy Python `range`, made by the call `c`.
pub fn range(c: &Call, start: i64, stop: i64, step: i64) -> Value {
    // `None` once the next item would pass the 64-bit range (and `stop`).
    let mut cur = Some(start);
    lazy(c, move || match cur {
        Some(v) if (step > 0 && v < stop) || (step < 0 && v > stop) => {
            cur = v.checked_add(step);
            Ok(Some(Value::Int(v)))
        }
        _ => Ok(None),
    })
}

/// The count of `take()` or `slice()` (`stop`) or of `skip()`, as Python's
/// `islice` reads it: a count past the machine's size reads as -1, and a
/// stop of -1 has a message of its own.
fn islice_count(count: &PyInt, stop: bool) -> Result<i64> {
    let n = match count.0 {
        Value::BigInt(_) => -1,
        _ => count.index()?,
    };
    if n >= 0 {
        return Ok(n);
    }
    Err(Error::value_err(if stop && n == -1 {
        "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    } else {
        "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    }))
}

/// `memorize()`: an iterator becomes an iterable that keeps its items as
/// they are first pulled, for every iteration; anything else is itself.
fn memorized(c: &Call, collection: &Value) -> Result<Value> {
    match collection {
        Value::Iter(it) if it.iterator => {
            let mut it = c.iter(collection)?;
            Ok(Value::Iter(LazyIter::replaying(
                c.run(),
                move || it.next(),
                None,
                true,
            )))
        }
        v => Ok(v.clone()),
    }
}
