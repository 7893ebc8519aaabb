//! The Python-visible engine core: parser flavour and options, and one Rust
//! engine per library flavour, shared by every Python thread.

use crate::convert::{result_to_py, Shape};
use crate::errors::to_pyerr;
use crate::evalctx::EvalContext;
use crate::host::{register_layer, Signatures, StagedVars};
use crate::phases::{Clock, Phase};
use crate::staged::{Spares, Stager};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use vetro_yaql::limits::Limits;
use vetro_yaql::operators::{Fixity, OperatorSpec, OperatorTable};
use vetro_yaql::{Engine, EngineOptions, Options, ParserOptions, Value};

/// The standard-library flavour a root context asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Library {
    pub legacy: bool,
    pub delegates: bool,
    pub no_sets: bool,
    pub group_by_agg_fallback: bool,
    /// Expressions may reach into yaqlized Python objects.
    pub yaqlized: bool,
}

/// Parser settings and `yaql.*` options of one Python engine.
#[pyclass(frozen, module = "yaql._vetro_yaql")]
pub struct Core {
    /// The Rust engines built so far, one per library flavour.
    engines: Mutex<HashMap<Library, Arc<Engine>>>,
    /// Buffers for the data of evaluations (see `staged`).
    spares: Spares,
    /// The signatures of the Python functions of contexts (see `host`).
    signatures: Signatures,
    legacy: bool,
    allow_delegates: bool,
    /// The factory's operator table when it has custom operators.
    operators: Option<Arc<[OperatorSpec]>>,
    keyword: Option<String>,
    options: Options,
}

/// One operator record from Python: `(symbol, type, group, alias)`.
type OperatorRecord = (String, String, usize, Option<String>);

fn operator_specs(records: Vec<OperatorRecord>) -> PyResult<Vec<OperatorSpec>> {
    records
        .into_iter()
        .map(|(symbol, kind, group, alias)| {
            let fixity = match kind.as_str() {
                "PREFIX_UNARY" => Fixity::Prefix,
                "SUFFIX_UNARY" => Fixity::Suffix,
                "BINARY_LEFT_ASSOCIATIVE" => Fixity::Left,
                "BINARY_RIGHT_ASSOCIATIVE" => Fixity::Right,
                _ => return Err(PyValueError::new_err(format!("operator type {kind}"))),
            };
            Ok(OperatorSpec {
                symbol,
                fixity,
                group,
                alias,
            })
        })
        .collect()
}

impl Core {
    /// The Rust engine for the given library flavour (built on first use).
    pub fn engine(&self, lib: Library) -> Arc<Engine> {
        // A panic while building leaves no entry: the map stays sound.
        let mut engines = self.engines.lock().unwrap_or_else(|e| e.into_inner());
        engines
            .entry(lib)
            .or_insert_with(|| Arc::new(self.build_engine(lib)))
            .clone()
    }

    fn build_engine(&self, lib: Library) -> Engine {
        let opts = EngineOptions {
            legacy: self.legacy,
            legacy_context: lib.legacy,
            allow_delegates: self.allow_delegates,
            delegates: lib.delegates,
            no_sets: lib.no_sets,
            group_by_agg_fallback: Some(lib.group_by_agg_fallback),
            yaql: Options {
                // Results are converted straight to Python (see `output_shape`).
                convert_output_data: false,
                limits: Limits {
                    interrupt: Some(crate::signals::interrupt()),
                    ..self.options.limits.clone()
                },
                ..self.options.clone()
            },
            ..EngineOptions::default()
        };
        // The table was checked when the Python engine was made.
        let table = self
            .operators
            .as_ref()
            .and_then(|specs| OperatorTable::new(specs, self.keyword.as_deref()).ok());
        let mut builder = Engine::builder(opts);
        if let Some(table) = table {
            builder.operators(table);
        }
        crate::host::register_python_call(&mut builder);
        if lib.yaqlized {
            crate::yaqlized::register(&mut builder, lib.legacy);
        }
        builder.build()
    }

