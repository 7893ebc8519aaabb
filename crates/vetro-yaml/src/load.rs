//! Building the node tree from parser events: tags, scalar resolution, anchors and
//! aliases (with an expansion budget), merge keys and duplicate keys.

use crate::kind::YamlKind;
use crate::node::{Mapping, Node, NodeKind, Style};
use crate::resolve::{resolve_plain, Resolved, YamlVersion};
use saphyr_parser::{Event, Marker, Parser, ScalarStyle, Span as PSpan, Tag};
use std::borrow::Cow;
use std::collections::HashMap;
use vetro_diag::{Diagnostic, FileId, Kind, SourceMap, Span};

/// How documents are loaded.
#[derive(Clone, Debug)]
pub struct LoadOptions {
    pub version: YamlVersion,
    /// Apply `<<` merge keys.
    pub merge_keys: bool,
    /// Most nodes that aliases may copy in one stream (protects against "billion laughs").
    pub max_alias_nodes: usize,
    /// Deepest nesting of collections accepted.
    pub max_depth: usize,
    /// Accept repeated keys, the last value winning at the first key's position
    /// (PyYAML's behaviour), instead of reporting `duplicate-key` errors.
    pub allow_duplicate_keys: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            version: YamlVersion::V1_1,
            merge_keys: true,
            max_alias_nodes: 1_000_000,
            max_depth: 512,
            allow_duplicate_keys: false,
        }
    }
}

/// Load every document of a file already in `sources`.
pub fn load_str(
    sources: &SourceMap,
    file: FileId,
    opts: &LoadOptions,
) -> Result<Vec<Node>, Vec<Diagnostic>> {
    let text = sources.text(file);
    let mut builder = Builder::new(text, file, opts);
    let mut parser = Parser::new_from_str(text);
    loop {
        match parser.next_event() {
            None => break,
            Some(Ok((Event::StreamEnd, _))) => break,
            Some(Ok((event, span))) => {
                if let Err(diag) = builder.event(event, span) {
                    builder.errors.push(diag);
                    break;
                }
            }
            Some(Err(err)) => {
                let span = builder.point(err.marker());
                builder.errors.push(
                    Diagnostic::error(Kind::YamlSyntax, err.info().to_string()).with_span(span),
                );
                break;
            }
        }
    }
    if builder.errors.is_empty() {
        Ok(builder.documents)
    } else {
        Err(builder.errors)
    }
}

enum Frame {
    Seq {
        items: Vec<Node>,
        start: Span,
        tag: Option<Box<str>>,
        anchor: usize,
    },
    Map {
        entries: Vec<(Node, Node)>,
        key: Option<Node>,
        start: Span,
        tag: Option<Box<str>>,
        anchor: usize,
    },
}

struct Builder<'a> {
    text: &'a str,
    file: FileId,
    opts: &'a LoadOptions,
    offsets: CharOffsets<'a>,
    stack: Vec<Frame>,
    anchors: HashMap<usize, Node>,
    alias_nodes: usize,
    documents: Vec<Node>,
    errors: Vec<Diagnostic>,
}

impl<'a> Builder<'a> {
    fn new(text: &'a str, file: FileId, opts: &'a LoadOptions) -> Self {
        Builder {
            text,
            file,
            opts,
            offsets: CharOffsets::new(text),
            stack: Vec::new(),
            anchors: HashMap::new(),
            alias_nodes: 0,
            documents: Vec::new(),
            errors: Vec::new(),
        }
    }

    fn span(&mut self, span: PSpan) -> Span {
        let start = self.offsets.byte(span.start.index());
        let end = self.offsets.byte(span.end.index()).max(start);
        Span {
            file: self.file,
            start: vetro_diag::offset(start),
            end: vetro_diag::offset(end),
            line: span.start.line() as u32,
            col: span.start.col() as u32 + 1,
        }
    }

