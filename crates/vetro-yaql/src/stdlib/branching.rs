//! `branching`: `switch`, `coalesce`, `selectCase` and friends (all lazy).

use super::Reg;
use crate::eval::Lambda;
use crate::func::params::{PyInt, Rest, Rule};
use crate::value::Value;
use crate::yaql_fn;

pub fn register(r: &Reg) {
    r.add_def(yaql_fn!(Function "coalesce", |_c| (args: Rest<&Lambda>) {
        for x in args.0 {
            let v = x.eval()?;
            if !v.is_null() {
                return Ok(v);
            }
        }
        Ok(Value::Null)
    }));
    r.add_def(yaql_fn!(Function "examine", |_c| (args: Rest<&Lambda>) {
        let mut out = Vec::new();
        for x in args.0 {
            out.push(Value::Bool(x.eval()?.truthy()));
        }
        Ok(Value::list(out))
    }));
    r.add_def(
        yaql_fn!(Function "selectAllCases", |c| (args: Rest<&Lambda>) {
            let mut out = Vec::new();
            for (i, x) in args.0.iter().enumerate() {
                if x.eval()?.truthy() {
                    out.push(Value::Int(i as i64));
                }
            }
            Ok(crate::eval::lazy_vec(c.run(), out))
        }),
    );
    r.add_def(yaql_fn!(Function "selectCase", |_c| (args: Rest<&Lambda>) {
        for (i, x) in args.0.iter().enumerate() {
            if x.eval()?.truthy() {
                return Ok(i as i64);
            }
        }
        Ok(args.0.len() as i64)
    }));
    r.add_def(
        yaql_fn!(Function "switch", |_c| (args: Rest<Rule>) {
            for rule in args.0 {
                if rule.key.eval()?.truthy() {
                    return rule.value.eval();
                }
            }
            Ok(Value::Null)
        })
        .nokw(),
    );
    r.add_def(
        yaql_fn!(Method "switchCase", |_c| (case: PyInt, args: Rest<&Lambda>) {
            let n = args.0.len() as i64;
            if n == 0 {
                return Ok(Value::Null);
            }
            let i = case.clamped()?;
            let idx = if i < 0 || i >= n { n - 1 } else { i };
            args.0[idx as usize].eval()
        }),
    );
}
