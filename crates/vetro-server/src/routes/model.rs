//! `/v1/environments/{id}/model/{path}`: read a subtree of the model; patch
//! the session draft with a JSON patch limited to the paths Murano allows.

use crate::auth::{Ctx, SessionHeader};
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::model_path;
use crate::scope;
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use serde_json::Value;

#[utoipa::path(get, path = "/v1/environments/{environment_id}/model/{*path}", tag = "environments",
    params(("environment_id" = String, Path), ("path" = String, Path, description = "A path inside `Objects`"),
           ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "The model subtree", body = crate::schemas::AnyValue)))]
pub async fn get_path(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<Value>> {
    read(&st, &ctx, &id, &path, sid).await
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/model/", tag = "environments",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "The whole model (`Objects`)", body = crate::schemas::AnyValue)))]
pub async fn get_root(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<Value>> {
    read(&st, &ctx, &id, "", sid).await
}

async fn read(
    st: &AppState,
    ctx: &Ctx,
    id: &str,
    path: &str,
    sid: Option<String>,
) -> ApiResult<Json<Value>> {
    let env = scope::environment(st, ctx, id).await?;
    let model = match sid {
        Some(sid) => scope::session(st, ctx, &env.id, &sid).await?.model,
        None => env.model,
    };
    let objects = model.get("Objects").cloned().unwrap_or(Value::Null);
    let v = model_path::get(&objects, path).map_err(|e| ApiError::not_found(e.0))?;
    Ok(Json(v.clone()))
}

/// Murano's whitelist: `None` forbids every operation, `Some(ops)` allows
/// those; paths not listed allow everything.
fn allowed_ops(path: &str) -> Option<Option<&'static [&'static str]>> {
    const REPLACE: &[&str] = &["replace"];
    Some(match path.trim_matches('/') {
        "" | "?/id" | "defaultNetworks/environment/?/id" => None,
        "defaultNetworks"
        | "defaultNetworks/environment"
        | "defaultNetworks/flat"
        | "name"
        | "region"
        | "?/type" => Some(REPLACE),
        _ => return None,
    })
}

fn check_op(op: &Value) -> ApiResult<()> {
    let o = op
        .as_object()
        .ok_or_else(|| ApiError::bad_request("each patch operation must be an object"))?;
    let kind = o.get("op").and_then(Value::as_str).unwrap_or_default();
    for key in ["path", "from"] {
        let Some(path) = o.get(key) else { continue };
        let path = path
            .as_str()
            .ok_or_else(|| ApiError::bad_request(format!("'{key}' must be a string")))?;
        let check_kind = if key == "from" && kind == "move" {
            "remove"
        } else if key == "from" {
            "read"
        } else {
            kind
        };
        match allowed_ops(path) {
            Some(None) if check_kind != "read" => {
                return Err(ApiError::forbidden(format!(
                    "the model path '{path}' cannot be changed"
                )))
            }
            Some(Some(ops)) if check_kind != "read" && !ops.contains(&check_kind) => {
                return Err(ApiError::forbidden(format!(
                    "operation '{kind}' is not allowed on '{path}' (allowed: {})",
                    ops.join(", ")
                )))
            }
            _ => {}
        }
    }
    Ok(())
}

#[utoipa::path(patch, path = "/v1/environments/{environment_id}/model/", tag = "environments",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = Vec<crate::schemas::PatchOp>, content_type = "application/env-model-json-patch"),
    responses((status = 200, description = "The patched model (`Objects`)", body = crate::schemas::AnyValue)))]
pub async fn patch(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<Value>> {
    let ops = body.as_array().filter(|a| !a.is_empty()).ok_or_else(|| {
        ApiError::bad_request("the body must be a non-empty JSON patch (a list of operations)")
    })?;
    ops.iter().try_for_each(check_op)?;
    let patch: json_patch::Patch = serde_json::from_value(body.clone())
        .map_err(|e| ApiError::bad_request(format!("not a valid JSON patch: {e}")))?;
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let s = scope::open_session(&st, &ctx, &env.id, sid).await?;
    let mut model = s.model.clone();
    let objects = model
        .get_mut("Objects")
        .filter(|o| o.is_object())
        .ok_or_else(|| ApiError::forbidden("the session's model has no objects to patch"))?;
    json_patch::patch(objects, &patch)
        .map_err(|e| ApiError::not_found(format!("the patch does not apply: {e}")))?;
    let objects = objects.clone();
    if !objects
        .get("?")
        .and_then(|q| q.get("id"))
        .is_some_and(Value::is_string)
    {
        return Err(ApiError::bad_request(
            "the patched model lost its '?' header",
        ));
    }
    crate::quota::model(&st, &model)?;
    st.store.update_session_model(&s.id, &model).await?;
    Ok(Json(objects))
}
