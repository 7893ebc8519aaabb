//! Adding a component to an environment through its package's forms (the
//! multi-step wizard of its `UI/ui.yaml`, run by `vetro-forms`), editing a
//! component's settings and removing it, all within the person's
//! configuration session until they deploy.

use crate::api::{self, object_name, query, state, text, ApiResult};
use crate::fields;
use crate::page::{after, csrf, layout, Nav, PageError, PageResult};
use crate::session::{Posted, User};
use crate::Dashboard;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use vetro_forms::{
    AppInfo, ExistingApp, FormErrors, Inventory, Limits, SubmitOptions, UiDefinition, Wizard,
    WizardState,
};
use vetro_server::auth::SessionHeader;
use vetro_server::body::JsonBody;
use vetro_server::error::ApiError;
use vetro_server::extract::P;
use vetro_server::requests::ModelValue;
use vetro_server::routes::{catalog as api_catalog, environments as api_envs, services};
use vetro_store::catalog::PackageFile;

/// `/add-component?env=..&package=..` (the package page's form) to the wizard.
pub async fn add_redirect(Query(q): Query<HashMap<String, String>>) -> Response {
    let get = |k: &str| q.get(k).map(String::as_str).unwrap_or_default();
    let ok = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if ok(get("env")) && ok(get("package")) {
        Redirect::to(&format!(
            "/environments/{}/add/{}",
            get("env"),
            get("package")
        ))
        .into_response()
    } else {
        PageError::new(
            StatusCode::BAD_REQUEST,
            "Choose an environment and a package.",
        )
        .into_response()
    }
}

/// The applications of the catalog, to choose one to add.
pub async fn choose(
    State(dash): State<Dashboard>,
    user: User,
    Path(env): Path<String>,
) -> PageResult {
    let e = crate::api::value(
        api_envs::show(
            state(&dash),
            user.ctx.clone(),
            P(env.clone()),
            SessionHeader(None),
        )
        .await?
        .0,
    );
    let found = api_catalog::search(
        state(&dash),
        user.ctx.clone(),
        query(&[
            ("type", "Application"),
            ("limit", "100"),
            ("catalog", "true"),
        ]),
    )
    .await?;
    let found = serde_json::to_value(found).unwrap_or(Value::Null);
    let packages = found["packages"].as_array().cloned().unwrap_or_default();
    let body = html! {
        p { "Choose the application to add to " strong { (text(&e, "name")) } "." }
        @if packages.is_empty() { p { "The catalog has no applications yet: " a href="/catalog" { "import one" } "." } }
        ul.cards {
            @for p in &packages {
                li.card {
                    img src={"/catalog/" (text(p, "id")) "/logo"} alt="" width="56" height="56";
                    div {
                        h2 { a href={"/environments/" (env) "/add/" (text(p, "id"))} { (text(p, "name")) } }
                        p { (crate::page::clip(text(p, "description"), 160)) }
                    }
                }
            }
        }
    };
    Ok(layout("Add a component", &user, Nav::Environments, body))
}

/// A package's UI definition and identity.
struct PackageUi {
    ui: UiDefinition,
    app: AppInfo,
}

async fn package_ui(dash: &Dashboard, user: &User, package_id: &str) -> ApiResult<PackageUi> {
    let p = vetro_server::scope::package(&dash.app, &user.ctx, package_id).await?;
    let bytes = dash
        .app
        .store
        .package_file(&p.id, PackageFile::Ui)
        .await?
        .ok_or_else(|| {
            ApiError::bad_request(format!(
                "package {} has no UI definition (UI/ui.yaml) to build its form from",
                p.name
            ))
        })?;
    let text = String::from_utf8_lossy(&bytes);
    let mut sources = vetro_diag::SourceMap::new();
    let (ui, problems) = vetro_forms::parse_str("UI/ui.yaml", &text, &mut sources);
    let ui = ui.ok_or_else(|| {
        let list: Vec<String> = problems.iter().map(|d| d.message.clone()).collect();
        ApiError::bad_request(format!(
            "the package's UI definition cannot be used: {}",
            list.join("; ")
        ))
    })?;
    Ok(PackageUi {
        ui,
        app: AppInfo {
            fqn: p.fully_qualified_name.clone(),
            display_name: p.name.clone(),
        },
    })
}

