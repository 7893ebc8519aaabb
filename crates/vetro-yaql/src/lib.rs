//! YAQL: lexer, parser, evaluator, value model and standard library.
//!
//! A faithful implementation of YAQL 3.x (the Python `yaql` package): parse
//! an expression once, evaluate it many times against data and a context.
//!
//! ```
//! use vetro_yaql::{Engine, EngineOptions, Value};
//!
//! let engine = Engine::new(EngineOptions::default());
//! let expr = engine.parse("$.where($ > 2).select($ * 10)").unwrap();
//! let data = Value::list(vec![1.into(), 2.into(), 3.into(), 4.into()]);
//! let out = engine.evaluate(&expr, data, &[]).unwrap();
//! assert_eq!(out, Value::list(vec![30.into(), 40.into()]));
//!
//! // Host functions are registered while the engine is built (or in a
//! // context, for one scope); their parameter types are the closure's.
//! let engine = Engine::builder(EngineOptions::default())
//!     .register_fn("double", vetro_yaql::Form::Both, |x: i64| x * 2)
//!     .build();
//! let e = engine.parse("double(21) + 3.double()").unwrap();
//! assert_eq!(engine.evaluate(&e, Value::Null, &[]).unwrap(), Value::Int(48));
//! ```
//!
//! A host function fails with a host error carrying a value of the host's
//! own type; it comes back from the evaluation unchanged, whatever lambdas,
//! lazy sequences or library functions it went through:
//!
//! ```
//! use vetro_yaql::{Engine, EngineOptions, Error, ErrorKind, Form, Value};
//!
//! #[derive(Debug, PartialEq)]
//! struct NotFound(String);
//!
//! let engine = Engine::builder(EngineOptions::default())
//!     .register_fn("user", Form::Function, |id: i64| -> vetro_yaql::Result<String> {
//!         match id {
//!             1 => Ok("alice".into()),
//!             _ => Err(Error::host(NotFound(format!("user {id}")), "no such user")),
//!         }
//!     })
//!     .build();
//! let mut e = engine
//!     .eval_str("range(1, 5).select(user($)).toList()", Value::Null)
//!     .unwrap_err();
//! assert_eq!(e.kind, ErrorKind::Host);
//! assert_eq!(e.take_host_payload::<NotFound>(), Some(NotFound("user 2".into())));
//! ```
//!
//! A function with named parameters, defaults, lazy or keyword-only
//! parameters, `*args` or `**kwargs` is one Rust function written with
//! [`yaql_fn!`], whose typed parameter list is the signature (as the
//! standard library's functions are); string signatures
//! ([`FunctionDef::new`]) remain for signatures known only at run time.
//!
//! The engine is immutable once built and `Send + Sync`: one engine serves
//! every thread, each evaluation keeping its own state. Hosts embedding YAQL
//! (MuranoPL) use:
//! * [`Session`] (a scope of their own over a shared engine) or
//!   [`Engine::context`] for a context on which to register functions that
//!   hold single-threaded state ([`Context::register`]) and variables
//!   ([`Context::set`]), and then [`Engine::evaluate_in`];
//! * [`Value::Object`] with [`HostObject`] for their objects (`$.prop` calls
//!   [`HostObject::get_property`], or a host `#operator_.` overload);
//! * [`EngineOptions::colon`] to parse `ns:Name` as a call of `#operator_:`
//!   and `:Name` as `#unary_operator_:`, functions the host defines;
//! * [`EngineOptions::is_operator`] for `x is T` (`#operator_is`);
//! * [`Context::set_method_fallback`] to answer `obj.anyName(args)` on host
//!   objects when no layer defines `anyName`;
//! * [`EngineOptions::format`] to register the safe `format()` function;
//! * [`Engine::with_operators`] for an operator table of the host's own
//!   (the reference's custom operators), and [`Engine::check`] to validate
//!   a text without building its tree.
//!
//! Untrusted expressions run under [`Limits`] (time, operations, process
//! memory through a probe, and a cancel/progress hook):
//!
//! ```
//! use vetro_yaql::{Engine, EngineOptions, ErrorKind, Interrupt, Limits, Options, Value};
//!
//! let engine = Engine::new(EngineOptions {
//!     yaql: Options {
//!         limits: Limits {
//!             max_operations: Some(10_000),
//!             interrupt: Some(Interrupt::new(|p| p.operations < 1_000_000)),
//!             ..Limits::default()
//!         },
//!         ..Options::default()
//!     },
//!     ..EngineOptions::default()
//! });
//! let e = engine.eval_str("range(1000000).where($ < 0).toList()", Value::Null);
//! assert_eq!(e.unwrap_err().kind, ErrorKind::OperationLimit);
//! ```

