//! System functions of the engine (`murano/engine/system` in the reference):
//! base64, bind, patch, pselect and the 1.0/1.1 legacy function forms.

use super::limits::SessionLimits;
use super::model::container_id;
use super::reg::Reg;
use super::types::Exc;
use crate::engine_fn;
use std::collections::HashMap;
use vetro_yaql::func::params::{Iterable, PyInt, Rest};
use vetro_yaql::value::Dict;
use vetro_yaql::{Lambda, Value};

/// Green threads one `pselect` runs at once (the pool size of Murano's `pselect`).
const PSELECT_POOL: usize = 1000;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64_encode(data: &[u8]) -> String {
    let mut out = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = ((b[0] as u32) << 16) | ((b[1] as u32) << 8) | b[2] as u32;
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn base64_decode(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = 0u32;
    let mut bits = 0;
    for c in s.bytes() {
        if c == b'=' || c.is_ascii_whitespace() {
            continue;
        }
        let v = B64.iter().position(|x| *x == c)? as u32;
        buf = (buf << 6) | v;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((buf >> bits) as u8);
            buf &= (1 << bits) - 1;
        }
    }
    Some(out)
}

/// `{name}` fields of a string filled from a dict, within the session's
/// memory (a field repeated many times can be far larger than its value).
fn format_fields(s: &str, args: &Dict, limits: &SessionLimits) -> Result<String, Exc> {
    limits.text(|out| {
        let mut rest = s;
        while let Some(i) = rest.find('{') {
            out.push_str(&rest[..i])?;
            match rest[i..].find('}') {
                Some(j) => {
                    let key = &rest[i + 1..i + j];
                    match args.get(&Value::str(key)) {
                        Some(v) => v.write_py_str(out)?,
                        None => out.push_str(&rest[i..=i + j])?,
                    }
                    rest = &rest[i + j + 1..];
                }
                None => {
                    out.push_str(&rest[i..])?;
                    rest = "";
                }
            }
        }
        out.push_str(rest)
    })
}

/// `bind(obj, mappings)`: `$name` strings replaced by their mapping. A
/// container shared along several paths (`[$l, $l]` in a loop) is bound once
/// and its result shared the same way; a deep one takes more stack from the
/// heap as it nests.
fn bind(
    v: &Value,
    args: &Dict,
    done: &mut HashMap<vetro_yaql::value::Address, Value>,
    limits: &SessionLimits,
) -> Result<Value, Exc> {
    let id = container_id(v);
    if let Some(bound) = id.and_then(|id| done.get(&id)) {
        return Ok(bound.clone());
    }
    let out = match v {
        Value::Str(s) if s.starts_with('$') => {
            let name = &s[1..];
            match args.get(&Value::str(name)) {
                Some(x) => x.clone(),
                None => Value::str(&format_fields(name, args, limits)?),
            }
        }
        Value::List(l) => vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || {
            let items: Result<Vec<Value>, Exc> =
                l.iter().map(|x| bind(x, args, done, limits)).collect();
            items.map(Value::list)
        })?,
        Value::Dict(d) => vetro_yaql::stack::maybe_grow(64 * 1024, 1024 * 1024, || {
            let mut m = Dict::new();
            for (k, x) in d.iter() {
                m.insert(bind(k, args, done, limits)?, bind(x, args, done, limits)?);
            }
            Ok::<_, Exc>(Value::dict(m))
        })?,
        other => other.clone(),
    };
    if let Some(id) = id {
        done.insert(id, out.clone());
    }
    Ok(out)
}

fn pointer(path: &str) -> Vec<String> {
    path.split('/')
        .skip(1)
        .map(|p| p.replace("~1", "/").replace("~0", "~"))
        .collect()
}

/// The item at `seg` of a list or dict (`-` is past a list's end).
fn child(doc: &Value, seg: &str) -> Option<Value> {
    match doc {
        Value::Dict(d) => d.get(&Value::str(seg)).cloned(),
        Value::List(l) => l.get(seg.parse::<usize>().ok()?).cloned(),
        _ => None,
    }
}

