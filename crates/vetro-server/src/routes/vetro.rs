//! vetro additions to Murano's API: policies, cancel, the live report
//! stream, health and readiness.

use crate::auth::Ctx;
use crate::body::{object, JsonBody};
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::routes::deployments::env_task;
use crate::state::AppState;
use crate::views;
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::stream::Stream;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::time::Duration;
use vetro_policy::datalog::{Engine, PolicyKind};

#[utoipa::path(get, path = "/v1/policy", tag = "vetro",
    responses((status = 200, description = "vetro addition. The project's deployment policy: `{\"policy\": text or null, \"source\": \"project\" | \"default\" | null}`", body = crate::schemas::PolicyView)))]
pub async fn get_policy(State(st): State<AppState>, ctx: Ctx) -> ApiResult<Json<Value>> {
    let own = st.store.policy(ctx.project()).await?;
    let (text, source) = match (own, &st.default_policy) {
        (Some(t), _) => (Some(t), Some("project")),
        (None, Some(d)) => (Some(d.to_string()), Some("default")),
        (None, None) => (None, None),
    };
    Ok(Json(json!({"policy": text, "source": source})))
}

#[utoipa::path(put, path = "/v1/policy", tag = "vetro",
    request_body(content = crate::schemas::PolicyUpdate, content_type = "application/json"),
    responses((status = 200, description = "vetro addition. Sets (or with null, clears) the project's policy in Congress syntax; `predeploy_errors(eid, oid, msg)` rows fail deploys and actions", body = crate::schemas::PolicyView)))]
pub async fn put_policy(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<Value>> {
    let text = match object(&body)?.get("policy") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Null) => None,
        _ => {
            return Err(ApiError::bad_request(
                "'policy' must be the policy text or null",
            ))
        }
    };
    if let Some(t) = &text {
        let mut engine = Engine::new();
        vetro_policy::enforce::load_rules(&mut engine, t, PolicyKind::Nonrecursive)
            .map_err(|e| ApiError::bad_request(format!("the policy does not compile: {e}")))?;
    }
    st.store.set_policy(ctx.project(), text.as_deref()).await?;
    get_policy(State(st), ctx).await
}

#[utoipa::path(post, path = "/v1/environments/{environment_id}/deployments/{deployment_id}/cancel", tag = "vetro",
    params(("environment_id" = String, Path), ("deployment_id" = String, Path)),
    responses((status = 200, description = "vetro addition. Asks a queued or running deployment to stop at the engine's next step; it ends as cancelled", body = crate::schemas::AnyObject)))]
pub async fn cancel(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
) -> ApiResult<Json<Value>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    if !st.store.request_cancel(&task.id).await? {
        return Err(ApiError::conflict(format!(
            "deployment {} has already finished",
            task.id
        )));
    }
    Ok(Json(json!({"id": task.id, "cancel_requested": true})))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments/{deployment_id}/events", tag = "vetro",
    params(("environment_id" = String, Path), ("deployment_id" = String, Path)),
    responses((status = 200, description = "vetro addition. Server-sent events: one `report` event per status report (past ones first), then `end` with the deployment when it finishes", content_type = "text/event-stream", body = crate::schemas::ServerSentEvent)))]
pub async fn events(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
) -> ApiResult<Sse<impl Stream<Item = Result<Event, Infallible>>>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    let stream = futures_util::stream::unfold(
        (st, task.id, 0i64, false),
        |(st, task_id, seen, done)| async move {
            if done {
                return None;
            }
            loop {
                let reports = st
                    .store
                    .reports_after(&task_id, seen)
                    .await
                    .unwrap_or_default();
                if let Some(r) = reports.first() {
                    let ev = Event::default()
                        .event("report")
                        .id(r.seq.to_string())
                        .data(views::report(r).to_string());
                    return Some((Ok(ev), (st, task_id, r.seq, false)));
                }
                match st.store.get_task(&task_id).await {
                    Ok(t) if t.is_finished() => {
                        let ev = Event::default().event("end").data(
                            json!({"id": t.id, "task_state": t.state, "result": t.result})
                                .to_string(),
                        );
                        return Some((Ok(ev), (st, task_id, seen, true)));
                    }
                    Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                    Err(_) => {
                        let ev = Event::default()
                            .event("end")
                            .data(json!({"id": task_id, "task_state": "deleted"}).to_string());
                        return Some((Ok(ev), (st, task_id, seen, true)));
                    }
                }
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

#[utoipa::path(get, path = "/healthz", tag = "vetro",
    responses((status = 200, description = "vetro addition. The process is up", body = crate::schemas::AnyObject)), security(()))]
pub async fn health() -> Json<Value> {
    Json(json!({"status": "ok"}))
}

#[utoipa::path(get, path = "/readyz", tag = "vetro",
    responses((status = 200, description = "vetro addition. The database answers", body = crate::schemas::AnyObject)), security(()))]
pub async fn ready(State(st): State<AppState>) -> ApiResult<Json<Value>> {
    st.store.ping().await?;
    Ok(Json(json!({"status": "ready"})))
}
