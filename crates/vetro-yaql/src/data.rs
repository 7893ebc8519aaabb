//! Plain user data in and out: JSON or YAML text to values, and values to
//! JSON or YAML text. Nothing is tagged: a user's `{"$set": [1]}` is a
//! dictionary with the key `$set`. Integers keep every digit, and NaN and
//! infinities are written as Python's `json` module writes them (`NaN`,
//! `Infinity`, `-Infinity`) and as YAML's `.nan`/`.inf`.

use crate::error::Error;
use crate::value::{Dict, Render, Value};
use num_bigint::BigInt;
use std::cell::RefCell;
use vetro_yaml::{Node, NodeKind, Span};

/// A document that could not be read, with the position of the problem in
/// the message (`name:line:column: ...`).
#[derive(Debug, Clone, PartialEq)]
pub struct DataError {
    pub message: String,
}

impl std::fmt::Display for DataError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DataError {}

/// Read one JSON or YAML document (`name` is used in error positions).
/// JSON takes a fast path; a document it cannot take exactly (YAML, an
/// integer beyond 64 bits, a duplicate key) is loaded as YAML, which
/// reports duplicate keys and syntax errors with their line and column.
pub fn load_str(name: &str, text: &str) -> Result<Value, DataError> {
    if let Some(v) = fast_json(text) {
        return Ok(v);
    }
    let mut sources = vetro_yaml::SourceMap::new();
    let id = sources.add(name.to_string(), text.to_string());
    let docs = vetro_yaml::load_str(&sources, id, &vetro_yaml::LoadOptions::default()).map_err(
        |diags| DataError {
            message: diags
                .iter()
                .map(|d| match d.span {
                    Some(s) => format!("{name}:{}:{}: {}", s.line, s.col, d.message),
                    None => format!("{name}: {}", d.message),
                })
                .collect::<Vec<_>>()
                .join("\n"),
        },
    )?;
    Ok(docs.first().map(from_node).unwrap_or(Value::Null))
}

/// A JSON document as a value, or `None` when the text is not JSON.
pub fn load_json_str(text: &str) -> Option<Value> {
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    load_str("<json>", text).ok()
}

/// A value from a YAML node (keys of any type, exact integers).
pub fn from_node(n: &Node) -> Value {
    match &n.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Bool(b) => Value::Bool(*b),
        NodeKind::Int(i) => Value::Int(*i),
        // The loader has bounded the digits.
        NodeKind::BigInt(s) => vetro_pycompat::int::parse_decimal(s)
            .map(Value::from_bigint)
            .unwrap_or_else(|| Value::from(s.as_str())),
        NodeKind::Float(f) => Value::Float(*f),
        NodeKind::Str(s) => Value::from(s.as_str()),
        NodeKind::Seq(items) => Value::list(items.iter().map(from_node).collect()),
        NodeKind::Map(m) => {
            let mut d = Dict::with_capacity(m.len());
            for (k, v) in m.iter() {
                d.insert(from_node(k), from_node(v));
            }
            Value::dict(d)
        }
    }
}

/// JSON straight into values, or `None` when the text is not JSON this path
/// can take exactly (then the YAML loader decides).
fn fast_json(text: &str) -> Option<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let state = RefCell::new(Loader::default());
    let v = PlainSeed(&state).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// What one document's loading keeps between values: the short strings met
/// so far, and the items of the lists and dictionaries being read.
#[derive(Default)]
struct Loader {
    /// Records repeat their keys and many of their short values (a city, a
    /// tag): each is held once instead of once per record.
    strings: ahash::AHashMap<Box<str>, Value>,
    /// The items of the lists being read, innermost last: each list is
    /// allocated once, at its final size, when it ends.
    items: Vec<Value>,
    /// The same for dictionaries.
    entries: Vec<(Value, Value)>,
}

impl Loader {
    /// Strings this long or more, and strings past this many distinct ones,
    /// are not shared (they are rarely repeated).
    const MAX_LEN: usize = 24;
    const MAX_STRINGS: usize = 16384;

    fn string(&mut self, k: &str) -> Value {
        if k.len() >= Self::MAX_LEN {
            return Value::from(k);
        }
        if let Some(v) = self.strings.get(k) {
            return v.clone();
        }
        let v = Value::from(k);
        if self.strings.len() < Self::MAX_STRINGS {
            self.strings.insert(k.into(), v.clone());
        }
        v
    }
}

#[derive(Clone, Copy)]
struct PlainSeed<'k>(&'k RefCell<Loader>);

impl<'de> serde::de::DeserializeSeed<'de> for PlainSeed<'_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(PlainVisitor(self.0))
    }
}

struct PlainVisitor<'k>(&'k RefCell<Loader>);

