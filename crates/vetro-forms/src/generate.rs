//! A UI definition for a package without one, made from its application
//! class's input properties, in the way Murano made one for Heat template
//! packages from the template's parameters: one form, a field per
//! property (`string()` -> string, `int()` -> integer, `bool()` -> boolean,
//! `class(X)` -> an application of class X; `notNull()` -> required; the
//! default -> initial), and an Application section mapping the fields back
//! onto the properties.

use serde_json::Value as Json;
use vetro_dsl::syntax::class::{ClassDef, PropUsage};
use vetro_dsl::syntax::data::Data;

/// The name of the generated form.
pub const FORM: &str = "appConfiguration";

/// A field made from a property contract.
#[derive(Clone, Debug, PartialEq)]
struct Generated {
    name: String,
    kind: String,
    required: bool,
    initial: Option<Json>,
}

fn constant(d: &Data) -> Option<Json> {
    Some(match d {
        Data::Null => Json::Null,
        Data::Bool(b) => Json::Bool(*b),
        Data::Int(i) => Json::from(*i),
        Data::Float(f) => serde_json::Number::from_f64(*f).map_or(Json::Null, Json::Number),
        Data::Str(s) => Json::String(s.to_string()),
        _ => return None,
    })
}

/// The field for one property, or `None` when its contract is not one a
/// single field can answer (lists, mappings, templates).
fn field(
    class: &ClassDef,
    name: &str,
    contract: &Data,
    default: Option<&Data>,
) -> Option<Generated> {
    let text = contract.as_expr()?.text.to_string();
    let kind = if let Some(rest) = text.split(".class(").nth(1) {
        let arg = rest.split([')', ',']).next()?.trim();
        class.namespaces.resolve(arg).ok()?
    } else if text.contains(".int()") {
        "integer".into()
    } else if text.contains(".bool()") {
        "boolean".into()
    } else if name.to_lowercase().contains("password") {
        "password".into()
    } else {
        "string".into()
    };
    let initial = default.and_then(constant).filter(|v| !v.is_null());
    Some(Generated {
        name: name.to_string(),
        kind,
        required: text.contains(".notNull()") && initial.is_none(),
        initial,
    })
}

/// The UI definition (YAML text) for `class`, from its input properties
/// (`In`, `InOut`) and those of the `parents` given (nearest first).
pub fn ui_for_class(class: &ClassDef, parents: &[&ClassDef]) -> String {
    let mut fields: Vec<Generated> = Vec::new();
    for c in std::iter::once(class).chain(parents.iter().copied()) {
        for (name, p) in &c.properties {
            if !matches!(p.usage, PropUsage::In | PropUsage::InOut)
                || fields.iter().any(|f| &f.name == name)
            {
                continue;
            }
            if let Some(f) = field(c, name, &p.contract, p.default.as_ref()) {
                fields.push(f);
            }
        }
    }
    let q = |s: &str| Json::String(s.to_string()).to_string();
    let mut out = String::from("Version: 2.2\n\nApplication:\n  ?:\n");
    out.push_str(&format!("    type: {}\n", q(&class.name)));
    for f in &fields {
        out.push_str(&format!("  {}: $.{FORM}.{}\n", q(&f.name), f.name));
    }
    out.push_str(&format!("\nForms:\n  - {FORM}:\n      fields:\n"));
    if fields.is_empty() {
        out.push_str("        []\n");
    }
    for f in &fields {
        out.push_str(&format!("        - name: {}\n", q(&f.name)));
        out.push_str(&format!("          type: {}\n", q(&f.kind)));
        out.push_str(&format!("          required: {}\n", f.required));
        if let Some(v) = &f.initial {
            out.push_str(&format!("          initial: {v}\n"));
        }
        if f.kind == "password" {
            out.push_str("          confirmInput: false\n");
        }
    }
    out
}
