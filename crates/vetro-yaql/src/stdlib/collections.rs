//! `collections`: list, dict and set construction, indexing and operations.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::iter::{iterate, LazyIter, ValueIter};
use crate::value::{Dict, Set, Value};
use crate::EngineOptions;
use std::rc::Rc;

/// The key as Python shows it, cut short: a key can be a large value.
fn key_error(k: &Value) -> Error {
    Error::new(ErrorKind::Key, k.repr_clipped(4096))
}

/// Python sequence indexing.
pub fn index_list(l: &[Value], i: &Value) -> Result<Value> {
    let idx = match i {
        Value::Int(x) => *x,
        Value::Bool(b) => *b as i64,
        _ => return Err(Error::new(ErrorKind::Index, "index out of range")),
    };
    let n = l.len() as i64;
    let j = if idx < 0 { idx + n } else { idx };
    if j < 0 || j >= n {
        return Err(Error::new(ErrorKind::Index, "tuple index out of range"));
    }
    Ok(l[j as usize].clone())
}

/// Collect items, flattening only lazy-iterator arguments (`list()`/`set()`).
fn gather(args: &[crate::func::ArgValue], rt: &crate::runtime::Runtime) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let lim = rt.opts.limit_iterators;
    for a in args {
        match a.val() {
            Value::Iter(it) => {
                while let Some(v) = it.next()? {
                    out.push(v);
                    if lim >= 0 && out.len() as i64 > lim {
                        return Err(crate::iter::too_large());
                    }
                    crate::limits::check_built(out.len())?;
                }
            }
            v => out.push(v.clone()),
        }
    }
    Ok(out)
}

fn as_set(v: &Value) -> Rc<Set> {
    match v {
        Value::Set(s) => s.clone(),
        _ => Rc::new(Set::new()),
    }
}

fn as_dict(v: &Value) -> Rc<Dict> {
    match v {
        Value::Dict(d) => d.clone(),
        _ => Rc::new(Dict::new()),
    }
}

/// Build a dict from pairs (each item's first two elements).
pub fn dict_from_pairs(items: ValueIter) -> Result<Value> {
    let mut it = items;
    let mut d = Dict::new();
    while let Some(item) = it.next()? {
        crate::limits::check_built(d.len() * 2)?;
        let mut inner = iterate(&item, false)
            .ok_or_else(|| Error::type_err("cannot convert dictionary update sequence element"))?;
        let k = inner
            .next()?
            .ok_or_else(|| Error::new(ErrorKind::StopIteration, ""))?;
        let v = inner
            .next()?
            .ok_or_else(|| Error::new(ErrorKind::StopIteration, ""))?;
        d.insert(k, v);
    }
    Ok(Value::dict(d))
}

fn set_cmp(r: &Reg, name: &str, f: fn(&Set, &Set) -> bool) {
    r.f(name, "left:Set, right:Set", move |_, a| {
        Ok(Value::Bool(f(&as_set(a.v(0)), &as_set(a.v(1)))))
    });
}

/// The items of `a` that are in `b` (`in_b`) or are not, in `a`'s order.
fn sift(a: &Set, b: &Set, in_b: bool) -> Set {
    a.iter()
        .filter(|x| b.contains(*x) == in_b)
        .cloned()
        .collect()
}

fn subset(a: &Set, b: &Set) -> bool {
    a.iter().all(|x| b.contains(x))
}

pub fn register(r: &Reg, opts: &EngineOptions) {
    operators_and_membership(r);
    building_and_deleting(r);
    inserting_and_inspecting(r);
    replacing_and_converting(r);
    set_algebra(r, opts);
}

