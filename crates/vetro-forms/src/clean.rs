//! Cleaning a submitted value: converting it to the field's type, then the
//! required check, choices, lengths and bounds, regular expressions and
//! YAQL validators, as the dashboard's Django fields did.

use crate::eval::Evaluator;
use crate::field::{Check, Field, FieldKind};
use crate::view::FieldView;
use serde::Serialize;
use serde_json::{json, Value as Json};
use std::sync::OnceLock;

/// One problem with a submitted form.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FieldError {
    /// The field, or `None` for a form validator.
    pub field: Option<String>,
    /// The rule that failed: `required`, `type`, `choice`, `minLength`,
    /// `maxLength`, `minValue`, `maxValue`, `regexpValidator`,
    /// `validators[N]`, `password`, `confirmInput`, `clusterip`,
    /// `databaselist`, `unknown` (a value for no field), `evaluation`.
    pub rule: String,
    pub message: String,
}

impl FieldError {
    pub fn field(field: &str, rule: impl Into<String>, message: impl Into<String>) -> FieldError {
        FieldError {
            field: Some(field.to_string()),
            rule: rule.into(),
            message: message.into(),
        }
    }
}

fn json_type(v: &Json) -> &'static str {
    match v {
        Json::Null => "nothing",
        Json::Bool(_) => "a boolean",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "a mapping",
    }
}

fn is_empty(v: &Json) -> bool {
    match v {
        Json::Null => true,
        Json::String(s) => s.trim().is_empty(),
        Json::Array(a) => a.is_empty(),
        _ => false,
    }
}

/// The strength rule of passwords without validators of their own: a
/// digit, a lower-case and an upper-case letter, a special character.
fn strong_password(p: &str) -> bool {
    const SPECIAL: &str = "!@#$%^&*()_+|\\/.,~?><:{}-";
    p.chars().any(|c| c.is_ascii_digit())
        && p.chars().any(|c| c.is_lowercase())
        && p.chars().any(|c| c.is_uppercase())
        && p.chars().any(|c| SPECIAL.contains(c))
}

fn database_name_re() -> &'static fancy_regex::Regex {
    static RE: OnceLock<fancy_regex::Regex> = OnceLock::new();
    // `A-z` as the dashboard wrote it (it also admits [\]^_`).
    RE.get_or_init(|| fancy_regex::Regex::new(r"^[a-zA-z_][a-zA-Z0-9_$#@]*$").expect("valid regex"))
}

/// Converts `raw` to the field's type and checks it; `Err` holds every
/// problem found (at least one).
pub fn clean(
    field: &Field,
    view: &FieldView,
    raw: &Json,
    eval: &Evaluator<'_>,
) -> Result<Json, Vec<FieldError>> {
    let name = &field.name;
    let value = convert(field, view, raw).map_err(|e| vec![e])?;
    if view.required && is_empty(&value) {
        let msg = view
            .messages
            .required
            .clone()
            .unwrap_or_else(|| "This field is required.".into());
        return Err(vec![FieldError::field(name, "required", msg)]);
    }
    if is_empty(&value) && !field.kind.is_boolean() {
        // An empty optional field skips its validators (Django does).
        return Ok(empty_value(&field.kind));
    }
    let mut errors = Vec::new();
    bounds(view, &value, &mut errors);
    if field.kind == FieldKind::Password && field.validators.is_empty() {
        if let Json::String(s) = &value {
            if !strong_password(s) {
                let msg = view.messages.invalid.clone().unwrap_or_else(|| {
                    "The password must contain at least one letter, one number and one special character".into()
                });
                errors.push(FieldError::field(name, "password", msg));
            }
        }
    }
    if field.kind == FieldKind::DatabaseList {
        for db in value
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Json::as_str)
        {
            if !database_name_re().is_match(db).unwrap_or(false) {
                errors.push(FieldError::field(name, "databaselist", format!(
                    "{db:?}: the first symbol should be a latin letter or underscore, the others latin letters, digits, underscores, @, # or $"
                )));
            }
        }
    }
    validators(field, view, &value, eval, &mut errors);
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

fn empty_value(kind: &FieldKind) -> Json {
    match kind {
        FieldKind::String | FieldKind::Text | FieldKind::Password => json!(""),
        FieldKind::DatabaseList => json!([]),
        FieldKind::Network => json!([null, null]),
        FieldKind::KeyPair
        | FieldKind::SecurityGroup
        | FieldKind::Volume
        | FieldKind::Zone
        | FieldKind::AZone
        | FieldKind::Image
        | FieldKind::Choice => json!(""),
        _ => Json::Null,
    }
}