// The README's examples run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

pub mod data;
pub mod datetime;
mod error;
pub mod eval;
pub mod func;
pub mod iter;
pub mod limits;
pub mod list_marks;
mod parse_cache;
pub mod regex_cache;
mod runtime;
pub mod stack;
mod stdlib;
pub mod value;

/// The syntax layer: lexer, operator tables, parser and syntax tree.
pub use vetro_yaql_syntax::{lexer, operators, parser};

pub use error::{Error, ErrorData, ErrorKind, Result};
pub use eval::{Lambda, Options, Runtime};
pub use func::context::Context;
pub use func::{
    ArgValue, Args, Call, FnDef, Form, FunctionDef, HostFn, IntoResult, PType, SharedDef, Slot,
};
pub use limits::{Interrupt, Limits, Progress};
pub use parser::{Expr, ParserOptions};
/// The size `yaql.memoryQuota` measures a result by (for hosts that finish
/// results themselves).
pub use runtime::approx_size;
pub use value::{HostObject, Value};

use func::library::{Library, SharedLayer};
use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

/// How to build an engine: parser flavour, library and `yaql.*` options.
#[derive(Clone, Debug, Default)]
pub struct EngineOptions {
    /// Legacy parser (`=>` builds tuples) — `yaql.legacy.YaqlFactory`.
    pub legacy: bool,
    /// Add the legacy function layer (`yaql.legacy.create_context`).
    pub legacy_context: bool,
    /// Parser accepts delegate calls `f(args)` on values.
    pub allow_delegates: bool,
    /// Register `lambda()` and delegate `call()`.
    pub delegates: bool,
    /// Register vetro's safe `format()`.
    pub format: bool,
    /// Parse the `:` namespace operator (`#operator_:`).
    pub colon: bool,
    /// Parse `x is T` as a call of `#operator_is` (MuranoPL).
    pub is_operator: bool,
    /// Do not register the set functions (`no_sets` flag of the reference).
    pub no_sets: bool,
    /// groupBy aggregator retry on the `[key, values]` pair (on by default
    /// in the reference; `None` here means on).
    pub group_by_agg_fallback: Option<bool>,
    /// The `yaql.*` options and limits.
    pub yaql: Options,
}

/// A parsed expression, reusable across evaluations and threads, with its
/// compiled form when an engine parsed it.
#[derive(Clone)]
pub struct Expression {
    pub source: Arc<str>,
    pub ast: Arc<Expr>,
    /// The call sites resolved against the library of the engine that
    /// parsed it (see [`eval::Compiled`]); other engines walk the tree.
    pub compiled: Option<Arc<eval::Compiled>>,
}

impl Expression {
    /// An expression from a syntax tree, without a compiled form.
    pub fn from_tree(source: Arc<str>, ast: Arc<Expr>) -> Expression {
        Expression {
            source,
            ast,
            compiled: None,
        }
    }

    /// Calls of functions the library of the engine that parsed it does
    /// not define ([`eval::Compiled::undefined`]): errors of kind
    /// `no_function` or `no_method` with the call's position. They are
    /// certain failures only where that library is the whole function set
    /// (no context or session functions, no host objects).
    pub fn undefined_functions(&self) -> Vec<Error> {
        self.compiled.as_ref().map_or(Vec::new(), |c| c.undefined())
    }
}

