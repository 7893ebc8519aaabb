//! Host functions with Rust-typed parameters: the parameter types the
//! resolver matches arguments against come from the closure's own
//! parameter types, so a signature cannot disagree with the body.
//!
//! ```
//! use vetro_yaql::{Engine, EngineOptions, Form, Value};
//!
//! let engine = Engine::builder(EngineOptions::default())
//!     .register_fn("double", Form::Both, |x: i64| x * 2)
//!     .register_fn("greet", Form::Function, |name: String, times: Option<i64>| {
//!         name.repeat(times.unwrap_or(1) as usize)
//!     })
//!     .build();
//! assert_eq!(engine.eval_str("double(21)", Value::Null).unwrap(), Value::Int(42));
//! assert_eq!(engine.eval_str("greet(ab, 2)", Value::Null).unwrap(), Value::from("abab"));
//! // A string does not fit `i64`: no overload matches.
//! assert!(engine.eval_str("double('x')", Value::Null).is_err());
//! ```

use super::{ArgValue, Call, Form, FunctionDef, Lambda, PType, Param, SharedDef};
use crate::error::{Error, ErrorKind, Result};
use crate::value::Value;
use std::rc::Rc;
use std::sync::Arc;

/// A Rust type a typed host function takes as an evaluated argument.
pub trait FromValue: Sized + 'static {
    /// The parameter type the resolver matches arguments against.
    const PTYPE: PType;
    /// Does the parameter accept null?
    const NULLABLE: bool = false;

    /// Convert a value; a value of another type is a `type` error.
    fn from_value(call: &Call, v: &Value) -> Result<Self>;
}

/// A Rust type a typed host function takes as a parameter: every
/// [`FromValue`] type, and [`Lambda`] for an argument the function
/// evaluates itself (`where`-style predicates).
pub trait FromArg: Sized + 'static {
    /// The parameter type the resolver matches arguments against.
    const PTYPE: PType;
    /// Does the parameter accept null?
    const NULLABLE: bool = false;

    /// Convert the bound argument.
    fn from_arg(call: &Call, arg: &ArgValue) -> Result<Self>;
}

impl<T: FromValue> FromArg for T {
    const PTYPE: PType = T::PTYPE;
    const NULLABLE: bool = T::NULLABLE;

    fn from_arg(call: &Call, arg: &ArgValue) -> Result<T> {
        T::from_value(call, arg.val())
    }
}

fn mismatch(want: &str, v: &Value) -> Error {
    Error::type_err(format!("{want} expected, got {}", v.type_name()))
}

impl FromValue for Value {
    const PTYPE: PType = PType::Any;
    const NULLABLE: bool = true;

    fn from_value(_: &Call, v: &Value) -> Result<Value> {
        Ok(v.clone())
    }
}

/// An integer (not a boolean); one beyond `i64` is an `overflow` error.
impl FromValue for i64 {
    const PTYPE: PType = PType::Integer;

    fn from_value(_: &Call, v: &Value) -> Result<i64> {
        match v {
            Value::Int(i) => Ok(*i),
            Value::BigInt(_) => Err(Error::new(
                ErrorKind::Overflow,
                "integer too large for a 64-bit parameter",
            )),
            _ => Err(mismatch("integer", v)),
        }
    }
}

/// A number: an integer or a float (not a boolean).
impl FromValue for f64 {
    const PTYPE: PType = PType::Number;

    fn from_value(_: &Call, v: &Value) -> Result<f64> {
        match v {
            Value::Int(_) | Value::BigInt(_) | Value::Float(_) => {
                v.as_f64().ok_or_else(|| mismatch("number", v))
            }
            _ => Err(mismatch("number", v)),
        }
    }
}

impl FromValue for bool {
    const PTYPE: PType = PType::Bool;

    fn from_value(_: &Call, v: &Value) -> Result<bool> {
        match v {
            Value::Bool(b) => Ok(*b),
            _ => Err(mismatch("boolean", v)),
        }
    }
}

impl FromValue for String {
    const PTYPE: PType = PType::String;

    fn from_value(_: &Call, v: &Value) -> Result<String> {
        match v {
            Value::Str(s) => Ok(s.to_string()),
            _ => Err(mismatch("string", v)),
        }
    }
}

impl FromValue for Rc<str> {
    const PTYPE: PType = PType::String;

    fn from_value(_: &Call, v: &Value) -> Result<Rc<str>> {
        match v {
            Value::Str(s) => Ok(s.clone()),
            _ => Err(mismatch("string", v)),
        }
    }
}

/// Any iterable (list, set, lazy sequence, dictionary where the options
/// make them iterable), materialised; each item must fit `T`.
impl<T: FromValue> FromValue for Vec<T> {
    const PTYPE: PType = PType::Iterable;

