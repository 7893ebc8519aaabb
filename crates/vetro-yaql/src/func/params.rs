//! Typed parameters of library functions: each Rust parameter type says
//! how it is declared in the function's [`Signature`] (its YAQL type,
//! nullability, whether it is `*args` or `**kwargs`) and how the bound
//! argument becomes the Rust value. The [`yaql_fn!`](crate::yaql_fn) macro
//! builds a function from a parameter list of these types, so the
//! signature the resolver matches arguments against is derived from the
//! body's own types and cannot disagree with it: an argument of another
//! type is the reference's "no matching function", never a stand-in value.
//!
//! ```
//! use vetro_yaql::func::{Form, Signature};
//! use vetro_yaql::yaql_fn;
//!
//! let def = yaql_fn!(Method "repeat", |_c| (text: &str, times: i64 = 1) {
//!     Ok(text.repeat(times.max(0) as usize))
//! });
//! // A library function: `let def: vetro_yaql::func::SharedDef = def.into();`
//! assert_eq!(def.sig.form, Form::Method);
//! assert_eq!(def.sig.signature(), "repeat(text:String, times:Integer)");
//! ```

use super::{
    ArgValue, Args, Call, DefaultValue, FunctionDef, Lambda, PType, Param, ParamCheck, SharedDef,
    Signature,
};
use crate::error::{Error, ErrorKind, Result};
use crate::iter::ValueIter;
use crate::parser::Literal;
use crate::value::{Dict, List, RegexValue, Set, Str, Value};
use std::rc::Rc;
use std::sync::Arc;

/// A parameter type of a library function (see the module's doc).
pub trait Arg<'a>: Sized {
    /// Add the parameter called `name` to `sig`.
    fn declare(sig: &mut Signature, name: &str, default: Option<DefaultValue>);
    /// Take the argument from the bound ones; `at` is the next positional
    /// (or keyword-only) slot.
    fn extract(call: &Call, args: &'a Args, at: &mut usize) -> Result<Self>;
}

/// A parameter bound to one slot: an evaluated value of one YAQL type, or
/// a lazy argument.
pub trait Slot<'a>: Sized {
    /// The parameter type the resolver matches arguments against.
    const PTYPE: PType;
    /// Does the parameter accept null?
    const NULLABLE: bool = false;
    /// A host's condition on the value beyond its YAQL type (a value of
    /// the type that fails it does not match the parameter, so another
    /// overload or the reference's "no matching function" answers it).
    fn check() -> Option<ParamCheck> {
        None
    }
    /// Convert the bound argument. The resolver has already checked its
    /// type, so a mismatch here is a bug of the declaration (a `type`
    /// error, never a stand-in value).
    fn from_slot(call: &Call, arg: &'a ArgValue) -> Result<Self>;
}

pub(crate) fn param<'a, T: Slot<'a>>(name: &str, default: Option<DefaultValue>) -> Param {
    Param {
        name: Arc::from(name),
        ty: T::PTYPE,
        nullable: T::NULLABLE || T::PTYPE == PType::Any,
        default,
        check: T::check(),
    }
}

impl<'a, T: Slot<'a>> Arg<'a> for T {
    fn declare(sig: &mut Signature, name: &str, default: Option<DefaultValue>) {
        sig.params.push(param::<T>(name, default));
    }
    fn extract(call: &Call, args: &'a Args, at: &mut usize) -> Result<T> {
        let arg = args.pos.get(*at).ok_or_else(|| unbound(call))?;
        *at += 1;
        T::from_slot(call, arg)
    }
}

fn unbound(call: &Call) -> Error {
    Error::type_err(format!("{}: argument missing", call.name))
}

fn mismatch(want: &str, arg: &ArgValue) -> Error {
    Error::type_err(format!("{want} expected, got {}", arg.val().type_name()))
}

/// `*name`: the remaining positional arguments, each of type `T`.
pub struct Rest<T>(pub Vec<T>);

impl<'a, T: Slot<'a>> Arg<'a> for Rest<T> {
    fn declare(sig: &mut Signature, name: &str, _: Option<DefaultValue>) {
        sig.varargs = Some(param::<T>(name, None));
    }
    fn extract(call: &Call, args: &'a Args, _: &mut usize) -> Result<Self> {
        let items = args.rest.iter().map(|a| T::from_slot(call, a));
        Ok(Rest(items.collect::<Result<_>>()?))
    }
}

/// `**name`: the keyword arguments no parameter took, as given.
pub struct KwArgs<'a>(pub &'a [(Rc<str>, ArgValue)]);

