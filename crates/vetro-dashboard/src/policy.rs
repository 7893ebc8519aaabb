//! The project's deployment policy: edited in place, its errors shown at
//! their line and column, and the violations that stopped the last deploy.

use crate::api::{state, text};
use crate::page::{csrf, layout, Nav, PageResult};
use crate::session::{Posted, User};
use crate::Dashboard;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};
use serde_json::Value;
use vetro_policy::datalog::{Engine, PolicyKind};
use vetro_server::body::JsonBody;
use vetro_server::requests::PolicyUpdate;
use vetro_server::routes::{deployments as api_deployments, vetro as api_vetro};

/// A compile error of policy text: (line, column, message).
pub fn compile_error(text: &str) -> Option<(usize, usize, String)> {
    let mut engine = Engine::new();
    let e = vetro_policy::enforce::load_rules(&mut engine, text, PolicyKind::Nonrecursive).err()?;
    let (line, col) = e
        .span
        .map(|p| (p.line as usize, p.col as usize))
        .unwrap_or((0, 0));
    Some((line, col, e.message))
}

/// The newest deployment of the project that the policy refused.
async fn last_blocked(dash: &Dashboard, user: &User) -> Option<Value> {
    let all = api_deployments::list_all(state(dash), user.ctx.clone(), crate::api::query(&[]))
        .await
        .ok()?;
    serde_json::to_value(all).ok()?["deployments"]
        .as_array()?
        .iter()
        .find(|d| {
            d.pointer("/result/result/violations")
                .and_then(Value::as_array)
                .is_some_and(|v| !v.is_empty())
        })
        .cloned()
}

async fn render(
    dash: &Dashboard,
    user: &User,
    text_now: Option<&str>,
    error: Option<(usize, usize, String)>,
) -> PageResult {
    let current = api_vetro::get_policy(state(dash), user.ctx.clone())
        .await?
        .0;
    let shown = text_now
        .map(str::to_string)
        .unwrap_or_else(|| current.policy.clone().unwrap_or_default());
    let blocked = last_blocked(dash, user).await;
    let body = html! {
        p {
            "Rules in Congress syntax; every " code { "predeploy_errors(eid, oid, msg)" } " row stops a deploy or an action. "
            @match current.source {
                Some("project") => "This project has its own policy.",
                Some("default") => "The service's default policy applies until you save one.",
                _ => "No policy is set.",
            }
        }
        form method="post" action="/policy" {
            (csrf(user))
            label for="policy-text" { "Policy" }
            @if let Some((line, col, msg)) = &error {
                p.field-error #policy-text-error role="alert" { "Line " (line) ", column " (col) ": " (msg) }
            }
            textarea #policy-text name="policy" rows="14" spellcheck="false"
                aria-invalid=[error.is_some().then_some("true")] aria-describedby="policy-text-error" { (shown) }
            div.actions {
                button type="submit" { "Save the policy" }
                button.secondary type="submit" name="clear" value="true" { "Remove the project's policy" }
            }
        }
        (violations(blocked.as_ref()))
    };
    Ok(layout("Policy", user, Nav::Policy, body))
}

fn violations(d: Option<&Value>) -> Markup {
    html! {
        section aria-labelledby="blocked-title" {
            h2 #blocked-title { "Violations that blocked the last refused deploy" }
            @match d {
                None => p { "No deploy has been refused by the policy." },
                Some(d) => {
                    p { "Environment " a href={"/environments/" (text(d, "environment_id")) "/deployments/" (text(d, "id"))} { (text(d, "environment_id")) } ", " (text(d, "started").replace('T', " ")) }
                    ul {
                        @for v in d.pointer("/result/result/violations").and_then(Value::as_array).into_iter().flatten() {
                            li { code { (text(v, "object_id")) } ": " (text(v, "message")) }
                        }
                    }
                }
            }
        }
    }
}

pub async fn show(State(dash): State<Dashboard>, user: User) -> PageResult {
    render(&dash, &user, None, None).await
}

pub async fn save(State(dash): State<Dashboard>, p: Posted) -> Response {
    let clear = p.fields.text("clear") == "true";
    let text_in = p
        .fields
        .get("policy")
        .unwrap_or_default()
        .replace("\r\n", "\n");
    if !clear {
        if let Some(err) = compile_error(&text_in) {
            return match render(&dash, &p.user, Some(&text_in), Some(err)).await {
                Ok(page) => (StatusCode::UNPROCESSABLE_ENTITY, page).into_response(),
                Err(e) => e.into_response(),
            };
        }
    }
    let value = if clear { None } else { Some(text_in) };
    let r = api_vetro::put_policy(
        state(&dash),
        p.user.ctx.clone(),
        JsonBody(PolicyUpdate { policy: value }),
    )
    .await;
    crate::page::after(
        &p.user,
        "/policy",
        r,
        if clear {
            "Policy removed."
        } else {
            "Policy saved."
        },
    )
}
