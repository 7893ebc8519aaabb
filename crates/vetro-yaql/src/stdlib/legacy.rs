//! The legacy layer (`yaql.legacy.create_context()`): 0.2-compatible
//! functions registered in an innermost layer that shadows the standard one.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::{CallArg, Lambda};
use crate::func::params::{ExprArg, Iterable, Keyword, LazyArg, Optional, PyInt, Rest};
use crate::func::{Call, SharedDef};
use crate::parser::ExprKind;
use crate::value::{Dict, LazyIter, List, Value};
use crate::yaql_fn;
use crate::EngineOptions;

/// Name of the marker function telling the evaluator that method calls on a
/// context value (`x.as(...).select(...)`) run inside that context.
pub use crate::func::context::CONTEXT_DOT;

/// The two items of a tuple given to `function` (`as`, `switch`), with
/// the reference's `ValueError`s for a tuple of another size and for
/// another value (`other`).
fn pair(v: &Value, function: &str, other: &str) -> Result<(Value, Value)> {
    match v {
        Value::List(l) if l.len() == 2 => Ok((l[0].clone(), l[1].clone())),
        Value::List(_) => Err(Error::value_err(format!(
            "{function}() tuples must be of size 2"
        ))),
        _ => Err(Error::value_err(other)),
    }
}

/// `dict` of tuples hands them to the standard `dict`, which takes the
/// first two items of each as key and value (a shorter one stops with
/// `StopIteration`, the rest of a longer one is ignored).
fn tuples_dict(tuples: &[&List]) -> Result<Value> {
    let mut d = Dict::new();
    for t in tuples {
        match (t.first(), t.get(1)) {
            (Some(k), Some(v)) => d.insert(k.clone(), v.clone()),
            _ => return Err(Error::new(ErrorKind::StopIteration, "")),
        };
    }
    Ok(Value::dict(d))
}

/// Call the standard method `name` with these arguments (the legacy layer
/// makes some methods callable as functions too).
fn forward(c: &Call, name: &str, args: Vec<CallArg>) -> Result<Value> {
    crate::eval::call_function(c.ctx, name, args, true)
}

fn val(v: &Value) -> CallArg<'static> {
    CallArg::Val(v.clone())
}

fn lazy(l: &Lambda) -> CallArg<'_> {
    CallArg::Expr(l.expr())
}

pub fn register(r: &Reg, _opts: &EngineOptions) {
    indexing_and_literals(r);
    conversions_and_branching(r);
    standard_both_ways(r);
}

/// `#indexer` as a filter, `#map` and `dict` of tuples, `.`, `=>`, `as`.
fn indexing_and_literals(r: &Reg) {
    r.add_def(yaql_fn!(Function CONTEXT_DOT, |_c| () { Ok(Value::Null) }));
    r.add_def(
        yaql_fn!(Function "#indexer", |c| (collection: Iterable, indexExpression: &Lambda) {
            if let Value::List(l) = collection.0 {
                let idx = indexExpression.eval()?;
                if let Value::Int(_) = idx {
                    return crate::stdlib::collections::index_list(l, &idx);
                }
            }
            let mut it = collection.iter(c)?;
            let lam = indexExpression.clone();
            Ok(Value::Iter(crate::iter::LazyIter::from_fn(c.run(), move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                if lam.test(&v)? {
                    return Ok(Some(v));
                }
            })))
        }),
    );
    r.set_exclusive("#indexer");
    for name in ["#map", "dict"] {
        r.add_def(
            yaql_fn!(Function name, |_c| (tuples: Rest<&List>) { tuples_dict(&tuples.0) }).nokw(),
        );
    }
    // As a method, the reference's legacy `dict` takes a tuple receiver and
    // hands its tuples on to the standard library's `dict` called as a
    // method of the same receiver, which is none: `Unknown method "dict"`.
    r.add_def(
        yaql_fn!(Method "dict", |_c| (receiver: &List, more: Rest<&List>) {
            let _ = more;
            Err::<Value, _>(
                Error::new(ErrorKind::NoMethod, "Unknown method \"dict\"")
                    .with_receiver(Value::List(receiver.clone())),
            )
        })
        .nokw(),
    );
    // A missing key is null here; compiled `$.key` sites read it directly.
    fn key_or_null(d: &Dict, key: &str) -> Value {
        d.get_str(key).cloned().unwrap_or(Value::Null)
    }
    let def: SharedDef = yaql_fn!(Function "#operator_.", |_c| (dict: &Dict, key: Keyword) {
        Ok(key_or_null(dict, key.0))
    })
    .into();
    r.add_def(def.with_direct_key(|v, key| match v {
        Value::Dict(d) => Ok(key_or_null(d, key)),
        _ => Err(Error::type_err("not a dictionary")),
    }));
    r.add_def(
        yaql_fn!(Function "#operator_=>", |_c| (left: ExprArg, right: &Value) {
            let lam = left.0;
            let left = lam.eval()?;
            let chained =
                matches!(&lam.expr().kind, ExprKind::Call { name, .. } if &**name == "#operator_=>");
            if let (true, Value::List(l)) = (chained, &left) {
                let mut v = l.clone();
                v.push(right.clone());
                return Ok(Value::List(v));
            }
            Ok(Value::list(vec![left, right.clone()]))
        }),
    );
    r.add_def(yaql_fn!(Method "as", |c| (receiver: &Value, mappings: Rest<LazyArg>) {
        let ctx = c.ctx.child();
        ctx.set("1", receiver.clone());
        for m in mappings.0 {
            let (v, name) = match m {
                LazyArg::Lambda(l) => {
                    pair(&l.call1_ref(receiver)?, "as", "as() must have tuple parameters")?
                }
                LazyArg::Rule(rule) => (rule.key.call1_ref(receiver)?, rule.value.call1_ref(receiver)?),
            };
            ctx.set(&name.try_to_yaql_string(c.run())?, v);
        }
        Ok(Value::Context(ctx))
    }).nokw());
}

