//! Engine functions: how they are written and registered, and the session
//! handle through which a function shared by every session of a class set
//! finds the session it runs for.
//!
//! An engine function is one Rust function with typed parameters, written
//! with [`engine_fn!`](crate::engine_fn) (vetro-yaql's `yaql_fn!` with the
//! session bound): the signature the resolver matches arguments against is
//! derived from the parameters' types, MuranoPL objects and types included
//! (`Obj`, `TypeRef`), so an argument of another type is the reference's
//! `NoMatchingFunctionException`, never a stand-in value.

use super::types::{as_object, as_type, Object};
use super::Rt;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use vetro_yaql::func::params::Slot;
use vetro_yaql::func::{ArgValue, FnDef, PType, ParamCheck};
use vetro_yaql::{Args, Call, Context, Engine, EngineBuilder, EngineOptions, HostObject, Value};

/// An engine function with typed parameters whose body runs against the
/// session evaluating it (found through the calling context):
///
/// `engine_fn!(Form "name", |rt, call| (p1: T1, p2: T2 = default, ...) { body })`
///
/// The parameter list is `vetro_yaql::yaql_fn!`'s (this crate's own
/// functions also take `Obj` and `TypeRef` for MuranoPL objects and types);
/// `rt` is the `&Rt` and `call` the YAQL call; the body returns
/// `Result<T, Exc>` for any `T` that converts into a value, and an `Exc`
/// crosses YAQL as that MuranoPL exception. An embedder registers the
/// result in one session with [`Rt::define_function`] (from a session hook);
/// the crate's own functions go into a class set's engines.
#[macro_export]
macro_rules! engine_fn {
    ($form:ident $name:expr, |$rt:ident, $c:tt| ($($params:tt)*) $body:block) => {
        ::vetro_yaql::yaql_fn!($form $name, |__call| ($($params)*) {
            let __rt = $crate::runtime::reg::rt_of(__call.ctx)?;
            #[allow(unused_variables)]
            let $rt: &$crate::runtime::Rt = &__rt;
            #[allow(unused_variables)]
            let $c = __call;
            #[allow(clippy::redundant_closure_call)]
            let __out: ::std::result::Result<_, $crate::runtime::types::Exc> = (|| $body)();
            __out.map_err(|e| __rt.smuggle(e))
        })
    };
}

/// Registers engine functions into both engines being built.
pub(super) struct Reg {
    legacy: EngineBuilder,
    std: EngineBuilder,
    /// The legacy engine's standard library, to ask what it defines.
    plain_legacy: Engine,
}

impl Reg {
    /// Builders for the legacy and the standard engine.
    pub(super) fn new(legacy: EngineOptions, std: EngineOptions) -> Reg {
        Reg {
            plain_legacy: Engine::new(legacy.clone()),
            legacy: Engine::builder(legacy),
            std: Engine::builder(std),
        }
    }

    /// The legacy and the standard engine, with everything registered.
    pub(super) fn build(mut self) -> (Engine, Engine) {
        (self.legacy.build(), self.std.build())
    }

    /// A function of both engines (built with [`engine_fn!`](crate::engine_fn)).
    pub(super) fn add<F>(&mut self, def: FnDef<F>)
    where
        F: Fn(&Call, Args) -> vetro_yaql::Result<Value> + Send + Sync + 'static,
    {
        let def: vetro_yaql::SharedDef = def.into();
        self.std.register(def.clone());
        self.legacy.register(def);
    }

    /// A function of the legacy engine only.
    pub(super) fn add_legacy<F>(&mut self, def: FnDef<F>)
    where
        F: Fn(&Call, Args) -> vetro_yaql::Result<Value> + Send + Sync + 'static,
    {
        self.legacy.register(vetro_yaql::SharedDef::from(def));
    }

    /// The standard library of the legacy engine (without the functions
    /// registered here), to ask which names it defines.
    pub(super) fn legacy_library(&self) -> Rc<Context> {
        self.plain_legacy.context()
    }
}

/// A MuranoPL object argument (the reference's `MuranoObjectParameter`):
/// any other value, a type included, does not match the parameter.
pub(crate) struct Obj<'a> {
    pub(crate) object: Rc<Object>,
    /// The argument as given.
    pub(super) value: &'a Value,
}

impl<'a> Slot<'a> for Obj<'a> {
    const PTYPE: PType = PType::Object_;
    fn check() -> Option<ParamCheck> {
        Some(ParamCheck(Arc::new(|v| as_object(v).is_some())))
    }
    fn from_slot(call: &Call, arg: &'a ArgValue) -> vetro_yaql::Result<Self> {
        let value = arg.val();
        match as_object(value) {
            Some((object, _)) => Ok(Obj { object, value }),
            None => Err(vetro_yaql::Error::type_err(format!(
                "{}: object expected, got {}",
                call.name,
                value.type_name()
            ))),
        }
    }
}

/// A MuranoPL type argument (the reference's `MuranoTypeParameter`): a
/// type (`:Name`, `type($obj)`) or a class name, resolved in the calling
/// class's namespaces by [`Program::type_arg`](super::program::Program::type_arg).
/// An object or any other value does not match the parameter.
pub(super) struct TypeRef<'a>(pub &'a Value);

impl<'a> Slot<'a> for TypeRef<'a> {
    const PTYPE: PType = PType::Any;
    fn check() -> Option<ParamCheck> {
        Some(ParamCheck(Arc::new(|v| {
            matches!(v, Value::Str(_)) || as_type(v).is_some()
        })))
    }
    fn from_slot(_: &Call, arg: &'a ArgValue) -> vetro_yaql::Result<Self> {
        Ok(TypeRef(arg.val()))
    }
}

/// A class argument that an object may stand for (the reference's
/// `AnyOf(MuranoTypeParameter, MuranoObjectParameter)`): a type, a class
/// name or an object, resolved by
/// [`Program::type_arg`](super::program::Program::type_arg).
pub(crate) struct TypeOrObj<'a>(pub &'a Value);

impl<'a> Slot<'a> for TypeOrObj<'a> {
    const PTYPE: PType = PType::Any;
    fn check() -> Option<ParamCheck> {
        Some(ParamCheck(Arc::new(|v| {
            matches!(v, Value::Str(_)) || as_type(v).is_some() || as_object(v).is_some()
        })))
    }
    fn from_slot(_: &Call, arg: &'a ArgValue) -> vetro_yaql::Result<Self> {
        Ok(TypeOrObj(arg.val()))
    }
}

/// The variable of a session's root contexts that holds its handle.
pub(super) const RT_VAR: &str = "#session";

/// A session's handle, bound in its root contexts for engine functions.
pub(super) struct RtHandle(pub Weak<Rt>);

impl HostObject for RtHandle {
    fn type_name(&self) -> &str {
        "#session"
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The session a context belongs to (public for what `engine_fn!` expands to).
pub fn rt_of(ctx: &Context) -> vetro_yaql::Result<Rc<Rt>> {
    let gone = || vetro_yaql::Error::value_err("engine gone");
    match &ctx.get(RT_VAR) {
        Some(Value::Object(h)) => h
            .as_any()
            .downcast_ref::<RtHandle>()
            .and_then(|h| h.0.upgrade())
            .ok_or_else(gone),
        _ => Err(gone()),
    }
}