/// The environment's applications (offered to fields that take one).
async fn inventory(dash: &Dashboard, user: &User, env: &str) -> ApiResult<Inventory> {
    let e = api::draft_environment(dash, user, env).await?;
    let apps = e["services"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|s| ExistingApp {
            id: s
                .pointer("/?/id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            name: object_name(s),
            classes: s
                .pointer("/?/type")
                .and_then(Value::as_str)
                .map(|t| vec![t.to_string()])
                .unwrap_or_default(),
        })
        .collect();
    Ok(Inventory {
        cloud: vetro_dsl::cloud::simulator::catalog(),
        apps,
    })
}

fn draft_key(env: &str, package: &str) -> String {
    format!("wizard/{env}/{package}")
}

async fn saved_state(user: &User, key: &str) -> WizardState {
    user.draft(key)
        .await
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default()
}

#[derive(serde::Deserialize)]
pub struct StepQuery {
    step: Option<usize>,
}

/// One step of the wizard: its fields with values and errors.
struct StepPage<'a> {
    env: &'a str,
    package: &'a str,
    step: usize,
    steps: Vec<String>,
    view: vetro_forms::FormView,
    values: Map<String, Value>,
    errors: HashMap<String, Vec<String>>,
    form_errors: Vec<String>,
}

fn render_step(user: &User, s: &StepPage<'_>, name: &str) -> Markup {
    let last = s.step + 1 == s.steps.len();
    let action = format!("/environments/{}/add/{}?step={}", s.env, s.package, s.step);
    html! {
        ol.steps aria-label="Steps" {
            @for (i, st) in s.steps.iter().enumerate() {
                li aria-current=[(i == s.step).then_some("step")] { (i + 1) ". " (st) }
            }
        }
        @if !s.form_errors.is_empty() {
            div.flash.error role="alert" { @for e in &s.form_errors { p { (e) } } }
        }
        form method="post" action=(action) data-checked aria-label=(name) {
            (csrf(user))
            @for f in &s.view.fields {
                @let v = s.values.get(&f.name).cloned().unwrap_or_else(|| f.initial.clone());
                @let errs = s.errors.get(&f.name).cloned().unwrap_or_default();
                (fields::field(f, &v, &errs))
            }
            div.actions {
                @if s.step > 0 {
                    a.button.secondary href={"/environments/" (s.env) "/add/" (s.package) "?step=" (s.step - 1)} { "Back" }
                }
                button type="submit" { (if last { "Add to the environment" } else { "Next" }) }
                a href={"/environments/" (s.env)} { "Cancel" }
            }
        }
    }
}

fn wizard_error(e: impl std::fmt::Display) -> PageError {
    PageError::new(
        StatusCode::UNPROCESSABLE_ENTITY,
        format!("The form cannot be shown: {e}"),
    )
}

/// The wizard as this person left it (a new one when they have not begun),
/// with its steps' names.
async fn open_wizard<'u>(
    dash: &Dashboard,
    user: &User,
    env: &str,
    pui: &'u PackageUi,
    key: &str,
) -> Result<(Wizard<'u>, Vec<String>), PageError> {
    let state = saved_state(user, key).await;
    let inv = inventory(dash, user, env).await?;
    let w = if state == WizardState::default() {
        Wizard::new(&pui.ui, pui.app.clone(), inv, Limits::default(), Map::new())
            .map_err(wizard_error)?
    } else {
        Wizard::resume(&pui.ui, pui.app.clone(), inv, Limits::default(), state)
    };
    let steps = w.steps().iter().map(|s| s.to_string()).collect();
    Ok((w, steps))
}

/// The page of one step.
fn step_layout(user: &User, page: &StepPage<'_>, pui: &PackageUi) -> Markup {
    let title = format!("Add {}", pui.app.display_name);
    layout(
        &title,
        user,
        Nav::Environments,
        render_step(user, page, &title),
    )
}

