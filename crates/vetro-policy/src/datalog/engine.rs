//! The engine: named policies, statement insertion with the compile checks
//! (module references, arity, safety, recursion), queries and `simulate`.

use super::ast::{Literal, Rule, Statement, Term};
use super::error::{ErrorClass, PolicyError};
use super::eval::Evaluator;
use super::graph::tarjan;
use super::incremental::View;
use super::limits::Limits;
use super::order::order_body;
use super::parse;
use super::policy::{Policy, PolicyKind, PolicySet, PredKey, TableKey};
use super::refs::{head_key, resolve_body, BodyRef};
use super::value::{Symbols, Tuple, Value};
use std::collections::{HashMap, HashSet};

/// A Datalog engine holding several policies.
#[derive(Default)]
pub struct Engine {
    pub syms: Symbols,
    pub policies: PolicySet,
    /// Known number of columns of each table, from every use so far.
    schema: HashMap<PredKey, usize>,
    /// Where each table's number of columns was first seen (for messages).
    schema_origin: HashMap<PredKey, String>,
    /// Maintained results of queries on materialized policies.
    views: HashMap<PredKey, View>,
    /// Facts added by the statements being inserted, for the views.
    pending: Vec<(PredKey, Tuple, bool)>,
    /// Bounds of every evaluation this engine runs.
    pub limits: Limits,
}

/// A ground atom found by a query.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub key: PredKey,
    pub values: Vec<Value>,
}

impl Engine {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn create_policy(&mut self, name: &str, kind: PolicyKind) {
        self.policies
            .entry(name.to_string())
            .or_insert_with(|| Policy::new(name, kind));
    }

    pub fn kind(&self, policy: &str) -> Option<PolicyKind> {
        self.policies.get(policy).map(|p| p.kind)
    }

    /// Declares the number of columns of a table (e.g. the `murano:*` tables).
    pub fn declare_arity(&mut self, policy: &str, table: &str, arity: usize) {
        self.schema.insert(
            PredKey {
                policy: policy.to_string(),
                key: TableKey::plain(table),
            },
            arity,
        );
    }

    /// Inserts a fact of string/number values directly, without parsing.
    pub fn insert_row(&mut self, policy: &str, table: &str, values: Tuple) -> bool {
        self.create_policy(policy, PolicyKind::Database);
        let added = self
            .policies
            .get_mut(policy)
            .is_some_and(|p| p.add_fact(TableKey::plain(table), values.clone()));
        if added {
            self.propagate(&[(Self::plain_key(policy, table), values, true)]);
        }
        added
    }

    /// Inserts many facts of one table at once (no parsing, one table lookup).
    pub fn insert_rows(&mut self, policy: &str, table: &str, rows: Vec<Tuple>) {
        self.create_policy(policy, PolicyKind::Database);
        let watched = !self.views.is_empty();
        let mut added = Vec::new();
        if let Some(p) = self.policies.get_mut(policy) {
            let rel = p.facts.entry(TableKey::plain(table)).or_default();
            rel.reserve(rows.len());
            for t in rows {
                if rel.insert(t.clone()) && watched {
                    added.push((Self::plain_key(policy, table), t, true));
                }
            }
            // Headroom, so that later single-row changes do not regrow the table.
            rel.reserve(1024 + rel.len() / 16);
        }
        self.propagate(&added);
    }

    pub fn delete_row(&mut self, policy: &str, table: &str, values: &Tuple) -> bool {
        let removed = self
            .policies
            .get_mut(policy)
            .is_some_and(|p| p.remove_fact(&TableKey::plain(table), values));
        if removed {
            self.propagate(&[(Self::plain_key(policy, table), values.clone(), false)]);
        }
        removed
    }

    fn plain_key(policy: &str, table: &str) -> PredKey {
        PredKey {
            policy: policy.to_string(),
            key: TableKey::plain(table),
        }
    }

    /// Applies a batch of stored-fact changes (`true` = insert) and maintains
    /// every materialized view incrementally.
    pub fn apply_rows(&mut self, changes: &[(PredKey, Tuple, bool)]) {
        let mut effective = Vec::new();
        for (key, t, insert) in changes {
            self.create_policy(&key.policy, PolicyKind::Database);
            let Some(p) = self.policies.get_mut(&key.policy) else {
                continue;
            };
            let changed = if *insert {
                p.add_fact(key.key.clone(), t.clone())
            } else {
                p.remove_fact(&key.key, t)
            };
            if changed {
                effective.push((key.clone(), t.clone(), *insert));
            }
        }
        self.propagate(&effective);
    }

