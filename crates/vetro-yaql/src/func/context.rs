//! Contexts: chained scopes holding variables and function layers.

use crate::func::library::Library;
use crate::func::{Args, Call, Form, FunctionDef, HostFn, SharedDef, Signature};
use crate::runtime::Runtime;
use crate::value::Value;
use ahash::{AHashMap as HashMap, AHashSet as HashSet};
use smallvec::SmallVec;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One candidate overload: registered in a context, or in the engine's
/// library (borrowed: the library outlives the contexts built on it).
#[derive(Clone)]
pub enum Cand<'a> {
    Local(Rc<FunctionDef>),
    Shared(&'a SharedDef),
}

impl std::ops::Deref for Cand<'_> {
    type Target = Signature;
    fn deref(&self) -> &Signature {
        match self {
            Cand::Local(f) => &f.sig,
            Cand::Shared(f) => &f.sig,
        }
    }
}

impl Cand<'_> {
    /// Run the body.
    pub fn call(&self, call: &Call, args: Args) -> crate::error::Result<Value> {
        match self {
            Cand::Local(f) => (f.body)(call, args),
            Cand::Shared(f) => (f.body)(call, args),
        }
    }
}

/// Candidate overloads of one name, grouped by layer (innermost first).
pub type Layers<'a> = SmallVec<[SmallVec<[Cand<'a>; 4]>; 2]>;

type Vars = SmallVec<[(VarName, Value); 2]>;

/// The functions a context layer defines (copied on the first change when
/// shared).
#[derive(Clone, Default)]
pub struct Layer {
    funcs: HashMap<Arc<str>, Vec<Rc<FunctionDef>>>,
    /// Names whose candidates in this layer hide all outer layers.
    exclusive: HashSet<Arc<str>>,
    fallback: Option<Rc<MethodFallback>>,
    /// The names it defines or hides.
    names: NameSet,
}

impl Layer {
    /// How many names it defines or hides.
    fn name_count(&self) -> usize {
        self.funcs.len() + self.exclusive.len()
    }

    /// Whether it defines or hides `name`.
    fn names(&self, name: &str) -> bool {
        self.funcs.contains_key(name) || self.exclusive.contains(name)
    }
}

/// A set of function names as a 64-bit filter: two bits per name, so a
/// set without both of a name's bits surely lacks it, and one with them
/// probably holds it (ask the layers then).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub(crate) struct NameSet(u64);

impl NameSet {
    /// The set of `name` alone.
    pub fn of(name: &str) -> NameSet {
        // FNV-1a, its bits mixed: the same on every run, for a name as the
        // compile stage and the layers see it.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
        }
        h ^= h >> 33;
        h = h.wrapping_mul(0xff51_afd7_ed55_8ccd);
        h ^= h >> 33;
        NameSet(1 << (h & 63) | 1 << ((h >> 6) & 63))
    }

    #[must_use]
    pub fn union(self, other: NameSet) -> NameSet {
        NameSet(self.0 | other.0)
    }

    /// Whether the set may hold the name whose set is `name`.
    #[inline]
    pub fn may_hold(self, name: NameSet) -> bool {
        self.0 & name.0 == name.0
    }
}

/// Several names' sets, with their union (a chain that holds none of its
/// bits holds none of the names: one test for the common case).
#[derive(Clone, Default)]
pub(crate) struct NameSets {
    union: NameSet,
    each: SmallVec<[NameSet; 4]>,
}

impl NameSets {
    pub fn push(&mut self, name: NameSet) {
        self.union = self.union.union(name);
        self.each.push(name);
    }

    /// Whether `chain` may hold one of the names.
    #[inline]
    fn held_by(&self, chain: NameSet) -> bool {
        chain.0 & self.union.0 != 0 && self.each.iter().any(|n| chain.may_hold(*n))
    }
}

