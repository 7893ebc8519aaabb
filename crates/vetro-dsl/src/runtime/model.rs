//! Object models: loading (`?` headers, ids, owners, `.init`), serialization,
//! value encoding for the protocol, garbage collection and destruction.

use super::limits::SessionLimits;
use super::objects::ObjectStore;
use super::program::Program;
use super::types::*;
use super::walk::Walk;
use super::Rt;
use crate::syntax::PropUsage;
use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use serde_json::{json, Map, Value as Json};
use std::rc::Rc;
use vetro_yaql::value::{Address, Dict};
use vetro_yaql::Value;

fn header_type(s: &str) -> &str {
    let s = s.split('@').next().unwrap_or(s);
    s.split('/').next().unwrap_or(s)
}

fn dict_get<'a>(d: &'a Dict, k: &str) -> Option<&'a Value> {
    d.get(&Value::str(k))
}

/// A `?` header or an inline `{Type: {...}}` entry: the dict describes an object.
fn is_object_model(d: &Dict) -> bool {
    matches!(dict_get(d, "?"), Some(Value::Dict(_))) || d.keys().any(|k| as_type(k).is_some())
}

/// The owner key of an object model without an id, so that objects inside it
/// loaded on demand still find it as their owner. Model values live in the
/// pending index for the whole load, so their addresses stay unique.
fn anonymous_model_key(d: &Dict) -> String {
    format!("\0model@{:?}", d.address())
}

/// Index every object model of a tree by id (for references resolved
/// later): the first model given for an id wins. Each container is
/// visited once, without recursion: a model built by running code may
/// nest very deep or share its parts (`[$m, $m]` in a loop), and a shared
/// part seen again only meets ids already indexed.
fn index_models(
    v: &Value,
    owner: Option<&str>,
    out: &mut HashMap<String, (Value, Option<String>)>,
) {
    let mut seen: HashSet<Address> = HashSet::new();
    let mut todo: Vec<(&Value, Option<Rc<str>>)> = vec![(v, owner.map(Rc::from))];
    while let Some((v, owner)) = todo.pop() {
        let Some(id) = container_id(v) else { continue };
        if !seen.insert(id) {
            continue;
        }
        match v {
            Value::Dict(d) => {
                let mut me = owner.clone();
                let id = match dict_get(d, "?") {
                    Some(Value::Dict(h)) => dict_get(h, "id").cloned(),
                    _ if d.keys().any(|k| as_type(k).is_some()) => dict_get(d, "id").cloned(),
                    _ => None,
                };
                if let Some(Value::Str(id)) = &id {
                    out.entry(id.as_str().to_owned())
                        .or_insert_with(|| (v.clone(), owner.as_deref().map(str::to_string)));
                    me = Some(id.to_rc());
                } else if is_object_model(d) {
                    me = Some(Rc::from(anonymous_model_key(d)));
                }
                // In reverse, so that the first entries are indexed first.
                for (k, x) in d.iter().rev() {
                    if k.as_str() != Some("?") {
                        todo.push((x, me.clone()));
                    }
                }
            }
            Value::List(l) => todo.extend(l.iter().rev().map(|x| (x, owner.clone()))),
            _ => {}
        }
    }
}

impl Rt {
    /// An object by id: from the store, or built from the pending model index
    /// (inside a model load, as a shell that gets its properties later).
    pub(super) fn lookup_or_load(&self, id: &str, scope: &Rc<Class>) -> Option<Rc<Object>> {
        if let Some(o) = self.loading.built(id) {
            return Some(o);
        }
        if let Some(o) = self.objects.get(id) {
            return Some(o);
        }
        let (model, owner) = self.loading.model(id)?;
        let owner = owner.and_then(|o| self.loading.built(&o).or_else(|| self.objects.get(&o)));
        if !self.loading.in_scope() {
            return self.load_object(&model, owner, scope, None).ok();
        }
        let (obj, props) = self.shell(&model, owner, scope, None).ok()?;
        if !obj.initialized.get() {
            self.loading.defer_shell(&obj, props);
        }
        Some(obj)
    }

