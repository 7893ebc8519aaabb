//! The spanned node tree.

use vetro_diag::Span;

/// How a node was written in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
    Folded,
    /// A collection (block or flow), or a node built in memory.
    Collection,
}

impl Style {
    /// Whether the scalar was written without quotes or block indicators.
    pub fn is_plain(self) -> bool {
        self == Style::Plain
    }
}

/// A YAML node with its position and tag.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    pub kind: NodeKind,
    pub span: Span,
    /// The tag as written: `!!str`, `!yaql`, `!custom`; `None` when untagged.
    pub tag: Option<Box<str>>,
    pub style: Style,
}

/// The resolved value of a node.
#[derive(Clone, Debug, PartialEq)]
pub enum NodeKind {
    Null,
    Bool(bool),
    Int(i64),
    /// An integer outside the `i64` range, as decimal digits with an optional sign.
    BigInt(String),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Mapping),
}

/// A mapping in document order. Keys are unique (duplicates are a load error).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mapping {
    pub entries: Vec<(Node, Node)>,
}

impl Mapping {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The value under a string key.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.entry(key).map(|(_, v)| v)
    }

    /// The key node and value node under a string key.
    pub fn entry(&self, key: &str) -> Option<&(Node, Node)> {
        self.entries.iter().find(|(k, _)| k.as_str() == Some(key))
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Node, &Node)> {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &Node> {
        self.entries.iter().map(|(k, _)| k)
    }
}

impl Node {
    /// A node of this kind at `span`, untagged (collections get
    /// [`Style::Collection`], scalars [`Style::Plain`]).
    pub fn new(kind: NodeKind, span: Span) -> Self {
        let style = match kind {
            NodeKind::Seq(_) | NodeKind::Map(_) => Style::Collection,
            _ => Style::Plain,
        };
        Node {
            kind,
            span,
            tag: None,
            style,
        }
    }

    /// Point this node and everything under it at `file`: for a tree loaded
    /// once and reused with another [`vetro_diag::SourceMap`] that holds the
    /// same text under another id.
    pub fn move_to_file(&mut self, file: vetro_diag::FileId) {
        self.span.file = file;
        match &mut self.kind {
            NodeKind::Seq(items) => items.iter_mut().for_each(|n| n.move_to_file(file)),
            NodeKind::Map(map) => map.entries.iter_mut().for_each(|(k, v)| {
                k.move_to_file(file);
                v.move_to_file(file);
            }),
            _ => {}
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.kind {
            NodeKind::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self.kind {
            NodeKind::Bool(b) => Some(b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self.kind {
            NodeKind::Int(i) => Some(i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self.kind {
            NodeKind::Int(i) => Some(i as f64),
            NodeKind::Float(f) => Some(f),
            _ => None,
        }
    }

    pub fn as_seq(&self) -> Option<&[Node]> {
        match &self.kind {
            NodeKind::Seq(items) => Some(items),
            _ => None,
        }
    }

    pub fn as_map(&self) -> Option<&Mapping> {
        match &self.kind {
            NodeKind::Map(m) => Some(m),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self.kind, NodeKind::Null)
    }

    pub fn is_scalar(&self) -> bool {
        !matches!(self.kind, NodeKind::Seq(_) | NodeKind::Map(_))
    }

    /// Value under a string key, when this node is a mapping.
    pub fn get(&self, key: &str) -> Option<&Node> {
        self.as_map().and_then(|m| m.get(key))
    }

    /// A short name of the node's type for messages: `string`, `mapping`, ...
    pub fn type_name(&self) -> &'static str {
        match self.kind {
            NodeKind::Null => "null",
            NodeKind::Bool(_) => "boolean",
            NodeKind::Int(_) | NodeKind::BigInt(_) => "integer",
            NodeKind::Float(_) => "float",
            NodeKind::Str(_) => "string",
            NodeKind::Seq(_) => "sequence",
            NodeKind::Map(_) => "mapping",
        }
    }

    /// The scalar as text, the way Python's `str()` shows it (`True`, `None`, `1.5`).
    pub fn scalar_text(&self) -> Option<String> {
        Some(match &self.kind {
            NodeKind::Null => "None".into(),
            NodeKind::Bool(true) => "True".into(),
            NodeKind::Bool(false) => "False".into(),
            NodeKind::Int(i) => i.to_string(),
            NodeKind::BigInt(s) => s.clone(),
            NodeKind::Float(f) => vetro_pycompat::repr::float_repr(*f),
            NodeKind::Str(s) => s.clone(),
            NodeKind::Seq(_) | NodeKind::Map(_) => return None,
        })
    }

    /// Number of nodes in this subtree (keys count), used by the alias budget.
    pub fn size(&self) -> usize {
        match &self.kind {
            NodeKind::Seq(items) => 1 + items.iter().map(Node::size).sum::<usize>(),
            NodeKind::Map(m) => {
                1 + m
                    .entries
                    .iter()
                    .map(|(k, v)| k.size() + v.size())
                    .sum::<usize>()
            }
            _ => 1,
        }
    }
}
