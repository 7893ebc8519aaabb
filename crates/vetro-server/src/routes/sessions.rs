//! Configuration sessions: configure, show, delete, deploy.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult};
use crate::extract::P;
use crate::scope;
use crate::state::AppState;
use crate::views::{Done, SessionView};
use axum::extract::State;
use axum::Json;
use vetro_store::environments::status_of;

#[utoipa::path(post, path = "/v1/environments/{environment_id}/configure", tag = "sessions",
    params(("environment_id" = String, Path)),
    responses((status = 200, description = "The new session", body = SessionView)))]
pub async fn configure(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
) -> ApiResult<Json<SessionView>> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let status = status_of(&st.store.session_marks(&env.id).await?);
    if status == "deploying" || status == "deleting" {
        return Err(ApiError::forbidden(format!(
            "environment {} is {status}; a session cannot be opened now",
            env.id
        )));
    }
    let s = st.store.open_session(&env.id, ctx.user()).await?;
    Ok(Json(SessionView::from(&s)))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/sessions/{session_id}", tag = "sessions",
    params(("environment_id" = String, Path), ("session_id" = String, Path)),
    responses((status = 200, description = "The session", body = SessionView)))]
pub async fn show(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, sid)): P<(String, String)>,
) -> ApiResult<Json<SessionView>> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let s = scope::session(&st, &ctx, &env.id, &sid).await?;
    if let Some(reason) = st.store.session_invalid_reason(&s).await? {
        if s.state == vetro_store::sessions::OPENED {
            return Err(ApiError::forbidden(reason));
        }
    }
    Ok(Json(SessionView::from(&s)))
}

#[utoipa::path(delete, path = "/v1/environments/{environment_id}/sessions/{session_id}", tag = "sessions",
    params(("environment_id" = String, Path), ("session_id" = String, Path)),
    responses((status = 200, description = "Deleted", body = Done)))]
pub async fn delete(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, sid)): P<(String, String)>,
) -> ApiResult<Json<Done>> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let s = scope::session(&st, &ctx, &env.id, &sid).await?;
    st.store.delete_session(&s.id).await?;
    Ok(Json(Done))
}

#[utoipa::path(post, path = "/v1/environments/{environment_id}/sessions/{session_id}/deploy", tag = "sessions",
    params(("environment_id" = String, Path), ("session_id" = String, Path)),
    responses((status = 200, description = "Deployment queued", body = Done)))]
pub async fn deploy(
    State(st): State<AppState>,
    ctx: Ctx,
    P((id, sid)): P<(String, String)>,
) -> ApiResult<Json<Done>> {
    let env = scope::environment_ref(&st, &ctx, &id).await?;
    let s = scope::session(&st, &ctx, &env.id, &sid).await?;
    crate::quota::task(&st, &env.project_id).await?;
    let trust = crate::auth::delegate(&st, ctx.keystone.as_deref()).await?;
    st.store
        .deploy_session(&s.id, &env.project_id, trust.as_deref())
        .await?;
    Ok(Json(Done))
}
