//! The per-project quotas ([`vetro_store::quotas`]) on the requests that
//! would go past them: 403 for counts (environments, packages, tasks in
//! progress), 413 for sizes (object models), with Murano's error body.

use crate::auth::Ctx;
use crate::error::{ApiError, ApiResult, ErrorKind};
use crate::state::AppState;
use serde_json::Value;
use vetro_store::quotas::OverQuota;

fn forbidden(e: OverQuota) -> ApiError {
    ApiError::forbidden(e.to_string()).with_kind(ErrorKind::QuotaExceeded)
}

/// Room for one more where `n` are counted against `limit`.
fn room(n: u64, limit: u64, quota: &'static str, what: &'static str) -> ApiResult<()> {
    if n >= limit {
        return Err(forbidden(OverQuota {
            quota,
            limit,
            wanted: n + 1,
            what,
        }));
    }
    Ok(())
}

/// Room for one more environment in the caller's project.
pub async fn environment(st: &AppState, ctx: &Ctx) -> ApiResult<()> {
    let n = st.store.count_environments(ctx.project()).await?;
    let what = "number of the project's environments";
    room(n, st.limits.quotas.environments, "environments", what)
}

/// Room for one more package in the caller's project.
pub async fn package(st: &AppState, ctx: &Ctx) -> ApiResult<()> {
    let n = st.store.count_packages(ctx.project()).await?;
    let what = "number of the project's packages";
    room(n, st.limits.quotas.packages, "packages", what)
}

/// Room for one more queued task in `project`.
pub async fn task(st: &AppState, project: &str) -> ApiResult<()> {
    let n = st.store.count_active_tasks(project).await?;
    let what = "number of the project's deployments, deletions and actions in progress";
    room(n, st.limits.quotas.active_tasks, "active_tasks", what)
}

/// An object model (a session draft, a template) within the model quota.
pub fn model(st: &AppState, model: &Value) -> ApiResult<()> {
    let bytes = serde_json::to_vec(model)
        .map(|v| v.len())
        .unwrap_or(usize::MAX);
    st.limits
        .quotas
        .check_model(u64::try_from(bytes).unwrap_or(u64::MAX))
        .map_err(|e| ApiError::too_large(e.to_string()).with_kind(ErrorKind::QuotaExceeded))
}
