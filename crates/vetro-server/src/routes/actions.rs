//! Actions on deployed objects, their results, and static actions.

use crate::auth::Ctx;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::requests::{ActionArguments, StaticAction};
use crate::routes::deployments::env_task;
use crate::scope;
use crate::state::AppState;
use crate::views::{ActionResult, TaskId};
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
    request_body(content = Option<ActionArguments>, content_type = "application/json", description = "The action's arguments (none: no arguments)"),
    responses((status = 200, description = "`{\"task_id\"}`", body = TaskId)))]
pub async fn execute(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, action_id)): P<(String, String)>,
    JsonBody(body): JsonBody<Option<ActionArguments>>,
) -> ApiResult<Json<TaskId>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let args = Value::Object(body.map(|a| a.0).unwrap_or_default());
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
    responses((status = 200, description = "`{}` while running, then `{\"result\", \"isException\"}`", body = ActionResult)))]
pub async fn result(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, task_id)): P<(String, String)>,
) -> ApiResult<Json<ActionResult>> {
    let task = env_task(&st, &ctx, &id, &task_id).await?;
    Ok(Json(task_result(&task)))
}

fn task_result(task: &vetro_store::queue::Task) -> ActionResult {
    if !task.is_finished() {
        return ActionResult {
            result: None,
            is_exception: None,
        };
    }
    // Actions store `{"result", "isException"}`; other tasks (a deployment
    // asked for by its id) their result alone.
    let (result, is_exception) = match &task.result {
        Some(r) if r.get("isException").is_some() => (
            r.get("result").cloned().unwrap_or(Value::Null),
            r["isException"].as_bool().unwrap_or(task.is_exception),
        ),
        other => (other.clone().unwrap_or(Value::Null), task.is_exception),
    };
    ActionResult {
        result: Some(result),
        is_exception: Some(is_exception),
    }
}

#[utoipa::path(post, path = "/v1/actions", tag = "actions",
    request_body(content = StaticAction, content_type = "application/json"),
    responses((status = 200, description = "The method's result: any JSON value, `null` included", body = Value)))]
pub async fn static_action(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody<StaticAction>,
) -> ApiResult<Json<Value>> {
    let class = body.class_name.as_str();
    let package = body.package_name.as_deref().unwrap_or(class);
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
            payload: static_payload(&body),
            description: None,
            trust_id,
        })
        .await?;
    let deadline = tokio::time::Instant::now() + st.limits.static_action_wait;
    loop {
        let task = st.store.get_task(&id).await?;
        if task.is_finished() {
            let outcome = task_result(&task);
            let result = outcome.result.unwrap_or(Value::Null);
            if outcome.is_exception == Some(true) {
                let message = result["message"]
                    .as_str()
                    .unwrap_or("the static action failed");
                return Err(ApiError::bad_request(message.to_string()).with_details(result));
            }
            return Ok(Json(result));
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

/// What the worker reads of a static action's task.
fn static_payload(body: &StaticAction) -> Value {
    json!({
        "className": body.class_name.as_str(),
        "methodName": body.method_name.as_str(),
        "packageName": body.package_name,
        "classVersion": body.class_version.as_deref().unwrap_or("=0"),
        "parameters": body.parameters.clone().unwrap_or_default(),
    })
}