impl<'de> serde::de::Visitor<'de> for PlainVisitor<'_> {
    type Value = Value;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<Value, E> {
        Ok(Value::Int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<Value, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => Value::Int(i),
            Err(_) => Value::from_bigint(BigInt::from(u)),
        })
    }
    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Value, E> {
        // An integer literal beyond 64 bits arrives here rounded: leave the
        // document to the exact loader.
        if f.fract() == 0.0 && f.abs() >= 9.2e18 {
            return Err(E::custom("inexact"));
        }
        Ok(Value::Float(f))
    }
    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(self.0.borrow_mut().string(s))
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        let start = self.0.borrow().items.len();
        // On an error the document is dropped whole: what this list pushed
        // is left for the loader's drop.
        while let Some(x) = a.next_element_seed(PlainSeed(self.0))? {
            self.0.borrow_mut().items.push(x);
        }
        let items: Vec<Value> = self.0.borrow_mut().items.drain(start..).collect();
        Ok(Value::list(items))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        use serde::de::Error as _;
        let start = self.0.borrow().entries.len();
        while let Some(k) = a.next_key::<std::borrow::Cow<'de, str>>()? {
            let v = a.next_value_seed(PlainSeed(self.0))?;
            let mut state = self.0.borrow_mut();
            let key = state.string(&k);
            state.entries.push((key, v));
        }
        let mut state = self.0.borrow_mut();
        let entries = state.entries.drain(start..);
        let mut d = Dict::with_capacity(entries.len());
        for (k, v) in entries {
            if d.insert(k, v).is_some() {
                return Err(A::Error::custom("duplicate key"));
            }
        }
        Ok(Value::dict(d))
    }
}

/// A value as a YAML node (for the YAML writer). Lazy sequences and other
/// runtime values should be settled first; they are written as their `str()`.
/// Not bounded: see [`to_node_capped`].
pub fn to_node(v: &Value) -> Node {
    let mut left = usize::MAX;
    to_node_capped(v, &mut left).unwrap_or_else(|_| Node::new(NodeKind::Null, Span::default()))
}

/// Bytes a YAML node takes at least besides its text.
const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// [`to_node`] taking at most about `left` bytes (counted down), or the
/// memory-limit error: a value sharing its containers (`[$l, $l]` doubled)
/// has far more nodes than values.
pub fn to_node_capped(v: &Value, left: &mut usize) -> Result<Node, Error> {
    crate::value::deep(|| to_node_in(v, left))
}

fn take(left: &mut usize, bytes: usize) -> Result<(), Error> {
    let bytes = bytes.saturating_add(NODE_BYTES);
    if bytes > *left {
        return Err(crate::limits::memory_exceeded());
    }
    *left -= bytes;
    Ok(())
}

fn to_node_in(v: &Value, left: &mut usize) -> Result<Node, Error> {
    let span = Span::default();
    let text = |s: String, left: &mut usize| {
        take(left, s.len())?;
        Ok::<_, Error>(NodeKind::Str(s))
    };
    let kind = match v {
        Value::Null => NodeKind::Null,
        Value::Bool(b) => NodeKind::Bool(*b),
        Value::Int(i) => NodeKind::Int(*i),
        Value::BigInt(b) => {
            let digits = crate::value::int_text(b)?;
            take(left, digits.len())?;
            NodeKind::BigInt(digits)
        }
        Value::Float(f) => NodeKind::Float(*f),
        Value::Str(s) => {
            take(left, s.len())?;
            NodeKind::Str(s.to_string())
        }
        Value::List(l) => NodeKind::Seq(nodes(l.iter(), left)?),
        Value::Set(s) => NodeKind::Seq(nodes(s.iter(), left)?),
        Value::Dict(d) => {
            let mut m = vetro_yaml::Mapping::new();
            for (k, x) in d.iter() {
                m.entries
                    .push((to_node_capped(k, left)?, to_node_capped(x, left)?));
            }
            NodeKind::Map(m)
        }
        Value::DateTime(d) => text(d.iso('T'), left)?,
        Value::TimeDelta(t) => text(crate::datetime::timedelta_str(*t), left)?,
        other => {
            let mut r = Render::with_cap(*left);
            other.write_yaql_string(&mut r)?;
            text(r.finish(), left)?
        }
    };
    take(left, 0)?;
    Ok(Node::new(kind, span))
}

fn nodes<'a>(items: impl Iterator<Item = &'a Value>, left: &mut usize) -> Result<Vec<Node>, Error> {
    items.map(|x| to_node_capped(x, left)).collect()
}

/// A value as JSON text; `pretty` indents by two spaces. Keys that are not
/// strings are written as their `str()`. Not bounded: see [`write_json`].
pub fn to_json_string(v: &Value, pretty: bool) -> String {
    let mut out = Render::unbounded();
    let _ = write_json(v, pretty, &mut out);
    out.finish()
}

/// Write `v` as JSON text (see [`to_json_string`]) into `out`, failing with
/// the memory-limit error at its limit.
pub fn write_json(v: &Value, pretty: bool, out: &mut Render) -> Result<(), Error> {
    write_json_at(v, pretty, 0, out)
}