    fn propagate(&mut self, changes: &[(PredKey, Tuple, bool)]) {
        if self.views.is_empty() || changes.is_empty() {
            return;
        }
        let mut stale = Vec::new();
        for (k, view) in self.views.iter_mut() {
            view.apply(changes, &mut self.syms);
            if view.needs_rebuild() {
                stale.push(k.clone());
            }
        }
        for k in stale {
            self.views.remove(&k);
        }
    }

    /// Keeps the result of `lit` in `target` materialized; later fact changes
    /// update it incrementally.
    pub fn materialize(&mut self, target: &str, lit: &Literal) -> Result<(), PolicyError> {
        let key = self.query_key(target, lit);
        if !self.views.contains_key(&key) {
            let view = View::build(
                &self.policies,
                std::slice::from_ref(&key),
                &mut self.syms,
                self.limits,
            )?;
            self.views.insert(key, view);
        }
        Ok(())
    }

    /// Parses and inserts a policy text into `policy`: all statements or none.
    pub fn insert_text(&mut self, policy: &str, text: &str) -> Result<usize, PolicyError> {
        let stmts = parse::parse(text)?;
        self.insert_statements(policy, &stmts)
    }

    /// Inserts statements into `policy` after the compile checks; all or none.
    pub fn insert_statements(
        &mut self,
        policy: &str,
        stmts: &[Statement],
    ) -> Result<usize, PolicyError> {
        let Some(original) = self.policies.get(policy).cloned() else {
            return Err(PolicyError::new(
                ErrorClass::Other,
                format!("no policy named {policy}"),
            ));
        };
        let saved_schema = self.schema.clone();
        let saved_origin = self.schema_origin.clone();
        let mut p = original.clone();
        self.pending.clear();
        let result = (|| {
            let mut added = 0;
            for st in stmts {
                added += self.insert_one(&mut p, st)? as usize;
            }
            Ok(added)
        })();
        let added = match result {
            Ok(n) => n,
            Err(e) => {
                self.schema = saved_schema;
                self.schema_origin = saved_origin;
                return Err(e);
            }
        };
        let rules_changed = p.rules != original.rules;
        self.policies.insert(policy.to_string(), p);
        if let Err(e) = self.check_recursion() {
            self.policies.insert(policy.to_string(), original);
            self.schema = saved_schema;
            self.schema_origin = saved_origin;
            return Err(e);
        }
        // New rules change what the views compute; new facts are propagated.
        let pending = std::mem::take(&mut self.pending);
        if rules_changed {
            self.views.clear();
        } else {
            self.propagate(&pending);
        }
        Ok(added)
    }

    fn insert_one(&mut self, p: &mut Policy, st: &Statement) -> Result<bool, PolicyError> {
        match st {
            Statement::Fact(lit) => {
                if let Some(m) = &lit.module {
                    return Err(PolicyError::new(
                        ErrorClass::ModuleReference,
                        format!("fact {lit} should not reference any policy: {m}"),
                    )
                    .at(lit.span));
                }
                let head = head_key(&p.name, lit);
                let mut resolved = lit.clone();
                let mut pad = 0;
                self.resolve_named(&head, &mut resolved, &mut pad)?;
                let lit = &resolved;
                if let Some(&n) = self.schema.get(&head) {
                    if lit.args.len() > n {
                        return Err(self.arity_error(&head, lit, n));
                    }
                    if lit.args.len() < n {
                        return Err(PolicyError::new(
                            ErrorClass::Arity,
                            format!(
                                "fact not ground: {lit} has {} of the {n} columns",
                                lit.args.len()
                            ),
                        )
                        .at(lit.span));
                    }
                }
                if !lit.is_ground() {
                    return Err(PolicyError::new(
                        ErrorClass::Unsafe,
                        format!("fact not ground: {lit}"),
                    )
                    .at(lit.span));
                }
                self.record_arity(&p.name, &head, lit);
                let t = self.tuple_of(lit);
                let added = p.add_fact(head.key.clone(), t.clone());
                if added {
                    self.pending.push((head, t, true));
                }
                Ok(added)
            }
            Statement::Rule(rule) => {
                let rule = self.check_rule(p, rule)?;
                Ok(p.add_rule(rule))
            }
            Statement::Event { insert, rule, .. } => {
                if *insert {
                    let rule = self.check_rule(p, rule)?;
                    Ok(p.add_rule(rule))
                } else {
                    Ok(p.remove_rule(rule))
                }
            }
        }
    }