/// What a context knows of the layers from it up to the root: the names
/// they may define or hide, valid while [`LAYERS_MADE`] is `since`.
#[derive(Clone, Copy, Default)]
struct ChainNames {
    since: u64,
    names: NameSet,
}

/// A scope. Lookups walk from the innermost context to the root; inner
/// bindings shadow outer ones.
pub struct Context {
    pub parent: Option<Rc<Context>>,
    vars: RefCell<Vars>,
    layer: RefCell<Option<Rc<Layer>>>,
    /// The engine's library, below every layer (root contexts only).
    library: Option<Arc<Library>>,
    /// The address of the chain root's library (0: none); the root
    /// outlives every context below it, and so does its library.
    root_library: usize,
    /// The names the layers from here to the root define or hide, as last
    /// found (stale when [`LAYERS_MADE`] has changed since).
    chain: Cell<ChainNames>,
    pub rt: Rc<Runtime>,
}

/// Counts the times a context layer came to define or hide a name it did
/// not, process-wide: the names found on a chain are all it holds as long
/// as this has not changed, so that checking that no layer redefines a
/// name is a comparison and a mask instead of a walk. Counting every
/// thread's layers only makes that walk happen again. (A layer holding
/// only a method fallback changes no call.)
static LAYERS_MADE: AtomicU64 = AtomicU64::new(1);

/// A host hook for `obj.name(args)` on a [`Value::Object`] receiver when no
/// layer defines `name`: gets the calling context, the method name, the
/// receiver and the unevaluated arguments (evaluate them with
/// `eval::eval` in the given context).
pub type MethodFallback =
    dyn Fn(&Rc<Context>, &str, Value, Vec<crate::func::CallArg>) -> crate::error::Result<Value>;

/// A variable's name. Positional arguments (`$1`, `$2`...; `$` is `$1`)
/// are bound at every lambda call: up to `$16` they are named by number,
/// without allocating.
#[derive(Clone)]
enum VarName {
    Arg(u8),
    Named(Rc<str>),
}

const ARG_TEXT: [&str; 17] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16",
];

impl VarName {
    /// The name of `$name` (a number of one or two digits up to 16 is the
    /// positional argument written without leading zero).
    fn of(name: &str) -> VarName {
        match name.parse::<usize>() {
            Ok(i) if i < ARG_TEXT.len() && name.len() <= 2 => VarName::Arg(i as u8),
            _ => VarName::Named(Rc::from(name)),
        }
    }

    /// Positional argument `i` (1-based).
    fn arg(i: usize) -> VarName {
        match u8::try_from(i) {
            Ok(n) if i < ARG_TEXT.len() => VarName::Arg(n),
            _ => VarName::Named(Rc::from(i.to_string().as_str())),
        }
    }

    /// The same name (a positional argument is never held as a name).
    #[inline]
    fn same(&self, other: &VarName) -> bool {
        match (self, other) {
            (VarName::Arg(a), VarName::Arg(b)) => a == b,
            (VarName::Named(a), VarName::Named(b)) => a == b,
            _ => false,
        }
    }

    fn text(&self) -> &str {
        match self {
            VarName::Arg(i) => ARG_TEXT[*i as usize],
            VarName::Named(n) => n,
        }
    }
}

/// The function whose presence turns on legacy `context.name` lookups
/// (`$ctx.name` on a context value calls `name` in that context).
pub const CONTEXT_DOT: &str = "#legacy_context_dot";

impl Context {
    /// The context a `Value::Context` holds.
    pub fn from_value(v: &Value) -> Option<Rc<Context>> {
        match v {
            Value::Context(c) => c.clone().downcast::<Context>().ok(),
            _ => None,
        }
    }

    fn make(parent: Option<Rc<Context>>, rt: Rc<Runtime>) -> Rc<Context> {
        let (root_library, chain) = match &parent {
            Some(p) => (p.root_library, p.chain.get()),
            None => (0, ChainNames::default()),
        };
        Rc::new(Context {
            parent,
            vars: RefCell::new(SmallVec::new()),
            layer: RefCell::new(None),
            library: None,
            root_library,
            chain: Cell::new(chain),
            rt,
        })
    }

