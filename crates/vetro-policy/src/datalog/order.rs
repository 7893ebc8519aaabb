//! The evaluation order of a rule body: builtins run once their inputs are
//! bound and negations once all their variables are; among the literals that
//! may run, filters go first, then the scan with the most bound arguments
//! (the first one written on a tie).
//!
//! The order is chosen greedily, one literal at a time. Each literal's state
//! (how many of its variables it still waits for, its score) is updated when
//! one of its variables becomes bound, and the literals that may run are kept
//! sorted by score, so ordering costs O(t log n) for t arguments in n literals
//! instead of rescanning the whole body for every pick. A rule file is
//! untrusted input: a body of 50,000 literals must be planned in milliseconds.

use super::ast::{Literal, Term};
use super::refs::{resolve_body, BodyRef};
use std::cmp::Reverse;
use std::collections::{BTreeSet, HashMap};

/// Orders a body so that builtins see bound inputs and negations bound variables.
/// Returns the literal indices in evaluation order, or the literals that never become safe.
pub fn order_body(policy: &str, body: &[Literal]) -> Result<Vec<usize>, Vec<usize>> {
    order_body_from(policy, body, None)
}

/// As [`order_body`], with literal `first` (a positive table literal) evaluated first.
pub(crate) fn order_body_from(
    policy: &str,
    body: &[Literal],
    first: Option<usize>,
) -> Result<Vec<usize>, Vec<usize>> {
    let mut state = Ordering::new(policy, body);
    if let Some(f) = first.filter(|&f| f < body.len()) {
        state.take(f);
    }
    while let Some(&(_, i)) = state.ready.first() {
        state.take(i);
    }
    if state.order.len() == body.len() {
        Ok(state.order)
    } else {
        Err((0..body.len()).filter(|&i| !state.done[i]).collect())
    }
}

/// How a literal takes part in the ordering.
#[derive(Clone, Copy)]
enum Role {
    /// A filter (a builtin, a negation, `true`): runs once `waiting` reaches zero.
    Filter { waiting: usize },
    /// A positive table literal: may always run; scores by its bound arguments.
    Scan { score: i64 },
}

/// One variable's occurrences in a literal.
struct Occurrence {
    lit: usize,
    /// Arguments of a scan that the variable fills (they become bound with it).
    args: i64,
    /// Whether a filter waits for the variable.
    awaited: bool,
}

struct Ordering {
    roles: Vec<Role>,
    /// Literals that may run, best first: highest score, then first written.
    ready: BTreeSet<(Reverse<i64>, usize)>,
    /// Per variable, the literals it occurs in.
    occurs: Vec<Vec<Occurrence>>,
    /// Per literal, its distinct variables.
    vars: Vec<Vec<usize>>,
    bound: Vec<bool>,
    done: Vec<bool>,
    order: Vec<usize>,
}

impl Ordering {
    fn new(policy: &str, body: &[Literal]) -> Ordering {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        let mut occurs: Vec<Vec<Occurrence>> = Vec::new();
        let mut vars = Vec::with_capacity(body.len());
        let mut roles = Vec::with_capacity(body.len());
        let mut ready = BTreeSet::new();
        for (i, lit) in body.iter().enumerate() {
            let r = resolve_body(policy, lit);
            let scan = matches!(r, BodyRef::Pred(_)) && !lit.negated;
            let mut mine: Vec<usize> = Vec::new();
            let mut waiting = 0;
            let named = lit.named.iter().map(|(_, t)| t);
            for (k, t) in lit.args.iter().chain(named).enumerate() {
                let Term::Var(v) = t else {
                    continue;
                };
                let next = ids.len();
                let id = *ids.entry(v.as_str()).or_insert(next);
                if id == occurs.len() {
                    occurs.push(Vec::new());
                }
                let fills = scan && k < lit.args.len();
                // A builtin waits for its inputs, a negation for all its variables.
                let awaited = match &r {
                    BodyRef::True => false,
                    BodyRef::Builtin(b) => k < b.inputs,
                    BodyRef::Pred(_) => lit.negated,
                };
                match occurs[id].last_mut().filter(|o| o.lit == i) {
                    Some(o) => {
                        o.args += i64::from(fills);
                        if awaited && !o.awaited {
                            o.awaited = true;
                            waiting += 1;
                        }
                    }
                    None => {
                        occurs[id].push(Occurrence {
                            lit: i,
                            args: i64::from(fills),
                            awaited,
                        });
                        waiting += usize::from(awaited);
                        mine.push(id);
                    }
                }
            }
            let role = if scan {
                // Constants count as bound; no variable is bound yet.
                let consts = lit.args.iter().filter(|t| !matches!(t, Term::Var(_)));
                Role::Scan {
                    score: consts.count() as i64 * 2 - lit.args.len() as i64,
                }
            } else {
                Role::Filter { waiting }
            };
            if let Some(key) = ready_key(role) {
                ready.insert((key, i));
            }
            roles.push(role);
            vars.push(mine);
        }
        let nvars = occurs.len();
        Ordering {
            roles,
            ready,
            occurs,
            vars,
            bound: vec![false; nvars],
            done: vec![false; body.len()],
            order: Vec::with_capacity(body.len()),
        }
    }