impl<'a> Arg<'a> for KwArgs<'a> {
    fn declare(sig: &mut Signature, name: &str, _: Option<DefaultValue>) {
        sig.kwargs = Some(param::<&Value>(name, None));
    }
    fn extract(_: &Call, args: &'a Args, _: &mut usize) -> Result<Self> {
        Ok(KwArgs(&args.kw))
    }
}

/// `**name` of lazy arguments (`Lambda`): the keyword arguments no
/// parameter took, each unevaluated, for the function to evaluate where it
/// chooses.
pub struct LazyKwArgs<'a>(pub &'a [(Rc<str>, ArgValue)]);

impl<'a> Arg<'a> for LazyKwArgs<'a> {
    fn declare(sig: &mut Signature, name: &str, _: Option<DefaultValue>) {
        sig.kwargs = Some(param::<&Lambda>(name, None));
    }
    fn extract(_: &Call, args: &'a Args, _: &mut usize) -> Result<Self> {
        Ok(LazyKwArgs(&args.kw))
    }
}

impl<'a> LazyKwArgs<'a> {
    /// Each argument's name with its expression.
    pub fn iter(&self) -> impl std::iter::Iterator<Item = (&'a Rc<str>, Option<&'a Lambda>)> {
        self.0.iter().map(|(k, v)| (k, v.lam()))
    }
}

/// A keyword-only parameter (declared after the positional ones).
pub struct KwOnly<T>(pub T);

impl<'a, T: Slot<'a>> Arg<'a> for KwOnly<T> {
    fn declare(sig: &mut Signature, name: &str, default: Option<DefaultValue>) {
        sig.kwonly.push(param::<T>(name, default));
    }
    fn extract(call: &Call, args: &'a Args, at: &mut usize) -> Result<Self> {
        <T as Arg>::extract(call, args, at).map(KwOnly)
    }
}

/// `T`, or null (and a left-out optional argument) as `None`.
impl<'a, T: Slot<'a>> Slot<'a> for Option<T> {
    const PTYPE: PType = T::PTYPE;
    const NULLABLE: bool = true;
    fn check() -> Option<ParamCheck> {
        let inner = T::check()?;
        Some(ParamCheck(Arc::new(move |v| v.is_null() || (inner.0)(v))))
    }
    fn from_slot(call: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg {
            ArgValue::Missing | ArgValue::Value(Value::Null) => Ok(None),
            arg => T::from_slot(call, arg).map(Some),
        }
    }
}

/// An optional parameter without a default (`NoValue`): `None` only when
/// the argument is left out, unlike `Option` for which null is `None` too.
pub struct Optional<T>(pub Option<T>);

impl<'a, T: Slot<'a>> Slot<'a> for Optional<T> {
    const PTYPE: PType = T::PTYPE;
    const NULLABLE: bool = T::NULLABLE;
    fn check() -> Option<ParamCheck> {
        T::check()
    }
    fn from_slot(call: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg {
            ArgValue::Missing => Ok(Optional(None)),
            arg => T::from_slot(call, arg).map(|v| Optional(Some(v))),
        }
    }
}

/// Anything, null included (`any`).
impl<'a> Slot<'a> for &'a Value {
    const PTYPE: PType = PType::Any;
    const NULLABLE: bool = true;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        Ok(arg.val())
    }
}

/// Anything, null included, owned.
impl<'a> Slot<'a> for Value {
    const PTYPE: PType = PType::Any;
    const NULLABLE: bool = true;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        Ok(arg.val().clone())
    }
}

/// Null only (`NoneType`): an overload chosen for a null argument.
impl<'a> Slot<'a> for () {
    const PTYPE: PType = PType::NoneType;
    const NULLABLE: bool = true;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg.val() {
            Value::Null => Ok(()),
            _ => Err(mismatch("null", arg)),
        }
    }
}

/// Declares a wrapper of a borrowed value that the resolver matched
/// against one parameter type; the wrapper dereferences to the value.
macro_rules! value_kind {
    ($(#[$doc:meta])* $name:ident, $ptype:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy)]
        pub struct $name<'a>(pub &'a Value);

        impl std::ops::Deref for $name<'_> {
            type Target = Value;
            fn deref(&self) -> &Value {
                self.0
            }
        }

        impl<'a> Slot<'a> for $name<'a> {
            const PTYPE: PType = PType::$ptype;
            fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
                match arg {
                    ArgValue::Value(v) if !v.is_null() => Ok($name(v)),
                    _ => Err(mismatch(stringify!($ptype), arg)),
                }
            }
        }
    };
}

