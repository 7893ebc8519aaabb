//! The program of a session: what it runs, set up once and not changed by
//! running code. The YAQL engines (shared by every session of the class
//! set, see `engines.rs`; the session only puts its handle and limits over
//! them), the class source with its natives, the configuration, and caches
//! derived from the code alone: classes built from their definitions on
//! first use and native plans of contract expressions. (Static property
//! values are the session's, in its object store: see
//! [`ObjectStore::static_value`](super::objects::ObjectStore::static_value).)

use super::contract_plan::{self, PlanCache, Step};
use super::engine_set::Engines;
use super::limits::Watch;
use super::reg::{RtHandle, RT_VAR};
use super::types::*;
use super::{ClassSource, FrameInfo, Rt, FRAME_VAR};
use crate::syntax::{ClassDef, Expr};
use ahash::AHashMap as HashMap;
use std::borrow::Cow;
use std::cell::{OnceCell, RefCell};
use std::rc::{Rc, Weak};
use std::sync::Arc;
use vetro_yaql::{Context, Engine, Expression, FunctionDef, Session, Value};

/// What a session runs.
pub(super) struct Program {
    /// The YAQL engine of format 1.0/1.1 classes: the standard library with
    /// the legacy layer, dicts iterable (Murano's `ENGINE_10`).
    yaql: Session,
    /// The YAQL engine of format 1.2+ classes: the standard library alone
    /// (Murano's `ENGINE_12`).
    yaql_std: Session,
    source: ClassSource,
    /// Property values by class name for `Usage: Config` properties.
    config: serde_json::Value,
    /// The sessions contract expressions are evaluated in, over the class
    /// set's contract engines (legacy, standard; made when the first
    /// contract runs through YAQL).
    contracts: OnceCell<[Session; 2]>,
    /// What a session over one of the class set's engines is made of.
    parts: SessionParts,
    /// Native plans of contract expressions, by text (`None`: use YAQL).
    contract_plans: RefCell<PlanCache>,
    /// Classes built so far, by name.
    classes: RefCell<HashMap<String, Rc<Class>>>,
    /// Expressions compiled for this session's engines when their kept
    /// form is another engine's (definitions shared by class sets), by
    /// tree and engine.
    recompiled: RefCell<HashMap<(usize, usize), Expression>>,
    /// The session's limits, for the text of values in errors.
    watch: Watch,
}

impl Program {
    /// The program of session `me` over `source`; its YAQL evaluations stop
    /// when `watch` says a limit passed.
    pub(super) fn new(
        source: ClassSource,
        config: serde_json::Value,
        watch: &Watch,
        me: &Weak<Rt>,
    ) -> Program {
        let engines = source.engines.get(&source);
        let mut limits = vetro_yaql::Limits::default();
        let yaql_watch = watch.clone();
        limits.interrupt = Some(vetro_yaql::Interrupt::new(move |_| yaql_watch.keep_going()));
        watch.yaql_memory(&mut limits);
        let parts = SessionParts {
            engines,
            limits,
            me: me.clone(),
            functions: RefCell::default(),
        };
        Program {
            yaql: parts.session(&parts.engines.legacy),
            yaql_std: parts.session(&parts.engines.std),
            parts,
            source,
            config,
            watch: watch.clone(),
            contracts: OnceCell::new(),
            contract_plans: RefCell::new(HashMap::new()),
            classes: RefCell::new(HashMap::new()),
            recompiled: RefCell::default(),
        }
    }

    /// The engine of format 1.0/1.1 classes.
    pub(super) fn yaql(&self) -> &Session {
        &self.yaql
    }

    /// The class definitions and natives the program runs.
    pub(super) fn source(&self) -> &ClassSource {
        &self.source
    }

    /// The configuration: property values by class name for `Usage: Config`
    /// properties.
    pub(super) fn config(&self) -> &serde_json::Value {
        &self.config
    }

    /// The session the contract expressions of `class` are evaluated in
    /// (by its package's format, as [`Program::engine_for`]).
    pub(super) fn contracts_for(&self, class: &Class) -> &Session {
        let [legacy, std] = self.contracts();
        if class.pkg.legacy() {
            legacy
        } else {
            std
        }
    }

    /// The context of contract expressions (of format 1.0/1.1 classes):
    /// what they can call.
    pub(super) fn contract_layer(&self) -> &Rc<Context> {
        self.contracts()[0].host_context()
    }

