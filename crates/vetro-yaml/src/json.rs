//! Conversion between nodes and JSON: the JSON text writer (exact for every
//! YAML value), `serde_json` values, and the fast reader for JSON input.

use crate::node::{Mapping, Node, NodeKind};
use serde::de::{DeserializeSeed, Error as _, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};
use std::collections::HashSet;
use std::fmt::{self, Write};
use vetro_diag::Span;

/// The node as a `serde_json` value. Mapping keys that are not strings become
/// text as Python's `json.dumps` writes them (`true`, `null`, `1`). A value
/// holds what `serde_json` can: integers beyond 64 bits become floats and
/// non-finite floats `null`; [`to_json_string`] keeps both exact.
pub fn to_json(node: &Node) -> Value {
    match &node.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Bool(b) => Value::Bool(*b),
        NodeKind::Int(i) => Value::Number((*i).into()),
        NodeKind::BigInt(s) => match s.parse::<u64>() {
            Ok(u) => Value::Number(u.into()),
            Err(_) => s
                .parse::<f64>()
                .ok()
                .and_then(Number::from_f64)
                .map_or(Value::Null, Value::Number),
        },
        NodeKind::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
        NodeKind::Str(s) => Value::String(s.clone()),
        NodeKind::Seq(items) => Value::Array(items.iter().map(to_json).collect()),
        NodeKind::Map(m) => {
            let mut out = Map::with_capacity(m.len());
            for (k, v) in m.iter() {
                out.insert(json_key(k), to_json(v));
            }
            Value::Object(out)
        }
    }
}

fn json_key(key: &Node) -> String {
    match &key.kind {
        NodeKind::Str(s) => s.clone(),
        NodeKind::Null => "null".into(),
        NodeKind::Bool(b) => b.to_string(),
        NodeKind::Int(i) => i.to_string(),
        NodeKind::BigInt(s) => s.clone(),
        NodeKind::Float(f) => vetro_pycompat::repr::float_repr(*f),
        NodeKind::Seq(_) | NodeKind::Map(_) => {
            let mut out = String::new();
            write_key_text(key, &mut out);
            out
        }
    }
}

/// A collection key as compact JSON text, except that a collection key
/// inside it is written as its own text, not as a JSON string: quoting it
/// would escape its quotes again at every level, and keys nested 30 deep
/// (`? ? ? ...`) would take gigabytes.
fn write_key_text(node: &Node, out: &mut String) {
    match &node.kind {
        NodeKind::Seq(items) => {
            out.push('[');
            for (i, x) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_key_text(x, out);
            }
            out.push(']');
        }
        NodeKind::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                match &k.kind {
                    NodeKind::Seq(_) | NodeKind::Map(_) => write_key_text(k, out),
                    _ => out.push_str(&Value::String(json_key(k)).to_string()),
                }
                out.push(':');
                write_key_text(v, out);
            }
            out.push('}');
        }
        _ => out.push_str(&to_json(node).to_string()),
    }
}

/// The node as pretty-printed JSON text, two spaces per level. Integers of
/// any size are written with all their digits; `.nan`, `.inf` and `-.inf`
/// are written `NaN`, `Infinity` and `-Infinity`, as Python's `json.dumps`
/// writes them.
pub fn to_json_string(node: &Node) -> String {
    let mut out = String::new();
    write_json(node, 0, &mut out);
    out
}

fn json_string(s: &str, out: &mut String) {
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

fn write_json(node: &Node, indent: usize, out: &mut String) {
    let pad = |out: &mut String, n: usize| out.extend(std::iter::repeat_n("  ", n));
    match &node.kind {
        NodeKind::Null => out.push_str("null"),
        NodeKind::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        NodeKind::Int(i) => {
            let _ = write!(out, "{i}");
        }
        NodeKind::BigInt(s) => out.push_str(s.strip_prefix('+').unwrap_or(s)),
        NodeKind::Float(f) if f.is_nan() => out.push_str("NaN"),
        NodeKind::Float(f) if f.is_infinite() => {
            out.push_str(if *f > 0.0 { "Infinity" } else { "-Infinity" })
        }
        NodeKind::Float(f) => {
            let n = Number::from_f64(*f).map_or_else(|| "null".to_string(), |n| n.to_string());
            out.push_str(&n);
        }
        NodeKind::Str(s) => json_string(s, out),
        NodeKind::Seq(items) if items.is_empty() => out.push_str("[]"),
        NodeKind::Map(m) if m.is_empty() => out.push_str("{}"),
        NodeKind::Seq(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 1);
                write_json(item, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push(']');
        }
        NodeKind::Map(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                out.push_str(if i == 0 { "\n" } else { ",\n" });
                pad(out, indent + 1);
                json_string(&json_key(k), out);
                out.push_str(": ");
                write_json(v, indent + 1, out);
            }
            out.push('\n');
            pad(out, indent);
            out.push('}');
        }
    }
}

