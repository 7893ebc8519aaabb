//! Function definitions: parameter types, signatures and bound arguments.

pub mod context;
pub mod library;
pub mod params;
mod typed;

pub use params::{FnDef, Slot};
pub use typed::{HostFn, IntoResult, SharedHostFn};

use crate::error::{Error, ErrorKind, Result};
use crate::iter::{iterate_in, ValueIter};
use crate::parser::Expr;
use crate::runtime::Runtime;
use crate::value::Value;
use context::Context;
use std::ops::{Deref, DerefMut};
use std::ptr::NonNull;
use std::rc::Rc;
use std::sync::Arc;

/// Where a function can be called from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `f(x)` only.
    Function,
    /// `x.f()` only.
    Method,
    /// Both (`extension_method`).
    Both,
}

impl Form {
    pub fn function(self) -> bool {
        matches!(self, Form::Function | Form::Both)
    }
    pub fn method(self) -> bool {
        matches!(self, Form::Method | Form::Both)
    }
}

/// Parameter types (the reference's `yaqltypes` and Python classes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PType {
    /// Anything, null included unless declared non-nullable (`object`).
    Any,
    Object,
    NoneType,
    String,
    /// int or float, not bool.
    Number,
    /// Python `int`: bool accepted.
    Int,
    /// int, bool rejected.
    Integer,
    Bool,
    Iterable,
    /// An iterable that is not a set.
    NonSetIterable,
    Iterator,
    Sequence,
    Mapping,
    Set,
    DateTime,
    TimeDelta,
    Pattern,
    Context,
    Callable,
    /// A host object.
    Object_,
    /// Lazy: the argument expression, evaluated by the function.
    Lambda,
    /// Lazy: the raw expression (`YaqlExpression`).
    Expr,
    /// A bare word constant, passed as its name.
    Keyword,
    /// A `key => value` argument of a `nokw` function.
    Rule,
    /// A literal of the expression text (`123`, `'a'`, `true`, `null`, a
    /// bare word), passed as its value; computed arguments do not fit.
    Const,
    /// A string literal or bare word.
    ConstString,
    /// A number literal.
    ConstNumber,
    /// `true` or `false`.
    ConstBool,
}

pub mod mask {
    pub const NULL: u32 = 1;
    pub const BOOL: u32 = 2;
    pub const INT: u32 = 4;
    pub const FLOAT: u32 = 8;
    pub const STR: u32 = 16;
    pub const LIST: u32 = 32;
    pub const DICT: u32 = 64;
    pub const SET: u32 = 128;
    pub const ITER: u32 = 256;
    pub const DT: u32 = 512;
    pub const TD: u32 = 1024;
    pub const RE: u32 = 2048;
    pub const FUNC: u32 = 4096;
    pub const CTX: u32 = 8192;
    pub const OBJ: u32 = 16384;
    pub const TZ: u32 = 32768;
    pub const ALL: u32 = 65535;
}

impl PType {
    pub fn is_lazy(self) -> bool {
        matches!(
            self,
            PType::Lambda | PType::Expr | PType::Keyword | PType::Rule
        ) || self.is_const()
    }

    /// Does the type take literals of the expression text only?
    pub fn is_const(self) -> bool {
        matches!(
            self,
            PType::Const | PType::ConstString | PType::ConstNumber | PType::ConstBool
        )
    }

