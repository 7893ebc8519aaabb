//! `collections`: list, dict and set construction, indexing and operations.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::params::{Iterable, Keyword, NonSetIterable, PyInt, Rest, Rule};
use crate::func::{Call, SharedDef};
use crate::iter::{iterate_in, LazyIter, ValueIter};
use crate::limits::Run;
use crate::value::{Dict, List, Set, Value};
use crate::yaql_fn;
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
fn gather(args: &[&Value], rt: &crate::runtime::Runtime) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    let lim = rt.opts.limit_iterators;
    for a in args {
        // Iterators are spread, and their items that are iterators too, at
        // any depth, as the reference's recursion does; lists and iterables
        // that are not iterators (`orderBy` results) stay items.
        let it = match a {
            Value::Iter(it) if it.iterator => it,
            _ => {
                out.push((*a).clone());
                continue;
            }
        };
        let mut open = vec![it.counted_in(rt.run())];
        while let Some(top) = open.last() {
            match top.next()? {
                Some(Value::Iter(ref inner)) if inner.iterator => {
                    open.push(inner.counted_in(rt.run()))
                }
                Some(v) => {
                    out.push(v);
                    if lim >= 0 && out.len() as i64 > lim {
                        return Err(crate::iter::too_large());
                    }
                    rt.run().check_built(out.len())?;
                }
                None => {
                    open.pop();
                }
            }
        }
    }
    Ok(out)
}

/// A dictionary of the rules' keys and values, evaluated in order.
fn dict_of_rules(base: Dict, rules: Vec<Rule>) -> Result<Value> {
    let mut d = base;
    for rule in rules {
        d.insert(rule.key.eval()?, rule.value.eval()?);
    }
    Ok(Value::dict(d))
}

/// Build a dict from pairs (each item's first two elements).
pub fn dict_from_pairs(run: &Rc<Run>, items: ValueIter) -> Result<Value> {
    let mut it = items;
    let mut d = Dict::new();
    while let Some(item) = it.next()? {
        run.check_built(d.len() * 2)?;
        let (k, v) = first_two(run, &item)?;
        d.insert(k, v);
    }
    Ok(Value::dict(d))
}

/// The first two items of `item` as Python iterates it (a string's
/// characters, a dict's keys; more are not read); StopIteration when it
/// has fewer.
fn first_two(run: &Rc<Run>, item: &Value) -> Result<(Value, Value)> {
    let short = || Error::new(ErrorKind::StopIteration, "");
    if let Value::Str(s) = item {
        let mut cs = s.chars().map(|c| Value::str(c.encode_utf8(&mut [0; 4])));
        let k = cs.next().ok_or_else(short)?;
        return Ok((k, cs.next().ok_or_else(short)?));
    }
    let mut inner = iterate_in(run, item, true)
        .ok_or_else(|| Error::type_err(format!("'{}' object is not iterable", item.type_name())))?;
    let k = inner.next()?.ok_or_else(short)?;
    Ok((k, inner.next()?.ok_or_else(short)?))
}