/// A node tree for a JSON value; every node gets `span`.
pub fn from_json(value: &Value, span: Span) -> Node {
    let kind = match value {
        Value::Null => NodeKind::Null,
        Value::Bool(b) => NodeKind::Bool(*b),
        Value::Number(n) => match n.as_i64() {
            Some(i) => NodeKind::Int(i),
            None => match n.as_u64() {
                Some(u) => NodeKind::BigInt(u.to_string()),
                None => NodeKind::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
        },
        Value::String(s) => NodeKind::Str(s.clone()),
        Value::Array(items) => NodeKind::Seq(items.iter().map(|v| from_json(v, span)).collect()),
        Value::Object(map) => NodeKind::Map(Mapping {
            entries: map
                .iter()
                .map(|(k, v)| {
                    (
                        Node::new(NodeKind::Str(k.clone()), span),
                        from_json(v, span),
                    )
                })
                .collect(),
        }),
    };
    Node::new(kind, span)
}

/// A value tree the JSON fast path can build directly (see [`crate::load_data`]).
pub trait JsonBuild: Sized {
    fn null() -> Self;
    fn bool(b: bool) -> Self;
    fn int(i: i64) -> Self;
    /// An integer above `i64::MAX`, as decimal digits.
    fn big_int(digits: String) -> Self;
    /// A JSON string (always quoted, so never a plain YAML scalar).
    fn string(s: String) -> Self;
    fn seq(items: Vec<Self>) -> Self;
    fn map(entries: Vec<(String, Self)>) -> Self;
}

impl JsonBuild for Node {
    fn null() -> Self {
        Node::new(NodeKind::Null, Span::default())
    }
    fn bool(b: bool) -> Self {
        Node::new(NodeKind::Bool(b), Span::default())
    }
    fn int(i: i64) -> Self {
        Node::new(NodeKind::Int(i), Span::default())
    }
    fn big_int(digits: String) -> Self {
        Node::new(NodeKind::BigInt(digits), Span::default())
    }
    fn string(s: String) -> Self {
        let mut n = Node::new(NodeKind::Str(s), Span::default());
        n.style = crate::node::Style::DoubleQuoted;
        n
    }
    fn seq(items: Vec<Self>) -> Self {
        Node::new(NodeKind::Seq(items), Span::default())
    }
    fn map(entries: Vec<(String, Self)>) -> Self {
        let entries = entries
            .into_iter()
            .map(|(k, v)| (Self::string(k), v))
            .collect();
        Node::new(NodeKind::Map(Mapping { entries }), Span::default())
    }
}

/// Parses JSON text into `T` when the YAML loader would read it to the same
/// values; `None` otherwise (a syntax error, a duplicate key, a float whose
/// YAML 1.1 reading may differ, an integer beyond 64 bits that `serde_json`
/// would round, nesting deeper than 128): the caller then uses the YAML
/// loader, which is exact and reports problems with positions.
pub fn parse_json_exact<T: JsonBuild>(text: &str) -> Option<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = Exact::<T>(std::marker::PhantomData)
        .deserialize(&mut de)
        .ok()?;
    de.end().ok()?;
    Some(value)
}

struct Exact<T>(std::marker::PhantomData<T>);

impl<'de, T: JsonBuild> DeserializeSeed<'de> for Exact<T> {
    type Value = T;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<T, D::Error> {
        d.deserialize_any(self)
    }
}

/// Mappings up to this size are checked for duplicate keys by scanning.
const SCAN_KEYS: usize = 16;

