//! The rule-body join, shared by full evaluation (`eval`) and incremental
//! maintenance (`incremental`): a plan's steps run in order, variables are
//! bound as rows match and unbound on the way back, builtins compute on bound
//! inputs. What a scan reads, what a negation sees, and where a finished
//! derivation goes is the [`Source`]'s business: full evaluation reads the
//! relations (or a semi-naive delta) and collects head tuples; incremental
//! maintenance reads old or new state around the changed literal and counts
//! each derivation with a sign (+1 added, -1 removed).

use super::builtins::{self, Builtin};
use super::plan::{Arg, Plan, Step, StepKind};
use super::value::{Symbols, Value};

/// Where a join reads its rows and what it does with a derivation.
pub(crate) trait Source {
    /// A row of a scan: borrowed from a relation, or made for the scan.
    type Row: AsRef<[Value]>;
    type Rows: Iterator<Item = (Self::Row, i64)>;

    /// The rows step `i` (a scan of `q`) may match, each with the sign it
    /// contributes; `key` holds the values of the step's bound columns.
    fn scan(&self, i: usize, step: &Step, q: usize, key: &[Value]) -> Self::Rows;
    /// Whether one more row may be tried.
    fn tick(&mut self) -> bool;
    /// Whether step `i`, `not q(t)`, lets the derivation go on, and with
    /// which sign.
    fn negation(&self, i: usize, q: usize, t: &[Value]) -> Option<i64>;
    /// Step `i` copies every row of `q` into the head.
    fn copy(&mut self, i: usize, q: usize, sign: i64);
    /// A derivation reached the end of the body.
    fn emit(&mut self, binding: &[Option<Value>], sign: i64, syms: &mut Symbols);
}

/// Runs `plan` against `source`.
pub(crate) fn run<S: Source>(plan: &Plan, source: &mut S, syms: &mut Symbols) {
    let mut binding = vec![None; plan.nvars];
    Join { plan, source, syms }.step(0, &mut binding, 1);
}

struct Join<'j, S> {
    plan: &'j Plan,
    source: &'j mut S,
    syms: &'j mut Symbols,
}

/// The join recurses once per body literal, and a rule may have thousands:
/// every this many steps, the stack grows by a segment when it runs low.
const GROW_EVERY: usize = 64;
/// Stack left that triggers a new segment: far more than `GROW_EVERY` levels use.
const RED_ZONE: usize = 256 * 1024;
const SEGMENT: usize = 4 * 1024 * 1024;

impl<S: Source> Join<'_, S> {
    fn step(&mut self, i: usize, binding: &mut [Option<Value>], sign: i64) {
        if i % GROW_EVERY == GROW_EVERY - 1 {
            stacker::maybe_grow(RED_ZONE, SEGMENT, || self.run_step(i, binding, sign));
        } else {
            self.run_step(i, binding, sign);
        }
    }

    fn run_step(&mut self, i: usize, binding: &mut [Option<Value>], sign: i64) {
        let plan = self.plan;
        let Some(step) = plan.steps.get(i) else {
            self.source.emit(binding, sign, self.syms);
            return;
        };
        match step.kind {
            StepKind::True => self.step(i + 1, binding, sign),
            StepKind::Builtin(b) => self.builtin(i, step, b, binding, sign),
            StepKind::Copy(q) => self.source.copy(i, q, sign),
            StepKind::Neg(q) => {
                let t: Option<Vec<Value>> = step.args.iter().map(|a| a.value(binding)).collect();
                let Some(t) = t else {
                    return;
                };
                if let Some(s) = self.source.negation(i, q, &t) {
                    self.step(i + 1, binding, sign * s);
                }
            }
            StepKind::Scan(q) => {
                let key: Vec<Value> = step
                    .bound
                    .iter()
                    .map(|&c| step.args[c].value(binding).unwrap_or(Value::Int(0)))
                    .collect();
                for (row, s) in self.source.scan(i, step, q, &key) {
                    self.try_row(i, row.as_ref(), binding, sign * s);
                }
            }
        }
    }

    fn builtin(
        &mut self,
        i: usize,
        step: &Step,
        b: Builtin,
        binding: &mut [Option<Value>],
        sign: i64,
    ) {
        let negated = step.bound.first() == Some(&usize::MAX);
        let inputs: Option<Vec<Value>> = step.args[..b.inputs]
            .iter()
            .map(|a| a.value(binding))
            .collect();
        let Some(inputs) = inputs else {
            return;
        };
        let result = builtins::eval(b, &inputs, self.syms);
        if negated {
            // A negated builtin is a filter on bound inputs.
            let holds = result.is_some_and(|outs| {
                outs.iter()
                    .zip(&step.args[b.inputs..])
                    .all(|(o, a)| a.value(binding).is_none_or(|v| v == *o))
            });
            if !holds {
                self.step(i + 1, binding, sign);
            }
            return;
        }
        let Some(outs) = result else {
            return;
        };
        self.bind(i, &step.args[b.inputs..], &outs, binding, sign);
    }

    fn try_row(&mut self, i: usize, row: &[Value], binding: &mut [Option<Value>], sign: i64) {
        let step = &self.plan.steps[i];
        if !self.source.tick() || row.len() != step.args.len() {
            return;
        }
        self.bind(i, &step.args, row, binding, sign);
    }

    /// Matches `args` against `values`, binding the free variables, and goes
    /// on with step `i + 1` when they match; the bindings are undone after.
    fn bind(
        &mut self,
        i: usize,
        args: &[Arg],
        values: &[Value],
        binding: &mut [Option<Value>],
        sign: i64,
    ) {
        let mut set: Vec<usize> = Vec::new();
        let mut ok = true;
        for (a, v) in args.iter().zip(values) {
            match *a {
                Arg::Const(c) => ok &= c == *v,
                Arg::Var(x) => match binding[x] {
                    Some(b) => ok &= b == *v,
                    None => {
                        binding[x] = Some(*v);
                        set.push(x);
                    }
                },
            }
            if !ok {
                break;
            }
        }
        if ok {
            self.step(i + 1, binding, sign);
        }
        for x in set {
            binding[x] = None;
        }
    }
}
