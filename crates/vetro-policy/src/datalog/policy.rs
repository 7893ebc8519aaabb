//! Policies: their kind, rules and stored facts.

use super::ast::Rule;
use super::relation::Relation;
use super::value::Tuple;
use std::collections::HashMap;

/// The kinds of policy FORMAT.md names, plus `recursive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    /// Rules and facts; any recursion is rejected (the reference's default).
    Nonrecursive,
    /// Facts only.
    Database,
    /// Rules and facts, maintained incrementally; no recursion.
    Materialized,
    /// Action descriptions used by `simulate`; heads may name other policies' updates.
    Action,
    /// Facts pushed by a data source.
    Datasource,
    /// Stratified recursion allowed (vetro's extension).
    Recursive,
}

impl PolicyKind {
    pub fn parse(s: &str) -> Option<PolicyKind> {
        Some(match s {
            "nonrecursive" => PolicyKind::Nonrecursive,
            "database" => PolicyKind::Database,
            "materialized" => PolicyKind::Materialized,
            "action" => PolicyKind::Action,
            "datasource" => PolicyKind::Datasource,
            "recursive" => PolicyKind::Recursive,
            _ => return None,
        })
    }

    pub fn allows_rules(self) -> bool {
        !matches!(self, PolicyKind::Database | PolicyKind::Datasource)
    }
}

/// A table inside one policy: `execute[nova:p+]` is modal `execute`, module `nova`, table `p+`.
/// A module appears only in heads that name another policy (modal or action heads).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TableKey {
    pub modal: Option<String>,
    pub module: Option<String>,
    pub table: String,
}

impl TableKey {
    pub fn plain(table: &str) -> Self {
        TableKey {
            modal: None,
            module: None,
            table: table.to_string(),
        }
    }

    /// `module:table` or `table`.
    pub fn tablename(&self) -> String {
        match &self.module {
            Some(m) => format!("{m}:{}", self.table),
            None => self.table.clone(),
        }
    }
}

/// A table of a named policy.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PredKey {
    pub policy: String,
    pub key: TableKey,
}

/// One policy's contents.
#[derive(Clone, Debug)]
pub struct Policy {
    pub name: String,
    pub kind: PolicyKind,
    pub rules: Vec<Rule>,
    pub facts: HashMap<TableKey, Relation>,
    by_head: HashMap<TableKey, Vec<usize>>,
    /// Rule ids by [`Rule::fingerprint`], to find an equal rule quickly.
    by_print: HashMap<u64, Vec<usize>>,
}

/// All policies of an engine by name.
pub type PolicySet = HashMap<String, Policy>;

impl Policy {
    pub fn new(name: &str, kind: PolicyKind) -> Self {
        Policy {
            name: name.to_string(),
            kind,
            rules: Vec::new(),
            facts: HashMap::new(),
            by_head: HashMap::new(),
            by_print: HashMap::new(),
        }
    }

    pub fn rules_for(&self, key: &TableKey) -> &[usize] {
        self.by_head.get(key).map(|v| v.as_slice()).unwrap_or(&[])
    }

    pub fn defines(&self, key: &TableKey) -> bool {
        self.by_head.contains_key(key) || self.facts.get(key).is_some_and(|f| !f.is_empty())
    }

    /// Adds a rule unless an equal one is present; returns whether it was added.
    pub fn add_rule(&mut self, rule: Rule) -> bool {
        let print = rule.fingerprint();
        if self.position(&rule, print).is_some() {
            return false;
        }
        let id = self.rules.len();
        self.by_print.entry(print).or_default().push(id);
        for h in &rule.heads {
            let key = TableKey {
                modal: h.modal.clone(),
                module: h.module.clone(),
                table: h.table.clone(),
            };
            let list = self.by_head.entry(key).or_default();
            // Ids only grow: a rule with two equal heads is listed once.
            if list.last() != Some(&id) {
                list.push(id);
            }
        }
        self.rules.push(rule);
        true
    }

    /// Removes an equal rule; returns whether one was present.
    pub fn remove_rule(&mut self, rule: &Rule) -> bool {
        let Some(pos) = self.position(rule, rule.fingerprint()) else {
            return false;
        };
        self.rules.remove(pos);
        self.reindex();
        true
    }

    /// Where an equal rule is, if one is present.
    fn position(&self, rule: &Rule, print: u64) -> Option<usize> {
        self.by_print
            .get(&print)?
            .iter()
            .copied()
            .find(|&i| self.rules[i] == *rule)
    }

    fn reindex(&mut self) {
        self.by_head.clear();
        self.by_print.clear();
        for (id, rule) in self.rules.iter().enumerate() {
            self.by_print
                .entry(rule.fingerprint())
                .or_default()
                .push(id);
            for h in &rule.heads {
                let key = TableKey {
                    modal: h.modal.clone(),
                    module: h.module.clone(),
                    table: h.table.clone(),
                };
                let list = self.by_head.entry(key).or_default();
                // Ids only grow: a rule with two equal heads is listed once.
                if list.last() != Some(&id) {
                    list.push(id);
                }
            }
        }
    }

    pub fn add_fact(&mut self, key: TableKey, t: Tuple) -> bool {
        self.facts.entry(key).or_default().insert(t)
    }

    pub fn remove_fact(&mut self, key: &TableKey, t: &[super::value::Value]) -> bool {
        self.facts.get_mut(key).is_some_and(|f| f.remove(t))
    }

    /// Every table key this policy defines by a rule head or a fact.
    pub fn defined_keys(&self) -> Vec<TableKey> {
        let mut keys: Vec<TableKey> = self.by_head.keys().cloned().collect();
        for (k, f) in &self.facts {
            if !f.is_empty() && !keys.contains(k) {
                keys.push(k.clone());
            }
        }
        keys.sort();
        keys
    }
}
