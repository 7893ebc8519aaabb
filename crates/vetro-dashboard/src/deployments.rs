//! Deployments: the live log (server-sent events, woken by the store as
//! reports are written), the history, one deployment's page with its full
//! log, result and cloud resources.

use crate::api::{state, text, ApiResult};
use crate::page::{badge, layout, Nav, PageResult};
use crate::session::User;
use crate::Dashboard;
use axum::extract::{Path, State};
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::stream::Stream;
use maud::{html, Markup};
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::Duration;
use vetro_server::extract::P;
use vetro_server::routes::deployments as api_deployments;
use vetro_server::views;
use vetro_store::environments::status_of;
use vetro_store::Store;

/// The longest a live log waits before looking at the tables again. Reports
/// and task endings wake it at once, written in this process or (through
/// the store's change watcher) in any other; this only bounds the wait
/// should a wake-up be lost.
const RECHECK: Duration = Duration::from_secs(15);

fn is_finished(d: &Value) -> bool {
    !matches!(
        text(d, "state"),
        "running" | "running_w_warnings" | "running_w_errors"
    )
}

fn what(d: &Value) -> &str {
    match text(d, "kind") {
        "deploy" => "Deployment",
        "delete" => "Deletion",
        "action" | "static_action" => "Action",
        _ => "Task",
    }
}

fn report_item(r: &Value) -> Markup {
    let level: String = text(r, "level")
        .chars()
        .filter(char::is_ascii_lowercase)
        .collect();
    html! {
        li class={"level-" (level)} {
            time { (text(r, "created").replace('T', " ").chars().take(19).collect::<String>()) }
            " " span { (text(r, "text")) }
        }
    }
}

async fn reports(dash: &Dashboard, user: &User, env: &str, dep: &str) -> ApiResult<Vec<Value>> {
    let page = api_deployments::reports(
        state(dash),
        user.ctx.clone(),
        P((env.to_string(), dep.to_string())),
        crate::api::query(&[]),
    )
    .await?
    .0;
    Ok(page.reports.iter().map(crate::api::value).collect())
}

/// The log of deployment `d`, live while it runs.
pub async fn log_panel(dash: &Dashboard, user: &User, env: &str, d: &Value) -> ApiResult<Markup> {
    let dep = text(d, "id");
    let list = reports(dash, user, env, dep).await?;
    let finished = is_finished(d);
    // The stream starts after the reports shown here, so none appears twice.
    let last = match dash.app.store.reports(dep).await {
        Ok(r) => r.last().map(|r| r.seq).unwrap_or(0),
        Err(_) => 0,
    };
    let events = format!("/environments/{env}/deployments/{dep}/events?after={last}");
    Ok(html! {
        section aria-labelledby="log-title" data-events=[(!finished).then_some(&events)]
            data-environment={"/environments/" (env)} {
            h2 #log-title { (what(d)) " log " (badge(text(d, "state"))) }
            ol.log aria-live="polite" {
                @for r in &list { (report_item(r)) }
            }
            @if list.is_empty() { p.empty { "Waiting for the first report…" } }
            p data-live-done hidden role="status" {}
            p { a href={"/environments/" (env) "/deployments/" (dep)} { "Details, result and cloud resources" } }
        }
    })
}

pub fn history(env: &str, list: &[Value]) -> Markup {
    html! {
        @if !list.is_empty() {
            section aria-labelledby="history-title" {
                h2 #history-title { "History" }
                div.table-wrap { table {
                    thead { tr { th scope="col" { "Started" } th scope="col" { "What" } th scope="col" { "State" } th.optional scope="col" { "Finished" } } }
                    tbody {
                        @for d in list {
                            tr {
                                td { a href={"/environments/" (env) "/deployments/" (text(d, "id"))} { (text(d, "started").replace('T', " ")) } }
                                td { (what(d)) @if let Some(m) = d.pointer("/action/method").and_then(Value::as_str) { ": " (m) } }
                                td { (badge(text(d, "state"))) }
                                td.optional { (text(d, "finished").replace('T', " ")) }
                            }
                        }
                    }
                } }
            }
        }
    }
}