    fn from_value(call: &Call, v: &Value) -> Result<Vec<T>> {
        call.collect(v)?
            .iter()
            .map(|x| T::from_value(call, x))
            .collect()
    }
}

/// `T`, or null (`None`).
impl<T: FromValue> FromValue for Option<T> {
    const PTYPE: PType = T::PTYPE;
    const NULLABLE: bool = true;

    fn from_value(call: &Call, v: &Value) -> Result<Option<T>> {
        match v {
            Value::Null => Ok(None),
            v => T::from_value(call, v).map(Some),
        }
    }
}

/// The unevaluated argument, for the function to evaluate (`call1`...).
impl FromArg for Lambda {
    const PTYPE: PType = PType::Lambda;

    fn from_arg(_: &Call, arg: &ArgValue) -> Result<Lambda> {
        arg.lam()
            .cloned()
            .ok_or_else(|| Error::type_err("expression expected"))
    }
}

/// What a typed host function returns: a value convertible into a
/// [`Value`] (`()` and `None` are null), or a `Result` of one (an `Err` is
/// raised as it is, a host error with its payload included).
pub trait IntoResult {
    fn into_result(self) -> Result<Value>;
}

impl<T: Into<Value>> IntoResult for T {
    fn into_result(self) -> Result<Value> {
        Ok(self.into())
    }
}

impl<T: Into<Value>> IntoResult for Result<T> {
    fn into_result(self) -> Result<Value> {
        self.map(Into::into)
    }
}

/// A Rust closure usable as a host function: `Fn(A, B, ...) -> R` with up
/// to four [`FromArg`] parameters and an [`IntoResult`] return type.
/// `Params` is the tuple of parameter types (it only tells the arities
/// apart).
pub trait HostFn<Params>: 'static {
    /// The function definition: parameters `arg1`, `arg2`... typed after
    /// the closure's parameters (rename them with
    /// [`FunctionDef::param_names`]).
    fn into_def(self, name: &str, form: Form) -> FunctionDef;
}

/// [`HostFn`] for a function of an engine's library: the closure must be
/// `Send + Sync`, as any thread evaluating with the engine may run it.
pub trait SharedHostFn<Params>: Send + Sync + 'static {
    fn into_shared_def(self, name: &str, form: Form) -> SharedDef;
}

fn typed_param<A: FromArg>(i: usize) -> Param {
    Param {
        name: Arc::from(format!("arg{i}").as_str()),
        ty: A::PTYPE,
        nullable: A::NULLABLE || A::PTYPE == PType::Any,
        default: None,
        check: None,
    }
}

macro_rules! host_fn {
    ($($a:ident $i:tt),*) => {
        impl<Func, Ret, $($a,)*> HostFn<($($a,)*)> for Func
        where
            Func: Fn($($a),*) -> Ret + 'static,
            Ret: IntoResult,
            $($a: FromArg,)*
        {
            fn into_def(self, name: &str, form: Form) -> FunctionDef {
                let params = vec![$(typed_param::<$a>($i + 1)),*];
                FunctionDef::with_params(name, form, params, move |_call, _args| {
                    (self)($($a::from_arg(_call, &_args.pos[$i])?),*).into_result()
                })
            }
        }

        impl<Func, Ret, $($a,)*> SharedHostFn<($($a,)*)> for Func
        where
            Func: Fn($($a),*) -> Ret + Send + Sync + 'static,
            Ret: IntoResult,
            $($a: FromArg,)*
        {
            fn into_shared_def(self, name: &str, form: Form) -> SharedDef {
                let params = vec![$(typed_param::<$a>($i + 1)),*];
                SharedDef::with_params(name, form, params, move |_call, _args| {
                    (self)($($a::from_arg(_call, &_args.pos[$i])?),*).into_result()
                })
            }
        }
    };
}

host_fn!();
host_fn!(A 0);
host_fn!(A 0, B 1);
host_fn!(A 0, B 1, C 2);
host_fn!(A 0, B 1, C 2, D 3);

impl FunctionDef {
    /// A host function typed by its Rust closure (see [`HostFn`]):
    /// `FunctionDef::typed("double", Form::Both, |x: i64| x * 2)`.
    pub fn typed<P>(name: &str, form: Form, f: impl HostFn<P>) -> FunctionDef {
        f.into_def(name, form)
    }

    /// Rename the positional parameters (the names keyword arguments use).
    ///
    /// # Panics
    /// When `names` does not have one name per positional parameter.
    pub fn param_names(mut self, names: &[&str]) -> FunctionDef {
        assert_eq!(
            names.len(),
            self.params.len(),
            "{}: {} parameter names given for {} parameters",
            self.name,
            names.len(),
            self.params.len()
        );
        for (p, n) in self.params.iter_mut().zip(names) {
            p.name = Arc::from(*n);
        }
        self
    }
}
