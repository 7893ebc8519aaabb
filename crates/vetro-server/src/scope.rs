//! Tenancy: loading an object only when the caller may see it. Objects of
//! another project are answered exactly like missing ones (404), so nothing
//! about them leaks. Admin tokens are no exception: an admin acts in its own
//! project like any other token (see [`crate::access`]).

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::state::AppState;
use vetro_store::catalog::Package;
use vetro_store::environments::Environment;
use vetro_store::sessions::Session;
use vetro_store::templates::Template;
use vetro_store::StoreError;

fn hide(e: StoreError, what: &str, id: &str) -> ApiError {
    match e {
        StoreError::NotFound(_) => ApiError::not_found(format!("{what} {id} not found")),
        other => other.into(),
    }
}

pub async fn environment(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<Environment> {
    let env = st
        .store
        .get_environment(id)
        .await
        .map_err(|e| hide(e, "environment", id))?;
    if env.project_id != ctx.project() {
        return Err(ApiError::not_found(format!("environment {id} not found")));
    }
    Ok(env)
}

/// An environment's id and project, for routes that need no more of it.
pub struct EnvRef {
    pub id: String,
    pub project_id: String,
}

/// An environment the caller may see, checked without loading its model.
pub async fn environment_ref(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<EnvRef> {
    let project_id = st
        .store
        .environment_project(id)
        .await
        .map_err(|e| hide(e, "environment", id))?;
    if project_id != ctx.project() {
        return Err(ApiError::not_found(format!("environment {id} not found")));
    }
    Ok(EnvRef {
        id: id.to_string(),
        project_id,
    })
}

/// A session of environment `env_id` that belongs to the caller.
pub async fn session(st: &AppState, ctx: &Ctx, env_id: &str, id: &str) -> ApiResult<Session> {
    let s = st
        .store
        .get_session(id)
        .await
        .map_err(|e| hide(e, "session", id))?;
    if s.environment_id != env_id {
        return Err(ApiError::not_found(format!(
            "session {id} does not belong to environment {env_id}"
        )));
    }
    if s.user_id != ctx.user() {
        return Err(ApiError::unauthorized(format!(
            "session {id} belongs to another user"
        )));
    }
    Ok(s)
}

/// The session named by `X-Configuration-Session`, required, open and valid.
pub async fn open_session(
    st: &AppState,
    ctx: &Ctx,
    env_id: &str,
    header: Option<String>,
) -> ApiResult<Session> {
    let Some(id) = header else {
        return Err(ApiError::bad_request(
            "an X-Configuration-Session header is required to change the model",
        ));
    };
    let s = session(st, ctx, env_id, &id).await?;
    if s.state != vetro_store::sessions::OPENED {
        return Err(ApiError::forbidden(format!(
            "session {} is in state '{}' and cannot be edited",
            s.id, s.state
        )));
    }
    if let Some(reason) = st.store.session_invalid_reason(&s).await? {
        return Err(ApiError::forbidden(reason));
    }
    Ok(s)
}

/// A package the caller may read: its project's own, or a public one.
pub async fn package(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<Package> {
    let p = st
        .store
        .get_package(id)
        .await
        .map_err(|e| hide(e, "package", id))?;
    if p.owner_id != ctx.project() && !p.is_public {
        return Err(ApiError::not_found(format!("package {id} not found")));
    }
    Ok(p)
}

/// A package the caller may change: its project's own.
pub async fn own_package(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<Package> {
    let p = package(st, ctx, id).await?;
    if p.owner_id != ctx.project() {
        return Err(ApiError::forbidden(format!(
            "package {id} belongs to another project and cannot be changed"
        )));
    }
    Ok(p)
}

/// A template the caller may read: its project's own, or a public one.
pub async fn template(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<Template> {
    let t = st
        .store
        .get_template(id)
        .await
        .map_err(|e| hide(e, "template", id))?;
    if t.project_id != ctx.project() && !t.is_public {
        return Err(ApiError::not_found(format!("template {id} not found")));
    }
    Ok(t)
}

/// A template the caller may change.
pub async fn own_template(st: &AppState, ctx: &Ctx, id: &str) -> ApiResult<Template> {
    let t = template(st, ctx, id).await?;
    if t.project_id != ctx.project() {
        return Err(ApiError::forbidden(format!(
            "template {id} belongs to another project and cannot be changed"
        )));
    }
    Ok(t)
}