    /// A one-character span at a marker.
    fn point(&mut self, marker: &Marker) -> Span {
        let start = self.offsets.byte(marker.index());
        let end = self.text[start..]
            .chars()
            .next()
            .map_or(start, |c| start + c.len_utf8());
        Span {
            file: self.file,
            start: vetro_diag::offset(start),
            end: vetro_diag::offset(end),
            line: marker.line() as u32,
            col: marker.col() as u32 + 1,
        }
    }

    fn event(&mut self, event: Event<'_>, pspan: PSpan) -> Result<(), Diagnostic> {
        match event {
            Event::Nothing | Event::StreamStart | Event::StreamEnd | Event::DocumentEnd => {}
            Event::DocumentStart(_) => self.anchors.clear(),
            Event::Alias(id) => {
                let span = self.span(pspan);
                let node = self.anchors.get(&id).ok_or_else(|| {
                    Diagnostic::error(
                        YamlKind::RecursiveAlias,
                        "alias refers to the node that contains it",
                    )
                    .with_span(span)
                })?;
                self.alias_nodes += node.size();
                if self.alias_nodes > self.opts.max_alias_nodes {
                    return Err(Diagnostic::error(
                        YamlKind::AliasLimit,
                        format!(
                            "aliases expand to more than {} nodes; refusing to load (is this a \"billion laughs\" document?)",
                            self.opts.max_alias_nodes
                        ),
                    )
                    .with_span(span));
                }
                let node = node.clone();
                self.complete(node, 0)?;
            }
            Event::Scalar(value, style, anchor, tag) => {
                let span = self.span(pspan);
                let node = self.scalar(value, style, tag, span)?;
                self.complete(node, anchor)?;
            }
            Event::SequenceStart(anchor, tag) => {
                let start = self.span(pspan);
                self.check_depth(start)?;
                self.stack.push(Frame::Seq {
                    items: Vec::new(),
                    start,
                    tag: tag.map(|t| tag_text(&t)),
                    anchor,
                });
            }
            Event::MappingStart(anchor, tag) => {
                let start = self.span(pspan);
                self.check_depth(start)?;
                self.stack.push(Frame::Map {
                    entries: Vec::new(),
                    key: None,
                    start,
                    tag: tag.map(|t| tag_text(&t)),
                    anchor,
                });
            }
            Event::SequenceEnd => {
                let end = self.span(pspan);
                if let Some(Frame::Seq {
                    items,
                    start,
                    tag,
                    anchor,
                }) = self.stack.pop()
                {
                    let mut items = items;
                    // Exact size: a long sequence would otherwise keep up to half its capacity unused.
                    items.shrink_to_fit();
                    let mut node = Node::new(NodeKind::Seq(items), start.to(end));
                    node.tag = tag;
                    self.complete(node, anchor)?;
                }
            }
            Event::MappingEnd => {
                let end = self.span(pspan);
                if let Some(Frame::Map {
                    entries,
                    start,
                    tag,
                    anchor,
                    ..
                }) = self.stack.pop()
                {
                    let mapping = self.finish_mapping(entries);
                    let mut node = Node::new(NodeKind::Map(mapping), start.to(end));
                    node.tag = tag;
                    self.complete(node, anchor)?;
                }
            }
        }
        Ok(())
    }

    fn check_depth(&self, span: Span) -> Result<(), Diagnostic> {
        if self.stack.len() >= self.opts.max_depth {
            return Err(Diagnostic::error(
                YamlKind::DepthLimit,
                format!(
                    "collections nested deeper than {} levels",
                    self.opts.max_depth
                ),
            )
            .with_span(span));
        }
        Ok(())
    }

