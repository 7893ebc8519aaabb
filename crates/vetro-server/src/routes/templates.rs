//! Environment templates: CRUD, their services, create-environment, clone.

use crate::auth::Ctx;
use crate::body::{name_field, object, JsonBody};
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::kept::Kept;
use crate::model_path;
use crate::scope;
use crate::state::AppState;
use crate::views::{EnvironmentSession, TemplateDetail, TemplateList};
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};
use vetro_store::environments::initial_model;

#[utoipa::path(get, path = "/v1/templates", tag = "templates",
    params(("is_public" = Option<bool>, Query, description = "Only public (true) or only the project's private (false) templates"),
           ("marker" = Option<String>, Query, description = "The last template of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..1000, default 100")),
    responses((status = 200, description = "`{\"templates\": [...], \"next_marker\"?}`, oldest first", body = TemplateList)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    q: QueryPairs,
) -> ApiResult<Kept<TemplateList>> {
    let public = match q.get("is_public") {
        Some(_) => Some(q.flag("is_public")?),
        None => None,
    };
    let page = crate::paging::TEMPLATES.request(&q)?;
    let read = async {
        let found = st.store.template_page(ctx.project(), public, &page).await?;
        Ok(TemplateList::from(found))
    };
    let key = format!("{public:?}\0{page:?}");
    st.pages.page(&st.store, ctx.project(), key, read).await
}

fn services_of(body: &Value) -> ApiResult<Value> {
    match body.get("services") {
        None | Some(Value::Null) => Ok(json!([])),
        Some(Value::Array(a)) => Ok(Value::Array(a.clone())),
        Some(_) => Err(ApiError::bad_request(
            "'services' must be a list of objects",
        )),
    }
}

#[utoipa::path(post, path = "/v1/templates", tag = "templates",
    request_body(content = crate::schemas::TemplateCreate, content_type = "application/json"),
    responses((status = 200, description = "The new template", body = TemplateDetail)))]
pub async fn create(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<TemplateDetail>> {
    let name = name_field(&body, "name")?;
    let is_public = match object(&body)?.get("is_public") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::bad_request("'is_public' must be true or false")),
    };
    let description_text = body
        .get("description_text")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let model = json!({"name": name, "services": services_of(&body)?});
    crate::quota::model(&st, &model)?;
    let t = st
        .store
        .create_template(ctx.project(), &name, description_text, &model, is_public)
        .await?;
    Ok(Json(TemplateDetail::from(t)))
}

#[utoipa::path(get, path = "/v1/templates/{env_template_id}", tag = "templates",
    params(("env_template_id" = String, Path)),
    responses((status = 200, description = "The template with its services", body = TemplateDetail)))]
pub async fn show(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<TemplateDetail>> {
    Ok(Json(TemplateDetail::from(
        scope::template(&st, &ctx, &id).await?,
    )))
}

#[utoipa::path(put, path = "/v1/templates/{env_template_id}", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = crate::schemas::TemplateCreate, content_type = "application/json"),
    responses((status = 200, description = "The updated template", body = TemplateDetail)))]
pub async fn update(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<TemplateDetail>> {
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    let o = object(&body)?;
    if o.contains_key("name") {
        t.name = name_field(&body, "name")?;
        t.model["name"] = json!(t.name);
    }
    if o.contains_key("services") {
        t.model["services"] = services_of(&body)?;
    }
    if let Some(d) = o.get("description_text") {
        t.description_text = d
            .as_str()
            .ok_or_else(|| ApiError::bad_request("'description_text' must be a string"))?
            .to_string();
    }
    if let Some(p) = o.get("is_public") {
        t.is_public = p
            .as_bool()
            .ok_or_else(|| ApiError::bad_request("'is_public' must be true or false"))?;
    }
    crate::quota::model(&st, &t.model)?;
    Ok(Json(TemplateDetail::from(
        st.store.update_template(&t).await?,
    )))
}

#[utoipa::path(delete, path = "/v1/templates/{env_template_id}", tag = "templates",
    params(("env_template_id" = String, Path)), responses((status = 200, description = "Deleted")))]
pub async fn delete(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Value>> {
    let t = scope::own_template(&st, &ctx, &id).await?;
    st.store.delete_template(&t.id).await?;
    Ok(Json(Value::Null))
}

#[utoipa::path(get, path = "/v1/templates/{env_template_id}/services", tag = "templates",
    params(("env_template_id" = String, Path)),
    responses((status = 200, description = "The template's services", body = Vec<crate::schemas::AnyObject>)))]
