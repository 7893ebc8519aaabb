//! Static checks of a parsed UI definition: what refers to forms, fields,
//! templates and parameters that do not exist.

use crate::field::{Check, Key};
use crate::kind::FormsKind;
use crate::tpl::{Tpl, Yaql};
use crate::version::FormatVersion;
use crate::wizard::{APP_NAME_FIELD, MANAGEMENT_FORM};
use crate::UiDefinition;
use vetro_diag::{Diagnostic, SourceMap, Span};
use vetro_yaql::parser::{parse, Arg, Expr, ExprKind, Literal, ParserOptions};

/// Problems of `ui` found without running it (parse problems come from
/// [`crate::parse`]).
pub fn check(ui: &UiDefinition, sources: &SourceMap) -> Vec<Diagnostic> {
    let mut c = Checker {
        ui,
        sources,
        problems: Vec::new(),
    };
    if let Some(app) = &ui.application {
        c.tree(app, true);
    }
    for t in ui.templates.values() {
        c.tree(t, true);
    }
    for t in ui.parameters.values() {
        c.tree(t, false);
    }
    for form in &ui.forms {
        for v in &form.validators {
            if let Check::Yaql(y) = &v.check {
                c.expr(y, true);
            }
        }
        for field in &form.fields {
            for (key, attr) in &field.attrs {
                // Texts that fail to evaluate are shown as written.
                let display = matches!(
                    key,
                    Key::Label | Key::Description | Key::DescriptionTitle | Key::HelpText
                );
                if !display {
                    c.tree(&attr.value, true);
                }
            }
        }
    }
    c.problems
}

struct Checker<'a> {
    ui: &'a UiDefinition,
    sources: &'a SourceMap,
    problems: Vec<Diagnostic>,
}

impl Checker<'_> {
    fn tree(&mut self, t: &Tpl, data_root: bool) {
        for y in t.expressions() {
            self.expr(y, data_root);
        }
    }

    /// `data_root`: `$` is the forms' data (not a field's value).
    fn expr(&mut self, y: &Yaql, data_root: bool) {
        let Ok(ast) = parse(&y.text, ParserOptions::default()) else {
            return; // reported by the parser
        };
        self.walk(&ast, y, data_root);
    }

    /// The position of `offset` (a byte of the expression text) in the
    /// file, when the text is written there as is; else the scalar's start.
    fn at(&self, y: &Yaql, offset: usize, len: usize) -> Span {
        let text = self.sources.text(y.span.file);
        let start = y.span.start as usize;
        if text.get(start..start + y.text.len()) == Some(y.text.as_str()) {
            return self
                .sources
                .span(y.span.file, start + offset, start + offset + len);
        }
        y.span
    }

    fn walk(&mut self, e: &Expr, y: &Yaql, data_root: bool) {
        match &e.kind {
            ExprKind::Dot { recv, rhs, .. } => {
                if data_root {
                    self.form_reference(recv, rhs, y);
                }
                self.walk(recv, y, data_root);
            }
            ExprKind::Var(name) => self.variable(name, e, y),
            ExprKind::Call { name, args, .. } => {
                if &**name == "ref" {
                    self.template_reference(args.first(), y);
                }
                self.args(args, y, data_root);
            }
            ExprKind::Method { recv, args, .. } => {
                self.walk(recv, y, data_root);
                self.args(args, y, data_root);
            }
            ExprKind::Wrap(inner) => self.walk(inner, y, data_root),
            _ => {}
        }
    }

    fn args(&mut self, args: &[Arg], y: &Yaql, data_root: bool) {
        for a in args {
            match a {
                Arg::Pos(e) => self.walk(e, y, data_root),
                Arg::Named(k, v) => {
                    self.walk(k, y, data_root);
                    self.walk(v, y, data_root);
                }
                Arg::Omitted => {}
            }
        }
    }

    fn forms(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.ui.forms.iter().map(|f| f.name.as_str()).collect();
        if self.ui.version >= FormatVersion::APP_NAME {
            names.push(MANAGEMENT_FORM);
        }
        names
    }

    /// `$.form` and `$.form.field`.
    fn form_reference(&mut self, recv: &Expr, rhs: &Expr, y: &Yaql) {
        let ExprKind::Keyword(key) = &rhs.kind else {
            return;
        };
        match &recv.kind {
            ExprKind::Var(v) if &**v == "1" && !self.forms().contains(&&**key) => {
                let msg = format!("no form named {key:?} (forms: {})", self.forms().join(", "));
                let span = self.at(y, rhs.span.start as usize, key.len());
                self.problems
                    .push(Diagnostic::error(FormsKind::Reference, msg).with_span(span));
            }
            ExprKind::Dot {
                recv: inner,
                rhs: form_key,
                ..
            } => {
                let (ExprKind::Var(v), ExprKind::Keyword(form)) = (&inner.kind, &form_key.kind)
                else {
                    return;
                };
                if &**v != "1" {
                    return;
                }
                let fields: Vec<&str> = if &**form == MANAGEMENT_FORM {
                    vec![APP_NAME_FIELD]
                } else if let Some(f) = self.ui.form(form) {
                    f.fields.iter().map(|f| f.name.as_str()).collect()
                } else {
                    return; // the form itself is reported
                };
                if !fields.contains(&&**key) {
                    let msg = format!(
                        "form {form:?} has no field {key:?} (fields: {})",
                        fields.join(", ")
                    );
                    let span = self.at(y, rhs.span.start as usize, key.len());
                    self.problems
                        .push(Diagnostic::error(FormsKind::Reference, msg).with_span(span));
                }
            }
            _ => {}
        }
    }

    /// `$name`: a template, a parameter, `$index` (in `repeat`) or `$forms`.
    fn variable(&mut self, name: &str, e: &Expr, y: &Yaql) {
        let known = name == "1"
            || name == "index"
            || name == "forms"
            || self.ui.templates.contains_key(name)
            || self.ui.parameters.contains_key(name)
            || name.chars().all(|c| c.is_ascii_digit());
        // Parameters may also come from ParametersSource, unknown here.
        if known || self.ui.parameters_source.is_some() {
            return;
        }
        let msg = format!(
            "${name} names no template or parameter (templates: {})",
            if self.ui.templates.is_empty() {
                "none".to_string()
            } else {
                self.ui
                    .templates
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", ")
            }
        );
        let span = self.at(y, e.span.start as usize, name.len() + 1);
        self.problems
            .push(Diagnostic::error(FormsKind::Reference, msg).with_span(span));
    }

    /// `ref('name')` / `ref(name)`.
    fn template_reference(&mut self, first: Option<&Arg>, y: &Yaql) {
        let Some(Arg::Pos(e)) = first else {
            return;
        };
        let name = match &e.kind {
            ExprKind::Keyword(k) => k.to_string(),
            ExprKind::Const(Literal::Str(s)) => s.to_string(),
            _ => return,
        };
        if !self.ui.templates.contains_key(&name) {
            let span = self.at(
                y,
                e.span.start as usize,
                (e.span.end - e.span.start) as usize,
            );
            self.problems.push(
                Diagnostic::error(
                    FormsKind::Reference,
                    format!("ref() names the template {name:?}, which the Templates section does not have"),
                )
                .with_span(span),
            );
        }
    }
}
