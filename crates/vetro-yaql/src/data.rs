//! Plain user data in and out: JSON or YAML text to values, and values to
//! JSON or YAML text. Nothing is tagged: a user's `{"$set": [1]}` is a
//! dictionary with the key `$set`. Integers keep every digit, and NaN and
//! infinities are written as Python's `json` module writes them (`NaN`,
//! `Infinity`, `-Infinity`) and as YAML's `.nan`/`.inf`.

use crate::error::Error;
use crate::value::{Dict, DictKeys, List, Render, Str, Value};
use num_bigint::BigInt;
use std::cell::RefCell;
use vetro_yaml::{Node, NodeKind, Span};

mod agree;
mod direct;
#[cfg(test)]
mod direct_tests;

#[doc(hidden)]
pub use agree::json_readers_agree;

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
    load_str_consuming(name, text, None)
}

/// [`load_str`] for a large document held where its memory can be given
/// back a part at a time (a mapped file): `consumed(n)` is called as the
/// JSON reader moves past the first `n` bytes of `text`, which it does not
/// read again. When the JSON path gives up, the YAML loader reads the whole
/// text again.
pub fn load_str_consuming(
    name: &str,
    text: &str,
    consumed: Option<&dyn Fn(usize)>,
) -> Result<Value, DataError> {
    if let Some(v) = fast_json(text, consumed) {
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

/// JSON straight into values, or `None` when the text is not JSON these
/// paths can take exactly (then the YAML loader decides): the direct reader
/// first, serde_json when it gives up.
fn fast_json(text: &str, consumed: Option<&dyn Fn(usize)>) -> Option<Value> {
    let progress = || {
        consumed.map(|consumed| Progress {
            base: text.as_ptr() as usize,
            len: text.len(),
            next: 0,
            consumed,
        })
    };
    direct::parse(text, &mut Loader::new(progress()))
        .ok()
        .or_else(|| serde_json_path(text, progress()))
}

/// JSON into values through serde_json.
fn serde_json_path(text: &str, progress: Option<Progress>) -> Option<Value> {
    use serde::de::DeserializeSeed;
    let mut de = serde_json::Deserializer::from_str(text);
    let state = RefCell::new(Loader::new(progress));
    let v = PlainSeed(&state).deserialize(&mut de).ok()?;
    de.end().ok()?;
    Some(v)
}

/// A number as serde_json reads it, or `None` for an integer beyond 64
/// bits, which it rounds (the exact loader then reads the document).
fn number_from_serde(n: &serde_json::Number) -> Option<Value> {
    if let Some(i) = n.as_i64() {
        return Some(Value::Int(i));
    }
    if let Some(u) = n.as_u64() {
        return Some(Value::from_bigint(BigInt::from(u)));
    }
    let f = n.as_f64()?;
    (f.fract() != 0.0 || f.abs() < 9.2e18).then_some(Value::Float(f))
}

/// What one document's loading keeps between values: the short strings met
/// so far, the lists of keys its dictionaries have, and the items of the
/// lists and dictionaries being read.
struct Loader<'p> {
    /// Records repeat many of their short values (a city, a tag): each
    /// one too long to be held inline is held once instead of once per
    /// record.
    strings: ahash::AHashMap<Box<str>, Value>,
    /// The keys of dictionaries, as a tree: each shape is the list of keys
    /// read so far in a dictionary, and its children the keys met after
    /// it. Records with the same keys in the same order end on the same
    /// shape and share its list of keys; a key is matched against the
    /// few children of the current shape, without hashing it.
    shapes: Vec<Shape>,
    /// The items of the lists and the values of the dictionaries being
    /// read, innermost last: each is allocated once, at its final size,
    /// when it ends.
    items: Vec<Value>,
    empty_list: Value,
    progress: Option<Progress<'p>>,
}

/// Where the reader is in the text, told to the caller a step at a time.
struct Progress<'p> {
    /// The text's address and length.
    base: usize,
    len: usize,
    /// The offset past which the next call is made.
    next: usize,
    consumed: &'p dyn Fn(usize),
}

