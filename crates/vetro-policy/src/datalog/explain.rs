//! Proof trees: why a ground atom holds, as the rules and facts that derive it.

use super::ast::{Literal, Term};
use super::builtins;
use super::engine::{render_atom, Engine};
use super::error::PolicyError;
use super::eval::{head_key, order_body, resolve_body, BodyRef, Evaluator};
use super::hash::FxHashMap;
use super::policy::PredKey;
use super::value::{Symbols, Tuple, Value};
use std::collections::HashMap;
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
    fn write(&self, f: &mut fmt::Formatter<'_>, depth: usize) -> fmt::Result {
        let pad = "  ".repeat(depth);
        match self {
            Proof::Fact { atom, .. } => writeln!(f, "{pad}{atom}    [fact]"),
            Proof::Holds(a, why) => writeln!(f, "{pad}{a}    [{why}]"),
            Proof::Rule { atom, rule, body } => {
                writeln!(f, "{pad}{atom}    [rule: {rule}]")?;
                for b in body {
                    b.write(f, depth + 1)?;
                }
                Ok(())
            }
        }
    }
}

impl Proof {
    /// Every stored fact the proof rests on, in proof order.
    pub fn facts(&self) -> Vec<(&str, &[String])> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'p>(&'p self, out: &mut Vec<(&'p str, &'p [String])>) {
        match self {
            Proof::Fact { table, values, .. } => out.push((table, values)),
            Proof::Holds(..) => {}
            Proof::Rule { body, .. } => body.iter().for_each(|b| b.collect(out)),
        }
    }
}