    /// Does a literal's value fit a constant type?
    pub fn accepts_const(self, v: &Value, nullable: bool) -> bool {
        match (self, v) {
            (_, Value::Null) => nullable,
            (PType::Const, _) => true,
            (PType::ConstString, Value::Str(_)) => true,
            (PType::ConstNumber, Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => true,
            (PType::ConstBool, Value::Bool(_)) => true,
            _ => false,
        }
    }

    /// The set of value kinds the type accepts (used to rank overloads).
    pub fn mask(self, nullable: bool) -> u32 {
        use mask::*;
        let m = match self {
            PType::Any => ALL,
            PType::Object => ALL & !NULL,
            PType::NoneType => NULL,
            PType::String => STR,
            PType::Number => INT | FLOAT,
            PType::Int => INT | BOOL,
            PType::Integer => INT,
            PType::Bool => BOOL,
            PType::Iterable => LIST | SET | ITER | DICT,
            PType::NonSetIterable => LIST | ITER | DICT,
            PType::Iterator => ITER,
            PType::Sequence => LIST,
            PType::Mapping => DICT,
            PType::Set => SET,
            PType::DateTime => DT,
            PType::TimeDelta => TD,
            PType::Pattern => RE,
            PType::Context => CTX,
            PType::Callable => FUNC,
            PType::Object_ => OBJ,
            PType::Lambda | PType::Expr | PType::Keyword | PType::Rule | PType::Const => ALL,
            PType::ConstString => STR,
            PType::ConstNumber => INT | FLOAT,
            PType::ConstBool => BOOL,
        };
        if nullable {
            m | NULL
        } else {
            m
        }
    }

    /// Does an evaluated value fit?
    pub fn accepts(self, v: &Value, nullable: bool, rt: &Runtime) -> bool {
        if v.is_null() {
            return nullable || matches!(self, PType::Any | PType::NoneType);
        }
        match self {
            PType::Any | PType::Object => true,
            PType::NoneType => false,
            PType::String => matches!(v, Value::Str(_)),
            PType::Number => matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Float(_)),
            PType::Int => matches!(v, Value::Int(_) | Value::BigInt(_) | Value::Bool(_)),
            PType::Integer => matches!(v, Value::Int(_) | Value::BigInt(_)),
            PType::Bool => matches!(v, Value::Bool(_)),
            PType::Iterable => match v {
                Value::List(_) | Value::Set(_) | Value::Iter(_) => true,
                Value::Dict(_) => rt.opts.iterable_dicts,
                _ => false,
            },
            PType::NonSetIterable => match v {
                Value::List(_) | Value::Iter(_) => true,
                Value::Dict(_) => rt.opts.iterable_dicts,
                _ => false,
            },
            PType::Iterator => matches!(v, Value::Iter(it) if it.iterator),
            PType::Sequence => matches!(v, Value::List(_)),
            PType::Mapping => matches!(v, Value::Dict(_)),
            PType::Set => matches!(v, Value::Set(_)),
            PType::DateTime => matches!(v, Value::DateTime(_)),
            PType::TimeDelta => matches!(v, Value::TimeDelta(_)),
            PType::Pattern => matches!(v, Value::Regex(_)),
            PType::Context => matches!(v, Value::Context(_)),
            PType::Callable => matches!(v, Value::Func(_)),
            PType::Object_ => matches!(v, Value::Object(_)),
            PType::Lambda | PType::Expr | PType::Keyword | PType::Rule => true,
            PType::Const | PType::ConstString | PType::ConstNumber | PType::ConstBool => true,
        }
    }
}

/// A host's extra condition on a parameter's value (for parameter types
/// the signature syntax cannot express), checked after the type.
#[derive(Clone)]
pub struct ParamCheck(pub Arc<dyn Fn(&Value) -> bool + Send + Sync>);

impl std::fmt::Debug for ParamCheck {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ParamCheck")
    }
}

/// One declared parameter.
#[derive(Clone, Debug)]
pub struct Param {
    pub name: Arc<str>,
    pub ty: PType,
    pub nullable: bool,
    /// `None`: required. `Some(Default::NoValue)`: optional and absent.
    pub default: Option<DefaultValue>,
    /// The host's extra condition, if any.
    pub check: Option<ParamCheck>,
}

impl Param {
    /// Does an evaluated value fit (type, nullability, host condition)?
    pub fn accepts(&self, v: &Value, rt: &Runtime) -> bool {
        self.ty.accepts(v, self.nullable, rt) && self.check.as_ref().is_none_or(|c| (c.0)(v))
    }

