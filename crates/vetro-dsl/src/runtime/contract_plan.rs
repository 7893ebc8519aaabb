//! Contract expressions of the common shape `$.int().notNull()`,
//! `$.class(Name)`, `$.string()` ... run natively, without a YAQL
//! evaluation: every object load checks several of them per property, so
//! they dominate model loading. Anything else goes to YAQL.

use super::contracts::{bool_contract, int_contract, not_null_contract, string_contract};
use super::types::*;
use super::Rt;
use std::rc::Rc;
use std::sync::Arc;
use vetro_yaql::parser::{Arg, Expr as Ast, ExprKind};
use vetro_yaql::Value;

/// Plans by contract expression (the address of its syntax tree, which the
/// entry keeps alive; `None`: the expression needs YAQL).
pub(super) type PlanCache = ahash::AHashMap<usize, (Arc<Ast>, Option<Rc<Vec<Step>>>)>;

/// One call of a contract chain.
#[derive(Debug, PartialEq)]
pub(super) enum Step {
    Int,
    Str,
    Bool,
    NotNull,
    /// `class(Name)` with a plain class name.
    Class(String),
}

/// The steps of `$` followed by `.name()` / `.class(Name)` calls, or `None`
/// for any other expression.
pub(super) fn plan_of(e: &Ast) -> Option<Vec<Step>> {
    match &e.kind {
        ExprKind::Var(v) if &**v == "1" => Some(Vec::new()),
        ExprKind::Method {
            recv,
            name,
            args,
            safe: false,
            ..
        } => {
            let step = match (&**name, args.as_slice()) {
                ("int", []) => Step::Int,
                ("string", []) => Step::Str,
                ("bool", []) => Step::Bool,
                ("notNull", []) => Step::NotNull,
                ("class", [Arg::Pos(n)]) => match &n.kind {
                    ExprKind::Keyword(n) => Step::Class(n.to_string()),
                    _ => return None,
                },
                _ => return None,
            };
            let mut steps = plan_of(recv)?;
            steps.push(step);
            Some(steps)
        }
        _ => None,
    }
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

    fn parse(text: &str) -> Option<Vec<Step>> {
        let e = crate::syntax::data::parse_yaql(text).ok()?;
        plan_of(&e.ast)
    }

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
            "$.class('Member')",
            "$?.int()",
            "len($)",
            "$x.int()",
            "$.int()x",
        ] {
            assert_eq!(parse(text), None, "{text}");
        }
    }
}
