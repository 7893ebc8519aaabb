//! Validating a document against compiled rules.

use crate::kind::KwalifyKind;
use crate::path::InstancePath;
use crate::problem::Problem;
use crate::rule::{Rule, RuleId, RuleType, Short};
use crate::scalar::{type_matches, value_kind};
use crate::Grammar;
use std::collections::HashMap;
use vetro_diag::Span;
use vetro_yaml::{Mapping, Node, NodeKind};

/// Checks a layer above attaches to rule names. Called after a value validated
/// cleanly against a rule that has a `name`.
pub trait Hooks {
    fn after_rule(&mut self, name: &str, value: &Node, path: &InstancePath, out: &mut Vec<Problem>);
}

/// No extra checks.
pub struct NoHooks;

impl Hooks for NoHooks {
    fn after_rule(&mut self, _: &str, _: &Node, _: &InstancePath, _: &mut Vec<Problem>) {}
}

pub(crate) struct Validator<'g, 'h> {
    grammar: &'g Grammar,
    hooks: &'h mut dyn Hooks,
    path: InstancePath,
    problems: Vec<Problem>,
}

fn key_segment(key: &Node) -> String {
    key.scalar_text()
        .unwrap_or_else(|| key.type_name().to_string())
}

fn show(node: &Node) -> String {
    match node.scalar_text() {
        Some(t) => format!("'{t}'"),
        None => format!("a {}", node.type_name()),
    }
}

impl<'g, 'h> Validator<'g, 'h> {
    pub(crate) fn new(grammar: &'g Grammar, hooks: &'h mut dyn Hooks) -> Self {
        Validator {
            grammar,
            hooks,
            path: InstancePath::new(),
            problems: Vec::new(),
        }
    }

    pub(crate) fn into_problems(self) -> Vec<Problem> {
        self.problems
    }

    fn report(
        &mut self,
        kind: KwalifyKind,
        path: String,
        span: Span,
        rule: &Rule,
        message: String,
    ) {
        self.problems.push(Problem {
            kind: kind.into(),
            path,
            message,
            span,
            rule: rule.label.clone(),
        });
    }

    pub(crate) fn check(&mut self, id: RuleId, node: &mut Node) {
        let grammar = self.grammar;
        let rule = grammar.rule(id);
        if node.is_null() {
            if rule.required {
                let path = self.path.render();
                let what = self.path.segments().last().cloned().unwrap_or_default();
                self.report(
                    KwalifyKind::MissingRequired,
                    path,
                    node.span,
                    rule,
                    format!("'{what}' is required and must not be empty"),
                );
            }
            return;
        }
        if let Some(short) = &rule.short {
            if let Some(canonical) = canonical_form(short, rule.ty, node) {
                let mark = self.problems.len();
                let original = std::mem::replace(node, canonical);
                self.check_value(rule, node);
                if self.problems.len() == mark {
                    return;
                }
                self.problems.truncate(mark);
                *node = original;
            }
        }
        self.check_value(rule, node);
    }

    fn check_value(&mut self, rule: &'g Rule, node: &mut Node) {
        if !type_matches(rule.ty, node) {
            let path = self.path.render();
            self.report(
                KwalifyKind::WrongType,
                path,
                node.span,
                rule,
                format!(
                    "expected a value of type {} but found {} ({})",
                    rule.ty.name(),
                    value_kind(node),
                    show(node)
                ),
            );
            return;
        }
        let mark = self.problems.len();
        let span = node.span;
        match &mut node.kind {
            NodeKind::Seq(items) => self.check_seq(rule, items),
            NodeKind::Map(map) => self.check_map(rule, map, span),
            _ => self.check_scalar(rule, node),
        }
        if self.problems.len() == mark {
            if let Some(name) = &rule.name {
                self.hooks
                    .after_rule(name, node, &self.path, &mut self.problems);
            }
        }
    }

    fn check_seq(&mut self, rule: &'g Rule, items: &mut [Node]) {
        let Some(item_rule) = rule.item else {
            return;
        };
        for (i, item) in items.iter_mut().enumerate() {
            self.path.push(i.to_string());
            self.check(item_rule, item);
            self.path.pop();
        }
        self.check_unique(item_rule, items);
    }

    /// `unique: yes` on the item rule (scalar items) or on a key rule of the
    /// item mapping (that key's values across items).
    fn check_unique(&mut self, item_rule: RuleId, items: &[Node]) {
        let grammar = self.grammar;
        let irule = grammar.rule(item_rule);
        if irule.unique {
            self.report_duplicates(
                irule,
                items.iter().enumerate().map(|(i, n)| (i.to_string(), n)),
            );
        }
        for (key, child) in &irule.keys {
            let crule = grammar.rule(*child);
            if crule.unique {
                let values = items.iter().enumerate().filter_map(|(i, item)| {
                    item.get(key)
                        .map(|v| (format!("{i}/{}", crate::escape_segment(key)), v))
                });
                self.report_duplicates(crule, values);
            }
        }
    }