    /// How results reach Python: their lazy sequences drained where they
    /// are evaluated, then converted straight to Python objects, the
    /// output conversion done on the way (see [`Shape::Output`]).
    fn output_shape(&self) -> Shape {
        let o = &self.options;
        if !o.convert_output_data {
            Shape::Internal
        } else {
            Shape::Output {
                keep_tuples: !o.convert_tuples_to_lists,
                sets_to_lists: o.convert_sets_to_lists,
                limit: o.limit_iterators,
                quota: o.memory_quota,
            }
        }
    }
}

#[pymethods]
impl Core {
    #[new]
    #[pyo3(signature = (legacy, allow_delegates, operators, limit_iterators, memory_quota, convert_tuples_to_lists, convert_sets_to_lists, iterable_dicts, convert_output_data))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        legacy: bool,
        allow_delegates: bool,
        operators: Option<(Vec<OperatorRecord>, Option<String>)>,
        limit_iterators: i64,
        memory_quota: i64,
        convert_tuples_to_lists: bool,
        convert_sets_to_lists: bool,
        iterable_dicts: bool,
        convert_output_data: bool,
    ) -> PyResult<Core> {
        let (operators, keyword) = match operators {
            Some((records, keyword)) => {
                let specs = operator_specs(records)?;
                OperatorTable::new(&specs, keyword.as_deref()).map_err(|symbol| {
                    PyValueError::new_err(format!("invalid operator {symbol:?}"))
                })?;
                (Some(Arc::from(specs)), keyword)
            }
            None => (None, None),
        };
        Ok(Core {
            engines: Mutex::new(HashMap::new()),
            spares: Spares::default(),
            signatures: Signatures::default(),
            legacy,
            allow_delegates,
            operators,
            keyword,
            options: Options {
                limit_iterators,
                memory_quota,
                convert_tuples_to_lists,
                convert_sets_to_lists,
                iterable_dicts,
                convert_output_data,
                ..Options::default()
            },
        })
    }

    /// Check that `expr` parses; raises the reference's parse exceptions.
    /// The tree is built (and cached) when the statement is evaluated.
    pub fn check(&self, py: Python<'_>, expr: &str) -> PyResult<()> {
        // An engine of this core knows the texts it has parsed; without
        // one, the built-in grammar needs no engine (the engine and its
        // library are built on the first evaluation).
        let known = self
            .engines
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .values()
            .next()
            .cloned();
        let checked = if let Some(engine) = known {
            engine.check(expr)
        } else if self.operators.is_none() {
            let opts = ParserOptions {
                legacy: self.legacy,
                allow_delegates: self.allow_delegates,
                ..ParserOptions::default()
            };
            vetro_yaql::parser::check(expr, opts, None).map_err(vetro_yaql::Error::from)
        } else {
            self.engine(Library::default()).check(expr)
        };
        checked.map_err(|e| to_pyerr(py, e, Some(expr)))
    }

    /// Evaluate `expr`. `layers` lists the Python contexts from the root down,
    /// each `(variables, functions, exclusive_names)`; `base` is a context of an
    /// evaluation in progress (re-entrant calls) or None.
    #[pyo3(signature = (py_engine, expr, data, layers, library, base=None))]
    // One call per evaluation from the Python side: the arguments are its state.
    #[allow(clippy::too_many_arguments)]
    fn evaluate(
        &self,
        py: Python<'_>,
        py_engine: Py<PyAny>,
        expr: &str,
        data: Bound<'_, PyAny>,
        layers: &Bound<'_, PyList>,
        library: (bool, bool, bool, bool, bool),
        base: Option<PyRef<'_, EvalContext>>,
    ) -> PyResult<Py<PyAny>> {
        let mut clock = Clock::start();
        let lib = Library {
            legacy: library.0,
            delegates: library.1,
            no_sets: library.2,
            group_by_agg_fallback: library.3,
            yaqlized: library.4,
        };
        let engine = self.engine(lib);
        let parsed = engine
            .parse(expr)
            .map_err(|e| to_pyerr(py, e, Some(expr)))?;
        let mut ctx = match &base {
            Some(b) => b.ctx.child(),
            None => {
                let root = engine.context();
                if lib.yaqlized {
                    root.set_method_fallback(crate::yaqlized::method_call);
                }
                root
            }
        };
        drop(base);
        let py_engine = Rc::new(py_engine);
        // The variables and the data are read now and their values made
        // once the GIL is released (see `staged`).
        let (mut stager, mut vars) = (Stager::new(py, &self.spares), StagedVars::new());
        for (i, layer) in layers.iter().enumerate() {
            if i > 0 {
                ctx = ctx.child();
            }
            let layer = layer.cast::<PyTuple>()?;
            register_layer(
                &ctx,
                layer,
                &py_engine,
                (&mut stager, &mut vars),
                &self.signatures,
            )?;
        }
        if !data.is(crate::shim::Shim::get(py)?.no_value.bind(py)) {
            ctx = ctx.child();
            stager.value(&data)?;
            vars.push((ctx.clone(), "1".to_owned()));
        }
        let staged = stager.finish();
        // The evaluation runs without the GIL, so that other Python threads
        // evaluate (or run Python) meanwhile; whatever in it reaches Python
        // (callbacks, yaqlized objects, Python iterators) takes the GIL back.
        // The context goes in whole: dropping it (and the data converted
        // into it) is work that needs no GIL either.
        let shape = self.output_shape();
        clock.lap(Phase::HeldIn);
        let job = OnThisThread((
            &*engine,
            &parsed,
            ctx,
            &mut clock,
            (staged, vars),
            &self.spares,
        ));
        let result = py
            .detach(move || {
                // Take the wrapper whole (a closure would otherwise capture
                // its fields one by one).
                let job = job;
                let (engine, parsed, ctx, clock, (staged, vars), spares) = job.0;
                for ((scope, name), v) in vars.into_iter().zip(staged.build(spares)) {
                    scope.set(&name, v);
                }
                let result = engine.evaluate_in_finishing(parsed, &ctx, |v, lists| {
                    crate::lazies::drain(v, shape, lists)
                });
                drop(ctx);
                clock.lap(Phase::Released);
                OnThisThread(result)
            })
            .0;
        let out = match result {
            Ok((v, lists)) => {
                // The quota is checked after the conversion, which refuses
                // what Python cannot hash first.
                let out = result_to_py(py, &v, shape, lists)?;
                check_quota(py, &v, shape, expr)?;
                drop(v);
                Ok(out.unbind())
            }
            Err(e) => Err(to_pyerr(py, e, Some(expr))),
        };
        clock.lap(Phase::HeldOut);
        out
    }

    /// Options as the engine sees them (for tests and `repr`).
    fn option_values(&self) -> (i64, i64, bool, bool, bool, bool) {
        let o = &self.options;
        (
            o.limit_iterators,
            o.memory_quota,
            o.convert_tuples_to_lists,
            o.convert_sets_to_lists,
            o.iterable_dicts,
            o.convert_output_data,
        )
    }
}

/// Refuse a finished result larger than `yaql.memoryQuota` (the quota of a
/// result that keeps tuples is checked per sequence, as it is drained).
fn check_quota(py: Python<'_>, v: &Value, shape: Shape, expr: &str) -> PyResult<()> {
    let Shape::Output {
        quota,
        keep_tuples: false,
        ..
    } = shape
    else {
        return Ok(());
    };
    if usize::try_from(quota).is_ok_and(|q| q > 0 && vetro_yaql::approx_size(v) > q) {
        return Err(to_pyerr(
            py,
            vetro_yaql::limits::memory_exceeded(),
            Some(expr),
        ));
    }
    Ok(())
}

/// Values handed to [`Python::detach`], which asks for `Send` values because
/// they must hold no GIL-bound reference; it runs its closure on the calling
/// thread, so single-threaded values (`Rc` contexts, results) may go in and
/// out, and whatever in them touches Python takes the GIL itself.
struct OnThisThread<T>(T);

// SAFETY: `Python::detach` calls the closure on the current thread and
// returns its result there: the wrapped value never reaches another thread.
unsafe impl<T> Send for OnThisThread<T> {}
