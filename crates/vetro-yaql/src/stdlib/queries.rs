//! `queries`: the LINQ-style functions. Lazy where the reference is lazy:
//! results are single-pass sequences.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::{call_function, CallArg, Lambda};
use crate::func::Call;
use crate::iter::{iterate, LazyIter, ValueIter};
use crate::parser::{Expr, ExprKind};
use crate::value::{compare, not_comparable, Dict, Set, Value};
use crate::EngineOptions;
use std::cmp::Ordering;
use std::collections::VecDeque;
use std::rc::Rc;
use std::sync::Arc;

fn lazy(f: impl FnMut() -> Result<Option<Value>> + 'static) -> Value {
    Value::Iter(LazyIter::from_fn(f))
}

fn need(l: Option<&Lambda>) -> Result<&Lambda> {
    l.ok_or_else(|| Error::type_err("expression expected"))
}

fn stop() -> Error {
    Error::new(ErrorKind::StopIteration, "collection is empty")
}

fn empty_reduce() -> Error {
    Error::type_err("reduce() of empty iterable with no initial value")
}

/// yaql ordering for sorting and min/max (null smallest; incomparable: error).
pub fn yaql_cmp(a: &Value, b: &Value) -> Result<Ordering> {
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

/// The pending sort of an `orderBy` result.
struct OrderSpec {
    source: Value,
    keys: Vec<(Lambda, bool)>,
}

fn ordered(c: &Call, source: Value, keys: Vec<(Lambda, bool)>) -> Result<Value> {
    let spec = Rc::new(OrderSpec {
        source: source.clone(),
        keys: keys.clone(),
    });
    let ctx_it = c.iter(&source)?;
    let mut state: Option<std::vec::IntoIter<Value>> = None;
    let mut src = Some(ctx_it);
    // The reference's OrderingIterable is iterable but not an iterator.
    Ok(Value::Iter(LazyIter::iterable_with_meta(
        move || {
            if state.is_none() {
                let items = src
                    .take()
                    .map(|mut s| s.collect_vec())
                    .transpose()?
                    .unwrap_or_default();
                let mut keyed: Vec<(Vec<Value>, Value)> = Vec::with_capacity(items.len());
                for it in items {
                    let mut ks = Vec::with_capacity(keys.len());
                    for (l, _) in &keys {
                        ks.push(l.call1(it.clone())?);
                    }
                    keyed.push((ks, it));
                }
                let mut err = None;
                keyed.sort_by(|a, b| {
                    for (i, (_, desc)) in keys.iter().enumerate() {
                        match yaql_cmp(&a.0[i], &b.0[i]) {
                            Ok(Ordering::Equal) => continue,
                            Ok(o) => return if *desc { o.reverse() } else { o },
                            Err(e) => {
                                err.get_or_insert(e);
                                return Ordering::Equal;
                            }
                        }
                    }
                    Ordering::Equal
                });
                if let Some(e) = err {
                    return Err(e);
                }
                state = Some(
                    keyed
                        .into_iter()
                        .map(|(_, v)| v)
                        .collect::<Vec<_>>()
                        .into_iter(),
                );
            }
            Ok(state.as_mut().and_then(|s| s.next()))
        },
        spec,
    )))
}

fn then_by(c: &Call, a: &crate::func::Args, desc: bool) -> Result<Value> {
    let spec = match a.v(0) {
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
    keys.push((need(a.lam(1))?.clone(), desc));
    ordered(c, spec.source.clone(), keys)
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

fn items_vec(c: &Call, v: &Value) -> Result<Vec<Value>> {
    c.collect(v)
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
    r.f(
        "#operator_.",
        "collection:Iterable, attribute:Keyword",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let key = Arc::new(Expr::detached(ExprKind::Keyword(Arc::from(a.str(1)))));
            let ctx = c.ctx.clone();
            Ok(lazy(move || match it.next()? {
                Some(item) => Ok(Some(call_function(
                    &ctx,
                    "#operator_.",
                    vec![CallArg::Val(item), CallArg::Expr(&key)],
                    false,
                )?)),
                None => Ok(None),
            }))
        },
    );
    r.m(
        "accumulate",
        "collection:Iterable, selector:Lambda, seed:any=nv",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let sel = need(a.lam(1))?.clone();
            let mut acc: Option<Value> = a.opt(2).cloned();
            let mut started = false;
            Ok(lazy(move || {
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
        },
    );
    for name in ["aggregate", "reduce"] {
        r.m(
            name,
            "collection:Iterable, selector:Lambda, seed:any=nv",
            |c, a| {
                let sel = need(a.lam(1))?.clone();
                fold(c, a.v(0), a.opt(2), |acc, v| sel.call(&[acc, v]))
            },
        );
    }
    r.mf(
        "all",
        "collection:Iterable, predicate:Lambda=null",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = a.lam(1).cloned();
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
        },
    );
    r.mf(
        "any",
        "collection:Iterable, predicate:Lambda=null",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = a.lam(1).cloned();
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
        },
    );
    r.mf("append", "collection:Iterable, *args:any", |c, a| {
        let mut it = Some(c.iter(a.v(0))?);
        let mut extra = a.rest_values().into_iter();
        Ok(lazy(move || {
            if let Some(i) = it.as_mut() {
                if let Some(v) = i.next()? {
                    return Ok(Some(v));
                }
                it = None;
            }
            Ok(extra.next())
        }))
    });
}

/// Filters, counting, concatenation, `distinct`, `enumerate`, `cycle`.
fn filtering_and_counting(r: &Reg) {
    r.mf("concat", "*collections:Iterable", |c, a| {
        let mut its: VecDeque<ValueIter> = a
            .rest
            .iter()
            .map(|x| c.iter(x.val()))
            .collect::<Result<_>>()?;
        Ok(lazy(move || {
            while let Some(front) = its.front_mut() {
                if let Some(v) = front.next()? {
                    return Ok(Some(v));
                }
                its.pop_front();
            }
            Ok(None)
        }))
    });
    r.m("count", "collection:Iterable", |c, a| {
        let mut it = c.iter(a.v(0))?;
        if let Some(n) = it.size_hint() {
            return Ok(Value::Int(n as i64));
        }
        let mut n = 0;
        while it.next()?.is_some() {
            n += 1;
        }
        Ok(Value::Int(n))
    });
    r.m("cycle", "collection:Iterable", |c, a| {
        let mut it = Some(c.iter(a.v(0))?);
        let mut cache: Vec<Value> = Vec::new();
        let mut i = 0usize;
        Ok(lazy(move || {
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
    });
    r.m(
        "defaultIfEmpty",
        "collection:Iterable, default:Iterable",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            match it.next()? {
                None => Ok(a.v(1).clone()),
                Some(first) => {
                    let mut first = Some(first);
                    Ok(lazy(move || match first.take() {
                        Some(v) => Ok(Some(v)),
                        None => it.next(),
                    }))
                }
            }
        },
    );
    r.mf(
        "distinct",
        "collection:Iterable, keySelector:Lambda=null",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let ks = a.lam(1).cloned();
            let mut seen = Set::new();
            Ok(lazy(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let k = match &ks {
                    Some(l) => l.call1(v.clone())?,
                    None => v.clone(),
                };
                if seen.insert(k) {
                    return Ok(Some(v));
                }
            }))
        },
    );
    r.mf("enumerate", "collection:Iterable, start:int?=0", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let mut i = if a.v(1).is_null() { 0 } else { a.clamped(1)? };
        Ok(lazy(move || match it.next()? {
            Some(v) => {
                let out = Value::list(vec![Value::Int(i), v]);
                i += 1;
                Ok(Some(out))
            }
            None => Ok(None),
        }))
    });
    for name in ["where", "filter"] {
        r.m(name, "collection:Iterable, predicate:Lambda", |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = need(a.lam(1))?.clone();
            Ok(lazy(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                if p.call1(v.clone())?.truthy() {
                    return Ok(Some(v));
                }
            }))
        });
    }
}

