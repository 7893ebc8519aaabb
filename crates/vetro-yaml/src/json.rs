//! Conversion between nodes and JSON values.

use crate::emit::python_float_repr;
use crate::node::{Mapping, Node, NodeKind};
use serde_json::{Map, Number, Value};
use vetro_diag::Span;

/// The node as a JSON value. Mapping keys that are not strings become text as
/// Python's `json.dumps` writes them (`true`, `null`, `1`); non-finite floats
/// become `null`, which JSON cannot express otherwise.
pub fn to_json(node: &Node) -> Value {
    match &node.kind {
        NodeKind::Null => Value::Null,
        NodeKind::Bool(b) => Value::Bool(*b),
        NodeKind::Int(i) => Value::Number((*i).into()),
        NodeKind::BigInt(s) => s
            .parse::<f64>()
            .ok()
            .and_then(Number::from_f64)
            .map_or(Value::Null, Value::Number),
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
        NodeKind::Float(f) => python_float_repr(*f),
        NodeKind::Seq(_) | NodeKind::Map(_) => to_json(key).to_string(),
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
