//! YAML nodes -> [`UiDefinition`], with a diagnostic at the position of
//! every problem.

use crate::field::{Attr, Check, Field, FieldKind, Form, Key, Regexp, Validator};
use crate::kind::FormsKind;
use crate::tpl::{Tpl, TplReader};
use crate::version::FormatVersion;
use crate::UiDefinition;
use indexmap::IndexMap;
use vetro_diag::{Diagnostic, FileId, SourceMap, Span};
use vetro_yaml::{LoadOptions, Node, NodeKind};

/// Sections a UI definition may have (others are kept in `other`).
const SECTIONS: &[&str] = &[
    "Version",
    "Templates",
    "Parameters",
    "ParametersSource",
    "Application",
    "Forms",
    "AppSettings",
];

/// Parse the UI definition in file `file` of `sources`. Problems that
/// leave no usable definition return `None`; the others come with it.
pub fn parse(sources: &SourceMap, file: FileId) -> (Option<UiDefinition>, Vec<Diagnostic>) {
    let docs = match vetro_yaml::load_str(sources, file, &LoadOptions::default()) {
        Ok(d) => d,
        Err(problems) => return (None, problems),
    };
    let Some(root) = docs.first() else {
        let d = Diagnostic::error(FormsKind::Structure, "the UI definition is empty")
            .with_span(sources.span(file, 0, 0));
        return (None, vec![d]);
    };
    let mut p = Parser {
        reader: TplReader::default(),
        problems: Vec::new(),
    };
    let ui = p.definition(root, file);
    let mut problems = p.problems;
    problems.extend(p.reader.problems);
    (ui, problems)
}

struct Parser {
    reader: TplReader,
    problems: Vec<Diagnostic>,
}

fn kind_name(n: &Node) -> &'static str {
    n.type_name()
}

impl Parser {
    fn error(&mut self, kind: FormsKind, msg: impl Into<String>, span: Span) {
        self.problems
            .push(Diagnostic::error(kind, msg.into()).with_span(span));
    }

    fn warn(&mut self, kind: FormsKind, msg: impl Into<String>, span: Span) {
        self.problems
            .push(Diagnostic::warning(kind, msg.into()).with_span(span));
    }

    fn definition(&mut self, root: &Node, file: FileId) -> Option<UiDefinition> {
        let Some(map) = root.as_map() else {
            self.error(
                FormsKind::Structure,
                format!(
                    "a UI definition is a mapping of sections, not a {}",
                    kind_name(root)
                ),
                root.span,
            );
            return None;
        };
        let mut ui = UiDefinition {
            file,
            version: FormatVersion::LATEST,
            version_span: None,
            forms: Vec::new(),
            templates: IndexMap::new(),
            parameters: IndexMap::new(),
            parameters_source: None,
            application: None,
            app_settings: None,
            span: root.span,
        };
        for (k, v) in map.iter() {
            let Some(key) = k.as_str() else {
                self.error(
                    FormsKind::Structure,
                    "a section name must be a string",
                    k.span,
                );
                continue;
            };
            match key {
                "Version" => self.version(&mut ui, v),
                "Templates" => ui.templates = self.named_values(v, "Templates"),
                "Parameters" => ui.parameters = self.named_values(v, "Parameters"),
                "ParametersSource" => match v.scalar_text() {
                    Some(s) if v.is_scalar() && !v.is_null() => ui.parameters_source = Some(s),
                    _ => self.error(
                        FormsKind::Structure,
                        "ParametersSource names a static method: Class.method or method",
                        v.span,
                    ),
                },
                "Application" => {
                    if v.as_map().is_none() {
                        self.error(
                            FormsKind::Structure,
                            format!(
                                "Application is the object model of the application: a mapping, not a {}",
                                kind_name(v)
                            ),
                            v.span,
                        );
                    }
                    ui.application = Some(self.reader.read(v));
                }
                "Forms" => ui.forms = self.forms(v),
                "AppSettings" => ui.app_settings = Some(self.reader.read(v)),
                other => self.warn(
                    FormsKind::UnknownSection,
                    format!(
                        "unknown section {other:?} (sections: {}); it is ignored",
                        SECTIONS.join(", ")
                    ),
                    k.span,
                ),
            }
        }
        if ui.application.is_none() && ui.version.major >= 2 {
            self.error(
                FormsKind::Structure,
                "the Application section (the object model to build) is missing",
                root.span,
            );
        }
        if map.get("Forms").is_none() {
            self.error(
                FormsKind::Structure,
                "the Forms section is missing",
                root.span,
            );
        }
        Some(ui)
    }