/// Element access (`first`, `last`, `single`), projection, generators.
fn elements_and_projection(r: &Reg) {
    for name in ["select", "map"] {
        r.m(name, "collection:Iterable, selector:Lambda", |c, a| {
            let mut it = c.iter(a.v(0))?;
            let s = need(a.lam(1))?.clone();
            Ok(lazy(move || match it.next()? {
                Some(v) => Ok(Some(s.call1(v)?)),
                None => Ok(None),
            }))
        });
    }
    r.m("first", "collection:Iterable, default:any=nv", |c, a| {
        let mut it = c.iter(a.v(0))?;
        match it.next()? {
            Some(v) => Ok(v),
            None => a.opt(1).cloned().ok_or_else(stop),
        }
    });
    r.m("last", "collection:Iterable, default:any=nv", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let mut last = None;
        while let Some(v) = it.next()? {
            last = Some(v);
        }
        match last {
            Some(v) => Ok(v),
            None => a.opt(1).cloned().ok_or_else(stop),
        }
    });
    r.m("single", "collection:Iterable", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let first = it.next()?.ok_or_else(stop)?;
        if it.next()?.is_some() {
            return Err(Error::new(
                ErrorKind::StopIteration,
                "collection has more than one item",
            ));
        }
        Ok(first)
    });
    r.f(
        "generate",
        "initial:any, predicate:Lambda, producer:Lambda, selector:Lambda=null, decycle:bool=false",
        |_, a| {
            let mut x = a.v(0).clone();
            let pred = need(a.lam(1))?.clone();
            let prod = need(a.lam(2))?.clone();
            let sel = a.lam(3).cloned();
            let decycle = a.v(4).truthy();
            let mut seen = Set::new();
            let mut first = true;
            Ok(lazy(move || {
                if !first {
                    x = prod.call1(x.clone())?;
                }
                first = false;
                if !pred.call1(x.clone())?.truthy() {
                    return Ok(None);
                }
                if decycle && !seen.insert(x.clone()) {
                    return Ok(None);
                }
                Ok(Some(match &sel {
                    Some(s) => s.call1(x.clone())?,
                    None => x.clone(),
                }))
            }))
        },
    );
    r.f(
        "generateMany",
        "initial:any, producer:Lambda, selector:Lambda=null, decycle:bool=false, depthFirst:bool=false",
        |c, a| {
            let mut queue: VecDeque<Value> = VecDeque::from([a.v(0).clone()]);
            let prod = need(a.lam(1))?.clone();
            let sel = a.lam(2).cloned();
            let decycle = a.v(3).truthy();
            let depth = a.v(4).truthy();
            let mut seen = Set::new();
            let dicts = c.rt().opts.iterable_dicts;
            Ok(lazy(move || loop {
                let Some(item) = queue.pop_front() else {
                    return Ok(None);
                };
                if decycle && !seen.insert(item.clone()) {
                    continue;
                }
                let out = match &sel {
                    Some(s) => s.call1(item.clone())?,
                    None => item.clone(),
                };
                let produced = prod.call1(item)?;
                let mut children = iterate(&produced, dicts)
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
        },
    );
}

/// `groupBy`, positions (`indexOf`, `indexWhere`...), `isIterable`.
fn grouping_and_searching(r: &Reg, opts: &EngineOptions) {
    let agg_fallback = opts.group_by_agg_fallback.unwrap_or(true);
    r.m(
        "groupBy",
        "collection:Iterable, keySelector:Lambda, valueSelector:Lambda=null, aggregator:Lambda=null",
        move |c, a| {
            let mut it = c.iter(a.v(0))?;
            let ks = need(a.lam(1))?.clone();
            let vs = a.lam(2).cloned();
            let agg = a.lam(3).cloned();
            let mut groups: indexmap::IndexMap<Value, Vec<Value>> = indexmap::IndexMap::new();
            let mut seen = 0usize;
            while let Some(v) = it.next()? {
                seen += 1;
                crate::limits::check_built(seen)?;
                let k = ks.call1(v.clone())?;
                let val = match &vs {
                    Some(l) => l.call1(v)?,
                    None => v,
                };
                groups.entry(k).or_default().push(val);
            }
            let mut out = Vec::with_capacity(groups.len());
            for (k, vals) in groups {
                let vals = Value::list(vals);
                let res = match &agg {
                    None => vals,
                    Some(l) => match l.call1(vals.clone()) {
                        Ok(v) => v,
                        Err(e)
                            if agg_fallback
                                && matches!(
                                    e.kind,
                                    ErrorKind::NoMatchingFunction
                                        | ErrorKind::NoMatchingMethod
                                        | ErrorKind::Index
                                ) =>
                        {
                            let pair = Value::list(vec![k.clone(), vals.clone()]);
                            let r = l.call1(pair)?;
                            match &r {
                                Value::List(x) if x.len() == 2 => {
                                    out.push(r.clone());
                                    continue;
                                }
                                _ => return Err(e),
                            }
                        }
                        Err(e) => return Err(e),
                    },
                };
                out.push(Value::list(vec![k, res]));
            }
            Ok(Value::list(out))
        },
    );
    r.m("indexOf", "collection:Iterable, item:any", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let mut i = 0;
        while let Some(v) = it.next()? {
            if &v == a.v(1) {
                return Ok(Value::Int(i));
            }
            i += 1;
        }
        Ok(Value::Int(-1))
    });
    r.m("lastIndexOf", "collection:Iterable, item:any", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let (mut i, mut found) = (0, -1);
        while let Some(v) = it.next()? {
            if &v == a.v(1) {
                found = i;
            }
            i += 1;
        }
        Ok(Value::Int(found))
    });
    r.m(
        "indexWhere",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = need(a.lam(1))?;
            let mut i = 0;
            while let Some(v) = it.next()? {
                if p.call1(v)?.truthy() {
                    return Ok(Value::Int(i));
                }
                i += 1;
            }
            Ok(Value::Int(-1))
        },
    );
    r.m(
        "lastIndexWhere",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = need(a.lam(1))?;
            let (mut i, mut found) = (0, -1);
            while let Some(v) = it.next()? {
                if p.call1(v)?.truthy() {
                    found = i;
                }
                i += 1;
            }
            Ok(Value::Int(found))
        },
    );
    r.f("isIterable", "value:any", |_, a| {
        Ok(Value::Bool(matches!(
            a.v(0),
            Value::List(_) | Value::Set(_) | Value::Iter(_)
        )))
    });
}

