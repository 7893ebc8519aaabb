//! Output conversion (`#finalize`): lazy sequences materialised
//! recursively under the `limitIterators` check, their items counted in
//! the run of the evaluation that converts them, sets converted as
//! configured, and mutable values refused as keys.

use super::Runtime;
use crate::error::{Error, Result};
use crate::iter::too_large;
use crate::runtime::OutputKey;
use crate::value::Value;
use crate::value::{Address, List};

/// The output form of a value: lazy sequences materialised (under the
/// `limitIterators` check) and sets converted as configured.
pub fn finalize(v: Value, rt: &Runtime) -> Result<Value> {
    if is_final(&v) {
        return Ok(v);
    }
    let mut memo = Settled::default();
    Ok(settle(&v, rt, &mut memo)?.unwrap_or(v))
}

/// Output forms of the shared lists and dicts met in one walk, by address:
/// a value that holds the same list many times (`[$l, $l]` built in a loop)
/// is walked once per distinct list, not once per path to it. Each entry
/// keeps its list or dict alive, so an address is not reused during the walk.
#[derive(Default)]
struct Settled(ahash::AHashMap<Address, (Value, Option<Value>)>);

impl Settled {
    fn shared_key(v: &Value) -> Option<Address> {
        match v {
            Value::List(l) if l.holders() > 1 && !l.is_empty() => Some(l.address()),
            Value::Dict(d) if d.holders() > 1 && !d.is_empty() => Some(d.address()),
            _ => None,
        }
    }
}

/// Rebuild `items` only from the first one that changes: `None` when none does.
fn settle_items<'a>(
    items: impl ExactSizeIterator<Item = &'a Value> + Clone,
    rt: &Runtime,
    memo: &mut Settled,
) -> Result<Option<Vec<Value>>> {
    let mut out: Option<Vec<Value>> = None;
    let n = items.len();
    for (i, x) in items.clone().enumerate() {
        match (settle(x, rt, memo)?, &mut out) {
            (Some(new), Some(out)) => out.push(new),
            (Some(new), None) => {
                let mut v = Vec::with_capacity(n);
                v.extend(items.clone().take(i).cloned());
                v.push(new);
                out = Some(v);
            }
            (None, Some(out)) => out.push(x.clone()),
            (None, None) => {}
        }
    }
    Ok(out)
}

const FINAL_MIN_LEN: usize = 64;
const FINAL_CAPACITY: usize = 1 << 16;

fn final_key(l: &List, rt: &Runtime) -> OutputKey {
    let o = &rt.opts;
    (
        l.address(),
        o.convert_sets_to_lists,
        o.convert_tuples_to_lists,
        o.limit_iterators,
    )
}

/// Whether a list is worth remembering: a long one, or one holding other
/// containers (a list nested a level deeper at each step of a loop would
/// otherwise be walked to the bottom at every step).
fn worth_remembering(l: &[Value]) -> bool {
    l.len() >= FINAL_MIN_LEN
        || l.iter()
            .any(|x| matches!(x, Value::List(_) | Value::Dict(_)))
}

fn known_final(l: &List, rt: &Runtime) -> bool {
    worth_remembering(l)
        && rt
            .output_memo()
            .lists
            .borrow()
            .get(&final_key(l, rt))
            .and_then(|w| w.upgrade())
            .is_some_and(|known| List::ptr_eq(&known, l))
}

fn remember_final(l: &List, rt: &Runtime) {
    if !worth_remembering(l) {
        return;
    }
    let mut m = rt.output_memo().lists.borrow_mut();
    if m.len() >= FINAL_CAPACITY {
        m.retain(|_, w| !w.is_dead());
        if m.len() >= FINAL_CAPACITY {
            m.clear();
        }
    }
    m.insert(final_key(l, rt), l.downgrade());
}

/// A dictionary entry's settled key and value (`None`: unchanged).
type SettledEntry = (Option<Value>, Option<Value>);

/// The output form of a value, or `None` when it already is one (so a large
/// value that is already final is walked, not copied).
/// Scalars are final as they are (most values of a large result, and most
/// results of a program's statements).
fn is_final(v: &Value) -> bool {
    !matches!(
        v,
        Value::List(_) | Value::Dict(_) | Value::Set(_) | Value::Iter(_)
    )
}

fn settle(v: &Value, rt: &Runtime, memo: &mut Settled) -> Result<Option<Value>> {
    if is_final(v) {
        return Ok(None);
    }
    let key = Settled::shared_key(v);
    if let Some((_, done)) = key.and_then(|k| memo.0.get(&k)) {
        return Ok(done.clone());
    }
    // Deeply nested values recurse once per level: grow the stack on the heap.
    let out = crate::stack::maybe_grow(64 * 1024, 1024 * 1024, || settle_new(v, rt, memo))?;
    if let Some(k) = key {
        memo.0.insert(k, (v.clone(), out.clone()));
    }
    Ok(out)
}