value_kind!(
    /// Anything but null (`object`).
    Object,
    Object
);
value_kind!(
    /// An integer or a float, not a boolean (`Number`).
    Number,
    Number
);
value_kind!(
    /// An integer of any size, or a boolean (Python's `int`).
    PyInt,
    Int
);
value_kind!(
    /// A list, set, lazy sequence, or a dictionary where the options make
    /// dictionaries iterable (`Iterable`).
    Iterable,
    Iterable
);
value_kind!(
    /// An iterable that is not a set (the reference's `Iterable` with a
    /// validator refusing sets, as `insert` declares its receiver).
    NonSetIterable,
    NonSetIterable
);
value_kind!(
    /// A lazy single-pass sequence (`Iterator`).
    Iterator,
    Iterator
);
value_kind!(
    /// A context value (`Context`).
    ContextArg,
    Context
);
value_kind!(
    /// A function value (`Callable`).
    Callable,
    Callable
);
value_kind!(
    /// A host object (`HostObject`).
    HostObjectArg,
    Object_
);

impl Iterable<'_> {
    /// Iterate the items.
    pub fn iter(&self, call: &Call) -> Result<ValueIter> {
        call.iter(self.0)
    }
    /// The items, materialised.
    pub fn collect(&self, call: &Call) -> Result<Vec<Value>> {
        call.collect(self.0)
    }
}

impl PyInt<'_> {
    /// As a Python index: a bool counts as 0 or 1, beyond 64 bits it is the
    /// reference's `OverflowError`.
    pub fn index(&self) -> Result<i64> {
        match self.0 {
            Value::BigInt(_) => Err(index_overflow()),
            v => v.as_i64().ok_or_else(|| {
                Error::type_err(format!("an integer is required, not {}", v.type_name()))
            }),
        }
    }
    /// Where Python clamps (slice bounds, search windows, `range()`):
    /// beyond 64 bits it is the nearest 64-bit integer, which no sequence
    /// can reach.
    pub fn clamped(&self) -> Result<i64> {
        match self.0 {
            Value::BigInt(b) => Ok(if num_traits::Signed::is_negative(&**b) {
                i64::MIN
            } else {
                i64::MAX
            }),
            _ => self.index(),
        }
    }
}

/// Declares a slot whose argument is a value of one variant, borrowed or
/// copied out of it.
macro_rules! variant_slot {
    ($(#[$doc:meta])* $ty:ty, $ptype:ident, $want:literal, $pat:pat => $out:expr) => {
        $(#[$doc])*
        impl<'a> Slot<'a> for $ty {
            const PTYPE: PType = PType::$ptype;
            fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
                match arg.val() {
                    $pat => Ok($out),
                    _ => Err(mismatch($want, arg)),
                }
            }
        }
    };
}

variant_slot!(
    /// A string (`String`).
    &'a str, String, "string", Value::Str(s) => s
);
variant_slot!(
    /// A string (`String`), shared.
    &'a Str, String, "string", Value::Str(s) => s
);
variant_slot!(
    /// A boolean (`bool`).
    bool, Bool, "boolean", Value::Bool(b) => *b
);
variant_slot!(
    /// A list or tuple (`Sequence`).
    &'a List, Sequence, "sequence", Value::List(l) => l
);
variant_slot!(
    /// A dictionary (`Mapping`).
    &'a Dict, Mapping, "mapping", Value::Dict(d) => d
);
variant_slot!(
    /// A set (`Set`).
    &'a Rc<Set>, Set, "set", Value::Set(s) => s
);
variant_slot!(
    /// A compiled regular expression (`Pattern`).
    &'a Rc<RegexValue>, Pattern, "regular expression", Value::Regex(r) => r
);

variant_slot!(
    /// A datetime (`DateTime`).
    crate::datetime::DateTime, DateTime, "datetime", Value::DateTime(d) => *d
);

/// A timespan in microseconds (`TimeDelta`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimeDelta(pub i64);

variant_slot!(TimeDelta, TimeDelta, "timedelta", Value::TimeDelta(t) => TimeDelta(*t));

/// An integer that fits 64 bits, not a boolean (`Integer`); a larger one
/// is Python's `OverflowError` for an index.
impl<'a> Slot<'a> for i64 {
    const PTYPE: PType = PType::Integer;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg.val() {
            Value::Int(i) => Ok(*i),
            Value::BigInt(_) => Err(index_overflow()),
            _ => Err(mismatch("integer", arg)),
        }
    }
}

fn index_overflow() -> Error {
    Error::new(
        ErrorKind::Overflow,
        "cannot fit 'int' into an index-sized integer",
    )
}