/// Operators on collections (`#indexer`, `+`, `-`, `*`, `in`, `.`), literals, `contains*`.
fn operators_and_membership(r: &Reg) {
    let repeat = |c: &crate::func::Call, l: &Value, n: i64| -> Result<Value> {
        Ok(match l {
            // Nothing to repeat: no loop, however large the count.
            Value::List(items) if n > 0 && !items.is_empty() => {
                c.rt()
                    .check_bytes((items.len() * 8).saturating_mul(n as usize))?;
                let mut out = Vec::with_capacity(items.len() * n as usize);
                for _ in 0..n {
                    out.extend(items.iter().cloned());
                }
                Value::list(out)
            }
            _ => Value::list(vec![]),
        })
    };
    r.f("#indexer", "dict:Mapping, key:any", |_, a| {
        let d = as_dict(a.v(0));
        d.get(a.v(1)).cloned().ok_or_else(|| key_error(a.v(1)))
    });
    r.f("#indexer", "dict:Mapping, key:any, default:any", |_, a| {
        let d = as_dict(a.v(0));
        Ok(d.get(a.v(1)).cloned().unwrap_or_else(|| a.v(2).clone()))
    });
    r.f("#indexer", "list:Sequence, index:int", |_, a| {
        match a.v(0) {
            Value::List(l) => index_list(l, a.v(1)),
            _ => Err(Error::new(ErrorKind::Index, "not a sequence")),
        }
    });
    r.f("#list", "*args:any", |_, a| {
        Ok(Value::list(a.rest_values()))
    });
    r.f("#map", "*args:Rule, nokw", |_, a| {
        let mut d = Dict::new();
        for rule in &a.rest {
            if let crate::func::ArgValue::Rule(k, v) = rule {
                let key = k.eval()?;
                let val = v.eval()?;
                d.insert(key, val);
            }
        }
        Ok(Value::dict(d))
    });
    r.f("#operator_*", "left:Sequence, right:int", move |c, a| {
        repeat(c, a.v(0), a.int(1)?)
    });
    r.f("#operator_*", "left:int, right:Sequence", move |c, a| {
        repeat(c, a.v(1), a.int(0)?)
    });
    r.f(
        "#operator_+",
        "left:Iterable, right:Iterable",
        |c, a| match (a.v(0), a.v(1)) {
            (Value::List(x), Value::List(y)) => {
                crate::limits::check_join(
                    (x.len() + y.len()).saturating_mul(crate::limits::ITEM_BYTES),
                )?;
                let mut out = (**x).clone();
                out.extend(y.iter().cloned());
                let out = Value::list(out);
                // The reference joins two tuples into a tuple and anything
                // else lazily, which its output makes a list.
                if c.rt().is_list(a.v(0)) || c.rt().is_list(a.v(1)) {
                    c.rt().mark_list(&out);
                }
                Ok(out)
            }
            (Value::Set(x), Value::Set(y)) => {
                crate::limits::check_join(
                    (x.len() + y.len()).saturating_mul(crate::limits::ITEM_BYTES),
                )?;
                let mut out = (**x).clone();
                out.extend(y.iter().cloned());
                Ok(Value::set(out))
            }
            (x, y) => {
                let mut first = Some(c.iter(x)?);
                let mut second = c.iter(y)?;
                Ok(Value::Iter(LazyIter::from_fn(move || {
                    if let Some(f) = first.as_mut() {
                        if let Some(v) = f.next()? {
                            return Ok(Some(v));
                        }
                        first = None;
                    }
                    second.next()
                })))
            }
        },
    );
    r.f("#operator_+", "left:Mapping, right:Mapping", |_, a| {
        let items = as_dict(a.v(0)).len() + as_dict(a.v(1)).len();
        crate::limits::check_join(items.saturating_mul(2 * crate::limits::ITEM_BYTES))?;
        let mut d = (*as_dict(a.v(0))).clone();
        for (k, v) in as_dict(a.v(1)).iter() {
            d.insert(k.clone(), v.clone());
        }
        Ok(Value::dict(d))
    });
    r.f("#operator_-", "left:Set, right:Set", |_, a| {
        Ok(Value::set(sift(&as_set(a.v(0)), &as_set(a.v(1)), false)))
    });
    r.f("#operator_.", "dict:Mapping, key:Keyword", |_, a| {
        let d = as_dict(a.v(0));
        let k = Value::str(a.str(1));
        d.get(&k).cloned().ok_or_else(|| key_error(&k))
    });
    set_cmp(r, "#operator_<", |a, b| a.len() < b.len() && subset(a, b));
    set_cmp(r, "#operator_<=", subset);
    set_cmp(r, "#operator_>", |a, b| a.len() > b.len() && subset(b, a));
    set_cmp(r, "#operator_>=", |a, b| subset(b, a));
    r.f("#operator_in", "value:any, collection:Iterable", |c, a| {
        contains(c, a.v(1), a.v(0))
    });
    r.m("contains", "collection:Iterable, value:any", |c, a| {
        contains(c, a.v(0), a.v(1))
    });
    r.m("containsKey", "dict:Mapping, key:any", |_, a| {
        Ok(Value::Bool(as_dict(a.v(0)).contains_key(a.v(1))))
    });
    r.m("containsValue", "dict:Mapping, value:any", |_, a| {
        Ok(Value::Bool(as_dict(a.v(0)).values().any(|v| v == a.v(1))))
    });
}

