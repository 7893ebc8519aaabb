//! Bottom-up evaluation: the rules a goal depends on are compiled into join
//! plans, grouped into strongly connected components and evaluated in
//! dependency order; recursive components are evaluated semi-naively.

use super::ast::Rule;
use super::compile::{compile_order, PredIds};
use super::error::{ErrorClass, PolicyError};
use super::join::{self, Source};
use super::limits::{Budget, Limits};
use super::order::order_body;
use super::plan::{Arg, Origin, Plan, Step, StepKind};
use super::policy::{PolicySet, PredKey};
use super::relation::{self, Indices, Relation};
use super::value::{Symbols, Tuple, Value};
use std::collections::{HashMap, HashSet};

pub use super::refs::{head_key, resolve_body, BodyRef};

/// The position of each literal in `order`.
pub(crate) fn positions(order: &[usize]) -> Vec<usize> {
    let mut orig = vec![0; order.len()];
    for (pos, &lit) in order.iter().enumerate() {
        orig[lit] = pos;
    }
    orig
}

/// Gives the predicates of a compiled rule their ids, registering new ones
/// to be compiled in turn.
struct Registrar<'e, 'a> {
    ev: &'e mut Evaluator<'a>,
    todo: &'e mut Vec<usize>,
}

impl PredIds for Registrar<'_, '_> {
    fn body_pred(&mut self, key: &PredKey, syms: &mut Symbols) -> Option<usize> {
        Some(self.ev.pred(key, syms, self.todo))
    }

    fn head_pred(&self, key: &PredKey) -> Option<usize> {
        self.ev.index.get(key).copied()
    }
}

/// Evaluation state for one set of goals.
pub struct Evaluator<'a> {
    policies: &'a PolicySet,
    includes: &'a HashMap<String, Vec<String>>,
    keys: Vec<PredKey>,
    index: HashMap<PredKey, usize>,
    plans: Vec<Plan>,
    /// Plans defining each predicate.
    defs: Vec<Vec<usize>>,
    /// Predicates each predicate depends on (with negation flag).
    deps: Vec<Vec<(usize, bool)>>,
    rels: Vec<Slot<'a>>,
    idx: Vec<Indices>,
    skolem: usize,
    budget: Budget,
    /// Whether plans keep the rules they were compiled from (for maintenance).
    keep_origins: bool,
}

impl<'a> Evaluator<'a> {
    pub fn new(policies: &'a PolicySet, includes: &'a HashMap<String, Vec<String>>) -> Self {
        Evaluator {
            policies,
            includes,
            keys: Vec::new(),
            index: HashMap::new(),
            plans: Vec::new(),
            defs: Vec::new(),
            deps: Vec::new(),
            rels: Vec::new(),
            idx: Vec::new(),
            skolem: 0,
            budget: Budget::new(Limits::default()),
            keep_origins: false,
        }
    }

