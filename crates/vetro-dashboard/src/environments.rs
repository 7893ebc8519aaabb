//! Environments: the list with status, creating one, the environment page
//! (components, picture, actions, live log, history) and the buttons that
//! deploy, discard changes, delete and abandon.

use crate::api::{self, object_name, query, short_type, state, text, ApiResult};
use crate::page::{after, badge, csrf, layout, Nav, PageResult};
use crate::session::{Posted, User};
use crate::{deployments, svg, Dashboard};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde_json::{json, Value};
use vetro_server::auth::SessionHeader;
use vetro_server::body::JsonBody;
use vetro_server::extract::P;
use vetro_server::routes::{
    deployments as api_deployments, environments as api_envs, model, sessions,
};

pub async fn list(State(dash): State<Dashboard>, user: User) -> PageResult {
    let envs = api_envs::list(state(&dash), user.ctx.clone(), query(&[("limit", "1000")])).await?;
    let envs = serde_json::to_value(envs).unwrap_or(Value::Null);
    let list = envs["environments"].as_array().cloned().unwrap_or_default();
    let body = html! {
        section aria-labelledby="create-title" {
            h2 #create-title { "Create an environment" }
            form method="post" action="/environments" data-checked {
                (csrf(&user))
                label for="env-name" { "Name" }
                input #env-name type="text" name="name" required maxlength="255" aria-describedby="env-name-error";
                p.field-error #env-name-error hidden aria-live="polite" {}
                p { button type="submit" { "Create" } }
            }
        }
        @if list.is_empty() {
            p { "No environments yet." }
        } @else {
            div.table-wrap { table {
                thead { tr { th scope="col" { "Name" } th scope="col" { "Status" } th.optional scope="col" { "Updated" } } }
                tbody {
                    @for e in &list {
                        tr {
                            td { a href={"/environments/" (text(e, "id"))} { (text(e, "name")) } }
                            td { (badge(text(e, "status"))) }
                            td.optional { (text(e, "updated").replace('T', " ")) }
                        }
                    }
                }
            } }
        }
    };
    Ok(layout("Environments", &user, Nav::Environments, body))
}

pub async fn create(State(dash): State<Dashboard>, p: Posted) -> Response {
    let r = match JsonBody::from_value(json!({"name": p.fields.text("name")})) {
        Ok(body) => api_envs::create(state(&dash), p.user.ctx.clone(), body).await,
        Err(e) => Err(e),
    };
    match r {
        Ok(env) => Redirect::to(&format!("/environments/{}", env.0.id)).into_response(),
        Err(e) => after(&p.user, "/environments", Err::<(), _>(e), ""),
    }
}

/// Everything the environment page shows.
struct EnvPage {
    env: Value,
    session: Option<String>,
    statuses: Value,
    deployed: Value,
    history: Vec<Value>,
}