fn settle_new(v: &Value, rt: &Runtime, memo: &mut Settled) -> Result<Option<Value>> {
    let lim = rt.opts.limit_iterators;
    let check = |n: usize| -> Result<()> {
        if lim >= 0 && n as i64 > lim {
            Err(too_large())
        } else {
            Ok(())
        }
    };
    Ok(match v {
        Value::List(l) => {
            check(l.len())?;
            if known_final(l, rt) {
                return Ok(None);
            }
            let settled = settle_items(l.iter(), rt, memo)?;
            if settled.is_none() {
                remember_final(l, rt);
            }
            settled.map(Value::list)
        }
        Value::Iter(it) => {
            // A sequence made by a host, or in an evaluation that has
            // ended (returned by a host function), counts its items here.
            let it = it.cursor().counted_in(rt.run());
            let mut out = Vec::new();
            while let Some(x) = it.next()? {
                out.push(settle(&x, rt, memo)?.unwrap_or(x));
                check(out.len())?;
                if out.len().is_multiple_of(4096) {
                    rt.check_bytes(out.len() * std::mem::size_of::<Value>())?;
                }
            }
            Some(Value::list(out))
        }
        Value::Dict(d) => {
            check(d.len())?;
            // The settled entries from the first that changes, if any does
            // (a final dictionary is walked without allocating).
            let mut changed: Option<(usize, Vec<SettledEntry>)> = None;
            for (i, (k, x)) in d.iter().enumerate() {
                let k2 = settle(k, rt, memo)?;
                unhashable_check(k2.as_ref().unwrap_or(k), k, rt)?;
                let x2 = settle(x, rt, memo)?;
                match &mut changed {
                    Some((_, tail)) => tail.push((k2, x2)),
                    None if k2.is_some() || x2.is_some() => {
                        let mut tail = Vec::with_capacity(d.len() - i);
                        tail.push((k2, x2));
                        changed = Some((i, tail));
                    }
                    None => {}
                }
            }
            changed.map(|(start, tail)| {
                let head = d.iter().take(start).map(|(k, x)| (k.clone(), x.clone()));
                let rest = d.iter().skip(start).zip(tail).map(|((k, x), (k2, x2))| {
                    (
                        k2.unwrap_or_else(|| k.clone()),
                        x2.unwrap_or_else(|| x.clone()),
                    )
                });
                Value::dict(head.chain(rest).collect())
            })
        }
        Value::Set(s) => {
            check(s.len())?;
            if rt.opts.convert_sets_to_lists {
                let items = settle_items(s.iter(), rt, memo)?;
                Some(Value::list(
                    items.unwrap_or_else(|| s.iter().cloned().collect()),
                ))
            } else {
                let mut changed = false;
                let mut out = crate::value::Set::with_capacity(s.len());
                for x in s.iter() {
                    let x2 = settle(x, rt, memo)?;
                    unhashable_check(x2.as_ref().unwrap_or(x), x, rt)?;
                    changed |= x2.is_some();
                    out.insert(x2.unwrap_or_else(|| x.clone()));
                }
                changed.then(|| Value::set(out))
            }
        }
        _ => None,
    })
}

/// After output conversion, lists (unless tuples are kept), dicts and sets
/// are mutable Python objects and cannot be set members or dict keys.
fn unhashable_check(converted: &Value, original: &Value, rt: &Runtime) -> Result<()> {
    let bad = match converted {
        Value::List(_) => rt.opts.convert_tuples_to_lists || matches!(original, Value::Iter(_)),
        Value::Dict(_) | Value::Set(_) => true,
        _ => false,
    };
    if bad {
        return Err(Error::type_err(format!(
            "unhashable type: '{}'",
            converted.type_name()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::Options;

    /// A list found final in one evaluation is known to the later ones of
    /// the same host scope (they share the memo), not to others.
    #[test]
    fn final_lists_are_remembered_per_host_scope() {
        let inner = Value::list((0..3).map(Value::Int).collect());
        let items: Vec<Value> = (0..100).map(|_| inner.clone()).collect();
        let list = Value::list(items);
        let Value::List(l) = &list else {
            unreachable!()
        };
        let scope = std::rc::Rc::new(crate::runtime::OutputMemo::default());
        let first = Runtime::with_output_memo(Options::default(), scope.clone());
        assert!(!known_final(l, &first));
        finalize(list.clone(), &first).unwrap();
        let later = Runtime::with_output_memo(Options::default(), scope);
        assert!(known_final(l, &later));
        let elsewhere = Runtime::new(Options::default());
        assert!(!known_final(l, &elsewhere));
    }
}
