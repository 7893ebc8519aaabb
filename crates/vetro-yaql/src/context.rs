//! Contexts: chained scopes holding variables and function layers.

use crate::eval::Runtime;
use crate::func::FunctionDef;
use crate::value::Value;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

/// A scope. Lookups walk from the innermost context to the root; inner
/// bindings shadow outer ones.
pub struct Context {
    pub parent: Option<Rc<Context>>,
    vars: RefCell<Vec<(Rc<str>, Value)>>,
    funcs: RefCell<HashMap<Rc<str>, Vec<Rc<FunctionDef>>>>,
    /// Names whose candidates in this layer hide all outer layers.
    exclusive: RefCell<HashSet<Rc<str>>>,
    pub rt: Rc<Runtime>,
    fallback: RefCell<Option<Rc<MethodFallback>>>,
}

/// A host hook for `obj.name(args)` on a [`Value::Object`] receiver when no
/// layer defines `name`: gets the calling context, the method name, the
/// receiver and the unevaluated arguments (evaluate them with
/// [`crate::eval::eval`] in the given context).
pub type MethodFallback =
    dyn Fn(&Rc<Context>, &str, Value, Vec<crate::eval::CallArg>) -> crate::error::Result<Value>;

impl Context {
    /// A root context with its own runtime.
    pub fn root(rt: Rc<Runtime>) -> Rc<Context> {
        Rc::new(Context {
            parent: None,
            vars: RefCell::new(Vec::new()),
            funcs: RefCell::new(HashMap::new()),
            exclusive: RefCell::new(HashSet::new()),
            fallback: RefCell::new(None),
            rt,
        })
    }

    /// A child scope sharing the runtime.
    pub fn child(self: &Rc<Self>) -> Rc<Context> {
        Rc::new(Context {
            parent: Some(self.clone()),
            vars: RefCell::new(Vec::new()),
            funcs: RefCell::new(HashMap::new()),
            exclusive: RefCell::new(HashSet::new()),
            fallback: RefCell::new(None),
            rt: self.rt.clone(),
        })
    }

    /// A child scope with a different runtime (one evaluation's limits).
    pub fn child_with_runtime(self: &Rc<Self>, rt: Rc<Runtime>) -> Rc<Context> {
        Rc::new(Context {
            parent: Some(self.clone()),
            vars: RefCell::new(Vec::new()),
            funcs: RefCell::new(HashMap::new()),
            exclusive: RefCell::new(HashSet::new()),
            fallback: RefCell::new(None),
            rt,
        })
    }

    /// Bind a variable in this scope (`$name`; `$` is `1`).
    pub fn set(&self, name: &str, value: Value) {
        let name = normalize(name);
        let mut vars = self.vars.borrow_mut();
        if let Some(slot) = vars.iter_mut().find(|(n, _)| &**n == name) {
            slot.1 = value;
        } else {
            vars.push((Rc::from(name), value));
        }
    }

    /// Look a variable up through the chain.
    pub fn get(&self, name: &str) -> Option<Value> {
        let name = normalize(name);
        let mut c = self;
        loop {
            if let Some((_, v)) = c.vars.borrow().iter().find(|(n, _)| &**n == name) {
                return Some(v.clone());
            }
            match &c.parent {
                Some(p) => c = p,
                None => return None,
            }
        }
    }

    /// Install the method fallback for host objects (see [`MethodFallback`]).
    pub fn set_method_fallback(
        &self,
        f: impl Fn(&Rc<Context>, &str, Value, Vec<crate::eval::CallArg>) -> crate::error::Result<Value>
            + 'static,
    ) {
        *self.fallback.borrow_mut() = Some(Rc::new(f));
    }

    /// The nearest method fallback up the chain.
    pub fn method_fallback(&self) -> Option<Rc<MethodFallback>> {
        let mut c = self;
        loop {
            if let Some(f) = c.fallback.borrow().as_ref() {
                return Some(f.clone());
            }
            match &c.parent {
                Some(p) => c = p,
                None => return None,
            }
        }
    }

    /// Register a function in this layer.
    pub fn register(&self, f: FunctionDef) {
        let name = f.name.clone();
        self.funcs
            .borrow_mut()
            .entry(name)
            .or_default()
            .push(Rc::new(f));
    }

    /// Make `name` exclusive in this layer: outer layers are not consulted.
    pub fn set_exclusive(&self, name: &str) {
        self.exclusive.borrow_mut().insert(Rc::from(name));
    }

    /// Remove every function of that name from this layer.
    pub fn unregister(&self, name: &str) {
        self.funcs.borrow_mut().remove(name);
    }

    /// Candidate layers for `name`, innermost first.
    pub fn candidates(&self, name: &str, method: bool) -> Vec<Vec<Rc<FunctionDef>>> {
        let mut layers = Vec::new();
        let mut c = self;
        loop {
            let funcs = c.funcs.borrow();
            if !funcs.is_empty() {
                if let Some(list) = funcs.get(name) {
                    let layer: Vec<_> = list
                        .iter()
                        .filter(|f| {
                            if method {
                                f.form.method()
                            } else {
                                f.form.function()
                            }
                        })
                        .cloned()
                        .collect();
                    if !layer.is_empty() {
                        layers.push(layer);
                    }
                    if c.exclusive.borrow().contains(name) {
                        break;
                    }
                }
            }
            drop(funcs);
            match &c.parent {
                Some(p) => c = p,
                None => break,
            }
        }
        layers
    }

    /// True when some layer defines `name` in any form.
    pub fn has_function(&self, name: &str) -> bool {
        let mut c = self;
        loop {
            if c.funcs.borrow().contains_key(name) {
                return true;
            }
            match &c.parent {
                Some(p) => c = p,
                None => return false,
            }
        }
    }
}

fn normalize(name: &str) -> &str {
    let name = name.strip_prefix('$').unwrap_or(name);
    if name.is_empty() {
        "1"
    } else {
        name
    }
}