/// `join`, `len` of iterators, `take`/`skip` and their `While` forms.
fn joining_and_partitioning(r: &Reg) {
    r.m(
        "join",
        "collection1:Iterable, collection2:Iterable, predicate:Lambda, selector:Lambda",
        |c, a| {
            let mut outer = c.iter(a.v(0))?;
            let inner = items_vec(c, a.v(1))?;
            let p = need(a.lam(2))?.clone();
            let s = need(a.lam(3))?.clone();
            let mut cur: Option<Value> = None;
            let mut j = 0usize;
            Ok(lazy(move || loop {
                if cur.is_none() {
                    match outer.next()? {
                        Some(v) => {
                            cur = Some(v);
                            j = 0;
                        }
                        None => return Ok(None),
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
        },
    );
    r.mf("len", "collection:Iterator", |c, a| {
        let mut it = c.iter(a.v(0))?;
        let mut n = 0;
        while it.next()?.is_some() {
            n += 1;
        }
        Ok(Value::Int(n))
    });
    for name in ["limit", "take"] {
        r.m(name, "collection:Iterable, count:int", |c, a| {
            let n = islice_count(&a, true)?;
            let mut it = c.iter(a.v(0))?;
            let mut left = n;
            Ok(lazy(move || {
                if left <= 0 {
                    return Ok(None);
                }
                left -= 1;
                it.next()
            }))
        });
    }
    r.m("skip", "collection:Iterable, count:int", |c, a| {
        let n = islice_count(&a, false)?;
        let mut it = c.iter(a.v(0))?;
        let mut skip = n;
        Ok(lazy(move || {
            while skip > 0 {
                skip -= 1;
                if it.next()?.is_none() {
                    return Ok(None);
                }
            }
            it.next()
        }))
    });
    r.m(
        "takeWhile",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = need(a.lam(1))?.clone();
            let mut done = false;
            Ok(lazy(move || {
                if done {
                    return Ok(None);
                }
                match it.next()? {
                    Some(v) if p.call1(v.clone())?.truthy() => Ok(Some(v)),
                    _ => {
                        done = true;
                        Ok(None)
                    }
                }
            }))
        },
    );
    r.m(
        "skipWhile",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let p = need(a.lam(1))?.clone();
            let mut skipping = true;
            Ok(lazy(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                if skipping && p.call1(v.clone())?.truthy() {
                    continue;
                }
                skipping = false;
                return Ok(Some(v));
            }))
        },
    );
}

/// Ordering (`orderBy`, `thenBy`...), `min`/`max`, `range`, `repeat`, `reverse`, `memorize`, `mergeWith`.
fn ordering_and_generation(r: &Reg) {
    for (name, is_max) in [("max", true), ("min", false)] {
        r.m(name, "collection:Iterable, initial:any=nv", move |c, a| {
            fold(c, a.v(0), a.opt(1), |acc, v| {
                let o = yaql_cmp(&v, &acc)?;
                Ok(
                    if (is_max && o == Ordering::Greater) || (!is_max && o == Ordering::Less) {
                        v
                    } else {
                        acc
                    },
                )
            })
        });
    }
    r.m("memorize", "collection:Iterable", |c, a| match a.v(0) {
        Value::Iter(_) => Ok(Value::list(c.collect(a.v(0))?)),
        v => Ok(v.clone()),
    });
    r.m(
        "mergeWith",
        "dict:Mapping, another:Mapping, listMerger:Lambda=null, itemMerger:Lambda=null, maxLevels:int=0",
        |c, a| {
            let (Value::Dict(d1), Value::Dict(d2)) = (a.v(0), a.v(1)) else {
                return Err(Error::type_err("dicts expected"));
            };
            let lm = a.lam(2).cloned();
            let im = a.lam(3).cloned();
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
                a.int(4)? - 1,
            )?))
        },
    );
    r.m("orderBy", "collection:Iterable, selector:Lambda", |c, a| {
        ordered(c, a.v(0).clone(), vec![(need(a.lam(1))?.clone(), false)])
    });
    r.m(
        "orderByDescending",
        "collection:Iterable, selector:Lambda",
        |c, a| ordered(c, a.v(0).clone(), vec![(need(a.lam(1))?.clone(), true)]),
    );
    r.m("thenBy", "collection:Iterable, selector:Lambda", |c, a| {
        then_by(c, &a, false)
    });
    r.m(
        "thenByDescending",
        "collection:Iterable, selector:Lambda",
        |c, a| then_by(c, &a, true),
    );
    r.f("range", "stop:int", |_, a| Ok(range(0, a.clamped(0)?, 1)));
    r.f("range", "start:int, stop:int, step:int=1", |_, a| {
        if a.clamped(2)? == 0 {
            return Err(Error::value_err("range() arg 3 must not be zero"));
        }
        Ok(range(a.clamped(0)?, a.clamped(1)?, a.clamped(2)?))
    });
    r.m("repeat", "value:any, times:int=-1", |_, a| {
        let v = a.v(0).clone();
        let mut left = a.int(1)?;
        Ok(lazy(move || {
            if left == 0 {
                return Ok(None);
            }
            if left > 0 {
                left -= 1;
            }
            Ok(Some(v.clone()))
        }))
    });
    r.m("reverse", "collection:Iterable", |c, a| {
        let mut v = c.collect(a.v(0))?;
        v.reverse();
        Ok(Value::list(v))
    });
}