fn set_cmp(r: &Reg, name: &str, f: fn(&Set, &Set) -> bool) {
    r.add_def(
        yaql_fn!(Function name, |_c| (left: &Rc<Set>, right: &Rc<Set>) { Ok(f(left, right)) }),
    );
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

/// `$.key` on a dictionary: its value, or a key error.
fn dict_key(dict: &Dict, key: &str) -> Result<Value> {
    dict.get_str(key)
        .cloned()
        .ok_or_else(|| key_error(&Value::str(key)))
}

pub fn register(r: &Reg, opts: &EngineOptions) {
    operators_and_membership(r);
    building_and_deleting(r);
    inserting_and_inspecting(r);
    replacing_and_converting(r);
    set_algebra(r, opts);
}

/// `items` repeated `n` times (`[1] * 3`).
fn repeat(c: &Call, items: &[Value], n: i64) -> Result<Value> {
    // Nothing to repeat: no loop, however large the count.
    if n <= 0 || items.is_empty() {
        return Ok(Value::list(vec![]));
    }
    c.rt()
        .check_bytes((items.len() * 8).saturating_mul(n as usize))?;
    let mut out = Vec::with_capacity(items.len() * n as usize);
    for _ in 0..n {
        out.extend(items.iter().cloned());
    }
    Ok(Value::list(out))
}

/// `left + right` of two iterables: lists and sets joined, anything else
/// chained lazily.
fn join_iterables(c: &Call, left: &Value, right: &Value) -> Result<Value> {
    match (left, right) {
        (Value::List(x), Value::List(y)) => {
            c.run()
                .check_join((x.len() + y.len()).saturating_mul(crate::limits::ITEM_BYTES))?;
            // Appended to `x`'s buffer when `x` is its longest view: a
            // loop growing a list it keeps elsewhere does not copy it.
            let mut out = x.clone();
            out.extend(y.iter());
            let out = Value::List(out);
            // The reference joins two tuples into a tuple and anything
            // else lazily, which its output makes a list.
            if c.rt().is_list(left) || c.rt().is_list(right) {
                c.rt().mark_list(&out);
            }
            Ok(out)
        }
        (Value::Set(x), Value::Set(y)) => {
            c.run()
                .check_join((x.len() + y.len()).saturating_mul(crate::limits::ITEM_BYTES))?;
            let mut out = (**x).clone();
            out.extend(y.iter().cloned());
            Ok(Value::set(out))
        }
        (x, y) => {
            let mut first = Some(c.iter(x)?);
            let mut second = c.iter(y)?;
            Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
                if let Some(f) = first.as_mut() {
                    if let Some(v) = f.next()? {
                        return Ok(Some(v));
                    }
                    first = None;
                }
                second.next()
            })))
        }
    }
}

/// Operators on collections (`#indexer`, `+`, `-`, `*`, `in`, `.`), literals, `contains*`.
fn operators_and_membership(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "#indexer", |_c| (dict: &Dict, key: &Value) {
            dict.get(key).cloned().ok_or_else(|| key_error(key))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#indexer", |_c| (dict: &Dict, key: &Value, default: &Value) {
            Ok(dict.get(key).cloned().unwrap_or_else(|| default.clone()))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#indexer", |_c| (list: &List, index: PyInt) {
            index_list(list, &index)
        }),
    );
    r.add_def(yaql_fn!(Function "#list", |_c| (args: Rest<Value>) { Ok(Value::list(args.0)) }));
    r.add_def(
        yaql_fn!(Function "#map", |_c| (args: Rest<Rule>) { dict_of_rules(Dict::new(), args.0) })
            .nokw(),
    );
    r.add_def(
        yaql_fn!(Function "#operator_*", |c| (left: &List, right: PyInt) {
            repeat(c, left, right.index()?)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_*", |c| (left: PyInt, right: &List) {
            repeat(c, right, left.index()?)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_+", |c| (left: Iterable, right: Iterable) {
            join_iterables(c, &left, &right)
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_+", |c| (left: &Dict, right: &Dict) {
            let items = left.len() + right.len();
            c.run().check_join(items.saturating_mul(2 * crate::limits::ITEM_BYTES))?;
            let mut d = left.clone();
            for (k, v) in right.iter() {
                d.insert(k.clone(), v.clone());
            }
            Ok(Value::dict(d))
        }),
    );
    r.add_def(
        yaql_fn!(Function "#operator_-", |_c| (left: &Rc<Set>, right: &Rc<Set>) {
            Ok(Value::set(sift(left, right, false)))
        }),
    );
    let def: SharedDef = yaql_fn!(Function "#operator_.", |_c| (dict: &Dict, key: Keyword) {
        dict_key(dict, key.0)
    })
    .into();
    r.add_def(def.with_direct_key(|v, key| match v {
        Value::Dict(d) => dict_key(d, key),
        _ => Err(Error::type_err("not a dictionary")),
    }));
    set_cmp(r, "#operator_<", |a, b| a.len() < b.len() && subset(a, b));
    set_cmp(r, "#operator_<=", subset);
    set_cmp(r, "#operator_>", |a, b| a.len() > b.len() && subset(b, a));
    set_cmp(r, "#operator_>=", |a, b| subset(b, a));
    r.add_def(
        yaql_fn!(Function "#operator_in", |c| (value: &Value, collection: Iterable) {
            contains(c, &collection, value)
        }),
    );
    r.add_def(
        yaql_fn!(Method "contains", |c| (collection: Iterable, value: &Value) {
            contains(c, &collection, value)
        }),
    );
    r.add_def(
        yaql_fn!(Method "containsKey", |_c| (dict: &Dict, key: &Value) {
            Ok(dict.contains_key(key))
        }),
    );
    r.add_def(
        yaql_fn!(Method "containsValue", |_c| (dict: &Dict, value: &Value) {
            Ok(dict.values().any(|v| v == value))
        }),
    );
}

