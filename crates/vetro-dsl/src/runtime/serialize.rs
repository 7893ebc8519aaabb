//! Object trees written out: the deployment serializer (`Objects`,
//! `ObjectsCopy`, `Attributes`) and `dump()`.
//!
//! Placement follows the reference engine. An object is written in full where
//! its owner holds it; elsewhere it is a reference. Later passes write in full
//! the referenced objects that no owner wrote (for a deployment: any of them;
//! for `dump()`, which keeps references: those without an owner, or whose
//! owner is written and encloses the dump). A deployment drops references to
//! objects it never wrote; `dump()` keeps them as ids.

use super::model::meta_entries;
use super::types::*;
use super::walk::Walk;
use super::Rt;
use ahash::AHashSet as HashSet;
use serde_json::{json, Value as Json};
use std::rc::Rc;
use vetro_yaql::value::Dict;
use vetro_yaql::Value;

/// How objects are written.
#[derive(Clone, Copy, PartialEq)]
enum Style {
    /// The deployment model (`_actions` are added when it is rendered).
    Deployment,
    /// `dump()` as `Serializable`: a `?` header with a versioned type name.
    Serializable,
    /// `dump()` as `Mixed`: a `?` header whose type is the class itself.
    Mixed,
    /// `dump()` as `Inline`: `{Type: {properties}, id, name, metadata}`.
    Inline,
}

/// A tree whose object references are not placed yet.
enum Tree {
    Leaf(Value),
    /// The `?` header of an object of a deployment.
    Header(Rc<Object>, Value),
    List(Vec<Tree>),
    Map(Vec<(Value, Tree)>),
    Ref(Rc<Object>),
}

struct Writer<'rt> {
    rt: &'rt Rt,
    style: Style,
    /// Where the top object is held (its owner).
    top_parent: Option<Rc<Object>>,
    written: HashSet<String>,
    /// The containers and objects entered (depth and session limits).
    walk: Walk<'rt>,
    /// Why writing stopped: a session limit passed while a value that shares
    /// its parts was being expanded, or the tree nests too deep.
    failed: Option<Exc>,
}