async fn gather(dash: &Dashboard, user: &User, id: &str) -> ApiResult<EnvPage> {
    let session = api::open_session(dash, user, id).await;
    let ctx = || user.ctx.clone();
    let env = api_envs::show(
        state(dash),
        ctx(),
        P(id.to_string()),
        SessionHeader(session.clone()),
    )
    .await?
    .0;
    let env = crate::api::value(env);
    let statuses = api_envs::last_status(
        state(dash),
        ctx(),
        P(id.to_string()),
        SessionHeader(session.clone()),
    )
    .await?
    .0;
    let statuses = crate::api::value(statuses);
    let deployed = model::get_root(state(dash), ctx(), P(id.to_string()), SessionHeader(None))
        .await?
        .0;
    let history = api_deployments::list(state(dash), ctx(), P(id.to_string()), query(&[])).await?;
    let history = serde_json::to_value(history).unwrap_or(Value::Null)["deployments"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut env = env;
    // While a deployment runs, its components are those it was given.
    let running = history
        .first()
        .filter(|d| text(d, "kind") == "deploy" && d["finished"].is_null());
    if let Some(services) = running.and_then(|d| d.pointer("/description/services")) {
        env["services"] = services.clone();
    }
    Ok(EnvPage {
        env,
        session,
        statuses,
        deployed,
        history,
    })
}

fn components(user: &User, page: &EnvPage, id: &str) -> Markup {
    let services = page.env["services"].as_array().cloned().unwrap_or_default();
    let busy = matches!(text(&page.env, "status"), "deploying" | "deleting");
    html! {
        section aria-labelledby="components-title" {
            h2 #components-title { "Components" }
            @if page.session.is_some() { p.help { "You have changes that are not deployed yet." } }
            @if services.is_empty() {
                p { "No components yet." }
            } @else {
                div.table-wrap { table {
                    thead { tr { th scope="col" { "Name" } th scope="col" { "Type" } th.optional scope="col" { "Last report" } th scope="col" { span.skip { "Actions" } } } }
                    tbody {
                        @for s in &services {
                            @let oid = s.pointer("/?/id").and_then(Value::as_str).unwrap_or_default();
                            tr {
                                td { (object_name(s)) }
                                td { code { (short_type(s.pointer("/?/type").and_then(Value::as_str).unwrap_or_default())) } }
                                td.optional { (page.statuses["lastStatuses"][oid]["text"].as_str().unwrap_or("")) }
                                td { @if !busy { div.actions {
                                    a.button.secondary href={"/environments/" (id) "/components/" (oid) "/edit"} aria-label={"Edit " (object_name(s))} { "Edit" }
                                    form method="post" action={"/environments/" (id) "/components/" (oid) "/remove"} {
                                        (csrf(user))
                                        button.secondary type="submit" aria-label={"Remove " (object_name(s))} { "Remove" }
                                    }
                                } } }
                            }
                        }
                    }
                } }
            }
            @if !busy { p { a.button href={"/environments/" (id) "/add"} { "Add a component" } } }
            (svg::topology(&services, page.env.pointer("/defaultNetworks/environment").or(page.deployed.pointer("/defaultNetworks/environment"))))
        }
    }
}

/// Every `?._actions` entry of the deployed model: (action id, object name, method, enabled).
fn actions_of(v: &Value, out: &mut Vec<(String, String, String, bool)>) {
    match v {
        Value::Object(m) => {
            if let Some(actions) = m
                .get("?")
                .and_then(|q| q.get("_actions"))
                .and_then(Value::as_object)
            {
                for (aid, a) in actions {
                    out.push((
                        aid.clone(),
                        object_name(v),
                        a.get("title")
                            .or(a.get("name"))
                            .and_then(Value::as_str)
                            .unwrap_or_default()
                            .to_string(),
                        a.get("enabled").and_then(Value::as_bool).unwrap_or(true),
                    ));
                }
            }
            m.values().for_each(|x| actions_of(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| actions_of(x, out)),
        _ => {}
    }
}

fn actions(page: &EnvPage, id: &str) -> Markup {
    let mut found = Vec::new();
    actions_of(&page.deployed, &mut found);
    let busy = matches!(text(&page.env, "status"), "deploying" | "deleting");
    html! {
        @if !found.is_empty() {
            section aria-labelledby="actions-title" {
                h2 #actions-title { "Actions" }
                div.actions {
                    @for (aid, object, method, enabled) in &found {
                        @if *enabled && !busy {
                            a.button.secondary href={"/environments/" (id) "/actions/" (aid)} { (method) " (" (object) ")" }
                        } @else {
                            span.badge.plain { (method) " (" (object) "): not available now" }
                        }
                    }
                }
            }
        }
    }
}

fn controls(user: &User, page: &EnvPage, id: &str) -> Markup {
    let status = text(&page.env, "status");
    let busy = matches!(status, "deploying" | "deleting");
    html! {
        div.actions {
            span { "Status: " span data-live-status { (badge(status)) } }
            @if !busy {
                form method="post" action={"/environments/" (id) "/deploy"} {
                    (csrf(user)) button type="submit" { "Deploy" }
                }
                @if page.session.is_some() {
                    form method="post" action={"/environments/" (id) "/discard"} {
                        (csrf(user)) button.secondary type="submit" { "Discard changes" }
                    }
                }
                form method="post" action={"/environments/" (id) "/delete"} {
                    (csrf(user)) button.danger type="submit" data-confirm="Delete this environment and everything deployed in it?" { "Delete environment" }
                }
            }
            form method="post" action={"/environments/" (id) "/abandon"} {
                (csrf(user)) button.danger type="submit" data-confirm="Abandon this environment? It is removed here; its cloud resources are not released." { "Abandon" }
            }
        }
    }
}

pub async fn show(State(dash): State<Dashboard>, user: User, Path(id): Path<String>) -> PageResult {
    let page = gather(&dash, &user, &id).await?;
    let newest = page.history.first().cloned();
    let live = match &newest {
        Some(d) => Some(deployments::log_panel(&dash, &user, &id, d).await?),
        None => None,
    };
    let body = html! {
        (controls(&user, &page, &id))
        (components(&user, &page, &id))
        (actions(&page, &id))
        @if let Some(l) = live { (l) }
        (deployments::history(&id, &page.history))
    };
    Ok(layout(
        text(&page.env, "name"),
        &user,
        Nav::Environments,
        body,
    ))
}

pub async fn deploy(State(dash): State<Dashboard>, Path(id): Path<String>, p: Posted) -> Response {
    let r = async {
        let sid = api::edit_session(&dash, &p.user, &id).await?;
        sessions::deploy(state(&dash), p.user.ctx.clone(), P((id.clone(), sid))).await
    }
    .await;
    if r.is_ok() {
        p.user.forget_env_session(&id).await;
    }
    after(
        &p.user,
        &format!("/environments/{id}"),
        r,
        "Deployment started.",
    )
}

pub async fn discard(State(dash): State<Dashboard>, Path(id): Path<String>, p: Posted) -> Response {
    let r = match api::open_session(&dash, &p.user, &id).await {
        Some(sid) => sessions::delete(state(&dash), p.user.ctx.clone(), P((id.clone(), sid)))
            .await
            .map(|_| ()),
        None => Ok(()),
    };
    p.user.forget_env_session(&id).await;
    after(
        &p.user,
        &format!("/environments/{id}"),
        r,
        "Changes discarded.",
    )
}

async fn remove_env(dash: &Dashboard, p: &Posted, id: &str, abandon: bool) -> Response {
    let flag = if abandon { "true" } else { "" };
    let r = api_envs::delete(
        state(dash),
        p.user.ctx.clone(),
        P(id.to_string()),
        query(&[("abandon", flag)]),
    )
    .await;
    match r {
        Ok(_) if abandon => after(
            &p.user,
            "/environments",
            Ok::<(), vetro_server::error::ApiError>(()),
            "Environment abandoned.",
        ),
        Ok(_) => after(
            &p.user,
            &format!("/environments/{id}"),
            Ok::<(), vetro_server::error::ApiError>(()),
            "Deletion started.",
        ),
        Err(e) => after(&p.user, &format!("/environments/{id}"), Err::<(), _>(e), ""),
    }
}

pub async fn delete(State(dash): State<Dashboard>, Path(id): Path<String>, p: Posted) -> Response {
    remove_env(&dash, &p, &id, false).await
}

pub async fn abandon(State(dash): State<Dashboard>, Path(id): Path<String>, p: Posted) -> Response {
    remove_env(&dash, &p, &id, true).await
}