    /// Load a model tree: its ids are indexed so references inside it resolve.
    /// `fresh`: a separate load (`new()`), with its own id maps.
    pub(super) fn load_model_value(
        &self,
        model: &Value,
        owner: Option<Rc<Object>>,
        scope: &Rc<Class>,
        default_type: Option<&Rc<Class>>,
        fresh: bool,
    ) -> Result<Rc<Object>, Exc> {
        if !fresh && self.indexed(model) {
            return self
                .with_deferred_inits(|| self.load_object(model, owner, scope, default_type));
        }
        let mut index = HashMap::new();
        index_models(model, owner.as_ref().map(|o| o.id.as_str()), &mut index);
        if fresh {
            return self.loading.separately(index, || {
                self.with_deferred_inits(|| self.load_object(model, owner, scope, default_type))
            });
        }
        self.loading.add_models(index);
        self.with_deferred_inits(|| self.load_object(model, owner, scope, default_type))
    }

    /// Whether `model` is the model the load in progress indexed under its
    /// id: then the tree under it was indexed with it (a deployment's object
    /// met again through a property's contract).
    fn indexed(&self, model: &Value) -> bool {
        let Value::Dict(d) = model else { return false };
        let Some(Value::Dict(h)) = dict_get(d, "?") else {
            return false;
        };
        let Some(Value::Str(id)) = dict_get(h, "id") else {
            return false;
        };
        let address = container_id(model);
        self.loading.indexed_as(id, |m| container_id(m) == address)
    }

    /// Run a model load in a [`LoadScope`]: then the shells get their
    /// properties, then every `.init` runs, in the order the objects got their
    /// properties. Nested loads join the outermost one.
    fn with_deferred_inits<T>(&self, load: impl FnOnce() -> Result<T, Exc>) -> Result<T, Exc> {
        if self.loading.in_scope() {
            return load();
        }
        self.objects.construction_batch(|| {
            self.loading.open_scope();
            let loaded = load().and_then(|v| self.complete_shells().map(|()| v));
            let scope = self.loading.close_scope();
            let value = loaded?;
            for (obj, props) in scope.inits {
                obj.initializing.set(true);
                let r = self.run_init(&obj.class, &obj, &props);
                obj.initializing.set(false);
                r?;
            }
            Ok(value)
        })
    }

    fn complete_shells(&self) -> Result<(), Exc> {
        loop {
            let Some((obj, props)) = self.loading.next_shell() else {
                return Ok(());
            };
            if !obj.initialized.get() {
                self.init_object(&obj, &props)?;
            }
        }
    }

    /// Build (and initialise) an object from a model dict.
    pub(super) fn load_object(
        &self,
        model: &Value,
        owner: Option<Rc<Object>>,
        scope: &Rc<Class>,
        default_type: Option<&Rc<Class>>,
    ) -> Result<Rc<Object>, Exc> {
        let (obj, props) = self.shell(model, owner, scope, default_type)?;
        if !obj.initialized.get() {
            self.init_object(&obj, &props)?;
        }
        Ok(obj)
    }