fn same_object(a: Option<&Rc<Object>>, b: Option<&Rc<Object>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

/// `inner` is `outer` or held, directly or not, by it.
fn nested_in(inner: Option<&Rc<Object>>, outer: &Rc<Object>) -> bool {
    inner.is_some_and(|i| Rc::ptr_eq(i, outer) || i.owned_by(outer))
}

fn text(s: &str) -> Value {
    Value::str(s)
}

impl Writer<'_> {
    fn keeps_refs(&self) -> bool {
        !matches!(self.style, Style::Deployment)
    }

    /// Whether to go on: enters one more container or object.
    fn enter(&mut self) -> bool {
        if self.failed.is_some() {
            return false;
        }
        self.failed = self.walk.enter().err();
        self.failed.is_none()
    }

    /// First pass over a value held by `parent`; true when references are left.
    fn value(&mut self, v: &Value, parent: Option<&Rc<Object>>) -> (Tree, bool) {
        let container = matches!(v, Value::List(_) | Value::Set(_) | Value::Dict(_));
        if !(container || as_object(v).is_some()) {
            return (Tree::Leaf(v.clone()), false);
        }
        if !self.enter() {
            return (Tree::Leaf(Value::Null), false);
        }
        let out = self.value_in(v, parent);
        self.walk.leave();
        out
    }

    fn value_in(&mut self, v: &Value, parent: Option<&Rc<Object>>) -> (Tree, bool) {
        if let Some((o, _)) = as_object(v) {
            let owner = o.owner.borrow().clone();
            if !same_object(owner.as_ref(), parent) || self.written.contains(&o.id) {
                return (Tree::Ref(o), true);
            }
            let class = o.class.clone();
            return self.object(&o, &class);
        }
        let mut pending = false;
        let tree = match v {
            Value::List(l) => Tree::List(self.items(l.iter(), parent, &mut pending)),
            Value::Set(s) => Tree::List(self.items(s.iter(), parent, &mut pending)),
            Value::Dict(d) => {
                let mut fields = Vec::with_capacity(d.len());
                for (k, x) in d.iter() {
                    let key = match self.keeps_refs() {
                        true => k.clone(),
                        false => self.key_text(k),
                    };
                    let (t, p) = self.value(x, parent);
                    pending |= p;
                    fields.push((key, t));
                }
                Tree::Map(fields)
            }
            other => Tree::Leaf(other.clone()),
        };
        (tree, pending)
    }

    fn items<'v>(
        &mut self,
        items: impl Iterator<Item = &'v Value>,
        parent: Option<&Rc<Object>>,
        pending: &mut bool,
    ) -> Vec<Tree> {
        items
            .map(|x| {
                let (t, p) = self.value(x, parent);
                *pending |= p;
                t
            })
            .collect()
    }

    /// A dict key as deployment output writes it: its text, which stops the
    /// writer if it would pass the session's memory limit.
    fn key_text(&mut self, k: &Value) -> Value {
        match self.rt.limits.py_str(k) {
            Ok(t) => text(&t),
            Err(e) => {
                self.failed.get_or_insert(e);
                Value::Null
            }
        }
    }

    /// An object in full, seen as `class` (its own class, or an upcast for `dump()`).
    fn object(&mut self, o: &Rc<Object>, class: &Rc<Class>) -> (Tree, bool) {
        self.written.insert(o.id.clone());
        let (props, pending) = self.properties(o, class);
        let tree = match self.style {
            Style::Inline => Tree::Map(vec![
                (class.type_value(), Tree::Map(props)),
                (text("id"), Tree::Leaf(text(&o.id))),
                (text("name"), Tree::Leaf(o.name.borrow().clone())),
                (text("metadata"), Tree::Leaf(o.metadata.borrow().clone())),
            ]),
            _ => {
                let header = self.header(o, class);
                let header = match self.style {
                    Style::Deployment => Tree::Header(o.clone(), header),
                    _ => Tree::Leaf(header),
                };
                let mut fields = vec![(text("?"), header)];
                fields.extend(props);
                Tree::Map(fields)
            }
        };
        (tree, pending)
    }

    fn properties(&mut self, o: &Rc<Object>, class: &Rc<Class>) -> (Vec<(Value, Tree)>, bool) {
        let values = o.props.borrow().clone();
        let mut fields = Vec::with_capacity(values.len());
        let mut pending = false;
        if let Style::Deployment = self.style {
            for (name, v) in &values {
                let usage = o.class.first_property(name).map(|(_, p)| p.usage);
                if usage.is_some_and(|u| u.serialized()) {
                    let (t, p) = self.value(v, Some(o));
                    pending |= p;
                    fields.push((text(name), t));
                }
            }
            return (fields, pending);
        }
        let mut done = HashSet::new();
        for c in class.mro() {
            for (name, p) in &c.def.properties {
                if !p.usage.serialized() || !done.insert(name.clone()) {
                    continue;
                }
                let Some(v) = values.get(name) else { continue };
                let tree = match as_object(v) {
                    Some((x, _)) if serialized_as_reference(&c, &p.meta) => Tree::Leaf(text(&x.id)),
                    _ => {
                        let (t, p) = self.value(v, Some(o));
                        pending |= p;
                        t
                    }
                };
                fields.push((text(name), tree));
            }
        }
        (fields, pending)
    }

    fn header(&self, o: &Rc<Object>, class: &Rc<Class>) -> Value {
        let mut h = Dict::with_capacity(6);
        let mut put = |k: &str, v: Value| {
            h.insert(text(k), v);
        };
        let type_value = match self.style {
            Style::Mixed => class.type_value(),
            _ => text(&class.versioned_name()),
        };
        if let Style::Deployment = self.style {
            put("type", type_value);
            put("id", text(&o.id));
            put("name", o.name.borrow().clone());
            put("metadata", o.metadata.borrow().clone());
            if o.destroyed.get() {
                put("destroyed", Value::Bool(true));
            }
            let subs: Vec<Value> = o
                .subscribers
                .borrow()
                .iter()
                .filter(|(s, _)| !s.destroyed.get())
                .map(|(s, handler)| {
                    let mut d = Dict::new();
                    d.insert(text("subscriber"), text(&s.id));
                    d.insert(
                        text("handler"),
                        handler.as_deref().map_or(Value::Null, text),
                    );
                    Value::dict(d)
                })
                .collect();
            if !subs.is_empty() {
                let mut deps = Dict::new();
                deps.insert(text("onDestruction"), Value::list(subs));
                put("dependencies", Value::dict(deps));
            }
        } else {
            put("id", text(&o.id));
            put("metadata", o.metadata.borrow().clone());
            put("name", o.name.borrow().clone());
            put("type", type_value);
        }
        Value::dict(h)
    }

    /// A later pass: write in full the references that may move where they are.
    fn place(&mut self, t: &mut Tree) -> bool {
        match t {
            Tree::Leaf(_) | Tree::Header(..) => false,
            Tree::Ref(o) => {
                if !self.may_move(o) {
                    return false;
                }
                let o = o.clone();
                let class = o.class.clone();
                let (full, pending) = self.object(&o, &class);
                *t = full;
                pending
            }
            Tree::List(items) => items.iter_mut().fold(false, |p, x| self.place(x) | p),
            Tree::Map(fields) => fields.iter_mut().fold(false, |p, (_, x)| self.place(x) | p),
        }
    }

    fn may_move(&self, o: &Rc<Object>) -> bool {
        if self.written.contains(&o.id) {
            return false;
        }
        if !self.keeps_refs() {
            return true;
        }
        match &*o.owner.borrow() {
            None => true,
            Some(owner) => {
                nested_in(self.top_parent.as_ref(), owner) && self.written.contains(&owner.id)
            }
        }
    }

    /// The final JSON of a deployment: references to written objects become
    /// ids, the others go (`None`); dict keys are their Python text; headers
    /// get `_actions` when asked. Values inside headers and leaves are walked
    /// under the same bounds as the tree.
    fn finish_json(
        &self,
        t: &Tree,
        actions: &mut Option<ActionCache>,
        walk: &mut Walk<'_>,
    ) -> Result<Option<Json>, Exc> {
        Ok(Some(match t {
            Tree::Leaf(v) => self.rt.plain_json(v, walk)?,
            Tree::Header(o, v) => {
                let mut header = self.rt.plain_json(v, walk)?;
                if let (Some(cache), Json::Object(h)) = (actions.as_mut(), &mut header) {
                    h.insert("_actions".into(), cache.entries(o));
                }
                header
            }
            Tree::Ref(o) if self.written.contains(&o.id) => Json::String(o.id.clone()),
            Tree::Ref(_) => return Ok(None),
            Tree::List(items) => walk.nested(|walk| {
                let mut out = Vec::with_capacity(items.len());
                for x in items {
                    out.extend(self.finish_json(x, actions, walk)?);
                }
                Ok(Json::Array(out))
            })?,
            Tree::Map(fields) => walk.nested(|walk| {
                let mut out = serde_json::Map::with_capacity(fields.len());
                for (k, x) in fields {
                    if let Some(j) = self.finish_json(x, actions, walk)? {
                        out.insert(self.rt.limits.py_str(k)?, j);
                    }
                }
                Ok(Json::Object(out))
            })?,
        }))
    }

    /// The final value of `dump()`: references become ids.
    fn finish(t: Tree) -> Value {
        match t {
            Tree::Leaf(v) | Tree::Header(_, v) => v,
            Tree::Ref(o) => text(&o.id),
            Tree::List(items) => Value::list(items.into_iter().map(Writer::finish).collect()),
            Tree::Map(fields) => Value::dict(
                fields
                    .into_iter()
                    .map(|(k, x)| (k, Writer::finish(x)))
                    .collect(),
            ),
        }
    }
}

