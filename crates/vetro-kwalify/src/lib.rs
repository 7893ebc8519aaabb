//! A kwalify-style grammar engine.
//!
//! A grammar is a YAML document of rules (`type`, `required`, `mapping` with the
//! `=` default rule, `sequence`, `enum`, `pattern`, `short`, `name`, `range`,
//! `length`, `unique`). [`Grammar::load`] compiles it once, from the root, into
//! a tree of [`Rule`]s shared by alias; [`Grammar::validate`] checks a document
//! against it, collects every problem (kind, instance path, rule, span) and
//! rewrites short forms into their canonical shape in place. The engine knows
//! nothing about what the grammar describes: rule names are handed to
//! [`Hooks`] so that a layer above can attach its own checks.

mod compile;
mod kind;
mod path;
mod problem;
mod rule;
mod scalar;
mod validate;

pub use kind::KwalifyKind;
pub use path::{escape_segment, InstancePath};
pub use problem::Problem;
pub use rule::{Bound, Rule, RuleId, RuleType, Short};
pub use scalar::is_timestamp_text;
pub use validate::{Hooks, NoHooks};

use vetro_diag::{Diagnostic, SourceMap};
use vetro_yaml::{LoadOptions, Node};

/// A compiled grammar: rules in an arena, the root first reachable rule.
#[derive(Debug, Clone)]
pub struct Grammar {
    rules: Vec<Rule>,
    root: RuleId,
}

impl Grammar {
    /// Decode (strict UTF-8: a bad byte is an error with its position), parse
    /// (YAML 1.1, merge keys) and compile a grammar file.
    pub fn load(
        name: &str,
        bytes: &[u8],
        sources: &mut SourceMap,
    ) -> Result<Grammar, Vec<Diagnostic>> {
        let text = vetro_yaml::decode_strict_at(bytes).map_err(|msg| {
            vec![Diagnostic::error(
                vetro_diag::Kind::Encoding,
                format!("{name}:{msg}"),
            )]
        })?;
        let file = sources.add(name, text);
        let docs = vetro_yaml::load_str(sources, file, &LoadOptions::default())?;
        match docs.as_slice() {
            [root] => compile::compile(root),
            _ => Err(vec![Diagnostic::error(
                KwalifyKind::Grammar,
                format!("{name}: a grammar file holds exactly one YAML document"),
            )]),
        }
    }

    /// Compile a grammar from an already loaded root rule.
    pub fn from_node(root: &Node) -> Result<Grammar, Vec<Diagnostic>> {
        compile::compile(root)
    }

    pub fn root(&self) -> RuleId {
        self.root
    }

    pub fn rule(&self, id: RuleId) -> &Rule {
        &self.rules[id.0]
    }

    /// Number of compiled (reachable) rules.
    pub fn len(&self) -> usize {
        self.rules.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Validate `doc` against the root rule. Short forms that validate are
    /// replaced by their canonical value in `doc`.
    pub fn validate(&self, doc: &mut Node, hooks: &mut dyn Hooks) -> Vec<Problem> {
        let mut v = validate::Validator::new(self, hooks);
        v.check(self.root, doc);
        v.into_problems()
    }
}