    /// Evaluates under `limits` instead of the default ones.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.budget = Budget::new(limits);
        self
    }

    /// Keeps with every rule's plan the rule itself, so that incremental
    /// maintenance can compile plans in other orders.
    pub(crate) fn keeping_origins(mut self) -> Self {
        self.keep_origins = true;
        self
    }

    fn pred(&mut self, key: &PredKey, syms: &mut Symbols, todo: &mut Vec<usize>) -> usize {
        if let Some(&i) = self.index.get(key) {
            return i;
        }
        let i = self.keys.len();
        self.keys.push(key.clone());
        self.index.insert(key.clone(), i);
        self.defs.push(Vec::new());
        self.deps.push(Vec::new());
        let base = self
            .policies
            .get(&key.policy)
            .and_then(|p| p.facts.get(&key.key));
        let _ = syms;
        self.rels.push(match base {
            Some(r) => Slot::Borrowed(r),
            None => Slot::Owned(Relation::new()),
        });
        self.idx.push(Indices::default());
        todo.push(i);
        i
    }

    /// Computes the goals and everything they depend on.
    pub fn run(
        &mut self,
        goals: &[PredKey],
        syms: &mut Symbols,
    ) -> Result<Vec<usize>, PolicyError> {
        let mut todo = Vec::new();
        let ids: Vec<usize> = goals
            .iter()
            .map(|g| self.pred(g, syms, &mut todo))
            .collect();
        while let Some(p) = todo.pop() {
            let key = self.keys[p].clone();
            let mut sources: Vec<(String, bool)> = vec![(key.policy.clone(), true)];
            if let Some(inc) = self.includes.get(&key.policy) {
                sources.extend(inc.iter().map(|s| (s.clone(), false)));
            }
            for (src, own) in sources {
                if !own {
                    // An included policy contributes its own table of the same name.
                    let other = PredKey {
                        policy: src.clone(),
                        key: key.key.clone(),
                    };
                    let o = self.pred(&other, syms, &mut todo);
                    let plan_id = self.plans.len();
                    self.plans.push(Plan {
                        heads: vec![(p, Vec::new())],
                        steps: vec![Step {
                            kind: StepKind::Copy(o),
                            args: Vec::new(),
                            bound: Vec::new(),
                            orig: 0,
                        }],
                        nvars: 0,
                        origin: None,
                    });
                    self.defs[p].push(plan_id);
                    self.deps[p].push((o, false));
                    continue;
                }
                let Some(policy) = self.policies.get(&src) else {
                    continue;
                };
                let rule_ids: Vec<usize> = policy.rules_for(&key.key).to_vec();
                for rid in rule_ids {
                    let rule = &self.policies[&src].rules[rid];
                    let plan = self.compile(&src, rule, p, syms, &mut todo)?;
                    // Planning counts against the time limit too.
                    self.budget.look_at_clock();
                    self.budget.check()?;
                    let plan_id = self.plans.len();
                    for s in &plan.steps {
                        match s.kind {
                            StepKind::Scan(q) | StepKind::Copy(q) => self.deps[p].push((q, false)),
                            StepKind::Neg(q) => self.deps[p].push((q, true)),
                            _ => {}
                        }
                    }
                    self.plans.push(plan);
                    self.defs[p].push(plan_id);
                }
            }
        }
        for scc in self.sccs() {
            self.eval_scc(&scc, syms)?;
        }
        Ok(ids)
    }

    pub fn relation(&self, id: usize) -> &Relation {
        &self.rels[id]
    }

    /// The evaluated state, owned, in parts (for incremental maintenance).
    pub(crate) fn into_parts(self) -> EvaluatedParts {
        let sccs = self.sccs();
        EvaluatedParts {
            keys: self.keys,
            index: self.index,
            plans: self.plans,
            defs: self.defs,
            rels: self.rels.into_iter().map(Slot::into_owned).collect(),
            idx: self.idx,
            sccs,
            deps: self.deps,
        }
    }

    /// The computed relation of a predicate, if it was part of the evaluation.
    pub fn relation_of(&self, key: &PredKey) -> Option<&Relation> {
        self.index.get(key).map(|&i| &*self.rels[i])
    }

    fn compile(
        &mut self,
        policy: &str,
        rule: &Rule,
        head_pred: usize,
        syms: &mut Symbols,
        todo: &mut Vec<usize>,
    ) -> Result<Plan, PolicyError> {
        let order = order_body(policy, &rule.body).map_err(|bad| {
            let lits: Vec<String> = bad.iter().map(|&i| rule.body[i].to_string()).collect();
            PolicyError::new(
                ErrorClass::Unsafe,
                format!(
                    "rule {rule} is unsafe: {} never have all their variables bound",
                    lits.join(", ")
                ),
            )
        })?;
        let orig = positions(&order);
        let mut preds = Registrar { ev: self, todo };
        let plan = compile_order(policy, rule, head_pred, &order, &orig, syms, &mut preds);
        let mut plan = plan.expect("the evaluator gives every predicate an id");
        if self.keep_origins {
            plan.origin = Some(Box::new(Origin {
                policy: policy.to_string(),
                rule: rule.clone(),
                order,
                head_pred,
            }));
        }
        Ok(plan)
    }

    /// Strongly connected components, dependencies first (Tarjan).
    fn sccs(&self) -> Vec<Vec<usize>> {
        debug_assert_eq!(self.deps.len(), self.keys.len());
        super::graph::tarjan(&self.deps)
    }

    fn eval_scc(&mut self, scc: &[usize], syms: &mut Symbols) -> Result<(), PolicyError> {
        let members: HashSet<usize> = scc.iter().copied().collect();
        let plans: Vec<usize> = scc
            .iter()
            .flat_map(|&p| self.defs[p].iter().copied())
            .collect();
        let recursive = plans.iter().any(|&pl| {
            self.plans[pl]
                .steps
                .iter()
                .any(|s| matches!(s.kind, StepKind::Scan(q) | StepKind::Neg(q) | StepKind::Copy(q) if members.contains(&q)))
        });
        // First round: every plan against the full relations.
        let mut delta: HashMap<usize, Delta> = HashMap::new();
        for &pl in &plans {
            let derived = self.run_plan(pl, None, syms);
            self.budget.check()?;
            let mut added = 0;
            for (p, t) in derived {
                if self.rels[p].to_mut().insert(t.clone()) {
                    added += 1;
                    if recursive {
                        delta.entry(p).or_default().0.insert(t);
                    }
                }
            }
            self.budget.stored(added);
        }
        if !recursive {
            return Ok(());
        }
        // Members' base facts also seed the first delta.
        for &p in scc {
            let rows: Vec<Tuple> = self.rels[p].iter().cloned().collect();
            let d = delta.entry(p).or_default();
            for t in rows {
                d.0.insert(t);
            }
        }
        while delta.values().any(|d| !d.0.is_empty()) {
            let mut next: HashMap<usize, Delta> = HashMap::new();
            for &pl in &plans {
                let positions: Vec<usize> = self.plans[pl]
                    .steps
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| matches!(s.kind, StepKind::Scan(q) if members.contains(&q)))
                    .map(|(i, _)| i)
                    .collect();
                for pos in positions {
                    let derived = self.run_plan(pl, Some((pos, &mut delta)), syms);
                    self.budget.check()?;
                    let mut added = 0;
                    for (p, t) in derived {
                        if self.rels[p].to_mut().insert(t.clone()) {
                            added += 1;
                            next.entry(p).or_default().0.insert(t);
                        }
                    }
                    self.budget.stored(added);
                }
            }
            delta = next;
        }
        Ok(())
    }

    /// Runs one plan; with `delta`, the scan at that step reads the delta relation.
    fn run_plan(
        &mut self,
        pl: usize,
        mut delta: Option<(usize, &mut HashMap<usize, Delta>)>,
        syms: &mut Symbols,
    ) -> Vec<(usize, Tuple)> {
        // Make the indices the plan needs.
        let plan = &self.plans[pl];
        for (i, s) in plan.steps.iter().enumerate() {
            if let StepKind::Scan(q) = s.kind {
                if s.bound.is_empty() {
                    continue;
                }
                match delta.as_mut() {
                    Some((dpos, d)) if *dpos == i => {
                        let (rel, idx) = d.entry(q).or_default();
                        idx.entry(s.bound.clone())
                            .or_default()
                            .extend(rel, &s.bound);
                    }
                    _ => {
                        let rel: &Relation = &self.rels[q];
                        self.idx[q]
                            .entry(s.bound.clone())
                            .or_default()
                            .extend(rel, &s.bound);
                    }
                }
            }
        }
        let plan = &self.plans[pl];
        let empty = Delta::default();
        let delta = delta.as_ref().map(|(pos, d)| {
            let q = match plan.steps[*pos].kind {
                StepKind::Scan(q) => q,
                _ => usize::MAX,
            };
            let (rel, idx) = d.get(&q).unwrap_or(&empty);
            (*pos, rel, idx)
        });
        let mut source = Full {
            plan,
            rels: &self.rels,
            idx: &self.idx,
            delta,
            skolem: &mut self.skolem,
            out: Vec::new(),
            budget: &mut self.budget,
        };
        join::run(plan, &mut source, syms);
        source.out
    }
}

