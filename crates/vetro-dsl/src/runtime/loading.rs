//! The model load in progress (the loading itself is `model.rs`): the object
//! models of the tree by id, the objects built from them so far, whether
//! ids are kept or made fresh, the work deferred to the end of the load,
//! and how a load was asked for (a dry run for a template; the arguments of
//! an external call, whose models get no owner).

use super::types::Object;
use ahash::AHashMap as HashMap;
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use vetro_yaql::value::Dict;
use vetro_yaql::Value;

/// Object models by id, each with the id of its owner's model.
type ModelIndex = HashMap<String, (Value, Option<String>)>;

/// Work a model load leaves for later, so that loading never recurses along
/// references: objects named by id before their model was reached (built as
/// shells, given their properties once the tree is done), and the `.init`
/// calls, which run once every object of the model has its properties (with
/// the model values `.init` takes its arguments from).
#[derive(Default)]
pub(super) struct LoadScope {
    shells: VecDeque<(Rc<Object>, Dict)>,
    pub(super) inits: Vec<(Rc<Object>, Dict)>,
}

/// The state of the model load in progress.
pub(super) struct ModelLoad {
    /// Object models of the model being loaded, by id (references resolved on demand).
    models: RefCell<ModelIndex>,
    /// Objects built from the model being loaded, by model id.
    built: RefCell<HashMap<String, Rc<Object>>>,
    /// `new()` models get fresh ids; a loaded deployment keeps its ids.
    regen_ids: Cell<bool>,
    /// Dry-run loads (templates): no `.init`; these properties are not validated.
    dry_run: RefCell<Option<Vec<String>>>,
    /// The deferred work of the outermost load running (see [`LoadScope`]).
    scope: RefCell<Option<LoadScope>>,
    /// Arguments of an external call are being bound: their models get no owner.
    external_call: Cell<bool>,
}

impl Default for ModelLoad {
    fn default() -> ModelLoad {
        ModelLoad {
            models: RefCell::new(HashMap::new()),
            built: RefCell::new(HashMap::new()),
            regen_ids: Cell::new(true),
            dry_run: RefCell::new(None),
            scope: RefCell::new(None),
            external_call: Cell::new(false),
        }
    }
}

impl ModelLoad {
    // ----- models and the objects built from them -----

    /// The object model with id `id`, with its owner's id.
    pub(super) fn model(&self, id: &str) -> Option<(Value, Option<String>)> {
        self.models.borrow().get(id).cloned()
    }

    /// Add the models of another tree (ids known already stay as they are).
    pub(super) fn add_models(&self, index: ModelIndex) {
        let mut m = self.models.borrow_mut();
        for (k, v) in index {
            m.entry(k).or_insert(v);
        }
    }

    /// Whether the model indexed under `id` is one `is_it` accepts.
    pub(super) fn indexed_as(&self, id: &str, is_it: impl FnOnce(&Value) -> bool) -> bool {
        self.models.borrow().get(id).is_some_and(|(m, _)| is_it(m))
    }

    /// The object built from the model with key `key`.
    pub(super) fn built(&self, key: &str) -> Option<Rc<Object>> {
        self.built.borrow().get(key).cloned()
    }

    pub(super) fn record_built(&self, key: String, o: &Rc<Object>) {
        self.built.borrow_mut().insert(key, o.clone());
    }

    /// Run `load` over the models of `index` alone, with fresh ids (a `new()`
    /// load inside another); the outer load's state comes back afterwards.
    pub(super) fn separately<T>(&self, index: ModelIndex, load: impl FnOnce() -> T) -> T {
        let saved_models = self.models.replace(index);
        let saved_built = self.built.replace(HashMap::new());
        let saved_regen = self.regen_ids.replace(true);
        let r = load();
        *self.models.borrow_mut() = saved_models;
        *self.built.borrow_mut() = saved_built;
        self.regen_ids.set(saved_regen);
        r
    }

    /// Start loading a deployment: the models of `index`, ids kept.
    pub(super) fn start_deployment(&self, index: ModelIndex) {
        *self.models.borrow_mut() = index;
        self.built.borrow_mut().clear();
        self.regen_ids.set(false);
    }

    /// The deployment's objects are built: later loads make fresh ids.
    pub(super) fn stop_keeping_ids(&self) {
        self.regen_ids.set(true);
    }

    /// The deployment is loaded: forget its models and what was built.
    pub(super) fn finish_deployment(&self) {
        self.models.borrow_mut().clear();
        self.built.borrow_mut().clear();
    }

    /// Whether models get fresh ids.
    pub(super) fn regen_ids(&self) -> bool {
        self.regen_ids.get()
    }

    /// Empty the map of built objects (the session ends), returning them.
    pub(super) fn take_built(&mut self) -> Vec<Rc<Object>> {
        self.built.get_mut().drain().map(|(_, o)| o).collect()
    }

    // ----- deferred work -----

    /// Whether a load is running (its work is deferred to its end).
    pub(super) fn in_scope(&self) -> bool {
        self.scope.borrow().is_some()
    }

    /// The outermost load starts.
    pub(super) fn open_scope(&self) {
        *self.scope.borrow_mut() = Some(LoadScope::default());
    }

    /// The outermost load ends: the work still deferred.
    pub(super) fn close_scope(&self) -> LoadScope {
        self.scope.borrow_mut().take().unwrap_or_default()
    }

    /// Give `obj` its properties at the end of the running load.
    pub(super) fn defer_shell(&self, obj: &Rc<Object>, props: Dict) {
        if let Some(ls) = self.scope.borrow_mut().as_mut() {
            ls.shells.push_back((obj.clone(), props));
        }
    }

    /// The next shell waiting for its properties.
    pub(super) fn next_shell(&self) -> Option<(Rc<Object>, Dict)> {
        self.scope
            .borrow_mut()
            .as_mut()
            .and_then(|ls| ls.shells.pop_front())
    }

    /// Run `.init` of `obj` at the end of the running load; `false` when no
    /// load is running.
    pub(super) fn defer_init(&self, obj: &Rc<Object>, props: &Dict) -> bool {
        match self.scope.borrow_mut().as_mut() {
            Some(ls) => {
                ls.inits.push((obj.clone(), props.clone()));
                true
            }
            None => false,
        }
    }

    // ----- how the load was asked for -----

    /// Run `load` as a dry run that leaves the `excluded` properties alone.
    pub(super) fn dry_run<T>(&self, excluded: Vec<String>, load: impl FnOnce() -> T) -> T {
        let saved = self.dry_run.replace(Some(excluded));
        let r = load();
        *self.dry_run.borrow_mut() = saved;
        r
    }

    pub(super) fn is_dry_run(&self) -> bool {
        self.dry_run.borrow().is_some()
    }

    /// Whether a dry run leaves property `name` alone.
    pub(super) fn dry_run_skips(&self, name: &str) -> bool {
        self.dry_run
            .borrow()
            .as_ref()
            .is_some_and(|skip| skip.iter().any(|s| s == name))
    }

    /// Whether the arguments being bound come from an external call.
    pub(super) fn external_call(&self) -> bool {
        self.external_call.get()
    }

    pub(super) fn set_external_call(&self, external: bool) {
        self.external_call.set(external);
    }

    /// Whether an external call is starting, clearing the mark.
    pub(super) fn take_external_call(&self) -> bool {
        self.external_call.replace(false)
    }
}
