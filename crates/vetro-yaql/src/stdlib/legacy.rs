//! The legacy layer (`yaql.legacy.create_context()`): 0.2-compatible
//! functions registered in an innermost layer that shadows the standard one.

use super::Reg;
use crate::error::{Error, ErrorKind, Result};
use crate::eval::Lambda;
use crate::func::{ArgValue, Args, Call};
use crate::parser::ExprKind;
use crate::value::{Dict, Value};
use crate::EngineOptions;

/// Name of the marker function telling the evaluator that method calls on a
/// context value (`x.as(...).select(...)`) run inside that context.
pub use crate::func::context::CONTEXT_DOT;

fn pair(v: &Value) -> Result<(Value, Value)> {
    match v {
        Value::List(l) if l.len() == 2 => Ok((l[0].clone(), l[1].clone())),
        _ => Err(Error::value_err("a (key, value) tuple expected")),
    }
}

fn tuples_dict(a: &Args) -> Result<Value> {
    let mut d = Dict::new();
    for t in &a.rest {
        let (k, v) = pair(t.val())?;
        d.insert(k, v);
    }
    Ok(Value::dict(d))
}

/// Make a standard method callable as a function too, by forwarding to it.
fn both(r: &Reg, name: &'static str, sig: &str) {
    r.f(name, sig, move |c: &Call, a: Args| {
        let mut vals: Vec<Value> = Vec::new();
        let mut lazies: Vec<Option<Lambda>> = Vec::new();
        for p in a.pos.iter().chain(a.rest.iter()) {
            match p {
                ArgValue::Lazy(l) => {
                    vals.push(Value::Null);
                    lazies.push(Some(l.clone()));
                }
                ArgValue::Missing => break,
                other => {
                    vals.push(other.val().clone());
                    lazies.push(None);
                }
            }
        }
        let args: Vec<crate::eval::CallArg> = vals
            .into_iter()
            .zip(&lazies)
            .map(|(v, l)| match l {
                Some(l) => crate::eval::CallArg::Expr(&l.expr),
                None => crate::eval::CallArg::Val(v),
            })
            .collect();
        crate::eval::call_function(c.ctx, name, args, true)
    });
}

pub fn register(r: &Reg, _opts: &EngineOptions) {
    r.f(CONTEXT_DOT, "", |_, _| Ok(Value::Null));
    r.f(
        "#indexer",
        "collection:Iterable, indexExpression:Lambda",
        |c, a| {
            let lam = a
                .lam(1)
                .cloned()
                .ok_or_else(|| Error::type_err("index expected"))?;
            if let Value::List(l) = a.v(0) {
                let idx = lam.eval()?;
                if let Value::Int(_) = idx {
                    return crate::stdlib::collections::index_list(l, &idx);
                }
            }
            let mut it = c.iter(a.v(0))?;
            Ok(Value::Iter(crate::iter::LazyIter::from_fn(move || loop {
                let Some(v) = it.next()? else {
                    return Ok(None);
                };
                if lam.call1(v.clone())?.truthy() {
                    return Ok(Some(v));
                }
            })))
        },
    );
    r.set_exclusive("#indexer");
    r.mf("#map", "*tuples:Sequence, nokw", |_, a| tuples_dict(&a));
    r.mf("dict", "*tuples:Sequence, nokw", |_, a| tuples_dict(&a));
    r.f("#operator_.", "dict:Mapping, key:Keyword", |_, a| {
        let Value::Dict(d) = a.v(0) else {
            return Ok(Value::Null);
        };
        Ok(d.get(&Value::str(a.str(1))).cloned().unwrap_or(Value::Null))
    });
    r.f("#operator_=>", "left:Expr, right:any", |_, a| {
        let lam = a
            .lam(0)
            .ok_or_else(|| Error::type_err("operand expected"))?;
        let left = lam.eval()?;
        let chained =
            matches!(&lam.expr.kind, ExprKind::Call { name, .. } if &**name == "#operator_=>");
        if let (true, Value::List(l)) = (chained, &left) {
            let mut v = (**l).clone();
            v.push(a.v(1).clone());
            return Ok(Value::list(v));
        }
        Ok(Value::list(vec![left, a.v(1).clone()]))
    });
    r.m("as", "receiver:any, *mappings:Lambda, nokw", |c, a| {
        let recv = a.v(0).clone();
        let ctx = c.ctx.child();
        ctx.set("1", recv.clone());
        for m in &a.rest {
            let (v, name) = match m {
                ArgValue::Lazy(l) => pair(&l.call1(recv.clone())?)?,
                ArgValue::Rule(k, n) => (k.call1(recv.clone())?, n.call1(recv.clone())?),
                _ => continue,
            };
            ctx.set(&name.try_to_yaql_string()?, v);
        }
        Ok(Value::Context(ctx))
    });
    r.mf("bool", "value:any", |_, a| Ok(Value::Bool(a.v(0).truthy())));
    r.mf("float", "value:any", |_, a| {
        crate::stdlib::math::to_float(a.v(0))
    });
    r.mf("int", "value:any", |_, a| {
        crate::stdlib::math::to_int(a.v(0))
    });
    r.mf("get", "dict:Mapping, key:any, default:any=null", |_, a| {
        let Value::Dict(d) = a.v(0) else {
            return Ok(Value::Null);
        };
        Ok(d.get(a.v(1)).cloned().unwrap_or_else(|| a.v(2).clone()))
    });
    r.mf("list", "*args:any", |c, a| {
        let mut out = Vec::new();
        for x in &a.rest {
            match x.val() {
                Value::Iter(it) => {
                    while let Some(v) = it.next()? {
                        out.push(v);
                        crate::limits::check_built(out.len())?;
                    }
                }
                v => out.push(v.clone()),
            }
        }
        Ok(c.list_result(Value::list(out)))
    });
    r.mf("range", "start:int, stop:int?=null", |_, a| {
        let start = a.clamped(0)?;
        match a.v(1) {
            Value::Null => Ok(crate::stdlib::queries::range(start, i64::MAX, 1)),
            _ => Ok(crate::stdlib::queries::range(start, a.clamped(1)?, 1)),
        }
    });
    r.mf("switch", "value:any, *conditions:Lambda, nokw", |_, a| {
        let v = a.v(0).clone();
        for cnd in &a.rest {
            match cnd {
                ArgValue::Lazy(l) => {
                    let (cond, res) = pair(&l.call1(v.clone())?)?;
                    if cond.truthy() {
                        return Ok(res);
                    }
                }
                ArgValue::Rule(k, r) if k.call1(v.clone())?.truthy() => {
                    return r.call1(v.clone());
                }
                _ => {}
            }
        }
        Ok(Value::Null)
    });
    r.set_exclusive("switch");
    r.m("toList", "collection:Iterable", |c, a| {
        Ok(c.list_result(Value::list(c.collect(a.v(0))?)))
    });
    r.f("tuple", "*args:any", |_, a| {
        Ok(Value::list(a.rest_values()))
    });
    // Standard functions made callable both ways.
    for (name, sig) in [
        ("select", "collection:Iterable, selector:Lambda"),
        ("where", "collection:Iterable, predicate:Lambda"),
        ("takeWhile", "collection:Iterable, predicate:Lambda"),
        ("sum", "collection:Iterable, initial:any=nv"),
        (
            "join",
            "collection1:Iterable, collection2:Iterable, predicate:Lambda, selector:Lambda",
        ),
        ("join", "separator:String, sequence:Iterable"),
        ("join", "sequence:Iterable, separator:String"),
    ] {
        both(r, name, sig);
    }
    let _ = ErrorKind::Other;
}