/// The items of `it`, those from `pos` on (`count` of them, all for a
/// negative count) left out, the first left out replaced by `with`'s items.
fn splice(
    run: &Rc<Run>,
    mut it: ValueIter,
    pos: i64,
    count: i64,
    mut with: Option<ValueIter>,
) -> Value {
    let mut i: i64 = 0;
    let mut pending: Vec<Value> = Vec::new();
    Value::Iter(LazyIter::from_fn(run, move || loop {
        if let Some(v) = pending.pop() {
            return Ok(Some(v));
        }
        let Some(v) = it.next()? else {
            return Ok(None);
        };
        let idx = i;
        i += 1;
        if idx >= pos && (count < 0 || idx < pos + count) {
            if let Some(mut vs) = with.take() {
                let mut all = vs.collect_vec()?;
                all.reverse();
                pending = all;
            }
            continue;
        }
        return Ok(Some(v));
    }))
}

/// `dict`, `delete`, `flatten`, `get`, `insert`.
fn building_and_deleting(r: &Reg) {
    r.add_def(
        yaql_fn!(Method "delete", |c| (collection: Iterable, position: PyInt, count: PyInt = 1) {
            Ok(splice(c.run(), collection.iter(c)?, position.index()?, count.index()?, None))
        }),
    );
    r.add_def(
        yaql_fn!(Method "delete", |_c| (dict: &Dict, keys: Rest<&Value>) {
            let mut d = dict.clone();
            for k in keys.0 {
                d.shift_remove(k);
            }
            Ok(Value::dict(d))
        }),
    );
    r.add_def(
        yaql_fn!(Method "deleteAll", |c| (dict: &Dict, keys: Iterable) {
            let mut d = dict.clone();
            for k in keys.collect(c)? {
                d.shift_remove(&k);
            }
            Ok(Value::dict(d))
        }),
    );
    r.add_def(
        yaql_fn!(Function "dict", |_c| (args: Rest<Rule>) { dict_of_rules(Dict::new(), args.0) })
            .nokw(),
    );
    r.add_def(
        yaql_fn!(Function "dict", |c| (items: Iterable) { dict_from_pairs(c.run(), items.iter(c)?) }).nokw(),
    );
    r.add_def(yaql_fn!(Method "flatten", |c| (collection: Iterable) {
        let mut stack = vec![collection.iter(c)?];
        let run = c.run().clone();
        Ok(Value::Iter(LazyIter::from_fn(c.run(), move || loop {
            // Each step counts: a list of empty lists shared 60 levels deep
            // yields nothing for 2^60 steps.
            run.tick()?;
            let Some(top) = stack.last_mut() else {
                return Ok(None);
            };
            match top.next()? {
                None => {
                    stack.pop();
                }
                Some(v) => match iterate_in(&run, &v, false) {
                    Some(inner) => stack.push(inner),
                    None => return Ok(Some(v)),
                },
            }
        })))
    }));
    r.add_def(
        yaql_fn!(Method "get", |_c| (dict: &Dict, key: &Value, default: &Value = Null) {
            Ok(dict.get(key).cloned().unwrap_or_else(|| default.clone()))
        }),
    );
    r.add_def(
        yaql_fn!(Method "insert", |c| (collection: NonSetIterable, position: PyInt, value: &Value) {
            let mut it = c.iter(collection.0)?;
            let pos = position.index()?;
            let mut val = (pos >= 0).then(|| value.clone());
            let mut i: i64 = 0;
            Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
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
        }),
    );
}

