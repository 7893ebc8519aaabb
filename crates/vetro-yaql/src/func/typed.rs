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

use super::params::{param, Slot};
use super::{Form, FunctionDef, SharedDef};
use crate::error::Result;
use crate::value::Value;

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
/// to four parameters of owned [`Slot`] types (`i64`, `f64`, `bool`,
/// `String`, `Rc<str>`, `Value`, `Option<T>`, `Vec<T>`, `Lambda`: the same
/// parameter types as [`crate::yaql_fn!`]'s) and an [`IntoResult`] return
/// type.
/// `Params` is the tuple of parameter types (it only tells the arities
/// apart).
pub trait HostFn<Params>: 'static {
    /// The function definition: parameters `arg1`, `arg2`... typed after
    /// the closure's parameters (a function whose parameters have names
    /// is written with [`crate::yaql_fn!`]).
    fn into_def(self, name: &str, form: Form) -> FunctionDef;
}

/// [`HostFn`] for a function of an engine's library: the closure must be
/// `Send + Sync`, as any thread evaluating with the engine may run it.
pub trait SharedHostFn<Params>: Send + Sync + 'static {
    fn into_shared_def(self, name: &str, form: Form) -> SharedDef;
}

macro_rules! host_fn {
    ($($a:ident $i:tt),*) => {
        impl<Func, Ret, $($a,)*> HostFn<($($a,)*)> for Func
        where
            Func: Fn($($a),*) -> Ret + 'static,
            Ret: IntoResult,
            $($a: for<'x> Slot<'x> + 'static,)*
        {
            fn into_def(self, name: &str, form: Form) -> FunctionDef {
                let params = vec![$(param::<$a>(&format!("arg{}", $i + 1), None)),*];
                FunctionDef::with_params(name, form, params, move |_call, _args| {
                    (self)($(<$a as Slot>::from_slot(_call, &_args.pos[$i])?),*).into_result()
                })
            }
        }

        impl<Func, Ret, $($a,)*> SharedHostFn<($($a,)*)> for Func
        where
            Func: Fn($($a),*) -> Ret + Send + Sync + 'static,
            Ret: IntoResult,
            $($a: for<'x> Slot<'x> + 'static,)*
        {
            fn into_shared_def(self, name: &str, form: Form) -> SharedDef {
                let params = vec![$(param::<$a>(&format!("arg{}", $i + 1), None)),*];
                SharedDef::with_params(name, form, params, move |_call, _args| {
                    (self)($(<$a as Slot>::from_slot(_call, &_args.pos[$i])?),*).into_result()
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