    fn version(&mut self, ui: &mut UiDefinition, v: &Node) {
        let text = match &v.kind {
            NodeKind::Int(i) => i.to_string(),
            NodeKind::Float(_) | NodeKind::Str(_) => v.scalar_text().unwrap_or_default(),
            _ => String::new(),
        };
        match FormatVersion::parse(&text) {
            Some(ver) => {
                if let Some(why) = ver.unsupported() {
                    self.error(FormsKind::Version, why, v.span);
                }
                ui.version = ver;
                ui.version_span = Some(v.span);
            }
            None => self.error(
                FormsKind::Version,
                format!("Version must be MAJOR.MINOR (such as 2.2), not {text:?}"),
                v.span,
            ),
        }
    }

    fn named_values(&mut self, v: &Node, section: &str) -> IndexMap<String, Tpl> {
        let mut out = IndexMap::new();
        if v.is_null() {
            return out;
        }
        let Some(map) = v.as_map() else {
            self.error(
                FormsKind::Structure,
                format!("{section} is a mapping of names to values"),
                v.span,
            );
            return out;
        };
        for (k, val) in map.iter() {
            match k.as_str() {
                Some(name) => {
                    out.insert(name.to_string(), self.reader.read(val));
                }
                None => self.error(
                    FormsKind::Structure,
                    format!("a name in {section} must be a string"),
                    k.span,
                ),
            }
        }
        out
    }

    fn forms(&mut self, v: &Node) -> Vec<Form> {
        let Some(items) = v.as_seq() else {
            self.error(
                FormsKind::Structure,
                "Forms is a list of forms, each `- NAME: {fields: [...]}`",
                v.span,
            );
            return Vec::new();
        };
        let mut forms: Vec<Form> = Vec::new();
        for item in items {
            let Some(form) = self.form(item) else {
                continue;
            };
            if let Some(first) = forms.iter().find(|f| f.name == form.name) {
                let d = Diagnostic::error(
                    FormsKind::Duplicate,
                    format!("a second form named {:?}", form.name),
                )
                .with_span(form.span)
                .with_related(first.span, "the first one");
                self.problems.push(d);
                continue;
            }
            forms.push(form);
        }
        forms
    }

    fn form(&mut self, item: &Node) -> Option<Form> {
        let entry = item.as_map().filter(|m| m.len() == 1);
        let Some((name_node, body)) = entry.and_then(|m| m.iter().next()) else {
            self.error(
                FormsKind::Structure,
                "each form is a mapping with one key, its name: `- NAME: {fields: [...]}`",
                item.span,
            );
            return None;
        };
        let Some(name) = name_node.scalar_text().filter(|_| name_node.is_scalar()) else {
            self.error(
                FormsKind::Structure,
                "a form name must be a string",
                name_node.span,
            );
            return None;
        };
        let mut form = Form {
            name,
            span: name_node.span,
            fields: Vec::new(),
            validators: Vec::new(),
            region: None,
        };
        let Some(body_map) = body.as_map() else {
            self.error(
                FormsKind::Structure,
                format!("form {:?} must be a mapping with `fields`", form.name),
                body.span,
            );
            return Some(form);
        };
        for (k, v) in body_map.iter() {
            match k.as_str() {
                Some("fields") => form.fields = self.fields(v, &form.name),
                Some("validators") => form.validators = self.validators(v),
                Some("region") => form.region = Some(self.reader.read(v)),
                _ => self.warn(
                    FormsKind::UnknownKey,
                    format!(
                        "unknown key {:?} in form {:?} (keys: fields, validators, region); it is ignored",
                        k.scalar_text().unwrap_or_default(),
                        form.name
                    ),
                    k.span,
                ),
            }
        }
        if body_map.get("fields").is_none() {
            self.error(
                FormsKind::Structure,
                format!("form {:?} has no `fields`", form.name),
                body.span,
            );
        }
        Some(form)
    }