/// The unevaluated argument (`Lambda`), for the function to evaluate.
impl<'a> Slot<'a> for &'a Lambda {
    const PTYPE: PType = PType::Lambda;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        arg.lam().ok_or_else(|| mismatch("expression", arg))
    }
}

/// The unevaluated argument (`Lambda`), owned.
impl<'a> Slot<'a> for Lambda {
    const PTYPE: PType = PType::Lambda;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        arg.lam()
            .cloned()
            .ok_or_else(|| mismatch("expression", arg))
    }
}

/// A number, an integer or a float (not a boolean), as a float.
impl<'a> Slot<'a> for f64 {
    const PTYPE: PType = PType::Number;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg.val() {
            v @ (Value::Int(_) | Value::BigInt(_) | Value::Float(_)) => {
                v.as_f64().ok_or_else(|| mismatch("number", arg))
            }
            _ => Err(mismatch("number", arg)),
        }
    }
}

variant_slot!(
    /// A string (`String`), owned.
    String, String, "string", Value::Str(s) => s.to_string()
);
variant_slot!(
    /// A string (`String`), shared.
    Rc<str>, String, "string", Value::Str(s) => s.to_rc()
);
variant_slot!(
    /// A string (`String`), shared.
    Str, String, "string", Value::Str(s) => s.clone()
);

/// Any iterable (list, set, lazy sequence, dictionary where the options
/// make them iterable), materialised; each item must fit `T`.
impl<'a, T: for<'x> Slot<'x>> Slot<'a> for Vec<T> {
    const PTYPE: PType = PType::Iterable;
    fn from_slot(call: &Call, arg: &'a ArgValue) -> Result<Self> {
        call.collect(arg.val())?
            .into_iter()
            .map(|v| T::from_slot(call, &ArgValue::Value(v)))
            .collect()
    }
}

/// The unevaluated argument as an expression (`Expr`).
pub struct ExprArg<'a>(pub &'a Lambda);

impl<'a> Slot<'a> for ExprArg<'a> {
    const PTYPE: PType = PType::Expr;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        arg.lam()
            .map(ExprArg)
            .ok_or_else(|| mismatch("expression", arg))
    }
}

/// A bare word, passed as its name (`Keyword`).
pub struct Keyword<'a>(pub &'a str);

impl<'a> Slot<'a> for Keyword<'a> {
    const PTYPE: PType = PType::Keyword;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg {
            ArgValue::Keyword(k) => Ok(Keyword(k)),
            _ => Err(mismatch("keyword", arg)),
        }
    }
}

/// A `key => value` argument, both sides unevaluated (`Rule`).
pub struct Rule<'a> {
    pub key: &'a Lambda,
    pub value: &'a Lambda,
}

impl<'a> Slot<'a> for Rule<'a> {
    const PTYPE: PType = PType::Rule;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg {
            ArgValue::Rule(rule) => Ok(Rule {
                key: &rule.0,
                value: &rule.1,
            }),
            _ => Err(mismatch("key => value", arg)),
        }
    }
}

/// A lazy argument that is either an expression or a `key => value` rule
/// (`Lambda` parameters of `nokw` functions take both).
pub enum LazyArg<'a> {
    Lambda(&'a Lambda),
    Rule(Rule<'a>),
}

impl<'a> Slot<'a> for LazyArg<'a> {
    const PTYPE: PType = PType::Lambda;
    fn from_slot(_: &Call, arg: &'a ArgValue) -> Result<Self> {
        match arg {
            ArgValue::Lazy(l) => Ok(LazyArg::Lambda(l)),
            ArgValue::Rule(rule) => Ok(LazyArg::Rule(Rule {
                key: &rule.0,
                value: &rule.1,
            })),
            _ => Err(mismatch("expression", arg)),
        }
    }
}

/// A function built by [`yaql_fn!`](crate::yaql_fn): its signature, derived
/// from the parameters' Rust types, and its body. It becomes a function of
/// an engine's library (a [`SharedDef`], when the body is `Send + Sync`) or
/// of one context (a [`FunctionDef`], whose body may hold a host's
/// single-threaded state) with `into()`; `register` takes it as it is.
pub struct FnDef<F> {
    pub sig: Signature,
    pub body: F,
}

impl<F: Fn(&Call, Args) -> Result<Value>> FnDef<F> {
    pub fn new(sig: Signature, body: F) -> FnDef<F> {
        FnDef { sig, body }
    }

