//! The two YAQL engines of a set of classes, with every engine function
//! (method dispatchers, object, type and system functions) in their
//! libraries: built once per class set and shared by all its sessions,
//! on any thread. A function finds the session it runs for through the
//! context ([`rt_of`]), so nothing in an engine belongs to one session;
//! each session only puts its handle and its limits over them.

use super::engine_set::Engines;
use super::natives::Natives;
use super::reg::Reg;
use super::{ClassDefs, ClassSource};
use std::sync::{Arc, Mutex};
use vetro_yaql::{Engine, EngineOptions};

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
        let contracts = |opts: EngineOptions| {
            let mut b = Engine::builder(opts);
            b.over(&legacy);
            super::contracts::register_contract_functions(&mut b);
            Arc::new(b.build())
        };
        Engines {
            contracts_legacy: contracts(options(true)),
            contracts_std: contracts(options(false)),
            legacy: Arc::new(legacy),
            std: Arc::new(std),
        }
    }
}

/// The engines of a class source, built on its first session and kept
/// while its classes and natives stay the same ones.
#[derive(Clone, Default)]
pub(crate) struct EngineCache(Arc<Mutex<Option<Cached>>>);

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
    pub(super) fn get(&self, source: &ClassSource) -> Arc<Engines> {
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
    fn sessions_of_one_class_set_share_its_contract_functions() {
        let source = core_source();
        let a = Rt::new(source.clone(), serde_json::Value::Null);
        let b = Rt::new(source, serde_json::Value::Null);
        let class = a.program.class("io.murano.Object").unwrap();
        let (ca, cb) = (
            a.program.contracts_for(&class).engine(),
            b.program.contracts_for(&class).engine(),
        );
        assert!(Arc::ptr_eq(ca, cb));
        // Over the class's own engine's functions, with the contract
        // functions, which the class's engine does not have.
        let layer = a.program.contract_layer();
        assert!(layer.has_function("notOwned") && layer.has_function("randomName"));
        let code = a.program.engine_for(&class).host_context();
        assert!(!code.has_function("notOwned"));
        // A contract expression runs with the session evaluating it.
        let e = crate::syntax::Expr {
            text: "$.check($ > 2).int()".into(),
            span: Default::default(),
            parsed: parse_yaql("$.check($ > 2).int()").unwrap(),
            compiled: Default::default(),
        };
        let data = crate::syntax::data::Data::Expr(e);
        for (rt, v) in [(&a, 3), (&b, 4)] {
            let out = rt.check_contract(&data, Value::Int(v), &class, None, &|| "x".into());
            assert_eq!(out.unwrap(), Value::Int(v));
        }
        let err = a
            .check_contract(&data, Value::Int(1), &class, None, &|| "x".into())
            .unwrap_err();
        assert!(
            format!("{err:?}").contains("doesn't match predicate"),
            "{err:?}"
        );
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
