//! Proof trees: why a ground atom holds, as the rules and facts that derive it.

use super::ast::{Literal, Term};
use super::builtins;
use super::engine::{render_atom, Engine};
use super::error::PolicyError;
use super::eval::Evaluator;
use super::hash::FxHashMap;
use super::order::order_body;
use super::policy::PredKey;
use super::refs::{head_key, resolve_body, BodyRef};
use super::value::{Symbols, Tuple, Value};
use std::collections::{HashMap, HashSet};
use std::fmt;

/// One node of a proof.
#[derive(Clone, Debug, PartialEq)]
pub enum Proof {
    /// A stored fact: its text, table name and values (strings unquoted).
    Fact {
        atom: String,
        table: String,
        values: Vec<String>,
    },
    /// A literal that holds for a reason with no sub-proof (builtin, negation).
    Holds(String, &'static str),
    /// An atom derived by a rule from the proofs of its body.
    Rule {
        atom: String,
        rule: String,
        body: Vec<Proof>,
    },
}

impl Proof {
    /// Every node with its depth, in proof order (no recursion: proofs can be
    /// as deep as the rule chains behind them).
    fn walk(&self) -> impl Iterator<Item = (usize, &Proof)> {
        let mut todo: Vec<(usize, &Proof)> = vec![(0, self)];
        std::iter::from_fn(move || {
            let (depth, node) = todo.pop()?;
            if let Proof::Rule { body, .. } = node {
                todo.extend(body.iter().rev().map(|b| (depth + 1, b)));
            }
            Some((depth, node))
        })
    }

    /// Every stored fact the proof rests on, in proof order.
    pub fn facts(&self) -> Vec<(&str, &[String])> {
        self.walk()
            .filter_map(|(_, node)| match node {
                Proof::Fact { table, values, .. } => Some((table.as_str(), values.as_slice())),
                _ => None,
            })
            .collect()
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (depth, node) in self.walk() {
            let pad = "  ".repeat(depth);
            match node {
                Proof::Fact { atom, .. } => writeln!(f, "{pad}{atom}    [fact]")?,
                Proof::Holds(a, why) => writeln!(f, "{pad}{a}    [{why}]")?,
                Proof::Rule { atom, rule, .. } => writeln!(f, "{pad}{atom}    [rule: {rule}]")?,
            }
        }
        Ok(())
    }
}

fn term_value(t: &Term, syms: &mut Symbols) -> Option<Value> {
    Some(match t {
        Term::Int(i) => Value::Int(*i),
        Term::Float(f) => Value::Float(*f),
        Term::Str(s) => Value::Str(syms.intern(s)),
        Term::Var(_) => return None,
    })
}

/// Explains a ground atom evaluated in `target`; `None` when it does not hold.
pub fn explain(
    engine: &mut Engine,
    target: &str,
    atom: &Literal,
) -> Result<Option<Proof>, PolicyError> {
    Ok(explain_all(engine, target, std::slice::from_ref(atom))?
        .pop()
        .flatten())
}

/// Explains several ground atoms of `target` with one evaluation.
pub fn explain_all(
    engine: &mut Engine,
    target: &str,
    atoms: &[Literal],
) -> Result<Vec<Option<Proof>>, PolicyError> {
    let mut syms = engine.syms.clone();
    let keys: Vec<PredKey> = atoms.iter().map(|a| engine.query_key(target, a)).collect();
    let includes = HashMap::new();
    let mut ev = Evaluator::new(&engine.policies, &includes).with_limits(engine.limits);
    ev.run(&keys, &mut syms)?;
    let mut ctx = Ctx {
        engine,
        ev: &ev,
        syms: &mut syms,
        in_progress: HashSet::new(),
        indexes: HashMap::new(),
    };
    let mut out = Vec::with_capacity(atoms.len());
    for (atom, key) in atoms.iter().zip(&keys) {
        let values: Option<Vec<Value>> =
            atom.args.iter().map(|t| term_value(t, ctx.syms)).collect();
        out.push(values.and_then(|v| ctx.prove(key, atom.modal.as_deref(), &atom.tablename(), &v)));
    }
    Ok(out)
}

type RowIndex = FxHashMap<Vec<Value>, Vec<Tuple>>;

struct Ctx<'a> {
    engine: &'a Engine,
    ev: &'a Evaluator<'a>,
    syms: &'a mut Symbols,
    /// Atoms whose proof is being searched: a proof never rests on itself.
    in_progress: HashSet<(PredKey, Vec<Value>)>,
    /// Rows of a predicate by the values of some columns, built on first use.
    indexes: HashMap<(PredKey, Vec<usize>), RowIndex>,
}