/// `selectMany`, `sequence`, slicing and splitting, `sum`.
fn slicing_and_sums(r: &Reg) {
    r.m(
        "selectMany",
        "collection:Iterable, selector:Lambda",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let s = need(a.lam(1))?.clone();
            let mut inner: Option<ValueIter> = None;
            Ok(lazy(move || loop {
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
                match iterate(&r, false) {
                    Some(i) => inner = Some(i),
                    None => return Ok(Some(r)),
                }
            }))
        },
    );
    r.f("sequence", "start:int=0, step:int=1", |_, a| {
        let mut cur = a.clamped(0)?;
        let step = a.clamped(1)?;
        Ok(lazy(move || {
            let v = cur;
            cur = cur.saturating_add(step);
            Ok(Some(Value::Int(v)))
        }))
    });
    r.m("slice", "collection:Iterable, length:int", |c, a| {
        let n = a.int(1)?.max(1) as usize;
        let items = c.collect(a.v(0))?;
        Ok(Value::list(
            items.chunks(n).map(|ch| Value::list(ch.to_vec())).collect(),
        ))
    });
    r.m(
        "sliceWhere",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let items = c.collect(a.v(0))?;
            let p = need(a.lam(1))?;
            let mut out: Vec<Value> = Vec::new();
            let mut cur: Vec<Value> = Vec::new();
            let mut last: Option<Value> = None;
            for v in items {
                let k = p.call1(v.clone())?;
                if let Some(l) = &last {
                    if *l != k {
                        out.push(Value::list(std::mem::take(&mut cur)));
                    }
                }
                last = Some(k);
                cur.push(v);
            }
            if !cur.is_empty() {
                out.push(Value::list(cur));
            }
            Ok(Value::list(out))
        },
    );
    r.m("splitAt", "collection:Iterable, index:int", |c, a| {
        let items = c.collect(a.v(0))?;
        let (s, _) = crate::stdlib::strings::slice_bounds(items.len(), Some(a.clamped(1)?), None);
        Ok(Value::list(vec![
            Value::list(items[..s].to_vec()),
            Value::list(items[s..].to_vec()),
        ]))
    });
    r.m(
        "splitWhere",
        "collection:Iterable, predicate:Lambda",
        |c, a| {
            let items = c.collect(a.v(0))?;
            let p = need(a.lam(1))?;
            let mut out = Vec::new();
            let mut cur = Vec::new();
            for v in items {
                if p.call1(v.clone())?.truthy() {
                    out.push(Value::list(std::mem::take(&mut cur)));
                } else {
                    cur.push(v);
                }
            }
            if !cur.is_empty() {
                out.push(Value::list(cur));
            }
            Ok(Value::list(out))
        },
    );
    r.m("sum", "collection:Iterable, initial:any=nv", |c, a| {
        fold(c, a.v(0), a.opt(1), |acc, v| {
            if acc.is_number() && v.is_number() {
                crate::stdlib::math::add(&acc, &v)
            } else {
                c.call("#operator_+", vec![acc, v])
            }
        })
    });
}

