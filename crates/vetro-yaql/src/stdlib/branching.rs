//! `branching`: `switch`, `coalesce`, `selectCase` and friends (all lazy).

use super::Reg;
use crate::eval::Lambda;
use crate::func::params::{PyInt, Rest, Rule};
use crate::iter::LazyIter;
use crate::value::Value;
use crate::yaql_fn;

/// Lambdas kept for a lazy result.
fn owned(lambdas: &[&Lambda]) -> Vec<Lambda> {
    lambdas.iter().map(|&l| l.clone()).collect()
}

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
    // `examine` and `selectAllCases` evaluate their predicates as their
    // results are read, as the reference's generators do: a predicate
    // after the items read never runs.
    r.add_def(yaql_fn!(Function "examine", |c| (args: Rest<&Lambda>) {
        let mut preds = owned(&args.0).into_iter();
        Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
            preds.next().map(|p| Ok(Value::Bool(p.eval()?.truthy()))).transpose()
        })))
    }));
    r.add_def(
        yaql_fn!(Function "selectAllCases", |c| (args: Rest<&Lambda>) {
            let mut preds = owned(&args.0).into_iter().enumerate();
            Ok(Value::Iter(LazyIter::from_fn(c.run(), move || {
                for (i, p) in preds.by_ref() {
                    if p.eval()?.truthy() {
                        return Ok(Some(Value::Int(i as i64)));
                    }
                }
                Ok(None)
            })))
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