/// What an evaluation computed, with its plans and dependency graph.
pub(crate) struct EvaluatedParts {
    pub keys: Vec<PredKey>,
    pub index: HashMap<PredKey, usize>,
    pub plans: Vec<Plan>,
    pub defs: Vec<Vec<usize>>,
    pub rels: Vec<Relation>,
    pub idx: Vec<Indices>,
    /// Strongly connected components, dependencies first.
    pub sccs: Vec<Vec<usize>>,
    pub deps: Vec<Vec<(usize, bool)>>,
}

/// New tuples of one round of semi-naive evaluation, with their indices.
type Delta = (Relation, Indices);

/// A predicate's relation: borrowed from a policy's stored facts until rules add to it.
type Slot<'a> = std::borrow::Cow<'a, Relation>;

/// The join's source in full evaluation: the relations, or at one step the
/// semi-naive delta; derivations are collected with their head predicate.
struct Full<'r, 'a> {
    plan: &'r Plan,
    rels: &'r [Slot<'a>],
    idx: &'r [Indices],
    delta: Option<(usize, &'r Relation, &'r Indices)>,
    skolem: &'r mut usize,
    out: Vec<(usize, Tuple)>,
    budget: &'r mut Budget,
}

/// The rows one scan of a relation yields.
enum ScanRows<'r> {
    All(relation::Rows<'r>),
    Indexed(&'r Relation, std::slice::Iter<'r, u32>),
    None,
}