    fn tuple_of(&mut self, lit: &Literal) -> Tuple {
        lit.args
            .iter()
            .map(|t| match t {
                Term::Int(i) => Value::Int(*i),
                Term::Float(f) => Value::Float(*f),
                Term::Str(s) => Value::Str(self.syms.intern(s)),
                Term::Var(v) => Value::Str(self.syms.intern(v)),
            })
            .collect()
    }

    /// Module, modal, arity and safety checks of a rule; returns the rule with
    /// short body literals padded to the known number of columns.
    fn check_rule(&mut self, p: &Policy, rule: &Rule) -> Result<Rule, PolicyError> {
        if !p.kind.allows_rules() {
            return Err(PolicyError::new(
                ErrorClass::Other,
                format!(
                    "policy {} holds facts only; rule {rule} is not allowed",
                    p.name
                ),
            ));
        }
        for h in &rule.heads {
            if h.negated {
                return Err(PolicyError::new(
                    ErrorClass::Syntax,
                    format!("negated head in {rule}"),
                )
                .at(h.span));
            }
            if let Some(m) = &h.modal {
                if m != "execute" && p.kind != PolicyKind::Action {
                    return Err(PolicyError::new(
                        ErrorClass::Modal,
                        format!("modal {m} is not allowed in the head of {rule}"),
                    )
                    .at(h.span));
                }
            } else if h.module.is_some() && !(p.kind == PolicyKind::Action && h.is_update()) {
                return Err(PolicyError::new(
                    ErrorClass::ModuleReference,
                    format!("non-modal rule head {h} should not reference any policy: {rule}"),
                )
                .at(h.span));
            }
        }
        let mut rule = rule.clone();
        let mut pad = 0usize;
        for lit in rule.heads.iter_mut() {
            let key = head_key(&p.name, lit);
            self.resolve_named(&key, lit, &mut pad)?;
        }
        for lit in rule.body.iter_mut() {
            if let BodyRef::Pred(key) = resolve_body(&p.name, lit) {
                self.resolve_named(&key, lit, &mut pad)?;
            }
        }
        // Arity: heads first, then body literals (padded when short).
        for h in &rule.heads {
            let key = head_key(&p.name, h);
            if let Some(&n) = self.schema.get(&key) {
                if h.args.len() > n {
                    return Err(self.arity_error(&key, h, n));
                }
                if h.args.len() < n {
                    return Err(PolicyError::new(
                        ErrorClass::Unsafe,
                        format!(
                            "head {h} has {} of the {n} columns of {}: the missing columns are not bound in {rule}",
                            h.args.len(),
                            h.tablename()
                        ),
                    )
                    .at(h.span));
                }
            }
        }
        for lit in rule.body.iter_mut() {
            if let BodyRef::Pred(key) = resolve_body(&p.name, lit) {
                if let Some(&n) = self.schema.get(&key) {
                    if lit.args.len() > n {
                        return Err(self.arity_error(&key, lit, n));
                    }
                    while lit.args.len() < n && lit.named.is_empty() {
                        pad += 1;
                        lit.args.push(Term::Var(format!("_pad{pad}")));
                    }
                }
            } else if lit.module.as_deref() == Some("builtin") {
                // Handled below as an unknown builtin.
            }
            if lit.module.as_deref() == Some("builtin")
                && super::builtins::lookup(Some("builtin"), &lit.table, lit.args.len()).is_none()
            {
                return Err(PolicyError::new(
                    ErrorClass::UnknownBuiltin,
                    format!("unknown builtin {lit}"),
                )
                .at(lit.span));
            }
        }
        // Safety.
        if p.kind != PolicyKind::Action {
            let mut body_vars: HashSet<&str> = HashSet::new();
            for lit in &rule.body {
                if !lit.negated {
                    body_vars.extend(lit.variables());
                }
            }
            for h in &rule.heads {
                if let Some(v) = h.variables().find(|v| !body_vars.contains(v)) {
                    return Err(PolicyError::new(
                        ErrorClass::Unsafe,
                        format!("variable {v} found in head but not in body, rule {rule}"),
                    )
                    .at(h.span));
                }
            }
        }
        if let Err(bad) = order_body(&p.name, &rule.body) {
            let lits: Vec<String> = bad.iter().map(|&i| rule.body[i].to_string()).collect();
            let mut vars: Vec<&str> = bad.iter().flat_map(|&i| rule.body[i].variables()).collect();
            vars.sort();
            vars.dedup();
            return Err(PolicyError::new(
                ErrorClass::Unsafe,
                format!(
                    "could not order rule {rule}: unsafe literals {} (variables {} are never bound by a positive literal)",
                    lits.join(", "),
                    vars.join(", ")
                ),
            )
            .at(rule.body[bad[0]].span));
        }
        // Record the columns of every table used.
        for h in &rule.heads {
            self.record_arity(&p.name, &head_key(&p.name, h), h);
        }
        for lit in &rule.body {
            if let BodyRef::Pred(key) = resolve_body(&p.name, lit) {
                if lit.named.is_empty() {
                    self.record_arity(&p.name, &key, lit);
                }
            }
        }
        Ok(rule)
    }