    /// A root context with its own runtime and no functions.
    pub fn root(rt: Rc<Runtime>) -> Rc<Context> {
        Context::make(None, rt)
    }

    /// A root context over an engine's library.
    pub fn with_library(library: Arc<Library>, rt: Rc<Runtime>) -> Rc<Context> {
        Rc::new(Context {
            parent: None,
            vars: RefCell::new(SmallVec::new()),
            layer: RefCell::new(None),
            root_library: Arc::as_ptr(&library) as usize,
            library: Some(library),
            chain: Cell::new(ChainNames::default()),
            rt,
        })
    }

    /// A child scope sharing the runtime.
    pub fn child(self: &Rc<Self>) -> Rc<Context> {
        Context::make(Some(self.clone()), self.rt.clone())
    }

    /// Make this scope, held by nothing else, empty again for another call
    /// of the same lambda: its variables are released. False (and left as
    /// is) when the call gave it functions of its own.
    pub(crate) fn clear_for_reuse(&self) -> bool {
        if self.layer.borrow().is_some() {
            return false;
        }
        self.vars.borrow_mut().clear();
        true
    }

    /// A child scope with a different runtime (one evaluation's limits).
    pub fn child_with_runtime(self: &Rc<Self>, rt: Rc<Runtime>) -> Rc<Context> {
        Context::make(Some(self.clone()), rt)
    }

    /// The runtime of this context: the state of the evaluation it belongs
    /// to (of the host scope, for a host's context).
    pub fn runtime(&self) -> &Rc<Runtime> {
        &self.rt
    }

    /// The runtime of the outermost context (the host scope's).
    pub fn root_runtime(&self) -> &Rc<Runtime> {
        let mut c = self;
        while let Some(p) = &c.parent {
            c = p;
        }
        &c.rt
    }

    /// Bind a variable in this scope (`$name`; `$` is `1`).
    pub fn set(&self, name: &str, value: Value) {
        let name = normalize(name);
        // A variable set again (a loop's) keeps its name: none is made.
        if let Some(slot) = self
            .vars
            .borrow_mut()
            .iter_mut()
            .find(|(n, _)| n.text() == name)
        {
            slot.1 = value;
            return;
        }
        self.bind(VarName::of(name), value);
    }

    /// Bind positional argument `i` (1-based) without allocating its name.
    pub fn set_arg(&self, i: usize, value: Value) {
        self.bind(VarName::arg(i), value);
    }

    #[inline]
    fn bind(&self, key: VarName, value: Value) {
        let mut vars = self.vars.borrow_mut();
        if vars.is_empty() {
            // A fresh scope (a lambda's call).
            vars.push((key, value));
        } else if let Some(slot) = vars.iter_mut().find(|(n, _)| n.same(&key)) {
            slot.1 = value;
        } else {
            vars.push((key, value));
        }
    }

    /// The positional argument a variable's name (`$`, `$1`...) names, up
    /// to `$16`: what [`Context::get_arg`] takes.
    pub fn arg_index(name: &str) -> Option<u8> {
        let name = normalize(name);
        match VarName::of(name) {
            VarName::Arg(i) if ARG_TEXT[i as usize] == name => Some(i),
            _ => None,
        }
    }

    /// Look positional argument `i` ([`Context::arg_index`]) up through
    /// the chain.
    #[inline]
    pub fn get_arg(&self, i: u8) -> Option<Value> {
        let mut c = self;
        loop {
            let vars = c.vars.borrow();
            if let Some((_, v)) = vars
                .iter()
                .find(|(n, _)| matches!(n, VarName::Arg(j) if *j == i))
            {
                return Some(v.clone());
            }
            drop(vars);
            match &c.parent {
                Some(p) => c = p,
                None => return None,
            }
        }
    }