/// `_actions` entries per class (every public method, titled by its meta),
/// worked out once per class and keyed per object.
#[derive(Default)]
struct ActionCache {
    by_class: std::collections::HashMap<String, Vec<(String, Json)>>,
}

impl ActionCache {
    fn entries(&mut self, o: &Rc<Object>) -> Json {
        let methods = self
            .by_class
            .entry(o.class.name.clone())
            .or_insert_with(|| class_actions(&o.class));
        Json::Object(
            methods
                .iter()
                .map(|(m, entry)| (format!("{}_{m}", o.id), entry.clone()))
                .collect(),
        )
    }
}

fn class_actions(class: &Rc<Class>) -> Vec<(String, Json)> {
    let mut out: Vec<(String, Json)> = Vec::new();
    for c in class.mro() {
        for (mname, m) in &c.def.methods {
            if !m.public || mname.starts_with('.') || out.iter().any(|(n, _)| n == mname) {
                continue;
            }
            let mut entry = json!({"enabled": true, "name": mname, "title": mname});
            for (full, props) in meta_entries(&c, &m.meta) {
                let field = match full.as_str() {
                    "io.murano.metadata.Title" => "title",
                    "io.murano.metadata.Description" => "description",
                    "io.murano.metadata.HelpText" => "helpText",
                    _ => continue,
                };
                if let Some(t) = props.get("text").and_then(crate::syntax::Data::as_str) {
                    entry[field] = json!(t);
                }
            }
            out.push((mname.clone(), entry));
        }
    }
    out
}

/// A property whose meta says `io.murano.metadata.engine.Serialize: {as: reference}`.
fn serialized_as_reference(class: &Class, meta: &crate::syntax::Data) -> bool {
    use crate::syntax::Data;
    let entries: Vec<&Data> = match meta {
        Data::List(items, _) => items.iter().collect(),
        Data::Map(..) => vec![meta],
        _ => return false,
    };
    entries.iter().any(|e| {
        e.as_map().unwrap_or(&[]).iter().any(|(k, v)| {
            let name = k.key_text().unwrap_or_default();
            let full = class.def.namespaces.resolve(name).unwrap_or_default();
            full == "io.murano.metadata.engine.Serialize"
                && v.get("as").and_then(Data::as_str) == Some("reference")
        })
    })
}

