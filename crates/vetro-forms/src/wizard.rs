//! The multi-step wizard of one application: its forms in order, each
//! shown with what the earlier steps answered, submitted and validated one
//! at a time, then the object model built from every step's data.
//!
//! The wizard's state ([`WizardState`]) is plain data, so a web front end
//! can keep it in its session between requests and [`Wizard::resume`].

use crate::choices::Inventory;
use crate::clean::{clean, FieldError};
use crate::eval::{EvalError, Evaluator, Limits};
use crate::field::{Attr, Check, Field, FieldKind, Form, Key, Regexp, Validator};
use crate::model::{insert_ids, DASHBOARD_ATTRS_KEY};
use crate::tpl::Tpl;
use crate::version::FormatVersion;
use crate::view::{Ctx, FormView};
use crate::UiDefinition;
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value as Json};
use std::borrow::Cow;
use vetro_diag::Span;

/// The last step the dashboard added to every wizard (format 2.2 and later):
/// the application's name.
pub const MANAGEMENT_FORM: &str = "workflowManagement";
/// The field of [`MANAGEMENT_FORM`] holding the application's name.
pub const APP_NAME_FIELD: &str = "application_name";

/// The package an application comes from.
#[derive(Clone, Debug)]
pub struct AppInfo {
    /// The package's FullName (the default application name is its last part).
    pub fqn: String,
    /// The package's display name.
    pub display_name: String,
}

/// What a wizard has collected: every submitted step's cleaned values, and
/// the `Parameters` (evaluated once).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WizardState {
    pub data: IndexMap<String, Map<String, Json>>,
    pub parameters: IndexMap<String, Json>,
}

/// How [`Wizard::submit`] treats a submission.
#[derive(Clone, Copy, Debug, Default)]
pub struct SubmitOptions {
    /// Compare each password with the value under `NAME-clone` (as the
    /// dashboard's second password box).
    pub confirm_passwords: bool,
    /// Refuse values for fields the form does not have.
    pub reject_unknown: bool,
}

/// Why a step was refused: every problem found, by field.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FormErrors {
    pub form: String,
    pub errors: Vec<FieldError>,
}

impl std::fmt::Display for FormErrors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, e) in self.errors.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match &e.field {
                Some(field) => write!(f, "{}.{field} ({}): {}", self.form, e.rule, e.message)?,
                None => write!(f, "{} ({}): {}", self.form, e.rule, e.message)?,
            }
        }
        Ok(())
    }
}

/// Why the object model could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BuildError {
    #[error("form {0:?} has not been submitted")]
    Incomplete(String),
    #[error("the UI definition has no Application section to build the object model from")]
    NoApplication,
    #[error("{0}")]
    Eval(EvalError),
    #[error("the Application section must build an object with `?: {{type: ...}}`, it built {0}")]
    NotAnObject(String),
}

/// One application's wizard.
pub struct Wizard<'u> {
    ui: &'u UiDefinition,
    steps: Vec<Cow<'u, Form>>,
    app: AppInfo,
    inventory: Inventory,
    limits: Limits,
    state: WizardState,
}

fn management_form(fqn: &str) -> Form {
    let text = |s: &str| Attr {
        written: String::new(),
        value: Tpl::Str(s.to_string()),
        span: Span::default(),
    };
    let mut attrs = IndexMap::new();
    attrs.insert(Key::Label, text("Application Name"));
    attrs.insert(
        Key::Description,
        text("Enter a desired name for the application. Just A-Z, a-z, 0-9, dash and underline are allowed"),
    );
    attrs.insert(Key::Initial, text(fqn.rsplit('.').next().unwrap_or(fqn)));
    let validators = Regexp::compile(r"^[-\w]+$")
        .map(|re| Validator {
            check: Check::Regexp(re),
            message: None,
            span: Span::default(),
        })
        .into_iter()
        .collect();
    Form {
        name: MANAGEMENT_FORM.into(),
        span: Span::default(),
        fields: vec![Field {
            name: APP_NAME_FIELD.into(),
            kind: FieldKind::String,
            span: Span::default(),
            kind_span: Span::default(),
            attrs,
            validators,
        }],
        validators: Vec::new(),
        region: None,
    }
}