    /// Does the literal `v` of the expression text fit a constant type?
    pub fn accepts_const(&self, v: &Value) -> bool {
        self.ty.accepts_const(v, self.nullable) && self.check.as_ref().is_none_or(|c| (c.0)(v))
    }
}

/// A parameter's default: a literal (so that a library's definitions can be
/// shared between threads), or absent.
#[derive(Clone, Debug)]
pub enum DefaultValue {
    Value(crate::parser::Literal),
    NoValue,
}

/// A bound argument as the function body sees it.
#[derive(Clone)]
pub enum ArgValue {
    Value(Value),
    Lazy(Lambda),
    /// A keyword constant passed to a `Keyword` parameter.
    Keyword(Arc<str>),
    /// `key => value` passed to a `Rule` parameter (both unevaluated;
    /// boxed, so that every argument is not the size of two lambdas).
    Rule(Box<(Lambda, Lambda)>),
    /// Optional parameter left out (`<NoValue>`).
    Missing,
}

struct SyncNull(Value);
// SAFETY: `Value::Null` holds no reference-counted data, so sharing it is sound.
unsafe impl Sync for SyncNull {}
static NULL: SyncNull = SyncNull(Value::Null);

impl ArgValue {
    /// The value (null for lazy / missing arguments).
    pub fn val(&self) -> &Value {
        match self {
            ArgValue::Value(v) => v,
            _ => &NULL.0,
        }
    }

    pub fn is_missing(&self) -> bool {
        matches!(self, ArgValue::Missing)
    }

    /// `Some(value)` unless missing.
    pub fn opt(&self) -> Option<&Value> {
        match self {
            ArgValue::Value(v) => Some(v),
            _ => None,
        }
    }

    /// The lambda of a lazy argument (`None` when the default null was used).
    pub fn lam(&self) -> Option<&Lambda> {
        match self {
            ArgValue::Lazy(l) => Some(l),
            _ => None,
        }
    }

    /// A string or keyword argument; anything else is a `type` error
    /// (never an empty stand-in).
    pub fn str(&self) -> Result<&str> {
        match self {
            ArgValue::Value(Value::Str(s)) => Ok(s),
            ArgValue::Keyword(k) => Ok(k),
            other => Err(Error::type_err(format!(
                "string expected, got {}",
                other.val().type_name()
            ))),
        }
    }
}

/// The arguments of one call's parameters (most functions have at most
/// four: kept inline, without allocating).
pub type ArgList = smallvec::SmallVec<[ArgValue; 4]>;

/// Arguments bound to a function's parameters.
pub struct Args {
    /// One entry per declared positional parameter, then keyword-only ones.
    pub pos: ArgList,
    /// `*args`.
    pub rest: Vec<ArgValue>,
    /// `**kwargs`.
    pub kw: Vec<(Rc<str>, ArgValue)>,
}

impl Args {
    pub fn v(&self, i: usize) -> &Value {
        self.pos[i].val()
    }
    pub fn opt(&self, i: usize) -> Option<&Value> {
        self.pos[i].opt()
    }
    pub fn lam(&self, i: usize) -> Option<&Lambda> {
        self.pos[i].lam()
    }
    /// An integer argument as a Python index (see [`params::PyInt::index`]).
    pub fn int(&self, i: usize) -> Result<i64> {
        params::PyInt(self.v(i)).index()
    }
    /// An integer argument where Python clamps it (see
    /// [`params::PyInt::clamped`]).
    pub fn clamped(&self, i: usize) -> Result<i64> {
        params::PyInt(self.v(i)).clamped()
    }
    /// A string or keyword argument (see [`ArgValue::str`]).
    pub fn str(&self, i: usize) -> Result<&str> {
        self.pos[i].str()
    }
    pub fn rest_values(&self) -> Vec<Value> {
        self.rest.iter().map(|a| a.val().clone()).collect()
    }
}

