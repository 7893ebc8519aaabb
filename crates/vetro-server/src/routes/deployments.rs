//! Deployments (tasks) and their status reports.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::routes::environments::collect_ids;
use crate::state::AppState;
use crate::{scope, views};
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};
use vetro_store::queue::Task;

#[utoipa::path(get, path = "/v1/environments/{environment_id}/deployments", tag = "deployments",
    params(("environment_id" = String, Path)),
    responses((status = 200, description = "`{\"deployments\": [...]}`, newest first", body = crate::schemas::DeploymentList)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Value>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let deps = st
        .store
        .list_deployments(Some(&env.id), &env.project_id)
        .await?;
    let list: Vec<Value> = deps.iter().map(views::deployment).collect();
    Ok(Json(json!({ "deployments": list })))
}

#[utoipa::path(get, path = "/v1/deployments", tag = "deployments",
    responses((status = 200, description = "Every deployment of the project's environments, newest first", body = crate::schemas::DeploymentList)))]
pub async fn list_all(State(st): State<AppState>, ctx: Ctx) -> ApiResult<Json<Value>> {
    let deps = st.store.list_deployments(None, ctx.project()).await?;
    let list: Vec<Value> = deps.iter().map(views::deployment).collect();
    Ok(Json(json!({ "deployments": list })))
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
           ("service_id" = Option<Vec<String>>, Query, description = "Only reports about objects inside these services")),
    responses((status = 200, description = "`{\"reports\": [...]}`, oldest first", body = crate::schemas::ReportList)))]
pub async fn reports(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, dep)): P<(String, String)>,
    q: QueryPairs,
) -> ApiResult<Json<Value>> {
    let task = env_task(&st, &ctx, &id, &dep).await?;
    let env = st.store.get_environment(&id).await?;
    let mut reports = st.store.reports(&task.id).await?;
    let services = q.all("service_id");
    if !services.is_empty() {
        let model = task
            .description
            .clone()
            .unwrap_or_else(|| env.model["Objects"].clone());
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
        reports.retain(|r| ids.contains(&r.entity_id.as_str()));
    }
    let list: Vec<Value> = reports.iter().map(views::report).collect();
    Ok(Json(json!({ "reports": list })))
}
