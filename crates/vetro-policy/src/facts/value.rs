//! A compact value tree for object models, read either from the YAML layer's
//! nodes or straight from JSON text (the YAML layer's fast path for large models).

use vetro_yaml::{Node, NodeKind, Style};

/// A model value as PyYAML would load it.
#[derive(Clone, Debug, PartialEq)]
pub enum MValue {
    Null,
    Bool(bool),
    Int(i64),
    BigInt(String),
    Float(f64),
    /// A string; `plain` when it was an untagged plain scalar (which may be a timestamp).
    Str {
        text: String,
        plain: bool,
    },
    Seq(Vec<MValue>),
    Map(Vec<(MValue, MValue)>),
}

impl MValue {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            MValue::Str { text, .. } => Some(text),
            _ => None,
        }
    }

    pub fn get(&self, key: &str) -> Option<&MValue> {
        match self {
            MValue::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            MValue::Null => "null",
            MValue::Bool(_) => "boolean",
            MValue::Int(_) | MValue::BigInt(_) => "integer",
            MValue::Float(_) => "float",
            MValue::Str { .. } => "string",
            MValue::Seq(_) => "sequence",
            MValue::Map(_) => "mapping",
        }
    }

    /// Converts a YAML node tree.
    pub fn from_node(node: &Node) -> MValue {
        match &node.kind {
            NodeKind::Null => MValue::Null,
            NodeKind::Bool(b) => MValue::Bool(*b),
            NodeKind::Int(i) => MValue::Int(*i),
            NodeKind::BigInt(s) => MValue::BigInt(s.clone()),
            NodeKind::Float(f) => MValue::Float(*f),
            NodeKind::Str(s) => MValue::Str {
                text: s.clone(),
                plain: match node.tag.as_deref() {
                    None => node.style == Style::Plain,
                    Some(t) => t == "!!timestamp" || t == "tag:yaml.org,2002:timestamp",
                },
            },
            NodeKind::Seq(items) => MValue::Seq(items.iter().map(MValue::from_node).collect()),
            NodeKind::Map(m) => MValue::Map(
                m.iter()
                    .map(|(k, v)| (MValue::from_node(k), MValue::from_node(v)))
                    .collect(),
            ),
        }
    }
}

impl MValue {
    /// Converts a JSON value as Python's `json.loads` types it (a float stays
    /// a float, whatever its digits); object keys are quoted strings.
    pub fn from_json(value: &serde_json::Value) -> MValue {
        use serde_json::Value as J;
        use vetro_yaml::JsonBuild;
        match value {
            J::Null => MValue::Null,
            J::Bool(b) => MValue::Bool(*b),
            J::Number(n) => match (n.as_i64(), n.as_u64()) {
                (Some(i), _) => MValue::Int(i),
                (None, Some(u)) => MValue::BigInt(u.to_string()),
                (None, None) => MValue::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => MValue::string(s.clone()),
            J::Array(items) => MValue::Seq(items.iter().map(MValue::from_json).collect()),
            J::Object(map) => MValue::Map(
                map.iter()
                    .map(|(k, v)| (MValue::string(k.clone()), MValue::from_json(v)))
                    .collect(),
            ),
        }
    }
}

impl vetro_yaml::JsonBuild for MValue {
    fn null() -> Self {
        MValue::Null
    }
    fn bool(b: bool) -> Self {
        MValue::Bool(b)
    }
    fn int(i: i64) -> Self {
        MValue::Int(i)
    }
    fn big_int(digits: String) -> Self {
        MValue::BigInt(digits)
    }
    fn string(text: String) -> Self {
        MValue::Str { text, plain: false }
    }
    fn seq(items: Vec<Self>) -> Self {
        MValue::Seq(items)
    }
    fn map(entries: Vec<(String, Self)>) -> Self {
        MValue::Map(
            entries
                .into_iter()
                .map(|(k, v)| (Self::string(k), v))
                .collect(),
        )
    }
}
