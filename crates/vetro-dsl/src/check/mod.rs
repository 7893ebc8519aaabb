//! `check`: static checks of packages (manifest, YAML, expressions, method
//! bodies, class resolution), with the expression listing of `--expressions`.
//! The package loader reports the per-file problems; this module adds the
//! checks that need every loaded class (and the engine's function tables).

mod classes;
mod contracts;
mod functions;
mod methods;
mod unreachable;
mod walk;

pub use classes::ClassIndex;
pub use functions::Functions;

use crate::package::{FileReport, Package};
use crate::syntax::data::PathSeg;
use classes::CORE_PREFIX;
use serde_json::{json, Value};
use std::collections::HashSet;
use vetro_diag::{Diagnostic, SourceMap};

/// The analyses of class contents: calls of unknown methods on the receiver,
/// unreachable statements, and contracts (syntax, functions, named classes).
pub fn analysis_problems(packages: &[Package]) -> Vec<Diagnostic> {
    let index = ClassIndex::new(packages);
    let funcs = Functions::new();
    let mut out = Vec::new();
    for p in packages {
        for c in p.classes.values() {
            out.extend(contracts::contract_problems(c, &index, &funcs));
            out.extend(methods::unknown_methods(c, &index, &funcs));
            out.extend(unreachable::unreachable_code(c));
        }
    }
    out
}

/// Cross-package checks: unknown parent classes, classes that extend
/// themselves (directly or through others).
pub fn resolution_problems(packages: &[Package]) -> Vec<Diagnostic> {
    let mut out = unknown_parents(packages);
    let index = ClassIndex::new(packages);
    for p in packages {
        for c in p.classes.values() {
            if let Some(cycle) = index.extends_cycle(&c.name) {
                out.push(
                    Diagnostic::error(
                        "cyclic-extends",
                        format!("class {} extends itself: {}", c.name, cycle.join(" -> ")),
                    )
                    .with_span(c.span),
                );
            }
        }
    }
    out
}

fn unknown_parents(packages: &[Package]) -> Vec<Diagnostic> {
    let known: HashSet<&str> = packages
        .iter()
        .flat_map(|p| p.classes.keys().map(String::as_str))
        .collect();
    let mut out = Vec::new();
    for p in packages {
        for c in p.classes.values() {
            for parent in &c.extends {
                if !known.contains(parent.as_str()) && !parent.starts_with(CORE_PREFIX) {
                    out.push(
                        Diagnostic::warning(
                            "unknown-class",
                            format!(
                                "class {} extends {parent}, which no loaded package defines",
                                c.name
                            ),
                        )
                        .with_span(c.span),
                    );
                }
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
