//! `contract-syntax` and `unknown-class` in contracts: the `Contract` of
//! properties and arguments and the `Returns` of methods must be expressions
//! the engine parses, calling only functions a contract can call, and the
//! classes named by `class()`/`template()` must exist.

use super::classes::{ClassIndex, Scope, Viewer};
use super::functions::Functions;
use super::walk::each_expr;
use crate::kind::DslKind;
use crate::syntax::data::{Data, Expr as Scalar};
use crate::syntax::{ClassDef, Namespaces};
use vetro_diag::{Diagnostic, Span};
use vetro_yaql::parser::{Arg, Expr, ExprKind};

/// Diagnostics for the contracts of one class.
pub(super) fn contract_problems(
    class: &ClassDef,
    index: &ClassIndex,
    funcs: &Functions,
    viewer: &Viewer,
    scope: Scope,
) -> Vec<Diagnostic> {
    // (contract, where it is, the closest span for literals, which have none)
    let mut contracts: Vec<(&Data, String, Span)> = Vec::new();
    for p in class.properties.values() {
        contracts.push((&p.contract, format!("Properties/{}", p.name), p.span));
    }
    for m in class.methods.values() {
        for a in &m.args {
            if let Some(c) = &a.contract {
                contracts.push((
                    c,
                    format!("Methods/{}/Arguments/{}", m.name, a.name),
                    m.span,
                ));
            }
        }
        if let Some(r) = &m.returns {
            contracts.push((r, format!("Methods/{}/Returns", m.name), m.span));
        }
    }
    let checker = Checker {
        ns: &class.namespaces,
        index,
        funcs,
        viewer,
        scope,
    };
    let mut out = Vec::new();
    for (data, path, at) in contracts {
        shape_problems(data, &path, &mut out);
        broken_expressions(data, &path, at, &mut out);
        each_expr(data, &mut |e| {
            out.extend(
                checker
                    .expression(e)
                    .into_iter()
                    .map(|d| d.with_span(e.span).with_path(path.clone())),
            )
        });
    }
    out
}

/// Shapes the contract engine rejects: a dictionary contract takes at most
/// one expression key (the rule for the keys not written literally).
fn shape_problems(d: &Data, path: &str, out: &mut Vec<Diagnostic>) {
    match d {
        Data::Map(entries, span) => {
            let exprs = entries
                .iter()
                .filter(|(k, _)| k.as_expr().is_some())
                .count();
            if exprs > 1 {
                out.push(
                    Diagnostic::error(
                        DslKind::ContractSyntax,
                        format!("dictionary contract has {exprs} expression keys; at most one is allowed"),
                    )
                    .with_span(*span)
                    .with_path(path.to_string()),
                );
            }
            for (_, v) in entries {
                shape_problems(v, path, out);
            }
        }
        Data::List(items, _) => items.iter().for_each(|i| shape_problems(i, path, out)),
        _ => {}
    }
}

/// A literal string contract starting with `$` is an expression the loader
/// could not classify: it would silently become an equality check.
fn broken_expressions(d: &Data, path: &str, at: Span, out: &mut Vec<Diagnostic>) {
    match d {
        Data::Str(s) if s.trim_start().starts_with('$') => {
            if let Err(why) = crate::syntax::data::parse_yaql(s) {
                out.push(
                    Diagnostic::error(
                        DslKind::ContractSyntax,
                        format!("contract {s} does not parse: {}", why.message),
                    )
                    .with_span(at)
                    .with_path(path.to_string()),
                );
            }
        }
        Data::List(items, s) => items
            .iter()
            .for_each(|i| broken_expressions(i, path, *s, out)),
        Data::Map(entries, s) => entries
            .iter()
            .for_each(|(_, v)| broken_expressions(v, path, *s, out)),
        _ => {}
    }
}

struct Checker<'a> {
    ns: &'a Namespaces,
    index: &'a ClassIndex,
    funcs: &'a Functions,
    viewer: &'a Viewer<'a>,
    scope: Scope,
}

