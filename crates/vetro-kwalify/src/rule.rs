//! The compiled rule model.

use regex::Regex;
use std::collections::HashMap;
use vetro_diag::Span;
use vetro_yaml::Node;

/// Index of a rule in its grammar's arena.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RuleId(pub usize);

/// The `type` keyword.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleType {
    Str,
    Int,
    Float,
    Number,
    Bool,
    Text,
    Scalar,
    Timestamp,
    Date,
    Map,
    Seq,
    Any,
}

impl RuleType {
    pub fn parse(s: &str) -> Option<RuleType> {
        Some(match s {
            "str" | "string" => RuleType::Str,
            "int" | "integer" => RuleType::Int,
            "float" => RuleType::Float,
            "number" => RuleType::Number,
            "bool" | "boolean" => RuleType::Bool,
            "text" => RuleType::Text,
            "scalar" => RuleType::Scalar,
            "timestamp" => RuleType::Timestamp,
            "date" => RuleType::Date,
            "map" | "mapping" => RuleType::Map,
            "seq" | "sequence" => RuleType::Seq,
            "any" => RuleType::Any,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            RuleType::Str => "str",
            RuleType::Int => "int",
            RuleType::Float => "float",
            RuleType::Number => "number",
            RuleType::Bool => "bool",
            RuleType::Text => "text",
            RuleType::Scalar => "scalar",
            RuleType::Timestamp => "timestamp",
            RuleType::Date => "date",
            RuleType::Map => "map",
            RuleType::Seq => "seq",
            RuleType::Any => "any",
        }
    }
}

/// The `short` keyword: what a compact value stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Short {
    /// A map rule: a scalar `v` stands for `{key: v}`.
    Key(String),
    /// A seq rule: a single item stands for a one-item list.
    Item,
}

/// A `range` or `length` bound set.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bound {
    pub min: Option<f64>,
    pub max: Option<f64>,
    pub min_ex: Option<f64>,
    pub max_ex: Option<f64>,
}

impl Bound {
    pub fn admits(&self, x: f64) -> bool {
        self.min.is_none_or(|m| x >= m)
            && self.max.is_none_or(|m| x <= m)
            && self.min_ex.is_none_or(|m| x > m)
            && self.max_ex.is_none_or(|m| x < m)
    }

    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        if let Some(m) = self.min {
            parts.push(format!(">= {m}"));
        }
        if let Some(m) = self.min_ex {
            parts.push(format!("> {m}"));
        }
        if let Some(m) = self.max {
            parts.push(format!("<= {m}"));
        }
        if let Some(m) = self.max_ex {
            parts.push(format!("< {m}"));
        }
        parts.join(" and ")
    }
}

/// One compiled rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The `name` keyword (hook identifier).
    pub name: Option<String>,
    /// `name`, or the grammar path where the rule was first reached.
    pub label: String,
    pub ty: RuleType,
    pub required: bool,
    /// Explicit child rules of a map, by key, in grammar order.
    pub keys: Vec<(String, RuleId)>,
    pub key_index: HashMap<String, RuleId>,
    /// The `=` default rule of a map.
    pub default: Option<RuleId>,
    /// The item rule of a seq.
    pub item: Option<RuleId>,
    pub enumeration: Option<Vec<Node>>,
    pub pattern: Option<(String, Regex)>,
    pub short: Option<Short>,
    pub range: Option<Bound>,
    pub length: Option<Bound>,
    pub unique: bool,
    /// Where the rule is written in the grammar file.
    pub span: Span,
}