    /// The object a model dict describes, with the property values it gives:
    /// the one already built for its id, or a new one without properties yet.
    fn shell(
        &self,
        model: &Value,
        owner: Option<Rc<Object>>,
        scope: &Rc<Class>,
        default_type: Option<&Rc<Class>>,
    ) -> Result<(Rc<Object>, Dict), Exc> {
        let Value::Dict(d) = model else {
            return Err(Exc::contract("Value is not an object model"));
        };
        let mut props = Dict::new();
        let (type_name, id, name, metadata) = match dict_get(d, "?") {
            Some(Value::Dict(h)) => {
                let entries = d.iter().filter(|(k, _)| k.as_str() != Some("?"));
                props = Dict::from_distinct(entries.map(|(k, v)| (k.clone(), v.clone())).collect());
                (
                    dict_get(h, "type").and_then(|t| match as_type(t) {
                        Some(c) => Some(c.name.clone()),
                        None => t.as_str().map(str::to_string),
                    }),
                    dict_get(h, "id").and_then(|t| t.as_str().map(str::to_string)),
                    dict_get(h, "name").cloned().unwrap_or(Value::Null),
                    dict_get(h, "metadata").cloned().unwrap_or(Value::Null),
                )
            }
            _ if !d.keys().any(|k| as_type(k).is_some()) => {
                // No header and no type key: every entry is a property of
                // an object of the default type (`id` and `name` included).
                props = d.clone();
                (None, None, Value::Null, Value::Null)
            }
            _ => {
                // Inline form {Type: {props}, id: .., name: ..}
                let mut t = None;
                let mut id = None;
                let mut name = Value::Null;
                let mut tclass = None;
                for (k, v) in d.iter() {
                    if let (Some(c), Value::Dict(p)) = (as_type(k), v) {
                        if tclass.is_none() {
                            tclass = Some(c);
                            props = p.clone();
                            continue;
                        }
                    }
                    match k.as_str() {
                        Some("id") => id = v.as_str().map(str::to_string),
                        Some("name") => name = v.clone(),
                        _ => {
                            props.insert(k.clone(), v.clone());
                        }
                    }
                }
                if let Some(c) = tclass {
                    t = Some(c.name.clone());
                }
                (t, id, name, Value::Null)
            }
        };
        let class = match &type_name {
            Some(t) if !t.contains(':') => self.program.class(header_type(t))?,
            Some(t) => self.program.resolve_type(scope, header_type(t))?,
            None => match default_type {
                Some(c) => c.clone(),
                None => return Err(Exc::contract("Object model has no type")),
            },
        };
        if let Some(mid) = &id {
            if let Some(existing) = self.loading.built(mid) {
                return Ok((existing, props));
            }
            if !self.loading.regen_ids() {
                if let Some(existing) = self.objects.get(mid) {
                    return Ok((existing, props));
                }
            }
        }
        let new_id = match &id {
            Some(mid) if !self.loading.regen_ids() => mid.clone(),
            _ => self.objects.gen_id(),
        };
        let obj = Object::new(new_id, class, owner);
        self.objects.note_created(&obj);
        let key = id.clone().unwrap_or_else(|| anonymous_model_key(d));
        self.loading.record_built(key, &obj);
        *obj.name.borrow_mut() = name;
        *obj.metadata.borrow_mut() = metadata;
        self.objects.insert(&obj);
        Ok((obj, props))
    }

    /// A new object of `class` with property values (for `new()`).
    pub(crate) fn new_object(
        &self,
        class: &Rc<Class>,
        owner: Option<Rc<Object>>,
        name: Value,
        props: &Dict,
    ) -> Result<Rc<Object>, Exc> {
        self.objects.construction_batch(|| {
            let obj = Object::new(self.objects.gen_id(), class.clone(), owner);
            self.objects.note_created(&obj);
            *obj.name.borrow_mut() = name;
            self.objects.insert(&obj);
            self.init_object(&obj, props)?;
            Ok(obj)
        })
    }

    /// Properties from the model / defaults / config, then the `.init` chain.
    pub(super) fn init_object(&self, obj: &Rc<Object>, props: &Dict) -> Result<(), Exc> {
        obj.initialized.set(true);
        obj.initializing.set(true);
        let r = self.init_object_inner(obj, props);
        obj.initializing.set(false);
        r
    }

    fn init_object_inner(&self, obj: &Rc<Object>, props: &Dict) -> Result<(), Exc> {
        let this = obj.value();
        let mut pending = Vec::new();
        let mut seen = HashSet::new();
        for class in obj.class.mro() {
            for (pname, p) in &class.def.properties {
                if p.usage == PropUsage::Static || !seen.insert(pname.clone()) {
                    continue;
                }
                if self.loading.dry_run_skips(pname) {
                    continue;
                }
                pending.push((class.clone(), pname.clone(), p.clone()));
            }
        }
        while !pending.is_empty() {
            let mut next = Vec::new();
            let mut last_err = None;
            let before = pending.len();
            for (class, pname, p) in pending {
                let given = dict_get(props, &pname).cloned();
                let config = self
                    .program
                    .config()
                    .get(&class.name)
                    .and_then(|c| c.get(&pname))
                    .map(|j| self.decode(j));
                let value = match p.usage {
                    PropUsage::Runtime => None,
                    PropUsage::Config => config,
                    _ => given.or(config),
                };
                let value = match value {
                    Some(v) => Ok(v),
                    None => match &p.default {
                        Some(d) => {
                            let ctx = self.program.frame_context(&class, &this);
                            self.eval_data(d, &ctx, self.program.engine_for(&class))
                        }
                        None => {
                            if p.usage == PropUsage::Runtime {
                                continue;
                            }
                            Ok(Value::Null)
                        }
                    },
                };
                let r = value.and_then(|v| self.set_property(&this, &pname, v, Some(&class), true));
                match r {
                    Ok(()) => {}
                    Err(e) if e.is(EngineExc::UninitializedPropertyAccessError) => {
                        last_err = Some(e);
                        next.push((class, pname, p));
                    }
                    // As the reference: a Runtime default that its contract
                    // rejects leaves the property unset; other errors stop.
                    Err(e)
                        if p.usage == PropUsage::Runtime
                            && e.is(EngineExc::ContractViolationException) => {}
                    Err(e) => return Err(e),
                }
            }
            if next.len() == before {
                return Err(last_err.unwrap_or_else(|| {
                    Exc::engine(
                        EngineExc::CircularExpressionDependenciesError,
                        "Circular dependency",
                    )
                }));
            }
            pending = next;
        }
        if self.loading.is_dry_run() || self.loading.defer_init(obj, props) {
            return Ok(());
        }
        self.run_init(&obj.class, obj, props)
    }

