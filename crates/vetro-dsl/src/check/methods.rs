//! `unknown-method`: calls on the receiver of a method body (`$this.name()`,
//! or `$.name()` where `$` is sure to be the receiver) of a name that neither
//! the class and its ancestors nor the engine define.

use super::classes::ClassIndex;
use super::functions::Functions;
use super::walk::each_body_expr;
use crate::kind::DslKind;
use crate::syntax::ClassDef;
use std::collections::HashSet;
use vetro_diag::Diagnostic;
use vetro_yaql::parser::{Arg, Expr, ExprKind};

/// Diagnostics for one class of a loaded package.
pub(super) fn unknown_methods(
    class: &ClassDef,
    index: &ClassIndex,
    funcs: &Functions,
) -> Vec<Diagnostic> {
    let Some(known) = index.callable_methods(&class.name) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for m in class.methods.values() {
        each_body_expr(&m.body, &mut |e| {
            let mut called = Vec::new();
            receiver_calls(&e.parsed.ast, true, &mut called);
            let mut reported = HashSet::new();
            for name in called {
                if known.contains(name) || funcs.is_engine_function(name) || !reported.insert(name)
                {
                    continue;
                }
                out.push(
                    Diagnostic::warning(
                        DslKind::UnknownMethod,
                        format!(
                            "method {name} is not defined by class {} or its parents \
                             and is not a YAQL function",
                            class.name
                        ),
                    )
                    .with_span(e.span)
                    .with_path(format!("Methods/{}", m.name)),
                );
            }
        });
    }
    out
}

/// Whether `e` is the receiver of the method body: `$this` always, `$` only
/// where no function can have rebound it (`top`).
fn is_receiver(e: &Expr, top: bool) -> bool {
    match &e.kind {
        ExprKind::Var(v) => &**v == "this" || (top && &**v == "1"),
        ExprKind::Wrap(inner) => is_receiver(inner, top),
        _ => false,
    }
}

/// Names of the methods called on the receiver in `e`. `top` is true while no
/// enclosing function could bind `$` to something else: the operands of
/// operators and the receivers of method chains keep it, function arguments
/// (lambdas such as `where($.x)`) and the right side of `.`/`->` lose it.
fn receiver_calls<'a>(e: &'a Expr, top: bool, out: &mut Vec<&'a str>) {
    match &e.kind {
        ExprKind::Const(_) | ExprKind::Keyword(_) | ExprKind::Var(_) => {}
        ExprKind::Wrap(inner) => receiver_calls(inner, top, out),
        ExprKind::Method {
            recv, name, args, ..
        } => {
            if is_receiver(recv, top) {
                out.push(name);
            }
            receiver_calls(recv, top, out);
            args_calls(args, false, out);
        }
        ExprKind::Dot { recv, rhs, .. } => {
            receiver_calls(recv, top, out);
            receiver_calls(rhs, false, out);
        }
        ExprKind::Call { name, args, .. } => {
            let keeps = name.starts_with('#') || name.starts_with('*');
            match &**name {
                // `coll[filter]`: the index may be a predicate over the items.
                "#indexer" | "#call" | "#operator_->" => {
                    if let Some((first, rest)) = args.split_first() {
                        args_calls(std::slice::from_ref(first), top, out);
                        args_calls(rest, false, out);
                    }
                }
                _ => args_calls(args, top && keeps, out),
            }
        }
    }
}

fn args_calls<'a>(args: &'a [Arg], top: bool, out: &mut Vec<&'a str>) {
    for a in args {
        match a {
            Arg::Pos(x) => receiver_calls(x, top, out),
            Arg::Named(k, v) => {
                receiver_calls(k, top, out);
                receiver_calls(v, top, out);
            }
            Arg::Omitted => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(src: &str) -> Vec<String> {
        let parsed = crate::syntax::data::parse_yaql(src).expect("parses");
        let mut out = Vec::new();
        receiver_calls(&parsed.ast, true, &mut out);
        out.into_iter().map(str::to_string).collect()
    }

    #[test]
    fn finds_calls_on_the_receiver_only() {
        assert_eq!(calls("$.foo(1)"), ["foo"]);
        assert_eq!(calls("$this.foo()"), ["foo"]);
        assert_eq!(calls("$.a().b()"), ["a"]);
        assert_eq!(calls("not $.ok() and $this.fine()"), ["ok", "fine"]);
        assert_eq!(calls("$.x.where($.y()).select($this.z())"), ["z"]);
        assert_eq!(calls("list($.a())"), Vec::<String>::new());
        assert_eq!(calls("$items[$.isGood()]"), Vec::<String>::new());
        assert_eq!(calls("$x.foo()"), Vec::<String>::new());
        assert_eq!(calls("$.prop.foo()"), Vec::<String>::new());
    }
}
