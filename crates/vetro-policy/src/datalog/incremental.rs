//! Materialized views maintained incrementally: every derived tuple keeps the
//! number of its derivations; a change of stored facts is propagated through
//! the components in dependency order with delta joins (`new` state before
//! the changed literal, `old` state after it), and only the tuples whose count
//! crosses zero change. Components with recursion are recomputed by a fresh
//! evaluation instead.

use super::compile::{compile_order, PredIds};
use super::error::PolicyError;
use super::eval::{positions, EvaluatedParts, Evaluator};
use super::hash::{FxHashMap, FxHashSet};
use super::join::{self, Source};
use super::limits::Limits;
use super::order::order_body_from;
use super::plan::{Plan, Step, StepKind};
use super::policy::{PolicySet, PredKey};
use super::relation::{Indices, Relation};
use super::value::{Symbols, Tuple, Value};
use std::collections::HashMap;

/// Net change of one predicate.
#[derive(Debug, Default, Clone)]
pub struct Change {
    pub inserted: FxHashSet<Tuple>,
    pub deleted: FxHashSet<Tuple>,
}

impl Change {
    fn is_empty(&self) -> bool {
        self.inserted.is_empty() && self.deleted.is_empty()
    }
}

/// A materialized set of goals and everything they depend on.
pub struct View {
    pub(crate) keys: Vec<PredKey>,
    pub(crate) index: HashMap<PredKey, usize>,
    pub(crate) plans: Vec<Plan>,
    /// Per (plan, step), the plan that evaluates that step first, compiled
    /// when a change first reaches the step (`None` when there is none).
    pub(crate) alts: FxHashMap<(usize, usize), Option<Plan>>,
    pub(crate) defs: Vec<Vec<usize>>,
    pub(crate) rels: Vec<Relation>,
    pub(crate) idx: Vec<Indices>,
    pub(crate) sccs: Vec<Vec<usize>>,
    pub(crate) recursive: Vec<bool>,
    pub(crate) deps: Vec<Vec<(usize, bool)>>,
    pub(crate) counts: Vec<FxHashMap<Tuple, i64>>,
    pub(crate) goals: Vec<PredKey>,
    pub(crate) needs_rebuild: bool,
}

impl View {
    fn from_parts(p: EvaluatedParts) -> View {
        let recursive: Vec<bool> = p
            .sccs
            .iter()
            .map(|scc| {
                scc.iter()
                    .any(|&m| p.deps[m].iter().any(|(q, _)| scc.contains(q)))
            })
            .collect();
        View {
            keys: p.keys,
            index: p.index,
            plans: p.plans,
            alts: FxHashMap::default(),
            defs: p.defs,
            rels: p.rels,
            idx: p.idx,
            sccs: p.sccs,
            recursive,
            deps: p.deps,
            counts: Vec::new(),
            goals: Vec::new(),
            needs_rebuild: false,
        }
    }

    /// Evaluates `goals` over `policies` and keeps the result for maintenance.
    pub fn build(
        policies: &PolicySet,
        goals: &[PredKey],
        syms: &mut Symbols,
        limits: Limits,
    ) -> Result<View, PolicyError> {
        let includes = HashMap::new();
        let mut ev = Evaluator::new(policies, &includes)
            .with_limits(limits)
            .keeping_origins();
        ev.run(goals, syms)?;
        let mut view = View::from_parts(ev.into_parts());
        view.goals = goals.to_vec();
        // Derivation counts: one for a stored fact, one per rule derivation.
        for p in 0..view.keys.len() {
            let mut counts: FxHashMap<Tuple, i64> = FxHashMap::default();
            if let Some(facts) = policies
                .get(&view.keys[p].policy)
                .and_then(|pol| pol.facts.get(&view.keys[p].key))
            {
                for t in facts.iter() {
                    *counts.entry(t.clone()).or_default() += 1;
                }
            }
            view.counts.push(counts);
        }
        // Headroom, so that a later small change does not regrow a large
        // table (a small one regrows cheaply: a rule of thousands of
        // literals has as many tables, most of them empty).
        for rel in view.rels.iter_mut() {
            rel.reserve(rel.len().min(1024) + rel.len() / 16);
        }
        for plan in &view.plans {
            extend_indices(plan, &view.rels, &mut view.idx);
        }
        for s in 0..view.sccs.len() {
            if view.recursive[s] {
                continue;
            }
            for &p in &view.sccs[s].clone() {
                for pl in view.defs[p].clone() {
                    for (t, sign) in view.run(pl, p, None, &FxHashMap::default(), syms) {
                        *view.counts[p].entry(t).or_default() += sign;
                    }
                }
            }
        }
        Ok(view)
    }

    pub fn relation(&self, key: &PredKey) -> Option<&Relation> {
        self.index.get(key).map(|&i| &self.rels[i])
    }

    /// Whether the last changes touched a recursive component (the caller must rebuild).
    pub fn needs_rebuild(&self) -> bool {
        self.needs_rebuild
    }

