//! `/v1/environments/{id}/model/{path}`: read a subtree of the model; patch
//! the session draft with a JSON patch limited to the paths Murano allows.

use crate::auth::{Ctx, SessionHeader};
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::model_path;
use crate::requests::{ModelPatchOp, ModelValue, PatchKind};
use crate::scope;
use crate::state::AppState;
use axum::extract::State;
use axum::Json;
use json_patch::jsonptr::PointerBuf;
use json_patch::PatchOperation;
use serde_json::Value;

#[utoipa::path(get, path = "/v1/environments/{environment_id}/model/{*path}", tag = "environments",
    params(("environment_id" = String, Path), ("path" = String, Path, description = "A path inside `Objects`"),
           ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "The model subtree", body = ModelValue)))]
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
    responses((status = 200, description = "The whole model (`Objects`)", body = ModelValue)))]
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

/// Murano's whitelist: `None` forbids every change, `Some(kinds)` allows
/// those; paths not listed allow everything.
fn allowed_ops(path: &str) -> Option<Option<&'static [PatchKind]>> {
    const REPLACE: &[PatchKind] = &[PatchKind::Replace];
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

/// The operation's kind, its target and, for `move`, the path it empties.
fn parts(op: &ModelPatchOp) -> (PatchKind, &str, Option<&str>) {
    match op {
        ModelPatchOp::Add { path, .. } => (PatchKind::Add, path, None),
        ModelPatchOp::Remove { path } => (PatchKind::Remove, path, None),
        ModelPatchOp::Replace { path, .. } => (PatchKind::Replace, path, None),
        ModelPatchOp::Move { from, path } => (PatchKind::Move, path, Some(from)),
        // A copy only reads its source.
        ModelPatchOp::Copy { path, .. } => (PatchKind::Copy, path, None),
        ModelPatchOp::Test { path, .. } => (PatchKind::Test, path, None),
    }
}

fn check_op(op: &ModelPatchOp) -> ApiResult<()> {
    let (kind, path, emptied) = parts(op);
    let changes = [(path, kind)]
        .into_iter()
        .chain(emptied.map(|from| (from, PatchKind::Remove)));
    for (path, change) in changes {
        match allowed_ops(path) {
            Some(None) => {
                return Err(ApiError::forbidden(format!(
                    "the model path '{path}' cannot be changed"
                )))
            }
            Some(Some(kinds)) if !kinds.contains(&change) => {
                let allowed: Vec<_> = kinds.iter().map(|k| k.as_str()).collect();
                return Err(ApiError::forbidden(format!(
                    "operation '{}' is not allowed on '{path}' (allowed: {})",
                    kind.as_str(),
                    allowed.join(", ")
                )));
            }
            _ => {}
        }
    }
    Ok(())
}

/// The operation for [`json_patch`], its paths parsed as JSON pointers.
fn json_patch_op(op: ModelPatchOp) -> ApiResult<PatchOperation> {
    use json_patch::{
        AddOperation, CopyOperation, MoveOperation, RemoveOperation, ReplaceOperation,
        TestOperation,
    };
    let ptr = |p: String| {
        PointerBuf::parse(p)
            .map_err(|e| ApiError::bad_request(format!("not a valid JSON patch: {e}")))
    };
    Ok(match op {
        ModelPatchOp::Add { path, value } => PatchOperation::Add(AddOperation {
            path: ptr(path)?,
            value,
        }),
        ModelPatchOp::Remove { path } => {
            PatchOperation::Remove(RemoveOperation { path: ptr(path)? })
        }
        ModelPatchOp::Replace { path, value } => PatchOperation::Replace(ReplaceOperation {
            path: ptr(path)?,
            value,
        }),
        ModelPatchOp::Move { from, path } => PatchOperation::Move(MoveOperation {
            from: ptr(from)?,
            path: ptr(path)?,
        }),
        ModelPatchOp::Copy { from, path } => PatchOperation::Copy(CopyOperation {
            from: ptr(from)?,
            path: ptr(path)?,
        }),
        ModelPatchOp::Test { path, value } => PatchOperation::Test(TestOperation {
            path: ptr(path)?,
            value,
        }),
    })
}

#[utoipa::path(patch, path = "/v1/environments/{environment_id}/model/", tag = "environments",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = Vec<ModelPatchOp>, content_type = "application/env-model-json-patch", description = "A non-empty JSON patch"),
    responses((status = 200, description = "The patched model (`Objects`)", body = ModelValue)))]
pub async fn patch(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
    JsonBody(ops): JsonBody<Vec<ModelPatchOp>>,
) -> ApiResult<Json<Value>> {
    if ops.is_empty() {
        return Err(ApiError::bad_request(
            "the body must be a non-empty JSON patch (a list of operations)",
        ));
    }
    ops.iter().try_for_each(check_op)?;
    let patch = json_patch::Patch(
        ops.into_iter()
            .map(json_patch_op)
            .collect::<ApiResult<_>>()?,
    );
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