    fn run_init(&self, class: &Rc<Class>, obj: &Rc<Object>, props: &Dict) -> Result<(), Exc> {
        for p in &class.parents {
            self.run_init(p, obj, props)?;
        }
        if let Some(m) = class.def.methods.get(".init") {
            let mut kwargs = Vec::new();
            for a in &m.args {
                if let Some(v) = dict_get(props, &a.name) {
                    kwargs.push((a.name.clone(), v.clone()));
                }
            }
            self.invoke(class, m, obj.value(), Some(obj.clone()), Vec::new(), kwargs)?;
        }
        Ok(())
    }

    /// The `load` step: a deployment model or a bare root object.
    pub fn load_model(&self, model: &Json) -> Result<Option<Rc<Object>>, Exc> {
        const NULL: Json = Json::Null;
        let (objects, copy, attrs) = match model.get("Objects") {
            Some(objects) => (objects, model.get("ObjectsCopy"), model.get("Attributes")),
            None if model.get("ObjectsCopy").is_some() => (&NULL, model.get("ObjectsCopy"), None),
            None => (model, None, None),
        };
        if let Some(Json::Array(a)) = attrs {
            for rec in a {
                if let Some([id, t, n, v]) = rec.as_array().map(|r| r.as_slice()) {
                    self.objects.push_attribute((
                        id.as_str().unwrap_or_default().to_string(),
                        t.as_str().unwrap_or_default().to_string(),
                        n.as_str().unwrap_or_default().to_string(),
                        self.decode(v),
                    ));
                }
            }
        }
        let scope = self.program.class("io.murano.Object")?;
        let mut index = HashMap::new();
        let root_val = self.decode(objects);
        index_models(&root_val, None, &mut index);
        self.loading.start_deployment(index);
        let root = if objects.is_null() {
            Ok(None)
        } else {
            self.with_deferred_inits(|| self.load_object(&root_val, None, &scope, None))
                .map(Some)
        };
        self.loading.stop_keeping_ids();
        let root = root?;
        self.objects.set_root(root.clone());
        if let Some(copy) = copy {
            let copy_val = self.decode(copy);
            let mut idx = HashMap::new();
            index_models(&copy_val, None, &mut idx);
            let live: HashSet<String> = self.objects.ids();
            let mut doomed = Vec::new();
            let mut order = Vec::new();
            model_ids(&copy_val, &mut order);
            for id in order {
                if live.contains(&id) {
                    continue;
                }
                let Some((m, _)) = idx.get(&id) else { continue };
                // Objects known only to the previous deployment: rebuild without
                // `.init`, then destroy them.
                if let Ok(o) = shell_object(&self.program, &self.objects, m) {
                    doomed.push(o);
                }
            }
            for o in &doomed {
                let owner = idx
                    .get(&o.id)
                    .and_then(|(_, owner)| owner.clone())
                    .and_then(|oid| self.objects.get(&oid));
                *o.owner.borrow_mut() = owner;
            }
            // Model values through the contracts, now that every shell exists.
            for o in &doomed {
                self.loading.record_built(o.id.clone(), o);
            }
            for o in &doomed {
                let raw: Vec<(String, Value)> = o
                    .props
                    .borrow()
                    .iter()
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect();
                for (k, v) in raw {
                    let _ = self.set_property(&o.value(), &k, v, Some(&o.class), true);
                }
            }
            apply_dependencies(&self.objects, &self.limits, &root_val);
            apply_dependencies(&self.objects, &self.limits, &copy_val);
            self.destroy_objects(doomed);
        } else {
            apply_dependencies(&self.objects, &self.limits, &root_val);
        }
        self.loading.finish_deployment();
        Ok(root)
    }