    /// Turns column references (`q(2=y)`) into positional arguments using the
    /// table's known number of columns; column names need a declared schema.
    fn resolve_named(
        &self,
        key: &PredKey,
        lit: &mut Literal,
        pad: &mut usize,
    ) -> Result<(), PolicyError> {
        if lit.named.is_empty() {
            return Ok(());
        }
        let Some(&n) = self.schema.get(key) else {
            return Err(PolicyError::new(
                ErrorClass::ColumnReference,
                format!(
                    "in atom {lit} column references need the columns of {}, which are unknown",
                    lit.tablename()
                ),
            )
            .at(lit.span));
        };
        let mut args = lit.args.clone();
        let mut by_pos: Vec<Option<Term>> = vec![None; n.saturating_sub(args.len())];
        for (c, t) in &lit.named {
            match c {
                super::ast::ColRef::Num(i) if *i < n && *i >= args.len() => by_pos[*i - args.len()] = Some(t.clone()),
                super::ast::ColRef::Num(i) => {
                    return Err(PolicyError::new(
                        ErrorClass::ColumnReference,
                        format!("in atom {lit} column number {i} is out of range: {} has {n} columns", lit.tablename()),
                    )
                    .at(lit.span))
                }
                super::ast::ColRef::Name(name) => {
                    return Err(PolicyError::new(
                        ErrorClass::ColumnReference,
                        format!("in atom {lit} column name {name} is unknown: no schema names the columns of {}", lit.tablename()),
                    )
                    .at(lit.span))
                }
            }
        }
        for t in by_pos {
            args.push(t.unwrap_or_else(|| {
                *pad += 1;
                Term::Var(format!("_col{pad}"))
            }));
        }
        lit.args = args;
        lit.named.clear();
        Ok(())
    }

    fn record_arity(&mut self, policy: &str, key: &PredKey, lit: &Literal) {
        if !self.schema.contains_key(key) {
            self.schema.insert(key.clone(), lit.args.len());
            let at = if lit.span.line > 0 {
                format!(
                    " (policy {policy}, line {}, column {})",
                    lit.span.line, lit.span.col
                )
            } else {
                format!(" (policy {policy})")
            };
            self.schema_origin.insert(key.clone(), format!("{lit}{at}"));
        }
    }

    fn arity_error(&self, key: &PredKey, lit: &Literal, n: usize) -> PolicyError {
        let first = self
            .schema_origin
            .get(key)
            .map(|o| format!("; first used as {o}"))
            .unwrap_or_default();
        PolicyError::new(
            ErrorClass::Arity,
            format!(
                "literal {lit} contained {} arguments but exactly {n} arguments are permitted{first}",
                lit.args.len()
            ),
        )
        .at(lit.span)
    }

    /// Rejects cycles in the dependency graph of all policies' rules, except
    /// stratified cycles among tables of `recursive` policies.
    fn check_recursion(&self) -> Result<(), PolicyError> {
        let mut ids: HashMap<PredKey, usize> = HashMap::new();
        let mut keys: Vec<PredKey> = Vec::new();
        let mut edges: Vec<Vec<(usize, bool)>> = Vec::new();
        let mut id =
            |k: PredKey, keys: &mut Vec<PredKey>, edges: &mut Vec<Vec<(usize, bool)>>| -> usize {
                *ids.entry(k.clone()).or_insert_with(|| {
                    keys.push(k);
                    edges.push(Vec::new());
                    keys.len() - 1
                })
            };
        let mut names: Vec<&String> = self.policies.keys().collect();
        names.sort();
        for name in names {
            let p = &self.policies[name];
            for rule in &p.rules {
                for h in &rule.heads {
                    // A head naming another policy's update feeds that policy's table.
                    let hk = head_key(name, h);
                    let hid = id(hk, &mut keys, &mut edges);
                    for lit in &rule.body {
                        if let BodyRef::Pred(bk) = resolve_body(name, lit) {
                            let bid = id(bk, &mut keys, &mut edges);
                            edges[hid].push((bid, lit.negated));
                        }
                    }
                }
            }
        }
        for comp in tarjan(&edges) {
            let cyclic = comp.len() > 1 || edges[comp[0]].iter().any(|&(w, _)| w == comp[0]);
            if !cyclic {
                continue;
            }
            let members: HashSet<usize> = comp.iter().copied().collect();
            let names: Vec<String> = comp
                .iter()
                .rev()
                .map(|&i| format!("{}:{}", keys[i].policy, keys[i].key.tablename()))
                .collect();
            let all_recursive = comp
                .iter()
                .all(|&i| self.kind(&keys[i].policy) == Some(PolicyKind::Recursive));
            let negative = comp
                .iter()
                .any(|&i| edges[i].iter().any(|&(w, neg)| neg && members.contains(&w)));
            if all_recursive && !negative {
                continue;
            }
            let mut cycle = names.join(" -> ");
            if let Some(first) = names.first() {
                cycle.push_str(" -> ");
                cycle.push_str(first);
            }
            let msg = if all_recursive {
                format!("rules are not stratifiable: recursion through negation in {cycle}")
            } else {
                format!("rules are recursive: {cycle}")
            };
            return Err(PolicyError::new(ErrorClass::Recursion, msg));
        }
        Ok(())
    }