impl std::fmt::Debug for Expression {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Expression")
            .field("source", &self.source)
            .field("ast", &self.ast)
            .finish()
    }
}

/// A YAQL engine: parser settings, the function library and a parse cache.
/// Built once ([`Engine::builder`] to add host functions), then immutable:
/// one engine serves every thread, each evaluation keeping its own state.
pub struct Engine {
    pub opts: EngineOptions,
    /// A host's operator table, in place of the built-in operators.
    operators: Option<operators::OperatorTable>,
    library: Arc<Library>,
    cache: Mutex<parse_cache::ParseCache<Arc<eval::Compiled>>>,
    /// Compiled regular expressions, shared by every evaluation.
    regexes: Arc<regex_cache::RegexCache>,
}

/// Builds an [`Engine`]: the options, the host's functions (bodies any
/// thread may run) and which library functions are visible.
pub struct EngineBuilder {
    opts: EngineOptions,
    operators: Option<operators::OperatorTable>,
    host: SharedLayer,
    /// Library functions to hide ([`EngineBuilder::allow_only`]).
    allowed: Option<Vec<String>>,
    /// The library below the host's functions, when it is another
    /// engine's ([`EngineBuilder::over`]).
    base: Option<Arc<Library>>,
}

const CACHE_LIMIT: usize = 10_000;

impl EngineBuilder {
    /// Take the parser's operators from `table` (the reference's custom
    /// operators) instead of the built-in ones; `colon` and `is_operator`
    /// then do not apply.
    pub fn operators(&mut self, table: operators::OperatorTable) -> &mut Self {
        self.operators = Some(table);
        self
    }

    /// Register a host function (a [`SharedDef`], or what [`yaql_fn!`]
    /// builds), visible to every evaluation.
    pub fn register(&mut self, f: impl Into<SharedDef>) -> &mut Self {
        self.host.register(f.into());
        self
    }

    /// Register a typed host function: its parameter types come from the
    /// closure's, its result may be a `Result`
    /// (`builder.register_fn("double", Form::Both, |x: i64| x * 2)`; see
    /// [`func::HostFn`]).
    pub fn register_fn<P>(
        &mut self,
        name: &str,
        form: Form,
        f: impl func::SharedHostFn<P>,
    ) -> &mut Self {
        self.host.register(f.into_shared_def(name, form));
        self
    }

    /// Hide library functions: calls of these names fail with
    /// `no_function`/`no_method` unless the host registers its own.
    pub fn hide_functions(&mut self, names: &[&str]) -> &mut Self {
        for n in names {
            self.host.set_exclusive(n);
        }
        self
    }

    /// Keep only the named library functions visible (operators and syntax
    /// functions, whose names start with `#` or `*`, always stay).
    pub fn allow_only(&mut self, names: &[&str]) -> &mut Self {
        self.allowed = Some(names.iter().map(|n| n.to_string()).collect());
        self
    }

    /// Put the host's functions over `base`'s library (its host functions
    /// and standard library) instead of the standard library the options
    /// choose: an engine that adds functions to another's, each with its
    /// own options.
    pub fn over(&mut self, base: &Engine) -> &mut Self {
        self.base = Some(base.library.clone());
        self
    }

    /// The engine, immutable from now on.
    pub fn build(&mut self) -> Engine {
        let mut host = std::mem::take(&mut self.host);
        let lib = match self.base.take() {
            Some(base) => base.layers().to_vec(),
            None => stdlib::library_layers(&self.opts),
        };
        if let Some(allowed) = self.allowed.take() {
            for layer in &lib {
                for n in layer.names() {
                    let keep = n.starts_with('#')
                        || n.starts_with('*')
                        || allowed.iter().any(|a| **a == **n);
                    if !keep {
                        host.set_exclusive(n);
                    }
                }
            }
        }
        let mut layers = Vec::with_capacity(lib.len() + 1);
        if !host.is_empty() {
            layers.push(Arc::new(host));
        }
        layers.extend(lib);
        Engine {
            opts: self.opts.clone(),
            operators: self.operators.take(),
            library: Arc::new(Library::new(layers)),
            cache: Mutex::new(parse_cache::ParseCache::new(CACHE_LIMIT)),
            regexes: Arc::default(),
        }
    }
}