    /// `template()`: validate a model by a dry-run load, keep it as a model.
    pub(super) fn template_value(
        &self,
        model: &Value,
        scope: &Rc<Class>,
        want: &Rc<Class>,
        default: &Rc<Class>,
        exclude: &Value,
        owner: Option<Rc<Object>>,
    ) -> Result<Value, Exc> {
        let excluded = self
            .items(exclude)?
            .iter()
            .map(|e| self.limits.py_str(e))
            .collect::<Result<Vec<String>, Exc>>()?;
        let is_excluded = |k: &Value| excluded.iter().any(|e| k.as_str() == Some(e.as_str()));
        let d = match model {
            Value::Dict(d) => d,
            // An object is a template too: its model as it stands.
            other => match as_object(other) {
                Some((obj, _)) => return self.template_of(&obj, want, &is_excluded),
                None => {
                    return Err(Exc::contract(format!(
                        "Value {} is not an object model",
                        self.limits.py_str(model)?
                    )))
                }
            },
        };
        let mut clean = Dict::new();
        for (k, v) in d.iter() {
            match (as_type(k), v) {
                (Some(_), Value::Dict(p)) => {
                    let p: Dict = p
                        .iter()
                        .filter(|(pk, _)| !is_excluded(pk))
                        .map(|(pk, pv)| (pk.clone(), pv.clone()))
                        .collect();
                    clean.insert(k.clone(), Value::dict(p));
                }
                _ => {
                    if matches!(k.as_str(), Some("?" | "id" | "name")) || !is_excluded(k) {
                        clean.insert(k.clone(), v.clone());
                    }
                }
            }
        }
        let obj = self.loading.dry_run(excluded.clone(), || {
            // Owned by the contract's owner, as the reference loads it:
            // defaults that look for their owners (`find()`) see them.
            self.load_model_value(&Value::dict(clean), owner, scope, Some(default), true)
        })?;
        self.objects.remove(&obj.id);
        self.template_of(&obj, want, &is_excluded)
    }

    /// An object of `want` dumped as `Mixed` (its id, every property with
    /// its default where none was given), without the excluded properties.
    fn template_of(
        &self,
        obj: &Rc<Object>,
        want: &Rc<Class>,
        is_excluded: &dyn Fn(&Value) -> bool,
    ) -> Result<Value, Exc> {
        if !obj.class.is_a(&want.name) {
            return Err(Exc::contract(format!(
                "Object of type {} is not compatible with requested type {}",
                obj.class.name, want.name
            )));
        }
        let dumped = self.dump(&obj.value(), "Mixed", true)?;
        let Value::Dict(dumped) = &dumped else {
            return Err(Exc::contract("Template is not an object model"));
        };
        let out: Dict = dumped
            .iter()
            .filter(|(k, _)| k.as_str() == Some("?") || !is_excluded(k))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        Ok(Value::dict(out))
    }

    // ----- protocol encoding -----

    /// A value in the protocol's JSON form (objects and types tagged,
    /// `$dict`/`$set`/`$float` where plain JSON falls short). Fails when it
    /// nests deeper than `MAX_DEPTH` or a session
    /// limit passes while it is written out (a value sharing its parts can be
    /// exponentially larger written out than in memory).
    pub fn encode(&self, v: &Value) -> Result<Json, Exc> {
        self.encode_in(v, &mut Walk::writing(&self.limits, "value"))
    }