/// The search for one atom's proof: the rule heads that may derive it, in order.
struct Goal {
    key: PredKey,
    values: Vec<Value>,
    text: String,
    /// (rule id, head index) left to try, last first.
    rules: Vec<(usize, usize)>,
}

/// The search of one rule body. `proofs[i]` proves literal `i`; `choices[i]`
/// is what literal `i` may still try when a later literal fails.
struct Body {
    policy: String,
    rule: String,
    lits: Vec<Literal>,
    binding: HashMap<String, Value>,
    proofs: Vec<Proof>,
    choices: Vec<Choice>,
    /// A sub-goal was handed out; its proof comes back next.
    awaiting: bool,
}

#[derive(Default)]
struct Choice {
    /// Rows still to try (positive table literals), last first.
    rows: Vec<Tuple>,
    /// Variables this literal bound.
    added: Vec<String>,
}

enum Frame {
    Goal(Goal),
    Body(Body),
}

enum Start {
    Done(Option<Proof>),
    Search(Goal),
}

/// A sub-goal: table key, modal, table name, values.
type SubGoal = (PredKey, Option<String>, String, Vec<Value>);

enum BodyAction {
    Prove(SubGoal),
    Done(Option<Vec<Proof>>),
}

enum Enter {
    Holds(Proof),
    Fails,
    Rows,
}

fn arg(t: &Term, b: &HashMap<String, Value>, syms: &mut Symbols) -> Option<Value> {
    match t {
        Term::Var(x) => b.get(x).copied(),
        t => term_value(t, syms),
    }
}

/// Undoes the latest literals until one has another row to try; false when
/// none has (the body fails).
fn backtrack(b: &mut Body) -> bool {
    while b.proofs.pop().is_some() {
        let c = &mut b.choices[b.proofs.len()];
        for x in c.added.drain(..) {
            b.binding.remove(&x);
        }
        if !c.rows.is_empty() {
            return true;
        }
        b.choices.pop();
    }
    false
}