    fn scalar(
        &mut self,
        value: Cow<'_, str>,
        style: ScalarStyle,
        tag: Option<Cow<'_, Tag>>,
        span: Span,
    ) -> Result<Node, Diagnostic> {
        let style = match style {
            ScalarStyle::Plain => Style::Plain,
            ScalarStyle::SingleQuoted => Style::SingleQuoted,
            ScalarStyle::DoubleQuoted => Style::DoubleQuoted,
            ScalarStyle::Literal => Style::Literal,
            ScalarStyle::Folded => Style::Folded,
        };
        let tag = tag.map(|t| tag_text(&t));
        let kind = match tag.as_deref() {
            None if style == Style::Plain => {
                from_resolved(resolve_plain(&value, self.opts.version), value, span)?
            }
            None => NodeKind::Str(value.into_owned()),
            Some("!!null") => NodeKind::Null,
            Some(t @ ("!!bool" | "!!int" | "!!float")) => self.typed_scalar(t, &value, span)?,
            Some(_) => NodeKind::Str(value.into_owned()),
        };
        Ok(Node {
            kind,
            span,
            tag,
            style,
        })
    }

    /// A scalar with an explicit `!!bool`, `!!int` or `!!float` tag.
    fn typed_scalar(&self, tag: &str, text: &str, span: Span) -> Result<NodeKind, Diagnostic> {
        let resolved = resolve_plain(text, self.opts.version);
        let kind = match (tag, resolved) {
            ("!!bool", Resolved::Bool(b)) => Some(NodeKind::Bool(b)),
            ("!!int", Resolved::Int(i)) => Some(NodeKind::Int(i)),
            ("!!int", Resolved::BigInt(s)) => Some(NodeKind::BigInt(s)),
            ("!!int", Resolved::IntTooLong { digits }) => return Err(int_too_long(digits, span)),
            ("!!float", Resolved::Float(f)) => Some(NodeKind::Float(f)),
            ("!!float", Resolved::Int(i)) => Some(NodeKind::Float(i as f64)),
            ("!!float", _) => text.trim().parse::<f64>().ok().map(NodeKind::Float),
            _ => None,
        };
        kind.ok_or_else(|| {
            Diagnostic::error(
                YamlKind::BadTaggedValue,
                format!("`{text}` is not a valid {tag}"),
            )
            .with_span(span)
        })
    }

    /// Attach a finished node to its parent (or make it a document root).
    fn complete(&mut self, node: Node, anchor: usize) -> Result<(), Diagnostic> {
        if anchor != 0 {
            self.anchors.insert(anchor, node.clone());
        }
        match self.stack.last_mut() {
            None => self.documents.push(node),
            Some(Frame::Seq { items, .. }) => items.push(node),
            Some(Frame::Map { entries, key, .. }) => match key.take() {
                None => *key = Some(node),
                Some(k) => entries.push((k, node)),
            },
        }
        Ok(())
    }