    /// Look a variable up through the chain.
    pub fn get(&self, name: &str) -> Option<Value> {
        let name = normalize(name);
        let mut c = self;
        loop {
            if let Some((_, v)) = c.vars.borrow().iter().find(|(n, _)| n.text() == name) {
                return Some(v.clone());
            }
            match &c.parent {
                Some(p) => c = p,
                None => return None,
            }
        }
    }

    /// Register a function (a [`FunctionDef`], or what
    /// [`crate::yaql_fn!`] builds) in this layer.
    pub fn register(&self, f: impl Into<FunctionDef>) {
        let f = f.into();
        let name = f.name.clone();
        self.edit_layer(|l| l.funcs.entry(name).or_default().push(Rc::new(f)));
    }

    /// Change this context's own layer, copying it first if it is shared.
    fn edit_layer<R>(&self, edit: impl FnOnce(&mut Layer) -> R) -> R {
        let mut layer = self.layer.borrow_mut();
        let layer = Rc::make_mut(layer.get_or_insert_with(Default::default));
        let count = layer.name_count();
        let out = edit(layer);
        if layer.name_count() > count {
            let names = layer.funcs.keys().chain(&layer.exclusive);
            layer.names = names.fold(NameSet::default(), |s, n| s.union(NameSet::of(n)));
            LAYERS_MADE.fetch_add(1, Ordering::Relaxed);
        }
        out
    }

    /// Register a typed host function in this layer: its parameter types
    /// come from the closure's (see [`crate::func::HostFn`]).
    pub fn register_fn<P>(&self, name: &str, form: Form, f: impl HostFn<P>) {
        self.register(f.into_def(name, form));
    }

    /// Make `name` exclusive in this layer: outer layers are not consulted.
    pub fn set_exclusive(&self, name: &str) {
        self.edit_layer(|l| l.exclusive.insert(Arc::from(name)));
    }

    /// Remove every function of that name from this layer.
    pub fn unregister(&self, name: &str) {
        if let Some(l) = self.layer.borrow_mut().as_mut() {
            if l.funcs.contains_key(name) {
                Rc::make_mut(l).funcs.remove(name);
            }
        }
    }

    /// Install the method fallback for host objects (see [`MethodFallback`]).
    pub fn set_method_fallback(
        &self,
        f: impl Fn(&Rc<Context>, &str, Value, Vec<crate::func::CallArg>) -> crate::error::Result<Value>
            + 'static,
    ) {
        self.edit_layer(|l| l.fallback = Some(Rc::new(f)));
    }

    /// The nearest method fallback up the chain.
    pub fn method_fallback(&self) -> Option<Rc<MethodFallback>> {
        let mut c = self;
        loop {
            if let Some(f) = c.layer.borrow().as_ref().and_then(|l| l.fallback.clone()) {
                return Some(f);
            }
            match &c.parent {
                Some(p) => c = p,
                None => return None,
            }
        }
    }

