//! The object store of a session: every live object by id, the root of the
//! loaded model, object ids, construction batches (which fix the order in
//! which objects are destroyed together), the values of static properties,
//! and what the session keeps per object: attributes, the exceptions behind
//! exception objects, interned `typeinfo()` values, and the traces of
//! `trace()`.
//!
//! Collecting garbage and destroying objects run methods, so they are the
//! executor's (`gc.rs`), over this store.

use super::types::{Exc, Object};
use ahash::AHashMap as HashMap;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use vetro_yaql::Value;

/// An attribute record: (object id, class name, attribute name, value).
type Attribute = (String, String, String, Value);

/// The objects of a session.
pub(super) struct ObjectStore {
    /// Live objects by the order they were stored in (a sequence number),
    /// and that number by id: removing one is cheap (an index map's ordered
    /// removal shifts the rest, which made destroying n objects quadratic).
    by_seq: RefCell<BTreeMap<u64, Rc<Object>>>,
    seq_of: RefCell<HashMap<String, u64>>,
    next_seq: Cell<u64>,
    /// State of the id generator.
    id_seed: Cell<u64>,
    /// The root object of the loaded model.
    root: RefCell<Option<Rc<Object>>>,
    /// Objects created by each running construction batch.
    batches: RefCell<Vec<Vec<Rc<Object>>>>,
    /// Count of settled objects (the order of [`Object::settled`]).
    settle_seq: Cell<u64>,
    /// `setAttr` values, serialized with the model.
    attributes: RefCell<Vec<Attribute>>,
    /// Exception objects bound by `Catch As`, to their exceptions.
    exc_objects: RefCell<HashMap<String, Exc>>,
    /// Interned `typeinfo()` objects, by class name (their identity shows).
    type_infos: RefCell<HashMap<String, Value>>,
    /// Values given to `trace()`.
    traces: RefCell<Vec<Value>>,
    /// Static property values: by declaring class name, by property name.
    statics: RefCell<HashMap<String, HashMap<String, Value>>>,
}

impl Default for ObjectStore {
    fn default() -> ObjectStore {
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(7);
        ObjectStore {
            by_seq: RefCell::new(BTreeMap::new()),
            seq_of: RefCell::new(HashMap::new()),
            next_seq: Cell::new(0),
            id_seed: Cell::new(seed | 1),
            root: RefCell::new(None),
            batches: RefCell::new(Vec::new()),
            settle_seq: Cell::new(0),
            attributes: RefCell::new(Vec::new()),
            exc_objects: RefCell::new(HashMap::new()),
            type_infos: RefCell::new(HashMap::new()),
            traces: RefCell::new(Vec::new()),
            statics: RefCell::new(HashMap::new()),
        }
    }
}

impl ObjectStore {
    // ----- objects -----

    /// The live object with id `id`.
    pub(super) fn get(&self, id: &str) -> Option<Rc<Object>> {
        let seq = *self.seq_of.borrow().get(id)?;
        self.by_seq.borrow().get(&seq).cloned()
    }

    /// Store `o` under its id.
    pub(super) fn insert(&self, o: &Rc<Object>) {
        let seq = self.next_seq.get();
        self.next_seq.set(seq + 1);
        if let Some(old) = self.seq_of.borrow_mut().insert(o.id.clone(), seq) {
            self.by_seq.borrow_mut().remove(&old);
        }
        self.by_seq.borrow_mut().insert(seq, o.clone());
    }

    /// Take the object with id `id` out of the store.
    pub(super) fn remove(&self, id: &str) {
        if let Some(seq) = self.seq_of.borrow_mut().remove(id) {
            self.by_seq.borrow_mut().remove(&seq);
        }
    }

    /// Ids of the stored objects.
    pub(super) fn ids(&self) -> ahash::AHashSet<String> {
        self.seq_of.borrow().keys().cloned().collect()
    }

    /// The stored objects, in the order they were stored.
    pub(super) fn all(&self) -> Vec<Rc<Object>> {
        self.by_seq.borrow().values().cloned().collect()
    }

    /// Empty the store (the session ends), returning what it held.
    pub(super) fn take_all(&mut self) -> Vec<Rc<Object>> {
        self.seq_of.get_mut().clear();
        std::mem::take(self.by_seq.get_mut())
            .into_values()
            .collect()
    }

    /// A fresh 32-hex-digit object id.
    pub(super) fn gen_id(&self) -> String {
        let mut out = String::with_capacity(32);
        for _ in 0..2 {
            let mut x = self.id_seed.get();
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.id_seed.set(x);
            out.push_str(&format!("{x:016x}"));
        }
        out
    }

    /// The root object of the loaded model.
    pub(super) fn root(&self) -> Option<Rc<Object>> {
        self.root.borrow().clone()
    }

    pub(super) fn set_root(&self, root: Option<Rc<Object>>) {
        *self.root.borrow_mut() = root;
    }

    // ----- static properties -----

    /// The value of static property `name` declared by class `class`, once
    /// it has one (its default is evaluated on first read).
    pub(super) fn static_value(&self, class: &str, name: &str) -> Option<Value> {
        self.statics.borrow().get(class)?.get(name).cloned()
    }

    /// Set static property `name` declared by class `class`.
    pub(super) fn set_static(&self, class: &str, name: &str, value: Value) {
        self.statics
            .borrow_mut()
            .entry(class.to_string())
            .or_default()
            .insert(name.to_string(), value);
    }

    /// Every static property value (roots of the object graph).
    pub(super) fn static_values(&self) -> Vec<Value> {
        self.statics
            .borrow()
            .values()
            .flat_map(|by_name| by_name.values().cloned())
            .collect()
    }