impl Engine {
    /// An engine with the standard library and no host functions.
    pub fn new(opts: EngineOptions) -> Engine {
        Engine::builder(opts).build()
    }

    /// A builder, to register host functions before the engine is made.
    pub fn builder(opts: EngineOptions) -> EngineBuilder {
        EngineBuilder {
            opts,
            operators: None,
            host: SharedLayer::default(),
            allowed: None,
            base: None,
        }
    }

    /// An engine whose parser takes its operators from `table` (the
    /// reference's custom operators) instead of the built-in ones;
    /// `colon` and `is_operator` then do not apply.
    pub fn with_operators(opts: EngineOptions, table: operators::OperatorTable) -> Engine {
        Engine::builder(opts).operators(table).build()
    }

    /// Parser options derived from the engine options.
    pub fn parser_options(&self) -> ParserOptions {
        ParserOptions {
            legacy: self.opts.legacy,
            allow_delegates: self.opts.allow_delegates,
            colon: self.opts.colon,
            is_operator: self.opts.is_operator,
        }
    }

    fn cache(&self) -> std::sync::MutexGuard<'_, parse_cache::ParseCache<Arc<eval::Compiled>>> {
        // The cache holds finished entries only: one left by a panicking
        // thread is still sound.
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Parse and compile (through a bounded LRU cache keyed by the text):
    /// lex, parse, then resolve the call sites against the engine's library
    /// ([`eval::Compiled`]).
    pub fn parse(&self, src: &str) -> Result<Expression> {
        let hit = self.cache().get(src);
        if let Some((source, compiled)) = hit {
            return Ok(Expression {
                source,
                ast: compiled.tree().clone(),
                compiled: Some(compiled),
            });
        }
        let ast = Arc::new(match &self.operators {
            Some(table) => parser::parse_with_operators(src, self.parser_options(), table)?,
            None => parser::parse(src, self.parser_options())?,
        });
        let compiled = Arc::new(eval::Compiled::new(
            ast.clone(),
            self.library.clone(),
            &self.opts.yaql,
        ));
        let source = self.cache().insert(src, compiled.clone());
        Ok(Expression {
            source,
            ast,
            compiled: Some(compiled),
        })
    }

    /// `expr` compiled for this engine: its call sites resolved once
    /// against the engine's library (a tree parsed elsewhere, or by another
    /// engine, as [`Expression::from_tree`] gives it). Evaluations by this
    /// engine then skip the lookups by name; the result also lists the
    /// calls the library does not define ([`Expression::undefined_functions`]).
    pub fn compile(&self, expr: &Expression) -> Expression {
        if expr
            .compiled
            .as_ref()
            .is_some_and(|c| c.is_for(&self.library))
        {
            return expr.clone();
        }
        let compiled = eval::Compiled::new(expr.ast.clone(), self.library.clone(), &self.opts.yaql);
        Expression {
            source: expr.source.clone(),
            ast: expr.ast.clone(),
            compiled: Some(Arc::new(compiled)),
        }
    }

    /// Whether `expr` holds a compiled form for this engine.
    pub fn compiled_for(&self, expr: &Expression) -> bool {
        expr.compiled
            .as_ref()
            .is_some_and(|c| c.is_for(&self.library))
    }