impl<'r> Iterator for ScanRows<'r> {
    type Item = (&'r Tuple, i64);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            ScanRows::All(rows) => rows.next().map(|r| (r, 1)),
            ScanRows::Indexed(rel, rows) => rows.find_map(|&r| rel.row(r as usize)).map(|r| (r, 1)),
            ScanRows::None => None,
        }
    }
}

impl<'r> Source for Full<'r, '_> {
    type Row = &'r Tuple;
    type Rows = ScanRows<'r>;

    fn scan(&self, i: usize, step: &Step, q: usize, key: &[Value]) -> ScanRows<'r> {
        let (rel, idx): (&'r Relation, &'r Indices) = match self.delta {
            Some((pos, d, di)) if pos == i => (d, di),
            _ => (&self.rels[q], &self.idx[q]),
        };
        if step.bound.is_empty() {
            return ScanRows::All(rel.iter());
        }
        match idx.get(&step.bound) {
            Some(index) => ScanRows::Indexed(rel, index.lookup(key).iter()),
            None => ScanRows::None,
        }
    }

    fn tick(&mut self) -> bool {
        self.budget.tick()
    }

    fn negation(&self, _: usize, q: usize, t: &[Value]) -> Option<i64> {
        (!self.rels[q].contains(t)).then_some(1)
    }

    fn copy(&mut self, _: usize, q: usize, _: i64) {
        if self.budget.fits(self.out.len() + self.rels[q].len()) {
            for row in self.rels[q].iter() {
                self.out.push((self.plan.heads[0].0, row.clone()));
            }
        }
    }

    fn emit(&mut self, binding: &[Option<Value>], _: i64, syms: &mut Symbols) {
        if !self.budget.fits(self.out.len() + self.plan.heads.len()) {
            return;
        }
        // Unbound head variables (action policies) get one fresh constant per derivation.
        let mut fresh: Vec<(usize, Value)> = Vec::new();
        for (p, args) in &self.plan.heads {
            let mut t = Vec::with_capacity(args.len());
            for a in args {
                let v = match *a {
                    Arg::Const(v) => v,
                    Arg::Var(x) => match binding[x] {
                        Some(v) => v,
                        None => match fresh.iter().find(|(y, _)| *y == x) {
                            Some(&(_, v)) => v,
                            None => {
                                *self.skolem += 1;
                                let name = format!("_sk{}", self.skolem);
                                let v = Value::Str(syms.intern(&name));
                                fresh.push((x, v));
                                v
                            }
                        },
                    },
                };
                t.push(v);
            }
            self.out.push((*p, t.into()));
        }
    }
}