fn bounds(view: &FieldView, value: &Json, errors: &mut Vec<FieldError>) {
    let name = &view.name;
    if let Json::String(s) = value {
        let n = s.chars().count() as u64;
        if let Some(min) = view.min_length.filter(|m| n < *m) {
            errors.push(FieldError::field(
                name,
                "minLength",
                format!("Ensure this value has at least {min} characters (it has {n})."),
            ));
        }
        if let Some(max) = view.max_length.filter(|m| n > *m) {
            errors.push(FieldError::field(
                name,
                "maxLength",
                format!("Ensure this value has at most {max} characters (it has {n})."),
            ));
        }
    }
    if let Some(i) = value.as_i64().filter(|_| value.is_i64()) {
        if let Some(min) = view.min_value.filter(|m| i < *m) {
            errors.push(FieldError::field(
                name,
                "minValue",
                format!("Ensure this value is greater than or equal to {min}."),
            ));
        }
        if let Some(max) = view.max_value.filter(|m| i > *m) {
            errors.push(FieldError::field(
                name,
                "maxValue",
                format!("Ensure this value is less than or equal to {max}."),
            ));
        }
    }
}

fn validators(
    field: &Field,
    view: &FieldView,
    value: &Json,
    eval: &Evaluator<'_>,
    errors: &mut Vec<FieldError>,
) {
    let name = &field.name;
    let text = match value {
        Json::String(s) => s.clone(),
        Json::Array(items) => items
            .iter()
            .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    };
    for (i, v) in field.validators.iter().enumerate() {
        let rule = if i == 0 && v.message.is_none() && matches!(v.check, Check::Regexp(_)) {
            "regexpValidator".to_string()
        } else {
            format!("validators[{i}]")
        };
        let message = || match &v.message {
            Some(m) => eval
                .tpl(m, value)
                .ok()
                .and_then(|m| m.as_str().map(str::to_string))
                .unwrap_or_default(),
            None => view
                .messages
                .invalid
                .clone()
                .unwrap_or_else(|| "Enter a valid value.".into()),
        };
        match &v.check {
            Check::Regexp(re) => {
                if !re.found(&text) {
                    errors.push(FieldError::field(name, rule, message()));
                }
            }
            Check::Yaql(y) => match eval.truthy(y, value) {
                Ok(true) => {}
                Ok(false) => errors.push(FieldError::field(name, rule, message())),
                Err(e) => errors.push(FieldError::field(
                    name,
                    rule,
                    format!("the validator could not run: {e}"),
                )),
            },
        }
    }
}

/// The submitted value as the field's type.
fn convert(field: &Field, view: &FieldView, raw: &Json) -> Result<Json, FieldError> {
    let name = &field.name;
    let wrong = |what: &str| {
        FieldError::field(
            name,
            "type",
            format!("expected {what}, got {} ({raw})", json_type(raw)),
        )
    };
    match &field.kind {
        FieldKind::String | FieldKind::Text | FieldKind::Password => match raw {
            Json::Null => Ok(json!("")),
            Json::String(s) => Ok(json!(s.trim())),
            Json::Number(n) => Ok(json!(n.to_string())),
            _ => Err(wrong("text")),
        },
        FieldKind::Integer => integer(raw).ok_or_else(|| {
            let msg = view
                .messages
                .invalid
                .clone()
                .unwrap_or_else(|| "Enter a whole number.".into());
            FieldError::field(name, "type", format!("{msg} (got {raw})"))
        }),
        FieldKind::Boolean | FieldKind::FloatingIp => boolean(raw).ok_or_else(|| wrong("a boolean")),
        FieldKind::ClusterIp => match raw {
            Json::Null => Ok(json!("")),
            Json::String(s) if s.trim().is_empty() => Ok(json!("")),
            Json::String(s) => match s.trim().parse::<std::net::Ipv4Addr>() {
                Ok(ip) => Ok(json!(ip.to_string())),
                Err(_) => Err(FieldError::field(name, "clusterip", "Enter a valid IPv4 address.")),
            },
            _ => Err(wrong("an IPv4 address")),
        },
        FieldKind::DatabaseList => match raw {
            Json::Null => Ok(json!([])),
            Json::String(s) if s.trim().is_empty() => Ok(json!([])),
            Json::String(s) => Ok(json!(s.split(',').map(str::trim).collect::<Vec<_>>())),
            Json::Array(items) if items.iter().all(Json::is_string) => Ok(raw.clone()),
            _ => Err(wrong("a comma-separated list of names")),
        },
        FieldKind::Network => network(view, raw).ok_or_else(|| {
            FieldError::field(name, "choice", format!(
                "Select a valid choice: {raw} is not one of the networks offered (`[network, subnet]`, or [null, null] for the environment's)."
            ))
        }),
        kind if kind.is_select() => select(field, view, raw),
        _ => Ok(raw.clone()),
    }
}