    /// The table a query literal asks for, evaluated in `target`.
    pub fn query_key(&self, target: &str, lit: &Literal) -> PredKey {
        let own = TableKey {
            modal: lit.modal.clone(),
            module: lit.module.clone(),
            table: lit.table.clone(),
        };
        if lit.module.is_some() && self.policies.get(target).is_some_and(|p| p.defines(&own)) {
            return PredKey {
                policy: target.to_string(),
                key: own,
            };
        }
        PredKey {
            policy: lit.module.clone().unwrap_or_else(|| target.to_string()),
            key: TableKey {
                modal: lit.modal.clone(),
                module: None,
                table: lit.table.clone(),
            },
        }
    }

    /// Every instance of `lit` that holds in `target`.
    pub fn query(&mut self, target: &str, lit: &Literal) -> Result<Vec<Vec<Value>>, PolicyError> {
        let key = self.query_key(target, lit);
        if self.kind(target) == Some(PolicyKind::Materialized) {
            self.materialize(target, lit)?;
        }
        let rows = match self.views.get(&key).and_then(|v| v.relation(&key)) {
            Some(rel) => vec![rel.iter().cloned().collect()],
            None => {
                let includes = HashMap::new();
                evaluate(
                    self.limits,
                    &self.policies,
                    &includes,
                    &mut self.syms,
                    &[key],
                )?
            }
        };
        let pattern = self.tuple_pattern(lit);
        Ok(rows
            .into_iter()
            .next()
            .unwrap_or_default()
            .into_iter()
            .filter(|t| matches_pattern(&pattern, t))
            .map(|t| t.to_vec())
            .collect())
    }

    fn tuple_pattern(&mut self, lit: &Literal) -> Vec<Pat> {
        let mut vars: Vec<&str> = Vec::new();
        lit.args
            .iter()
            .map(|t| match t {
                Term::Var(v) => match vars.iter().position(|x| x == v) {
                    Some(i) => Pat::Same(i),
                    None => {
                        vars.push(v);
                        Pat::Var
                    }
                },
                Term::Int(i) => Pat::Const(Value::Int(*i)),
                Term::Float(f) => Pat::Const(Value::Float(*f)),
                Term::Str(s) => Pat::Const(Value::Str(self.syms.intern(s))),
            })
            .collect()
    }

    /// Canonical text of an instance of `lit` with the given values.
    pub fn render(&self, lit: &Literal, values: &[Value]) -> String {
        render_atom(&self.syms, lit.modal.as_deref(), &lit.tablename(), values)
    }

    /// The names declared by `action("name")` facts/rules of an action policy.
    fn action_names(&mut self, action_policy: &str) -> Result<HashSet<String>, PolicyError> {
        let key = PredKey {
            policy: action_policy.to_string(),
            key: TableKey::plain("action"),
        };
        let includes = HashMap::new();
        let rows = evaluate(
            self.limits,
            &self.policies,
            &includes,
            &mut self.syms,
            &[key],
        )?;
        let mut out = HashSet::new();
        for t in rows.into_iter().next().unwrap_or_default() {
            if let [Value::Str(s)] = *t {
                out.insert(self.syms.get(s).to_string());
            }
        }
        Ok(out)
    }

