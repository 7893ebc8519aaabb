//! The MuranoPL executor of one session.
//!
//! A session ([`Rt`]) is made of parts, each a struct in its own module that
//! owns one concern's state, with the methods that only need that state:
//!
//! - `program::Program`: what the session runs, set up once and not
//!   changed by running code: the two YAQL engines, the class source with
//!   its natives, the configuration, and caches derived from the code alone
//!   (classes built on first use, native plans of contract expressions).
//! - `objects::ObjectStore`: the objects by id, id generation, the root,
//!   construction batches (the order objects are destroyed in), static
//!   property values, attributes, exception objects, interned `typeinfo()`
//!   values, `trace()` values.
//! - `loading::ModelLoad`: the model load in progress (models by id, the
//!   objects built from them, deferred `.init` calls, dry runs).
//! - `frames::CallStack`: the running methods (stack traces, call depth,
//!   receivers and contexts that are GC roots).
//! - `scheduler::Scheduler`: the green threads' parked frames, their
//!   parents and the `Synchronize` locks.
//! - `limits::SessionLimits`: the limits with what the session has used.
//! - `mocks::Mocks`: methods the test framework replaced (`inject()`).
//! - `embedder`: what the embedding layer keeps with the session (the cloud
//!   host, see `cloud::attach`); the runtime never looks inside.
//!
//! The parts are private to this module: code outside it asks a session
//! through the named methods of `session.rs`.
//!
//! The executor is `impl Rt` over those parts, by activity: method calls
//! (`call.rs`), statements (`exec.rs`), properties (`props.rs`), contracts
//! (`contracts.rs`, `contract_plan.rs`), model loading (`model.rs`),
//! serialization (`serialize.rs`; every walk that writes a value out is
//! bounded as `walk.rs` describes), garbage collection and destruction
//! (`gc.rs`), green threads (`green.rs`), YAQL functions (`funcs.rs`,
//! `sysfuncs.rs`), reflection (`reflect.rs`) and exception objects
//! (`caught.rs`).

pub mod call;
mod caught;
mod contract_plan;
mod contracts;
mod engine_set;
mod engines;
mod exec;
mod frames;
mod funcs;
mod gc;
pub mod green;
pub mod limits;
mod loading;
pub(crate) mod mocks;
mod model;
pub mod natives;
mod objects;
mod program;
mod props;
mod reflect;
pub mod reg;
mod scheduler;
mod serialize;
mod session;
mod stack;
mod sysfuncs;
pub mod types;
pub(crate) mod walk;

use crate::syntax::data::{Data, Expr};
use crate::syntax::ClassDef;
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use types::*;
use vetro_yaql::{Context, ErrorKind, HostObject, Session, Value};

/// What every session over a set of packages shares: class definitions with
/// their packages, the native methods, and the hooks that set up a session
/// (extra YAQL functions). Cheap to clone; `Send + Sync`, so parsed packages
/// are shared between threads while each session stays on its own thread.
#[derive(Default, Clone)]
pub struct ClassSource {
    /// Class definitions by name with their packages (shared by the
    /// source's clones until one adds a package).
    pub defs: Arc<ClassDefs>,
    /// The native methods of the classes.
    pub natives: Arc<natives::Natives>,
    /// Run on every new session before it is used (to add YAQL functions).
    pub session_hooks: Vec<SessionHook>,
    /// The YAQL engines of these classes, built for the first session and
    /// shared by the next ones (rebuilt if the classes change).
    pub(crate) engines: engines::EngineCache,
}

/// Class definitions by name, each with its package.
pub type ClassDefs = HashMap<String, (Arc<ClassDef>, Arc<PkgInfo>)>;

/// Run on every new session before it is used (to register functions).
pub type SessionHook = Arc<dyn Fn(&Rc<Rt>) + Send + Sync>;