    // ----- construction batches -----

    /// Run `build` as one construction batch: the objects it creates (see
    /// [`ObjectStore::note_created`]) settle together when it ends, after
    /// any batch started inside it. The settle order is the order of the
    /// session store the reference keeps, which orders objects destroyed
    /// together.
    pub(super) fn construction_batch<T>(
        &self,
        build: impl FnOnce() -> Result<T, Exc>,
    ) -> Result<T, Exc> {
        self.batches.borrow_mut().push(Vec::new());
        let r = build();
        let created = self.batches.borrow_mut().pop().unwrap_or_default();
        for o in created {
            self.settle_seq.set(self.settle_seq.get() + 1);
            o.settled.set(self.settle_seq.get());
        }
        r
    }

    /// Record an object just created in the innermost construction batch.
    pub(super) fn note_created(&self, o: &Rc<Object>) {
        match self.batches.borrow_mut().last_mut() {
            Some(batch) => batch.push(o.clone()),
            None => {
                self.settle_seq.set(self.settle_seq.get() + 1);
                o.settled.set(self.settle_seq.get());
            }
        }
    }

    // ----- what the session keeps per object -----

    /// Set attribute `name` of `o` (`setAttr`).
    pub(super) fn set_attribute(&self, o: &Object, name: String, value: Value) {
        let mut attrs = self.attributes.borrow_mut();
        attrs.retain(|(i, _, n, _)| !(*i == o.id && *n == name));
        attrs.push((o.id.clone(), o.class.name.clone(), name, value));
    }

    /// Attribute `name` of the object with id `id` (`getAttr`).
    pub(super) fn attribute(&self, id: &str, name: &str) -> Option<Value> {
        self.attributes
            .borrow()
            .iter()
            .find(|(i, _, n, _)| i == id && n == name)
            .map(|(_, _, _, v)| v.clone())
    }

    /// Add an attribute record read from a deployment.
    pub(super) fn push_attribute(&self, a: Attribute) {
        self.attributes.borrow_mut().push(a);
    }

    /// Every attribute record, in the order they were set.
    pub(super) fn attributes(&self) -> Vec<Attribute> {
        self.attributes.borrow().clone()
    }

    /// Remember the exception an exception object stands for.
    pub(super) fn bind_exception(&self, id: &str, e: Exc) {
        self.exc_objects.borrow_mut().insert(id.to_string(), e);
    }

    /// The exception behind the exception object with id `id`.
    pub(super) fn exception_of(&self, id: &str) -> Option<Exc> {
        self.exc_objects.borrow().get(id).cloned()
    }

    /// The `typeinfo()` value of class `name`, made by `make` the first time.
    pub(super) fn type_info(&self, name: &str, make: impl FnOnce() -> Value) -> Value {
        if let Some(v) = self.type_infos.borrow().get(name) {
            return v.clone();
        }
        let v = make();
        self.type_infos
            .borrow_mut()
            .insert(name.to_string(), v.clone());
        v
    }

    /// Record a `trace()` value.
    pub(super) fn trace(&self, v: Value) {
        self.traces.borrow_mut().push(v);
    }

    /// The `trace()` values recorded since the last call.
    pub(super) fn take_traces(&self) -> Vec<Value> {
        self.traces.borrow_mut().drain(..).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::cloud::SimulatedCloud;
    use crate::host::{self, Library, Target};
    use crate::package::{Package, PackageFiles};
    use crate::runtime::types::CallKind;
    use serde_json::json;
    use vetro_diag::SourceMap;
    use vetro_yaql::Value;

    const MANIFEST: &str = "Format: MuranoPL/1.4\nFullName: demo.embed\nVersion: 1.0.0\nClasses:\n  demo.Main: Main.yaml\n";

    /// Static property values are the session's, kept in its object store: the
    /// program a library builds for a session does not change as code runs, and
    /// a second session starts from the property's default again.
    #[test]
    fn static_property_values_belong_to_the_session() {
        const STATICS: &str = r#"
Name: demo.Main
Properties:
  count: {Contract: $.int(), Usage: Static, Default: 10}
Methods:
  deploy:
    Body:
      - $.count: $.count + 1
      - Return: $.count
"#;
        let mut files = PackageFiles::new();
        files.insert("manifest.yaml".into(), MANIFEST.as_bytes().to_vec());
        files.insert("Classes/Main.yaml".into(), STATICS.as_bytes().to_vec());
        let mut sources = SourceMap::new();
        let package = Package::load_files("statics.zip", files, &mut sources);
        let lib = Library::from_packages(vec![package], sources);
        assert!(lib.problems().is_empty(), "{:?}", lib.problems());
        for _ in 0..2 {
            let host = lib.host(Box::new(SimulatedCloud::new()), None);
            let model = json!({"?": {"id": "e1", "type": "demo.Main"}});
            let outcome = host::run(&lib, &model, &Target::Root, "deploy", host).unwrap();
            assert_eq!(outcome.result.unwrap(), json!(11));
        }
        let rt = lib.session();
        let root = rt
            .load_model(&json!({"?": {"id": "s1", "type": "demo.Main"}}))
            .unwrap()
            .unwrap();
        assert_eq!(rt.objects.static_value("demo.Main", "count"), None);
        let r = rt.call_method(
            &root.value(),
            "deploy",
            Vec::new(),
            Vec::new(),
            CallKind::External,
        );
        assert_eq!(r.ok(), Some(Value::Int(11)));
        assert_eq!(
            rt.objects.static_value("demo.Main", "count"),
            Some(Value::Int(11))
        );
    }
}