    /// The same function taking `key => value` arguments as positional
    /// mapping rules rather than keyword arguments.
    pub fn nokw(mut self) -> FnDef<F> {
        self.sig.nokw = true;
        self
    }
}

impl<F: Fn(&Call, Args) -> Result<Value> + Send + Sync + 'static> From<FnDef<F>> for SharedDef {
    fn from(def: FnDef<F>) -> SharedDef {
        SharedDef {
            sig: def.sig,
            body: Arc::new(def.body),
            direct: None,
            direct_key: None,
            direct_lazy: None,
        }
    }
}

impl<F: Fn(&Call, Args) -> Result<Value> + 'static> From<FnDef<F>> for FunctionDef {
    fn from(def: FnDef<F>) -> FunctionDef {
        FunctionDef {
            sig: def.sig,
            body: Rc::new(def.body),
        }
    }
}

/// Defaults of typed parameters (`name: T = default` in
/// [`yaql_fn!`](crate::yaql_fn)): literals, [`defaults::Null`], or [`defaults::NoValue`] for an
/// optional parameter left out.
pub mod defaults {
    /// A null default.
    pub struct Null;
    /// No default value: the parameter is optional and left out.
    pub struct NoValue;
}

/// A default value of a typed parameter.
pub trait IntoDefault {
    fn into_default(self) -> DefaultValue;
}

impl IntoDefault for defaults::Null {
    fn into_default(self) -> DefaultValue {
        DefaultValue::Value(Literal::Null)
    }
}

impl IntoDefault for defaults::NoValue {
    fn into_default(self) -> DefaultValue {
        DefaultValue::NoValue
    }
}

impl IntoDefault for i32 {
    fn into_default(self) -> DefaultValue {
        DefaultValue::Value(Literal::Int(self.into()))
    }
}

impl IntoDefault for f64 {
    fn into_default(self) -> DefaultValue {
        DefaultValue::Value(Literal::Float(self))
    }
}

impl IntoDefault for bool {
    fn into_default(self) -> DefaultValue {
        DefaultValue::Value(Literal::Bool(self))
    }
}

impl IntoDefault for &str {
    fn into_default(self) -> DefaultValue {
        DefaultValue::Value(Literal::Str(Arc::from(self)))
    }
}

/// A library function built from a typed parameter list, its signature
/// derived from the parameters' Rust types (see [`crate::func::params`]):
///
/// `yaql_fn!(Form "name", |call| (p1: T1, p2: T2 = default, ...) { body })`
///
/// `Form` is `Function`, `Method` or `Both`; each parameter type implements
/// [`Arg`] (a [`Slot`] type, [`Rest`] for `*args`, [`KwArgs`] for
/// `**kwargs`, [`KwOnly`] for a keyword-only one); a default is a literal,
/// `Null` or `NoValue`. `call` is bound to the [`Call`]; the body returns a
/// `Result` of anything that converts into a [`Value`]. The result is a
/// [`FnDef`], which the engine builder, a session or a context registers as
/// it is (it becomes a [`SharedDef`] or a [`FunctionDef`] with `into()`).
#[macro_export]
macro_rules! yaql_fn {
    ($form:ident $name:expr, |$c:tt| ($($p:ident : $t:ty $(= $d:expr)?),* $(,)?) $body:block) => {{
        #[allow(unused_mut)]
        let mut sig = $crate::func::Signature::with_params(
            $name,
            $crate::func::Form::$form,
            ::std::vec::Vec::new(),
        );
        $(
            <$t as $crate::func::params::Arg>::declare(
                &mut sig,
                stringify!($p),
                $crate::yaql_fn!(@default $($d)?),
            );
        )*
        $crate::func::params::FnDef::new(
            sig,
            move |__call: &$crate::func::Call, __args: $crate::func::Args| {
                let mut __at = 0usize;
                $(
                    #[allow(unused_variables, non_snake_case)]
                    let $p = <$t as $crate::func::params::Arg>::extract(__call, &__args, &mut __at)?;
                )*
                let _ = __at;
                #[allow(unused_variables)]
                let $c = __call;
                // The body runs as a closure of its own, so that its
                // `return` and `?` give its own result type.
                #[allow(clippy::redundant_closure_call)]
                let __out: $crate::Result<_> = (|| $body)();
                __out.map(::std::convert::Into::<$crate::value::Value>::into)
            },
        )
    }};
    (@default) => { ::std::option::Option::None };
    (@default $d:expr) => {{
        #[allow(unused_imports)]
        use $crate::func::params::defaults::*;
        ::std::option::Option::Some($crate::func::params::IntoDefault::into_default($d))
    }};
}