/// `dict`, `delete`, `flatten`, `get`, `insert`.
fn building_and_deleting(r: &Reg) {
    r.m(
        "delete",
        "collection:Iterable, position:int, count:int=1",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let pos = a.int(1)?;
            let count = a.int(2)?;
            let mut i: i64 = 0;
            Ok(Value::Iter(LazyIter::from_fn(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let idx = i;
                i += 1;
                if idx >= pos && (count < 0 || idx < pos + count) {
                    continue;
                }
                return Ok(Some(v));
            })))
        },
    );
    r.m("delete", "dict:Mapping, *keys:any", |_, a| {
        let mut d = (*as_dict(a.v(0))).clone();
        for k in a.rest_values() {
            d.shift_remove(&k);
        }
        Ok(Value::dict(d))
    });
    r.m("deleteAll", "dict:Mapping, keys:Iterable", |c, a| {
        let mut d = (*as_dict(a.v(0))).clone();
        for k in c.collect(a.v(1))? {
            d.shift_remove(&k);
        }
        Ok(Value::dict(d))
    });
    r.f("dict", "*args:Rule, nokw", |_, a| {
        let mut d = Dict::new();
        for rule in &a.rest {
            if let crate::func::ArgValue::Rule(k, v) = rule {
                d.insert(k.eval()?, v.eval()?);
            }
        }
        Ok(Value::dict(d))
    });
    r.f("dict", "items:Iterable, nokw", |c, a| {
        dict_from_pairs(c.iter(a.v(0))?)
    });
    r.m("flatten", "collection:Iterable", |c, a| {
        let mut stack = vec![c.iter(a.v(0))?];
        Ok(Value::Iter(LazyIter::from_fn(move || loop {
            // Each step counts: a list of empty lists shared 60 levels deep
            // yields nothing for 2^60 steps.
            crate::limits::tick()?;
            let Some(top) = stack.last_mut() else {
                return Ok(None);
            };
            match top.next()? {
                None => {
                    stack.pop();
                }
                Some(v) => match iterate(&v, false) {
                    Some(inner) => stack.push(inner),
                    None => return Ok(Some(v)),
                },
            }
        })))
    });
    r.m("get", "dict:Mapping, key:any, default:any=null", |_, a| {
        Ok(as_dict(a.v(0))
            .get(a.v(1))
            .cloned()
            .unwrap_or_else(|| a.v(2).clone()))
    });
    r.m(
        "insert",
        "collection:Iterable, position:int, value:any",
        |c, a| {
            if let Value::Set(_) = a.v(0) {
                return Err(Error::new(
                    ErrorKind::NoMatchingMethod,
                    "No method \"insert\" for a set receiver",
                ));
            }
            let mut it = c.iter(a.v(0))?;
            let pos = a.int(1)?;
            let mut val = Some(a.v(2).clone());
            if pos < 0 {
                val = None;
            }
            let mut i: i64 = 0;
            Ok(Value::Iter(LazyIter::from_fn(move || {
                if i == pos {
                    if let Some(v) = val.take() {
                        i += 1;
                        return Ok(Some(v));
                    }
                }
                match it.next()? {
                    Some(v) => {
                        i += 1;
                        Ok(Some(v))
                    }
                    None => Ok(val.take()),
                }
            })))
        },
    );
}

