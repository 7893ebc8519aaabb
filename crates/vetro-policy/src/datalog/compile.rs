//! Compiling a rule body, in an evaluation order chosen by `order`, into a
//! [`Plan`]: variables numbered, the columns each scan finds bound, each
//! literal's predicate resolved to its id.

use super::ast::{Rule, Term};
use super::plan::{Arg, Plan, Step, StepKind};
use super::policy::PredKey;
use super::refs::{head_key, resolve_body, BodyRef};
use super::value::{Symbols, Value};
use std::collections::HashMap;

/// Where a compiled plan finds the ids of the predicates it reads and defines.
pub(crate) trait PredIds {
    /// The id of a predicate a body literal reads (registered when new), or
    /// `None` when it has none.
    fn body_pred(&mut self, key: &PredKey, syms: &mut Symbols) -> Option<usize>;
    /// The id of a head's predicate, if it has one.
    fn head_pred(&self, key: &PredKey) -> Option<usize>;
}

/// The variables of a rule, numbered in order of appearance.
#[derive(Default)]
struct Vars<'r> {
    ids: HashMap<&'r str, usize>,
}

impl<'r> Vars<'r> {
    fn arg(&mut self, t: &'r Term, syms: &mut Symbols) -> Arg {
        match t {
            Term::Var(v) => {
                let next = self.ids.len();
                Arg::Var(*self.ids.entry(v.as_str()).or_insert(next))
            }
            Term::Int(i) => Arg::Const(Value::Int(*i)),
            Term::Float(f) => Arg::Const(Value::Float(*f)),
            Term::Str(s) => Arg::Const(Value::Str(syms.intern(s))),
        }
    }
}

/// Compiles `rule` of `policy` with its body in `order`; `orig[lit]` is the
/// literal's position in the rule's main order, and heads without an id of
/// their own derive into `head_pred`. `None` when a predicate has no id.
pub(crate) fn compile_order(
    policy: &str,
    rule: &Rule,
    head_pred: usize,
    order: &[usize],
    orig: &[usize],
    syms: &mut Symbols,
    preds: &mut dyn PredIds,
) -> Option<Plan> {
    let mut vars = Vars::default();
    let mut steps = Vec::with_capacity(order.len());
    let mut bound_vars: Vec<bool> = Vec::new();
    for &i in order {
        let lit = &rule.body[i];
        let args: Vec<Arg> = lit.args.iter().map(|t| vars.arg(t, syms)).collect();
        bound_vars.resize(vars.ids.len(), false);
        let negated = lit.negated;
        let kind = match resolve_body(policy, lit) {
            BodyRef::True => StepKind::True,
            BodyRef::Builtin(b) => StepKind::Builtin(b),
            BodyRef::Pred(k) => {
                let q = preds.body_pred(&k, syms)?;
                if negated {
                    StepKind::Neg(q)
                } else {
                    StepKind::Scan(q)
                }
            }
        };
        let bound: Vec<usize> = if negated && matches!(kind, StepKind::Builtin(_)) {
            // A negated builtin: evaluated as a filter on bound inputs.
            vec![usize::MAX]
        } else {
            args.iter()
                .enumerate()
                .filter(|(_, a)| match a {
                    Arg::Const(_) => true,
                    Arg::Var(v) => bound_vars[*v],
                })
                .map(|(i, _)| i)
                .collect()
        };
        if !negated {
            for a in &args {
                if let Arg::Var(v) = a {
                    bound_vars[*v] = true;
                }
            }
        }
        steps.push(Step {
            kind,
            args,
            bound,
            orig: orig[i],
        });
    }
    let mut heads = Vec::with_capacity(rule.heads.len());
    for h in &rule.heads {
        let hp = preds.head_pred(&head_key(policy, h)).unwrap_or(head_pred);
        let args: Vec<Arg> = h.args.iter().map(|t| vars.arg(t, syms)).collect();
        heads.push((hp, args));
    }
    Some(Plan {
        heads,
        steps,
        nvars: vars.ids.len(),
        origin: None,
    })
}