    /// Apply merge keys and report duplicate keys.
    fn finish_mapping(&mut self, entries: Vec<(Node, Node)>) -> Mapping {
        let has_merge = self.opts.merge_keys && entries.iter().any(|(k, _)| is_merge_key(k));
        let mut merged: Vec<(Node, Node)> = Vec::new();
        let mut explicit: Vec<(Node, Node)> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            if has_merge && is_merge_key(&key) {
                self.collect_merge(&key, value, &mut merged);
            } else {
                explicit.push((key, value));
            }
        }
        let mut out = Mapping {
            entries: Vec::with_capacity(merged.len() + explicit.len()),
        };
        let mut index = KeyIndex::default();
        // Merged entries first, later ones overriding earlier ones in place (PyYAML order).
        for (key, value) in merged {
            match index.find(&out.entries, &key) {
                Some(i) => out.entries[i].1 = value,
                None => {
                    index.insert(&key, out.entries.len());
                    out.entries.push((key, value));
                }
            }
        }
        // Which entries were written explicitly (a second explicit one is a duplicate).
        let mut explicit_at = vec![false; out.entries.len()];
        for (key, value) in explicit {
            match index.find(&out.entries, &key) {
                Some(i) if explicit_at[i] && !self.opts.allow_duplicate_keys => {
                    let first = out.entries[i].0.span;
                    self.errors.push(
                        Diagnostic::error(
                            YamlKind::DuplicateKey,
                            format!("duplicate key `{}`", key_label(&key)),
                        )
                        .with_span(key.span)
                        .with_related(first, "first defined here"),
                    );
                }
                Some(i) => {
                    out.entries[i] = (key, value);
                    explicit_at[i] = true;
                }
                None => {
                    index.insert(&key, out.entries.len());
                    out.entries.push((key, value));
                    explicit_at.push(true);
                }
            }
        }
        out
    }

    fn collect_merge(&mut self, key: &Node, value: Node, merged: &mut Vec<(Node, Node)>) {
        match value.kind {
            NodeKind::Map(m) => merged.extend(m.entries),
            NodeKind::Seq(items) => {
                let mut groups = Vec::with_capacity(items.len());
                for item in items {
                    match item.kind {
                        NodeKind::Map(m) => groups.push(m.entries),
                        _ => self.errors.push(
                            Diagnostic::error(
                                YamlKind::MergeValue,
                                format!(
                                    "a merge key takes mappings, but this item is a {}",
                                    item.type_name()
                                ),
                            )
                            .with_span(item.span)
                            .with_related(key.span, "merge key"),
                        ),
                    }
                }
                // Earlier mappings in the list win, as in PyYAML.
                for group in groups.into_iter().rev() {
                    merged.extend(group);
                }
            }
            _ => self.errors.push(
                Diagnostic::error(
                    YamlKind::MergeValue,
                    format!(
                        "a merge key takes a mapping or a list of mappings, not a {}",
                        value.type_name()
                    ),
                )
                .with_span(value.span)
                .with_related(key.span, "merge key"),
            ),
        }
    }
}

fn from_resolved(
    resolved: Resolved,
    text: Cow<'_, str>,
    span: Span,
) -> Result<NodeKind, Diagnostic> {
    Ok(match resolved {
        Resolved::Null => NodeKind::Null,
        Resolved::Bool(b) => NodeKind::Bool(b),
        Resolved::Int(i) => NodeKind::Int(i),
        Resolved::BigInt(s) => NodeKind::BigInt(s),
        Resolved::IntTooLong { digits } => return Err(int_too_long(digits, span)),
        Resolved::Float(f) => NodeKind::Float(f),
        Resolved::Str => NodeKind::Str(text.into_owned()),
    })
}

fn int_too_long(digits: usize, span: Span) -> Diagnostic {
    Diagnostic::error(
        YamlKind::IntTooLong,
        format!(
            "an integer of {digits} digits is over the limit of {}",
            vetro_pycompat::int::MAX_INT_DIGITS
        ),
    )
    .with_span(span)
}

fn tag_text(tag: &Tag) -> Box<str> {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix).into()
    } else {
        format!("{}{}", tag.handle, tag.suffix).into()
    }
}

fn is_merge_key(key: &Node) -> bool {
    match key.tag.as_deref() {
        Some("!!merge") => true,
        None => key.style == Style::Plain && key.as_str() == Some("<<"),
        Some(_) => false,
    }
}

fn key_label(key: &Node) -> String {
    key.scalar_text()
        .unwrap_or_else(|| key.type_name().to_string())
}

/// Finds equal keys (equal as Python dict keys: `1` and `1.0` alike). Small
/// mappings are scanned; large ones get a hash index.
#[derive(Default)]
struct KeyIndex {
    keys: Vec<(u64, usize)>,
    map: Option<HashMap<u64, Vec<usize>>>,
}

const SCAN_LIMIT: usize = 16;

impl KeyIndex {
    fn find(&self, entries: &[(Node, Node)], key: &Node) -> Option<usize> {
        let hash = key_hash(key);
        let candidates: &[usize] = match &self.map {
            Some(map) => map.get(&hash).map_or(&[], Vec::as_slice),
            None => {
                return self
                    .keys
                    .iter()
                    .find(|&&(h, i)| h == hash && key_eq(&entries[i].0, key))
                    .map(|&(_, i)| i)
            }
        };
        candidates
            .iter()
            .copied()
            .find(|&i| key_eq(&entries[i].0, key))
    }