impl<'u> Wizard<'u> {
    /// A new wizard: evaluates the `Parameters` section (with
    /// `extra_parameters`, e.g. from `ParametersSource`, merged over it).
    pub fn new(
        ui: &'u UiDefinition,
        app: AppInfo,
        inventory: Inventory,
        limits: Limits,
        extra_parameters: Map<String, Json>,
    ) -> Result<Wizard<'u>, EvalError> {
        let mut w = Wizard::resume(ui, app, inventory, limits, WizardState::default());
        let empty = IndexMap::new();
        let eval = Evaluator::new(&empty, IndexMap::new(), None, &w.limits);
        let mut parameters = IndexMap::new();
        for (name, t) in &ui.parameters {
            if name.chars().next().is_some_and(char::is_alphabetic) {
                parameters.insert(name.clone(), eval.tpl(t, &Json::Null)?);
            }
        }
        parameters.extend(extra_parameters);
        w.state.parameters = parameters;
        Ok(w)
    }

    /// A wizard continuing from a saved state.
    pub fn resume(
        ui: &'u UiDefinition,
        app: AppInfo,
        inventory: Inventory,
        limits: Limits,
        state: WizardState,
    ) -> Wizard<'u> {
        let mut steps: Vec<Cow<'u, Form>> = ui.forms.iter().map(Cow::Borrowed).collect();
        if ui.version >= FormatVersion::APP_NAME {
            steps.push(Cow::Owned(management_form(&app.fqn)));
        }
        Wizard {
            ui,
            steps,
            app,
            inventory,
            limits,
            state,
        }
    }

    /// Offer one more application of the environment to application fields.
    pub fn add_app(&mut self, app: crate::choices::ExistingApp) {
        self.inventory.apps.push(app);
    }

    pub fn inventory(&self) -> &Inventory {
        &self.inventory
    }

    pub fn state(&self) -> &WizardState {
        &self.state
    }

    /// The steps' form names, in order.
    pub fn steps(&self) -> Vec<&str> {
        self.steps.iter().map(|f| f.name.as_str()).collect()
    }

    /// The step of a form by name.
    pub fn step_of(&self, form: &str) -> Option<usize> {
        self.steps.iter().position(|f| f.name == form)
    }

    /// The application's name: what the last step answered, else the
    /// default (the last part of the package's FullName).
    pub fn application_name(&self) -> String {
        self.state
            .data
            .get(MANAGEMENT_FORM)
            .and_then(|d| d.get(APP_NAME_FIELD))
            .and_then(Json::as_str)
            .map(str::to_string)
            .unwrap_or_else(|| {
                let fqn = &self.app.fqn;
                fqn.rsplit('.').next().unwrap_or(fqn).to_string()
            })
    }

    fn evaluator(&self) -> Evaluator<'u> {
        let mut params = self.state.parameters.clone();
        params.insert("forms".into(), self.data_json(None));
        Evaluator::new(
            &self.ui.templates,
            params,
            Some(self.application_name()),
            &self.limits,
        )
    }

    /// Every submitted step's data as `{form: {field: value}}` (with
    /// `current` in place of its form's saved data).
    fn data_json(&self, current: Option<(&str, &Map<String, Json>)>) -> Json {
        let mut m = Map::new();
        for (form, values) in &self.state.data {
            m.insert(form.clone(), Json::Object(values.clone()));
        }
        if let Some((form, values)) = current {
            m.insert(form.to_string(), Json::Object(values.clone()));
        }
        Json::Object(m)
    }

    /// Step `step` ready to render, its attributes evaluated against the
    /// data of the steps submitted so far.
    pub fn form(&self, step: usize) -> Result<FormView, EvalError> {
        let form = self
            .steps
            .get(step)
            .ok_or_else(|| EvalError::new(format!("there is no step {step}"), None))?;
        let eval = self.evaluator();
        let data = self.data_json(None);
        let ctx = Ctx {
            eval: &eval,
            data: &data,
            inventory: &self.inventory,
        };
        ctx.form(form, step)
    }

    /// Validate and keep the values submitted for step `step`. Values
    /// missing from `values` are empty (a front end that fills in the
    /// initial values sends them). Returns the cleaned values.
    pub fn submit(
        &mut self,
        step: usize,
        values: &Map<String, Json>,
        opts: SubmitOptions,
    ) -> Result<Map<String, Json>, FormErrors> {
        let Some(form) = self.steps.get(step) else {
            return Err(FormErrors {
                form: format!("step {step}"),
                errors: vec![FieldError {
                    field: None,
                    rule: "unknown".into(),
                    message: format!("there is no step {step}"),
                }],
            });
        };
        let fail = |errors| FormErrors {
            form: form.name.clone(),
            errors,
        };
        let view = self.form(step).map_err(|e| {
            fail(vec![FieldError {
                field: None,
                rule: "evaluation".into(),
                message: e.message,
            }])
        })?;
        let eval = self.evaluator();
        let mut errors = Vec::new();
        if opts.reject_unknown {
            for key in values.keys() {
                let base = key.strip_suffix("-clone").unwrap_or(key);
                if form.field(base).is_none() {
                    errors.push(FieldError::field(
                        key,
                        "unknown",
                        format!(
                            "form {:?} has no field {key:?} (fields: {})",
                            form.name,
                            form.fields
                                .iter()
                                .map(|f| f.name.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    ));
                }
            }
        }
        let mut cleaned = Map::new();
        for (field, fv) in form.fields.iter().zip(&view.fields) {
            let raw = values.get(&field.name).unwrap_or(&Json::Null);
            match clean(field, fv, raw, &eval) {
                Ok(v) => {
                    if fv.confirm_input && opts.confirm_passwords && fv.required {
                        let clone = values.get(&format!("{}-clone", field.name));
                        if clone.and_then(Json::as_str).map(str::trim) != v.as_str() {
                            errors.push(FieldError::field(
                                &field.name,
                                "confirmInput",
                                format!("{}s don't match", fv.label),
                            ));
                        }
                    }
                    cleaned.insert(field.name.clone(), v);
                }
                Err(mut e) => errors.append(&mut e),
            }
        }
        if !errors.is_empty() {
            return Err(fail(errors));
        }
        let all = self.data_json(Some((&form.name, &cleaned)));
        for (i, v) in form.validators.iter().enumerate() {
            let rule = format!("validators[{i}]");
            let message = || {
                v.message
                    .as_ref()
                    .and_then(|m| eval.tpl(m, &all).ok())
                    .and_then(|m| m.as_str().map(str::to_string))
                    .unwrap_or_else(|| "Validation Error occurred".into())
            };
            let ok = match &v.check {
                Check::Yaql(y) => eval.truthy(y, &all),
                Check::Regexp(re) => Ok(re.found(&all.to_string())),
            };
            match ok {
                Ok(true) => {}
                Ok(false) => errors.push(FieldError {
                    field: None,
                    rule,
                    message: message(),
                }),
                Err(e) => errors.push(FieldError {
                    field: None,
                    rule,
                    message: format!("the validator could not run: {e}"),
                }),
            }
        }
        if !errors.is_empty() {
            return Err(fail(errors));
        }
        self.state.data.insert(form.name.clone(), cleaned.clone());
        Ok(cleaned)
    }

    /// The application's object model, from every step's data: the
    /// `Application` section evaluated, its name set (format 2.2 and
    /// later), every object given an id.
    pub fn build(&self) -> Result<Json, BuildError> {
        if let Some(missing) = self
            .steps
            .iter()
            .find(|f| !self.state.data.contains_key(&f.name))
        {
            return Err(BuildError::Incomplete(missing.name.clone()));
        }
        let mut app = self
            .ui
            .application
            .clone()
            .ok_or(BuildError::NoApplication)?;
        if self.ui.version >= FormatVersion::APP_NAME {
            set_header_name(&mut app, &self.application_name());
        }
        let eval = self.evaluator();
        let mut model = eval
            .tpl(&app, &self.data_json(None))
            .map_err(BuildError::Eval)?;
        let Some(header) = model.get_mut("?").and_then(Json::as_object_mut) else {
            return Err(BuildError::NotAnObject(model.to_string()));
        };
        let mut attrs = Map::new();
        attrs.insert("name".into(), Json::String(self.app.display_name.clone()));
        header.insert(DASHBOARD_ATTRS_KEY.into(), Json::Object(attrs));
        insert_ids(&mut model);
        Ok(model)
    }
}

/// `?: {name: NAME}` in the Application's header.
fn set_header_name(app: &mut Tpl, name: &str) {
    if let Tpl::Map(entries) = app {
        if let Some((_, Tpl::Map(header))) =
            entries.iter_mut().find(|(k, _)| k.as_str() == Some("?"))
        {
            header.retain(|(k, _)| k.as_str() != Some("name"));
            header.push((Tpl::Str("name".into()), Tpl::Str(name.into())));
        }
    }
}