/// `bool`, `float`, `int`, `get`, `list`, `range`, `switch`, `toList`, `tuple`.
fn conversions_and_branching(r: &Reg) {
    r.add_def(yaql_fn!(Both "bool", |_c| (value: &Value) { Ok(value.truthy()) }));
    r.add_def(
        yaql_fn!(Both "float", |_c| (value: &Value) { crate::stdlib::math::to_float(value) }),
    );
    r.add_def(yaql_fn!(Both "int", |_c| (value: &Value) { crate::stdlib::math::to_int(value) }));
    r.add_def(
        yaql_fn!(Both "get", |_c| (dict: &Dict, key: &Value, default: &Value = Null) {
            Ok(dict.get(key).cloned().unwrap_or_else(|| default.clone()))
        }),
    );
    r.add_def(yaql_fn!(Both "list", |c| (args: Rest<&Value>) {
        let mut out = Vec::new();
        for x in args.0 {
            match x {
                Value::Iter(it) => {
                    let it = it.counted_in(c.run());
                    while let Some(v) = it.next()? {
                        out.push(v);
                        c.run().check_built(out.len())?;
                    }
                }
                v => out.push(v.clone()),
            }
        }
        Ok(c.list_result(Value::list(out)))
    }));
    r.add_def(
        yaql_fn!(Both "range", |c| (start: PyInt, stop: Option<PyInt> = Null) {
            let start = start.clamped()?;
            Ok(match stop {
                // Python's `range`, a sequence; without a stop, `count()`.
                Some(stop) => Value::Iter(LazyIter::python_range(c.run(), start, stop.clamped()?)),
                None => crate::stdlib::queries::range(c, start, i64::MAX, 1),
            })
        }),
    );
    r.add_def(
        yaql_fn!(Both "switch", |_c| (value: &Value, conditions: Rest<LazyArg>) {
            for cnd in conditions.0 {
                match cnd {
                    LazyArg::Lambda(l) => {
                        let (cond, res) = pair(
                            &l.call1_ref(value)?,
                            "switch",
                            "switch() must have tuple or mapping parameters",
                        )?;
                        if cond.truthy() {
                            return Ok(res);
                        }
                    }
                    LazyArg::Rule(rule) => {
                        if rule.key.test(value)? {
                            return rule.value.call1_ref(value);
                        }
                    }
                }
            }
            Ok(Value::Null)
        })
        .nokw(),
    );
    r.set_exclusive("switch");
    r.add_def(yaql_fn!(Method "toList", |c| (collection: Iterable) {
        Ok(c.list_result(Value::list(collection.collect(c)?)))
    }));
    r.add_def(yaql_fn!(Function "tuple", |_c| (args: Rest<Value>) { Ok(Value::list(args.0)) }));
}

/// Standard methods made callable as functions too, forwarding to them.
fn standard_both_ways(r: &Reg) {
    r.add_def(
        yaql_fn!(Function "select", |c| (collection: Iterable, selector: &Lambda) {
            forward(c, "select", vec![val(&collection), lazy(selector)])
        }),
    );
    for name in ["where", "takeWhile"] {
        r.add_def(
            yaql_fn!(Function name, |c| (collection: Iterable, predicate: &Lambda) {
                forward(c, name, vec![val(&collection), lazy(predicate)])
            }),
        );
    }
    r.add_def(
        yaql_fn!(Function "sum", |c| (collection: Iterable, initial: Optional<&Value> = NoValue) {
            let mut args = vec![val(&collection)];
            args.extend(initial.0.map(val));
            forward(c, "sum", args)
        }),
    );
    r.add_def(yaql_fn!(Function "join", |c| (
        collection1: Iterable,
        collection2: Iterable,
        predicate: &Lambda,
        selector: &Lambda,
    ) {
        let args = vec![val(&collection1), val(&collection2), lazy(predicate), lazy(selector)];
        forward(c, "join", args)
    }));
    r.add_def(
        yaql_fn!(Function "join", |c| (separator: &str, sequence: Iterable) {
            forward(c, "join", vec![CallArg::Val(Value::str(separator)), val(&sequence)])
        }),
    );
    r.add_def(
        yaql_fn!(Function "join", |c| (sequence: Iterable, separator: &str) {
            forward(c, "join", vec![val(&sequence), CallArg::Val(Value::str(separator))])
        }),
    );
}
