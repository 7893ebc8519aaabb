//! What the literals of a rule refer to: a table of some policy, a builtin,
//! or `true`.

use super::ast::Literal;
use super::builtins::{self, Builtin};
use super::policy::{PredKey, TableKey};

/// What a body literal refers to.
pub enum BodyRef {
    Pred(PredKey),
    Builtin(Builtin),
    True,
}

/// Resolves a body literal of a rule in `policy`.
pub fn resolve_body(policy: &str, lit: &Literal) -> BodyRef {
    if lit.modal.is_none() {
        if let Some(b) = builtins::lookup(lit.module.as_deref(), &lit.table, lit.args.len()) {
            return BodyRef::Builtin(b);
        }
        if lit.module.is_none() && lit.table == "true" && lit.args.is_empty() {
            return BodyRef::True;
        }
    }
    BodyRef::Pred(PredKey {
        policy: lit.module.clone().unwrap_or_else(|| policy.to_string()),
        key: TableKey {
            modal: lit.modal.clone(),
            module: None,
            table: lit.table.clone(),
        },
    })
}

/// The key a rule head of `policy` defines.
pub fn head_key(policy: &str, lit: &Literal) -> PredKey {
    PredKey {
        policy: policy.to_string(),
        key: TableKey {
            modal: lit.modal.clone(),
            module: lit.module.clone(),
            table: lit.table.clone(),
        },
    }
}
