//! Traversals of compiled method bodies: every statement list, and every
//! expression a statement evaluates in the method's context.

use crate::syntax::body::{Block, StmtKind};
use crate::syntax::data::{Data, Expr};

/// Call `f` on `block` and on every statement list nested in it.
pub(super) fn each_block<'a>(block: &'a Block, f: &mut dyn FnMut(&'a Block)) {
    f(block);
    for stmt in block {
        for child in child_blocks(&stmt.kind) {
            each_block(child, f);
        }
    }
}

fn child_blocks(kind: &StmtKind) -> Vec<&Block> {
    match kind {
        StmtKind::If {
            then, otherwise, ..
        } => std::iter::once(then).chain(otherwise).collect(),
        StmtKind::While { body, .. }
        | StmtKind::For { body, .. }
        | StmtKind::Repeat { body, .. }
        | StmtKind::Do(body) => vec![body],
        StmtKind::Match { cases, default, .. } | StmtKind::Switch { cases, default } => {
            cases.iter().map(|(_, b)| b).chain(default).collect()
        }
        StmtKind::Parallel { branches, .. } => branches.iter().collect(),
        StmtKind::Try {
            body,
            catches,
            otherwise,
            finally,
        } => std::iter::once(body)
            .chain(catches.iter().map(|c| &c.body))
            .chain(otherwise)
            .chain(finally)
            .collect(),
        StmtKind::Eval(_)
        | StmtKind::Assign { .. }
        | StmtKind::Return(_)
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Throw { .. }
        | StmtKind::Rethrow => Vec::new(),
    }
}

/// Call `f` on every expression the statements of `block` (nested ones
/// included) evaluate with `$` bound to the method's receiver. Assignment
/// targets and exception names are not evaluated that way and are skipped.
pub(super) fn each_body_expr<'a>(block: &'a Block, f: &mut dyn FnMut(&'a Expr)) {
    each_block(block, &mut |b| {
        for stmt in b {
            if let StmtKind::While { cond, .. } = &stmt.kind {
                f(cond);
            }
            for d in stmt_data(&stmt.kind) {
                each_expr(d, f);
            }
        }
    });
}

fn stmt_data(kind: &StmtKind) -> Vec<&Data> {
    match kind {
        StmtKind::Eval(d) | StmtKind::Return(d) => vec![d],
        StmtKind::Assign { value, .. } => vec![value],
        StmtKind::If { cond, .. } => vec![cond],
        StmtKind::While { .. } => Vec::new(),
        StmtKind::For { source, .. } => vec![source],
        StmtKind::Repeat { count, .. } => vec![count],
        StmtKind::Match { value, cases, .. } => std::iter::once(value)
            .chain(cases.iter().map(|(k, _)| k))
            .collect(),
        StmtKind::Switch { cases, .. } => cases.iter().map(|(k, _)| k).collect(),
        StmtKind::Parallel { limit, .. } => limit.iter().collect(),
        StmtKind::Throw {
            message,
            extra,
            cause,
            ..
        } => vec![message, extra, cause],
        StmtKind::Do(_)
        | StmtKind::Try { .. }
        | StmtKind::Break
        | StmtKind::Continue
        | StmtKind::Rethrow => Vec::new(),
    }
}

/// Call `f` on every expression inside template data (map keys included).
pub(super) fn each_expr<'a>(d: &'a Data, f: &mut dyn FnMut(&'a Expr)) {
    match d {
        Data::Expr(e) => f(e),
        Data::List(items, _) => items.iter().for_each(|i| each_expr(i, f)),
        Data::Map(entries, _) => entries.iter().for_each(|(k, v)| {
            each_expr(k, f);
            each_expr(v, f);
        }),
        _ => {}
    }
}