impl<'de, T: JsonBuild> Visitor<'de> for Exact<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_unit<E>(self) -> Result<T, E> {
        Ok(T::null())
    }
    fn visit_bool<E>(self, b: bool) -> Result<T, E> {
        Ok(T::bool(b))
    }
    fn visit_i64<E>(self, i: i64) -> Result<T, E> {
        Ok(T::int(i))
    }
    fn visit_u64<E>(self, u: u64) -> Result<T, E> {
        Ok(match i64::try_from(u) {
            Ok(i) => T::int(i),
            Err(_) => T::big_int(u.to_string()),
        })
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<T, E> {
        Err(E::custom("float: read by the YAML loader"))
    }
    fn visit_str<E>(self, s: &str) -> Result<T, E> {
        Ok(T::string(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<T, E> {
        Ok(T::string(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<T, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(item) = seq.next_element_seed(Exact::<T>(std::marker::PhantomData))? {
            items.push(item);
        }
        items.shrink_to_fit();
        Ok(T::seq(items))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<T, A::Error> {
        let mut entries: Vec<(String, T)> = Vec::new();
        let mut seen: Option<HashSet<String>> = None;
        while let Some(key) = map.next_key::<String>()? {
            let duplicate = match &mut seen {
                Some(set) => !set.insert(key.clone()),
                None => entries.iter().any(|(k, _)| *k == key),
            };
            if duplicate {
                return Err(A::Error::custom("duplicate key"));
            }
            if seen.is_none() && entries.len() >= SCAN_KEYS {
                let mut set: HashSet<String> = entries.iter().map(|(k, _)| k.clone()).collect();
                set.insert(key.clone());
                seen = Some(set);
            }
            let value = map.next_value_seed(Exact::<T>(std::marker::PhantomData))?;
            entries.push((key, value));
        }
        entries.shrink_to_fit();
        Ok(T::map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_one(text: &str) -> Node {
        let mut sources = vetro_diag::SourceMap::new();
        let file = sources.add("in", text);
        crate::load_str(&sources, file, &Default::default())
            .unwrap()
            .remove(0)
    }

    #[test]
    fn collection_keys_are_written_as_compact_json_text() {
        let doc = load_one("? [1, a]\n: x\n? {b: [2]}\n: y\n");
        assert_eq!(
            to_json(&doc),
            serde_json::json!({"[1,\"a\"]": "x", "{\"b\":[2]}": "y"})
        );
    }

    #[test]
    fn keys_nested_in_keys_take_linear_space() {
        // Found by the yaml_load fuzz target: 30 nested `?` took gigabytes.
        let text = format!("{}a\n", "? ".repeat(40));
        let json = to_json(&load_one(&text)).to_string();
        assert!(json.len() < 1_000, "{} bytes", json.len());
    }

    #[test]
    fn fast_path_refuses_what_it_cannot_read_exactly() {
        assert!(parse_json_exact::<Node>(r#"{"a": 1, "b": [true, null, "x"]}"#).is_some());
        assert!(parse_json_exact::<Node>(r#"{"a": 1, "a": 2}"#).is_none());
        assert!(parse_json_exact::<Node>(r#"{"a": 1.5}"#).is_none());
        assert!(parse_json_exact::<Node>("[123456789012345678901234567890]").is_none());
        assert!(parse_json_exact::<Node>("[1] x").is_none());
        let big = parse_json_exact::<Node>("[18446744073709551615]").unwrap();
        assert_eq!(
            big.as_seq().unwrap()[0].kind,
            NodeKind::BigInt("18446744073709551615".into())
        );
    }

    #[test]
    fn duplicates_are_found_in_large_mappings_too() {
        let keys: Vec<String> = (0..40).map(|i| format!("\"k{i}\": {i}")).collect();
        let ok = format!("{{{}}}", keys.join(", "));
        assert!(parse_json_exact::<Node>(&ok).is_some());
        let dup = format!("{{{}, \"k3\": 0}}", keys.join(", "));
        assert!(parse_json_exact::<Node>(&dup).is_none());
    }

    #[test]
    fn json_text_keeps_big_integers_and_non_finite_floats() {
        let n = |kind| Node::new(kind, Span::default());
        let doc = n(NodeKind::Seq(vec![
            n(NodeKind::BigInt("123456789012345678901234567890".into())),
            n(NodeKind::Float(f64::NAN)),
            n(NodeKind::Float(f64::INFINITY)),
            n(NodeKind::Float(f64::NEG_INFINITY)),
            n(NodeKind::Float(1.5)),
        ]));
        assert_eq!(
            to_json_string(&doc),
            "[\n  123456789012345678901234567890,\n  NaN,\n  Infinity,\n  -Infinity,\n  1.5\n]"
        );
    }
}
