//! Actions on deployed objects, their results, and static actions.

use crate::auth::Ctx;
use crate::body::{object, JsonBody};
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::routes::deployments::env_task;
use crate::scope;
use crate::state::AppState;
use crate::views::TaskId;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};
use vetro_store::environments::status_of;
use vetro_store::queue::{NewTask, TaskKind};

/// Finds `action_id` (`<objectId>_<method>` as the engine lists it in `?._actions`)
/// in a deployed model: `(object id, method name, enabled)`.
fn find_action(v: &Value, action_id: &str) -> Option<(String, String, bool)> {
    match v {
        Value::Object(m) => {
            if let Some(actions) = m
                .get("?")
                .and_then(|q| q.get("_actions"))
                .and_then(Value::as_object)
            {
                if let Some(a) = actions.get(action_id) {
                    let obj = m["?"].get("id").and_then(Value::as_str).unwrap_or_default();
                    let name = a.get("name").and_then(Value::as_str).unwrap_or_default();
                    let enabled = a.get("enabled").and_then(Value::as_bool).unwrap_or(true);
                    return Some((obj.to_string(), name.to_string(), enabled));
                }
            }
            m.values().find_map(|x| find_action(x, action_id))
        }
        Value::Array(a) => a.iter().find_map(|x| find_action(x, action_id)),
        _ => None,
    }
}

#[utoipa::path(post, path = "/v1/environments/{environment_id}/actions/{action_id}", tag = "actions",
    params(("environment_id" = String, Path), ("action_id" = String, Path, description = "`<objectId>_<methodName>` from the model's `?._actions`")),
    request_body(content = crate::schemas::AnyObject, content_type = "application/json", description = "The action's arguments"),
    responses((status = 200, description = "`{\"task_id\"}`", body = crate::views::TaskId)))]
pub async fn execute(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, action_id)): P<(String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<TaskId>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let args = if body.is_null() {
        json!({})
    } else {
        Value::Object(object(&body)?.clone())
    };
    let status = status_of(&st.store.session_marks(&env.id).await?);
    if status == "deploying" || status == "deleting" {
        return Err(ApiError::forbidden(format!(
            "environment {} is {status}",
            env.id
        )));
    }
    let objects = env.model.get("Objects").cloned().unwrap_or(Value::Null);
    let Some((object_id, method, enabled)) = find_action(&objects, &action_id) else {
        return Err(ApiError::not_found(format!("action {action_id} not found")));
    };
    if !enabled {
        return Err(ApiError::bad_request(format!(
            "action {action_id} is disabled"
        )));
    }
    crate::quota::task(&st, &env.project_id).await?;
    let payload =
        json!({"object_id": object_id, "method": method, "args": args, "action_id": action_id});
    let trust = crate::auth::delegate(&st, ctx.keystone.as_deref()).await?;
    let (_, task_id) = st
        .store
        .submit_in_new_session(
            &env.id,
            ctx.user(),
            &env.project_id,
            TaskKind::Action,
            payload,
            trust.as_deref(),
        )
        .await?;
    Ok(Json(TaskId { task_id }))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/actions/{action_id}", tag = "actions",
    params(("environment_id" = String, Path),
           ("action_id" = String, Path, description = "The `task_id` the action's call answered with")),
    responses((status = 200, description = "`{}` while running, then `{\"result\", \"isException\"}`", body = crate::schemas::AnyObject)))]
pub async fn result(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, task_id)): P<(String, String)>,
) -> ApiResult<Json<Value>> {
    let task = env_task(&st, &ctx, &id, &task_id).await?;
    Ok(Json(task_result(&task)))
}

fn task_result(task: &vetro_store::queue::Task) -> Value {
    if !task.is_finished() {
        return json!({});
    }
    match &task.result {
        Some(r) if r.get("isException").is_some() => r.clone(),
        other => {
            json!({"result": other.clone().unwrap_or(Value::Null), "isException": task.is_exception})
        }
    }
}

#[utoipa::path(post, path = "/v1/actions", tag = "actions",
    request_body(content = crate::schemas::StaticAction, content_type = "application/json"),
    responses((status = 200, description = "The method's result", body = crate::schemas::AnyValue)))]
pub async fn static_action(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<Value>> {
    let o = object(&body)?;
    for field in ["className", "methodName"] {
        if o.get(field)
            .and_then(Value::as_str)
            .is_none_or(str::is_empty)
        {
            return Err(ApiError::bad_request(format!(
                "'{field}' is required and must be a string"
            )));
        }
    }
    if o.get("parameters").is_some_and(|p| !p.is_object()) {
        return Err(ApiError::bad_request("'parameters' must be an object"));
    }
    let payload = json!({
        "className": o["className"],
        "methodName": o["methodName"],
        "packageName": o.get("packageName").cloned().unwrap_or(Value::Null),
        "classVersion": o.get("classVersion").cloned().unwrap_or(json!("=0")),
        "parameters": o.get("parameters").cloned().unwrap_or(json!({})),
    });
    let class = o["className"].as_str().unwrap_or_default();
    let package = o
        .get("packageName")
        .and_then(Value::as_str)
        .unwrap_or(class);
    if st
        .store
        .resolve_package(ctx.project(), package)
        .await?
        .is_none()
    {
        return Err(ApiError::not_found(format!(
            "no package provides class {class}"
        )));
    }
    crate::quota::task(&st, ctx.project()).await?;
    let trust_id = crate::auth::delegate(&st, ctx.keystone.as_deref()).await?;
    let id = st
        .store
        .enqueue(&NewTask {
            project_id: ctx.project().to_string(),
            environment_id: None,
            session_id: None,
            user_id: ctx.user().to_string(),
            kind: TaskKind::StaticAction,
            payload,
            description: None,
            trust_id,
        })
        .await?;
    let deadline = tokio::time::Instant::now() + st.limits.static_action_wait;
    loop {
        let task = st.store.get_task(&id).await?;
        if task.is_finished() {
            let r = task_result(&task);
            if r["isException"] == json!(true) {
                return Err(ApiError::bad_request(
                    r["result"]["message"]
                        .as_str()
                        .unwrap_or("the static action failed")
                        .to_string(),
                )
                .with_details(r["result"].clone()));
            }
            return Ok(Json(r["result"].clone()));
        }
        if tokio::time::Instant::now() >= deadline {
            st.store.request_cancel(&id).await?;
            return Err(ApiError::unavailable(
                "no engine worker answered the static action in time",
            ));
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}
