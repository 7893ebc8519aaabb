//! Contract expressions of the common shape `$.int().notNull()`,
//! `$.class(Name)`, `$.string()` ... run natively, without a YAQL
//! evaluation: every object load checks several of them per property, so
//! they dominate model loading. Anything else goes to YAQL.

use super::contracts::{bool_contract, int_contract, not_null_contract, string_contract};
use super::types::*;
use super::Rt;
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::Value;

/// Plans by contract text (`None`: the expression needs YAQL).
pub type PlanCache = std::collections::HashMap<Arc<str>, Option<Rc<Vec<Step>>>>;

/// One call of a contract chain.
#[derive(Debug, PartialEq)]
pub enum Step {
    Int,
    Str,
    Bool,
    NotNull,
    /// `class(Name)` with a plain class name.
    Class(String),
}

fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The steps of `$` followed by `.name()` / `.class(Name)` calls, or `None`
/// for any other expression.
pub fn parse(text: &str) -> Option<Vec<Step>> {
    let mut rest = text.trim().strip_prefix('$')?;
    let mut steps = Vec::new();
    while !rest.is_empty() {
        rest = rest.strip_prefix('.')?;
        let open = rest.find('(')?;
        let close = open + rest[open..].find(')')?;
        let (name, arg) = (&rest[..open], rest[open + 1..close].trim());
        steps.push(match (name, arg) {
            ("int", "") => Step::Int,
            ("string", "") => Step::Str,
            ("bool", "") => Step::Bool,
            ("notNull", "") => Step::NotNull,
            ("class", n) if is_name(n) => Step::Class(n.to_string()),
            _ => return None,
        });
        rest = &rest[close + 1..];
    }
    Some(steps)
}

impl Rt {
    /// Run a plan on `value` as the YAQL chain would.
    pub(super) fn run_plan(
        &self,
        plan: &[Step],
        mut value: Value,
        class: &Rc<Class>,
        owner: Option<&Rc<Object>>,
    ) -> Result<Value, Exc> {
        for step in plan {
            value = match step {
                Step::Int => int_contract(&value, &self.limits)?,
                Step::Str => string_contract(&value, &self.limits)?,
                Step::Bool => bool_contract(&value),
                Step::NotNull => not_null_contract(&value)?,
                Step::Class(_) if value.is_null() => Value::Null,
                Step::Class(name) => {
                    let want = self.program.type_arg(class, &Value::str(name))?;
                    let owner = match self.loading.external_call() {
                        true => None,
                        false => owner.cloned(),
                    };
                    self.class_contract(value, class, &want, &want, owner)?
                }
            };
        }
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_chains_have_plans() {
        assert_eq!(parse("$"), Some(vec![]));
        assert_eq!(
            parse(" $.int().notNull() "),
            Some(vec![Step::Int, Step::NotNull])
        );
        assert_eq!(
            parse("$.class(Member).notNull()"),
            Some(vec![Step::Class("Member".into()), Step::NotNull])
        );
    }

    #[test]
    fn anything_else_goes_to_yaql() {
        for text in [
            "$.int().check($ > 0)",
            "$.class(res:Instance)",
            "$.class(Member, Default)",
            "$.string() or null",
            "$.int(",
            "len($)",
            "$x.int()",
            "$.int()x",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