/// What a function body gets besides its arguments.
pub struct Call<'a> {
    pub ctx: &'a Rc<Context>,
    pub name: &'a str,
}

impl Call<'_> {
    pub fn rt(&self) -> &Runtime {
        &self.ctx.rt
    }

    /// `v`, a sequence the reference returns as a Python list rather than a
    /// tuple, marked as one (see [`crate::list_marks`]).
    pub fn list_result(&self, v: Value) -> Value {
        self.rt().mark_list(&v);
        v
    }

    /// Iterate a value the function accepted as `Iterable` (a lazy sequence
    /// made outside this evaluation counts its items in this one).
    pub fn iter(&self, v: &Value) -> Result<ValueIter> {
        iterate_in(self.run(), v, true)
            .ok_or_else(|| Error::type_err(format!("'{}' object is not iterable", v.type_name())))
    }

    /// The run of the evaluation making this call (its operation counter
    /// and limits).
    #[inline]
    pub fn run(&self) -> &Rc<crate::limits::Run> {
        self.rt().run()
    }

    /// Materialise an iterable.
    pub fn collect(&self, v: &Value) -> Result<Vec<Value>> {
        match v {
            Value::List(l) => Ok(l.to_vec()),
            _ => self.iter(v)?.collect_vec(),
        }
    }
}

/// The body of a function registered in a context (one scope of a host).
pub type Body = dyn Fn(&Call, Args) -> Result<Value>;

/// The body of a function of an engine's library, shared by every thread
/// that evaluates with the engine.
pub type SharedBody = dyn Fn(&Call, Args) -> Result<Value> + Send + Sync;

/// An unevaluated argument with the context it is evaluated in (evaluated
/// by the methods the evaluator adds: `call`, `call1`, `eval`...).
#[derive(Clone)]
pub struct Lambda {
    pub(crate) body: LambdaBody,
    pub ctx: Rc<Context>,
    /// The scope of its last call, kept for the next one when nothing
    /// else held it after the call (a lambda is called once per item).
    pub(crate) spare: SpareScope,
}

/// What a lambda evaluates.
#[derive(Clone)]
pub(crate) enum LambdaBody {
    /// A syntax tree, walked.
    Tree(Arc<Expr>),
    /// Node `id` of the compiled form that runtime `rt` holds, run as code
    /// (made by a compiled call site). Its tree and kernel are read from
    /// there: making and dropping the lambda (once per item of a query)
    /// then touches no reference count of the compiled form, which every
    /// thread evaluating the same expression shares.
    Node {
        rt: Rc<Runtime>,
        id: u32,
        /// The node's kernel, inside the compiled form `rt` holds (found
        /// once, not at each call).
        kernel: Option<NonNull<dyn ArgKernel>>,
    },
}

/// A lambda body that runs on its one argument without a scope or a node
/// walk (the compile stage's kernels): it computes what the lambda's code
/// computes, or `None` when the code must run.
pub(crate) trait ArgKernel: Send + Sync {
    /// Whether it may run now from `ctx`, the lambda's context (every
    /// call from there means the library's function, and the nesting
    /// limit leaves room); its calls are counted as operations when it may.
    fn ready(&self, ctx: &Context) -> Result<bool>;
    /// The value of the body for `arg`.
    fn run(&self, arg: &Value) -> Option<Value>;
    /// Whether the value of the body for `arg` is true.
    fn test(&self, arg: &Value) -> Option<bool>;
}

impl Lambda {
    /// `expr` to be evaluated in `ctx`.
    pub fn new(expr: Arc<Expr>, ctx: Rc<Context>) -> Lambda {
        Lambda {
            body: LambdaBody::Tree(expr),
            ctx,
            spare: SpareScope::default(),
        }
    }