    /// Candidate layers for `name`, innermost first.
    pub fn candidates(&self, name: &str, method: bool) -> Layers<'_> {
        let fits = |f: &Signature| {
            if method {
                f.form.method()
            } else {
                f.form.function()
            }
        };
        let mut layers = Layers::new();
        let mut c = self;
        loop {
            if let Some(layer) = c.layer.borrow().as_ref() {
                if let Some(list) = layer.funcs.get(name) {
                    let l: SmallVec<[Cand; 4]> = list
                        .iter()
                        .filter(|f| fits(&f.sig))
                        .map(|f| Cand::Local(f.clone()))
                        .collect();
                    if !l.is_empty() {
                        layers.push(l);
                    }
                }
                if !layer.exclusive.is_empty() && layer.exclusive.contains(name) {
                    return layers;
                }
            }
            if let Some(lib) = &c.library {
                for layer in lib.layers() {
                    if let Some(list) = layer.get(name) {
                        let l: SmallVec<[Cand; 4]> = list
                            .iter()
                            .filter(|f| fits(&f.sig))
                            .map(|f| Cand::Shared(f))
                            .collect();
                        if !l.is_empty() {
                            layers.push(l);
                        }
                    }
                    if layer.hides_below(name) {
                        return layers;
                    }
                }
            }
            match &c.parent {
                Some(p) => c = p,
                None => return layers,
            }
        }
    }

    /// Whether a call of `name` (`set` is its [`NameSet::of`]) from this
    /// context means what `library` defines: no context layer up the
    /// chain defines or hides `name`, and the chain's root holds that
    /// library (a compiled call site is then valid).
    #[inline]
    pub(crate) fn sees_library_for(
        &self,
        name: &str,
        set: NameSet,
        library: &Arc<Library>,
    ) -> bool {
        if self.root_library != Arc::as_ptr(library) as usize {
            return false;
        }
        !self.chain_names().may_hold(set) || !self.names_on_chain(name)
    }

    /// Whether calls of each of `names` from this context mean what
    /// `library` defines (false, too, when a layer up the chain defines
    /// another name the filter cannot tell from one).
    #[inline]
    pub(crate) fn sees_library_for_all(&self, names: &NameSets, library: &Arc<Library>) -> bool {
        self.root_library == Arc::as_ptr(library) as usize && !names.held_by(self.chain_names())
    }

    /// The names the layers up the chain may define or hide.
    #[inline]
    fn chain_names(&self) -> NameSet {
        let known = self.chain.get();
        if known.since == LAYERS_MADE.load(Ordering::Relaxed) {
            return known.names;
        }
        self.find_chain_names()
    }

    /// [`Context::chain_names`] by a walk up the chain, remembered in each
    /// context on it: the scopes made later under any of them (one per
    /// item of a query) start out knowing it.
    #[cold]
    fn find_chain_names(&self) -> NameSet {
        let since = LAYERS_MADE.load(Ordering::Relaxed);
        let mut chain: SmallVec<[&Context; 16]> = SmallVec::new();
        let mut c = Some(self);
        while let Some(x) = c {
            chain.push(x);
            c = x.parent.as_deref();
        }
        let mut names = NameSet::default();
        for x in chain.iter().rev() {
            if let Some(l) = x.layer.borrow().as_ref() {
                names = names.union(l.names);
            }
            x.chain.set(ChainNames { since, names });
        }
        names
    }

    /// Whether a layer up the chain defines or hides `name`.
    #[cold]
    fn names_on_chain(&self, name: &str) -> bool {
        let mut c = Some(self);
        while let Some(x) = c {
            if x.layer.borrow().as_ref().is_some_and(|l| l.names(name)) {
                return true;
            }
            c = x.parent.as_deref();
        }
        false
    }

    /// Names of every function visible from this context.
    pub fn function_names(&self) -> Vec<Arc<str>> {
        let mut out: Vec<Arc<str>> = Vec::new();
        let mut c = self;
        loop {
            if let Some(l) = c.layer.borrow().as_ref() {
                for k in l.funcs.keys() {
                    if !out.iter().any(|n| **n == **k) {
                        out.push(k.clone());
                    }
                }
            }
            for l in c.library.iter().flat_map(|lib| lib.layers()) {
                for k in l.names() {
                    if !out.iter().any(|n| **n == **k) {
                        out.push(k.clone());
                    }
                }
            }
            match &c.parent {
                Some(p) => c = p,
                None => return out,
            }
        }
    }

    /// True when some layer defines `name` in any form.
    pub fn has_function(&self, name: &str) -> bool {
        let mut c = self;
        loop {
            if c.layer
                .borrow()
                .as_ref()
                .is_some_and(|l| l.funcs.contains_key(name))
                || c.library
                    .iter()
                    .flat_map(|lib| lib.layers())
                    .any(|l| l.get(name).is_some())
            {
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
