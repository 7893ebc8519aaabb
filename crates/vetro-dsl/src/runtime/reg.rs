//! Registration of engine functions into a class set's two engines, and
//! the session handle through which a shared function finds the session
//! it runs for.

use super::types::Exc;
use super::Rt;
use std::rc::{Rc, Weak};
use std::sync::Arc;
use vetro_yaql::func::Signature;
use vetro_yaql::{
    Args, Call, Context, Engine, EngineBuilder, EngineOptions, Form, HostObject, SharedDef, Value,
};

/// The body of an engine function, shared by every session of a class set
/// (see `engines.rs`).
pub type SharedBody = dyn Fn(&Rt, &Call, Args) -> Result<Value, Exc> + Send + Sync;

/// Registers engine functions into both engines being built.
pub(super) struct Reg {
    legacy: EngineBuilder,
    std: EngineBuilder,
    /// The legacy engine's standard library, to ask what it defines.
    plain_legacy: Engine,
}

impl Reg {
    /// Builders for the legacy and the standard engine.
    pub fn new(legacy: EngineOptions, std: EngineOptions) -> Reg {
        Reg {
            plain_legacy: Engine::new(legacy.clone()),
            legacy: Engine::builder(legacy),
            std: Engine::builder(std),
        }
    }

    /// The legacy and the standard engine, with everything registered.
    pub fn build(mut self) -> (Engine, Engine) {
        (self.legacy.build(), self.std.build())
    }

    /// A function of both engines.
    pub fn f(&mut self, name: &str, form: Form, sig: &str, body: Box<SharedBody>) {
        let def = shared_def(name, form, sig, Arc::from(body));
        self.std.register(def.clone());
        self.legacy.register(def);
    }

    /// A function of the legacy engine only.
    pub fn legacy_only(&mut self, name: &str, form: Form, sig: &str, body: Box<SharedBody>) {
        self.legacy
            .register(shared_def(name, form, sig, Arc::from(body)));
    }

    /// The standard library of the legacy engine (without the functions
    /// registered here), to ask which names it defines.
    pub fn legacy_library(&self) -> Rc<Context> {
        self.plain_legacy.context()
    }
}

/// A YAQL function whose body runs against the session found in the
/// calling context; an `Exc` the body returns crosses YAQL smuggled and
/// comes out as the same exception.
fn shared_def(name: &str, form: Form, sig: &str, body: Arc<SharedBody>) -> SharedDef {
    let sig = Signature::parse(name, form, sig)
        .unwrap_or_else(|e| panic!("engine function {name}: {}", e.message));
    SharedDef {
        sig,
        body: Arc::new(move |c: &Call, a: Args| {
            let rt = rt_of(c.ctx)?;
            body(&rt, c, a).map_err(|e| rt.smuggle(e))
        }),
        direct: None,
        direct_key: None,
    }
}

/// The variable of a session's root contexts that holds its handle.
pub const RT_VAR: &str = "#session";

/// A session's handle, bound in its root contexts for engine functions.
pub struct RtHandle(pub Weak<Rt>);

impl HostObject for RtHandle {
    fn type_name(&self) -> &str {
        "#session"
    }
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

/// The session a context belongs to.
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