    fn fields(&mut self, v: &Node, form: &str) -> Vec<Field> {
        let Some(items) = v.as_seq() else {
            self.error(
                FormsKind::Structure,
                format!("the fields of form {form:?} are a list"),
                v.span,
            );
            return Vec::new();
        };
        let mut fields: Vec<Field> = Vec::new();
        for item in items {
            let Some(field) = self.field(item, form) else {
                continue;
            };
            if let Some(first) = fields.iter().find(|f| f.name == field.name) {
                let d = Diagnostic::error(
                    FormsKind::Duplicate,
                    format!("a second field named {:?} in form {form:?}", field.name),
                )
                .with_span(field.span)
                .with_related(first.span, "the first one");
                self.problems.push(d);
                continue;
            }
            fields.push(field);
        }
        fields
    }

    fn field(&mut self, item: &Node, form: &str) -> Option<Field> {
        let Some(map) = item.as_map() else {
            self.error(
                FormsKind::Structure,
                format!(
                    "a field of form {form:?} is a mapping with `name` and `type`, not a {}",
                    kind_name(item)
                ),
                item.span,
            );
            return None;
        };
        let name = match map.get("name") {
            Some(n) if n.as_str().is_some() => n.as_str().unwrap_or_default().to_string(),
            Some(n) => {
                self.error(
                    FormsKind::Structure,
                    "a field's name must be a string",
                    n.span,
                );
                return None;
            }
            None => {
                self.error(
                    FormsKind::Structure,
                    format!("a field of form {form:?} has no `name`"),
                    item.span,
                );
                return None;
            }
        };
        let (kind, kind_span) = self.field_kind(map.get("type"), &name, item.span)?;
        let mut field = Field {
            name,
            kind,
            span: item.span,
            kind_span,
            attrs: IndexMap::new(),
            validators: Vec::new(),
        };
        for (k, v) in map.iter() {
            let Some(written) = k.as_str() else {
                self.error(
                    FormsKind::Structure,
                    "an attribute name must be a string",
                    k.span,
                );
                continue;
            };
            if written == "name" || written == "type" {
                continue;
            }
            let key = Key::from_name(written);
            match key {
                Key::RegexpValidator => {
                    if let Some(check) = self.regexp(v) {
                        field.validators.insert(
                            0,
                            Validator {
                                check,
                                message: None,
                                span: v.span,
                            },
                        );
                    }
                }
                Key::Validators => field.validators.extend(self.validators(v)),
                Key::Other(_) => self.warn(
                    FormsKind::UnknownAttribute,
                    format!(
                        "unknown attribute {written:?} of field {:?}; it is ignored",
                        field.name
                    ),
                    k.span,
                ),
                key => {
                    let value = self.reader.read(v);
                    self.check_attr_type(&key, &value, written, v.span);
                    field.attrs.insert(
                        key,
                        Attr {
                            written: written.to_string(),
                            value,
                            span: v.span,
                        },
                    );
                }
            }
        }
        Some(field)
    }

    fn field_kind(
        &mut self,
        node: Option<&Node>,
        field: &str,
        at: Span,
    ) -> Option<(FieldKind, Span)> {
        let Some(node) = node else {
            self.error(
                FormsKind::Structure,
                format!("field {field:?} has no `type`"),
                at,
            );
            return None;
        };
        if let Some(items) = node.as_seq() {
            let names: Option<Vec<String>> = items
                .iter()
                .map(|n| n.as_str().filter(|s| s.contains('.')).map(str::to_string))
                .collect();
            return match names {
                Some(names) if !names.is_empty() => Some((FieldKind::App(names), node.span)),
                _ => {
                    self.error(
                        FormsKind::FieldType,
                        format!("field {field:?}: a list of types names application classes (with dots)"),
                        node.span,
                    );
                    None
                }
            };
        }
        let name = node.as_str().unwrap_or_default();
        match FieldKind::from_name(name) {
            Some(k) => Some((k, node.span)),
            None => {
                self.error(
                    FormsKind::FieldType,
                    format!(
                        "field {field:?} has the unknown type {:?} (types: {}, or an application class name)",
                        node.scalar_text().unwrap_or_default(),
                        FieldKind::NAMES.join(", ")
                    ),
                    node.span,
                );
                None
            }
        }
    }