    /// Argument node `id` of the compiled form `ctx`'s runtime holds, with
    /// its kernel there, to be run in `ctx`.
    pub(crate) fn compiled(
        ctx: Rc<Context>,
        id: u32,
        kernel: Option<NonNull<dyn ArgKernel>>,
    ) -> Lambda {
        Lambda {
            body: LambdaBody::Node {
                rt: ctx.rt.clone(),
                id,
                kernel,
            },
            ctx,
            spare: SpareScope::default(),
        }
    }
}

/// A lambda's spare call scope; a copy of the lambda starts without one.
#[derive(Default)]
pub(crate) struct SpareScope(pub std::cell::Cell<Option<Rc<Context>>>);

impl Clone for SpareScope {
    fn clone(&self) -> SpareScope {
        SpareScope::default()
    }
}

/// An argument of a call before resolution. Unevaluated arguments are
/// borrowed from the syntax tree (which a parsed expression shares between
/// threads: cloning its nodes at every call would make the threads contend
/// for their reference counts).
#[derive(Clone)]
pub enum CallArg<'a> {
    Val(Value),
    Expr(&'a Arc<Expr>),
    Omitted,
    Named(&'a Arc<Expr>, &'a Arc<Expr>),
    /// A keyword argument whose value is already known.
    NamedValue(Rc<str>, Value),
}

impl CallArg<'_> {
    pub(crate) fn from_arg(a: &crate::parser::Arg) -> CallArg<'_> {
        match a {
            crate::parser::Arg::Pos(e) => CallArg::Expr(e),
            crate::parser::Arg::Omitted => CallArg::Omitted,
            crate::parser::Arg::Named(k, v) => CallArg::Named(k, v),
        }
    }
}

/// What a function declares: name, form and parameters (one overload).
#[derive(Clone)]
pub struct Signature {
    pub name: Arc<str>,
    pub form: Form,
    pub params: Vec<Param>,
    pub varargs: Option<Param>,
    pub kwonly: Vec<Param>,
    pub kwargs: Option<Param>,
    /// `k => v` arguments are positional mapping rules, not keywords.
    pub nokw: bool,
}

impl std::fmt::Debug for Signature {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.signature())
    }
}

impl Signature {
    /// Read a signature such as `"collection:Iterable, count:int=1, *args:any"`.
    /// Types: any (nullable object), object, String, Number, int, Integer, bool,
    /// Iterable, Iterator, Sequence, Mapping, Set, DateTime, TimeDelta, Pattern,
    /// Context, Callable, HostObject, Lambda, Expr, Keyword, Rule, NoneType,
    /// Const, ConstString, ConstNumber, ConstBool;
    /// a `?` suffix makes a type nullable. Defaults: `null`, `true`, `false`,
    /// integers, floats, `'text'`, `nv` (absent). `kw:` marks keyword-only.
    /// A signature naming an unknown type or with an unreadable default is
    /// an `argument` error.
    pub fn parse(name: &str, form: Form, sig: &str) -> Result<Signature> {
        let mut def = Signature::with_params(name, form, Vec::new());
        let bad = |e: String| {
            Error::new(
                ErrorKind::Argument,
                format!("function {name}, signature \"{sig}\": {e}"),
            )
        };
        for part in sig.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            if part == "nokw" {
                def.nokw = true;
                continue;
            }
            if let Some(rest) = part.strip_prefix("**") {
                def.kwargs = Some(parse_param(rest).map_err(bad)?);
            } else if let Some(rest) = part.strip_prefix('*') {
                def.varargs = Some(parse_param(rest).map_err(bad)?);
            } else if let Some(rest) = part.strip_prefix("kw:") {
                def.kwonly.push(parse_param(rest).map_err(bad)?);
            } else {
                def.params.push(parse_param(part).map_err(bad)?);
            }
        }
        Ok(def)
    }

    /// The given positional parameters and nothing else.
    pub fn with_params(name: &str, form: Form, params: Vec<Param>) -> Signature {
        Signature {
            name: Arc::from(name),
            form,
            params,
            varargs: None,
            kwonly: Vec::new(),
            kwargs: None,
            nokw: false,
        }
    }

    pub fn signature(&self) -> String {
        let mut parts: Vec<String> = self
            .params
            .iter()
            .map(|p| format!("{}:{:?}", p.name, p.ty))
            .collect();
        if let Some(v) = &self.varargs {
            parts.push(format!("*{}:{:?}", v.name, v.ty));
        }
        if let Some(v) = &self.kwargs {
            parts.push(format!("**{}", v.name));
        }
        format!("{}({})", self.name, parts.join(", "))
    }
}