/// `zip` and `zipLongest`.
fn zipping(r: &Reg) {
    r.m("zip", "*collections:Iterable", |c, a| {
        let mut its: Vec<ValueIter> = a
            .rest
            .iter()
            .map(|x| c.iter(x.val()))
            .collect::<Result<_>>()?;
        Ok(lazy(move || {
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
    });
    r.m(
        "zipLongest",
        "*collections:Iterable, **kwargs:any",
        |c, a| {
            let mut its: Vec<Option<ValueIter>> = a
                .rest
                .iter()
                .map(|x| c.iter(x.val()).map(Some))
                .collect::<Result<_>>()?;
            let mut default = Value::Null;
            for (k, v) in &a.kw {
                if &**k == "default" {
                    default = v.val().clone();
                } else {
                    return Err(Error::new(
                        ErrorKind::NoMatchingMethod,
                        format!("unexpected keyword argument {k}"),
                    ));
                }
            }
            Ok(lazy(move || {
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
        },
    );
}

/// A lazy Python `range`.
pub fn range(start: i64, stop: i64, step: i64) -> Value {
    // `None` once the next item would pass the 64-bit range (and `stop`).
    let mut cur = Some(start);
    lazy(move || match cur {
        Some(v) if (step > 0 && v < stop) || (step < 0 && v > stop) => {
            cur = v.checked_add(step);
            Ok(Some(Value::Int(v)))
        }
        _ => Ok(None),
    })
}

/// The count of `take()` (`stop`) or `skip()`: what Python's `islice` accepts.
fn islice_count(a: &crate::func::Args, stop: bool) -> Result<i64> {
    match a.v(1) {
        Value::BigInt(_) => {}
        _ => match a.int(1)? {
            n if n >= 0 => return Ok(n),
            _ => {}
        },
    }
    Err(Error::value_err(if stop {
        "Stop argument for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    } else {
        "Indices for islice() must be None or an integer: 0 <= x <= sys.maxsize."
    }))
}