    pub fn goals(&self) -> &[PredKey] {
        &self.goals
    }

    /// Applies inserted (`true`) and deleted stored facts; returns the net
    /// change of every predicate that changed.
    pub fn apply(
        &mut self,
        changes: &[(PredKey, Tuple, bool)],
        syms: &mut Symbols,
    ) -> FxHashMap<usize, Change> {
        let mut delta: FxHashMap<usize, Change> = FxHashMap::default();
        for (key, t, insert) in changes {
            let Some(&p) = self.index.get(key) else {
                continue;
            };
            self.bump(p, t, if *insert { 1 } else { -1 }, &mut delta);
        }
        for s in 0..self.sccs.len() {
            let scc = self.sccs[s].clone();
            let touched = scc.iter().any(|&p| {
                self.deps[p]
                    .iter()
                    .any(|&(q, _)| delta.get(&q).is_some_and(|c| !c.is_empty()))
            });
            if !touched {
                continue;
            }
            if self.recursive[s] {
                self.needs_rebuild = true;
                continue;
            }
            for &p in &scc {
                let mut sums: FxHashMap<Tuple, i64> = FxHashMap::default();
                for pl in self.defs[p].clone() {
                    let positions: Vec<usize> = self.plans[pl]
                        .steps
                        .iter()
                        .enumerate()
                        .filter(|(_, st)| match st.kind {
                            StepKind::Scan(q) | StepKind::Neg(q) | StepKind::Copy(q) => {
                                delta.get(&q).is_some_and(|c| !c.is_empty())
                            }
                            _ => false,
                        })
                        .map(|(i, _)| i)
                        .collect();
                    for pos in positions {
                        for (t, sign) in self.run(pl, p, Some(pos), &delta, syms) {
                            *sums.entry(t).or_default() += sign;
                        }
                    }
                }
                for (t, d) in sums {
                    if d != 0 {
                        self.bump(p, &t, d, &mut delta);
                    }
                }
            }
        }
        delta.retain(|_, c| !c.is_empty());
        delta
    }

    /// Adds `d` derivations of `t` to predicate `p`, recording a change when the count crosses zero.
    fn bump(&mut self, p: usize, t: &Tuple, d: i64, delta: &mut FxHashMap<usize, Change>) {
        let c = self.counts[p].entry(t.clone()).or_default();
        let before = *c;
        *c += d;
        let after = *c;
        if after <= 0 {
            self.counts[p].remove(t);
        }
        let change = delta.entry(p).or_default();
        if before <= 0 && after > 0 {
            self.rels[p].insert(t.clone());
            if !change.deleted.remove(t) {
                change.inserted.insert(t.clone());
            }
        } else if before > 0 && after <= 0 {
            self.rels[p].remove(t);
            if !change.inserted.remove(t) {
                change.deleted.insert(t.clone());
            }
        }
    }

    /// Runs a plan for head `p`: without `pos`, on the current state; with it,
    /// driven by the change at that step (earlier steps new, later steps old).
    fn run(
        &mut self,
        pl: usize,
        p: usize,
        pos: Option<usize>,
        delta: &FxHashMap<usize, Change>,
        syms: &mut Symbols,
    ) -> Vec<(Tuple, i64)> {
        // A plan that starts from the changed literal, when there is one.
        if let Some(j) = pos {
            if !self.alts.contains_key(&(pl, j)) {
                let alt = self.alternative(pl, j, syms);
                self.alts.insert((pl, j), alt);
            }
        }
        let alt = pos.and_then(|j| self.alts[&(pl, j)].as_ref());
        let (plan, pos) = match alt {
            Some(alt) => (alt, Some(0)),
            None => (&self.plans[pl], pos),
        };
        extend_indices(plan, &self.rels, &mut self.idx);
        let empty = Change::default();
        let mut source = Maintained {
            plan,
            head: p,
            rels: &self.rels,
            idx: &self.idx,
            pos,
            delta,
            empty: &empty,
            out: Vec::new(),
        };
        join::run(plan, &mut source, syms);
        source.out
    }
}

impl View {
    /// Compiles the plan that evaluates step `j` of plan `pl` first: for a
    /// scan after the first step of a rule's plan, the rule ordered from
    /// that literal on.
    fn alternative(&self, pl: usize, j: usize, syms: &mut Symbols) -> Option<Plan> {
        let main = &self.plans[pl];
        if j == 0 || !matches!(main.steps.get(j)?.kind, StepKind::Scan(_)) {
            return None;
        }
        let o = main.origin.as_deref()?;
        let order = order_body_from(&o.policy, &o.rule.body, Some(o.order[j])).ok()?;
        let orig = positions(&o.order);
        let mut known = Known(&self.index);
        let mut alt = compile_order(
            &o.policy,
            &o.rule,
            o.head_pred,
            &order,
            &orig,
            syms,
            &mut known,
        )?;
        // The heads derive where the main plan's do.
        for (h, m) in alt.heads.iter_mut().zip(&main.heads) {
            h.0 = m.0;
        }
        Some(alt)
    }
}