pub async fn wizard(
    State(dash): State<Dashboard>,
    user: User,
    Path((env, package)): Path<(String, String)>,
    Query(q): Query<StepQuery>,
) -> PageResult {
    let pui = package_ui(&dash, &user, &package).await?;
    let key = draft_key(&env, &package);
    if q.step.is_none() && user.draft(&key).await.is_some() {
        user.clear_draft(&key).await;
    }
    let (w, steps) = open_wizard(&dash, &user, &env, &pui, &key).await?;
    let step = q.step.unwrap_or(0).min(steps.len().saturating_sub(1));
    let view = w.form(step).map_err(wizard_error)?;
    let values = w.state().data.get(&view.name).cloned().unwrap_or_default();
    let page = StepPage {
        env: &env,
        package: &package,
        step,
        steps,
        view,
        values,
        errors: HashMap::new(),
        form_errors: Vec::new(),
    };
    Ok(step_layout(&user, &page, &pui))
}

fn split_errors(e: &FormErrors) -> (HashMap<String, Vec<String>>, Vec<String>) {
    let mut by_field: HashMap<String, Vec<String>> = HashMap::new();
    let mut general = Vec::new();
    for err in &e.errors {
        match &err.field {
            Some(f) => by_field
                .entry(f.clone())
                .or_default()
                .push(err.message.clone()),
            None => general.push(err.message.clone()),
        }
    }
    (by_field, general)
}

/// Adds the finished application to the person's session of the environment.
async fn add_to_env(dash: &Dashboard, user: &User, env: &str, app: Value) -> ApiResult<String> {
    let sid = api::edit_session(dash, user, env).await?;
    let name = object_name(&app);
    let _added = services::post(
        state(dash),
        user.ctx.clone(),
        P(env.to_string()),
        SessionHeader(Some(sid)),
        JsonBody(ModelValue(app)),
    )
    .await?;
    Ok(name)
}

pub async fn wizard_submit(
    State(dash): State<Dashboard>,
    Path((env, package)): Path<(String, String)>,
    Query(q): Query<StepQuery>,
    p: Posted,
) -> Response {
    match submit_step(&dash, &env, &package, q.step.unwrap_or(0), &p).await {
        Ok(r) => r,
        Err(e) => e.into_response(),
    }
}

/// Checks one step's answers: the step again with messages at the fields,
/// the next step, or the finished application added to the environment.
async fn submit_step(
    dash: &Dashboard,
    env: &str,
    package: &str,
    step: usize,
    p: &Posted,
) -> Result<Response, PageError> {
    let user = &p.user;
    let pui = package_ui(dash, user, package).await?;
    let key = draft_key(env, package);
    let (mut w, steps) = open_wizard(dash, user, env, &pui, &key).await?;
    let step = step.min(steps.len().saturating_sub(1));
    let view = w.form(step).map_err(wizard_error)?;
    let values = fields::submitted(&view.fields, |name| p.fields.get(name).map(str::to_string));
    let opts = SubmitOptions {
        confirm_passwords: true,
        reject_unknown: false,
    };
    Ok(match w.submit(step, &values, opts) {
        Err(e) => {
            let (errors, form_errors) = split_errors(&e);
            let page = StepPage {
                env,
                package,
                step,
                steps,
                view,
                values,
                errors,
                form_errors,
            };
            let body = step_layout(user, &page, &pui);
            (StatusCode::UNPROCESSABLE_ENTITY, body).into_response()
        }
        Ok(_) if step + 1 < steps.len() => {
            user.set_draft(&key, serde_json::to_value(w.state()).unwrap_or(Value::Null))
                .await;
            let next = format!("/environments/{env}/add/{package}?step={}", step + 1);
            Redirect::to(&next).into_response()
        }
        Ok(_) => {
            user.clear_draft(&key).await;
            let r = match w.build() {
                Ok(app) => add_to_env(dash, user, env, app).await,
                Err(e) => Err(ApiError::bad_request(format!(
                    "The application cannot be built from the answers: {e}"
                ))),
            };
            let done = match &r {
                Ok(name) => format!("Added {name}. Deploy the environment to apply it."),
                Err(_) => String::new(),
            };
            after(user, &format!("/environments/{env}"), r, &done)
        }
    })
}

