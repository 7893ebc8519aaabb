//! Form fields as a person expects them, from the form engine's
//! [`FieldView`]s: text boxes, numbers with their bounds, check boxes,
//! selects (flavors, images, key pairs, zones, networks… from the cloud),
//! passwords asked twice, each with its label, help and the messages of the
//! last submission right at the field. The browser checks the cheap rules
//! (required, lengths, bounds, the password confirmation); the server
//! checks all of them again.

use maud::{html, Markup};
use serde_json::{Map, Value};
use vetro_forms::FieldView;

/// The suffix of a password's confirmation box (the form engine's name for it).
pub const CONFIRM_SUFFIX: &str = "-clone";

/// A value as the text of an input or an option.
pub fn as_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        other => other.to_string(),
    }
}

fn checked(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::String(s) => matches!(s.as_str(), "true" | "on" | "True" | "yes"),
        _ => false,
    }
}

fn id_of(f: &FieldView) -> String {
    format!("f-{}", f.name)
}

/// The label text, marked when the field is required.
fn label(f: &FieldView, id: &str) -> Markup {
    html! {
        label for=(id) {
            (f.label)
            @if f.required && f.kind != "boolean" { span.help { " (required)" } }
        }
    }
}

fn help(f: &FieldView, id: &str) -> Markup {
    let text: Vec<&str> = [f.description.as_deref(), f.help_text.as_deref()]
        .into_iter()
        .flatten()
        .filter(|t| !t.trim().is_empty())
        .collect();
    html! {
        @if !text.is_empty() {
            div.help id={(id) "-help"} { @for t in &text { p { (t) } } }
        }
    }
}

fn errors_box(id: &str, errors: &[String]) -> Markup {
    html! {
        p.field-error id={(id) "-error"} hidden[errors.is_empty()] aria-live="polite" {
            @for (i, e) in errors.iter().enumerate() { @if i > 0 { " " } (e) }
        }
    }
}

fn described_by(f: &FieldView, id: &str) -> String {
    let mut s = format!("{id}-error");
    if f.description.is_some() || f.help_text.is_some() {
        s.push_str(&format!(" {id}-help"));
    }
    s
}

fn select(f: &FieldView, id: &str, value: &Value, invalid: bool) -> Markup {
    let choices = f.choices.as_deref().unwrap_or_default();
    let none_selected = !choices.iter().any(|c| &c.value == value);
    html! {
        select id=(id) name=(f.name) required[f.required] aria-describedby=(described_by(f, id))
            aria-invalid=[invalid.then_some("true")] {
            @if !f.required || none_selected {
                option value="" selected[none_selected] { (if f.required { "Choose…" } else { "(none)" }) }
            }
            @for c in choices {
                option value=(choice_value(&c.value)) selected[&c.value == value] disabled[!c.enabled] { (c.label) }
            }
        }
    }
}

/// An option's value: plain text for strings, JSON for the rest (networks are pairs).
pub fn choice_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn input(f: &FieldView, id: &str, value: &Value, invalid: bool) -> Markup {
    let (kind, min, max) = match f.kind {
        "integer" => ("number", f.min_value, f.max_value),
        "password" => ("password", None, None),
        _ => ("text", None, None),
    };
    let shown = if kind == "password" {
        String::new()
    } else {
        as_text(value)
    };
    html! {
        input id=(id) type=(kind) name=(f.name) value=(shown)
            required[f.required] minlength=[f.min_length] maxlength=[f.max_length]
            min=[min] max=[max] step=[(kind == "number").then_some("1")]
            autocomplete=[(kind == "password").then_some("new-password")]
            aria-describedby=(described_by(f, id)) aria-invalid=[invalid.then_some("true")];
    }
}

/// One field with its label, help and errors.
pub fn field(f: &FieldView, value: &Value, errors: &[String]) -> Markup {
    let id = id_of(f);
    let invalid = !errors.is_empty();
    if f.hidden {
        return html! { input type="hidden" name=(f.name) value=(as_text(value)); };
    }
    html! {
        div.field {
            @if f.kind == "boolean" {
                label.inline for=(id) {
                    input id=(id) type="checkbox" name=(f.name) value="true" checked[checked(value)]
                        aria-describedby=(described_by(f, &id));
                    (f.label)
                }
            } @else {
                (label(f, &id))
            }
            (help(f, &id))
            @if f.kind == "text" {
                textarea id=(id) name=(f.name) rows="4" required[f.required]
                    minlength=[f.min_length] maxlength=[f.max_length]
                    aria-describedby=(described_by(f, &id)) aria-invalid=[invalid.then_some("true")] { (as_text(value)) }
            } @else if f.choices.is_some() && f.kind != "boolean" {
                (select(f, &id, value, invalid))
            } @else if f.kind != "boolean" {
                (input(f, &id, value, invalid))
            }
            (errors_box(&id, errors))
            @if f.kind == "password" && f.confirm_input {
                @let cid = format!("{id}{CONFIRM_SUFFIX}");
                label for=(cid) { "Confirm " (f.label) }
                input id=(cid) type="password" name={(f.name) (CONFIRM_SUFFIX)} required[f.required]
                    autocomplete="new-password" data-confirms=(id) aria-describedby={(cid) "-error"};
                p.field-error id={(cid) "-error"} hidden aria-live="polite" {}
            }
        }
    }
}

/// The submitted strings of a form's fields as the form engine takes them:
/// check boxes become booleans, select options their choice's value.
pub fn submitted(fields: &[FieldView], get: impl Fn(&str) -> Option<String>) -> Map<String, Value> {
    let mut out = Map::new();
    for f in fields {
        let raw = get(&f.name);
        let v = if f.kind == "boolean" {
            Value::Bool(
                raw.as_deref()
                    .is_some_and(|r| checked(&Value::String(r.to_string()))),
            )
        } else if let Some(choices) = &f.choices {
            match raw {
                Some(r) if !r.is_empty() => choices
                    .iter()
                    .find(|c| choice_value(&c.value) == r)
                    .map(|c| c.value.clone())
                    .unwrap_or(Value::String(r)),
                _ => Value::Null,
            }
        } else {
            match raw {
                Some(r) if !r.is_empty() => Value::String(r),
                _ => Value::Null,
            }
        };
        out.insert(f.name.clone(), v);
        if f.kind == "password" && f.confirm_input {
            let name = format!("{}{CONFIRM_SUFFIX}", f.name);
            if let Some(c) = get(&name) {
                out.insert(name, Value::String(c));
            }
        }
    }
    out
}