/// The predicate ids of a view: every predicate its rules read has one.
struct Known<'v>(&'v HashMap<PredKey, usize>);

impl PredIds for Known<'_> {
    fn body_pred(&mut self, key: &PredKey, _: &mut Symbols) -> Option<usize> {
        self.0.get(key).copied()
    }

    fn head_pred(&self, _: &PredKey) -> Option<usize> {
        None
    }
}

/// Brings the indices a plan uses up to date with the relations.
fn extend_indices(plan: &Plan, rels: &[Relation], idx: &mut [Indices]) {
    for s in &plan.steps {
        if let StepKind::Scan(q) = s.kind {
            if !s.bound.is_empty() {
                idx[q]
                    .entry(s.bound.clone())
                    .or_default()
                    .extend(&rels[q], &s.bound);
            }
        }
    }
}

/// The join's source in maintenance: the step at `pos` reads the change;
/// steps before the changed literal (in the rule's main order) read the new
/// state, steps after it the old one. Derivations of `head` are counted with
/// their sign.
struct Maintained<'r> {
    plan: &'r Plan,
    head: usize,
    rels: &'r [Relation],
    idx: &'r [Indices],
    pos: Option<usize>,
    delta: &'r FxHashMap<usize, Change>,
    empty: &'r Change,
    out: Vec<(Tuple, i64)>,
}

impl Maintained<'_> {
    fn change(&self, q: usize) -> &Change {
        self.delta.get(&q).unwrap_or(self.empty)
    }

    /// Whether step `i` reads the old state: it comes after the driving
    /// literal in the rule's main order (whatever order this plan runs in).
    fn old(&self, i: usize) -> bool {
        self.pos
            .is_some_and(|p| self.plan.steps[i].orig > self.plan.steps[p].orig)
    }

    fn contains(&self, q: usize, t: &[Value], old: bool) -> bool {
        let now = self.rels[q].contains(t);
        if !old {
            return now;
        }
        let c = self.change(q);
        (now && !c.inserted.contains(t)) || c.deleted.contains(t)
    }

    /// The change of `q`: inserted rows count up, deleted ones down.
    fn changed_rows(&self, q: usize) -> Vec<(Tuple, i64)> {
        let c = self.change(q);
        let ins = c.inserted.iter().map(|t| (t.clone(), 1));
        ins.chain(c.deleted.iter().map(|t| (t.clone(), -1)))
            .collect()
    }
}

impl Source for Maintained<'_> {
    type Row = Tuple;
    type Rows = std::vec::IntoIter<(Tuple, i64)>;

    fn scan(&self, i: usize, step: &Step, q: usize, key: &[Value]) -> Self::Rows {
        if self.pos == Some(i) {
            return self.changed_rows(q).into_iter();
        }
        let rel = &self.rels[q];
        let mut rows: Vec<Tuple> = Vec::new();
        if step.bound.is_empty() {
            rows.extend(rel.iter().cloned());
        } else if let Some(index) = self.idx[q].get(&step.bound) {
            for &r in index.lookup(key) {
                if let Some(row) = rel.row(r as usize) {
                    rows.push(row.clone());
                }
            }
        }
        if self.old(i) {
            let c = self.change(q);
            rows.retain(|t| !c.inserted.contains(t));
            rows.extend(c.deleted.iter().cloned());
        }
        let rows: Vec<(Tuple, i64)> = rows.into_iter().map(|t| (t, 1)).collect();
        rows.into_iter()
    }

    fn tick(&mut self) -> bool {
        true
    }

    fn negation(&self, i: usize, q: usize, t: &[Value]) -> Option<i64> {
        if self.pos == Some(i) {
            // A row entering the negated table removes derivations; one leaving adds them.
            let c = self.change(q);
            if c.inserted.contains(t) {
                Some(-1)
            } else if c.deleted.contains(t) {
                Some(1)
            } else {
                None
            }
        } else {
            (!self.contains(q, t, self.old(i))).then_some(1)
        }
    }

    fn copy(&mut self, i: usize, q: usize, sign: i64) {
        let rows = if self.pos == Some(i) {
            self.changed_rows(q)
        } else {
            self.rels[q].iter().map(|t| (t.clone(), 1)).collect()
        };
        self.out
            .extend(rows.into_iter().map(|(t, s)| (t, s * sign)));
    }

    fn emit(&mut self, binding: &[Option<Value>], sign: i64, _: &mut Symbols) {
        for (h, args) in &self.plan.heads {
            if *h != self.head {
                continue;
            }
            let t: Option<Tuple> = args.iter().map(|a| a.value(binding)).collect();
            if let Some(t) = t {
                self.out.push((t, sign));
            }
        }
    }
}