/// A function registered in a context, one scope of a host (or one overload
/// of it): its body may hold the host's single-threaded state.
#[derive(Clone)]
pub struct FunctionDef {
    pub sig: Signature,
    pub body: Rc<Body>,
}

/// A function of an engine's library ([`crate::EngineBuilder::register`]),
/// shared by every thread that evaluates with the engine.
#[derive(Clone)]
pub struct SharedDef {
    pub sig: Signature,
    pub body: Arc<SharedBody>,
    /// The body as a plain function of its two evaluated arguments, for a
    /// function of two value parameters: a compiled call site where this
    /// overload is the one its argument kinds pick calls it directly.
    pub direct: Option<Direct>,
    /// The same for a function of a value and a bare word (`$.name`).
    pub direct_key: Option<DirectKey>,
    /// The body as a plain function of its first argument's value and its
    /// second argument still to evaluate, for a function of two lazy
    /// parameters that evaluates them in order at most once each (`and`,
    /// `or`): a compiled call site whose only overload this is evaluates
    /// the arguments itself instead of making lambdas of them.
    pub direct_lazy: Option<DirectLazy>,
}

/// [`SharedDef::direct_lazy`]: the first argument's value, and what
/// evaluates the second.
pub type DirectLazy = fn(Value, &mut dyn FnMut() -> Result<Value>) -> Result<Value>;

/// What a function of two evaluated values computes ([`SharedDef::direct`]):
/// for any two values it accepts, and, when given, for two integers
/// without making values of them.
#[derive(Clone, Copy)]
pub struct Direct {
    pub values: fn(&Value, &Value) -> Result<Value>,
    /// The same for two integers; `None` where the result needs `values`
    /// (an overflow, a zero divisor).
    pub ints: Option<IntDirect>,
}

/// [`Direct::ints`].
pub type IntDirect = fn(i64, i64) -> IntOutcome;

/// What [`Direct::ints`] computes: an integer, a boolean, or "the general
/// body is needed" (an overflow, a zero divisor). A tag and a word, which
/// a call returns in two registers: an enum of them would be returned
/// through memory, written by parts and read back whole, which stalls the
/// processor at each call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IntOutcome {
    tag: u8,
    n: i64,
}

impl IntOutcome {
    const INT: u8 = 0;
    const BOOL: u8 = 1;
    /// The general body is needed.
    pub const OTHER: IntOutcome = IntOutcome { tag: 2, n: 0 };

    #[inline]
    pub fn int(n: i64) -> IntOutcome {
        IntOutcome { tag: Self::INT, n }
    }

    #[inline]
    pub fn bool(b: bool) -> IntOutcome {
        IntOutcome {
            tag: Self::BOOL,
            n: i64::from(b),
        }
    }

    /// An integer when there is one, else [`IntOutcome::OTHER`].
    #[inline]
    pub fn checked(n: Option<i64>) -> IntOutcome {
        n.map_or(IntOutcome::OTHER, IntOutcome::int)
    }

    /// Is it [`IntOutcome::OTHER`]?
    #[inline]
    pub fn is_other(self) -> bool {
        self.tag == Self::OTHER.tag
    }

    /// The integer, when it is one.
    #[inline]
    pub fn as_int(self) -> Option<i64> {
        (self.tag == Self::INT).then_some(self.n)
    }