/// `insertMany`, type tests, `keys`/`values`/`items`, `len`, `list`, `replace`.
fn inserting_and_inspecting(r: &Reg) {
    r.add_def(
        yaql_fn!(Method "insert", |_c| (collection: &List, position: PyInt, value: &Value) {
            let mut out = collection.to_vec();
            let n = out.len() as i64;
            let mut p = position.index()?;
            if p < 0 {
                p = (p + n).max(0);
            }
            out.insert(p.min(n) as usize, value.clone());
            Ok(Value::list(out))
        }),
    );
    r.add_def(yaql_fn!(Method "insertMany", |c| (collection: Iterable, position: PyInt, values: Iterable) {
        let mut it = collection.iter(c)?;
        let pos = position.index()?.max(0);
        let mut vals = Some(values.iter(c)?);
        let mut i: i64 = 0;
        Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
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
    }));
    r.add_def(
        yaql_fn!(Function "isDict", |_c| (arg: &Value) { Ok(matches!(arg, Value::Dict(_))) }),
    );
    r.add_def(
        yaql_fn!(Function "isList", |_c| (arg: &Value) { Ok(matches!(arg, Value::List(_))) }),
    );
    r.add_def(yaql_fn!(Function "isSet", |_c| (arg: &Value) { Ok(matches!(arg, Value::Set(_))) }));
    r.add_def(yaql_fn!(Method "items", |_c| (dict: &Dict) {
        Ok(Value::set(
            dict.iter()
                .map(|(k, v)| Value::list(vec![k.clone(), v.clone()]))
                .collect(),
        ))
    }));
    r.add_def(yaql_fn!(Method "keys", |_c| (dict: &Dict) { Ok(Value::set(dict.keys().cloned().collect())) }));
    r.add_def(yaql_fn!(Method "values", |_c| (dict: &Dict) {
        Ok(Value::list(dict.values().cloned().collect()))
    }));
    r.add_def(yaql_fn!(Both "len", |_c| (dict: &Dict) { Ok(dict.len() as i64) }));
    r.add_def(yaql_fn!(Both "len", |_c| (sequence: &List) { Ok(sequence.len() as i64) }));
    r.add_def(yaql_fn!(Both "len", |_c| (set: &Rc<Set>) { Ok(set.len() as i64) }));
    r.add_def(yaql_fn!(Function "list", |c| (args: Rest<&Value>) { Ok(Value::list(gather(&args.0, c.rt())?)) }));
    r.add_def(yaql_fn!(Method "replace", |c| (collection: Iterable, position: PyInt, value: &Value, count: PyInt = 1) {
        let with = Value::list(vec![value.clone()]);
        Ok(splice(c.run(), collection.iter(c)?, position.index()?, count.index()?, Some(c.iter(&with)?)))
    }));
}