    fn regexp(&mut self, v: &Node) -> Option<Check> {
        let Some(text) = v.as_str() else {
            self.error(
                FormsKind::Validator,
                "regexpValidator is a regular expression (a string)",
                v.span,
            );
            return None;
        };
        match Regexp::compile(text) {
            Ok(re) => Some(Check::Regexp(re)),
            Err(e) => {
                self.error(
                    FormsKind::Validator,
                    format!("regexpValidator {text:?} is not a valid regular expression: {e}"),
                    v.span,
                );
                None
            }
        }
    }

    fn validators(&mut self, v: &Node) -> Vec<Validator> {
        let Some(items) = v.as_seq() else {
            self.error(
                FormsKind::Validator,
                "validators is a list of `{expr: ..., message: ...}`",
                v.span,
            );
            return Vec::new();
        };
        let mut out = Vec::new();
        for item in items {
            let Some(expr) = item.get("expr") else {
                self.error(
                    FormsKind::Validator,
                    "a validator needs `expr`: a YAQL expression or {regexpValidator: ...}",
                    item.span,
                );
                continue;
            };
            let check = if let Some(re) = expr.get("regexpValidator") {
                self.regexp(re)
            } else {
                match self.reader.read(expr) {
                    Tpl::Expr(y) => Some(Check::Yaql(y)),
                    other => {
                        // A constant: true always passes, anything else fails.
                        let text = match other {
                            Tpl::Bool(true) => "true",
                            _ => "false",
                        };
                        self.warn(
                            FormsKind::Validator,
                            "this validator's expr is a constant, not a YAQL expression",
                            expr.span,
                        );
                        Some(Check::Yaql(crate::tpl::Yaql {
                            text: text.into(),
                            span: expr.span,
                        }))
                    }
                }
            };
            let message = item.get("message").map(|m| self.reader.read(m));
            if let Some(check) = check {
                out.push(Validator {
                    check,
                    message,
                    span: item.span,
                });
            }
        }
        out
    }

    /// Constant attribute values of the wrong type.
    fn check_attr_type(&mut self, key: &Key, value: &Tpl, written: &str, span: Span) {
        if matches!(value, Tpl::Expr(_)) {
            return;
        }
        let expected = match key {
            Key::Hidden
            | Key::Required
            | Key::ConfirmInput
            | Key::IncludeVolumes
            | Key::IncludeSnapshots
            | Key::IncludeSubnets
            | Key::AllowAuto => matches!(value, Tpl::Bool(_))
                .then_some(())
                .ok_or("a boolean"),
            Key::MinLength | Key::MaxLength => matches!(value, Tpl::Int(i) if *i >= 0)
                .then_some(())
                .ok_or("a whole number, 0 or more"),
            Key::MinValue | Key::MaxValue => matches!(value, Tpl::Int(_))
                .then_some(())
                .ok_or("a whole number"),
            Key::Choices => matches!(value, Tpl::List(_) | Tpl::Map(_))
                .then_some(())
                .ok_or("a list of [key, label] pairs or a mapping of keys to labels"),
            Key::ErrorMessages | Key::Requirements => matches!(value, Tpl::Map(_))
                .then_some(())
                .ok_or("a mapping"),
            Key::MuranoNetworks => match value {
                Tpl::Null => Ok(()),
                Tpl::Str(s) if s == "exclude" || s == "translate" => Ok(()),
                _ => Err("null, exclude or translate"),
            },
            _ => Ok(()),
        };
        if let Err(what) = expected {
            self.error(
                FormsKind::Attribute,
                format!("attribute {written:?} must be {what}"),
                span,
            );
        }
    }
}
