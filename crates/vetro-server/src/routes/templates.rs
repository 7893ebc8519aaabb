//! Environment templates: CRUD, their services, create-environment, clone.

use crate::auth::Ctx;
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::kept::Kept;
use crate::model_path;
use crate::requests::{
    EnvironmentCreate, ModelObject, ModelValue, NewName, TemplateCreate, TemplateUpdate,
};
use crate::scope;
use crate::state::AppState;
use crate::views::{Done, EnvironmentSession, TemplateDetail, TemplateList};
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

/// A template's services as its model holds them.
fn services_value(services: Option<Vec<ModelObject>>) -> Value {
    let list = services.unwrap_or_default().into_iter();
    Value::Array(list.map(|o| Value::Object(o.0)).collect())
}

#[utoipa::path(post, path = "/v1/templates", tag = "templates",
    request_body(content = TemplateCreate, content_type = "application/json"),
    responses((status = 200, description = "The new template", body = TemplateDetail)))]
pub async fn create(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody<TemplateCreate>,
) -> ApiResult<Json<TemplateDetail>> {
    let name = body.name.as_str();
    let model = json!({"name": name, "services": services_value(body.services)});
    crate::quota::model(&st, &model)?;
    let description_text = body.description_text.unwrap_or_default();
    let is_public = body.is_public.unwrap_or(false);
    let t = st
        .store
        .create_template(ctx.project(), name, &description_text, &model, is_public)
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
    request_body(content = TemplateUpdate, content_type = "application/json"),
    responses((status = 200, description = "The updated template", body = TemplateDetail)))]
pub async fn update(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody<TemplateUpdate>,
) -> ApiResult<Json<TemplateDetail>> {
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    if let Some(name) = body.name {
        t.name = name.into();
        t.model["name"] = json!(t.name);
    }
    if body.services.is_some() {
        t.model["services"] = services_value(body.services);
    }
    if let Some(d) = body.description_text {
        t.description_text = d;
    }
    if let Some(p) = body.is_public {
        t.is_public = p;
    }
    crate::quota::model(&st, &t.model)?;
    Ok(Json(TemplateDetail::from(
        st.store.update_template(&t).await?,
    )))
}

#[utoipa::path(delete, path = "/v1/templates/{env_template_id}", tag = "templates",
    params(("env_template_id" = String, Path)), responses((status = 200, description = "Deleted", body = Done)))]
pub async fn delete(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<Done>> {
    let t = scope::own_template(&st, &ctx, &id).await?;
    st.store.delete_template(&t.id).await?;
    Ok(Json(Done))
}

#[utoipa::path(get, path = "/v1/templates/{env_template_id}/services", tag = "templates",
    params(("env_template_id" = String, Path)),
    responses((status = 200, description = "The template's services", body = Vec<ModelObject>)))]
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
    request_body(content = ModelValue, content_type = "application/json", description = "An application object, or a list of them"),
    responses((status = 200, description = "The added service(s)", body = ModelValue)))]
pub async fn add_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(ModelValue(body)): JsonBody<ModelValue>,
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
    responses((status = 200, description = "The value at the path", body = ModelValue)))]
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
    request_body(content = ModelValue, content_type = "application/json", description = "The new value"),
    responses((status = 200, description = "The new value", body = ModelValue)))]
pub async fn put_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
    JsonBody(ModelValue(body)): JsonBody<ModelValue>,
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
    responses((status = 200, description = "Removed", body = Done)))]
pub async fn delete_service(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, path)): P<(String, String)>,
) -> ApiResult<Json<Done>> {
    let mut t = scope::own_template(&st, &ctx, &id).await?;
    model_path::remove(&mut t.model, &format!("/services/{path}"))
        .map_err(|e| ApiError::not_found(e.0))?;
    st.store.update_template(&t).await?;
    Ok(Json(Done))
}

#[utoipa::path(post, path = "/v1/templates/{env_template_id}/create-environment", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = EnvironmentCreate, content_type = "application/json"),
    responses((status = 200, description = "`{\"environment_id\", \"session_id\"}`", body = EnvironmentSession)))]
pub async fn create_environment(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody<EnvironmentCreate>,
) -> ApiResult<Json<EnvironmentSession>> {
    let t = scope::template(&st, &ctx, &id).await?;
    crate::quota::environment(&st, &ctx).await?;
    let env_id = vetro_store::new_id();
    let name = body.name.as_str();
    let model = initial_model(&env_id, name, ctx.project(), ctx.user(), &body.settings());
    let mut draft = model.clone();
    draft["Objects"]["services"] = t
        .model
        .get("services")
        .cloned()
        .unwrap_or_else(|| json!([]));
    let (env, session) = st
        .store
        .create_environment_with_session(ctx.project(), ctx.user(), name, &model, &draft, env_id)
        .await?;
    Ok(Json(EnvironmentSession {
        environment_id: env.id,
        session_id: session.id,
    }))
}

#[utoipa::path(post, path = "/v1/templates/{env_template_id}/clone", tag = "templates",
    params(("env_template_id" = String, Path)),
    request_body(content = NewName, content_type = "application/json"),
    responses((status = 200, description = "The copy, owned by the caller's project", body = TemplateDetail)))]
pub async fn clone(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody<NewName>,
) -> ApiResult<Json<TemplateDetail>> {
    let t = scope::template(&st, &ctx, &id).await?;
    if !t.is_public {
        return Err(ApiError::forbidden("only public templates can be cloned"));
    }
    let name = body.name.as_str();
    let mut model = t.model.clone();
    model["name"] = json!(name);
    let copy = st
        .store
        .create_template(ctx.project(), name, &t.description_text, &model, false)
        .await?;
    Ok(Json(TemplateDetail::from(copy)))
}