impl Checker<'_> {
    fn expression(&self, e: &Scalar) -> Vec<Diagnostic> {
        let mut out = Vec::new();
        self.visit(&e.parsed.ast, &mut out);
        out
    }

    /// The contract functions are the calls chained on the value (`$.int()`,
    /// `$.string().notNull()`), also under operators. Calls elsewhere (in a
    /// `check()` predicate, on `$this`) may be methods of objects, so they are
    /// left alone.
    fn visit(&self, e: &Expr, out: &mut Vec<Diagnostic>) {
        match &e.kind {
            ExprKind::Wrap(inner) => self.visit(inner, out),
            ExprKind::Method {
                recv, name, args, ..
            } => {
                if on_value(recv) {
                    self.function(name, args, out);
                }
                self.visit(recv, out);
            }
            ExprKind::Call { name, args, .. } if name.starts_with('#') || name.starts_with('*') => {
                // Only the first operand of these keeps `$` (see methods.rs).
                let keep = match &**name {
                    "#indexer" | "#call" | "#operator_->" => 1,
                    _ => args.len(),
                };
                for a in &args[..keep.min(args.len())] {
                    if let Arg::Pos(x) = a {
                        self.visit(x, out);
                    }
                }
            }
            _ => {}
        }
    }

    /// A contract function `name` called on the value.
    fn function(&self, name: &str, args: &[Arg], out: &mut Vec<Diagnostic>) {
        if !self.funcs.is_contract_function(name) {
            out.push(Diagnostic::error(
                DslKind::ContractSyntax,
                format!("unknown contract function {name}()"),
            ));
        }
        if matches!(name, "class" | "template") {
            // The class and its optional default class.
            for a in args.iter().take(2) {
                if let Arg::Pos(x) = a {
                    self.class_arg(x, out);
                }
            }
        }
    }

    fn class_arg(&self, x: &Expr, out: &mut Vec<Diagnostic>) {
        let Some(written) = type_name(x) else {
            return;
        };
        match self.ns.resolve(&written) {
            Ok(full) => out.extend(self.index.reference_problem(
                self.viewer,
                self.scope,
                &full,
                "contract names class",
            )),
            Err(p) => out.push(self.scope.finding(
                DslKind::UnknownClass,
                format!(
                    "contract names class {written} with the unknown namespace prefix {}",
                    p.0
                ),
            )),
        }
    }
}

/// Whether `e` is the contract's value `$`, or a call chained on it.
fn on_value(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::Var(v) => &**v == "1",
        ExprKind::Wrap(inner) => on_value(inner),
        ExprKind::Method { recv, .. } => on_value(recv),
        _ => false,
    }
}

/// The type name written as `Name`, `'Name'`, `ns:Name`, `:Name` or `a.b.Name`.
fn type_name(x: &Expr) -> Option<String> {
    let pos = |a: &Arg| match a {
        Arg::Pos(e) => Some(e.clone()),
        _ => None,
    };
    match &x.kind {
        ExprKind::Keyword(k) => Some(k.to_string()),
        ExprKind::Const(v) => v.as_str().map(str::to_string),
        ExprKind::Wrap(inner) => type_name(inner),
        ExprKind::Dot { recv, rhs, .. } => {
            Some(format!("{}.{}", type_name(recv)?, type_name(rhs)?))
        }
        ExprKind::Call { name, args, .. } if &**name == "#operator_:" && args.len() == 2 => {
            let ns = pos(&args[0])?;
            let n = pos(&args[1])?;
            Some(format!("{}:{}", keyword(&ns)?, keyword(&n)?))
        }
        ExprKind::Call { name, args, .. } if &**name == "#unary_operator_:" && args.len() == 1 => {
            let n = pos(&args[0])?;
            Some(format!(":{}", keyword(&n)?))
        }
        _ => None,
    }
}

fn keyword(x: &Expr) -> Option<&str> {
    match &x.kind {
        ExprKind::Keyword(k) => Some(k),
        _ => None,
    }
}
