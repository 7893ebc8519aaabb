//! The deployment serializer: the object model written back as `Objects`,
//! `ObjectsCopy` and `Attributes`.
//!
//! Placement follows the reference engine. An object is written in full where
//! its owner holds it; elsewhere it is a reference. A referenced object that no
//! owner wrote (its owner is outside the tree) is written in full at the first
//! reference met in a later pass, and references to objects never written are
//! dropped.

use super::model::meta_entries;
use super::types::*;
use super::Rt;
use serde_json::{json, Map, Value as Json};
use std::collections::HashSet;
use std::rc::Rc;
use vetro_yaql::Value;

/// A serialized tree whose object references are not placed yet.
enum Tree {
    Leaf(Json),
    List(Vec<Tree>),
    Map(Vec<(String, Tree)>),
    Ref(Rc<Object>),
}

struct Writer<'a> {
    rt: &'a Rt,
    actions: bool,
    written: HashSet<String>,
}

fn same_object(a: Option<&Rc<Object>>, b: Option<&Rc<Object>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Rc::ptr_eq(a, b),
        (None, None) => true,
        _ => false,
    }
}

impl Writer<'_> {
    /// First pass over a value held by `parent`; true when references are left.
    fn value(&mut self, v: &Value, parent: Option<&Rc<Object>>) -> (Tree, bool) {
        if let Some((o, _)) = as_object(v) {
            let owner = o.owner.borrow().clone();
            if !same_object(owner.as_ref(), parent) || self.written.contains(&o.id) {
                return (Tree::Ref(o), true);
            }
            return self.object(&o);
        }
        let mut pending = false;
        let mut item = |x: &Value| {
            let (t, p) = self.value(x, parent);
            pending |= p;
            t
        };
        let tree = match v {
            Value::List(l) => Tree::List(l.iter().map(&mut item).collect()),
            Value::Set(s) => Tree::List(s.iter().map(&mut item).collect()),
            Value::Dict(d) => Tree::Map(d.iter().map(|(k, x)| (k.py_str(), item(x))).collect()),
            other => Tree::Leaf(self.rt.encode(other)),
        };
        (tree, pending)
    }

    fn object(&mut self, o: &Rc<Object>) -> (Tree, bool) {
        self.written.insert(o.id.clone());
        let mut fields = vec![("?".to_string(), Tree::Leaf(self.header(o)))];
        let mut pending = false;
        let props: Vec<(String, Value)> = o
            .props
            .borrow()
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        for (k, v) in props {
            let usage = o.class.find_property(&k).first().map(|(_, p)| p.usage);
            if usage.is_some_and(|u| u.serialized()) {
                let (t, p) = self.value(&v, Some(o));
                pending |= p;
                fields.push((k, t));
            }
        }
        (Tree::Map(fields), pending)
    }

    fn header(&self, o: &Rc<Object>) -> Json {
        let mut header = Map::new();
        header.insert("type".into(), json!(o.class.versioned_name()));
        header.insert("id".into(), json!(o.id));
        header.insert("name".into(), self.rt.encode(&o.name.borrow()));
        header.insert("metadata".into(), self.rt.encode(&o.metadata.borrow()));
        if o.destroyed.get() {
            header.insert("destroyed".into(), json!(true));
        }
        let subs: Vec<Json> = o
            .subscribers
            .borrow()
            .iter()
            .filter(|(s, _)| !s.destroyed.get())
            .map(|(s, h)| json!({"subscriber": s.id, "handler": h}))
            .collect();
        if !subs.is_empty() {
            header.insert("dependencies".into(), json!({"onDestruction": subs}));
        }
        if self.actions {
            header.insert("_actions".into(), Json::Object(actions(o)));
        }
        Json::Object(header)
    }

    /// A later pass: write in full the referenced objects nobody wrote yet.
    fn place(&mut self, t: &mut Tree) -> bool {
        match t {
            Tree::Leaf(_) => false,
            Tree::Ref(o) if self.written.contains(&o.id) => false,
            Tree::Ref(o) => {
                let o = o.clone();
                let (full, pending) = self.object(&o);
                *t = full;
                pending
            }
            Tree::List(items) => items.iter_mut().fold(false, |p, x| self.place(x) | p),
            Tree::Map(fields) => fields.iter_mut().fold(false, |p, (_, x)| self.place(x) | p),
        }
    }

    /// The final form: references to written objects become ids, others go.
    fn finish(&self, t: Tree) -> Option<Json> {
        Some(match t {
            Tree::Leaf(j) => j,
            Tree::Ref(o) => match self.written.contains(&o.id) {
                true => json!(o.id),
                false => return None,
            },
            Tree::List(items) => Json::Array(items.into_iter().filter_map(|x| self.finish(x)).collect()),
            Tree::Map(fields) => Json::Object(
                fields
                    .into_iter()
                    .filter_map(|(k, x)| self.finish(x).map(|j| (k, j)))
                    .collect(),
            ),
        })
    }
}

/// `_actions` of an object: every public method, titled by its meta.
fn actions(o: &Rc<Object>) -> Map<String, Json> {
    let mut acts = Map::new();
    for c in o.class.mro() {
        for (mname, m) in &c.def.methods {
            if !m.public || mname.starts_with('.') {
                continue;
            }
            let mut a = json!({"enabled": true, "name": mname, "title": mname});
            for (full, props) in meta_entries(&c, &m.meta) {
                let key = match full.as_str() {
                    "io.murano.metadata.Title" => "title",
                    "io.murano.metadata.Description" => "description",
                    "io.murano.metadata.HelpText" => "helpText",
                    _ => continue,
                };
                if let Some(t) = props.get("text").and_then(crate::syntax::Data::as_str) {
                    a[key] = json!(t);
                }
            }
            acts.entry(format!("{}_{mname}", o.id)).or_insert(a);
        }
    }
    acts
}

impl Rt {
    /// The model tree under `root` and the ids of the objects written in it.
    fn serialize_tree(&self, root: &Rc<Object>, actions: bool) -> (Json, HashSet<String>) {
        let mut w = Writer {
            rt: self,
            actions,
            written: HashSet::new(),
        };
        let owner = root.owner.borrow().clone();
        let (mut tree, mut pending) = w.value(&root.value(), owner.as_ref());
        while pending {
            pending = w.place(&mut tree);
        }
        let json = w.finish(tree).unwrap_or(Json::Null);
        (json, w.written)
    }

    /// The `serialize` reply: `Objects`, `ObjectsCopy` and `Attributes`.
    pub fn serialize_model(&self) -> Json {
        let Some(root) = self.root.borrow().clone() else {
            return json!({"Objects": null, "ObjectsCopy": null, "Attributes": []});
        };
        let (objects, written) = self.serialize_tree(&root, true);
        let (copy, _) = self.serialize_tree(&root, false);
        let attrs: Vec<Json> = self
            .attributes
            .borrow()
            .iter()
            .filter(|(id, ..)| written.contains(id))
            .map(|(i, t, n, v)| json!([i, t, n, self.encode(v)]))
            .collect();
        json!({"Objects": objects, "ObjectsCopy": copy, "Attributes": attrs})
    }
}
