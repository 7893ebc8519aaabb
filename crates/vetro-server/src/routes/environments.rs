//! `/v1/environments`: list, create, show, rename, delete, lastStatus.

use crate::access::Privilege;
use crate::auth::{Ctx, SessionHeader};
use crate::body::JsonBody;
use crate::error::{ApiError, ApiResult};
use crate::extract::{QueryPairs, P};
use crate::kept::Kept;
use crate::requests::{EnvironmentCreate, NewName};
use crate::scope;
use crate::state::AppState;
use crate::views::{
    Done, EnvironmentDetail, EnvironmentList, EnvironmentView, LastStatus, LastStatuses, ReportView,
};
use axum::extract::State;
use axum::Json;
use serde_json::Value;
use vetro_store::environments::{acquired_by, initial_model, status_of};
use vetro_store::queue::TaskKind;
use vetro_store::sessions::OPENED;

#[utoipa::path(get, path = "/v1/environments", tag = "environments",
    params(("all_tenants" = Option<bool>, Query, description = "List every project's environments (admin only)"),
           ("tenant" = Option<String>, Query, description = "List one project's environments (admin only)"),
           ("marker" = Option<String>, Query, description = "The last environment of the previous page"),
           ("limit" = Option<u32>, Query, description = "1..1000, default 100")),
    responses((status = 200, description = "`{\"environments\": [...], \"next_marker\"?}`, oldest first", body = EnvironmentList)))]
pub async fn list(
    State(st): State<AppState>,
    ctx: Ctx,
    q: QueryPairs,
) -> ApiResult<Kept<EnvironmentList>> {
    let all = q.flag("all_tenants")?;
    let tenant = q.get("tenant").map(str::to_string);
    if all || tenant.is_some() {
        ctx.require(Privilege::AllTenants)?;
    }
    let project = match (&tenant, all) {
        (Some(t), _) => Some(t.as_str()),
        (None, true) => None,
        (None, false) => Some(ctx.project()),
    };
    let page = crate::paging::ENVIRONMENTS.request(&q)?;
    let read = async {
        let envs = st.store.list_environment_summaries(project, &page).await?;
        Ok(EnvironmentList::from(envs))
    };
    match project {
        Some(p) => st.pages.page(&st.store, p, format!("{page:?}"), read).await,
        // Every project's: no one version covers them.
        None => Kept::new(&read.await?),
    }
}

#[utoipa::path(post, path = "/v1/environments", tag = "environments",
    request_body(content = EnvironmentCreate, content_type = "application/json"),
    responses((status = 200, description = "The new environment", body = EnvironmentView)))]
pub async fn create(
    State(st): State<AppState>,
    ctx: Ctx,
    JsonBody(body): JsonBody<EnvironmentCreate>,
) -> ApiResult<Json<EnvironmentView>> {
    crate::quota::environment(&st, &ctx).await?;
    let name = body.name.as_str();
    let model = initial_model("", name, ctx.project(), ctx.user(), &body.settings());
    let env = st
        .store
        .create_environment(ctx.project(), name, &model, None)
        .await?;
    Ok(Json(EnvironmentView::new(
        &env,
        vetro_store::environments::READY.to_string(),
    )))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}", tag = "environments",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = Option<String>, Header, description = "Show this session's draft services")),
    responses((status = 200, description = "The environment with `status`, `acquired_by` and `services`", body = EnvironmentDetail)))]
pub async fn show(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<EnvironmentDetail>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let marks = st.store.session_marks(&env.id).await?;
    let model = match &sid {
        Some(sid) => scope::session(&st, &ctx, &env.id, sid).await?.model,
        None => env.model.clone(),
    };
    let services = model
        .pointer("/Objects/services")
        .cloned()
        .unwrap_or_else(|| Value::Array(Vec::new()));
    Ok(Json(EnvironmentDetail {
        environment: EnvironmentView::new(&env, status_of(&marks)),
        acquired_by: acquired_by(&marks),
        services,
    }))
}