/// A copy of a list or dict with `item` at `seg` (which [`child`] found).
fn with_child(doc: &Value, seg: &str, item: Value) -> Value {
    match doc {
        Value::Dict(d) => {
            let mut m = d.clone();
            m.insert(Value::str(seg), item);
            Value::dict(m)
        }
        Value::List(l) => {
            let mut items = l.to_vec();
            if let Some(slot) = seg.parse::<usize>().ok().and_then(|i| items.get_mut(i)) {
                *slot = item;
            }
            Value::list(items)
        }
        other => other.clone(),
    }
}

/// A JSON patch operation at `path`. Loops rather than recursing: the path
/// and the document may both be as long and as deep as running code makes
/// them.
fn patch_at(doc: &Value, path: &[String], op: &str, value: &Value) -> Result<Value, Exc> {
    let bad = || {
        Exc::native(
            "jsonpatch",
            "JsonPatchConflict",
            format!("cannot {op} at path"),
        )
    };
    let Some((last, parents)) = path.split_last() else {
        return match op {
            "add" | "replace" => Ok(value.clone()),
            _ => Err(bad()),
        };
    };
    // The containers along the path, the document first.
    let mut chain = vec![doc.clone()];
    for seg in parents {
        let next = chain.last().and_then(|c| child(c, seg)).ok_or_else(bad)?;
        chain.push(next);
    }
    let target = chain.pop().ok_or_else(bad)?;
    let mut out = match &target {
        Value::Dict(d) => {
            let mut m = d.clone();
            let key = Value::str(last);
            match op {
                "add" | "replace" => {
                    m.insert(key, value.clone());
                }
                "remove" => {
                    m.shift_remove(&key).ok_or_else(bad)?;
                }
                _ => return Err(bad()),
            }
            Value::dict(m)
        }
        Value::List(l) => {
            let mut items = l.to_vec();
            let idx = if last == "-" {
                items.len()
            } else {
                last.parse::<usize>().map_err(|_| bad())?
            };
            match op {
                "add" if idx <= items.len() => items.insert(idx, value.clone()),
                "replace" if idx < items.len() => items[idx] = value.clone(),
                "remove" if idx < items.len() => {
                    items.remove(idx);
                }
                _ => return Err(bad()),
            }
            Value::list(items)
        }
        _ => return Err(bad()),
    };
    for (container, seg) in chain.iter().rev().zip(parents.iter().rev()) {
        out = with_child(container, seg, out);
    }
    Ok(out)
}

fn get_at(doc: &Value, path: &[String]) -> Option<Value> {
    let mut cur = doc.clone();
    for seg in path {
        cur = child(&cur, seg)?;
    }
    Some(cur)
}

fn field(d: &Value, k: &str) -> Value {
    match d {
        Value::Dict(m) => m.get(&Value::str(k)).cloned().unwrap_or(Value::Null),
        _ => Value::Null,
    }
}

pub(super) fn register(r: &mut Reg) {
    register_data_functions(r);
    register_flow_functions(r);
    register_legacy_forms(r);
}

/// Encoding, templates and data helpers.
fn register_data_functions(r: &mut Reg) {
    r.add(engine_fn!(Both "base64encode", |_rt, _c| (value: &str) {
        Ok(Value::str(&base64_encode(value.as_bytes())))
    }));
    r.add(engine_fn!(Both "base64decode", |_rt, _c| (value: &str) {
        let bytes = base64_decode(value)
            .ok_or_else(|| Exc::native("binascii", "Error", "Incorrect padding"))?;
        Ok(Value::str(&String::from_utf8_lossy(&bytes)))
    }));
    r.add(
        engine_fn!(Both "bind", |rt, _c| (obj: &Value, mappings: &Dict) {
            bind(obj, mappings, &mut HashMap::new(), &rt.limits)
        }),
    );
    r.add(
        engine_fn!(Both "patch", |rt, _c| (obj: Value, patch: &Value) {
            let mut doc = obj;
            for p in rt.items(patch)? {
                doc = apply_patch(rt, doc, &p)?;
            }
            Ok(doc)
        }),
    );
}