/// The component `obj` of the person's draft (opening a session for it).
async fn component(
    dash: &Dashboard,
    user: &User,
    env: &str,
    obj: &str,
) -> ApiResult<(String, Value)> {
    let sid = api::edit_session(dash, user, env).await?;
    let v = services::get(
        state(dash),
        user.ctx.clone(),
        P((env.to_string(), obj.to_string())),
        SessionHeader(Some(sid.clone())),
    )
    .await?
    .0;
    Ok((sid, v))
}

/// The settings of a component a person may change here: its plain values.
fn editable(v: &Value) -> Vec<(String, Value)> {
    v.as_object()
        .into_iter()
        .flatten()
        .filter(|(k, x)| {
            k.as_str() != "?" && (x.is_string() || x.is_number() || x.is_boolean() || x.is_null())
        })
        .map(|(k, x)| (k.clone(), x.clone()))
        .collect()
}

pub async fn edit(
    State(dash): State<Dashboard>,
    user: User,
    Path((env, obj)): Path<(String, String)>,
) -> PageResult {
    let (_, v) = component(&dash, &user, &env, &obj).await?;
    let settings = editable(&v);
    let body = html! {
        p { "Changes stay in your session until you deploy the environment." }
        form method="post" action={"/environments/" (env) "/components/" (obj) "/edit"} data-checked {
            (csrf(&user))
            @for (k, x) in &settings {
                @let id = format!("e-{k}");
                @if let Value::Bool(b) = x {
                    label.inline for=(id) { input id=(id) type="checkbox" name=(k) value="true" checked[*b]; (k) }
                    input type="hidden" name="_bool" value=(k);
                } @else {
                    label for=(id) { (k) }
                    input id=(id) type=(if x.is_number() { "number" } else { "text" }) step=[x.is_number().then_some("any")]
                        name=(k) value=(fields::as_text(x)) aria-describedby={(id) "-error"};
                    p.field-error id={(id) "-error"} hidden aria-live="polite" {}
                }
            }
            div.actions {
                button type="submit" { "Save" }
                a href={"/environments/" (env)} { "Cancel" }
            }
        }
    };
    Ok(layout(
        &format!("Edit {}", object_name(&v)),
        &user,
        Nav::Environments,
        body,
    ))
}

pub async fn edit_submit(
    State(dash): State<Dashboard>,
    Path((env, obj)): Path<(String, String)>,
    p: Posted,
) -> Response {
    let r = async {
        let (sid, mut v) = component(&dash, &p.user, &env, &obj).await?;
        let bools = p.fields.all("_bool");
        for (k, old) in editable(&v) {
            let new = if bools.contains(&k.as_str()) {
                Value::Bool(p.fields.get(&k) == Some("true"))
            } else {
                let raw = p.fields.text(&k);
                match old {
                    Value::Number(_) => raw
                        .parse::<i64>()
                        .map(Value::from)
                        .or_else(|_| raw.parse::<f64>().map(|f| json!(f)))
                        .map_err(|_| ApiError::bad_request(format!("'{k}' must be a number")))?,
                    Value::Null if raw.is_empty() => Value::Null,
                    _ => Value::String(raw.to_string()),
                }
            };
            v[&k] = new;
        }
        services::put_path(
            state(&dash),
            p.user.ctx.clone(),
            P((env.clone(), obj.clone())),
            SessionHeader(Some(sid)),
            JsonBody(ModelValue(v)),
        )
        .await
    }
    .await;
    after(
        &p.user,
        &format!("/environments/{env}"),
        r,
        "Saved. Deploy the environment to apply it.",
    )
}

pub async fn remove(
    State(dash): State<Dashboard>,
    Path((env, obj)): Path<(String, String)>,
    p: Posted,
) -> Response {
    let r = async {
        let sid = api::edit_session(&dash, &p.user, &env).await?;
        services::delete_path(
            state(&dash),
            p.user.ctx.clone(),
            P((env.clone(), obj.clone())),
            SessionHeader(Some(sid)),
        )
        .await
    }
    .await;
    after(
        &p.user,
        &format!("/environments/{env}"),
        r,
        "Removed. Deploy the environment to apply it.",
    )
}