    /// Applies `sequence` hypothetically, queries `target`, and rolls back.
    /// With `delta`, returns the change of the query result as `p+`/`p-` atoms.
    pub fn simulate(
        &mut self,
        query: &Literal,
        target: &str,
        sequence: &[Statement],
        action_policy: &str,
        delta: bool,
    ) -> Result<Vec<String>, PolicyError> {
        let before = if delta {
            self.query(target, query)?
        } else {
            Vec::new()
        };
        let saved_policies = self.policies.clone();
        let saved_schema = self.schema.clone();
        let saved_views = std::mem::take(&mut self.views);
        let result = self
            .project(sequence, target, action_policy)
            .and_then(|_| self.query(target, query));
        self.policies = saved_policies;
        self.schema = saved_schema;
        self.views = saved_views;
        let after = result?;
        let render = |e: &Engine, vals: &[Value], suffix: &str| {
            let table = format!("{}{suffix}", query.tablename());
            render_atom(&e.syms, query.modal.as_deref(), &table, vals)
        };
        if !delta {
            return Ok(after.iter().map(|v| render(self, v, "")).collect());
        }
        let mut out = Vec::new();
        for v in &after {
            if !before.contains(v) {
                out.push(render(self, v, "+"));
            }
        }
        for v in &before {
            if !after.contains(v) {
                out.push(render(self, v, "-"));
            }
        }
        Ok(out)
    }

    fn project(
        &mut self,
        sequence: &[Statement],
        target: &str,
        action_policy: &str,
    ) -> Result<(), PolicyError> {
        const TEMP: &str = "\u{0}simulate";
        self.create_policy(TEMP, PolicyKind::Nonrecursive);
        let actions = if self.policies.contains_key(action_policy) {
            self.action_names(action_policy)?
        } else {
            HashSet::new()
        };
        let mut includes: HashMap<String, Vec<String>> = HashMap::new();
        let mut inc = vec![TEMP.to_string()];
        if action_policy != target {
            inc.push(target.to_string());
        }
        includes.insert(action_policy.to_string(), inc);
        let mut last_results: Vec<(TableKey, Tuple)> = Vec::new();
        for st in sequence {
            let head = match st {
                Statement::Fact(l) => l.clone(),
                Statement::Rule(r) | Statement::Event { rule: r, .. } => match r.heads.first() {
                    Some(h) => h.clone(),
                    None => continue,
                },
            };
            let updates: Vec<Statement> = if !actions.contains(&head.tablename()) {
                if !head.is_update() {
                    return Err(PolicyError::new(
                        ErrorClass::Other,
                        format!("sequence contained non-action, non-update: {st}"),
                    ));
                }
                vec![st.clone()]
            } else {
                let grounds: Vec<(TableKey, Tuple)> = match st {
                    Statement::Fact(l) => vec![(TableKey::plain(&l.tablename()), self.tuple_of(l))],
                    Statement::Rule(r) | Statement::Event { rule: r, .. } => {
                        self.set_temp(TEMP, &last_results);
                        match self.first_binding(action_policy, r, &includes)? {
                            Some(g) => g,
                            None => continue,
                        }
                    }
                };
                self.set_temp(TEMP, &grounds);
                let mut ups = self.consequences(action_policy, &includes, |k| {
                    k.table.ends_with('+') || k.table.ends_with('-')
                })?;
                resolve_conflicts(&mut ups);
                if let Some(t) = self.policies.get_mut(TEMP) {
                    for (k, row) in &ups {
                        t.add_fact(k.clone(), row.clone());
                    }
                }
                last_results =
                    self.consequences(action_policy, &includes, |k| k.table == "result")?;
                ups.into_iter()
                    .map(|(k, row)| self.update_statement(&k, &row))
                    .collect()
            };
            for u in updates {
                self.apply_update(&u, target)?;
            }
        }
        self.policies.remove(TEMP);
        Ok(())
    }

    fn set_temp(&mut self, temp: &str, facts: &[(TableKey, Tuple)]) {
        if let Some(t) = self.policies.get_mut(temp) {
            t.facts.clear();
            for (k, row) in facts {
                t.add_fact(k.clone(), row.clone());
            }
        }
    }

    /// Every instance of `rule` (heads and body) whose body holds in `target`.
    pub fn query_rule(&mut self, target: &str, rule: &Rule) -> Result<Vec<String>, PolicyError> {
        let includes = HashMap::new();
        let (vars, rows) = self.body_bindings(target, rule, &includes)?;
        let mut out = Vec::new();
        for row in rows {
            let subst = |lit: &Literal| {
                let mut l = lit.clone();
                for t in l.args.iter_mut() {
                    if let Term::Var(v) = t {
                        if let Some(i) = vars.iter().position(|x| x == v) {
                            *t = value_term(&self.syms, row[i]);
                        }
                    }
                }
                l
            };
            let inst = Rule {
                heads: rule.heads.iter().map(subst).collect(),
                body: rule.body.iter().map(subst).collect(),
            };
            let text = inst.to_string();
            if !out.contains(&text) {
                out.push(text);
            }
        }
        Ok(out)
    }