/// `replaceMany`, `set` on dicts, `toDict`, `toList`.
fn replacing_and_converting(r: &Reg) {
    r.add_def(yaql_fn!(Method "replaceMany", |c| (collection: Iterable, position: PyInt, values: Iterable, count: PyInt = 1) {
        Ok(splice(c.run(), collection.iter(c)?, position.index()?, count.index()?, Some(values.iter(c)?)))
    }));
    r.add_def(yaql_fn!(Method "toDict", |c| (collection: Iterable, keySelector: &Lambda, valueSelector: Option<&Lambda> = Null) {
        let mut it = collection.iter(c)?;
        let mut d = Dict::with_capacity(it.size_hint().unwrap_or(0));
        while let Some(item) = it.next()? {
            c.run().check_built(d.len() * 2)?;
            let k = keySelector.call1_ref(&item)?;
            let v = match valueSelector {
                Some(l) => l.call1(item)?,
                None => item,
            };
            d.insert(k, v);
        }
        Ok(Value::dict(d))
    }));
    r.add_def(yaql_fn!(Method "toList", |c| (collection: Iterable) {
        Ok(match collection.0 {
            Value::List(_) => collection.0.clone(),
            v => Value::list(c.collect(v)?),
        })
    }));
    r.add_def(
        yaql_fn!(Method "set", |_c| (dict: &Dict, args: Rest<Rule>) {
            dict_of_rules(dict.clone(), args.0)
        })
        .nokw(),
    );
    r.add_def(
        yaql_fn!(Method "set", |_c| (dict: &Dict, key: &Value, value: &Value) {
            let mut d = dict.clone();
            d.insert(key.clone(), value.clone());
            Ok(Value::dict(d))
        })
        .nokw(),
    );
    r.add_def(
        yaql_fn!(Method "set", |_c| (dict: &Dict, replacements: &Dict) {
            let mut d = dict.clone();
            for (k, v) in replacements.iter() {
                d.insert(k.clone(), v.clone());
            }
            Ok(Value::dict(d))
        })
        .nokw(),
    );
}

/// Sets: `toSet`, `add`, `remove`, `union` and the other set operations.
fn set_algebra(r: &Reg, opts: &EngineOptions) {
    if opts.no_sets {
        return;
    }
    r.add_def(
        yaql_fn!(Method "add", |_c| (set: &Rc<Set>, values: Rest<Value>) {
            let mut s = (**set).clone();
            s.extend(values.0);
            Ok(Value::set(s))
        }),
    );
    r.add_def(
        yaql_fn!(Method "remove", |_c| (set: &Rc<Set>, values: Rest<&Value>) {
            let mut s = (**set).clone();
            for v in values.0 {
                s.shift_remove(v);
            }
            Ok(Value::set(s))
        }),
    );
    r.add_def(
        yaql_fn!(Method "difference", |_c| (left: &Rc<Set>, right: &Rc<Set>) {
            Ok(Value::set(sift(left, right, false)))
        }),
    );
    r.add_def(
        yaql_fn!(Method "intersect", |_c| (left: &Rc<Set>, right: &Rc<Set>) {
            Ok(Value::set(sift(left, right, true)))
        }),
    );
    r.add_def(
        yaql_fn!(Method "union", |_c| (left: &Rc<Set>, right: &Rc<Set>) {
            let mut s = (**left).clone();
            s.extend(right.iter().cloned());
            Ok(Value::set(s))
        }),
    );
    r.add_def(
        yaql_fn!(Method "symmetricDifference", |_c| (left: &Rc<Set>, right: &Rc<Set>) {
            let mut s = sift(left, right, false);
            s.extend(sift(right, left, false));
            Ok(Value::set(s))
        }),
    );
    r.add_def(yaql_fn!(Function "set", |c| (args: Rest<&Value>) {
        Ok(Value::set(gather(&args.0, c.rt())?.into_iter().collect()))
    }));
    r.add_def(yaql_fn!(Method "toSet", |c| (collection: Iterable) {
        Ok(Value::set(collection.collect(c)?.into_iter().collect()))
    }));
}

fn contains(c: &Call, coll: &Value, v: &Value) -> Result<Value> {
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
