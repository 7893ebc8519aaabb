//! Application components under a session: `/v1/environments/{id}/services[/{path}]`.
//! Paths are relative to the model's `Objects.services`; writes go into the
//! session's draft only.

use crate::auth::{Ctx, SessionHeader};
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::model_path;
use crate::requests::{ModelObject, ModelValue};
use crate::scope;
use crate::state::AppState;
use crate::views::Done;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};
use vetro_store::environments::status_of;

fn full_path(rest: &str) -> String {
    format!("/services/{}", rest.trim_start_matches('/'))
}

fn not_found(e: model_path::PathError) -> ApiError {
    ApiError::not_found(e.0)
}

async fn read(
    st: &AppState,
    ctx: &Ctx,
    id: &str,
    sid: Option<String>,
    rest: &str,
) -> ApiResult<Json<Value>> {
    let env = scope::environment(st, ctx, id).await?;
    let model = match sid {
        Some(sid) => scope::session(st, ctx, &env.id, &sid).await?.model,
        None => env.model.clone(),
    };
    let mut objects = model.get("Objects").cloned().unwrap_or(Value::Null);
    if objects.get("services").is_none() {
        return Ok(Json(json!([])));
    }
    let mut value = model_path::get(&objects, &full_path(rest))
        .map_err(not_found)?
        .clone();
    if rest.trim_matches('/').is_empty() {
        let status = status_of(&st.store.session_marks(&env.id).await?);
        for srv in value.as_array_mut().into_iter().flatten() {
            if let Some(meta) = srv.get_mut("?").and_then(Value::as_object_mut) {
                meta.insert("status".into(), json!(status));
            }
        }
    }
    objects = value;
    Ok(Json(objects))
}

/// Applies `edit` to the session draft's `Objects` and saves it.
async fn write(
    st: &AppState,
    ctx: &Ctx,
    id: &str,
    sid: Option<String>,
    edit: impl FnOnce(&mut Value) -> Result<(), model_path::PathError>,
) -> ApiResult<()> {
    let env = scope::environment_ref(st, ctx, id).await?;
    let s = scope::open_session(st, ctx, &env.id, sid).await?;
    let mut model = s.model;
    let objects = model
        .get_mut("Objects")
        .filter(|o| o.is_object())
        .ok_or_else(|| ApiError::forbidden("the session's model has no objects to edit"))?;
    if objects.get("services").is_none() {
        objects["services"] = json!([]);
    }
    edit(objects).map_err(not_found)?;
    crate::quota::model(st, &model)?;
    st.store.update_session_model(&s.id, &model).await?;
    Ok(())
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/services", tag = "services",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "The application components", body = Vec<ModelObject>)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<Value>> {
    read(&st, &ctx, &id, sid, "").await
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/services/{*path}", tag = "services",
    params(("environment_id" = String, Path), ("path" = String, Path, description = "Object ids, keys or indexes separated by /"),
           ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "The value at the path", body = ModelValue)))]
pub async fn get(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<Value>> {
    read(&st, &ctx, &id, sid, &path).await
}

#[utoipa::path(post, path = "/v1/environments/{environment_id}/services", tag = "services",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = ModelValue, content_type = "application/json", description = "An application object, or a list of them"),
    responses((status = 200, description = "The added component(s)", body = ModelValue)))]
pub async fn post(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
    JsonBody(ModelValue(body)): JsonBody<ModelValue>,
) -> ApiResult<Json<Value>> {
    post_at(st, ctx, id, String::new(), sid, body).await
}

#[utoipa::path(post, path = "/v1/environments/{environment_id}/services/{*path}", tag = "services",
    params(("environment_id" = String, Path), ("path" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = ModelValue, content_type = "application/json", description = "The value(s) to add to the list at the path"),
    responses((status = 200, description = "The added value(s)", body = ModelValue)))]
pub async fn post_path(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    SessionHeader(sid): SessionHeader,
    JsonBody(ModelValue(body)): JsonBody<ModelValue>,
) -> ApiResult<Json<Value>> {
    post_at(st, ctx, id, path, sid, body).await
}

async fn post_at(
    st: AppState,
    ctx: Ctx,
    id: String,
    path: String,
    sid: Option<String>,
    body: Value,
) -> ApiResult<Json<Value>> {
    if body.is_null() || body == json!({}) || body == json!([]) {
        return Err(ApiError::bad_request(
            "the request body is empty: send the application object model",
        ));
    }
    let target = full_path(&path);
    let added = body.clone();
    write(&st, &ctx, &id, sid, |objects| {
        model_path::append(objects, &target, body)
    })
    .await?;
    Ok(Json(added))
}

#[utoipa::path(put, path = "/v1/environments/{environment_id}/services", tag = "services",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = Option<Vec<ModelObject>>, content_type = "application/json", description = "The application objects; none empties the list"),
    responses((status = 200, description = "The new component list", body = Vec<ModelObject>)))]
pub async fn put(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
    JsonBody(body): JsonBody<Option<Vec<ModelObject>>>,
) -> ApiResult<Json<Value>> {
    let services = body
        .unwrap_or_default()
        .into_iter()
        .map(|o| Value::Object(o.0));
    put_at(st, ctx, id, String::new(), sid, services.collect()).await
}

#[utoipa::path(put, path = "/v1/environments/{environment_id}/services/{*path}", tag = "services",
    params(("environment_id" = String, Path), ("path" = String, Path), ("X-Configuration-Session" = String, Header)),
    request_body(content = ModelValue, content_type = "application/json", description = "The new value (none is an empty list)"),
    responses((status = 200, description = "The new value", body = ModelValue)))]
pub async fn put_path(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    SessionHeader(sid): SessionHeader,
    JsonBody(ModelValue(body)): JsonBody<ModelValue>,
) -> ApiResult<Json<Value>> {
    put_at(st, ctx, id, path, sid, body).await
}

async fn put_at(
    st: AppState,
    ctx: Ctx,
    id: String,
    path: String,
    sid: Option<String>,
    body: Value,
) -> ApiResult<Json<Value>> {
    let body = if body.is_null() { json!([]) } else { body };
    let top = path.trim_matches('/').is_empty();
    if top && !body.is_array() {
        return Err(ApiError::bad_request(
            "the services must be a list of objects",
        ));
    }
    let target = full_path(&path);
    let stored = body.clone();
    write(&st, &ctx, &id, sid, |objects| {
        model_path::replace(objects, &target, body)?;
        if let Some(meta) = objects.get_mut("?").and_then(Value::as_object_mut) {
            meta.insert("updated".into(), json!(vetro_store::time::now()));
        }
        Ok(())
    })
    .await?;
    Ok(Json(stored))
}

#[utoipa::path(delete, path = "/v1/environments/{environment_id}/services/{*path}", tag = "services",
    params(("environment_id" = String, Path), ("path" = String, Path), ("X-Configuration-Session" = String, Header)),
    responses((status = 200, description = "Removed", body = Done)))]
pub async fn delete_path(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<Done>> {
    let target = full_path(&path);
    if path.trim_matches('/').is_empty() {
        return Err(ApiError::bad_request("name the component to delete"));
    }
    write(&st, &ctx, &id, sid, |objects| {
        model_path::remove(objects, &target)
    })
    .await?;
    Ok(Json(Done))
}