/// `insertMany`, type tests, `keys`/`values`/`items`, `len`, `list`, `replace`.
fn inserting_and_inspecting(r: &Reg) {
    r.m(
        "insert",
        "collection:Sequence, position:int, value:any",
        |_, a| {
            let Value::List(l) = a.v(0) else {
                return Ok(Value::Null);
            };
            let mut out = (**l).clone();
            let n = out.len() as i64;
            let mut p = a.int(1)?;
            if p < 0 {
                p = (p + n).max(0);
            }
            let p = p.min(n) as usize;
            out.insert(p, a.v(2).clone());
            Ok(Value::list(out))
        },
    );
    r.m(
        "insertMany",
        "collection:Iterable, position:int, values:Iterable",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let pos = a.int(1)?.max(0);
            let mut vals = Some(c.iter(a.v(2))?);
            let mut i: i64 = 0;
            Ok(Value::Iter(LazyIter::from_fn(move || {
                if i >= pos {
                    if let Some(vs) = vals.as_mut() {
                        if let Some(v) = vs.next()? {
                            return Ok(Some(v));
                        }
                        vals = None;
                    }
                }
                match it.next()? {
                    Some(v) => {
                        i += 1;
                        Ok(Some(v))
                    }
                    None => match vals.as_mut() {
                        Some(vs) => {
                            let v = vs.next()?;
                            if v.is_none() {
                                vals = None;
                            }
                            Ok(v)
                        }
                        None => Ok(None),
                    },
                }
            })))
        },
    );
    r.f("isDict", "arg:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::Dict(_))))
    });
    r.f("isList", "arg:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::List(_))))
    });
    r.f("isSet", "arg:any", |_, a| {
        Ok(Value::Bool(matches!(a.v(0), Value::Set(_))))
    });
    r.m("items", "dict:Mapping", |_, a| {
        Ok(Value::set(
            as_dict(a.v(0))
                .iter()
                .map(|(k, v)| Value::list(vec![k.clone(), v.clone()]))
                .collect(),
        ))
    });
    r.m("keys", "dict:Mapping", |_, a| {
        Ok(Value::set(as_dict(a.v(0)).keys().cloned().collect()))
    });
    r.m("values", "dict:Mapping", |_, a| {
        Ok(Value::list(as_dict(a.v(0)).values().cloned().collect()))
    });
    r.mf("len", "dict:Mapping", |_, a| {
        Ok(Value::Int(as_dict(a.v(0)).len() as i64))
    });
    r.mf("len", "sequence:Sequence", |_, a| match a.v(0) {
        Value::List(l) => Ok(Value::Int(l.len() as i64)),
        _ => Ok(Value::Int(0)),
    });
    r.mf("len", "set:Set", |_, a| {
        Ok(Value::Int(as_set(a.v(0)).len() as i64))
    });
    r.f("list", "*args:any", |c, a| {
        Ok(Value::list(gather(&a.rest, c.rt())?))
    });
    r.m(
        "replace",
        "collection:Iterable, position:int, value:any, count:int=1",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let pos = a.int(1)?;
            let count = a.int(3)?;
            let mut val = Some(a.v(2).clone());
            let mut i: i64 = 0;
            Ok(Value::Iter(LazyIter::from_fn(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let idx = i;
                i += 1;
                if idx >= pos && (count < 0 || idx < pos + count) {
                    if let Some(x) = val.take() {
                        return Ok(Some(x));
                    }
                    continue;
                }
                return Ok(Some(v));
            })))
        },
    );
}

