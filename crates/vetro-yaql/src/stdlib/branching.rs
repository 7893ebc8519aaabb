//! `branching`: `switch`, `coalesce`, `selectCase` and friends (all lazy).

use super::Reg;
use crate::error::Result;
use crate::func::ArgValue;
use crate::value::Value;

fn eval_arg(a: &ArgValue) -> Result<Value> {
    match a {
        ArgValue::Lazy(l) => l.eval(),
        other => Ok(other.val().clone()),
    }
}

pub fn register(r: &Reg) {
    r.f("coalesce", "*args:Lambda", |_, a| {
        for x in &a.rest {
            let v = eval_arg(x)?;
            if !v.is_null() {
                return Ok(v);
            }
        }
        Ok(Value::Null)
    });
    r.f("examine", "*args:Lambda", |_, a| {
        let mut out = Vec::new();
        for x in &a.rest {
            out.push(Value::Bool(eval_arg(x)?.truthy()));
        }
        Ok(Value::list(out))
    });
    r.f("selectAllCases", "*args:Lambda", |_, a| {
        let mut out = Vec::new();
        for (i, x) in a.rest.iter().enumerate() {
            if eval_arg(x)?.truthy() {
                out.push(Value::Int(i as i64));
            }
        }
        Ok(crate::eval::lazy_vec(out))
    });
    r.f("selectCase", "*args:Lambda", |_, a| {
        for (i, x) in a.rest.iter().enumerate() {
            if eval_arg(x)?.truthy() {
                return Ok(Value::Int(i as i64));
            }
        }
        Ok(Value::Int(a.rest.len() as i64))
    });
    r.f("switch", "*args:Rule, nokw", |_, a| {
        for x in &a.rest {
            if let ArgValue::Rule(k, v) = x {
                if k.eval()?.truthy() {
                    return v.eval();
                }
            }
        }
        Ok(Value::Null)
    });
    r.m("switchCase", "case:int, *args:Lambda", |_, a| {
        let n = a.rest.len() as i64;
        if n == 0 {
            return Ok(Value::Null);
        }
        let i = a.clamped(0)?;
        let idx = if i < 0 || i >= n { n - 1 } else { i };
        eval_arg(&a.rest[idx as usize])
    });
}
