//! The Python-visible engine core: parser flavour and options, one Rust
//! engine per thread (the Rust engine is single-threaded; the Python engine
//! object can be shared by any number of threads).

use crate::convert::{result_to_py, to_value, Shape};
use crate::errors::to_pyerr;
use crate::evalctx::EvalContext;
use crate::host::register_layer;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use vetro_yaql::operators::{Fixity, OperatorSpec, OperatorTable};
use vetro_yaql::{Engine, EngineOptions, Options, ParserOptions};

static NEXT_CORE: AtomicU64 = AtomicU64::new(1);

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

/// Engines kept per thread, keyed by core and library flavour.
const MAX_THREAD_ENGINES: usize = 64;

/// A thread's engine: the core's id and the library flavour.
type EngineKey = (u64, Library);

thread_local! {
    static ENGINES: RefCell<HashMap<EngineKey, Rc<Engine>>> = RefCell::new(HashMap::new());
    /// The engine used last, found without hashing (most threads use one).
    static LAST: RefCell<Option<(EngineKey, Rc<Engine>)>> = const { RefCell::new(None) };
}

/// Parser settings and `yaql.*` options of one Python engine.
#[pyclass(frozen, module = "yaql._vetro_yaql")]
pub struct Core {
    id: u64,
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
    /// This thread's Rust engine for the given library flavour.
    pub fn engine(&self, lib: Library) -> Rc<Engine> {
        let key = (self.id, lib);
        let last = LAST.with(|l| match &*l.borrow() {
            Some((k, e)) if *k == key => Some(e.clone()),
            _ => None,
        });
        if let Some(e) = last {
            return e;
        }
        if let Some(e) = ENGINES.with(|m| m.borrow().get(&key).cloned()) {
            LAST.with(|l| *l.borrow_mut() = Some((key, e.clone())));
            return e;
        }
        let opts = EngineOptions {
            legacy: self.legacy,
            legacy_context: lib.legacy,
            allow_delegates: self.allow_delegates,
            delegates: lib.delegates,
            no_sets: lib.no_sets,
            group_by_agg_fallback: Some(lib.group_by_agg_fallback),
            yaql: Options {
                // Kept tuples are converted straight to Python (see `output_shape`).
                convert_output_data: self.options.convert_output_data
                    && self.options.convert_tuples_to_lists,
                ..self.options.clone()
            },
            ..EngineOptions::default()
        };
        // The table was checked when the Python engine was made.
        let table = self
            .operators
            .as_ref()
            .and_then(|specs| OperatorTable::new(specs, self.keyword.as_deref()).ok());
        let engine = Rc::new(match table {
            Some(table) => Engine::with_operators(opts, table),
            None => Engine::new(opts),
        });
        crate::host::register_python_call(&engine);
        if lib.yaqlized {
            crate::yaqlized::register(&engine, lib.legacy);
        }
        ENGINES.with(|m| {
            let mut m = m.borrow_mut();
            if m.len() >= MAX_THREAD_ENGINES {
                m.clear();
            }
            m.insert(key, engine.clone());
        });
        LAST.with(|l| *l.borrow_mut() = Some((key, engine.clone())));
        engine
    }

    /// How results reach Python. With tuples kept, the engine's own output
    /// conversion would turn lazy sequences into sequences like any other;
    /// the reference makes them lists and keeps tuples, so the conversion
    /// to Python does that step instead.
    fn output_shape(&self) -> Shape {
        let o = &self.options;
        if !o.convert_output_data {
            Shape::Internal
        } else if o.convert_tuples_to_lists {
            Shape::Output { tuples: false }
        } else {
            Shape::KeepTuples {
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
            id: NEXT_CORE.fetch_add(1, Ordering::Relaxed),
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
        // An engine of this core that the thread used last knows the texts
        // it has parsed; without one, the built-in grammar needs no engine
        // (the thread's engine and its library are built on the first
        // evaluation).
        let last = LAST.with(|l| match &*l.borrow() {
            Some(((id, _), e)) if *id == self.id => Some(e.clone()),
            _ => None,
        });
        let checked = if let Some(engine) = last {
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
            None => engine.context(),
        };
        drop(base);
        let py_engine = Rc::new(py_engine);
        for (i, layer) in layers.iter().enumerate() {
            if i > 0 {
                ctx = ctx.child();
            }
            let layer = layer.cast::<PyTuple>()?;
            register_layer(&ctx, layer, &py_engine)?;
        }
        if !data.is(crate::shim::Shim::get(py)?.no_value.bind(py)) {
            ctx = ctx.child();
            ctx.set("1", to_value(&data)?);
        }
        let result = engine.evaluate_in_with_lists(&parsed, &ctx);
        match result {
            Ok((v, lists)) => result_to_py(py, &v, self.output_shape(), lists).map(|b| b.unbind()),
            Err(e) => Err(to_pyerr(py, e, Some(expr))),
        }
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