    /// The variables of a rule body and every binding of them that satisfies it in `policy`.
    fn body_bindings(
        &mut self,
        policy: &str,
        rule: &Rule,
        includes: &HashMap<String, Vec<String>>,
    ) -> Result<(Vec<String>, Vec<Tuple>), PolicyError> {
        const Q: &str = "\u{0}query";
        let mut vars: Vec<String> = Vec::new();
        for lit in &rule.body {
            for v in lit.variables() {
                if !vars.iter().any(|x| x == v) {
                    vars.push(v.to_string());
                }
            }
        }
        let head = Literal {
            negated: false,
            modal: None,
            module: None,
            table: Q.to_string(),
            args: vars.iter().map(|v| Term::Var(v.clone())).collect(),
            named: Vec::new(),
            span: Default::default(),
        };
        let probe = Rule {
            heads: vec![head],
            body: rule.body.clone(),
        };
        let saved = self.policies.get(policy).cloned();
        if let Some(p) = self.policies.get_mut(policy) {
            p.add_rule(probe);
        }
        let key = PredKey {
            policy: policy.to_string(),
            key: TableKey::plain(Q),
        };
        let rows = evaluate(
            self.limits,
            &self.policies,
            includes,
            &mut self.syms,
            &[key],
        );
        if let Some(s) = saved {
            self.policies.insert(policy.to_string(), s);
        }
        Ok((vars, rows?.into_iter().next().unwrap_or_default()))
    }

    /// Ground heads of `rule` for the first binding of its body in the action policy.
    fn first_binding(
        &mut self,
        action_policy: &str,
        rule: &Rule,
        includes: &HashMap<String, Vec<String>>,
    ) -> Result<Option<Vec<(TableKey, Tuple)>>, PolicyError> {
        let (vars, rows) = self.body_bindings(action_policy, rule, includes)?;
        let Some(first) = rows.into_iter().next() else {
            return Ok(None);
        };
        let mut out = Vec::new();
        for h in &rule.heads {
            let mut vals = Vec::new();
            let mut ground = true;
            for t in &h.args {
                match t {
                    Term::Var(v) => match vars.iter().position(|x| x == v) {
                        Some(i) => vals.push(first[i]),
                        None => ground = false,
                    },
                    Term::Int(i) => vals.push(Value::Int(*i)),
                    Term::Float(f) => vals.push(Value::Float(*f)),
                    Term::Str(s) => vals.push(Value::Str(self.syms.intern(s))),
                }
            }
            if ground {
                out.push((TableKey::plain(&h.tablename()), vals.into()));
            }
        }
        Ok(Some(out))
    }

    /// All derivable atoms of the action policy whose table satisfies `keep`.
    fn consequences(
        &mut self,
        policy: &str,
        includes: &HashMap<String, Vec<String>>,
        keep: impl Fn(&TableKey) -> bool,
    ) -> Result<Vec<(TableKey, Tuple)>, PolicyError> {
        let mut keys: Vec<TableKey> = Vec::new();
        let mut sources = vec![policy.to_string()];
        if let Some(inc) = includes.get(policy) {
            sources.extend(inc.iter().cloned());
        }
        for s in &sources {
            if let Some(p) = self.policies.get(s) {
                for k in p.defined_keys() {
                    if keep(&k) && !keys.contains(&k) {
                        keys.push(k);
                    }
                }
            }
        }
        let goals: Vec<PredKey> = keys
            .iter()
            .map(|k| PredKey {
                policy: policy.to_string(),
                key: k.clone(),
            })
            .collect();
        let rows = evaluate(
            self.limits,
            &self.policies,
            includes,
            &mut self.syms,
            &goals,
        )?;
        let mut out = Vec::new();
        for (k, rs) in keys.into_iter().zip(rows) {
            for r in rs {
                out.push((k.clone(), r));
            }
        }
        Ok(out)
    }

