//! Driving a wizard from answers (`{FORM: {FIELD: value}}`, from a YAML or
//! JSON file): every step in order, unanswered fields taking their initial
//! value, as a person accepting every default would.

use crate::choices::ExistingApp;
use crate::clean::FieldError;
use crate::view::FieldView;
use crate::wizard::{FormErrors, SubmitOptions, Wizard};
use serde_json::{Map, Value as Json};

/// Makes the application an answer asks for in a field whose type is a
/// class (`{FORM: {FIELD: {new: ..., answers: ...}}}`), and returns it; the
/// field then takes its id.
pub type NewApp<'a> = dyn FnMut(&FieldView, &Json) -> Result<ExistingApp, String> + 'a;

fn error(form: &str, field: Option<&str>, rule: &str, message: String) -> FormErrors {
    FormErrors {
        form: form.to_string(),
        errors: vec![FieldError {
            field: field.map(str::to_string),
            rule: rule.to_string(),
            message,
        }],
    }
}

/// Submit every step of `w` from `answers`. Stops at the first step with
/// problems and returns all of that step's. `new_app` makes applications
/// answered as mappings in application fields.
pub fn fill(
    w: &mut Wizard<'_>,
    answers: &Json,
    new_app: &mut NewApp<'_>,
) -> Result<(), FormErrors> {
    let empty = Map::new();
    let answers = match answers {
        Json::Null => &empty,
        Json::Object(m) => m,
        other => {
            return Err(error(
                "",
                None,
                "answers",
                format!("answers are a mapping {{FORM: {{FIELD: value}}}}, not {other}"),
            ))
        }
    };
    let steps: Vec<String> = w.steps().iter().map(|s| s.to_string()).collect();
    if let Some(unknown) = answers.keys().find(|k| !steps.contains(k)) {
        return Err(error(
            unknown,
            None,
            "unknown",
            format!("there is no form {unknown:?} (forms: {})", steps.join(", ")),
        ));
    }
    for (step, form) in steps.iter().enumerate() {
        let given = match answers.get(form) {
            None | Some(Json::Null) => &empty,
            Some(Json::Object(m)) => m,
            Some(other) => {
                return Err(error(
                    form,
                    None,
                    "answers",
                    format!(
                        "the answers of form {form:?} are a mapping {{FIELD: value}}, not {other}"
                    ),
                ))
            }
        };
        let view = w
            .form(step)
            .map_err(|e| error(form, None, "evaluation", e.message))?;
        let mut values = Map::new();
        for f in &view.fields {
            let value = match given.get(&f.name) {
                Some(v @ Json::Object(_)) if f.kind == "app" => {
                    let app = new_app(f, v).map_err(|m| error(form, Some(&f.name), "app", m))?;
                    let id = Json::String(app.id.clone());
                    w.add_app(app);
                    id
                }
                Some(v) => v.clone(),
                None => f.initial.clone(),
            };
            values.insert(f.name.clone(), value);
        }
        let extra: Vec<_> = given
            .keys()
            .filter(|k| !values.contains_key(*k))
            .cloned()
            .collect();
        for k in extra {
            let v = given[&k].clone();
            values.insert(k, v);
        }
        let opts = SubmitOptions {
            confirm_passwords: false,
            reject_unknown: true,
        };
        w.submit(step, &values, opts)?;
    }
    Ok(())
}
