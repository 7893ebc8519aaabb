//! Values of a UI definition that may hold YAQL: the `Application` and
//! `Templates` sections, field attributes, validator expressions.
//!
//! A scalar is an expression when tagged `!yaql`, or when it is a plain
//! (unquoted) string that is not only letters, digits, spaces, dots and
//! colons and that parses as YAQL: the rule of the dashboard's YAML loader.

use crate::kind::FormsKind;
use std::sync::OnceLock;
use vetro_diag::{Diagnostic, Span};
use vetro_yaml::{Node, NodeKind, Style};

/// A YAQL expression with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct Yaql {
    pub text: String,
    pub span: Span,
}

/// A value tree in which some leaves (and keys) are YAQL expressions.
#[derive(Clone, Debug, PartialEq)]
pub enum Tpl {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Expr(Yaql),
    List(Vec<Tpl>),
    Map(Vec<(Tpl, Tpl)>),
}

impl Tpl {
    /// The constant string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Tpl::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The value under a constant string key of a mapping.
    pub fn get(&self, key: &str) -> Option<&Tpl> {
        match self {
            Tpl::Map(entries) => entries
                .iter()
                .find(|(k, _)| k.as_str() == Some(key))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// Whether no expression occurs in the tree.
    pub fn is_constant(&self) -> bool {
        match self {
            Tpl::Expr(_) => false,
            Tpl::List(items) => items.iter().all(Tpl::is_constant),
            Tpl::Map(entries) => entries
                .iter()
                .all(|(k, v)| k.is_constant() && v.is_constant()),
            _ => true,
        }
    }

    /// Every expression of the tree, in document order.
    pub fn expressions(&self) -> Vec<&Yaql> {
        let mut out = Vec::new();
        self.collect(&mut out);
        out
    }

    fn collect<'a>(&'a self, out: &mut Vec<&'a Yaql>) {
        match self {
            Tpl::Expr(y) => out.push(y),
            Tpl::List(items) => items.iter().for_each(|t| t.collect(out)),
            Tpl::Map(entries) => entries.iter().for_each(|(k, v)| {
                k.collect(out);
                v.collect(out);
            }),
            _ => {}
        }
    }

    /// The constant tree as JSON (`None` when it holds an expression).
    pub fn to_json(&self) -> Option<serde_json::Value> {
        use serde_json::Value as J;
        Some(match self {
            Tpl::Null => J::Null,
            Tpl::Bool(b) => J::Bool(*b),
            Tpl::Int(i) => J::from(*i),
            Tpl::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Tpl::Str(s) => J::String(s.clone()),
            Tpl::Expr(_) => return None,
            Tpl::List(items) => J::Array(items.iter().map(Tpl::to_json).collect::<Option<_>>()?),
            Tpl::Map(entries) => {
                let mut m = serde_json::Map::new();
                for (k, v) in entries {
                    let key = match k.to_json()? {
                        J::String(s) => s,
                        other => other.to_string(),
                    };
                    m.insert(key, v.to_json()?);
                }
                J::Object(m)
            }
        })
    }

    /// A constant tree from JSON.
    pub fn from_json(v: &serde_json::Value) -> Tpl {
        use serde_json::Value as J;
        match v {
            J::Null => Tpl::Null,
            J::Bool(b) => Tpl::Bool(*b),
            J::Number(n) => match n.as_i64() {
                Some(i) => Tpl::Int(i),
                None => Tpl::Float(n.as_f64().unwrap_or(f64::NAN)),
            },
            J::String(s) => Tpl::Str(s.clone()),
            J::Array(items) => Tpl::List(items.iter().map(Tpl::from_json).collect()),
            J::Object(m) => Tpl::Map(
                m.iter()
                    .map(|(k, v)| (Tpl::Str(k.clone()), Tpl::from_json(v)))
                    .collect(),
            ),
        }
    }
}

fn identifier_re() -> &'static fancy_regex::Regex {
    static RE: OnceLock<fancy_regex::Regex> = OnceLock::new();
    RE.get_or_init(|| fancy_regex::Regex::new(r"^[\s\w\d.:]*$").expect("valid regex"))
}

/// Whether YAQL parses `text` (the dashboard's parser: no legacy mode).
pub fn parses(text: &str) -> bool {
    yaql_error(text).is_none()
}

/// The parse error of `text` as YAQL, if any.
pub fn yaql_error(text: &str) -> Option<String> {
    vetro_yaql::parser::check(text, vetro_yaql::ParserOptions::default(), None)
        .err()
        .map(|e| e.to_string())
}

/// Whether a plain string scalar is taken as a YAQL expression.
pub fn is_expression(text: &str) -> bool {
    !identifier_re().is_match(text).unwrap_or(true) && parses(text)
}

/// Builds [`Tpl`] trees from YAML nodes, collecting problems.
#[derive(Default)]
pub struct TplReader {
    pub problems: Vec<Diagnostic>,
}

impl TplReader {
    pub fn read(&mut self, node: &Node) -> Tpl {
        if node.tag.as_deref() == Some("!yaql") {
            let text = node.scalar_text().unwrap_or_default();
            if let Some(e) = yaql_error(&text) {
                self.problems.push(
                    Diagnostic::error(
                        FormsKind::YaqlSyntax,
                        format!("the !yaql expression {text:?} does not parse: {e}"),
                    )
                    .with_span(node.span),
                );
            }
            return Tpl::Expr(Yaql {
                text,
                span: node.span,
            });
        }
        match &node.kind {
            NodeKind::Null => Tpl::Null,
            NodeKind::Bool(b) => Tpl::Bool(*b),
            NodeKind::Int(i) => Tpl::Int(*i),
            NodeKind::BigInt(s) => Tpl::Float(s.parse().unwrap_or(f64::NAN)),
            NodeKind::Float(f) => Tpl::Float(*f),
            NodeKind::Str(s) => {
                if node.style == Style::Plain && node.tag.is_none() && is_expression(s) {
                    Tpl::Expr(Yaql {
                        text: s.clone(),
                        span: node.span,
                    })
                } else {
                    Tpl::Str(s.clone())
                }
            }
            NodeKind::Seq(items) => Tpl::List(items.iter().map(|n| self.read(n)).collect()),
            NodeKind::Map(m) => Tpl::Map(
                m.iter()
                    .map(|(k, v)| (self.read(k), self.read(v)))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::is_expression;

    #[test]
    fn the_loader_rule_decides_what_is_yaql() {
        assert!(is_expression("$.appConfiguration.name"));
        assert!(is_expression("$.a.b = null"));
        assert!(is_expression("generateHostname($.a, 1)"));
        assert!(!is_expression("Instance flavor"));
        assert!(!is_expression("io.murano.resources.LinuxMuranoInstance"));
        assert!(!is_expression("Apache License, Version 2.0"));
        assert!(!is_expression("key: value"));
    }
}