impl Rt {
    /// Lay out the tree of `root` (seen as `class`) in `style`: every object
    /// placed, references left as such.
    fn write_tree(
        &self,
        root: &Rc<Object>,
        class: &Rc<Class>,
        style: Style,
    ) -> Result<(Writer<'_>, Tree), Exc> {
        let top_parent = root.owner.borrow().clone();
        let mut w = Writer {
            rt: self,
            style,
            top_parent,
            written: HashSet::new(),
            walk: Walk::writing(&self.limits, "object model"),
            failed: None,
        };
        let (mut tree, mut pending) = w.object(root, class);
        while pending && w.failed.is_none() {
            pending = w.place(&mut tree);
        }
        match w.failed.take() {
            Some(e) => Err(e),
            None => Ok((w, tree)),
        }
    }

    /// The deployment tree as JSON, with `_actions` (`Objects`) and without
    /// (`ObjectsCopy`), and the ids of the objects written.
    fn deployment_json(&self, root: &Rc<Object>) -> Result<(Json, Json, HashSet<String>), Exc> {
        let class = root.class.clone();
        let (w, tree) = self.write_tree(root, &class, Style::Deployment)?;
        let mut actions = Some(ActionCache::default());
        let mut walk = Walk::writing(&self.limits, "object model");
        let objects = w.finish_json(&tree, &mut actions, &mut walk)?;
        let copy = w.finish_json(&tree, &mut None, &mut walk)?;
        let null = || Json::Null;
        Ok((
            objects.unwrap_or_else(null),
            copy.unwrap_or_else(null),
            w.written,
        ))
    }

    /// The `serialize` reply: `Objects`, `ObjectsCopy` and `Attributes`.
    /// Fails when the model nests deeper than `MAX_DEPTH` or a session
    /// limit passes while it is written (a value sharing its parts can be
    /// exponentially larger written out than in memory).
    pub fn serialize_model(&self) -> Result<Json, Exc> {
        let Some(root) = self.objects.root() else {
            return Ok(json!({"Objects": null, "ObjectsCopy": null, "Attributes": []}));
        };
        let (objects, copy, written) = self.deployment_json(&root)?;
        let mut attrs = Vec::new();
        for (i, t, n, v) in self.objects.attributes().iter() {
            if written.contains(i) {
                attrs.push(json!([i, t, n, self.encode(v)?]));
            }
        }
        let mut out = serde_json::Map::new();
        out.insert("Objects".into(), objects);
        out.insert("ObjectsCopy".into(), copy);
        out.insert("Attributes".into(), Json::Array(attrs));
        Ok(Json::Object(out))
    }

    /// A method's result as JSON, refused like a model when it nests deeper
    /// than `MAX_DEPTH` (it would not read back) or
    /// a session limit passes while it is written.
    pub fn encode_result(&self, v: &Value) -> Result<Json, Exc> {
        self.encode_in(v, &mut Walk::writing(&self.limits, "result"))
    }

    /// A written tree as JSON: dicts are objects whatever their keys look like.
    fn plain_json(&self, v: &Value, walk: &mut Walk<'_>) -> Result<Json, Exc> {
        Ok(match v {
            Value::Dict(d) => walk.nested(|walk| {
                let mut out = serde_json::Map::with_capacity(d.len());
                for (k, x) in d.iter() {
                    out.insert(self.limits.py_str(k)?, self.plain_json(x, walk)?);
                }
                Ok(Json::Object(out))
            })?,
            Value::List(l) => walk.nested(|walk| {
                let items: Result<Vec<Json>, Exc> =
                    l.iter().map(|x| self.plain_json(x, walk)).collect();
                Ok(Json::Array(items?))
            })?,
            other => self.encode_in(other, walk)?,
        })
    }

    /// `dump(obj, serializationType, ignoreUpcasts)`: Serializable, Mixed or Inline.
    pub(super) fn dump(&self, v: &Value, kind: &str, ignore_upcasts: bool) -> Result<Value, Exc> {
        let style = match kind {
            "Serializable" => Style::Serializable,
            "Mixed" => Style::Mixed,
            "Inline" => Style::Inline,
            _ => {
                return Err(Exc::engine(
                    EngineExc::ValueError,
                    "Invalid Serialization Type",
                ))
            }
        };
        let Some((o, cast)) = as_object(v) else {
            return Ok(v.clone());
        };
        let class = match cast {
            Some(c) if !ignore_upcasts => c,
            _ => o.class.clone(),
        };
        Ok(Writer::finish(self.write_tree(&o, &class, style)?.1))
    }
}