    /// Whether it is true (a nonzero integer, true), unless it is
    /// [`IntOutcome::OTHER`].
    #[inline]
    pub fn truthy(self) -> Option<bool> {
        (!self.is_other()).then_some(self.n != 0)
    }

    /// The value, unless it is [`IntOutcome::OTHER`].
    #[inline]
    pub fn value(self) -> Option<Value> {
        match self.tag {
            Self::INT => Some(Value::Int(self.n)),
            Self::BOOL => Some(Value::Bool(self.n != 0)),
            _ => None,
        }
    }
}

/// What a function of a value and a bare word computes
/// ([`SharedDef::direct_key`]).
pub type DirectKey = fn(&Value, &str) -> Result<Value>;

impl Deref for FunctionDef {
    type Target = Signature;
    fn deref(&self) -> &Signature {
        &self.sig
    }
}

impl DerefMut for FunctionDef {
    fn deref_mut(&mut self) -> &mut Signature {
        &mut self.sig
    }
}

impl Deref for SharedDef {
    type Target = Signature;
    fn deref(&self) -> &Signature {
        &self.sig
    }
}

impl DerefMut for SharedDef {
    fn deref_mut(&mut self) -> &mut Signature {
        &mut self.sig
    }
}

impl std::fmt::Debug for FunctionDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.signature())
    }
}

impl std::fmt::Debug for SharedDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.signature())
    }
}

impl FunctionDef {
    /// Build from a signature (see [`Signature::parse`] for its syntax),
    /// for signatures known only at run time; [`crate::yaql_fn!`] derives
    /// the signature from typed Rust parameters instead.
    ///
    /// # Panics
    /// On a signature naming an unknown type or with an unreadable default
    /// (a mistake in the host's code; [`FunctionDef::try_new`] returns it as
    /// an error instead).
    pub fn new(
        name: &str,
        form: Form,
        sig: &str,
        body: impl Fn(&Call, Args) -> Result<Value> + 'static,
    ) -> FunctionDef {
        FunctionDef::try_new(name, form, sig, body).unwrap_or_else(|e| panic!("{}", e.message))
    }

    /// [`FunctionDef::new`] for signatures made at run time: a signature
    /// naming an unknown type or with an unreadable default is an
    /// `argument` error.
    pub fn try_new(
        name: &str,
        form: Form,
        sig: &str,
        body: impl Fn(&Call, Args) -> Result<Value> + 'static,
    ) -> Result<FunctionDef> {
        Ok(FunctionDef {
            sig: Signature::parse(name, form, sig)?,
            body: Rc::new(body),
        })
    }

    /// A function with the given positional parameters and nothing else.
    pub fn with_params(
        name: &str,
        form: Form,
        params: Vec<Param>,
        body: impl Fn(&Call, Args) -> Result<Value> + 'static,
    ) -> FunctionDef {
        FunctionDef {
            sig: Signature::with_params(name, form, params),
            body: Rc::new(body),
        }
    }
}

impl SharedDef {
    /// The same function, called as `direct` by compiled call sites that
    /// pick it for their argument kinds (see [`SharedDef::direct`]); `direct`
    /// must compute what the body does for any two values it accepts.
    pub fn with_direct(mut self, direct: fn(&Value, &Value) -> Result<Value>) -> SharedDef {
        self.direct = Some(Direct {
            values: direct,
            ints: None,
        });
        self
    }

    /// [`SharedDef::with_direct`] with what it computes for two integers
    /// (see [`Direct::ints`]).
    pub fn with_direct_ints(
        mut self,
        direct: fn(&Value, &Value) -> Result<Value>,
        ints: IntDirect,
    ) -> SharedDef {
        self.direct = Some(Direct {
            values: direct,
            ints: Some(ints),
        });
        self
    }

    /// [`SharedDef::with_direct`] for a function of a value and a bare word.
    pub fn with_direct_key(mut self, direct: DirectKey) -> SharedDef {
        self.direct_key = Some(direct);
        self
    }