fn integer(raw: &Json) -> Option<Json> {
    match raw {
        Json::Null => Some(Json::Null),
        Json::Number(n) if n.is_i64() => Some(raw.clone()),
        Json::Number(n) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| json!(f as i64)),
        Json::String(s) if s.trim().is_empty() => Some(Json::Null),
        Json::String(s) => {
            let t = s.trim();
            // Django drops a decimal point followed by zeros ("5.0").
            let t = match t.split_once('.') {
                Some((int, zeros)) if zeros.chars().all(|c| c == '0') => int,
                _ => t,
            };
            t.parse::<i64>().ok().map(|i| json!(i))
        }
        _ => None,
    }
}

fn boolean(raw: &Json) -> Option<Json> {
    match raw {
        Json::Null => Some(json!(false)),
        Json::Bool(b) => Some(json!(b)),
        Json::Number(n) => match n.as_i64() {
            Some(0) => Some(json!(false)),
            Some(1) => Some(json!(true)),
            _ => None,
        },
        Json::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "" | "false" | "0" | "off" | "no" => Some(json!(false)),
            "true" | "1" | "on" | "yes" => Some(json!(true)),
            _ => None,
        },
        _ => None,
    }
}

/// A network answer: `[net, subnet]`, or its JSON text (as a browser sends it).
fn network(view: &FieldView, raw: &Json) -> Option<Json> {
    let value = match raw {
        Json::String(s) if s.trim().is_empty() => json!([null, null]),
        Json::String(s) => serde_json::from_str::<Json>(s).ok()?,
        Json::Null => json!([null, null]),
        other => other.clone(),
    };
    let offered = view.choices.as_deref().unwrap_or_default();
    if offered.iter().any(|c| c.value == value) {
        return Some(value);
    }
    // No choice at all (no networks, no Auto): the field is empty.
    (offered.is_empty() && value == json!([null, null])).then_some(value)
}

/// A select field's answer: one of its choices (strings compared as
/// text, so `1` answers the choice `"1"`), normalized to the choice's value.
fn select(field: &Field, view: &FieldView, raw: &Json) -> Result<Json, FieldError> {
    let text = match raw {
        Json::Null => return Ok(json!("")),
        Json::String(s) => s.trim().to_string(),
        Json::Number(_) | Json::Bool(_) => raw.to_string(),
        _ => {
            return Err(FieldError::field(
                &field.name,
                "type",
                format!(
                    "expected one of the choices, got {} ({raw})",
                    json_type(raw)
                ),
            ))
        }
    };
    if text.is_empty() {
        return Ok(json!(""));
    }
    let as_text = |v: &Json| match v {
        Json::String(s) => s.clone(),
        other => other.to_string(),
    };
    let offered = view.choices.as_deref().unwrap_or_default();
    // By value, then by label or another name (an image's name, a flavor's id).
    let found = offered
        .iter()
        .find(|c| as_text(&c.value) == text)
        .or_else(|| {
            offered
                .iter()
                .find(|c| c.label == text || c.aliases.contains(&text))
        });
    match found {
        Some(c) if c.enabled => Ok(match &c.value {
            // An empty choice of an application field is no application.
            Json::String(s) if s.is_empty() => json!(""),
            v => v.clone(),
        }),
        _ => {
            let names: Vec<String> = offered
                .iter()
                .filter(|c| c.enabled && !as_text(&c.value).is_empty())
                .map(|c| as_text(&c.value))
                .collect();
            Err(FieldError::field(
                &field.name,
                "choice",
                format!(
                    "Select a valid choice: {text:?} is not one of the available choices ({})",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names.join(", ")
                    }
                ),
            ))
        }
    }
}