#[utoipa::path(put, path = "/v1/environments/{environment_id}", tag = "environments",
    params(("environment_id" = String, Path)),
    request_body(content = NewName, content_type = "application/json"),
    responses((status = 200, description = "The renamed environment", body = EnvironmentView)))]
pub async fn rename(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    JsonBody(body): JsonBody<NewName>,
) -> ApiResult<Json<EnvironmentView>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let env = st
        .store
        .rename_environment(&env.id, body.name.as_str())
        .await?;
    let marks = st.store.session_marks(&env.id).await?;
    Ok(Json(EnvironmentView::new(&env, status_of(&marks))))
}

#[utoipa::path(delete, path = "/v1/environments/{environment_id}", tag = "environments",
    params(("environment_id" = String, Path),
           ("abandon" = Option<bool>, Query, description = "Remove the environment without a deletion task")),
    responses((status = 200, description = "Deletion started (or done, when abandoned or never deployed)", body = Done)))]
pub async fn delete(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    q: QueryPairs,
) -> ApiResult<Json<Done>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let abandon = q.flag("abandon")?;
    if abandon {
        if let Some(t) = st.store.active_task(&env.id).await? {
            // The worker sees the request and stops at its next step.
            st.store.request_cancel(&t).await?;
        }
        st.store.delete_environment(&env.id).await?;
        return Ok(Json(Done));
    }
    let marks = st.store.session_marks(&env.id).await?;
    let status = status_of(&marks);
    if status == "deploying" || status == "deleting" {
        return Err(ApiError::forbidden(format!(
            "environment {} is {status}; wait for it or delete it with ?abandon=true",
            env.id
        )));
    }
    if env.version == 0 && marks.iter().all(|m| m.state == OPENED) {
        // Never deployed: nothing in the cloud to release. (A first
        // deployment that failed may have left a stack: a task deletes it.)
        st.store.delete_environment(&env.id).await?;
        return Ok(Json(Done));
    }
    crate::quota::task(&st, &env.project_id).await?;
    let trust = crate::auth::delegate(&st, ctx.keystone.as_deref()).await?;
    st.store
        .submit_in_new_session(
            &env.id,
            ctx.user(),
            &env.project_id,
            TaskKind::Delete,
            Value::Null,
            trust.as_deref(),
        )
        .await?;
    Ok(Json(Done))
}

#[utoipa::path(get, path = "/v1/environments/{environment_id}/lastStatus", tag = "environments",
    params(("environment_id" = String, Path), ("X-Configuration-Session" = Option<String>, Header)),
    responses((status = 200, description = "`{\"lastStatuses\": {service_id: report or null}}`", body = LastStatuses)))]
pub async fn last_status(
    State(st): State<AppState>,
    ctx: Ctx,
    P(id): P<String>,
    SessionHeader(sid): SessionHeader,
) -> ApiResult<Json<LastStatuses>> {
    let env = scope::environment(&st, &ctx, &id).await?;
    let model = match sid {
        Some(sid) => scope::session(&st, &ctx, &env.id, &sid).await?.model,
        None => env.model.clone(),
    };
    let mut out = indexmap::IndexMap::new();
    let services = model.pointer("/Objects/services").and_then(Value::as_array);
    for service in services.into_iter().flatten() {
        let Some(sid) = service.pointer("/?/id").and_then(Value::as_str) else {
            continue;
        };
        let mut ids = Vec::new();
        collect_ids(service, &mut ids);
        let newest = st.store.newest_report(&env.id, &ids).await?;
        out.insert(
            sid.to_string(),
            LastStatus(newest.as_ref().map(ReportView::from)),
        );
    }
    Ok(Json(LastStatuses { last_statuses: out }))
}

/// Every object id (`?.id`) inside a model subtree.
pub fn collect_ids<'a>(v: &'a Value, out: &mut Vec<&'a str>) {
    match v {
        Value::Object(m) => {
            if let Some(id) = m.get("?").and_then(|q| q.get("id")).and_then(Value::as_str) {
                out.push(id);
            }
            m.values().for_each(|x| collect_ids(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_ids(x, out)),
        _ => {}
    }
}