    /// The same function, called as `direct` by compiled call sites whose
    /// only overload it is (see [`SharedDef::direct_lazy`]); `direct` must
    /// compute what the body does.
    pub fn with_direct_lazy(mut self, direct: DirectLazy) -> SharedDef {
        self.direct_lazy = Some(direct);
        self
    }

    /// A function with the given positional parameters and nothing else.
    pub fn with_params(
        name: &str,
        form: Form,
        params: Vec<Param>,
        body: impl Fn(&Call, Args) -> Result<Value> + Send + Sync + 'static,
    ) -> SharedDef {
        SharedDef {
            sig: Signature::with_params(name, form, params),
            body: Arc::new(body),
            direct: None,
            direct_key: None,
            direct_lazy: None,
        }
    }

    /// The same function for one context (a host registering a library
    /// function in a scope too).
    pub fn to_local(&self) -> FunctionDef {
        let body = self.body.clone();
        FunctionDef {
            sig: self.sig.clone(),
            body: Rc::new(move |c: &Call, a: Args| body(c, a)),
        }
    }
}

fn parse_param(text: &str) -> std::result::Result<Param, String> {
    let (decl, default) = match text.split_once('=') {
        Some((d, v)) => (d.trim(), Some(parse_default(v.trim())?)),
        None => (text.trim(), None),
    };
    let (name, ty) = decl.split_once(':').unwrap_or((decl, "any"));
    let (ty, nullable) = match ty.strip_suffix('?') {
        Some(t) => (t, true),
        None => (ty, false),
    };
    let ty = match ty {
        "any" => PType::Any,
        "object" => PType::Object,
        "NoneType" => PType::NoneType,
        "String" => PType::String,
        "Number" => PType::Number,
        "int" => PType::Int,
        "Integer" => PType::Integer,
        "bool" => PType::Bool,
        "Iterable" => PType::Iterable,
        "Iterator" => PType::Iterator,
        "Sequence" => PType::Sequence,
        "Mapping" => PType::Mapping,
        "Set" => PType::Set,
        "DateTime" => PType::DateTime,
        "TimeDelta" => PType::TimeDelta,
        "Pattern" => PType::Pattern,
        "Context" => PType::Context,
        "Callable" => PType::Callable,
        "HostObject" => PType::Object_,
        "Lambda" => PType::Lambda,
        "Expr" => PType::Expr,
        "Keyword" => PType::Keyword,
        "Rule" => PType::Rule,
        "Const" => PType::Const,
        "ConstString" => PType::ConstString,
        "ConstNumber" => PType::ConstNumber,
        "ConstBool" => PType::ConstBool,
        other => return Err(format!("unknown parameter type \"{other}\"")),
    };
    Ok(Param {
        name: Arc::from(name.trim()),
        ty,
        nullable: nullable || ty == PType::Any,
        default,
        check: None,
    })
}

fn parse_default(v: &str) -> std::result::Result<DefaultValue, String> {
    use crate::parser::Literal;
    Ok(DefaultValue::Value(match v {
        "nv" => return Ok(DefaultValue::NoValue),
        "null" => Literal::Null,
        "true" => Literal::Bool(true),
        "false" => Literal::Bool(false),
        _ if v.len() >= 2 && v.starts_with('\'') && v.ends_with('\'') => {
            Literal::Str(Arc::from(&v[1..v.len() - 1]))
        }
        _ => match (v.parse::<i64>(), v.parse::<f64>()) {
            (Ok(i), _) => Literal::Int(i),
            (_, Ok(x)) => Literal::Float(x),
            _ => return Err(format!("unreadable default value \"{v}\"")),
        },
    }))
}

/// Convenience: an error of the given kind.
pub fn err(kind: ErrorKind, msg: impl Into<String>) -> Error {
    Error::new(kind, msg)
}