impl Progress<'_> {
    const STEP: usize = 1 << 20;

    /// The reader is at `s`, a borrowed part of the text (or of something
    /// else, then ignored).
    fn at(&mut self, s: &str) {
        self.reached((s.as_ptr() as usize).wrapping_sub(self.base));
    }

    /// The reader is `at` bytes into the text (or past it, then ignored).
    fn reached(&mut self, at: usize) {
        if at < self.len && at >= self.next {
            (self.consumed)(at);
            self.next = at + Self::STEP;
        }
    }
}

/// A key as it is written in JSON, its closing quote included.
enum Written {
    /// Up to 7 bytes and the quote, in the low bytes of a word (read
    /// little-endian), and the mask of those bytes.
    Word(u64, u64),
    /// Longer.
    Long,
    /// A key with a character JSON escapes (or none, at the root).
    Escaped,
}

impl Written {
    fn of(k: &str) -> Written {
        if k.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
            return Written::Escaped;
        }
        if k.len() >= 8 {
            return Written::Long;
        }
        let mut word = [0u8; 8];
        word[..k.len()].copy_from_slice(k.as_bytes());
        word[k.len()] = b'"';
        let mask = u64::MAX >> (8 * (7 - k.len()));
        Written::Word(u64::from_le_bytes(word), mask)
    }
}

struct Shape {
    /// The last key (null at the root).
    key: Value,
    /// How the key is written in JSON when it needs no escape, so that it
    /// is matched against the text directly.
    written: Written,
    keys: DictKeys,
    children: Vec<u32>,
}

/// A duplicate key in a dictionary (the YAML loader then reports it).
struct Duplicate;

impl<'p> Loader<'p> {
    fn new(progress: Option<Progress<'p>>) -> Loader<'p> {
        Loader {
            strings: Default::default(),
            shapes: vec![Shape {
                key: Value::Null,
                written: Written::Escaped,
                keys: DictKeys::new(),
                children: Vec::new(),
            }],
            items: Vec::new(),
            empty_list: Value::list(Vec::new()),
            progress,
        }
    }
}

impl Loader<'_> {
    /// Strings this long or more, and strings past this many distinct ones,
    /// are not shared (they are rarely repeated).
    const MAX_LEN: usize = 24;
    const MAX_STRINGS: usize = 16384;
    /// Shapes past this many, or past this many children of one shape
    /// (dictionaries keyed by names, not fields), are not made: such
    /// dictionaries are built key by key.
    const MAX_SHAPES: usize = 16384;
    const MAX_CHILDREN: usize = 16;

