//! `undefined-function`: calls in function form (`name(...)`) in a method
//! body of a name that nothing can answer: not the YAQL standard library
//! (legacy layer included), not an engine or test-framework function, not a
//! function the expression defines with `def()`, and not a method name of
//! any class the check sees (method dispatch is dynamic, so a name some
//! class defines is given the benefit of the doubt). Such a call fails
//! with `NoFunctionRegisteredException` when it is reached. Calls in
//! method form (`$x.name()`) are left to `unknown-method`, which knows the
//! receiver only when it is the object itself.

use super::classes::ClassIndex;
use super::functions::Functions;
use super::walk::each_body_expr;
use crate::kind::DslKind;
use crate::syntax::data::Expr as Scalar;
use crate::syntax::ClassDef;
use std::collections::HashSet;
use vetro_diag::{Diagnostic, Span};
use vetro_yaql::parser::{Arg, Expr, ExprKind};

/// Diagnostics for one class of a loaded package.
pub(super) fn undefined_functions(
    class: &ClassDef,
    index: &ClassIndex,
    funcs: &Functions,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for m in class.methods.values() {
        each_body_expr(&m.body, &mut |e| {
            let mut calls = Calls::default();
            calls.walk(&e.parsed.ast);
            if calls.defines_unknown {
                return;
            }
            let mut reported = HashSet::new();
            for (name, at) in calls.called {
                if calls.defined.contains(name)
                    || funcs.is_engine_function(name)
                    || index.is_method_name(name)
                    || !reported.insert(name)
                {
                    continue;
                }
                out.push(
                    Diagnostic::warning(
                        DslKind::UndefinedFunction,
                        format!(
                            "function {name}() is not defined: it is not a YAQL or \
                             engine function, nor a method name of any class"
                        ),
                    )
                    .with_span(position(e, at, name.len()))
                    .with_path(format!("Methods/{}", m.name)),
                );
            }
        });
    }
    out
}

/// The file position of the byte `offset` of the expression's text when the
/// text is written in the file as is (a plain scalar on one line), else the
/// scalar's own position.
fn position(e: &Scalar, offset: usize, len: usize) -> Span {
    let s = e.span;
    let as_is = !e.text.contains('\n') && (s.end - s.start) as usize == e.text.len();
    match e.text.get(..offset) {
        Some(before) if as_is => Span {
            file: s.file,
            start: s.start + vetro_diag::offset(offset),
            end: s.start + vetro_diag::offset(offset + len),
            line: s.line,
            col: s.col + vetro_diag::offset(before.chars().count()),
        },
        _ => s,
    }
}

/// The function-form calls of one expression, with the names it defines.
#[derive(Default)]
struct Calls<'a> {
    /// (name, offset of the name in the text).
    called: Vec<(&'a str, usize)>,
    defined: HashSet<&'a str>,
    /// A `def()` whose name is computed: nothing can be said.
    defines_unknown: bool,
}

impl<'a> Calls<'a> {
    fn walk(&mut self, e: &'a Expr) {
        match &e.kind {
            ExprKind::Const(_) | ExprKind::Keyword(_) | ExprKind::Var(_) => {}
            ExprKind::Wrap(inner) => self.walk(inner),
            ExprKind::Call { name, args, .. } => {
                if &**name == "def" {
                    self.definition(args);
                }
                // Operators (`#operator_+`, `*xor`) and literals (`#list`)
                // are the parser's, not names written by the user.
                if !name.starts_with('#') && !name.starts_with('*') {
                    self.called.push((name, e.position()));
                }
                self.args(args);
            }
            ExprKind::Method { recv, args, .. } => {
                self.walk(recv);
                self.args(args);
            }
            ExprKind::Dot { recv, rhs, .. } => {
                self.walk(recv);
                self.walk(rhs);
            }
        }
    }

    fn args(&mut self, args: &'a [Arg]) {
        for a in args {
            match a {
                Arg::Pos(x) => self.walk(x),
                Arg::Named(k, v) => {
                    self.walk(k);
                    self.walk(v);
                }
                Arg::Omitted => {}
            }
        }
    }

    /// `def(name, body)`: the name is defined for the expression.
    fn definition(&mut self, args: &'a [Arg]) {
        let name = match args.first() {
            Some(Arg::Pos(x)) => match &x.kind {
                ExprKind::Keyword(k) => Some(&**k),
                ExprKind::Const(l) => l.as_str(),
                _ => None,
            },
            _ => None,
        };
        match name {
            Some(n) => {
                self.defined.insert(n);
            }
            None => self.defines_unknown = true,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn calls(src: &str) -> (Vec<String>, Vec<String>, bool) {
        let parsed = crate::syntax::data::parse_yaql(src).expect("parses");
        let mut c = Calls::default();
        c.walk(&parsed.ast);
        let mut defined: Vec<String> = c.defined.iter().map(|s| s.to_string()).collect();
        defined.sort();
        (
            c.called.iter().map(|(n, _)| n.to_string()).collect(),
            defined,
            c.defines_unknown,
        )
    }

    #[test]
    fn finds_function_form_calls_only() {
        let (called, _, _) = calls("foo($.bar(1), $x.baz()) + len(list(1, 2)[0])");
        assert_eq!(called, ["foo", "len", "list"]);
        let (called, _, _) = calls("$.where(check($))");
        assert_eq!(called, ["check"]);
    }

    #[test]
    fn notes_definitions() {
        let (called, defined, unknown) = calls("def(twice, $ * 2) -> twice(3)");
        assert_eq!(called, ["def", "twice"]);
        assert_eq!(defined, ["twice"]);
        assert!(!unknown);
        assert!(calls("def($name, 1) -> f()").2);
    }

    #[test]
    fn positions_are_inside_the_scalar_when_written_as_is() {
        let text = "$.x + fooBar(1)";
        let span = Span {
            file: vetro_diag::FileId(0),
            start: 100,
            end: 100 + text.len() as u32,
            line: 7,
            col: 13,
        };
        let mut e = Scalar::parse(text, span).expect("parses");
        let at = text.find("fooBar").unwrap();
        let p = position(&e, at, 6);
        assert_eq!((p.line, p.col, p.start, p.end), (7, 19, 106, 112));
        // Quoted or folded: the scalar's own position.
        e.span.end += 2;
        assert_eq!(position(&e, at, 6), e.span);
    }
}