    fn update_statement(&self, key: &TableKey, row: &Tuple) -> Statement {
        let (module, table) = match &key.module {
            Some(m) => (Some(m.clone()), key.table.clone()),
            None => match key.table.split_once(':') {
                Some((m, t)) => (Some(m.to_string()), t.to_string()),
                None => (None, key.table.clone()),
            },
        };
        Statement::Fact(Literal {
            negated: false,
            modal: key.modal.clone(),
            module,
            table,
            args: row.iter().map(|v| value_term(&self.syms, *v)).collect(),
            named: Vec::new(),
            span: Default::default(),
        })
    }

    /// Inserts or deletes the atom or rule of an update (`p+(..)`, `nova:p-(..)`, `p+(x) :- q(x)`).
    fn apply_update(&mut self, st: &Statement, target: &str) -> Result<(), PolicyError> {
        let (head, rule) = match st {
            Statement::Fact(l) => (l.clone(), None),
            Statement::Rule(r) | Statement::Event { rule: r, .. } => match r.heads.first() {
                Some(h) => (h.clone(), Some(r.clone())),
                None => return Ok(()),
            },
        };
        let insert = head.table.ends_with('+');
        let theory = head.module.clone().unwrap_or_else(|| target.to_string());
        let mut plain = head.clone();
        plain.table.pop();
        plain.module = None;
        if !self.policies.contains_key(&theory) {
            self.create_policy(&theory, PolicyKind::Nonrecursive);
        }
        match rule {
            None => {
                let t = self.tuple_of(&plain);
                let key = TableKey {
                    modal: plain.modal.clone(),
                    module: None,
                    table: plain.table.clone(),
                };
                if let Some(p) = self.policies.get_mut(&theory) {
                    if insert {
                        p.add_fact(key, t);
                    } else {
                        p.remove_fact(&key, &t);
                    }
                }
            }
            Some(mut r) => {
                r.heads = vec![plain];
                if insert {
                    self.insert_statements(&theory, &[Statement::Rule(r)])?;
                } else if let Some(p) = self.policies.get_mut(&theory) {
                    p.remove_rule(&r);
                }
            }
        }
        Ok(())
    }
}

fn value_term(syms: &Symbols, v: Value) -> Term {
    match v {
        Value::Int(i) => Term::Int(i),
        Value::Float(f) => Term::Float(f),
        Value::Str(s) => Term::Str(syms.get(s).to_string()),
    }
}

/// If both `p+(args)` and `p-(args)` are derived, the deletion is dropped.
fn resolve_conflicts(ups: &mut Vec<(TableKey, Tuple)>) {
    let inserts: HashSet<(String, Option<String>, Tuple)> = ups
        .iter()
        .filter(|(k, _)| k.table.ends_with('+'))
        .map(|(k, t)| {
            (
                k.table[..k.table.len() - 1].to_string(),
                k.module.clone(),
                t.clone(),
            )
        })
        .collect();
    ups.retain(|(k, t)| {
        !(k.table.ends_with('-')
            && inserts.contains(&(
                k.table[..k.table.len() - 1].to_string(),
                k.module.clone(),
                t.clone(),
            )))
    });
}

#[derive(Clone, Copy)]
enum Pat {
    Const(Value),
    Var,
    Same(usize),
}

fn matches_pattern(pat: &[Pat], t: &[Value]) -> bool {
    if pat.len() != t.len() {
        return false;
    }
    let mut seen: Vec<Value> = Vec::new();
    for (p, v) in pat.iter().zip(t) {
        match *p {
            Pat::Const(c) => {
                if c != *v {
                    return false;
                }
            }
            Pat::Var => seen.push(*v),
            Pat::Same(i) => {
                if seen.get(i) != Some(v) {
                    return false;
                }
            }
        }
    }
    true
}

/// `modal[table(v1, v2)]` in canonical form.
pub fn render_atom(syms: &Symbols, modal: Option<&str>, table: &str, values: &[Value]) -> String {
    let mut s = String::new();
    if let Some(m) = modal {
        s.push_str(m);
        s.push('[');
    }
    s.push_str(table);
    s.push('(');
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            s.push_str(", ");
        }
        syms.render(*v, &mut s);
    }
    s.push(')');
    if modal.is_some() {
        s.push(']');
    }
    s
}

/// Evaluates the goals; one row list per goal.
pub fn evaluate(
    limits: Limits,
    policies: &PolicySet,
    includes: &HashMap<String, Vec<String>>,
    syms: &mut Symbols,
    goals: &[PredKey],
) -> Result<Vec<Vec<Tuple>>, PolicyError> {
    let mut ev = Evaluator::new(policies, includes).with_limits(limits);
    let ids = ev.run(goals, syms)?;
    Ok(ids
        .into_iter()
        .map(|i| ev.relation(i).iter().cloned().collect())
        .collect())
}