pub async fn services(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Value>> {
    let t = scope::template(&st, &ctx, &id).await?;
    Ok(Json(
        t.model
            .get("services")
            .cloned()
            .unwrap_or_else(|| json!([])),
    ))
}

#[utoipa::path(post, path = "/v1/templates/{env_template_id}/services", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = crate::schemas::AnyValue, content_type = "application/json"),
    responses((status = 200, description = "The added service(s)", body = crate::schemas::AnyValue)))]
pub async fn add_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<Value>> {
    if !(body.is_object() || body.is_array()) || body == json!({}) || body == json!([]) {
        return Err(ApiError::bad_request(
            "send an application object (or a list of them)",
        ));
    }
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    if t.model.get("services").is_none_or(|s| !s.is_array()) {
        t.model["services"] = json!([]);
    }
    model_path::append(&mut t.model, "/services", body.clone())
        .map_err(|e| ApiError::not_found(e.0))?;
    crate::quota::model(&st, &t.model)?;
    st.store.update_template(&t).await?;
    Ok(Json(body))
}

#[utoipa::path(get, path = "/v1/templates/{env_template_id}/services/{*path}", tag = "templates",
    params(("env_template_id" = String, Path), ("path" = String, Path)),
    responses((status = 200, description = "The value at the path", body = crate::schemas::AnyValue)))]
pub async fn get_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
) -> ApiResult<Json<Value>> {
    let t = scope::template(&st, &ctx, &id).await?;
    let v = model_path::get(&t.model, &format!("/services/{path}"))
        .map_err(|e| ApiError::not_found(e.0))?;
    Ok(Json(v.clone()))
}

#[utoipa::path(put, path = "/v1/templates/{env_template_id}/services/{*path}", tag = "templates",
    params(("env_template_id" = String, Path), ("path" = String, Path)),
    request_body(content = crate::schemas::AnyValue, content_type = "application/json"),
    responses((status = 200, description = "The new value", body = crate::schemas::AnyValue)))]
pub async fn put_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<Value>> {
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    model_path::replace(&mut t.model, &format!("/services/{path}"), body.clone())
        .map_err(|e| ApiError::not_found(e.0))?;
    crate::quota::model(&st, &t.model)?;
    st.store.update_template(&t).await?;
    Ok(Json(body))
}

#[utoipa::path(delete, path = "/v1/templates/{env_template_id}/services/{*path}", tag = "templates",
    params(("env_template_id" = String, Path), ("path" = String, Path)),
    responses((status = 200, description = "Removed")))]
pub async fn delete_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
) -> ApiResult<Json<Value>> {
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    model_path::remove(&mut t.model, &format!("/services/{path}"))
        .map_err(|e| ApiError::not_found(e.0))?;
    st.store.update_template(&t).await?;
    Ok(Json(Value::Null))
}

#[utoipa::path(post, path = "/v1/templates/{env_template_id}/create-environment", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = crate::schemas::EnvironmentCreate, content_type = "application/json"),
    responses((status = 200, description = "`{\"environment_id\", \"session_id\"}`", body = EnvironmentSession)))]
pub async fn create_environment(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<EnvironmentSession>> {
    let t = scope::template(&st, &ctx, &id).await?;
    let name = name_field(&body, "name")?;
    crate::quota::environment(&st, &ctx).await?;
    let env_id = vetro_store::new_id();
    let model = initial_model(&env_id, &name, ctx.project(), ctx.user(), &body);
    let mut draft = model.clone();
    draft["Objects"]["services"] = t
        .model
        .get("services")
        .cloned()
        .unwrap_or_else(|| json!([]));
    let (env, session) = st
        .store
        .create_environment_with_session(ctx.project(), ctx.user(), &name, &model, &draft, env_id)
        .await?;
    Ok(Json(EnvironmentSession {
        environment_id: env.id,
        session_id: session.id,
    }))
}

#[utoipa::path(post, path = "/v1/templates/{env_template_id}/clone", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = crate::schemas::EnvironmentCreate, content_type = "application/json"),
    responses((status = 200, description = "The copy, owned by the caller's project", body = TemplateDetail)))]
pub async fn clone(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody,
) -> ApiResult<Json<TemplateDetail>> {
    let t = scope::template(&st, &ctx, &id).await?;
    if !t.is_public {
        return Err(ApiError::forbidden("only public templates can be cloned"));
    }
    let name = name_field(&body, "name")?;
    let mut model = t.model.clone();
    model["name"] = json!(name);
    let copy = st
        .store
        .create_template(ctx.project(), &name, &t.description_text, &model, false)
        .await?;
    Ok(Json(TemplateDetail::from(copy)))
}