    fn contracts(&self) -> &[Session; 2] {
        self.contracts.get_or_init(|| {
            let engines = &self.parts.engines;
            [
                self.parts.session(&engines.contracts_legacy),
                self.parts.session(&engines.contracts_std),
            ]
        })
    }

    // ----- classes -----

    pub(super) fn class(&self, name: &str) -> Result<Rc<Class>, Exc> {
        if let Some(c) = self.classes.borrow().get(name) {
            return Ok(c.clone());
        }
        // Ancestors first, without recursion (a long `Extends` chain is
        // untrusted input), refusing cycles.
        for n in self.resolution_order(name)? {
            self.build_class(&n)?;
        }
        self.classes.borrow().get(name).cloned().ok_or_else(|| {
            Exc::engine(
                EngineExc::NoClassFound,
                format!("Class \"{name}\" is not found"),
            )
        })
    }

    fn find_def(&self, name: &str) -> Result<(Arc<ClassDef>, Arc<PkgInfo>), Exc> {
        let found = self.source.defs.get(name).cloned().or_else(|| {
            name.strip_prefix("io.murano.extensions.")
                .and_then(|n| self.source.defs.get(n).cloned())
        });
        found.ok_or_else(|| {
            Exc::engine(
                EngineExc::NoClassFound,
                format!("Class \"{name}\" is not found"),
            )
        })
    }

    /// The direct parents of a class definition by name.
    fn parent_names(def: &ClassDef) -> Vec<String> {
        if def.extends.is_empty() && def.name != "io.murano.Object" {
            vec!["io.murano.Object".to_string()]
        } else {
            def.extends.clone()
        }
    }

    /// Classes to build so that `name` can be: its unbuilt ancestors, parents
    /// before children, `name` last. Fails on a cycle of `Extends`.
    fn resolution_order(&self, name: &str) -> Result<Vec<String>, Exc> {
        let mut order = Vec::new();
        let mut done = std::collections::HashSet::new();
        // (class, its parents, next parent to visit); the path is the stack.
        let mut path: Vec<(String, Vec<String>, usize)> = Vec::new();
        let (def, _) = self.find_def(name)?;
        path.push((name.to_string(), Self::parent_names(&def), 0));
        while let Some((_, parents, next)) = path.last_mut() {
            let Some(parent) = parents.get(*next).cloned() else {
                let (n, _, _) = path.pop().expect("path is not empty");
                done.insert(n.clone());
                order.push(n);
                continue;
            };
            *next += 1;
            if done.contains(&parent) || self.classes.borrow().contains_key(&parent) {
                continue;
            }
            if let Some(at) = path.iter().position(|(n, _, _)| *n == parent) {
                let mut cycle: Vec<&str> = path[at..].iter().map(|(n, _, _)| n.as_str()).collect();
                cycle.push(&parent);
                return Err(Exc::engine(
                    EngineExc::CircularInheritanceError,
                    format!("class {parent} extends itself: {}", cycle.join(" -> ")),
                ));
            }
            let (def, _) = self.find_def(&parent)?;
            path.push((parent, Self::parent_names(&def), 0));
        }
        Ok(order)
    }

    /// Build class `name` once its parents are built.
    fn build_class(&self, name: &str) -> Result<Rc<Class>, Exc> {
        if let Some(c) = self.classes.borrow().get(name) {
            return Ok(c.clone());
        }
        let (def, pkg) = self.find_def(name)?;
        let mut parents = Vec::new();
        for p in Self::parent_names(&def) {
            let parent = self.classes.borrow().get(&p).cloned();
            match parent {
                Some(c) => parents.push(c),
                None => parents.push(self.class(&p)?),
            }
        }
        let mut ancestors: Vec<Rc<Class>> = Vec::new();
        let mut queue: std::collections::VecDeque<Rc<Class>> = parents.iter().cloned().collect();
        while let Some(c) = queue.pop_front() {
            if ancestors.iter().any(|a| a.name == c.name) {
                continue;
            }
            queue.extend(c.parents.iter().cloned());
            ancestors.push(c);
        }
        let class = Rc::new(Class {
            name: def.name.clone(),
            def: def.clone(),
            parents,
            pkg,
            ancestors,
            handle: RefCell::new(std::rc::Weak::new()),
            resolved: Default::default(),
            natives: self.source.natives.index_of(&def.name),
        });
        self.classes
            .borrow_mut()
            .insert(name.to_string(), class.clone());
        Ok(class)
    }