    /// Check that `src` parses, with the errors of [`Engine::parse`], without
    /// building its tree (a text in the parse cache is known to parse). For
    /// hosts that validate a text now and evaluate it later, if at all.
    pub fn check(&self, src: &str) -> Result<()> {
        if self.cache().contains(src) {
            return Ok(());
        }
        Ok(parser::check(
            src,
            self.parser_options(),
            self.operators.as_ref(),
        )?)
    }

    /// The regular expressions the engine's evaluations compiled, kept for
    /// all of them.
    pub fn regex_cache(&self) -> &regex_cache::RegexCache {
        &self.regexes
    }

    /// The engine's library (its layers, innermost first).
    pub fn library(&self) -> &Arc<Library> {
        &self.library
    }

    /// A fresh root context over the library, for one host scope (register
    /// functions and variables on it or on its children, then
    /// [`Engine::evaluate_in`]). Functions registered in a context may hold
    /// the host's single-threaded state.
    pub fn context(&self) -> Rc<Context> {
        Context::with_library(
            self.library.clone(),
            Rc::new(Runtime::new(self.opts.yaql.clone())),
        )
    }

    /// Evaluate with `$` bound to `data` and the given variables.
    pub fn evaluate(
        &self,
        expr: &Expression,
        data: Value,
        vars: &[(&str, Value)],
    ) -> Result<Value> {
        let ctx = self.context();
        bind_data(&ctx, data, vars);
        self.evaluate_in(expr, &ctx)
    }

    /// Evaluate in a host context (its `$` and variables as set there).
    /// When `ctx` belongs to an evaluation in progress (a host function
    /// evaluating in the context it was called in), this evaluation runs
    /// under that one's run: see [`Engine::evaluate_limited`].
    pub fn evaluate_in(&self, expr: &Expression, ctx: &Rc<Context>) -> Result<Value> {
        self.evaluate_limited(expr, ctx, &self.opts.yaql.limits)
    }

    /// [`Engine::evaluate_in`] under `limits` instead of the engine's own
    /// (a host whose scopes over one shared engine each have their limits).
    ///
    /// An evaluation in a context of an evaluation in progress (the context
    /// a host function was called in, or a child of it) is nested in that
    /// one: without limits it runs in the outer run; with limits it also
    /// stops at the outer deadline and operation budget, and its operations
    /// count in the outer run when it ends.
    pub fn evaluate_limited(
        &self,
        expr: &Expression,
        ctx: &Rc<Context>,
        limits: &Limits,
    ) -> Result<Value> {
        let quota = self.opts.yaql.memory_quota_bytes();
        let scope = limits::enter(limits, quota, &self.regexes, Some(ctx.runtime().run()));
        let rt = self.runtime_in(expr, ctx, scope.run());
        let ectx = ctx.child_with_runtime(rt.clone());
        self.evaluate_inner(expr, &ectx, &rt)
    }

    /// [`Engine::evaluate_in`] for a host that converts the result itself:
    /// `finish` gets the result and the sequences that the evaluation built
    /// as lists (see [`list_marks`]; `None` unless tuples are kept,
    /// `convert_tuples_to_lists` off), and runs before the evaluation's run
    /// ends, so that the lazy sequences it drains count in the run and
    /// stop at its limits and at the host's interrupt (a result such as
    /// `repeat(1).distinct()` never ends).
    pub fn evaluate_in_finishing<T>(
        &self,
        expr: &Expression,
        ctx: &Rc<Context>,
        finish: impl FnOnce(Value, Option<&Rc<RefCell<list_marks::ListMarks>>>) -> Result<T>,
    ) -> Result<(T, Option<Rc<RefCell<list_marks::ListMarks>>>)> {
        let scope = self.enter(ctx);
        let rt = self.runtime_in(expr, ctx, scope.run());
        let ectx = ctx.child_with_runtime(rt.clone());
        let v = self.evaluate_inner(expr, &ectx, &rt)?;
        let lists = rt.list_marks();
        let out = finish(v, lists.as_ref())?;
        drop(scope);
        Ok((out, lists))
    }

