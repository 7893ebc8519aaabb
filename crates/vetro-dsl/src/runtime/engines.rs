//! The two YAQL engines of a set of classes, with every engine function
//! (method dispatchers, object, type and system functions) in their
//! libraries: built once per class set and shared by all its sessions,
//! on any thread. A function finds the session it runs for through the
//! context ([`rt_of`]), so nothing in an engine belongs to one session;
//! each session only puts its handle and its limits over them.

use super::funcs::SharedBody;
use super::{ClassSource, Rt};
use std::rc::{Rc, Weak};
use std::sync::{Arc, Mutex};
use vetro_yaql::func::Signature;
use vetro_yaql::{
    Args, Call, Context, Engine, EngineBuilder, EngineOptions, Form, HostObject, SharedDef, Value,
};

/// The engines of a class set (Murano's `ENGINE_10` and `ENGINE_12`).
pub struct Engines {
    /// Format 1.0/1.1 classes: the standard library with the legacy layer,
    /// dicts iterable.
    pub legacy: Arc<Engine>,
    /// Format 1.2+ classes: the standard library alone.
    pub std: Arc<Engine>,
}

/// The options both engines share (the legacy one adds its layer).
fn options(legacy: bool) -> EngineOptions {
    let mut opts = EngineOptions {
        legacy: false,
        legacy_context: legacy,
        allow_delegates: true,
        delegates: true,
        format: true,
        colon: true,
        is_operator: true,
        ..Default::default()
    };
    opts.yaql.convert_sets_to_lists = true;
    opts.yaql.convert_tuples_to_lists = true;
    opts.yaql.convert_output_data = true;
    opts.yaql.limit_iterators = 10000;
    opts.yaql.iterable_dicts = legacy;
    opts
}

/// Registers engine functions into both engines being built.
pub(super) struct Reg {
    legacy: EngineBuilder,
    std: EngineBuilder,
    /// The legacy engine's standard library, to ask what it defines.
    plain_legacy: Engine,
}

impl Reg {
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
    }
}

impl Engines {
    fn build(source: &ClassSource) -> Engines {
        let mut r = Reg {
            legacy: Engine::builder(options(true)),
            std: Engine::builder(options(false)),
            plain_legacy: Engine::new(options(true)),
        };
        super::funcs::register_all(&mut r, source);
        super::sysfuncs::register(&mut r);
        Engines {
            legacy: Arc::new(r.legacy.build()),
            std: Arc::new(r.std.build()),
        }
    }
}

/// The engines of a class source, built on its first session and kept
/// while its classes and natives stay the same ones.
#[derive(Clone, Default)]
pub struct EngineCache(Arc<Mutex<Option<(u64, Arc<Engines>)>>>);

impl EngineCache {
    /// The engines for `source` (built now if its classes or natives are
    /// not those the cached engines were built for).
    pub fn get(&self, source: &ClassSource) -> Arc<Engines> {
        let mark = fingerprint(source);
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((m, engines)) = slot.as_ref() {
            if *m == mark {
                return engines.clone();
            }
        }
        let engines = Arc::new(Engines::build(source));
        *slot = Some((mark, engines.clone()));
        engines
    }
}

/// Which class definitions and natives a source holds (the engine
/// functions are derived from them): their addresses, mixed.
fn fingerprint(source: &ClassSource) -> u64 {
    let mut mark =
        (source.defs.len() as u64) ^ (Arc::as_ptr(&source.natives) as u64).rotate_left(17);
    for (def, _) in source.defs.values() {
        // Order-independent: the map's order is not fixed.
        mark = mark.wrapping_add((Arc::as_ptr(def) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    }
    mark
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
