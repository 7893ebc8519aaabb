//! Running an action of a deployed environment: a form with one field per
//! argument of the action's method, typed from the argument's contract
//! (`params`), checked at the field in the browser and again here.

use crate::api::{object_name, state, ApiResult};
use crate::fields;
use crate::page::{csrf, layout, Nav, PageResult};
use crate::params::Param;
use crate::session::{Posted, User};
use crate::Dashboard;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use vetro_server::body::JsonBody;
use vetro_server::error::ApiError;
use vetro_server::extract::P;
use vetro_server::routes::actions as api_actions;

/// An action of the deployed model and the object it belongs to.
struct Action {
    object: String,
    /// The object's class (`?.type` without version and package).
    class: String,
    method: String,
    title: String,
}

/// The action `action_id` of the deployed model.
fn find_action(v: &Value, action_id: &str) -> Option<Action> {
    match v {
        Value::Object(m) => {
            if let Some(a) = m
                .get("?")
                .and_then(|q| q.pointer(&format!("/_actions/{action_id}")))
            {
                let name = a.get("name").and_then(Value::as_str).unwrap_or_default();
                let title = a.get("title").and_then(Value::as_str).unwrap_or(name);
                let ty = v.pointer("/?/type").and_then(Value::as_str).unwrap_or("");
                return Some(Action {
                    object: object_name(v),
                    class: vetro_dsl::package::ClassRef::parse(ty, None, None).class,
                    method: name.to_string(),
                    title: title.to_string(),
                });
            }
            m.values().find_map(|x| find_action(x, action_id))
        }
        Value::Array(a) => a.iter().find_map(|x| find_action(x, action_id)),
        _ => None,
    }
}

/// The action and its parameters (`None`: its method's definition was not
/// found, so the arguments are asked as one JSON object).
async fn action(
    dash: &Dashboard,
    user: &User,
    env: &str,
    action_id: &str,
) -> ApiResult<(Action, Option<Vec<Param>>)> {
    let model = vetro_server::routes::model::get_root(
        state(dash),
        user.ctx.clone(),
        P(env.to_string()),
        vetro_server::auth::SessionHeader(None),
    )
    .await?
    .0;
    let a = find_action(&model, action_id)
        .ok_or_else(|| ApiError::not_found(format!("action {action_id} not found")))?;
    let params = crate::classes::method_args(dash, user, &a.class, &a.method)
        .await
        .map(|args| {
            args.iter()
                .filter(|x| x.usage == vetro_dsl::syntax::class::ArgUsage::Standard)
                .map(Param::from_arg)
                .collect()
        });
    Ok((a, params))
}

/// What the person typed (kept when the form comes back with messages).
type Typed = HashMap<String, String>;

fn form(
    user: &User,
    env: &str,
    id: &str,
    a: &Action,
    params: &Option<Vec<Param>>,
    typed: &Typed,
    errors: &HashMap<String, String>,
) -> Markup {
    let errs = |name: &str| errors.get(name).cloned().into_iter().collect::<Vec<_>>();
    html! {
        p { "Runs " code { (a.method) } " on " strong { (a.object) } " in the deployed environment." }
        form method="post" action={"/environments/" (env) "/actions/" (id)} data-checked {
            (csrf(user))
            @match params {
                Some(list) => {
                    @if list.is_empty() { p { "This action takes no parameters." } }
                    @for p in list {
                        @let f = p.field();
                        // What was typed, once posted (an unticked box is absent).
                        @let v = if typed.is_empty() { f.initial.clone() } else { json!(typed.get(&p.name).map(String::as_str).unwrap_or("")) };
                        (fields::field(&f, &v, &errs(&p.name)))
                    }
                }
                None => {
                    div.field {
                        label for="f-args" { "Arguments (a JSON object; empty for none)" }
                        p.help #f-args-help { "The definition of " code { (a.method) } " was not found in the catalog, so its parameters are not known." }
                        textarea #f-args name="args" rows="4" aria-describedby="f-args-error f-args-help" { (typed.get("args").map(String::as_str).unwrap_or("")) }
                        p.field-error #f-args-error hidden[errs("args").is_empty()] aria-live="polite" { @for e in errs("args") { (e) } }
                    }
                }
            }
            div.actions {
                button type="submit" { "Run " (a.title) }
                a href={"/environments/" (env)} { "Cancel" }
            }
        }
    }
}

pub async fn action_form(
    State(dash): State<Dashboard>,
    user: User,
    Path((env, id)): Path<(String, String)>,
) -> PageResult {
    let (a, params) = action(&dash, &user, &env, &id).await?;
    let body = form(
        &user,
        &env,
        &id,
        &a,
        &params,
        &Typed::new(),
        &HashMap::new(),
    );
    Ok(layout(
        &format!("Action: {}", a.title),
        &user,
        Nav::Environments,
        body,
    ))
}

/// The posted arguments, or a message per field.
fn arguments(
    params: &Option<Vec<Param>>,
    posted: &crate::session::Fields,
) -> Result<Value, HashMap<String, String>> {
    let Some(list) = params else {
        let raw = posted.text("args");
        if raw.is_empty() {
            return Ok(json!({}));
        }
        return serde_json::from_str::<Value>(raw)
            .ok()
            .filter(Value::is_object)
            .ok_or_else(|| {
                HashMap::from([("args".to_string(), "Enter a JSON object.".to_string())])
            });
    };
    let mut args = Map::new();
    let mut errors = HashMap::new();
    for p in list {
        match p.read(posted.get(&p.name)) {
            Ok(Some(v)) => {
                args.insert(p.name.clone(), v);
            }
            Ok(None) => {}
            Err(e) => {
                errors.insert(p.name.clone(), e);
            }
        }
    }
    if errors.is_empty() {
        Ok(Value::Object(args))
    } else {
        Err(errors)
    }
}

pub async fn run_action(
    State(dash): State<Dashboard>,
    Path((env, id)): Path<(String, String)>,
    p: Posted,
) -> Response {
    let (a, params) = match action(&dash, &p.user, &env, &id).await {
        Ok(x) => x,
        Err(e) => return crate::page::PageError::from(e).into_response(),
    };
    let errors = match arguments(&params, &p.fields) {
        Ok(args) => {
            let r = match JsonBody::from_value(args) {
                Ok(body) => {
                    let to = P((env.clone(), id.clone()));
                    api_actions::execute(state(&dash), p.user.ctx.clone(), to, body).await
                }
                Err(e) => Err(e),
            };
            match r {
                Ok(v) => {
                    p.user.flash(true, "Action started.");
                    let to = format!("/environments/{env}/deployments/{}", v.0.task_id);
                    return Redirect::to(&to).into_response();
                }
                Err(e) => {
                    p.user.flash(false, e.message);
                    HashMap::new()
                }
            }
        }
        Err(errors) => errors,
    };
    let typed: Typed = p.fields.0.iter().cloned().collect();
    let body = form(&p.user, &env, &id, &a, &params, &typed, &errors);
    let page = layout(
        &format!("Action: {}", a.title),
        &p.user,
        Nav::Environments,
        body,
    );
    (StatusCode::UNPROCESSABLE_ENTITY, page).into_response()
}