    /// Start the run (the limits) of an evaluation in `ctx`.
    fn enter(&self, ctx: &Context) -> limits::Scope {
        let quota = self.opts.yaql.memory_quota_bytes();
        let outer = Some(ctx.runtime().run());
        limits::enter(&self.opts.yaql.limits, quota, &self.regexes, outer)
    }

    /// The runtime of one evaluation of `expr` in `ctx`: its own state and
    /// run, the compiled form of `expr` if it is for this engine, and the
    /// output memo of the host scope `ctx` belongs to.
    fn runtime_in(&self, expr: &Expression, ctx: &Context, run: &Rc<limits::Run>) -> Rc<Runtime> {
        let memo = ctx.root_runtime().output_memo().clone();
        let run = run.clone();
        let compiled = self.compiled_form(expr).cloned();
        let compiled = compiled.map(|c| c as Arc<dyn std::any::Any + Send + Sync>);
        let rt = Runtime::for_run(self.opts.yaql.clone(), memo, run).with_compiled(compiled);
        Rc::new(rt)
    }

    /// The compiled form of `expr` if it is for this engine.
    fn compiled_form<'a>(&self, expr: &'a Expression) -> Option<&'a Arc<eval::Compiled>> {
        expr.compiled.as_ref().filter(|c| c.is_for(&self.library))
    }

    /// Evaluate in `ctx` counting in `run`, a run the host keeps started
    /// over many evaluations (see [`Session::with_run`]), with the runtime
    /// in `spare` when the last evaluation left it unheld (as it does
    /// unless its result keeps a lazy part or a lambda, or this evaluation
    /// is nested in one in progress).
    fn evaluate_in_run(
        &self,
        expr: &Expression,
        ctx: &Rc<Context>,
        run: &Rc<limits::Run>,
        spare: &std::cell::Cell<Option<Rc<Runtime>>>,
    ) -> Result<Value> {
        let rt = match spare.take() {
            Some(mut rt) => match Rc::get_mut(&mut rt) {
                Some(free) => {
                    let memo = ctx.root_runtime().output_memo();
                    free.reuse(memo, run, self.compiled_form(expr));
                    rt
                }
                None => self.runtime_in(expr, ctx, run),
            },
            None => self.runtime_in(expr, ctx, run),
        };
        let ectx = ctx.child_with_runtime(rt.clone());
        let v = self.evaluate_inner(expr, &ectx, &rt);
        drop(ectx);
        if Rc::strong_count(&rt) == 1 && Rc::weak_count(&rt) == 0 {
            spare.set(Some(rt));
        }
        v
    }

    fn evaluate_inner(&self, expr: &Expression, ectx: &Rc<Context>, rt: &Runtime) -> Result<Value> {
        let v = eval::eval_root(&expr.ast, ectx)?;
        if self.opts.yaql.convert_output_data {
            let v = eval::finalize(v, rt)?;
            rt.check_memory(&v)?;
            Ok(v)
        } else {
            Ok(v)
        }
    }

    /// Parse and evaluate in one step.
    pub fn eval_str(&self, src: &str, data: Value) -> Result<Value> {
        let e = self.parse(src)?;
        self.evaluate(&e, data, &[])
    }
}

/// Bind `$` to `data` and the given variables in `ctx`.
fn bind_data(ctx: &Context, data: Value, vars: &[(&str, Value)]) {
    for (k, v) in vars {
        ctx.set(k, v.clone());
    }
    ctx.set("1", data);
}

/// A host's scope over a shared [`Engine`]: a context of its own in which
/// the host registers functions that hold its single-threaded state
/// (closures over `Rc`s), then evaluates. Reads through to the engine
/// (`parse`, `check`, `opts`...).
pub struct Session {
    engine: Arc<Engine>,
    host: Rc<Context>,
    /// The session's limits, in place of the engine's.
    limits: Option<Limits>,
    /// The one run every evaluation of the session counts in (a session
    /// made with [`Session::with_run`]), ended when the session is dropped.
    run: Option<limits::Scope>,
    /// The runtime of the session's last evaluation, for its next one.
    spare: std::cell::Cell<Option<Rc<Runtime>>>,
}