    /// Resolve a type name in the scope of a class.
    pub(super) fn resolve_type(&self, scope: &Class, name: &str) -> Result<Rc<Class>, Exc> {
        let full = scope.def.namespaces.resolve(name).map_err(|p| {
            Exc::engine(
                EngineExc::DslSyntaxError,
                format!("Unknown namespace prefix {}", p.0),
            )
        })?;
        self.class(&full)
    }

    /// A type given as a type reference, object or name.
    pub(super) fn type_arg(&self, scope: &Class, v: &Value) -> Result<Rc<Class>, Exc> {
        if let Some(c) = as_type(v) {
            return Ok(c);
        }
        if let Some((o, _)) = as_object(v) {
            return Ok(o.class.clone());
        }
        match v {
            Value::Str(s) => self.resolve_type(scope, s),
            other => Err(Exc::engine(
                EngineExc::ValueError,
                format!("{} is not a type", self.watch.py_str(other)?),
            )),
        }
    }

    // ----- expressions -----

    /// A method context: `$this`/`$`, the frame info.
    pub(super) fn frame_context(&self, class: &Rc<Class>, this: &Value) -> Rc<Context> {
        let ctx = self.engine_for(class).context();
        ctx.set("this", this.clone());
        ctx.set("1", this.clone());
        ctx.set(
            FRAME_VAR,
            Value::Object(Rc::new(FrameInfo {
                class: class.clone(),
                this: this.clone(),
            })),
        );
        ctx
    }

    /// The YAQL engine a class's code runs in, by its package's format.
    pub(super) fn engine_for(&self, class: &Class) -> &Session {
        if class.pkg.legacy() {
            &self.yaql
        } else {
            &self.yaql_std
        }
    }

    /// `e` compiled for `engine`: its kept form, or (when another engine's
    /// form is kept) one compiled for this session.
    pub(super) fn compiled<'a>(&self, e: &'a Expr, engine: &Engine) -> Cow<'a, Expression> {
        if let Some(form) = e.compiled.for_engine(engine, &e.parsed) {
            return Cow::Borrowed(form);
        }
        let key = (
            Arc::as_ptr(&e.parsed.ast) as usize,
            engine as *const Engine as usize,
        );
        let mut forms = self.recompiled.borrow_mut();
        Cow::Owned(
            forms
                .entry(key)
                .or_insert_with(|| engine.compile(&e.parsed))
                .clone(),
        )
    }

    /// Register a session function in every engine's session layer.
    pub(super) fn register_host(&self, def: FunctionDef) {
        for s in self.contracts.get().into_iter().flatten() {
            s.register(def.clone());
        }
        self.yaql_std.register(def.clone());
        self.yaql.register(def.clone());
        self.parts.functions.borrow_mut().push(def);
    }

    /// The native plan of a contract expression (found once per tree).
    pub(super) fn contract_plan(&self, e: &Expr) -> Option<Rc<Vec<Step>>> {
        let tree = &e.parsed.ast;
        let key = Arc::as_ptr(tree) as usize;
        if let Some((_, known)) = self.contract_plans.borrow().get(&key) {
            return known.clone();
        }
        let plan = contract_plan::plan_of(tree).map(Rc::new);
        self.contract_plans
            .borrow_mut()
            .insert(key, (tree.clone(), plan.clone()));
        plan
    }
}

/// What a session over one of the class set's engines is made of: the
/// engines, the session's YAQL limits, its handle, and the functions it
/// registered (for the sessions made later).
struct SessionParts {
    engines: Arc<Engines>,
    limits: vetro_yaql::Limits,
    me: Weak<Rt>,
    functions: RefCell<Vec<FunctionDef>>,
}

impl SessionParts {
    /// A session over `engine` with the session's handle, limits and
    /// functions.
    fn session(&self, engine: &Arc<Engine>) -> Session {
        let s = Session::with_run(engine.clone(), self.limits.clone());
        let handle = Value::Object(Rc::new(RtHandle(self.me.clone())));
        s.host_context().set(RT_VAR, handle);
        for f in self.functions.borrow().iter() {
            s.register(f.clone());
        }
        s
    }
}