    /// [`Rt::encode`] inside a walk that is already under way.
    pub(super) fn encode_in(&self, v: &Value, walk: &mut Walk<'_>) -> Result<Json, Exc> {
        if let Some((o, _)) = as_object(v) {
            return Ok(json!({"$object": {"type": o.class.name, "id": o.id}}));
        }
        if let Some(c) = as_type(v) {
            return Ok(json!({"$type": c.name}));
        }
        let all = |walk: &mut Walk<'_>, items: &mut dyn Iterator<Item = &Value>| {
            walk.nested(|walk| {
                items
                    .map(|x| self.encode_in(x, walk))
                    .collect::<Result<Vec<_>, _>>()
            })
        };
        Ok(match v {
            Value::Null => Json::Null,
            Value::Bool(b) => json!(b),
            Value::Int(i) => json!(i),
            Value::BigInt(b) => serde_json::from_str(&b.to_string()).unwrap_or(Json::Null),
            Value::Float(f) => {
                if f.is_finite() {
                    json!(f)
                } else {
                    json!({"$float": if f.is_nan() { "nan".to_string() } else if *f > 0.0 { "inf".to_string() } else { "-inf".to_string() }})
                }
            }
            Value::Str(s) => json!(&**s),
            Value::List(l) => Json::Array(all(walk, &mut l.iter())?),
            Value::Set(s) => json!({"$set": all(walk, &mut s.iter())?}),
            Value::Dict(d) => {
                let plain = d
                    .keys()
                    .all(|k| matches!(k, Value::Str(s) if !s.starts_with('$')));
                if plain {
                    walk.nested(|walk| {
                        let mut m = Map::new();
                        for (k, x) in d.iter() {
                            let k = k.as_str().unwrap_or_default().to_string();
                            m.insert(k, self.encode_in(x, walk)?);
                        }
                        Ok(Json::Object(m))
                    })?
                } else {
                    let pairs = walk.nested(|walk| {
                        d.iter()
                            .map(|(k, x)| {
                                let k = self.encode_in(k, walk)?;
                                Ok(json!([k, self.encode_in(x, walk)?]))
                            })
                            .collect::<Result<Vec<_>, Exc>>()
                    })?;
                    json!({ "$dict": pairs })
                }
            }
            Value::Iter(_) => match self.items(v) {
                Ok(items) => Json::Array(all(walk, &mut items.iter())?),
                Err(e) if super::limits::is_limit_error(&e) => return Err(e),
                Err(_) => Json::Null,
            },
            other => json!(other.py_str()),
        })
    }

    /// A value from the protocol's JSON form (the inverse of [`Rt::encode`]).
    pub fn decode(&self, j: &Json) -> Value {
        match j {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Number(n) => match n.as_i64() {
                Some(i) => Value::Int(i),
                None => Value::Float(n.as_f64().unwrap_or(0.0)),
            },
            Json::String(s) => Value::str(s),
            Json::Array(a) => Value::list(a.iter().map(|x| self.decode(x)).collect()),
            Json::Object(m) => {
                if m.len() == 1 {
                    if let Some(o) = m.get("$object") {
                        let id = o.get("id").and_then(Json::as_str).unwrap_or_default();
                        if let Some(obj) = self.objects.get(id) {
                            return obj.value();
                        }
                        return Value::str(id);
                    }
                    if let Some(Json::Array(items)) = m.get("$dict") {
                        let mut d = Dict::new();
                        for it in items {
                            if let Some([k, v]) = it.as_array().map(|a| a.as_slice()) {
                                d.insert(self.decode(k), self.decode(v));
                            }
                        }
                        return Value::dict(d);
                    }
                    if let Some(Json::Array(items)) = m.get("$set") {
                        return Value::set(items.iter().map(|x| self.decode(x)).collect());
                    }
                    if let Some(Json::String(t)) = m.get("$type") {
                        if let Ok(c) = self.program.class(t) {
                            return c.type_value();
                        }
                    }
                    if let Some(Json::String(f)) = m.get("$float") {
                        return Value::Float(f.parse().unwrap_or(f64::NAN));
                    }
                }
                // A JSON object's keys are distinct.
                let entries = m.iter().map(|(k, v)| (Value::str(k), self.decode(v)));
                Value::dict(Dict::from_distinct(entries.collect()))
            }
        }
    }
}

/// `?.dependencies.onDestruction` of a model tree as destruction subscriptions.
fn apply_dependencies(objects: &ObjectStore, limits: &SessionLimits, v: &Value) {
    match v {
        Value::Dict(d) => {
            if let Some(Value::Dict(h)) = dict_get(d, "?") {
                let publisher = dict_get(h, "id")
                    .and_then(Value::as_str)
                    .and_then(|id| objects.get(id));
                let deps = dict_get(h, "dependencies")
                    .and_then(|x| match x {
                        Value::Dict(dd) => dict_get(dd, "onDestruction").cloned(),
                        _ => None,
                    })
                    .unwrap_or(Value::Null);
                if let (Some(p), Value::List(items)) = (publisher, &deps) {
                    for it in items.iter() {
                        let Value::Dict(e) = it else { continue };
                        let sub = dict_get(e, "subscriber")
                            .and_then(Value::as_str)
                            .and_then(|id| objects.get(id));
                        let handler = dict_get(e, "handler")
                            .filter(|h| !h.is_null())
                            .and_then(|h| limits.py_str(h).ok());
                        if let Some(s) = sub {
                            let mut subs = p.subscribers.borrow_mut();
                            if !subs
                                .iter()
                                .any(|(x, hh)| Rc::ptr_eq(x, &s) && *hh == handler)
                            {
                                subs.push((s, handler));
                            }
                        }
                    }
                }
            }
            for (k, x) in d.iter() {
                if k.as_str() != Some("?") {
                    apply_dependencies(objects, limits, x);
                }
            }
        }
        Value::List(l) => l
            .iter()
            .for_each(|x| apply_dependencies(objects, limits, x)),
        _ => {}
    }
}