/// `replaceMany`, `set` on dicts, `toDict`, `toList`.
fn replacing_and_converting(r: &Reg) {
    r.m(
        "replaceMany",
        "collection:Iterable, position:int, values:Iterable, count:int=1",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let pos = a.int(1)?;
            let count = a.int(3)?;
            let mut vals = Some(c.iter(a.v(2))?);
            let mut i: i64 = 0;
            let mut pending: Vec<Value> = Vec::new();
            Ok(Value::Iter(LazyIter::from_fn(move || loop {
                if let Some(v) = pending.pop() {
                    return Ok(Some(v));
                }
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                let idx = i;
                i += 1;
                if idx >= pos && (count < 0 || idx < pos + count) {
                    if let Some(mut vs) = vals.take() {
                        let mut all = vs.collect_vec()?;
                        all.reverse();
                        pending = all;
                    }
                    continue;
                }
                return Ok(Some(v));
            })))
        },
    );
    r.m(
        "toDict",
        "collection:Iterable, keySelector:Lambda, valueSelector:Lambda=null",
        |c, a| {
            let mut it = c.iter(a.v(0))?;
            let mut d = Dict::new();
            let ks = a.lam(1).cloned();
            let vs = a.lam(2).cloned();
            while let Some(item) = it.next()? {
                crate::limits::check_built(d.len() * 2)?;
                let k = match &ks {
                    Some(l) => l.call1(item.clone())?,
                    None => item.clone(),
                };
                let v = match &vs {
                    Some(l) => l.call1(item)?,
                    None => item,
                };
                d.insert(k, v);
            }
            Ok(Value::dict(d))
        },
    );
    r.m("toList", "collection:Iterable", |c, a| match a.v(0) {
        Value::List(_) => Ok(a.v(0).clone()),
        v => Ok(Value::list(c.collect(v)?)),
    });
    r.m("set", "dict:Mapping, *args:Rule, nokw", |_, a| {
        let mut d = (*as_dict(a.v(0))).clone();
        for rule in &a.rest {
            if let crate::func::ArgValue::Rule(k, v) = rule {
                d.insert(k.eval()?, v.eval()?);
            }
        }
        Ok(Value::dict(d))
    });
    r.m("set", "dict:Mapping, key:any, value:any, nokw", |_, a| {
        let mut d = (*as_dict(a.v(0))).clone();
        d.insert(a.v(1).clone(), a.v(2).clone());
        Ok(Value::dict(d))
    });
    r.m("set", "dict:Mapping, replacements:Mapping, nokw", |_, a| {
        let mut d = (*as_dict(a.v(0))).clone();
        for (k, v) in as_dict(a.v(1)).iter() {
            d.insert(k.clone(), v.clone());
        }
        Ok(Value::dict(d))
    });
}

/// Sets: `toSet`, `add`, `remove`, `union` and the other set operations.
fn set_algebra(r: &Reg, opts: &EngineOptions) {
    if !opts.no_sets {
        r.m("add", "set:Set, *values:any", |_, a| {
            let mut s = (*as_set(a.v(0))).clone();
            for v in a.rest_values() {
                s.insert(v);
            }
            Ok(Value::set(s))
        });
        r.m("remove", "set:Set, *values:any", |_, a| {
            let mut s = (*as_set(a.v(0))).clone();
            for v in a.rest_values() {
                s.shift_remove(&v);
            }
            Ok(Value::set(s))
        });
        r.m("difference", "left:Set, right:Set", |_, a| {
            Ok(Value::set(sift(&as_set(a.v(0)), &as_set(a.v(1)), false)))
        });
        r.m("intersect", "left:Set, right:Set", |_, a| {
            Ok(Value::set(sift(&as_set(a.v(0)), &as_set(a.v(1)), true)))
        });
        r.m("union", "left:Set, right:Set", |_, a| {
            let mut s = (*as_set(a.v(0))).clone();
            s.extend(as_set(a.v(1)).iter().cloned());
            Ok(Value::set(s))
        });
        r.m("symmetricDifference", "left:Set, right:Set", |_, a| {
            let (x, y) = (as_set(a.v(0)), as_set(a.v(1)));
            let mut s = sift(&x, &y, false);
            s.extend(sift(&y, &x, false));
            Ok(Value::set(s))
        });
        r.f("set", "*args:any", |c, a| {
            Ok(Value::set(gather(&a.rest, c.rt())?.into_iter().collect()))
        });
        r.m("toSet", "collection:Iterable", |c, a| {
            Ok(Value::set(c.collect(a.v(0))?.into_iter().collect()))
        });
    }
}

fn contains(c: &crate::func::Call, coll: &Value, v: &Value) -> Result<Value> {
    match coll {
        Value::Set(s) => Ok(Value::Bool(s.contains(v))),
        Value::Dict(d) => Ok(Value::Bool(d.contains_key(v))),
        _ => {
            let mut it = c.iter(coll)?;
            while let Some(x) = it.next()? {
                if &x == v {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }
    }
}