    fn insert(&mut self, key: &Node, at: usize) {
        let hash = key_hash(key);
        if let Some(map) = &mut self.map {
            map.entry(hash).or_default().push(at);
            return;
        }
        self.keys.push((hash, at));
        if self.keys.len() > SCAN_LIMIT {
            let mut map: HashMap<u64, Vec<usize>> = HashMap::new();
            for &(h, i) in &self.keys {
                map.entry(h).or_default().push(i);
            }
            self.map = Some(map);
        }
    }
}

/// Numbers that are equal as Python values (`1 == 1.0 == True` is not followed for
/// booleans, which YAML keeps apart).
fn as_number(node: &Node) -> Option<f64> {
    match node.kind {
        NodeKind::Int(i) => Some(i as f64),
        NodeKind::Float(f) => Some(f),
        _ => None,
    }
}

fn key_eq(a: &Node, b: &Node) -> bool {
    match (&a.kind, &b.kind) {
        (NodeKind::Str(x), NodeKind::Str(y)) => x == y,
        (NodeKind::Null, NodeKind::Null) => true,
        (NodeKind::Bool(x), NodeKind::Bool(y)) => x == y,
        (NodeKind::Int(x), NodeKind::Int(y)) => x == y,
        (NodeKind::BigInt(x), NodeKind::BigInt(y)) => x == y,
        (NodeKind::Seq(x), NodeKind::Seq(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| key_eq(p, q))
        }
        (NodeKind::Map(x), NodeKind::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| key_eq(k, k2) && key_eq(v, v2)))
        }
        _ => match (as_number(a), as_number(b)) {
            (Some(x), Some(y)) => x == y,
            _ => false,
        },
    }
}

fn key_hash(node: &Node) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    hash_into(node, &mut h);
    return h.finish();

    fn hash_into(node: &Node, h: &mut impl Hasher) {
        match &node.kind {
            NodeKind::Str(s) => {
                0u8.hash(h);
                s.hash(h);
            }
            NodeKind::Null => 1u8.hash(h),
            NodeKind::Bool(b) => {
                2u8.hash(h);
                b.hash(h);
            }
            // Equal numbers hash alike whatever their type.
            NodeKind::Int(_) | NodeKind::Float(_) => {
                3u8.hash(h);
                as_number(node).unwrap_or(0.0).to_bits().hash(h);
            }
            NodeKind::BigInt(s) => {
                4u8.hash(h);
                s.hash(h);
            }
            NodeKind::Seq(items) => {
                5u8.hash(h);
                for item in items {
                    hash_into(item, h);
                }
            }
            // Entry order does not matter for equality, so only the size is hashed.
            NodeKind::Map(m) => {
                6u8.hash(h);
                m.len().hash(h);
            }
        }
    }
}

/// Converts the parser's character indices into byte offsets, walking from the
/// last position asked for (events arrive nearly in order).
struct CharOffsets<'a> {
    text: &'a str,
    ascii: bool,
    last_char: usize,
    last_byte: usize,
}

impl<'a> CharOffsets<'a> {
    fn new(text: &'a str) -> Self {
        CharOffsets {
            text,
            ascii: text.is_ascii(),
            last_char: 0,
            last_byte: 0,
        }
    }

    fn byte(&mut self, char_index: usize) -> usize {
        if self.ascii {
            return char_index.min(self.text.len());
        }
        if char_index < self.last_char / 2 {
            self.last_char = 0;
            self.last_byte = 0;
        }
        while self.last_char < char_index && self.last_byte < self.text.len() {
            let c = self.text[self.last_byte..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
            self.last_byte += c;
            self.last_char += 1;
        }
        while self.last_char > char_index {
            let c = self.text[..self.last_byte]
                .chars()
                .next_back()
                .map_or(1, char::len_utf8);
            self.last_byte -= c;
            self.last_char -= 1;
        }
        self.last_byte
    }
}