/// An object with its model properties set but no `.init` (for ObjectsCopy).
fn shell_object(
    program: &Program,
    objects: &ObjectStore,
    model: &Value,
) -> Result<Rc<Object>, Exc> {
    let Value::Dict(d) = model else {
        return Err(Exc::contract("not a model"));
    };
    let Some(Value::Dict(h)) = dict_get(d, "?") else {
        return Err(Exc::contract("not a model"));
    };
    let t = dict_get(h, "type")
        .and_then(|t| t.as_str().map(str::to_string))
        .unwrap_or_default();
    let id = dict_get(h, "id")
        .and_then(|t| t.as_str().map(str::to_string))
        .unwrap_or_default();
    let class = program.class(header_type(&t))?;
    let obj = Object::new(id, class, None);
    obj.initialized.set(true);
    for (k, v) in d.iter() {
        if let Some(k) = k.as_str() {
            if k != "?" {
                obj.props.borrow_mut().insert(k.to_string(), v.clone());
            }
        }
    }
    objects.insert(&obj);
    Ok(obj)
}

/// The `{MetaClass: {props}}` entries of a `Meta:` declaration, names resolved.
pub(super) fn meta_entries(
    class: &Class,
    meta: &crate::syntax::Data,
) -> Vec<(String, crate::syntax::Data)> {
    use crate::syntax::Data;
    let entries: Vec<&Data> = match meta {
        Data::List(items, _) => items.iter().collect(),
        Data::Map(..) => vec![meta],
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    for e in entries {
        for (k, v) in e.as_map().unwrap_or(&[]) {
            let name = k.key_text().unwrap_or_default();
            if let Ok(full) = class.def.namespaces.resolve(name) {
                out.push((full, v.clone()));
            }
        }
    }
    out
}

/// Whether a property's meta says `Serialize: {as: reference}`.
/// Ids of the `?` headers of a model tree, in document order.
fn model_ids(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Dict(d) => {
            if let Some(Value::Dict(h)) = dict_get(d, "?") {
                if let Some(Value::Str(id)) = dict_get(h, "id") {
                    if !out.iter().any(|x| **x == **id) {
                        out.push(id.to_string());
                    }
                }
            }
            for (k, x) in d.iter() {
                if k.as_str() != Some("?") {
                    model_ids(x, out);
                }
            }
        }
        Value::List(l) => l.iter().for_each(|x| model_ids(x, out)),
        _ => {}
    }
}

/// The address of a list, set or dict (to visit a shared one once).
pub(super) fn container_id(v: &Value) -> Option<Address> {
    Some(match v {
        Value::List(l) => l.address(),
        Value::Set(s) => Address::of(Rc::as_ptr(s)),
        Value::Dict(d) => d.address(),
        _ => return None,
    })
}

/// Objects mentioned anywhere inside a value.
///
/// Each container is visited once, without recursion: a value may share its
/// parts (`$l: [$l, $l]` in a loop doubles its written size at each step
/// but not its distinct containers) or nest very deep.
pub(super) fn collect_objects(v: &Value, out: &mut Vec<Rc<Object>>) {
    let mut seen: HashSet<Address> = HashSet::new();
    let mut todo: Vec<&Value> = vec![v];
    while let Some(v) = todo.pop() {
        if let Some((o, _)) = as_object(v) {
            out.push(o);
            continue;
        }
        let Some(id) = container_id(v) else { continue };
        if !seen.insert(id) {
            continue;
        }
        // Children in reverse, so they come off the stack in order.
        match v {
            Value::List(l) => todo.extend(l.iter().rev()),
            Value::Set(s) => todo.extend(s.iter().rev()),
            Value::Dict(d) => d.iter().rev().for_each(|(k, x)| todo.extend([x, k])),
            _ => {}
        }
    }
}
