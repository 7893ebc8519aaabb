//! Deployments (tasks) and their status reports.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::kept::Kept;
use crate::routes::environments::collect_ids;
use crate::state::AppState;
use crate::views::{DeploymentList, ReportList};
use crate::{paging, scope};
use axum::extract::State;
use axum::Json;
use serde_json::Value;
use std::collections::HashSet;
use vetro_store::queue::Task;

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments", tag = "deployments",
    params(("environment_id" = String, Path),
           ("marker" = Option<String>, Query, description = "The last deployment of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..500, default 100")),
    responses((status = 200, description = "`{\"deployments\": [...], \"next_marker\"?}`, newest first", body = DeploymentList)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    q: QueryPairs,
) -> ApiResult<Kept<DeploymentList>> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let page = paging::DEPLOYMENTS.request(&q)?;
    let key = format!("{}\0{page:?}", env.id);
    let read = async {
        let deps = st
            .store
            .list_deployments(Some(&env.id), &env.project_id, &page)
            .await?;
        Ok(DeploymentList::from(deps))
    };
    st.pages.page(&st.store, &env.project_id, key, read).await
}

#[utoipa::path(get, path = "/v1/deployments", tag = "deployments",
    params(("marker" = Option<String>, Query, description = "The last deployment of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..500, default 100")),
    responses((status = 200, description = "Every deployment of the project's environments, newest first, `next_marker` when more follow", body = DeploymentList)))]
pub async fn list_all(
    State(st): State<AppState>,
    ctx: Ctx,
    q: QueryPairs,
) -> ApiResult<Kept<DeploymentList>> {
    let page = paging::DEPLOYMENTS.request(&q)?;
    let read = async {
        let deps = st
            .store
            .list_deployments(None, ctx.project(), &page)
            .await?;
        Ok(DeploymentList::from(deps))
    };
    let key = format!("{page:?}");
    st.pages.page(&st.store, ctx.project(), key, read).await
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
    responses((status = 200, description = "`{\"reports\": [...], \"next_marker\"?}`, oldest first", body = ReportList)))]
pub async fn reports(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
    q: QueryPairs,
) -> ApiResult<Json<ReportList>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    let page = paging::REPORTS.request(&q)?;
    let services = q.all("service_id");
    if services.is_empty() {
        let reports = st.store.reports_page(&task.id, None, &page).await?;
        return Ok(Json(ReportList::from(&reports)));
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
    Ok(Json(ReportList::from(&reports)))
}
