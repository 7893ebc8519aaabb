//! vetro additions to Murano's API: policies, cancel, the live report
//! stream, health and readiness.

use crate::auth::Ctx;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::requests::PolicyUpdate;
use crate::routes::deployments::env_task;
use crate::state::AppState;
use crate::views::{CancelRequested, Health, PolicyView, ReportView, StreamEnd};
use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use futures_util::stream::Stream;
use std::convert::Infallible;
use std::time::Duration;
use vetro_policy::datalog::{Engine, PolicyKind};

#[utoipa::path(get, path = "/v1/policy", tag = "vetro",
    responses((status = 200, description = "vetro addition. The project's deployment policy: `{\"policy\": text or null, \"source\": \"project\" | \"default\" | null}`", body = PolicyView)))]
pub async fn get_policy(State(st): State<AppState>, ctx: Ctx) -> ApiResult<Json<PolicyView>> {
    let own = st.store.policy(ctx.project()).await?;
    let (text, source) = match (own, &st.default_policy) {
        (Some(t), _) => (Some(t), Some("project")),
        (None, Some(d)) => (Some(d.to_string()), Some("default")),
        (None, None) => (None, None),
    };
    Ok(Json(PolicyView {
        policy: text,
        source,
    }))
}

#[utoipa::path(put, path = "/v1/policy", tag = "vetro",
    request_body(content = PolicyUpdate, content_type = "application/json"),
    responses((status = 200, description = "vetro addition. Sets (or with null, clears) the project's policy in Congress syntax; `predeploy_errors(eid, oid, msg)` rows fail deploys and actions", body = PolicyView)))]
pub async fn put_policy(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody<PolicyUpdate>,
) -> ApiResult<Json<PolicyView>> {
    let text = body.policy;
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
    responses((status = 200, description = "vetro addition. Asks a queued or running deployment to stop at the engine's next step; it ends as cancelled", body = CancelRequested)))]
pub async fn cancel(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
) -> ApiResult<Json<CancelRequested>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    if !st.store.request_cancel(&task.id).await? {
        return Err(ApiError::conflict(format!(
            "deployment {} has already finished",
            task.id
        )));
    }
    Ok(Json(CancelRequested {
        id: task.id,
        cancel_requested: true,
    }))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments/{deployment_id}/events", tag = "vetro",
    params(("environment_id" = String, Path), ("deployment_id" = String, Path)),
    responses((status = 200, description = "vetro addition. Server-sent events: one `report` event per status report (past ones first), then `end` with the deployment when it finishes", content_type = "text/event-stream", body = crate::views::ServerSentEvent)))]
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
                        .json_data(ReportView::from(r))
                        .unwrap_or_default();
                    return Some((Ok(ev), (st, task_id, r.seq, false)));
                }
                match st.store.get_task(&task_id).await {
                    Ok(t) if t.is_finished() => {
                        let ev = Event::default()
                            .event("end")
                            .json_data(StreamEnd::from(&t))
                            .unwrap_or_default();
                        return Some((Ok(ev), (st, task_id, seen, true)));
                    }
                    Ok(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                    Err(_) => {
                        let gone = StreamEnd {
                            id: task_id.clone(),
                            task_state: "deleted".into(),
                            result: None,
                        };
                        let ev = Event::default()
                            .event("end")
                            .json_data(gone)
                            .unwrap_or_default();
                        return Some((Ok(ev), (st, task_id, seen, true)));
                    }
                }
            }
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}

#[utoipa::path(get, path = "/healthz", tag = "vetro",
    responses((status = 200, description = "vetro addition. The process is up", body = Health)), security(()))]
pub async fn health() -> Json<Health> {
    Json(Health { status: "ok" })
}

#[utoipa::path(get, path = "/readyz", tag = "vetro",
    responses((status = 200, description = "vetro addition. The database answers", body = Health)), security(()))]
pub async fn ready(State(st): State<AppState>) -> ApiResult<Json<Health>> {
    st.store.ping().await?;
    Ok(Json(Health { status: "ready" }))
}