impl Ctx<'_> {
    /// Rows of `key` whose columns hold the given values.
    fn rows_matching(&mut self, key: &PredKey, bound: &[(usize, Value)]) -> Vec<Tuple> {
        let Some(rel) = self.ev.relation_of(key) else {
            return Vec::new();
        };
        let cols: Vec<usize> = bound.iter().map(|(c, _)| *c).collect();
        let vals: Vec<Value> = bound.iter().map(|(_, v)| *v).collect();
        if cols.is_empty() {
            return rel.iter().cloned().collect();
        }
        let index = self
            .indexes
            .entry((key.clone(), cols.clone()))
            .or_insert_with(|| {
                let mut m: RowIndex = FxHashMap::default();
                for t in rel.iter() {
                    if cols.iter().all(|&c| c < t.len()) {
                        let k: Vec<Value> = cols.iter().map(|&c| t[c]).collect();
                        m.entry(k).or_default().push(t.clone());
                    }
                }
                m
            });
        index.get(&vals).cloned().unwrap_or_default()
    }

    fn holds(&self, key: &PredKey, values: &[Value]) -> bool {
        self.ev.relation_of(key).is_some_and(|r| r.contains(values))
    }

    /// The first proof of an atom, searched depth-first with an explicit stack
    /// (rule chains may be thousands of levels deep).
    fn prove(
        &mut self,
        key: &PredKey,
        modal: Option<&str>,
        name: &str,
        values: &[Value],
    ) -> Option<Proof> {
        let mut frames = match self.start_goal((
            key.clone(),
            modal.map(str::to_string),
            name.to_string(),
            values.to_vec(),
        )) {
            Start::Done(p) => return p,
            Start::Search(g) => vec![Frame::Goal(g)],
        };
        // The proof of the goal that finished last, for the body that asked for it.
        let mut result: Option<Proof> = None;
        while let Some(top) = frames.last_mut() {
            match top {
                Frame::Goal(goal) => match self.next_body(goal) {
                    Some(body) => frames.push(Frame::Body(body)),
                    None => {
                        if let Some(Frame::Goal(g)) = frames.pop() {
                            self.in_progress.remove(&(g.key, g.values));
                        }
                        result = None;
                    }
                },
                Frame::Body(body) => {
                    let incoming = std::mem::take(&mut body.awaiting).then(|| result.take());
                    let action = self.body_step(body, incoming);
                    if let BodyAction::Prove(_) = action {
                        body.awaiting = true;
                    }
                    match action {
                        BodyAction::Prove(sub) => match self.start_goal(sub) {
                            Start::Done(p) => result = p,
                            Start::Search(g) => frames.push(Frame::Goal(g)),
                        },
                        BodyAction::Done(None) => {
                            frames.pop();
                        }
                        BodyAction::Done(Some(proofs)) => {
                            let rule = match frames.pop() {
                                Some(Frame::Body(b)) => b.rule,
                                _ => String::new(),
                            };
                            if let Some(Frame::Goal(g)) = frames.pop() {
                                self.in_progress.remove(&(g.key, g.values));
                                result = Some(Proof::Rule {
                                    atom: g.text,
                                    rule,
                                    body: proofs,
                                });
                            }
                        }
                    }
                }
            }
        }
        result
    }

    /// A goal's search, or its answer when no rule needs trying (a stored fact,
    /// an atom that does not hold, or one already being proved).
    fn start_goal(&mut self, (key, modal, name, values): SubGoal) -> Start {
        let pending = (key, values);
        if !self.holds(&pending.0, &pending.1) || self.in_progress.contains(&pending) {
            return Start::Done(None);
        }
        let (key, values) = pending;
        let text = render_atom(self.syms, modal.as_deref(), &name, &values);
        let Some(policy) = self.engine.policies.get(&key.policy) else {
            return Start::Done(None);
        };
        if policy
            .facts
            .get(&key.key)
            .is_some_and(|f| f.contains(&values))
        {
            let values = values.iter().map(|v| self.value_text(*v)).collect();
            return Start::Done(Some(Proof::Fact {
                atom: text,
                table: name,
                values,
            }));
        }
        let mut rules = Vec::new();
        for &rid in policy.rules_for(&key.key) {
            for (hi, h) in policy.rules[rid].heads.iter().enumerate() {
                if head_key(&key.policy, h) == key && h.args.len() == values.len() {
                    rules.push((rid, hi));
                }
            }
        }
        rules.reverse();
        self.in_progress.insert((key.clone(), values.clone()));
        Start::Search(Goal {
            key,
            values,
            text,
            rules,
        })
    }

    fn value_text(&self, v: Value) -> String {
        match v {
            Value::Str(s) => self.syms.get(s).to_string(),
            other => {
                let mut t = String::new();
                self.syms.render(other, &mut t);
                t
            }
        }
    }

    /// The next rule whose head matches the goal, as a body to search.
    fn next_body(&mut self, goal: &mut Goal) -> Option<Body> {
        let policy = self.engine.policies.get(&goal.key.policy)?;
        while let Some((rid, hi)) = goal.rules.pop() {
            let rule = &policy.rules[rid];
            let mut binding: HashMap<String, Value> = HashMap::new();
            let mut ok = true;
            for (t, v) in rule.heads[hi].args.iter().zip(&goal.values) {
                match t {
                    Term::Var(x) => match binding.get(x) {
                        Some(b) => ok &= b == v,
                        None => {
                            binding.insert(x.clone(), *v);
                        }
                    },
                    t => ok &= term_value(t, self.syms) == Some(*v),
                }
            }
            let Ok(order) = order_body(&goal.key.policy, &rule.body) else {
                continue;
            };
            if ok {
                return Some(Body {
                    policy: goal.key.policy.clone(),
                    rule: rule.to_string(),
                    lits: order.iter().map(|&i| rule.body[i].clone()).collect(),
                    binding,
                    proofs: Vec::new(),
                    choices: Vec::new(),
                    awaiting: false,
                });
            }
        }
        None
    }

    /// Advances a body's search until it needs a sub-proof, succeeds or fails.
    /// `incoming` is the answer to the sub-goal it asked for last.
    fn body_step(&mut self, b: &mut Body, incoming: Option<Option<Proof>>) -> BodyAction {
        if let Some(Some(sub)) = incoming {
            b.proofs.push(sub);
        }
        loop {
            let pos = b.proofs.len();
            if b.choices.len() == pos {
                if pos == b.lits.len() {
                    return BodyAction::Done(Some(std::mem::take(&mut b.proofs)));
                }
                match self.enter(b, pos) {
                    Enter::Holds(p) => {
                        b.proofs.push(p);
                        continue;
                    }
                    Enter::Fails => {
                        if !backtrack(b) {
                            return BodyAction::Done(None);
                        }
                        continue;
                    }
                    Enter::Rows => {}
                }
            }
            let pos = b.proofs.len();
            match self.next_row(b, pos) {
                Some(sub) => return BodyAction::Prove(sub),
                None => {
                    b.choices.pop();
                    if !backtrack(b) {
                        return BodyAction::Done(None);
                    }
                }
            }
        }
    }

    /// Binds the next row of literal `pos` that agrees with the binding; the
    /// row is returned as the sub-goal that must hold.
    fn next_row(&mut self, b: &mut Body, pos: usize) -> Option<SubGoal> {
        let lit = &b.lits[pos];
        let BodyRef::Pred(key) = resolve_body(&b.policy, lit) else {
            return None;
        };
        let choice = &mut b.choices[pos];
        for x in choice.added.drain(..) {
            b.binding.remove(&x);
        }
        while let Some(row) = choice.rows.pop() {
            if row.len() != lit.args.len() {
                continue;
            }
            let mut ok = true;
            for (t, v) in lit.args.iter().zip(row.iter()) {
                match arg(t, &b.binding, self.syms) {
                    Some(bv) => ok &= bv == *v,
                    None => {
                        if let Term::Var(x) = t {
                            b.binding.insert(x.clone(), *v);
                            choice.added.push(x.clone());
                        }
                    }
                }
                if !ok {
                    break;
                }
            }
            if ok {
                return Some((key, lit.modal.clone(), lit.tablename(), row.to_vec()));
            }
            for x in choice.added.drain(..) {
                b.binding.remove(&x);
            }
        }
        None
    }

    /// Starts literal `pos`: pushes its choice unless it fails at once.
    fn enter(&mut self, b: &mut Body, pos: usize) -> Enter {
        let lit = &b.lits[pos];
        match resolve_body(&b.policy, lit) {
            BodyRef::True => {
                b.choices.push(Choice::default());
                Enter::Holds(Proof::Holds("true()".into(), "true"))
            }
            BodyRef::Builtin(builtin) => {
                let lit = lit.clone();
                self.enter_builtin(b, &lit, builtin)
            }
            BodyRef::Pred(key) if lit.negated => {
                let vals: Option<Vec<Value>> = lit
                    .args
                    .iter()
                    .map(|t| arg(t, &b.binding, self.syms))
                    .collect();
                match vals {
                    Some(vals) if !self.holds(&key, &vals) => {
                        let atom =
                            render_atom(self.syms, lit.modal.as_deref(), &lit.tablename(), &vals);
                        b.choices.push(Choice::default());
                        Enter::Holds(Proof::Holds(format!("not {atom}"), "no such row"))
                    }
                    _ => Enter::Fails,
                }
            }
            BodyRef::Pred(key) => {
                let bound: Vec<(usize, Value)> = lit
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| arg(t, &b.binding, self.syms).map(|v| (i, v)))
                    .collect();
                let mut rows = self.rows_matching(&key, &bound);
                rows.reverse();
                b.choices.push(Choice {
                    rows,
                    added: Vec::new(),
                });
                Enter::Rows
            }
        }
    }

    fn enter_builtin(&mut self, b: &mut Body, lit: &Literal, builtin: builtins::Builtin) -> Enter {
        let inputs: Option<Vec<Value>> = lit.args[..builtin.inputs]
            .iter()
            .map(|t| arg(t, &b.binding, self.syms))
            .collect();
        let Some(inputs) = inputs else {
            return Enter::Fails;
        };
        let outs = builtins::eval(builtin, &inputs, self.syms);
        let mut added = Vec::new();
        let holds = match &outs {
            Some(outs) => {
                let mut ok = true;
                for (o, t) in outs.iter().zip(&lit.args[builtin.inputs..]) {
                    match arg(t, &b.binding, self.syms) {
                        Some(v) => ok &= v == *o,
                        None => {
                            if let Term::Var(x) = t {
                                b.binding.insert(x.clone(), *o);
                                added.push(x.clone());
                            }
                        }
                    }
                }
                ok
            }
            None => false,
        };
        if holds == lit.negated {
            for x in added {
                b.binding.remove(&x);
            }
            return Enter::Fails;
        }
        let vals: Vec<Value> = lit
            .args
            .iter()
            .filter_map(|t| arg(t, &b.binding, self.syms))
            .collect();
        let text = render_atom(self.syms, None, &lit.tablename(), &vals);
        let text = if lit.negated {
            format!("not {text}")
        } else {
            text
        };
        b.choices.push(Choice {
            rows: Vec::new(),
            added,
        });
        Enter::Holds(Proof::Holds(text, "builtin"))
    }
}