    fn report_duplicates<'n>(
        &mut self,
        rule: &Rule,
        values: impl Iterator<Item = (String, &'n Node)>,
    ) {
        let mut seen: HashMap<String, String> = HashMap::new();
        for (rel, value) in values {
            let Some(text) = value.scalar_text().filter(|_| !value.is_null()) else {
                continue;
            };
            let key = format!("{}:{text}", value.type_name());
            let path = if self.path.segments().is_empty() {
                rel.clone()
            } else {
                format!("{}/{rel}", self.path.render())
            };
            if let Some(first) = seen.get(&key) {
                let message = format!("{} is duplicated (first at '{first}')", show(value));
                self.report(KwalifyKind::NotUnique, path, value.span, rule, message);
            } else {
                seen.insert(key, path);
            }
        }
    }

    fn check_map(&mut self, rule: &'g Rule, map: &mut Mapping, span: Span) {
        if rule.keys.is_empty() && rule.default.is_none() {
            return; // `type: map` without `mapping`: any keys.
        }
        let grammar = self.grammar;
        for (key, child) in &rule.keys {
            if grammar.rule(*child).required && map.get(key).is_none() {
                let path = self.path.render_with(key);
                self.report(
                    KwalifyKind::MissingRequired,
                    path,
                    span,
                    grammar.rule(*child),
                    format!("required key '{key}' is missing"),
                );
            }
        }
        for (key, value) in map.entries.iter_mut() {
            let child = key
                .as_str()
                .and_then(|k| rule.key_index.get(k).copied())
                .or(rule.default);
            self.path.push(key_segment(key));
            match child {
                Some(child) => self.check(child, value),
                None => {
                    let path = self.path.render();
                    let allowed: Vec<&str> = rule.keys.iter().map(|(k, _)| k.as_str()).collect();
                    self.report(
                        KwalifyKind::UnknownKey,
                        path,
                        key.span,
                        rule,
                        format!(
                            "key '{}' is not allowed here (allowed: {})",
                            key_segment(key),
                            allowed.join(", ")
                        ),
                    );
                }
            }
            self.path.pop();
        }
    }

    fn check_scalar(&mut self, rule: &'g Rule, node: &Node) {
        if let Some(values) = &rule.enumeration {
            if !values.iter().any(|v| v.kind == node.kind) {
                let list: Vec<String> = values.iter().filter_map(Node::scalar_text).collect();
                let path = self.path.render();
                self.report(
                    KwalifyKind::BadEnum,
                    path,
                    node.span,
                    rule,
                    format!("{} is not one of: {}", show(node), list.join(", ")),
                );
            }
        }
        if let Some((text, re)) = &rule.pattern {
            let value = node.scalar_text().unwrap_or_default();
            if !re.is_match(&value) {
                let path = self.path.render();
                self.report(
                    KwalifyKind::PatternMismatch,
                    path,
                    node.span,
                    rule,
                    format!("{} does not match the pattern {text}", show(node)),
                );
            }
        }
        if let Some(range) = &rule.range {
            if let Some(x) = node.as_f64() {
                if !range.admits(x) {
                    let path = self.path.render();
                    let message = format!("{} is out of range ({})", show(node), range.describe());
                    self.report(KwalifyKind::OutOfRange, path, node.span, rule, message);
                }
            }
        }
        if let Some(length) = &rule.length {
            if let Some(text) = node.scalar_text() {
                let n = text.chars().count() as f64;
                if !length.admits(n) {
                    let path = self.path.render();
                    let message = format!(
                        "{} has length {n}, expected {}",
                        show(node),
                        length.describe()
                    );
                    self.report(KwalifyKind::BadLength, path, node.span, rule, message);
                }
            }
        }
    }
}

/// The canonical value a short form stands for, if the rule and value allow one.
fn canonical_form(short: &Short, ty: RuleType, node: &Node) -> Option<Node> {
    let span = node.span;
    match (short, ty) {
        (Short::Key(key), RuleType::Map) if node.is_scalar() => {
            let mut key_node = Node::new(NodeKind::Str(key.clone()), span);
            key_node.span.end = key_node.span.start;
            let mapping = Mapping {
                entries: vec![(key_node, node.clone())],
            };
            Some(Node::new(NodeKind::Map(mapping), span))
        }
        (Short::Item, RuleType::Seq) if !matches!(node.kind, NodeKind::Seq(_)) => {
            Some(Node::new(NodeKind::Seq(vec![node.clone()]), span))
        }
        _ => None,
    }
}
