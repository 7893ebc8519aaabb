//! Environment templates: the list, a template made from an environment's
//! components, an environment made from a template, deletion.

use crate::api::{query, state, text, ApiResult};
use crate::page::{after, csrf, layout, Nav, PageResult};
use crate::session::{Posted, User};
use crate::Dashboard;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::html;
use serde_json::{json, Value};
use vetro_server::body::JsonBody;
use vetro_server::extract::P;
use vetro_server::routes::{environments as api_envs, templates as api_templates};

pub async fn list(State(dash): State<Dashboard>, user: User) -> PageResult {
    let t =
        api_templates::list(state(&dash), user.ctx.clone(), query(&[("limit", "1000")])).await?;
    let t = serde_json::to_value(t).unwrap_or(Value::Null);
    let templates = t["templates"].as_array().cloned().unwrap_or_default();
    let envs = api_envs::list(state(&dash), user.ctx.clone(), query(&[("limit", "1000")])).await?;
    let envs = serde_json::to_value(envs).unwrap_or(Value::Null);
    let envs = envs["environments"].as_array().cloned().unwrap_or_default();
    let body = html! {
        @if templates.is_empty() { p { "No templates yet." } }
        @for t in &templates {
            @let id = text(t, "id");
            section aria-label=(text(t, "name")) {
                h2 { (text(t, "name")) @if t["is_public"].as_bool() == Some(true) { " " span.badge.plain { "public" } } }
                @if !text(t, "description_text").is_empty() { p { (text(t, "description_text")) } }
                div.actions {
                    form method="post" action={"/templates/" (id) "/environment"} {
                        (csrf(&user))
                        label for={"tpl-env-" (id)} { "New environment's name" }
                        input id={"tpl-env-" (id)} type="text" name="name" required maxlength="255";
                        button type="submit" { "Create an environment from it" }
                    }
                    form method="post" action={"/templates/" (id) "/delete"} {
                        (csrf(&user))
                        button.danger type="submit" data-confirm="Delete this template?" { "Delete" }
                    }
                }
            }
        }
        section aria-labelledby="new-template" {
            h2 #new-template { "Make a template from an environment" }
            @if envs.is_empty() { p { "Create an environment first." } } @else {
                form method="post" action="/templates" {
                    (csrf(&user))
                    label for="tpl-from" { "Environment" }
                    select #tpl-from name="env" required {
                        @for e in &envs { option value=(text(e, "id")) { (text(e, "name")) } }
                    }
                    label for="tpl-name" { "Template name" }
                    input #tpl-name type="text" name="name" required maxlength="255";
                    label for="tpl-desc" { "Description" }
                    input #tpl-desc type="text" name="description";
                    p { button type="submit" { "Make the template" } }
                }
            }
        }
    };
    Ok(layout("Templates", &user, Nav::Templates, body))
}

async fn from_env(
    dash: &Dashboard,
    user: &User,
    env: &str,
    name: &str,
    description: &str,
) -> ApiResult {
    let e = crate::api::draft_environment(dash, user, env).await?;
    let body =
        json!({"name": name, "description_text": description, "services": e["services"].clone()});
    Ok(crate::api::value(
        api_templates::create(state(dash), user.ctx.clone(), JsonBody::from_value(body)?)
            .await?
            .0,
    ))
}

pub async fn create(State(dash): State<Dashboard>, p: Posted) -> Response {
    let r = from_env(
        &dash,
        &p.user,
        p.fields.text("env"),
        p.fields.text("name"),
        p.fields.text("description"),
    )
    .await;
    after(&p.user, "/templates", r, "Template made.")
}

pub async fn create_environment(
    State(dash): State<Dashboard>,
    Path(id): Path<String>,
    p: Posted,
) -> Response {
    let r = match JsonBody::from_value(json!({"name": p.fields.text("name")})) {
        Ok(body) => {
            api_templates::create_environment(state(&dash), p.user.ctx.clone(), P(id), body).await
        }
        Err(e) => Err(e),
    };
    match r {
        Ok(v) => {
            let env = v.0.environment_id;
            p.user.set_env_session(&env, &v.0.session_id).await;
            p.user.flash(
                true,
                "Environment created from the template. Deploy it when ready.",
            );
            Redirect::to(&format!("/environments/{env}")).into_response()
        }
        Err(e) => after(&p.user, "/templates", Err::<(), _>(e), ""),
    }
}

pub async fn delete(State(dash): State<Dashboard>, Path(id): Path<String>, p: Posted) -> Response {
    let r = api_templates::delete(state(&dash), p.user.ctx.clone(), P(id)).await;
    after(&p.user, "/templates", r, "Template deleted.")
}