/// One JSON patch operation applied to `doc`.
fn apply_patch(rt: &super::Rt, doc: Value, p: &Value) -> Result<Value, Exc> {
    let op = rt.limits.py_str(&field(p, "op"))?;
    let path = pointer(&rt.limits.py_str(&field(p, "path"))?);
    let value = field(p, "value");
    Ok(match op.as_str() {
        "test" => {
            if get_at(&doc, &path) != Some(value) {
                return Err(Exc::native(
                    "jsonpatch",
                    "JsonPatchTestFailed",
                    "test failed",
                ));
            }
            doc
        }
        "move" | "copy" => {
            let from = pointer(&rt.limits.py_str(&field(p, "from"))?);
            let v = get_at(&doc, &from).unwrap_or(Value::Null);
            let d = if op == "move" {
                patch_at(&doc, &from, "remove", &Value::Null)?
            } else {
                doc
            };
            patch_at(&d, &path, "add", &v)?
        }
        _ => patch_at(&doc, &path, &op, &value)?,
    })
}

/// `pselect`, `substr`, `firstOrDefault`.
fn register_flow_functions(r: &mut Reg) {
    r.add(
        engine_fn!(Both "pselect", |rt, _c| (collection: Iterable, composer: &Lambda) {
            let items = rt.items(collection.0)?;
            let me = rt.rc();
            // One green thread per item, at most PSELECT_POOL at once (as
            // Murano's pool); results in item order.
            let tasks: Vec<crate::runtime::green::Task> = items
                .into_iter()
                .map(|i| {
                    let (l, me) = (composer.clone(), me.clone());
                    Box::new(move || l.call1(i).map_err(|e| me.unsmuggle(e)))
                        as crate::runtime::green::Task
                })
                .collect();
            let out: Result<Vec<Value>, Exc> = rt
                .run_green(tasks, Some(PSELECT_POOL))
                .into_iter()
                .collect();
            Ok(Value::list(out?))
        }),
    );
    r.add(
        engine_fn!(Both "substr", |rt, _c| (string: &str, start: PyInt, length: PyInt = -1) {
            let chars: Vec<char> = string.chars().collect();
            let int = |i: PyInt| i.clamped().map_err(|e| rt.unsmuggle(e));
            let start = (int(start)?.max(0) as usize).min(chars.len());
            let len = int(length)?;
            let end = if len < 0 {
                chars.len()
            } else {
                start.saturating_add(len as usize).min(chars.len())
            };
            Ok(Value::str(&chars[start..end].iter().collect::<String>()))
        }),
    );
    r.add(
        engine_fn!(Both "firstOrDefault", |rt, _c| (collection: Iterable, default: Value = Null) {
            Ok(rt.items(collection.0)?.into_iter().next().unwrap_or(default))
        }),
    );
}

/// Legacy (1.0/1.1) function forms of string methods, f(x, ...) = x.f(...),
/// in the legacy engine only (as the reference registers them).
fn register_legacy_forms(r: &mut Reg) {
    let library = r.legacy_library();
    for name in [
        "toLower",
        "toUpper",
        "trim",
        "join",
        "split",
        "startsWith",
        "endsWith",
        "matches",
        "replace",
        "flatten",
    ] {
        if library.candidates(name, false).is_empty() {
            let n = name.to_string();
            r.add_legacy(engine_fn!(Function name, |rt, c| (args: Rest<Value>) {
                vetro_yaql::eval::call_values(c.ctx, &n, args.0, true).map_err(|e| rt.unsmuggle(e))
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session() -> SessionLimits {
        SessionLimits::start(super::super::limits::Limits::default())
    }

    fn mapping() -> Dict {
        let mut m = Dict::new();
        m.insert(Value::str("x"), Value::Int(7));
        m
    }

    #[test]
    fn bind_reaches_the_bottom_of_a_value_nested_200_000_deep() {
        let mut v = Value::str("$x");
        for _ in 0..200_000 {
            v = Value::list(vec![v]);
        }
        let mut out = bind(&v, &mapping(), &mut HashMap::new(), &session()).unwrap();
        for _ in 0..200_000 {
            let Value::List(l) = &out else {
                panic!("not a list")
            };
            let inner = l[0].clone();
            out = inner;
        }
        assert_eq!(out, Value::Int(7));
    }

    #[test]
    fn bind_shares_what_its_argument_shares() {
        let mut v = Value::str("$x");
        for _ in 0..60 {
            v = Value::list(vec![v.clone(), v]);
        }
        let out = bind(&v, &mapping(), &mut HashMap::new(), &session()).unwrap();
        let Value::List(l) = &out else {
            panic!("not a list")
        };
        assert_eq!(container_id(&l[0]), container_id(&l[1]));
    }
}