impl fmt::Display for Proof {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, 0)
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
    let mut ev = Evaluator::new(&engine.policies, &includes);
    ev.run(&keys, &mut syms)?;
    let mut ctx = Ctx {
        engine,
        ev: &ev,
        syms: &mut syms,
        stack: Vec::new(),
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
    stack: Vec<(PredKey, Vec<Value>)>,
    /// Rows of a predicate by the values of some columns, built on first use.
    indexes: HashMap<(PredKey, Vec<usize>), RowIndex>,
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

    fn prove(
        &mut self,
        key: &PredKey,
        modal: Option<&str>,
        name: &str,
        values: &[Value],
    ) -> Option<Proof> {
        if !self.holds(key, values) || self.stack.iter().any(|(k, v)| k == key && v == values) {
            return None;
        }
        let text = render_atom(self.syms, modal, name, values);
        let policy = self.engine.policies.get(&key.policy)?;
        if policy
            .facts
            .get(&key.key)
            .is_some_and(|f| f.contains(values))
        {
            let values = values
                .iter()
                .map(|v| match v {
                    Value::Str(s) => self.syms.get(*s).to_string(),
                    other => {
                        let mut t = String::new();
                        self.syms.render(*other, &mut t);
                        t
                    }
                })
                .collect();
            return Some(Proof::Fact {
                atom: text,
                table: name.to_string(),
                values,
            });
        }
        self.stack.push((key.clone(), values.to_vec()));
        let mut found = None;
        for &rid in policy.rules_for(&key.key) {
            let rule = &policy.rules[rid];
            for h in &rule.heads {
                if head_key(&key.policy, h) != *key || h.args.len() != values.len() {
                    continue;
                }
                let mut binding: HashMap<String, Value> = HashMap::new();
                let mut ok = true;
                for (t, v) in h.args.iter().zip(values) {
                    match t {
                        Term::Var(x) => {
                            if let Some(b) = binding.get(x) {
                                ok &= b == v;
                            } else {
                                binding.insert(x.clone(), *v);
                            }
                        }
                        t => ok &= term_value(t, self.syms) == Some(*v),
                    }
                }
                if !ok {
                    continue;
                }
                let Ok(order) = order_body(&key.policy, &rule.body) else {
                    continue;
                };
                let body: Vec<&Literal> = order.iter().map(|&i| &rule.body[i]).collect();
                if let Some(sub) = self.body(&key.policy, &body, &mut binding) {
                    found = Some(Proof::Rule {
                        atom: text.clone(),
                        rule: rule.to_string(),
                        body: sub,
                    });
                    break;
                }
            }
            if found.is_some() {
                break;
            }
        }
        self.stack.pop();
        found
    }

    /// Finds bindings satisfying the body literals in order, with their proofs.
    fn body(
        &mut self,
        policy: &str,
        lits: &[&Literal],
        binding: &mut HashMap<String, Value>,
    ) -> Option<Vec<Proof>> {
        let Some((lit, rest)) = lits.split_first() else {
            return Some(Vec::new());
        };
        let resolved = resolve_body(policy, lit);
        let arg = |t: &Term, b: &HashMap<String, Value>, syms: &mut Symbols| match t {
            Term::Var(x) => b.get(x).copied(),
            t => term_value(t, syms),
        };
        match resolved {
            BodyRef::True => {
                let mut tail = self.body(policy, rest, binding)?;
                tail.insert(0, Proof::Holds("true()".into(), "true"));
                Some(tail)
            }
            BodyRef::Builtin(b) => {
                let inputs: Option<Vec<Value>> = lit.args[..b.inputs]
                    .iter()
                    .map(|t| arg(t, binding, self.syms))
                    .collect();
                let outs = builtins::eval(b, &inputs?, self.syms);
                let mut added = Vec::new();
                let holds = match &outs {
                    Some(outs) => {
                        let mut ok = true;
                        for (o, t) in outs.iter().zip(&lit.args[b.inputs..]) {
                            match arg(t, binding, self.syms) {
                                Some(v) => ok &= v == *o,
                                None => {
                                    if let Term::Var(x) = t {
                                        binding.insert(x.clone(), *o);
                                        added.push(x.clone());
                                    }
                                }
                            }
                        }
                        ok
                    }
                    None => false,
                };
                let result = if holds != lit.negated {
                    let vals: Vec<Value> = lit
                        .args
                        .iter()
                        .filter_map(|t| arg(t, binding, self.syms))
                        .collect();
                    let text = render_atom(self.syms, None, &lit.tablename(), &vals);
                    let text = if lit.negated {
                        format!("not {text}")
                    } else {
                        text
                    };
                    self.body(policy, rest, binding).map(|mut tail| {
                        tail.insert(0, Proof::Holds(text, "builtin"));
                        tail
                    })
                } else {
                    None
                };
                for x in added {
                    binding.remove(&x);
                }
                result
            }
            BodyRef::Pred(key) => {
                if lit.negated {
                    let vals: Option<Vec<Value>> = lit
                        .args
                        .iter()
                        .map(|t| arg(t, binding, self.syms))
                        .collect();
                    let vals = vals?;
                    if self.holds(&key, &vals) {
                        return None;
                    }
                    let text = format!(
                        "not {}",
                        render_atom(self.syms, lit.modal.as_deref(), &lit.tablename(), &vals)
                    );
                    let mut tail = self.body(policy, rest, binding)?;
                    tail.insert(0, Proof::Holds(text, "no such row"));
                    return Some(tail);
                }
                let bound: Vec<(usize, Value)> = lit
                    .args
                    .iter()
                    .enumerate()
                    .filter_map(|(i, t)| arg(t, binding, self.syms).map(|v| (i, v)))
                    .collect();
                let rows = self.rows_matching(&key, &bound);
                for row in rows {
                    let row: Vec<Value> = row.to_vec();
                    if row.len() != lit.args.len() {
                        continue;
                    }
                    let mut added = Vec::new();
                    let mut ok = true;
                    for (t, v) in lit.args.iter().zip(&row) {
                        match arg(t, binding, self.syms) {
                            Some(b) => ok &= b == *v,
                            None => {
                                if let Term::Var(x) = t {
                                    binding.insert(x.clone(), *v);
                                    added.push(x.clone());
                                }
                            }
                        }
                        if !ok {
                            break;
                        }
                    }
                    if ok {
                        if let Some(sub) =
                            self.prove(&key, lit.modal.as_deref(), &lit.tablename(), &row)
                        {
                            if let Some(mut tail) = self.body(policy, rest, binding) {
                                tail.insert(0, sub);
                                return Some(tail);
                            }
                        }
                    }
                    for x in added {
                        binding.remove(&x);
                    }
                }
                None
            }
        }
    }
}
