//! Compiling a grammar's YAML rules into the rule arena.
//!
//! Compilation starts at the root and follows `mapping` and `sequence`, so rules
//! that nothing reaches are never looked at (they may be malformed). A rule
//! reached twice through an alias has the same source span in both places and
//! is compiled once.

use crate::kind::KwalifyKind;
use crate::rule::{Bound, Rule, RuleId, RuleType, Short};
use crate::Grammar;
use regex::Regex;
use std::collections::HashMap;
use vetro_diag::Diagnostic;
use vetro_yaml::{Node, NodeKind};

struct Compiler {
    rules: Vec<Rule>,
    /// Rule node identity (span) → compiled rule.
    memo: HashMap<(u32, u32, u32), RuleId>,
    errors: Vec<Diagnostic>,
}

pub fn compile(root: &Node) -> Result<Grammar, Vec<Diagnostic>> {
    if root.as_map().is_none() {
        return Err(vec![Diagnostic::error(
            KwalifyKind::Grammar,
            "the root of a grammar must be a mapping (a rule)",
        )
        .with_span(root.span)]);
    }
    let mut c = Compiler {
        rules: Vec::new(),
        memo: HashMap::new(),
        errors: Vec::new(),
    };
    let root_id = c.rule(root, "");
    if c.errors.is_empty() {
        Ok(Grammar {
            rules: c.rules,
            root: root_id,
        })
    } else {
        Err(c.errors)
    }
}

fn bool_of(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Bool(b) => *b,
        NodeKind::Str(s) => matches!(s.as_str(), "yes" | "true" | "y" | "on"),
        NodeKind::Int(i) => *i != 0,
        _ => false,
    }
}

fn key_text(key: &Node) -> String {
    key.scalar_text().unwrap_or_default()
}

fn bound(node: &Node) -> Bound {
    let num = |k: &str| node.get(k).and_then(Node::as_f64);
    Bound {
        min: num("min"),
        max: num("max"),
        min_ex: num("min-ex"),
        max_ex: num("max-ex"),
    }
}

/// `/regex/flags` (the slashes are optional).
fn pattern(text: &str) -> Result<Regex, regex::Error> {
    let (body, flags) = match text
        .strip_prefix('/')
        .and_then(|r| r.rfind('/').map(|i| (r, i)))
    {
        Some((rest, i)) => (&rest[..i], &rest[i + 1..]),
        None => (text, ""),
    };
    let mut prefix = String::new();
    for f in flags.chars() {
        if matches!(f, 'i' | 'm' | 's' | 'x') {
            prefix.push(f);
        }
    }
    if prefix.is_empty() {
        Regex::new(body)
    } else {
        Regex::new(&format!("(?{prefix}){body}"))
    }
}

impl Compiler {
    fn rule(&mut self, node: &Node, gpath: &str) -> RuleId {
        let identity = (node.span.file.0, node.span.start, node.span.end);
        if let Some(&id) = self.memo.get(&identity) {
            return id;
        }
        let id = RuleId(self.rules.len());
        self.memo.insert(identity, id);
        self.rules.push(Rule {
            name: None,
            label: gpath.to_string(),
            ty: RuleType::Any,
            required: false,
            keys: Vec::new(),
            key_index: HashMap::new(),
            default: None,
            item: None,
            enumeration: None,
            pattern: None,
            short: None,
            range: None,
            length: None,
            unique: false,
            span: node.span,
        });
        let Some(map) = node.as_map() else {
            // Not a rule mapping (e.g. an empty value): accept anything.
            return id;
        };
        let mut rule = self.rules[id.0].clone();
        let mut explicit_type = None;
        let mut mapping = None;
        let mut sequence = None;
        let mut short = None;
        for (k, v) in map.iter() {
            match key_text(k).as_str() {
                "type" => explicit_type = v.as_str().map(str::to_string),
                "required" => rule.required = bool_of(v),
                "name" => rule.name = v.scalar_text(),
                "mapping" => mapping = Some(v),
                "sequence" => sequence = Some(v),
                "enum" => rule.enumeration = v.as_seq().map(<[Node]>::to_vec),
                "pattern" => {
                    if let Some(text) = v.as_str() {
                        match pattern(text) {
                            Ok(re) => rule.pattern = Some((text.to_string(), re)),
                            Err(e) => self.errors.push(
                                Diagnostic::error(
                                    KwalifyKind::Grammar,
                                    format!("bad pattern {text:?}: {e}"),
                                )
                                .with_span(v.span),
                            ),
                        }
                    }
                }
                "short" => short = v.scalar_text(),
                "range" => rule.range = Some(bound(v)),
                "length" => rule.length = Some(bound(v)),
                "unique" => rule.unique = bool_of(v),
                // desc, ident, assert, anchors-only keys: no validation meaning here.
                _ => {}
            }
        }
        rule.ty = match explicit_type.as_deref() {
            Some(t) => match RuleType::parse(t) {
                Some(ty) => ty,
                None => {
                    self.errors.push(
                        Diagnostic::error(KwalifyKind::Grammar, format!("unknown rule type `{t}`"))
                            .with_span(node.span),
                    );
                    RuleType::Any
                }
            },
            None if mapping.is_some() => RuleType::Map,
            None if sequence.is_some() => RuleType::Seq,
            None => RuleType::Str,
        };
        if let Some(name) = &rule.name {
            rule.label = name.clone();
        }
        rule.short = short.map(|s| match rule.ty {
            RuleType::Seq => Short::Item,
            _ => Short::Key(s),
        });
        if let Some(m) = mapping.and_then(Node::as_map) {
            for (k, v) in m.iter() {
                let key = key_text(k);
                let child = self.rule(v, &format!("{gpath}/mapping/{key}"));
                if key == "=" {
                    rule.default = Some(child);
                } else {
                    rule.key_index.insert(key.clone(), child);
                    rule.keys.push((key, child));
                }
            }
        }
        if let Some(s) = sequence {
            // `sequence: [ rule ]`; a bare mapping is read as the item rule.
            let item = match &s.kind {
                NodeKind::Seq(items) => items.first(),
                NodeKind::Map(_) => Some(s),
                _ => None,
            };
            if let Some(item) = item {
                rule.item = Some(self.rule(item, &format!("{gpath}/sequence/0")));
            }
        }
        self.rules[id.0] = rule;
        id
    }
}
