//! `check`: static checks of packages (manifest, YAML, expressions, method
//! bodies, class resolution), with the expression listing of `--expressions`.
//! The package loader reports the per-file problems; this module adds the
//! checks that need every loaded class (and the engine's function tables).

mod calls;
mod classes;
mod contracts;
mod functions;
mod methods;
mod unreachable;
mod walk;

use classes::{ClassIndex, Scope};
use functions::Functions;

use crate::kind::DslKind;
use crate::package::{FileReport, Package};
use crate::syntax::data::PathSeg;
use classes::Viewer;
use serde_json::{json, Value};
use vetro_diag::{Diagnostic, SourceMap};

/// The analyses of class contents: calls of unknown methods on the receiver,
/// calls of functions nothing defines, unreachable statements, and contracts (syntax, functions, named classes),
/// for packages checked on their own (`Scope::Open`).
pub fn analysis_problems(packages: &[Package]) -> Vec<Diagnostic> {
    analyse(packages, packages.len(), Scope::Open)
}

/// Cross-package checks of packages checked on their own: unknown parent
/// classes (warnings), classes that extend themselves.
pub fn resolution_problems(packages: &[Package]) -> Vec<Diagnostic> {
    resolve(packages, packages.len(), Scope::Open)
}

/// Every check of the first `given` of `all`, the rest being their
/// dependencies (`Scope::Closed`): a class that no package defines, or
/// that only a package not required defines, is an error, as loading it
/// would fail. Dependencies are not analysed, but one that does not load
/// cleanly is reported.
pub fn closed_problems(all: &[Package], given: usize) -> Vec<Diagnostic> {
    let mut out = resolve(all, given, Scope::Closed);
    out.extend(analyse(all, given, Scope::Closed));
    for dep in &all[given.min(all.len())..] {
        let errors = dep.problems.iter().filter(|d| d.is_error()).count();
        if errors > 0 {
            out.push(Diagnostic::error(
                DslKind::Dependency,
                format!(
                    "dependency {} {} ({}) does not load: {errors} error(s); `vetro check {}` shows them",
                    dep.name,
                    dep.version,
                    dep.root.display(),
                    dep.root.display()
                ),
            ));
        }
    }
    out
}

fn analyse(all: &[Package], checked: usize, scope: Scope) -> Vec<Diagnostic> {
    let index = ClassIndex::new(all);
    let funcs = Functions::new();
    let mut out = Vec::new();
    for p in &all[..checked.min(all.len())] {
        let viewer = Viewer::of(p);
        for c in p.classes.values() {
            out.extend(contracts::contract_problems(
                c, &index, &funcs, &viewer, scope,
            ));
            out.extend(methods::unknown_methods(c, &index, &funcs));
            out.extend(calls::undefined_functions(c, &index, &funcs));
            out.extend(unreachable::unreachable_code(c));
        }
    }
    out
}

fn resolve(all: &[Package], checked: usize, scope: Scope) -> Vec<Diagnostic> {
    let index = ClassIndex::new(all);
    let mut out = Vec::new();
    for p in &all[..checked.min(all.len())] {
        let viewer = Viewer::of(p);
        for c in p.classes.values() {
            for parent in &c.extends {
                let subject = format!("class {} extends", c.name);
                if let Some(d) = index.reference_problem(&viewer, scope, parent, &subject) {
                    out.push(d.with_span(c.span));
                }
            }
            if let Some(cycle) = index.extends_cycle(&c.name) {
                out.push(
                    Diagnostic::error(
                        DslKind::CyclicExtends,
                        format!("class {} extends itself: {}", c.name, cycle.join(" -> ")),
                    )
                    .with_span(c.span),
                );
            }
        }
    }
    out
}

fn path_json(path: &[PathSeg]) -> Value {
    Value::Array(
        path.iter()
            .map(|s| match s {
                PathSeg::Key(k) => json!(k),
                PathSeg::Index(i) => json!(i),
                PathSeg::KeyMark => json!("<key>"),
            })
            .collect(),
    )
}

/// The JSON record of one file.
pub fn file_json(f: &FileReport, with_expressions: bool) -> Value {
    let mut v = json!({
        "file": f.file,
        "documents": f.documents,
        "class_names": f.class_names,
        "methods": f.methods.iter().map(|(m, ok, e)| {
            let mut r = json!({"method": m, "ok": ok});
            if let Some(e) = e { r["error"] = json!(e); }
            r
        }).collect::<Vec<_>>(),
    });
    if with_expressions {
        v["expressions"] = f
            .expressions
            .iter()
            .map(|x| {
                json!({"line": x.expr.span.line, "column": x.expr.span.col,
                       "expr": &*x.expr.text, "path": path_json(&x.path)})
            })
            .collect();
    }
    v
}

/// Diagnostic as JSON with file/line.
pub fn problem_json(sources: &SourceMap, d: &Diagnostic) -> Value {
    let mut v = json!({"kind": d.kind, "severity": d.severity.to_string(), "message": d.message});
    if let Some(s) = d.span {
        v["file"] = json!(sources.name(s.file));
        v["line"] = json!(s.line);
        v["column"] = json!(s.col);
    }
    if let Some(p) = &d.path {
        v["path"] = json!(p);
    }
    v
}