impl ClassSource {
    /// Add the classes of `pkg` (a class already known keeps its definition).
    pub fn add_package(&mut self, pkg: &crate::package::Package) {
        let info = Arc::new(PkgInfo {
            name: pkg.name.clone(),
            version: pkg.version.clone(),
            format: pkg.format.clone(),
        });
        let defs = Arc::make_mut(&mut self.defs);
        for (name, def) in &pkg.classes {
            defs.entry(name.clone())
                .or_insert_with(|| (def.clone(), info.clone()));
        }
    }
}

/// Hidden frame information visible to host functions through the context.
struct FrameInfo {
    class: Rc<Class>,
    this: Value,
}

impl HostObject for FrameInfo {
    fn type_name(&self) -> &str {
        "#frame"
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

use frames::StackEntry;

const FRAME_VAR: &str = "#frame";

/// One executor session: its parts (see the module documentation).
pub struct Rt {
    me: Weak<Rt>,
    /// What the session runs (see `program.rs`).
    program: program::Program,
    /// The objects (see `objects.rs`).
    objects: objects::ObjectStore,
    /// The running methods (see `frames.rs`).
    frames: frames::CallStack,
    /// The session's limits and what it has used (see `limits.rs`).
    limits: limits::SessionLimits,
    /// Green threads and locks (see `scheduler.rs`).
    scheduler: scheduler::Scheduler,
    /// The model load in progress (see `loading.rs`).
    loading: loading::ModelLoad,
    /// Methods replaced by the test framework (see `mocks.rs`).
    mocks: mocks::Mocks,
    /// What the embedding layer keeps with the session (the cloud host with
    /// its backend and event sink, see `cloud::attach`); the runtime itself
    /// never looks inside.
    embedder: RefCell<Option<Box<dyn std::any::Any>>>,
}

/// Objects point at each other (owners, property values, subscriptions), so
/// a session breaks those cycles when it ends; otherwise every session would
/// leak its whole object graph.
impl Drop for Rt {
    fn drop(&mut self) {
        let mut objects = self.objects.take_all();
        objects.extend(self.loading.take_built());
        for o in objects {
            o.props.borrow_mut().clear();
            o.private.borrow_mut().clear();
            o.subscribers.borrow_mut().clear();
            o.owner.borrow_mut().take();
        }
    }
}

impl Rt {
    /// A session over `source` with `config` and the default limits.
    pub fn new(source: ClassSource, config: serde_json::Value) -> Rc<Rt> {
        Rt::with_limits(source, config, limits::Limits::default())
    }

    /// A session under `limits` (its time limit also bounds each YAQL
    /// evaluation, so one long expression cannot outlive the session).
    pub fn with_limits(
        source: ClassSource,
        config: serde_json::Value,
        limits: limits::Limits,
    ) -> Rc<Rt> {
        let limits = limits::SessionLimits::start(limits);
        let rt = Rc::new_cyclic(|me| Rt {
            me: me.clone(),
            program: program::Program::new(source, config, limits.watch(), me),
            objects: objects::ObjectStore::default(),
            frames: frames::CallStack::default(),
            limits,
            scheduler: scheduler::Scheduler::default(),
            loading: loading::ModelLoad::default(),
            mocks: mocks::Mocks::default(),
            embedder: RefCell::new(None),
        });
        for hook in &rt.program.source().session_hooks {
            hook(&rt);
        }
        rt
    }

    fn rc(&self) -> Rc<Rt> {
        self.me.upgrade().expect("runtime alive")
    }

    // ----- errors through YAQL -----

    /// Wrap an executor error so it can travel through a YAQL evaluation
    /// (as the payload of a host error); `engine_fn!` bodies' errors go this way.
    pub fn smuggle(&self, e: Exc) -> vetro_yaql::Error {
        let message = e.message();
        vetro_yaql::Error::host(e, message)
    }

    /// The executor error behind a YAQL error.
    pub(crate) fn unsmuggle(&self, mut e: vetro_yaql::Error) -> Exc {
        if let Some(x) = e.take_host_payload::<Exc>() {
            return x;
        }
        if let Some(x) = e.host_payload::<Exc>() {
            return x.clone();
        }
        let exc = match e.kind {
            // The session's watch stopped the evaluation: a limit passed.
            ErrorKind::Interrupted => self.limits.interrupted(),
            // What it was building would pass the session's memory limit.
            ErrorKind::MemoryQuota if vetro_yaql::limits::is_memory_limit(&e) => {
                self.limits.memory_refused()
            }
            _ => yaql_error(&e),
        };
        self.frames.with_trace(exc)
    }

    // ----- expressions -----

    /// Evaluate `e` in `ctx` with `yaql`, the engine of the code it belongs
    /// to (see [`program::Program::engine_for`]).
    fn eval_expr(&self, e: &Expr, ctx: &Rc<Context>, yaql: &Session) -> Result<Value, Exc> {
        let form = self.program.compiled(e, yaql);
        yaql.evaluate_in(&form, ctx)
            .map_err(|err| self.unsmuggle(err))
    }
    /// Evaluate template data: expressions inside lists and maps too.
    fn eval_data(&self, d: &Data, ctx: &Rc<Context>, yaql: &Session) -> Result<Value, Exc> {
        Ok(match d {
            Data::Null => Value::Null,
            Data::Bool(b) => Value::Bool(*b),
            Data::Int(i) => Value::Int(*i),
            Data::BigInt(b) => Value::from_bigint((**b).clone()),
            Data::Float(f) => Value::Float(*f),
            Data::Str(s) => Value::str(s),
            Data::Expr(e) => self.eval_expr(e, ctx, yaql)?,
            Data::List(items, _) => Value::list(
                items
                    .iter()
                    .map(|i| self.eval_data(i, ctx, yaql))
                    .collect::<Result<Vec<_>, _>>()?,
            ),
            Data::Map(entries, _) => {
                let mut m = vetro_yaql::value::Dict::new();
                for (k, v) in entries {
                    m.insert(self.eval_data(k, ctx, yaql)?, self.eval_data(v, ctx, yaql)?);
                }
                Value::dict(m)
            }
        })
    }

    /// The running frame seen from a host function's context.
    pub(crate) fn frame_of(ctx: &Context) -> Option<(Rc<Class>, Value)> {
        match &ctx.get(FRAME_VAR)? {
            Value::Object(h) => h
                .as_any()
                .downcast_ref::<FrameInfo>()
                .map(|f| (f.class.clone(), f.this.clone())),
            _ => None,
        }
    }
}

/// A YAQL error as a native MuranoPL error.
fn yaql_error(e: &vetro_yaql::Error) -> Exc {
    use EngineExc as X;
    use ErrorKind::*;
    let class = match e.kind {
        NoMethod => X::NoMethodRegisteredException,
        NoFunction => X::NoFunctionRegisteredException,
        NoMatchingMethod => X::NoMatchingMethodException,
        NoMatchingFunction => X::NoMatchingFunctionException,
        AmbiguousFunction => X::AmbiguousFunctionException,
        AmbiguousMethod => X::AmbiguousMethodException,
        Lexical => X::YaqlLexicalException,
        Grammar => X::YaqlGrammarException,
        MappingTranslation => X::MappingTranslationException,
        CollectionTooLarge => X::CollectionTooLargeException,
        MemoryQuota => X::MemoryQuotaExceededException,
        Key => X::KeyError,
        Index => X::IndexError,
        StopIteration => X::StopIteration,
        ZeroDivision => X::ZeroDivisionError,
        Overflow => X::OverflowError,
        Recursion => X::RecursionError,
        Assertion => X::AssertionError,
        Type => X::TypeError,
        Value => X::ValueError,
        Attribute => X::AttributeError,
        Arithmetic => X::ArithmeticError,
        Timeout => X::TimeoutError,
        Regex => X::RegexError,
        Argument => X::ArgumentException,
        _ => X::Exception,
    };
    Exc::engine(class, e.message.clone())
}