pub async fn show(
    State(dash): State<Dashboard>,
    user: User,
    Path((env, dep)): Path<(String, String)>,
) -> PageResult {
    let list = api_deployments::list(
        state(&dash),
        user.ctx.clone(),
        P(env.clone()),
        crate::api::query(&[("limit", "500")]),
    )
    .await?;
    let list = serde_json::to_value(list).unwrap_or(Value::Null);
    let d = list["deployments"]
        .as_array()
        .and_then(|l| l.iter().find(|d| text(d, "id") == dep))
        .cloned()
        .ok_or_else(|| {
            vetro_server::error::ApiError::not_found(format!("deployment {dep} not found"))
        })?;
    let panel = log_panel(&dash, &user, &env, &d).await?;
    let cloud = dash.app.store.cloud_state(&env).await.ok().flatten();
    let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
    let body = html! {
        p { a href={"/environments/" (env)} { "Back to the environment" } }
        dl.facts {
            dt { "State" } dd { (badge(text(&d, "state"))) }
            dt { "Started" } dd { (text(&d, "started").replace('T', " ")) }
            dt { "Finished" } dd { (text(&d, "finished").replace('T', " ")) }
        }
        (panel)
        @if is_finished(&d) {
            section aria-labelledby="result-title" {
                h2 #result-title { "Result" }
                pre { (pretty(&d["result"])) }
            }
        }
        @if let Some(c) = &cloud {
            section aria-labelledby="cloud-title" {
                h2 #cloud-title { "Cloud resources (Heat stack and servers)" }
                pre { (pretty(c)) }
            }
        }
    };
    Ok(layout(
        &format!("{} {}", what(&d), &dep[..dep.len().min(8)]),
        &user,
        Nav::Environments,
        body,
    ))
}

/// The status an environment has after a task ended, `deleted` once it is gone.
async fn final_status(store: &Store, env: &str) -> String {
    match store.session_marks(env).await {
        Ok(marks) if store.environment_project(env).await.is_ok() => status_of(&marks),
        _ => "deleted".into(),
    }
}

struct Live {
    store: Store,
    task: String,
    env: String,
    seen: i64,
    pending: std::collections::VecDeque<Value>,
    writes: tokio::sync::watch::Receiver<u64>,
    /// The environment is gone (deleted before the browser asked).
    gone: bool,
    done: bool,
}

fn end_event(status: &str) -> Event {
    Event::default()
        .event("end")
        .data(json!({"status": status}).to_string())
}

async fn next_event(mut s: Live) -> Option<(Result<Event, Infallible>, Live)> {
    if s.done {
        return None;
    }
    if s.gone {
        s.done = true;
        return Some((Ok(end_event("deleted")), s));
    }
    loop {
        if let Some(r) = s.pending.pop_front() {
            let seq = r["seq"].as_i64().unwrap_or(s.seen);
            let ev = Event::default()
                .event("report")
                .id(seq.to_string())
                .data(r.to_string());
            return Some((Ok(ev), s));
        }
        // Mark what is written from here on before looking, so nothing slips between.
        s.writes.borrow_and_update();
        let fresh = s
            .store
            .reports_after(&s.task, s.seen)
            .await
            .unwrap_or_default();
        if let Some(last) = fresh.last() {
            s.seen = last.seq;
            s.pending.extend(fresh.iter().map(|r| {
                let mut v = crate::api::value(views::ReportView::from(r));
                v["seq"] = json!(r.seq);
                v
            }));
            continue;
        }
        let finished = match s.store.get_task(&s.task).await {
            Ok(t) => t.is_finished(),
            Err(_) => true,
        };
        if finished {
            let status = final_status(&s.store, &s.env).await;
            s.done = true;
            return Some((Ok(end_event(&status)), s));
        }
        let _ = tokio::time::timeout(RECHECK, s.writes.changed()).await;
    }
}

/// Server-sent events of one task: its reports (after `Last-Event-ID` when
/// the browser reconnects), then `end` with the environment's status.
pub async fn events(
    State(dash): State<Dashboard>,
    user: User,
    headers: HeaderMap,
    Path((env, dep)): Path<(String, String)>,
    axum::extract::Query(q): axum::extract::Query<std::collections::HashMap<String, String>>,
) -> Result<Sse<impl Stream<Item = Result<Event, Infallible>>>, crate::page::PageError> {
    // A deletion removes its environment with its tasks, often before the
    // browser connects: a missing one ends the stream at once (as for an id
    // that never existed or belongs to another project: nothing leaks).
    let (task, gone) = match api_deployments::env_task(&dash.app, &user.ctx, &env, &dep).await {
        Ok(t) => (t.id, false),
        Err(e) if e.status == axum::http::StatusCode::NOT_FOUND => (dep, true),
        Err(e) => return Err(e.into()),
    };
    let seen = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<i64>().ok())
        .or_else(|| q.get("after").and_then(|v| v.parse::<i64>().ok()))
        .unwrap_or(0);
    let live = Live {
        writes: dash.app.store.task_writes(),
        store: dash.app.store.clone(),
        task,
        env,
        seen,
        pending: Default::default(),
        gone,
        done: false,
    };
    Ok(Sse::new(futures_util::stream::unfold(live, next_event)).keep_alive(KeepAlive::default()))
}