impl std::ops::Deref for Session {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        &self.engine
    }
}

impl Session {
    pub fn new(engine: Arc<Engine>) -> Session {
        let host = engine.context();
        Session {
            engine,
            host,
            limits: None,
            run: None,
            spare: Default::default(),
        }
    }

    /// A session whose evaluations run under `limits` instead of the
    /// engine's (each session over one shared engine with its own time,
    /// memory and cancel hook).
    pub fn with_limits(engine: Arc<Engine>, limits: Limits) -> Session {
        let mut s = Session::new(engine);
        s.limits = Some(limits);
        s
    }

    /// A session whose evaluations all count in one run under `limits`,
    /// started now and ended when the session is dropped: the limits hold
    /// for the session's whole life (its timeout counted from now, one
    /// operation budget, one interrupt hook called every
    /// [`limits::CHECK_EVERY`] operations of all its evaluations), and an
    /// evaluation starts without a meter of its own (no clock read, no copy
    /// of the limits). For a host whose own limits span its session (a
    /// MuranoPL session); nested evaluations of the session count in the
    /// same run.
    pub fn with_run(engine: Arc<Engine>, limits: Limits) -> Session {
        let quota = engine.opts.yaql.memory_quota_bytes();
        let run = limits::enter(&limits, quota, &engine.regexes, None);
        let mut s = Session::with_limits(engine, limits);
        s.run = Some(run);
        s
    }

    /// Evaluate in `ctx` (a context of this session) under the session's
    /// limits.
    pub fn evaluate_in(&self, expr: &Expression, ctx: &Rc<Context>) -> Result<Value> {
        if let Some(run) = &self.run {
            return self
                .engine
                .evaluate_in_run(expr, ctx, run.run(), &self.spare);
        }
        let limits = self
            .limits
            .as_ref()
            .unwrap_or(&self.engine.opts.yaql.limits);
        self.engine.evaluate_limited(expr, ctx, limits)
    }

    /// The shared engine.
    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The session's own layer: functions registered here are visible to
    /// every evaluation of the session.
    pub fn host_context(&self) -> &Rc<Context> {
        &self.host
    }

    /// Register a function (a [`FunctionDef`], or what [`yaql_fn!`]
    /// builds) in the session's layer.
    pub fn register(&self, f: impl Into<FunctionDef>) {
        self.host.register(f);
    }

    /// Register a typed host function in the session's layer (see
    /// [`func::HostFn`]).
    pub fn register_fn<P>(&self, name: &str, form: Form, f: impl func::HostFn<P>) {
        self.host.register_fn(name, form, f);
    }

    /// Hide functions of the engine from the session's evaluations.
    pub fn hide_functions(&self, names: &[&str]) {
        for n in names {
            self.host.set_exclusive(n);
        }
    }

    /// A fresh child of the session's context, for one scope.
    pub fn context(&self) -> Rc<Context> {
        self.host.child()
    }

    /// Evaluate with `$` bound to `data` and the given variables, in a
    /// child of the session's context.
    pub fn evaluate(
        &self,
        expr: &Expression,
        data: Value,
        vars: &[(&str, Value)],
    ) -> Result<Value> {
        let ctx = self.context();
        bind_data(&ctx, data, vars);
        self.evaluate_in(expr, &ctx)
    }

    /// Parse and evaluate in one step.
    pub fn eval_str(&self, src: &str, data: Value) -> Result<Value> {
        let e = self.parse(src)?;
        self.evaluate(&e, data, &[])
    }
}

#[cfg(test)]
mod tests {
    /// One engine serves every thread: it must be shareable.
    #[test]
    fn engine_is_send_and_sync() {
        fn shareable<T: Send + Sync>() {}
        shareable::<super::Engine>();
        shareable::<super::Expression>();
    }
}
