//! Deployments (tasks) and their status reports.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::paging::JsonList;
use crate::routes::environments::collect_ids;
use crate::state::AppState;
use crate::{paging, scope, views};
use axum::extract::State;
use axum::Json;
use serde_json::Value;
use std::collections::HashSet;
use vetro_store::page::Page;
use vetro_store::queue::{Report, Task};

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments", tag = "deployments",
    params(("environment_id" = String, Path),
           ("marker" = Option<String>, Query, description = "The last deployment of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..500, default 100")),
    responses((status = 200, description = "`{\"deployments\": [...], \"next_marker\"?}`, newest first", body = crate::schemas::DeploymentList)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    q: QueryPairs,
) -> ApiResult<JsonList> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let page = paging::DEPLOYMENTS.request(&q)?;
    let deps = st
        .store
        .deployment_page_json(Some(&env.id), &env.project_id, &page)
        .await?;
    Ok(JsonList::new("deployments", deps))
}

#[utoipa::path(get, path = "/v1/deployments", tag = "deployments",
    params(("marker" = Option<String>, Query, description = "The last deployment of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..500, default 100")),
    responses((status = 200, description = "Every deployment of the project's environments, newest first, `next_marker` when more follow", body = crate::schemas::DeploymentList)))]
pub async fn list_all(State(st): State<AppState>, ctx: Ctx, q: QueryPairs) -> ApiResult<JsonList> {
    let page = paging::DEPLOYMENTS.request(&q)?;
    let deps = st
        .store
        .deployment_page_json(None, ctx.project(), &page)
        .await?;
    Ok(JsonList::new("deployments", deps))
}

/// A task of an environment the caller may see.
pub async fn env_task(st: &AppState, ctx: &Ctx, env_id: &str, task_id: &str) -> ApiResult<Task> {
    let env = scope::environment(st, ctx, env_id).await?;
    let task = st.store.get_task(task_id).await.map_err(|e| match e {
        vetro_store::StoreError::NotFound(_) => {
            ApiError::not_found(format!("deployment {task_id} not found"))
        }
        other => other.into(),
    })?;
    if task.environment_id.as_deref() != Some(env.id.as_str()) {
        return Err(ApiError::not_found(format!(
            "deployment {task_id} not found"
        )));
    }
    Ok(task)
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments/{deployment_id}", tag = "deployments",
    params(("environment_id" = String, Path), ("deployment_id" = String, Path),
           ("service_id" = Option<Vec<String>>, Query, description = "Only reports about objects inside these services"),
           ("marker" = Option<String>, Query, description = "The last report of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..10000, default 10000")),
    responses((status = 200, description = "`{\"reports\": [...], \"next_marker\"?}`, oldest first", body = crate::schemas::ReportList)))]
pub async fn reports(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
    q: QueryPairs,
) -> ApiResult<Json<Value>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    let page = paging::REPORTS.request(&q)?;
    let services = q.all("service_id");
    if services.is_empty() {
        let reports = st.store.reports_page(&task.id, None, &page).await?;
        return Ok(Json(report_page(&reports)));
    }
    let model = match task.description.clone() {
        Some(d) => d,
        None => st.store.get_environment(&id).await?.model["Objects"].clone(),
    };
    let mut ids = Vec::new();
    for srv in model
        .get("services")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if services.contains(&srv.pointer("/?/id").and_then(Value::as_str).unwrap_or("")) {
            collect_ids(srv, &mut ids);
        }
    }
    let ids: HashSet<&str> = ids.into_iter().collect();
    let reports = st.store.reports_page(&task.id, Some(&ids), &page).await?;
    Ok(Json(report_page(&reports)))
}

fn report_page(reports: &Page<Report>) -> Value {
    paging::body("reports", reports, views::report, |r| r.id.as_str())
}
