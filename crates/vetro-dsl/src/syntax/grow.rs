//! Assignments that grow a local variable: `$l: $l + [$x]`, `$d: $d + {k => v}`
//! and `$l: $l.append($x, ...)`. They are recognized once, when the body
//! loads, so that the executor can extend the variable's own list or dict in
//! place when nothing else shares it, instead of copying it at every step: a
//! loop growing a list to n items is then linear in n, not quadratic.

use super::data::Expr;
use std::sync::Arc;
use vetro_yaql::parser::{Arg, Expr as Ast, ExprKind};

/// How the variable grows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GrowKind {
    /// `$v + operand` (lists, dicts; anything else through `general`).
    Concat,
    /// `$v.append(operands...)`.
    Append,
}

/// A recognized growing assignment.
#[derive(Clone, Debug)]
pub(crate) struct Growth {
    /// The variable (without `$`), both the target and the left operand.
    pub(crate) var: Arc<str>,
    pub(crate) kind: GrowKind,
    /// The other operands, evaluated (once, in order) before the variable is
    /// read.
    pub(crate) operands: Vec<Expr>,
    /// The whole operation with each operand replaced by the variable
    /// `#operand<i>`: what runs when the values are not a list or dict the
    /// executor extends itself (an object's `append` method, a string...).
    pub(crate) general: Expr,
}

/// Name of the variable that holds operand `i` for [`Growth::general`] (no
/// YAQL text can name it).
pub(crate) fn operand_var(i: usize) -> String {
    format!("#operand{i}")
}

/// The growth an assignment of `value` to `target` is, if it is one.
pub(crate) fn growth(target: &Expr, value: &Expr) -> Option<Growth> {
    let var = plain_var(&target.parsed.ast)?;
    let ast = &value.parsed.ast;
    let (kind, args) = match &ast.kind {
        ExprKind::Call { name, args, .. } if &**name == "#operator_+" && args.len() == 2 => {
            match &args[0] {
                Arg::Pos(left) if plain_var(left) == Some(var.clone()) => {}
                _ => return None,
            }
            (GrowKind::Concat, &args[1..])
        }
        ExprKind::Method {
            recv,
            name,
            args,
            safe: false,
            ..
        } if &**name == "append" && plain_var(recv) == Some(var.clone()) && !args.is_empty() => {
            (GrowKind::Append, &args[..])
        }
        _ => return None,
    };
    let mut operands = Vec::with_capacity(args.len());
    let mut replaced = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let Arg::Pos(node) = a else { return None };
        operands.push(Expr {
            text: value.text.clone(),
            span: value.span,
            parsed: vetro_yaql::Expression::from_tree(value.parsed.source.clone(), node.clone()),
            compiled: Default::default(),
        });
        let hole = Ast::new(ExprKind::Var(operand_var(i).into()), node.span);
        replaced.push(Arg::Pos(Arc::new(hole)));
    }
    let general_kind = match &ast.kind {
        ExprKind::Call { name, args, at } => ExprKind::Call {
            name: name.clone(),
            args: std::iter::once(args[0].clone()).chain(replaced).collect(),
            at: *at,
        },
        ExprKind::Method { recv, name, at, .. } => ExprKind::Method {
            recv: recv.clone(),
            name: name.clone(),
            args: replaced,
            safe: false,
            at: *at,
        },
        _ => return None,
    };
    Some(Growth {
        var,
        kind,
        operands,
        general: Expr {
            text: value.text.clone(),
            span: value.span,
            parsed: vetro_yaql::Expression::from_tree(
                value.parsed.source.clone(),
                Arc::new(Ast::new(general_kind, ast.span)),
            ),
            compiled: Default::default(),
        },
    })
}

/// `$name` for a variable an assignment may replace (not `$`/`$this`).
fn plain_var(e: &Ast) -> Option<Arc<str>> {
    match &e.kind {
        ExprKind::Var(v) if &**v != "1" && &**v != "this" => Some(v.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grows(target: &str, value: &str) -> Option<Growth> {
        let t = Expr::parse(target, Default::default()).expect("target parses");
        let v = Expr::parse(value, Default::default()).expect("value parses");
        growth(&t, &v)
    }

    #[test]
    fn recognizes_growing_assignments() {
        let g = grows("$l", "$l + [$x]").expect("a concatenation");
        assert_eq!(
            (&*g.var, g.kind, g.operands.len()),
            ("l", GrowKind::Concat, 1)
        );
        let g = grows("$l", "$l.append($x, 2)").expect("an append");
        assert_eq!((g.kind, g.operands.len()), (GrowKind::Append, 2));
        assert!(
            matches!(&g.general.parsed.ast.kind, ExprKind::Method { args, .. } if args.len() == 2)
        );
    }

    #[test]
    fn leaves_other_assignments_alone() {
        for (t, v) in [
            ("$l", "[$x] + $l"),
            ("$l", "$m + [$x]"),
            ("$.l", "$.l + [$x]"),
            ("$", "$ + [1]"),
            ("$l", "$l?.append($x)"),
            ("$l", "$l.append()"),
            ("$l", "$l.append(x => 1)"),
            ("$l", "$l - [$x]"),
        ] {
            assert!(grows(t, v).is_none(), "{t}: {v}");
        }
    }
}