    fn string(&mut self, k: &str) -> Value {
        // Short text is held in the value itself: nothing to share.
        if k.len() <= Str::INLINE || k.len() >= Self::MAX_LEN {
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

    /// The reader is `at` bytes into the text.
    fn reached(&mut self, at: usize) {
        if let Some(p) = &mut self.progress {
            p.reached(at);
        }
    }

    /// The key `k` read in the dictionary being built: the shape it leads
    /// to, or the key itself once off the shapes.
    fn key(&mut self, shape: Option<usize>, k: &str) -> Result<Key, Duplicate> {
        if let Some(shape) = shape {
            if let Some(next) = self.child(shape, k)? {
                return Ok(Key::Shape(next));
            }
        }
        Ok(Key::Plain(self.string(k)))
    }

    /// Adds the entry `key: v` to the dictionary being built, whose values
    /// so far are the items from `start` on while it is on a shape.
    fn put(
        &mut self,
        building: &mut Building,
        start: usize,
        key: Key,
        v: Value,
    ) -> Result<(), Duplicate> {
        match (&mut *building, key) {
            (Building::Shaped(shape), Key::Shape(next)) => {
                *shape = next;
                self.items.push(v);
            }
            (Building::Shaped(shape), Key::Plain(k)) => {
                let mut d = Dict::from_keys_tail(&self.shapes[*shape].keys, &mut self.items, start);
                if d.insert(k, v).is_some() {
                    return Err(Duplicate);
                }
                *building = Building::Plain(d);
            }
            (Building::Plain(d), key) => {
                let k = match key {
                    Key::Plain(k) => k,
                    Key::Shape(next) => self.shapes[next].key.clone(),
                };
                if d.insert(k, v).is_some() {
                    return Err(Duplicate);
                }
            }
        }
        Ok(())
    }

    /// The dictionary built, its values the items from `start` on while on
    /// a shape.
    fn dict_from(&mut self, building: Building, start: usize) -> Value {
        Value::dict(match building {
            Building::Shaped(shape) => {
                Dict::from_keys_tail(&self.shapes[shape].keys, &mut self.items, start)
            }
            Building::Plain(d) => d,
        })
    }

    /// The list of the items from `start` on, which it takes off the
    /// stack. Empty lists share one buffer.
    fn list_from(&mut self, start: usize) -> Value {
        let items = &mut self.items;
        if items.len() == start {
            return self.empty_list.clone();
        }
        Value::List(List::from_tail(items, start))
    }

    /// The shape after `shape` whose key is written at the start of `text`
    /// (up to its closing quote, which follows), with the key's length:
    /// only keys written without escapes are matched so.
    fn expected(&self, shape: usize, text: &[u8]) -> Option<(usize, usize)> {
        let head = text
            .get(..8)
            .map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
        self.shapes[shape].children.iter().find_map(|&c| {
            let s = &self.shapes[c as usize];
            let len = match (&s.written, head) {
                (Written::Word(w, mask), Some(head)) => {
                    (head & mask == *w).then_some(mask.count_ones() as usize / 8 - 1)
                }
                (Written::Word(..) | Written::Long, _) => {
                    let k = s.key.as_str()?.as_bytes();
                    (text.get(k.len()) == Some(&b'"') && text.starts_with(k)).then_some(k.len())
                }
                (Written::Escaped, _) => None,
            }?;
            Some((c as usize, len))
        })
    }

    /// The shape after `shape` when the next key is `k`, made if new;
    /// `None` past the limits.
    fn child(&mut self, shape: usize, k: &str) -> Result<Option<usize>, Duplicate> {
        let found = self.shapes[shape]
            .children
            .iter()
            .find(|&&c| matches!(&self.shapes[c as usize].key, Value::Str(s) if **s == *k));
        if let Some(&c) = found {
            return Ok(Some(c as usize));
        }
        if self.shapes.len() >= Self::MAX_SHAPES
            || self.shapes[shape].children.len() >= Self::MAX_CHILDREN
        {
            return Ok(None);
        }
        let key = self.string(k);
        let mut keys = self.shapes[shape].keys.clone();
        if !keys.push(key.clone()) {
            return Err(Duplicate);
        }
        let c = self.shapes.len();
        self.shapes.push(Shape {
            written: Written::of(k),
            key,
            keys,
            children: Vec::new(),
        });
        self.shapes[shape].children.push(c as u32);
        Ok(Some(c))
    }
}

/// A dictionary being read: on a shape while its keys follow known
/// paths, else built key by key.
enum Building {
    Shaped(usize),
    Plain(Dict),
}

impl Building {
    fn shape(&self) -> Option<usize> {
        match self {
            Building::Shaped(shape) => Some(*shape),
            Building::Plain(_) => None,
        }
    }
}

#[derive(Clone, Copy)]
struct PlainSeed<'k, 'p>(&'k RefCell<Loader<'p>>);

impl<'de> serde::de::DeserializeSeed<'de> for PlainSeed<'_, '_> {
    type Value = Value;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(PlainVisitor(self.0))
    }
}

struct PlainVisitor<'k, 'p>(&'k RefCell<Loader<'p>>);

impl<'de> serde::de::Visitor<'de> for PlainVisitor<'_, '_> {
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
    fn visit_u64<E: serde::de::Error>(self, u: u64) -> Result<Value, E> {
        number_from_serde(&u.into()).ok_or_else(|| E::custom("inexact"))
    }
    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(f)
            .and_then(|n| number_from_serde(&n))
            .ok_or_else(|| E::custom("inexact"))
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
        Ok(self.0.borrow_mut().list_from(start))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Value, A::Error> {
        use serde::de::Error as _;
        let start = self.0.borrow().items.len();
        let mut building = Building::Shaped(0);
        loop {
            let Some(key) = a.next_key_seed(KeySeed(self.0, building.shape()))? else {
                break;
            };
            let v = a.next_value_seed(PlainSeed(self.0))?;
            let mut state = self.0.borrow_mut();
            state
                .put(&mut building, start, key, v)
                .map_err(|Duplicate| A::Error::custom("duplicate key"))?;
        }
        Ok(self.0.borrow_mut().dict_from(building, start))
    }
}

/// A key read in a dictionary on `shape` (or on none): the shape it
/// leads to, or the key itself once off the shapes.
enum Key {
    Shape(usize),
    Plain(Value),
}

/// Reads a key without copying its text (a key of the document is
/// matched against the shapes where it lies in the text).
struct KeySeed<'k, 'p>(&'k RefCell<Loader<'p>>, Option<usize>);

impl<'de> serde::de::DeserializeSeed<'de> for KeySeed<'_, '_> {
    type Value = Key;
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<Key, D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for KeySeed<'_, '_> {
    type Value = Key;
    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E: serde::de::Error>(self, k: &'de str) -> Result<Key, E> {
        if let Some(p) = &mut self.0.borrow_mut().progress {
            p.at(k);
        }
        self.visit_str(k)
    }
    fn visit_str<E: serde::de::Error>(self, k: &str) -> Result<Key, E> {
        self.0
            .borrow_mut()
            .key(self.1, k)
            .map_err(|Duplicate| E::custom("duplicate key"))
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
        // Keys longer than a string held inline.
        let v = load_str(
            "d",
            r#"[{"the name of it all": 1, "the x of it, too": 2}, {"the x of it, too": 3, "the name of it all": 4}]"#,
        )
        .unwrap();
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
        assert!(crate::value::Str::ptr_eq(&key(0, 0), &key(1, 1)));
        assert!(crate::value::Str::ptr_eq(&key(0, 1), &key(1, 0)));
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

    #[test]
    fn records_with_the_same_keys_share_one_list_of_them() {
        let v = load_str(
            "d",
            r#"[{"a": 1, "b": {"c": 2}}, {"a": 3, "b": {"c": 4}}, {"b": 5}]"#,
        )
        .unwrap();
        let Value::List(items) = &v else {
            panic!("not a list")
        };
        let keys = |v: &Value| match v {
            Value::Dict(d) => d.dict_keys(),
            _ => panic!("not a dict"),
        };
        let (k0, k1) = (keys(&items[0]), keys(&items[1]));
        assert!(std::ptr::eq(k0.as_slice(), k1.as_slice()));
        assert_eq!(keys(&items[2]).as_slice(), [Value::from("b")]);
        assert_eq!(
            to_json_string(&v, false),
            r#"[{"a":1,"b":{"c":2}},{"a":3,"b":{"c":4}},{"b":5}]"#
        );
    }

    #[test]
    fn dictionaries_past_the_shapes_are_built_key_by_key() {
        // Each dictionary starts with its own key: the root shape runs out
        // of children, the rest are read key by key.
        let text = format!(
            "[{}]",
            (0..40)
                .map(|i| format!(r#"{{"k{i}": {i}, "x": 1, "k{i}y": 2}}"#))
                .collect::<Vec<_>>()
                .join(",")
        );
        let v = load_str("d", &text).unwrap();
        assert_eq!(to_json_string(&v, false), text.replace(" ", ""));
        let dup = "[{\"a\": 1}, {\"b\": 1, \"a\": 2, \"b\": 3}]";
        assert!(load_str("d", dup).is_err());
        let many: String = (0..40)
            .map(|i| format!("{{\"k{i}\": 1, \"k{i}\": 2}},"))
            .collect();
        assert!(load_str("d", &format!("[{}1]", many)).is_err());
    }

    #[test]
    fn the_reader_tells_how_far_it_is() {
        let records: Vec<String> = (0..200_000).map(|i| format!(r#"{{"k": {i}}}"#)).collect();
        let text = format!("[{}]", records.join(","));
        let seen = RefCell::new(Vec::new());
        let told = |n: usize| seen.borrow_mut().push(n);
        let v = load_str_consuming("d", &text, Some(&told)).unwrap();
        assert!(matches!(&v, Value::List(l) if l.len() == 200_000));
        // About once per MiB, in order, inside the text.
        let seen = seen.into_inner();
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(seen.windows(2).all(|w| w[0] + (1 << 20) <= w[1]));
        assert!(seen.iter().all(|&n| n < text.len()));
    }
}
