//! The two YAQL engines of a set of classes, with every engine function
//! (method dispatchers, object, type and system functions) in their
//! libraries: built once per class set and shared by all its sessions,
//! on any thread. A function finds the session it runs for through the
//! context ([`rt_of`]), so nothing in an engine belongs to one session;
//! each session only puts its handle and its limits over them.

use super::natives::Natives;
use super::reg::Reg;
use super::{ClassDefs, ClassSource};
use std::sync::{Arc, Mutex};
use vetro_yaql::{Engine, EngineOptions};

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

impl Engines {
    fn build(source: &ClassSource) -> Engines {
        let mut r = Reg::new(options(true), options(false));
        super::funcs::register_all(&mut r, source);
        super::sysfuncs::register(&mut r);
        let (legacy, std) = r.build();
        Engines {
            legacy: Arc::new(legacy),
            std: Arc::new(std),
        }
    }
}

/// The engines of a class source, built on its first session and kept
/// while its classes and natives stay the same ones.
#[derive(Clone, Default)]
pub struct EngineCache(Arc<Mutex<Option<Cached>>>);

/// Engines with the classes and natives they were built for (held, so
/// that their addresses name them while they are cached).
struct Cached {
    defs: Arc<ClassDefs>,
    natives: Arc<Natives>,
    engines: Arc<Engines>,
}

impl EngineCache {
    /// The engines for `source` (built now if its classes or natives are
    /// not those the cached engines were built for).
    pub fn get(&self, source: &ClassSource) -> Arc<Engines> {
        let mut slot = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_ref() {
            if Arc::ptr_eq(&c.defs, &source.defs) && Arc::ptr_eq(&c.natives, &source.natives) {
                return c.engines.clone();
            }
        }
        let engines = Arc::new(Engines::build(source));
        *slot = Some(Cached {
            defs: source.defs.clone(),
            natives: source.natives.clone(),
            engines: engines.clone(),
        });
        engines
    }
}

#[cfg(test)]
mod tests {
    use super::super::Rt;
    use super::*;
    use crate::syntax::data::parse_yaql;
    use vetro_yaql::Value;

    fn core_source() -> ClassSource {
        let mut sources = vetro_diag::SourceMap::new();
        let mut source = ClassSource::default();
        source.add_package(&crate::core::core_package(&mut sources));
        source
    }

    #[test]
    fn sessions_of_one_class_set_share_its_engines() {
        let source = core_source();
        let a = Rt::new(source.clone(), serde_json::Value::Null);
        let b = Rt::new(source.clone(), serde_json::Value::Null);
        let (ea, eb) = (a.program.yaql().engine(), b.program.yaql().engine());
        assert!(Arc::ptr_eq(ea, eb));
        // Another class set gets engines of its own.
        let mut other = source.clone();
        let mut sources = vetro_diag::SourceMap::new();
        other.add_package(&crate::core::core_package(&mut sources));
        let c = Rt::new(other, serde_json::Value::Null);
        assert!(!Arc::ptr_eq(ea, c.program.yaql().engine()));
    }

    #[test]
    fn an_engine_function_runs_for_the_session_evaluating() {
        let source = core_source();
        let (a, b) = (
            Rt::new(source.clone(), serde_json::Value::Null),
            Rt::new(source, serde_json::Value::Null),
        );
        let e = crate::syntax::Expr {
            text: "randomName()".into(),
            span: Default::default(),
            parsed: parse_yaql("randomName()").unwrap(),
            compiled: Default::default(),
        };
        for rt in [&a, &b] {
            let ctx = rt.program.yaql().context();
            let v = rt.eval_expr(&e, &ctx, rt.program.yaql()).unwrap();
            assert!(matches!(v, Value::Str(ref s) if s.len() == 12), "{v:?}");
        }
        // Compiled once, for the engine both sessions share.
        assert!(a
            .program
            .yaql()
            .compiled_for(e.compiled.for_engine(a.program.yaql(), &e.parsed).unwrap()));
        // A context of no session cannot run it.
        let bare = a.program.yaql().engine().context();
        let err = a
            .program
            .yaql()
            .engine()
            .evaluate_in(&e.parsed, &bare)
            .unwrap_err();
        assert_eq!(err.message, "engine gone");
    }
}