fn json_str(s: &str, out: &mut Render) -> Result<(), Error> {
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()))
}

/// Indentation stops growing past this depth, so a deeply nested value is
/// written in space linear in its size.
const MAX_INDENT: usize = 64;

const SPACES: &str = "                                                                                                                                ";

fn newline(pretty: bool, indent: usize, out: &mut Render) -> Result<(), Error> {
    if pretty {
        out.push('\n')?;
        out.push_str(&SPACES[..indent.min(MAX_INDENT) * 2])?;
    }
    Ok(())
}

fn write_items<'a>(
    items: impl Iterator<Item = &'a Value>,
    pretty: bool,
    indent: usize,
    out: &mut Render,
) -> Result<(), Error> {
    let mut items = items.peekable();
    if items.peek().is_none() {
        return out.push_str("[]");
    }
    out.push('[')?;
    for (i, x) in items.enumerate() {
        if i > 0 {
            out.push(',')?;
        }
        newline(pretty, indent + 1, out)?;
        write_json_at(x, pretty, indent + 1, out)?;
    }
    newline(pretty, indent, out)?;
    out.push(']')
}

fn write_json_at(v: &Value, pretty: bool, indent: usize, out: &mut Render) -> Result<(), Error> {
    crate::value::deep(|| write_json_in(v, pretty, indent, out))
}

fn write_json_in(v: &Value, pretty: bool, indent: usize, out: &mut Render) -> Result<(), Error> {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Int(i) => out.write(format_args!("{i}")),
        Value::BigInt(b) => out.push_str(&crate::value::int_text(b)?),
        Value::Float(f) if f.is_nan() => out.push_str("NaN"),
        Value::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        Value::Float(f) => match serde_json::Number::from_f64(*f) {
            Some(n) => out.write(format_args!("{n}")),
            None => out.push_str("null"),
        },
        Value::Str(s) => json_str(s, out),
        Value::List(l) => write_items(l.iter(), pretty, indent, out),
        Value::Set(s) => write_items(s.iter(), pretty, indent, out),
        Value::Dict(d) => {
            if d.is_empty() {
                return out.push_str("{}");
            }
            out.push('{')?;
            for (i, (k, x)) in d.iter().enumerate() {
                if i > 0 {
                    out.push(',')?;
                }
                newline(pretty, indent + 1, out)?;
                match k.as_str() {
                    Some(s) => json_str(s, out)?,
                    None => json_str(&key_text(k, out)?, out)?,
                }
                out.push_str(if pretty { ": " } else { ":" })?;
                write_json_at(x, pretty, indent + 1, out)?;
            }
            newline(pretty, indent, out)?;
            out.push('}')
        }
        Value::DateTime(d) => json_str(&d.iso('T'), out),
        Value::TimeDelta(t) => json_str(&crate::datetime::timedelta_str(*t), out),
        other => json_str(&key_text(other, out)?, out),
    }
}

/// The `str()` of a key or runtime value, within what is left of `out`'s
/// limit.
fn key_text(v: &Value, out: &Render) -> Result<String, Error> {
    let mut r = Render::with_cap(out.room());
    v.write_yaql_string(&mut r)?;
    Ok(r.finish())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_share_their_keys() {
        let v = load_str("d", r#"[{"name": 1, "x": 2}, {"x": 3, "name": 4}]"#).unwrap();
        let Value::List(items) = &v else {
            panic!("not a list")
        };
        let key = |i: usize, k: usize| match &items[i] {
            Value::Dict(d) => match d.get_index(k) {
                Some((Value::Str(s), _)) => s.clone(),
                _ => panic!("not a string key"),
            },
            _ => panic!("not a dict"),
        };
        assert!(std::rc::Rc::ptr_eq(&key(0, 0), &key(1, 1)));
        assert!(std::rc::Rc::ptr_eq(&key(0, 1), &key(1, 0)));
    }

    #[test]
    fn tags_are_plain_keys() {
        let v = load_str("d", r#"{"$set": [1]}"#).unwrap();
        let Value::Dict(d) = &v else {
            panic!("not a dict")
        };
        assert!(d.contains_key(&Value::from("$set")));
    }

    #[test]
    fn big_integers_stay_exact() {
        let v = load_str("d", "[123456789012345678901234567890]").unwrap();
        assert_eq!(
            to_json_string(&v, false),
            "[123456789012345678901234567890]"
        );
    }

    #[test]
    fn duplicate_keys_are_refused_with_a_position() {
        let e = load_str("d.json", "{\"a\": 1,\n \"a\": 2}").unwrap_err();
        assert!(e.message.starts_with("d.json:2:"), "{}", e.message);
    }

    #[test]
    fn nan_and_infinity() {
        let v = Value::list(vec![
            Value::Float(f64::NAN),
            Value::Float(f64::NEG_INFINITY),
        ]);
        assert_eq!(to_json_string(&v, false), "[NaN,-Infinity]");
    }
}