    /// Appends literal `i` to the order and binds its variables.
    fn take(&mut self, i: usize) {
        if let Some(key) = ready_key(self.roles[i]) {
            self.ready.remove(&(key, i));
        }
        self.done[i] = true;
        self.order.push(i);
        for v in std::mem::take(&mut self.vars[i]) {
            if !std::mem::replace(&mut self.bound[v], true) {
                self.bind(v);
            }
        }
    }

    /// Updates the literals that variable `v`, now bound, occurs in.
    fn bind(&mut self, v: usize) {
        for o in &self.occurs[v] {
            if self.done[o.lit] {
                continue;
            }
            let role = &mut self.roles[o.lit];
            let before = ready_key(*role);
            match role {
                Role::Scan { score } => *score += 2 * o.args,
                Role::Filter { waiting } => *waiting -= usize::from(o.awaited),
            }
            let after = ready_key(*role);
            if before != after {
                if let Some(key) = before {
                    self.ready.remove(&(key, o.lit));
                }
                if let Some(key) = after {
                    self.ready.insert((key, o.lit));
                }
            }
        }
    }
}

/// A literal's place among those that may run, or `None` while it waits.
fn ready_key(role: Role) -> Option<Reverse<i64>> {
    match role {
        Role::Filter { waiting: 0 } => Some(Reverse(i64::MAX)),
        Role::Filter { .. } => None,
        Role::Scan { score } => Some(Reverse(score)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::datalog::ast::Statement;
    use crate::datalog::parse::parse;
    use std::collections::HashSet;

    /// The greedy order by its definition: at every pick, rescan the body.
    fn reference(
        policy: &str,
        body: &[Literal],
        first: Option<usize>,
    ) -> Result<Vec<usize>, Vec<usize>> {
        let mut bound: HashSet<&str> = HashSet::new();
        let mut done = vec![false; body.len()];
        let mut order = Vec::new();
        if let Some(f) = first {
            done[f] = true;
            order.push(f);
            bound.extend(body[f].variables());
        }
        let free = |t: &Term, bound: &HashSet<&str>| matches!(t, Term::Var(v) if !bound.contains(v.as_str()));
        loop {
            let mut best: Option<(usize, i64)> = None;
            for (i, lit) in body.iter().enumerate().filter(|(i, _)| !done[*i]) {
                let r = resolve_body(policy, lit);
                let (ready, score) = match &r {
                    BodyRef::True => (true, i64::MAX),
                    BodyRef::Builtin(b) => (
                        !lit.args[..b.inputs].iter().any(|t| free(t, &bound)),
                        i64::MAX,
                    ),
                    BodyRef::Pred(_) if lit.negated => {
                        (lit.variables().all(|v| bound.contains(v)), i64::MAX)
                    }
                    BodyRef::Pred(_) => {
                        let b = lit.args.iter().filter(|t| !free(t, &bound)).count() as i64;
                        (true, b * 2 - lit.args.len() as i64)
                    }
                };
                if ready && best.is_none_or(|(_, s)| score > s) {
                    best = Some((i, score));
                }
            }
            let Some((i, _)) = best else { break };
            done[i] = true;
            order.push(i);
            bound.extend(body[i].variables());
        }
        if order.len() == body.len() {
            Ok(order)
        } else {
            Err((0..body.len()).filter(|&i| !done[i]).collect())
        }
    }

    /// A random body over a few variables: scans, negations, builtins
    /// (`plus` binds its third argument from the first two), constants.
    fn random_body(next: &mut impl FnMut(u64) -> u64) -> String {
        let var = |k: u64| ["a", "b", "c", "d", "e"][k as usize].to_string();
        let term = |next: &mut dyn FnMut(u64) -> u64| {
            if next(5) == 0 {
                next(3).to_string()
            } else {
                var(next(5))
            }
        };
        let n = 1 + next(7);
        let mut lits = Vec::new();
        for _ in 0..n {
            let lit = match next(6) {
                0 => format!("plus({}, {}, {})", term(next), term(next), term(next)),
                1 => format!("not q{}({})", next(3), term(next)),
                2 => format!("lt({}, {})", term(next), term(next)),
                _ => {
                    let arity = 1 + next(3);
                    let args: Vec<String> = (0..arity).map(|_| term(next)).collect();
                    format!("q{}({})", next(3), args.join(", "))
                }
            };
            lits.push(lit);
        }
        format!("h(a) :- {}", lits.join(", "))
    }

    #[test]
    fn orders_as_the_greedy_definition() {
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut safe, mut unsafe_) = (0, 0);
        for _ in 0..3000 {
            let text = random_body(&mut next);
            let Ok(stmts) = parse(&text) else { continue };
            let Some(Statement::Rule(rule)) = stmts.first() else {
                continue;
            };
            let body = &rule.body;
            let order = order_body("p", body);
            assert_eq!(order, reference("p", body, None), "{text}");
            match order {
                Ok(o) if o.len() > 2 => safe += 1,
                Ok(_) => {}
                Err(_) => unsafe_ += 1,
            }
            for f in 0..body.len() {
                if !body[f].negated && matches!(resolve_body("p", &body[f]), BodyRef::Pred(_)) {
                    assert_eq!(
                        order_body_from("p", body, Some(f)),
                        reference("p", body, Some(f)),
                        "{text} from {f}"
                    );
                }
            }
        }
        // Both outcomes were compared often.
        assert!(safe > 500 && unsafe_ > 500, "{safe} safe, {unsafe_} unsafe");
    }
}
